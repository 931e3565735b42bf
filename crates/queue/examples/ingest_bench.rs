//! The server's ingestion rate with many workers sending small results (issue #25), and what each
//! stage of a result's path costs.
//!
//! ```sh
//! # N simulated workers (default 50) against a running `pitboss serve --queue NATS --stream P`
//! # whose ladder plays tiny matches; prints each second the results the server acknowledged
//! # (= ingested), the results waiting for it and the jobs waiting for a worker
//! cargo run --release -p pitboss-queue --example ingest_bench -- workers NATS P SECS [N]
//!
//! # the server's work per result, stage by stage, in isolation (µs; one thread)
//! cargo run --release -p pitboss-queue --example ingest_bench -- stages DB_URL [RESULTS] [HANDS]
//! ```
//!
//! The simulated workers are the real one ([`pitboss_queue::worker::run`]) in one process: each
//! pulls a job, plays it (the ladder's reference bots are built in: no bundle, no jail) with the
//! same functions and deck salt as `pitboss worker`, records the action tape and publishes the
//! result — genuine results that pass the server's audit, played for real (a few hands each),
//! not pre-computed. Where results pile up says which side is the limit: results waiting in the
//! results stream = the server's ingestion (one task, then the scheduler: audit and database);
//! jobs waiting in the jobs stream = the workers (here: the two cores they share with it).
//!
//! `stages` replays one result's path on the server without NATS and without other load: the
//! JSON of the result envelope (decode), the audit's replay (`pitboss_service::audit::check`),
//! and the scheduler's database calls per match (create, claim, finish, read back) on DB_URL
//! (`sqlite://PATH?mode=rwc` or `postgres://…`; the tables are made in it); and, if NATS_URL is
//! set, a publish-fetch-acknowledge loop of results of that size through a stream of its own,
//! as the server's single ingest task reads them.

use std::time::{Duration, Instant};

use async_nats::jetstream::{self, consumer, stream};
use futures_util::StreamExt;
use pitboss_queue::envelope::{JobHeader, ResultBody, ResultEnvelope};
use pitboss_queue::worker::WorkerConfig;
use pitboss_queue::QueueSettings;
use pitboss_store::{Files, MatchKind, NewMatch, Store};
use pitboss_worker::{BotRef, Job, JobResult, Settings};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

#[tokio::main]
async fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("workers") if args.len() >= 4 => {
            let n = args.get(4).map_or(Ok(50), |s| s.parse())?;
            workers(&args[1], &args[2], args[3].parse()?, n).await
        }
        Some("stages") if args.len() >= 2 => {
            let k = args.get(2).map_or(Ok(200), |s| s.parse())?;
            let hands = args.get(3).map_or(Ok(20), |s| s.parse())?;
            stages(&args[1], k, hands).await
        }
        _ => Err(
            "usage: ingest_bench workers NATS PREFIX SECS [N] | stages DB_URL [RESULTS] [HANDS]"
                .into(),
        ),
    }
}

