//! A worker names itself when it starts a match's job: the server records it on the running
//! match (the operator page and `/api/status` show it), with the delivery number, and a job
//! redelivered after its first worker vanished shows its new worker. On the machine's NATS
//! (127.0.0.1:4222, a stream prefix of this test's own, removed at the end) and a real worker.

use std::time::{Duration, Instant};

use async_nats::jetstream;
use futures_util::StreamExt;
use pitboss_queue::envelope::{JobHeader, ResultBody, ResultEnvelope};
use pitboss_queue::worker::WorkerConfig;
use pitboss_queue::{engine_version, NatsWorkers, QueueSettings, JOB_FORMAT};
use pitboss_service::workers::Workers;
use pitboss_service::ServeConfig;
use pitboss_store::{Match, MatchKind, MatchState, NewMatch, Store};
use pitboss_worker::{Job, JobResult};

mod common;

use common::{builtin, Streams, NATS};

async fn row_when(store: &Store, id: i64, what: &str, ok: impl Fn(&Match) -> bool) -> Match {
    let start = Instant::now();
    loop {
        let m = store.match_by_id(id).await.unwrap().unwrap();
        if ok(&m) {
            return m;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{what}: the match is {m:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_matchs_worker_is_named_and_a_redelivered_job_shows_its_new_one() {
    let Ok(client) = async_nats::connect(NATS).await else {
        eprintln!("no NATS at {NATS}: skipped");
        return;
    };
    let prefix = format!("t{}_started", std::process::id());
    let _streams = Streams(jetstream::new(client.clone()), prefix.clone());
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
    q.ack_wait = Duration::from_secs(2);
    let nats = NatsWorkers::start(q.clone(), &cfg, store.clone(), 4)
        .await
        .unwrap();

    // A match handed to the queue, as the scheduler does: claimed by nobody yet.
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
            seed: 7,
            hands: 200,
        })
        .await
        .unwrap();
    let m = store.claim_match(nats.claimant()).await.unwrap().unwrap();
    assert_eq!((m.id, m.worker.as_str(), m.delivery), (id, "", 0));
    let (tx, mut results) = tokio::sync::mpsc::unbounded_channel();
    nats.submit(
        Job::Play {
            id,
            preset,
            seed: 7,
            hands: 200,
            a: builtin(&call),
            b: builtin(&raise),
        },
        tx,
    );

    // A first worker pulls the job, says it started, and vanishes (never acknowledges).
    let js = jetstream::new(client);
    let jobs: jetstream::consumer::PullConsumer = js
        .get_consumer_from_stream(format!("{prefix}_workers"), format!("{prefix}_JOBS"))
        .await
        .unwrap();
    let msg = jobs
        .fetch()
        .max_messages(1)
        .expires(Duration::from_secs(10))
        .messages()
        .await
        .unwrap()
        .next()
        .await
        .expect("the job")
        .unwrap();
    let header: JobHeader = serde_json::from_slice(&msg.payload).unwrap();
    assert_eq!((header.kind.as_str(), header.id), ("play", id));
    let delivered = msg.info().unwrap().delivered;
    assert_eq!(delivered, 1);
    let said = ResultEnvelope {
        format: JOB_FORMAT,
        engine: engine_version(),
        worker: "ghost".into(),
        job: header,
        body: ResultBody::Started { delivered },
    };
    js.publish(
        format!("{prefix}.results"),
        serde_json::to_vec(&said).unwrap().into(),
    )
    .await
    .unwrap()
    .await
    .unwrap();
    let m = row_when(&store, id, "named by its first worker", |m| {
        m.worker == "ghost"
    })
    .await;
    assert_eq!((m.state, m.delivery), (MatchState::Running, 1));
    let running: Vec<Match> = store.in_flight().await.unwrap();
    assert_eq!(running.len(), 1);
    assert_eq!(running[0].worker, "ghost");

    // A real worker gets the job after the ack wait, names itself, plays it.
    let mut wc = WorkerConfig::new(
        q.clone(),
        "http://127.0.0.1:9",
        "pbw_unused",
        dir.path().join("cache"),
    );
    wc.name = "w-two".into();
    wc.sandbox = false;
    // Told at once (by default, only a match still playing after a second is).
    wc.started_after = Duration::ZERO;
    let worker = tokio::spawn(pitboss_queue::worker::run(wc));
    let r = tokio::time::timeout(Duration::from_secs(120), results.recv())
        .await
        .expect("a result within two minutes")
        .unwrap();
    worker.abort();
    match r.result {
        JobResult::Played { id: got, outcome } => {
            assert_eq!(got, id);
            assert_eq!(outcome.worker, "w-two");
        }
        other => panic!("{other:?}"),
    }
    // Nobody applied the result here (no scheduler): the match still runs, on its new worker.
    let m = store.match_by_id(id).await.unwrap().unwrap();
    assert_eq!(
        (m.state, m.worker.as_str(), m.delivery),
        (MatchState::Running, "w-two", 2)
    );
    // The first delivery's word arriving late changes nothing.
    assert!(!store.match_started(id, "ghost", 1).await.unwrap());
    assert_eq!(
        store.match_by_id(id).await.unwrap().unwrap().worker,
        "w-two"
    );
}

/// A match over before its worker's `started_after` is not reported started: its row waits for a
/// worker until the result, which names the worker that played it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_over_sooner_than_started_after_is_not_reported_started() {
    let Some(s) = common::server("quick").await else {
        return;
    };
    let q = QueueSettings::new(NATS, &s.prefix);
    let nats = NatsWorkers::start(q.clone(), &s.cfg, s.store.clone(), 4)
        .await
        .unwrap();
    let (id, job) = s.call_raise(9, 200).await;
    let store = &s.store;
    store.claim_match(nats.claimant()).await.unwrap().unwrap();
    let (tx, mut results) = tokio::sync::mpsc::unbounded_channel();
    nats.submit(job, tx);
    let mut wc = s.worker(&q, "w-quick");
    // Far longer than 200 hands of built-in bots take.
    wc.started_after = Duration::from_secs(60);
    let worker = tokio::spawn(pitboss_queue::worker::run(wc));
    let r = tokio::time::timeout(Duration::from_secs(50), results.recv())
        .await
        .expect("a result well before started_after")
        .unwrap();
    worker.abort();
    match r.result {
        JobResult::Played { outcome, .. } => assert_eq!(outcome.worker, "w-quick"),
        other => panic!("{other:?}"),
    }
    // Everything the worker published has been read: the started word would have come first.
    let m = store.match_by_id(id).await.unwrap().unwrap();
    assert_eq!(
        (m.state, m.worker.as_str(), m.delivery),
        (MatchState::Running, "", 0)
    );
}
