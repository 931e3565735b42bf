//! A result the scheduler holds unrecorded (the database away, retried) stays with the server:
//! its message is kept from redelivery by in-progress acknowledgements, not handed over again
//! every ack wait of the results consumer (30 s by default; 2 s here), each copy one more result
//! in memory. On the machine's NATS (127.0.0.1:4222, a stream prefix of this test's own, removed
//! at the end) and a real worker; it waits 7 s.

use std::time::Duration;

use async_nats::jetstream;
use pitboss_queue::worker::WorkerConfig;
use pitboss_queue::{NatsWorkers, QueueSettings};
use pitboss_service::workers::Workers;
use pitboss_service::ServeConfig;
use pitboss_store::{MatchKind, NewMatch, Store};
use pitboss_worker::{Job, JobResult};

mod common;

use common::{builtin, Streams, NATS};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_waiting_to_be_recorded_is_not_delivered_again() {
    let Ok(client) = async_nats::connect(NATS).await else {
        eprintln!("no NATS at {NATS}: skipped");
        return;
    };
    let prefix = format!("t{}_waiting", std::process::id());
    let js = jetstream::new(client);
    let _streams = Streams(js.clone(), prefix.clone());
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(
        data.join("ladder.toml"),
        "plan = false\nhistory_hands = 0\n",
    )
    .unwrap();
    let cfg = ServeConfig::load(&data, "127.0.0.1:0".parse().unwrap()).unwrap();
    let store = Store::open_dir(&data).await.unwrap();
    let mut q = QueueSettings::new(NATS, &prefix);
    q.results_ack_wait = Duration::from_secs(2);
    let nats = NatsWorkers::start(q.clone(), &cfg, store.clone(), 4)
        .await
        .unwrap();
    let (call, raise) = (
        store.ensure_reference("call").await.unwrap(),
        store.ensure_reference("raise").await.unwrap(),
    );
    let preset = cfg.presets[0].clone();
    let id = store
        .create_match(&NewMatch {
            preset: preset.clone(),
            kind: MatchKind::Ladder,
            a: call.id,
            b: raise.id,
            seed: 3,
            hands: 200,
        })
        .await
        .unwrap();
    let (tx, mut results) = tokio::sync::mpsc::unbounded_channel();
    nats.submit(
        Job::Play {
            id,
            preset,
            seed: 3,
            hands: 200,
            a: builtin(&call),
            b: builtin(&raise),
        },
        tx,
    );
    let mut wc = WorkerConfig::new(
        q.clone(),
        "http://127.0.0.1:9",
        "pbw_unused",
        dir.path().join("cache"),
    );
    wc.name = "w-wait".into();
    wc.sandbox = false;
    let worker = tokio::spawn(pitboss_queue::worker::run(wc));
    let first = tokio::time::timeout(Duration::from_secs(60), results.recv())
        .await
        .expect("a result within a minute")
        .unwrap();
    assert!(matches!(first.result, JobResult::Played { id: got, .. } if got == id));
    // Held past the results consumer's ack wait three times over, as a scheduler whose database
    // is away.
    let again = tokio::time::timeout(Duration::from_secs(7), results.recv()).await;
    worker.abort();
    assert!(
        again.is_err(),
        "the result was handed over again while it waited"
    );
    let stream = js.get_stream(format!("{prefix}_RESULTS")).await.unwrap();
    let mut c: jetstream::consumer::PullConsumer = stream
        .get_consumer(&format!("{prefix}_server"))
        .await
        .unwrap();
    let info = c.info().await.unwrap().clone();
    assert_eq!(info.num_ack_pending, 1, "{info:?}");
    assert_eq!(info.num_redelivered, 0, "{info:?}");
    // Recorded at last: acknowledged.
    first.recorded.unwrap().send(()).unwrap();
    let mut left = 1;
    for _ in 0..100 {
        left = c.info().await.unwrap().num_ack_pending;
        if left == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(left, 0);
}