/// N real workers in this process; every second, what the server has ingested.
async fn workers(url: &str, prefix: &str, secs: u64, n: usize) -> Res<()> {
    let cache = tempfile::tempdir()?;
    let mut tasks = Vec::new();
    for i in 0..n {
        let mut c = WorkerConfig::new(
            QueueSettings::new(url, prefix),
            // Built-in bots only: no bundle is ever fetched from the server.
            "http://127.0.0.1:9",
            "unused",
            cache.path().join(format!("w{i}")),
        );
        c.slots = 1;
        c.sandbox = false;
        c.name = format!("sim-{i:02}");
        if let Some(ms) = std::env::var("STARTED_AFTER_MS")
            .ok()
            .and_then(|v| v.parse().ok())
        {
            // 0: every match reported started, as before workers waited a second to.
            c.started_after = std::time::Duration::from_millis(ms);
        }
        tasks.push(tokio::spawn(pitboss_queue::worker::run(c)));
    }
    let js = jetstream::new(async_nats::connect(url).await?);
    let mut results = js
        .get_stream(format!("{prefix}_RESULTS"))
        .await?
        .get_consumer::<consumer::pull::Config>(&format!("{prefix}_server"))
        .await?;
    let mut jobs = js
        .get_stream(format!("{prefix}_JOBS"))
        .await?
        .get_consumer::<consumer::pull::Config>(&format!("{prefix}_workers"))
        .await?;
    // The server's database (DB_URL), to count matches recorded: the results stream also
    // carries workers' started messages (for matches that play a second or longer).
    let store = match std::env::var("DB_URL") {
        Ok(u) => Some(Store::open(&u).await?),
        Err(_) => None,
    };
    let done = || async {
        match &store {
            Some(s) => s.counts().await.map(|c| c.done as u64).unwrap_or(0),
            None => 0,
        }
    };
    let ingested = |i: &consumer::Info| i.ack_floor.consumer_sequence;
    let start = (ingested(results.info().await?), done().await);
    let t0 = Instant::now();
    let mut last = (start, t0);
    let mut rates = Vec::new();
    println!("second\tmessages/s\tmatches/s\tresults waiting\tjobs waiting\tjobs being played");
    for s in 1..=secs {
        tokio::time::sleep_until((t0 + Duration::from_secs(s)).into()).await;
        let r = results.info().await?.clone();
        let j = jobs.info().await?.clone();
        let d = done().await;
        let now = Instant::now();
        let dt = (now - last.1).as_secs_f64();
        let rate = (ingested(&r) - last.0 .0) as f64 / dt;
        let matches = (d - last.0 .1) as f64 / dt;
        rates.push(if store.is_some() { matches } else { rate });
        last = ((ingested(&r), d), now);
        println!(
            "{s}\t{rate:.0}\t{matches:.0}\t{}\t{}\t{}",
            r.num_pending + r.num_ack_pending as u64,
            j.num_pending,
            j.num_ack_pending
        );
    }
    let secs_f = (last.1 - t0).as_secs_f64();
    let messages = (last.0 .0 - start.0) as f64 / secs_f;
    let matches = (last.0 .1 - start.1) as f64 / secs_f;
    rates.sort_by(f64::total_cmp);
    let what = if store.is_some() {
        "matches recorded/s"
    } else {
        "results ingested/s (no DB_URL: messages, started ones included)"
    };
    println!(
        "{n} workers, {secs} s: {:.0} {what} on average (per second: median {:.0}, min {:.0}, max {:.0}); {messages:.0} messages/s read",
        if store.is_some() { matches } else { messages },
        rates[rates.len() / 2],
        rates[0],
        rates[rates.len() - 1]
    );
    for t in tasks {
        t.abort();
    }
    Ok(())
}

fn bot(id: i64, name: &str) -> BotRef {
    BotRef {
        version: id,
        label: name.into(),
        builtin: name.into(),
        sha256: String::new(),
    }
}

