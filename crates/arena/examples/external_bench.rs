//! Speed of external bots: the Rust example bot against itself, heads-up 2-7 triple draw fixed
//! limit, on 1 and 2 tables (threads), next to the bare pipe round trip of a tiny JSON line with
//! one request in flight (a `cat` child, blocking std pipes), measured in the same run.
//!
//! ```text
//! cargo build --release -p pitboss-example-bot
//! cargo run --release -p pitboss-arena --example external_bench -- [HANDS] [--sandbox]
//! ```

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

use pitboss_arena::external::{ExternalFactory, ExternalOptions};
use pitboss_arena::{run_match, MatchConfig, MatchFile};

fn pipe_round_trips(n: u32) -> f64 {
    let mut child = Command::new("cat")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("cat");
    let mut w = child.stdin.take().unwrap();
    let mut r = BufReader::new(child.stdout.take().unwrap());
    let msg = b"{\"type\":\"action\",\"id\":1,\"action\":{\"type\":\"call\"}}\n";
    let mut line = String::new();
    let t = Instant::now();
    for _ in 0..n {
        w.write_all(msg).unwrap();
        w.flush().unwrap();
        line.clear();
        r.read_line(&mut line).unwrap();
    }
    let rate = f64::from(n) / t.elapsed().as_secs_f64();
    drop(w);
    let _ = child.wait();
    rate
}

fn main() {
    let mut hands = 100_000u64;
    let mut sandbox = false;
    for a in std::env::args().skip(1) {
        if a == "--sandbox" {
            sandbox = true;
        } else {
            hands = a.parse().expect("HANDS");
        }
    }
    let manifest = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../bots/rust-example/bot.toml"
    );
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "load average before: {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    for threads in [1usize, 2] {
        // The pipe rate next to each run (the machine is shared, so it drifts).
        let mut pipes = [
            pipe_round_trips(100_000),
            pipe_round_trips(100_000),
            pipe_round_trips(100_000),
        ];
        pipes.sort_by(f64::total_cmp);
        let pipe = pipes[1];
        println!(
            "bare pipe round trip (cat, one tiny JSON line in flight), median of 3: {pipe:.0} /s"
        );
        let out = std::env::temp_dir().join(format!("pitboss-bench-{}", std::process::id()));
        let bots = vec![manifest.to_string(), manifest.to_string()];
        let cfg = MatchConfig::from_file(
            MatchFile {
                game: Some("27td-fl".into()),
                bots: Some(bots.clone()),
                hands: Some(hands),
                seed: Some(1),
                threads: Some(threads),
                out: Some(out.clone()),
                ..MatchFile::default()
            },
            |_| unreachable!(),
        )
        .unwrap();
        let opts = ExternalOptions {
            sandbox,
            out: out.clone(),
            ..ExternalOptions::default()
        };
        let factory = ExternalFactory::new(&bots, |_, _| None, &opts).expect("bots");
        let t = Instant::now();
        let res = run_match(&cfg, &factory, &mut |_, _| {}).unwrap();
        let secs = t.elapsed().as_secs_f64();
        let decisions: u64 = factory
            .reports()
            .iter()
            .flatten()
            .map(|r| r.decisions)
            .sum();
        let faults: u64 = res.stats.bots.iter().map(|b| b.fault_total()).sum();
        drop(factory);
        let per_table = decisions as f64 / secs / threads as f64;
        println!(
            "{threads} table(s): {hands} hands in {secs:.2} s = {:.0} hands/s, {:.0} decisions/s ({per_table:.0} per table = {:.0}% of the pipe rate), faults {faults}",
            hands as f64 / secs,
            decisions as f64 / secs,
            100.0 * per_table / pipe
        );
        let _ = std::fs::remove_dir_all(&out);
    }
}
