//! A forging worker, on the test's side only (no back door in the binary): it pulls play jobs
//! from the jobs stream as `pitboss worker` does, plays each honestly with the functions the real
//! worker uses (`pitboss_worker::run_salted` with the job's deck salt, the action tape on), then
//! tampers with the result and publishes it on the results stream as a worker would. What it
//! forges is what a careful cheat would: a tape whose statistics, mean and standard error are all
//! made consistent with it, so that only the server's replay can tell — or a claimed mean that
//! the statistics do not give.

use std::path::Path;
use std::time::Duration;

use async_nats::jetstream::{self, consumer::PullConsumer};
use futures_util::StreamExt;
use pitboss_arena::tape::{self, Tape};
use pitboss_arena::BotStats;
use pitboss_audit::{totals, Setup};
use pitboss_cards::Salt;
use pitboss_queue::envelope::{JobEnvelope, ResultBody, ResultEnvelope};
use pitboss_worker::{Job, JobResult, Outcome, Settings};

/// How a result is forged.
#[derive(Clone, Copy, Debug)]
pub enum Tamper {
    /// One chip moved from one seat to the other in one hand of the tape, with every statistic,
    /// the mean and the standard error recomputed from the forged tape.
    MoveChip,
    /// The claimed mean changed (a tenth of a big bet per hand better for the first bot).
    Mean,
}

/// A forged result sent: the match and what the honest result was.
pub struct Forged {
    pub id: i64,
    pub tamper: Tamper,
    pub honest: Outcome,
}

/// Connects as worker `name` to the queue of prefix `prefix` at `url`, and forges one result per
/// item of `tampers` (the next play jobs delivered, in order). `cache` is its data folder.
pub fn forge(url: &str, prefix: &str, name: &str, cache: &Path, tampers: &[Tamper]) -> Vec<Forged> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            let client = async_nats::connect(url).await.unwrap();
            let js = jetstream::new(client);
            // The names `pitboss serve --queue` gives (crate pitboss-queue's docs).
            let jobs: PullConsumer = js
                .get_stream(format!("{prefix}_JOBS"))
                .await
                .unwrap()
                .get_consumer(&format!("{prefix}_workers"))
                .await
                .unwrap();
            let mut out = Vec::new();
            for t in tampers {
                out.push(one(&js, &jobs, prefix, name, cache, *t).await);
            }
            out
        })
}

/// Pulls the next play job, plays it, forges, publishes, acknowledges.
async fn one(
    js: &jetstream::Context,
    jobs: &PullConsumer,
    prefix: &str,
    name: &str,
    cache: &Path,
    tamper: Tamper,
) -> Forged {
    let t0 = std::time::Instant::now();
    loop {
        assert!(t0.elapsed() < Duration::from_secs(60), "no play job came");
        let mut batch = jobs
            .fetch()
            .max_messages(1)
            .expires(Duration::from_secs(2))
            .messages()
            .await
            .unwrap();
        let Some(m) = batch.next().await else {
            continue;
        };
        let m = m.unwrap();
        let env: JobEnvelope = serde_json::from_slice(&m.payload).unwrap();
        let Job::Play {
            id,
            ref preset,
            seed,
            hands,
            ..
        } = env.job
        else {
            // Not ours to forge: back for a real worker.
            m.ack_with(jetstream::AckKind::Nak(None)).await.unwrap();
            continue;
        };
        let salt = Salt::parse(env.salt.as_deref().unwrap()).unwrap();
        let s = Settings {
            files: pitboss_store::Files::new(cache).unwrap(),
            secret: String::new(),
            sandbox: false,
            luck_adjust: env.settings.luck_adjust,
            threads: env.settings.threads.max(1),
            check_hands: env.settings.check_hands.max(1),
            history: false,
            history_hands: 0,
            tape: true,
            scratch: true,
        };
        let honest = match pitboss_worker::run_salted(&s, &env.job, Some(salt)) {
            JobResult::Played { outcome, .. } => outcome,
            other => panic!("match {id} not played: {other:?}"),
        };
        let mut forged = honest.clone();
        match tamper {
            Tamper::MoveChip => {
                let setup =
                    Setup::heads_up(preset, seed as u64, &salt, hands as u64, s.luck_adjust)
                        .unwrap();
                let raw = tape::open(&honest.tape_bytes().unwrap(), setup.tape_limit())
                    .unwrap()
                    .into_owned();
                let mut t = Tape::parse(&raw).unwrap();
                let k = t.hands.len() / 2;
                t.hands[k].net[0] += 1;
                t.hands[k].net[1] -= 1;
                let sums = totals::from_tape(&setup, &t).unwrap();
                let mut stats = Vec::new();
                for (claimed, sum) in [&honest.stored.a_stats, &honest.stored.b_stats]
                    .into_iter()
                    .zip(&sums)
                {
                    let mut c: BotStats = serde_json::from_str(claimed).unwrap();
                    consistent(&mut c, sum);
                    stats.push(c);
                }
                let unit = pitboss_rules::Preset::by_name(preset).unwrap().game.unit();
                let sum = pitboss_worker::summarize(&stats[0], unit, s.luck_adjust);
                forged.stored.mean = sum.mean;
                forged.stored.se = sum.se;
                forged.stored.raw_mean = sum.raw_mean;
                forged.stored.units = stats[0].units as i64;
                forged.stored.a_stats = serde_json::to_string(&stats[0]).unwrap();
                forged.stored.b_stats = serde_json::to_string(&stats[1]).unwrap();
                forged.set_tape_bytes(&tape::compress(&t.encode()));
                assert_ne!(
                    forged.stored.a_stats, honest.stored.a_stats,
                    "the forgery changed nothing"
                );
            }
            Tamper::Mean => forged.stored.mean += 100.0,
        }
        let r = ResultEnvelope {
            format: pitboss_queue::JOB_FORMAT,
            engine: pitboss_queue::engine_version(),
            worker: name.to_string(),
            job: env.header.clone(),
            body: ResultBody::Done {
                result: JobResult::Played {
                    id,
                    outcome: forged,
                },
                history_b64: None,
            },
        };
        js.publish(
            format!("{prefix}.results"),
            serde_json::to_vec(&r).unwrap().into(),
        )
        .await
        .unwrap()
        .await
        .unwrap();
        m.ack().await.unwrap();
        return Forged { id, tamper, honest };
    }
}

/// `c`'s totals made those of the forged tape (`sum`); what the tape does not give (VPIP,
/// showdowns, faults, …) stays as played.
fn consistent(c: &mut BotStats, sum: &BotStats) {
    c.hands = sum.hands;
    c.net = sum.net;
    c.net_sq = sum.net_sq;
    c.units = sum.units;
    c.unit_net = sum.unit_net;
    c.unit_sq = sum.unit_sq;
    c.adj_hands = sum.adj_hands;
    c.adj_net = sum.adj_net;
    c.adj_sq = sum.adj_sq;
    c.adj_unit_net = sum.adj_unit_net;
    c.adj_unit_sq = sum.adj_unit_sq;
}