struct Times(Vec<(&'static str, Vec<f64>)>);

impl Times {
    fn add(&mut self, what: &'static str, t: Instant) {
        let us = t.elapsed().as_secs_f64() * 1e6;
        match self.0.iter_mut().find(|(w, _)| *w == what) {
            Some((_, v)) => v.push(us),
            None => self.0.push((what, vec![us])),
        }
    }

    fn print(&mut self) {
        for (what, v) in &mut self.0 {
            v.sort_by(f64::total_cmp);
            let mean = v.iter().sum::<f64>() / v.len() as f64;
            println!(
                "{what:<40} mean {mean:>9.1} µs   median {:>9.1}   p90 {:>9.1}   ({} times)",
                v[v.len() / 2],
                v[v.len() * 9 / 10],
                v.len()
            );
        }
    }
}

/// One result's path on the server, stage by stage.
async fn stages(db: &str, k: usize, hands: i64) -> Res<()> {
    let dir = tempfile::tempdir()?;
    let files = Files::new(dir.path())?;
    let secret = files.secret()?;
    let store = Store::open(db).await?;
    let a = store.ensure_reference("lowball").await?.id;
    let b = store.ensure_reference("hilo").await?.id;
    let s = Settings {
        files: files.clone(),
        secret: String::new(),
        sandbox: false,
        luck_adjust: true,
        threads: 1,
        check_hands: 2,
        history: false,
        history_hands: 0,
        tape: true,
        scratch: true,
    };
    let mut t = Times(Vec::new());
    let mut sizes = Vec::new();
    let mut envelopes = Vec::new();
    for i in 0..k {
        let seed = 1_000 + i as i64;
        let t0 = Instant::now();
        store
            .create_match(&NewMatch {
                preset: "27td-fl".into(),
                kind: MatchKind::Ladder,
                a,
                b,
                seed,
                hands,
            })
            .await?;
        t.add("db: create the match (plan)", t0);
        let t0 = Instant::now();
        let m = store
            .claim_match("bench")
            .await?
            .ok_or("no match to claim")?;
        t.add("db: claim it (fill)", t0);
        let job = Job::Play {
            id: m.id,
            preset: m.preset.clone(),
            seed: m.seed,
            hands: m.hands,
            a: bot(a, "lowball"),
            b: bot(b, "hilo"),
        };
        let t0 = Instant::now();
        let salt = pitboss_worker::deck_salt(&secret, m.seed);
        let JobResult::Played { id, mut outcome } =
            pitboss_worker::run_salted(&s, &job, Some(salt))
        else {
            return Err("the match did not play".into());
        };
        t.add("(worker: play it, with its tape)", t0);
        outcome.worker = "sim".into();
        let env = ResultEnvelope {
            format: pitboss_queue::JOB_FORMAT,
            engine: pitboss_queue::engine_version(),
            worker: "sim".into(),
            job: JobHeader::of(&job),
            body: ResultBody::Done {
                result: JobResult::Played {
                    id,
                    outcome: outcome.clone(),
                },
                history_b64: None,
            },
        };
        let bytes = serde_json::to_vec(&env)?;
        sizes.push(bytes.len());
        let t0 = Instant::now();
        let back: ResultEnvelope = serde_json::from_slice(&bytes)?;
        t.add("ingest: decode the result's JSON", t0);
        drop(back);
        let t0 = Instant::now();
        pitboss_service::audit::check(&secret, true, &m, &outcome)?;
        t.add("audit: replay its sample (CPU)", t0);
        let t0 = Instant::now();
        store.finish_match(id, &outcome.stored).await?;
        t.add("db: finish the match", t0);
        let t0 = Instant::now();
        store.match_by_id(id).await?;
        t.add("db: read it back (board)", t0);
        envelopes.push(bytes);
    }
    sizes.sort_unstable();
    println!(
        "{} on {}: {k} results of {hands}-hand 27td-fl matches, {} bytes each (median)",
        db.split(':').next().unwrap_or(db),
        store.url(),
        sizes[sizes.len() / 2]
    );
    t.print();
    store.close().await;
    if let Ok(url) = std::env::var("NATS_URL") {
        nats_loop(&url, &envelopes).await?;
    }
    Ok(())
}

/// Publishes `msgs` (again and again, 20 times) to a work-queue stream of its own and reads them
/// as the server's ingest task does (fetch batches of 64, acknowledge each): results/s NATS
/// carries to one ingest task when nothing else is done with them.
async fn nats_loop(url: &str, msgs: &[Vec<u8>]) -> Res<()> {
    let js = jetstream::new(async_nats::connect(url).await?);
    let name = format!("ingestbench_{}", std::process::id());
    let st = js
        .create_stream(stream::Config {
            name: name.clone(),
            subjects: vec![format!("{name}.results")],
            retention: stream::RetentionPolicy::WorkQueue,
            storage: stream::StorageType::File,
            ..Default::default()
        })
        .await?;
    let c = st
        .create_consumer(consumer::pull::Config {
            durable_name: Some("server".into()),
            ack_policy: consumer::AckPolicy::Explicit,
            ..Default::default()
        })
        .await?;
    let total = msgs.len() * 20;
    let t0 = Instant::now();
    let mut acks = Vec::new();
    for i in 0..total {
        acks.push(
            js.publish(
                format!("{name}.results"),
                msgs[i % msgs.len()].clone().into(),
            )
            .await?,
        );
    }
    for a in acks {
        a.await?;
    }
    let published = t0.elapsed();
    let t1 = Instant::now();
    let mut got = 0;
    while got < total {
        let mut batch = c
            .fetch()
            .max_messages(64)
            .expires(Duration::from_secs(2))
            .messages()
            .await?;
        while let Some(m) = batch.next().await {
            m?.ack().await?;
            got += 1;
        }
    }
    let read = t1.elapsed();
    js.delete_stream(&name).await?;
    println!(
        "nats: {total} results published (awaiting every acknowledgement at the end) at {:.0}/s; read and acknowledged by one task at {:.0}/s",
        total as f64 / published.as_secs_f64(),
        total as f64 / read.as_secs_f64()
    );
    Ok(())
}
