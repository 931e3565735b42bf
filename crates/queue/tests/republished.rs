//! A match's job published again — by a server restarted before the match's result was
//! recorded, which re-queues the match and hands it out anew — is played and answered again,
//! even by the same worker at the same delivery number: each publication's result has a
//! message id of its own. (With ids made of match, worker and delivery alone, JetStream took the
//! second result for a copy of the first within its duplicate window and dropped it, and the
//! match stayed running for ever.) On the machine's NATS (127.0.0.1:4222, a stream prefix of
//! this test's own, removed at the end) and a real worker.

use std::time::Duration;

use async_nats::jetstream;
use pitboss_queue::worker::WorkerConfig;
use pitboss_queue::{NatsWorkers, QueueSettings};
use pitboss_service::workers::{Finished, Workers};
use pitboss_service::ServeConfig;
use pitboss_store::{MatchKind, NewMatch, Store};
use pitboss_worker::{Job, JobResult};
use tokio::sync::mpsc::UnboundedReceiver;

mod common;

use common::{builtin, Streams, NATS};

/// The next result on either server's channel, recorded at once (as the scheduler does).
async fn next(
    a: &mut UnboundedReceiver<Finished>,
    b: &mut UnboundedReceiver<Finished>,
) -> Option<JobResult> {
    let f = tokio::time::timeout(Duration::from_secs(60), async {
        tokio::select! {
            f = a.recv() => f,
            f = b.recv() => f,
        }
    })
    .await
    .ok()??;
    if let Some(r) = f.recorded {
        let _ = r.send(());
    }
    Some(f.result)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_published_again_after_a_restart_gets_its_own_result() {
    let Ok(client) = async_nats::connect(NATS).await else {
        eprintln!("no NATS at {NATS}: skipped");
        return;
    };
    let prefix = format!("t{}_republished", std::process::id());
    let _streams = Streams(jetstream::new(client), prefix.clone());
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
    let q = QueueSettings::new(NATS, &prefix);
    // Two boots of the server on the same streams and store.
    let first = NatsWorkers::start(q.clone(), &cfg, store.clone(), 4)
        .await
        .unwrap();
    let second = NatsWorkers::start(q.clone(), &cfg, store.clone(), 4)
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
            seed: 5,
            hands: 300,
        })
        .await
        .unwrap();
    let job = || Job::Play {
        id,
        preset: preset.clone(),
        seed: 5,
        hands: 300,
        a: builtin(&call),
        b: builtin(&raise),
    };
    let (tx1, mut rx1) = tokio::sync::mpsc::unbounded_channel();
    let (tx2, mut rx2) = tokio::sync::mpsc::unbounded_channel();

    // One worker, one slot: it plays both publications, each its first delivery.
    let mut wc = WorkerConfig::new(
        q.clone(),
        "http://127.0.0.1:9",
        "pbw_unused",
        dir.path().join("cache"),
    );
    wc.name = "w-same".into();
    wc.sandbox = false;
    let worker = tokio::spawn(pitboss_queue::worker::run(wc));

    first.submit(job(), tx1);
    let one = next(&mut rx1, &mut rx2)
        .await
        .expect("the first publication's result");
    second.submit(job(), tx2);
    let two = next(&mut rx1, &mut rx2)
        .await
        .expect("the second publication's result (not taken for a duplicate of the first)");
    worker.abort();
    for r in [&one, &two] {
        match r {
            JobResult::Played { id: got, outcome } => {
                assert_eq!(*got, id);
                assert_eq!(outcome.worker, "w-same");
            }
            other => panic!("{other:?}"),
        }
    }
    let units = |r: &JobResult| match r {
        JobResult::Played { outcome, .. } => outcome.stored.units,
        _ => unreachable!(),
    };
    assert_eq!(
        units(&one),
        units(&two),
        "the same seed plays the same match"
    );
}
