//! A result travels in its own message when NATS takes it (a ladder match's, some 475 KB with
//! its action tape after its JSON) and through the object store when it is larger: both roads
//! bring the same result, with its tape, and the stored copy is removed once the result is
//! taken. On the machine's NATS (127.0.0.1:4222, a stream prefix of this test's own, removed at
//! the end), a real worker and the server's ingestion.

use std::time::Duration;

use async_nats::jetstream;
use futures_util::StreamExt;
use pitboss_queue::worker::WorkerConfig;
use pitboss_queue::{NatsWorkers, QueueSettings};
use pitboss_service::workers::Workers;
use pitboss_service::ServeConfig;
use pitboss_store::{MatchKind, NewMatch, Store};
use pitboss_worker::{Job, JobResult, Outcome};

mod common;

use common::{builtin, Streams, NATS};

/// Results the server has read and not acknowledged.
async fn unacknowledged(js: &jetstream::Context, prefix: &str) -> usize {
    let stream = js.get_stream(format!("{prefix}_RESULTS")).await.unwrap();
    let mut c: jetstream::consumer::PullConsumer = stream
        .get_consumer(&format!("{prefix}_server"))
        .await
        .unwrap();
    c.info().await.unwrap().num_ack_pending
}

/// Plays match `id` on a worker of its own that sends bodies above `inline_max` bytes through
/// the object store (and with `compress`, every tape compressed); the result as the server's
/// ingestion hands it on. Acting as the scheduler, it checks that the result's message is
/// acknowledged only once it says the result is recorded.
#[allow(clippy::too_many_arguments)]
async fn play(
    js: &jetstream::Context,
    prefix: &str,
    nats: &NatsWorkers,
    q: &QueueSettings,
    store: &Store,
    dir: &std::path::Path,
    inline_max: Option<usize>,
    compress: bool,
    id: i64,
) -> Outcome {
    let m = store.claim_match(nats.claimant()).await.unwrap().unwrap();
    assert_eq!(m.id, id);
    let v = |id| async move { store.version(id).await.unwrap().unwrap() };
    let (a, b) = (v(m.a).await, v(m.b).await);
    let (tx, mut results) = tokio::sync::mpsc::unbounded_channel();
    nats.submit(
        Job::Play {
            id,
            preset: m.preset.clone(),
            seed: m.seed,
            hands: m.hands,
            a: builtin(&a),
            b: builtin(&b),
        },
        tx,
    );
    let mut wc = WorkerConfig::new(
        q.clone(),
        "http://127.0.0.1:9",
        "pbw_unused",
        dir.join(format!("cache{id}")),
    );
    wc.name = format!("w{id}");
    wc.sandbox = false;
    wc.inline_max = inline_max;
    wc.compress_tape = compress;
    let worker = tokio::spawn(pitboss_queue::worker::run(wc));
    let r = tokio::time::timeout(Duration::from_secs(120), results.recv())
        .await
        .expect("a result within two minutes")
        .unwrap();
    worker.abort();
    // Not recorded yet: the result's message waits unacknowledged (a server killed now reads
    // it again on its next start).
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        unacknowledged(js, prefix).await,
        1,
        "acknowledged unrecorded"
    );
    r.recorded
        .expect("a queue's result asks to be told")
        .send(())
        .unwrap();
    let mut left = 1;
    for _ in 0..100 {
        left = unacknowledged(js, prefix).await;
        if left == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(left, 0, "recorded and still not acknowledged");
    match r.result {
        JobResult::Played { id: got, outcome } => {
            assert_eq!(got, id);
            outcome
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_travels_inline_or_through_the_object_store_alike() {
    let Ok(client) = async_nats::connect(NATS).await else {
        eprintln!("no NATS at {NATS}: skipped");
        return;
    };
    let prefix = format!("t{}_transport", std::process::id());
    let js = jetstream::new(client.clone());
    let _streams = Streams(js.clone(), prefix.clone());
    // Every result message as the workers publish it (a plain subscription beside the stream).
    let mut sent = client.subscribe(format!("{prefix}.results")).await.unwrap();
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
    let nats = NatsWorkers::start(q.clone(), &cfg, store.clone(), 4)
        .await
        .unwrap();
    let (lowball, hilo) = (
        store.ensure_reference("lowball").await.unwrap(),
        store.ensure_reference("hilo").await.unwrap(),
    );
    // The same match three times (same seed, same bots): 20,000 hands, as the ladder plays.
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.push(
            store
                .create_match(&NewMatch {
                    preset: cfg.presets[0].clone(),
                    kind: MatchKind::Ladder,
                    a: lowball.id,
                    b: hilo.id,
                    seed: 11,
                    hands: 20_000,
                })
                .await
                .unwrap(),
        );
    }
    // Every object the store receives, as it arrives (the server made the store at its start).
    let blobs = js
        .get_object_store(format!("{prefix}_BLOBS"))
        .await
        .unwrap();
    let mut watch = blobs.watch().await.unwrap();
    let seen = tokio::spawn(async move {
        let mut names = Vec::new();
        while let Ok(Some(Ok(o))) = tokio::time::timeout(Duration::from_secs(5), watch.next()).await
        {
            names.push(o.name);
        }
        names
    });
    let stored = play(
        &js,
        &prefix,
        &nats,
        &q,
        &store,
        dir.path(),
        Some(0),
        false,
        ids[0],
    )
    .await;
    let inline = play(
        &js,
        &prefix,
        &nats,
        &q,
        &store,
        dir.path(),
        None,
        false,
        ids[1],
    )
    .await;
    let packed = play(
        &js,
        &prefix,
        &nats,
        &q,
        &store,
        dir.path(),
        None,
        true,
        ids[2],
    )
    .await;

    for o in [&stored, &inline, &packed] {
        let raw = pitboss_arena::tape::open(&o.tape_bytes().unwrap(), 1 << 30)
            .unwrap()
            .into_owned();
        let head = pitboss_arena::tape::read_header(&raw).unwrap();
        assert_eq!((head.seats, head.hands), (2, 20_000));
    }
    // On the wire (job format 4): inline, the tape travelled as bytes after the result's JSON,
    // raw (compressed with `--compress-tape`), never in the JSON; the stored result's message
    // is JSON naming its object.
    let mut framed = Vec::new();
    let mut named = 0;
    while let Ok(Some(m)) = tokio::time::timeout(Duration::from_secs(1), sent.next()).await {
        let (json, tape) = pitboss_queue::envelope::unframe(&m.payload).unwrap();
        let v: serde_json::Value = serde_json::from_slice(json).unwrap();
        if let Some(tape) = tape {
            let outcome = &v["body"]["Done"]["result"]["Played"]["outcome"];
            assert!(outcome.is_object() && outcome.get("tape").is_none(), "{v}");
            framed.push(tape.to_vec());
        } else if v["body"].get("Stored").is_some() {
            named += 1;
        }
    }
    assert_eq!((framed.len(), named), (2, 1));
    assert!(framed[0].starts_with(pitboss_arena::tape::MAGIC));
    assert!(!framed[1].starts_with(pitboss_arena::tape::MAGIC));
    // Through the object store the tape went compressed; inline, it travelled raw.
    let (via_store, via_message) = (stored.tape_bytes().unwrap(), inline.tape_bytes().unwrap());
    assert!(!via_store.starts_with(pitboss_arena::tape::MAGIC));
    assert!(via_message.starts_with(pitboss_arena::tape::MAGIC));
    // `pitboss worker --compress-tape`: compressed in the message too.
    let packed_tape = packed.tape_bytes().unwrap();
    assert!(!packed_tape.starts_with(pitboss_arena::tape::MAGIC));
    assert_eq!(
        pitboss_arena::tape::open(&packed_tape, 1 << 30).unwrap(),
        pitboss_arena::tape::open(&via_message, 1 << 30).unwrap()
    );
    assert_eq!(
        pitboss_arena::tape::open(&via_store, 1 << 30).unwrap(),
        pitboss_arena::tape::open(&via_message, 1 << 30).unwrap()
    );
    let same = |o: &Outcome| {
        let mut s = o.stored.clone();
        s.elapsed_ms = 0;
        s
    };
    assert_eq!(same(&stored), same(&inline));
    assert_eq!(same(&packed), same(&inline));
    let (w0, w1) = (format!("w{}", ids[0]), format!("w{}", ids[1]));
    assert_eq!(
        (stored.worker.as_str(), inline.worker.as_str()),
        (&*w0, &*w1)
    );

    // The first result went through the object store, the others did not.
    let seen = seen.await.unwrap();
    // (Named by the job: kind, match, the job's stream sequence, worker, delivery.)
    let by = |id: i64, w: &str| {
        seen.iter()
            .any(|n| n.starts_with(&format!("play-{id}-j")) && n.ends_with(&format!("-{w}-1")))
    };
    assert!(by(ids[0], &w0), "match {} not stored: {seen:?}", ids[0]);
    assert!(!by(ids[1], &w1), "match {} stored: {seen:?}", ids[1]);
    assert!(
        !by(ids[2], &format!("w{}", ids[2])),
        "match {} stored: {seen:?}",
        ids[2]
    );

    // The stored body is removed once its result is acknowledged (soon after it is handed on).
    let mut left = Vec::new();
    for _ in 0..100 {
        left.clear();
        let mut list = blobs.list().await.unwrap();
        while let Some(o) = list.next().await {
            left.push(o.unwrap().name);
        }
        if left.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(left.is_empty(), "left in the object store: {left:?}");
}
