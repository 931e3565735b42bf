//! What the action tape costs and what an audit takes: hands per second of the same match with
//! and without the tape, alternated three times (best of each kept, so load from other jobs hits
//! both alike), the ratio from the same run, the tape's size, and the time of an audit with the
//! default sample. Built-in in-process bots (the fastest hands, so the tape's largest share):
//! `cargo run --release -p pitboss-audit --example tape_cost` (`HANDS`, `GAMES`, `BOTS`, `LUCK`).

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::Instant;

use pitboss_arena::{run_match, MatchConfig};
use pitboss_audit::{audit, Sampling, Setup};

/// This process's CPU time (user and system), seconds: on a shared machine, wall time measures
/// the neighbours as much as the match.
fn cpu() -> f64 {
    // SAFETY: getrusage fills the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
    t(u.ru_utime) + t(u.ru_stime)
}

/// Hands per second of wall time and of CPU time.
fn rate(cfg: &MatchConfig, bots: &[&'static str]) -> ([f64; 2], Option<Vec<u8>>) {
    let c = cpu();
    let r = run_match(cfg, &common::Builtins(bots.to_vec()), &mut |_, _| {}).expect("match");
    let c = cpu() - c;
    let _ = std::fs::remove_dir_all(&cfg.out);
    let h = r.hands as f64;
    ([h / r.elapsed.as_secs_f64(), h / c], r.tape)
}

fn main() {
    let env = |k: &str, d: &str| std::env::var(k).unwrap_or_else(|_| d.into());
    let hands: u64 = env("HANDS", "200000").parse().expect("HANDS");
    let luck = env("LUCK", "1") != "0";
    let rounds: usize = env("ROUNDS", "3").parse().expect("ROUNDS");
    let bots: Vec<&'static str> = env("BOTS", "random,call")
        .split(',')
        .map(|s| &*Box::leak(s.to_string().into_boxed_str()))
        .collect();
    for game in env("GAMES", "27td-fl,stud8-fl").split(',') {
        // best[tape off/on][wall/cpu]
        let mut best = [[0f64; 2]; 2];
        let mut tape = None;
        for _ in 0..rounds {
            for (i, on) in [false, true].into_iter().enumerate() {
                let mut cfg = common::config(game, hands, 1, luck, on);
                cfg.bots = bots.iter().map(|s| s.to_string()).collect();
                cfg.threads = 1;
                let (r, t) = rate(&cfg, &bots);
                for m in 0..2 {
                    best[i][m] = best[i][m].max(r[m]);
                }
                tape = tape.or(t);
            }
        }
        let raw = tape.expect("a tape");
        // What compressing costs at zstd's levels (the worker compresses every result's tape).
        for level in [-3, -1, 1, 3] {
            let start = Instant::now();
            let mut size = 0;
            for _ in 0..5 {
                size = zstd::bulk::compress(&raw, level).expect("zstd").len();
            }
            println!(
                "  zstd level {level}: {:.2} ms, {size} bytes",
                start.elapsed().as_secs_f64() * 1e3 / 5.0
            );
        }
        let z = pitboss_arena::tape::compress(&raw);
        let cfg = common::config(game, hands, 1, luck, true);
        let claimed = {
            let t = pitboss_arena::tape::Tape::parse(&raw).expect("tape");
            pitboss_audit::totals::from_tape(&Setup::of(&cfg), &t).expect("sums")
        };
        // Best of 20 (the machine is shared): what the server spends on one such result.
        let mut took = std::time::Duration::MAX;
        let mut report = None;
        for _ in 0..20 {
            let start = Instant::now();
            report =
                Some(audit(&Setup::of(&cfg), &z, &claimed, Sampling::default()).expect("audit"));
            took = took.min(start.elapsed());
        }
        let report = report.expect("audited");
        // The same tape sent raw (job format 3), and the walk alone: an empty sample.
        let mut raw_took = std::time::Duration::MAX;
        let mut walk_took = std::time::Duration::MAX;
        for _ in 0..20 {
            let start = Instant::now();
            audit(&Setup::of(&cfg), &raw, &claimed, Sampling::default()).expect("audit");
            raw_took = raw_took.min(start.elapsed());
            let start = Instant::now();
            pitboss_audit::audit_hands(&Setup::of(&cfg), &raw, &claimed, &[]).expect("audit");
            walk_took = walk_took.min(start.elapsed());
        }
        println!(
            "{game} {} vs {}, {hands} hands, luck adjustment {}, 1 thread, best of {rounds}: \
             hands/s without / with the tape {:.0} / {:.0} (wall, ratio {:.3}), {:.0} / {:.0} \
             (CPU, ratio {:.3}); tape {} bytes ({:.1} a hand), {} compressed ({:.1} a hand); \
             audit of {} hands {:.1} ms (best of 20; of the raw tape {:.1} ms, its walk without \
             replays {:.1} ms)",
            bots[0],
            bots[1],
            if luck { "on" } else { "off" },
            best[0][0],
            best[1][0],
            best[1][0] / best[0][0],
            best[0][1],
            best[1][1],
            best[1][1] / best[0][1],
            raw.len(),
            raw.len() as f64 / hands as f64,
            z.len(),
            z.len() as f64 / hands as f64,
            report.sampled.len(),
            took.as_secs_f64() * 1e3,
            raw_took.as_secs_f64() * 1e3,
            walk_took.as_secs_f64() * 1e3
        );
    }
}
