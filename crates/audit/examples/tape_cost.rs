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

fn rate(cfg: &MatchConfig, bots: &[&'static str]) -> (f64, Option<Vec<u8>>) {
    let r = run_match(cfg, &common::Builtins(bots.to_vec()), &mut |_, _| {}).expect("match");
    let _ = std::fs::remove_dir_all(&cfg.out);
    (r.hands as f64 / r.elapsed.as_secs_f64(), r.tape)
}

fn main() {
    let env = |k: &str, d: &str| std::env::var(k).unwrap_or_else(|_| d.into());
    let hands: u64 = env("HANDS", "200000").parse().expect("HANDS");
    let luck = env("LUCK", "1") != "0";
    let bots: Vec<&'static str> = env("BOTS", "random,call")
        .split(',')
        .map(|s| &*Box::leak(s.to_string().into_boxed_str()))
        .collect();
    for game in env("GAMES", "27td-fl,stud8-fl").split(',') {
        let mut best = [0f64; 2];
        let mut tape = None;
        for _ in 0..3 {
            for (i, on) in [false, true].into_iter().enumerate() {
                let mut cfg = common::config(game, hands, 1, luck, on);
                cfg.bots = bots.iter().map(|s| s.to_string()).collect();
                cfg.threads = 1;
                let (r, t) = rate(&cfg, &bots);
                best[i] = best[i].max(r);
                tape = tape.or(t);
            }
        }
        let raw = tape.expect("a tape");
        let z = pitboss_arena::tape::compress(&raw);
        let cfg = common::config(game, hands, 1, luck, true);
        let claimed = {
            let t = pitboss_arena::tape::Tape::parse(&raw).expect("tape");
            pitboss_audit::totals::from_tape(&Setup::of(&cfg), &t).expect("sums")
        };
        let start = Instant::now();
        let report = audit(&Setup::of(&cfg), &z, &claimed, Sampling::default()).expect("audit");
        let took = start.elapsed();
        println!(
            "{game} {} vs {}, {hands} hands, luck adjustment {}, 1 thread: without tape {:>8.0} \
             hands/s, with tape {:>8.0} hands/s, with / without {:.3}; tape {} bytes ({:.1} a \
             hand), {} compressed ({:.1} a hand); audit of {} hands {:.1} ms",
            bots[0],
            bots[1],
            if luck { "on" } else { "off" },
            best[0],
            best[1],
            best[1] / best[0],
            raw.len(),
            raw.len() as f64 / hands as f64,
            z.len(),
            z.len() as f64 / hands as f64,
            report.sampled.len(),
            took.as_secs_f64() * 1e3
        );
    }
}
