//! Speed of external bots: the Rust example bot against itself, heads-up 2-7 triple draw fixed
//! limit, on 1 and 2 worker threads, as a version 1 bot on the raw protocol
//! (`pitboss-example-raw`: one table per process, full messages) and on the SDK
//! (`pitboss-example-bot`: 64 tables per process, compact messages of protocol 1.1, then terse
//! ones of 1.2; once more with the luck adjustment on, as `pitboss match` plays an external bot
//! by default); then the Python SDK example (`bots/sdk/python/example.py`, 16 tables, compact
//! then terse) against the built-in `call`; next to the bare pipe rates of a tiny JSON line
//! through a `cat` child measured in the same run: one line in flight (round trips), and 16 in
//! flight (pipelined: 16 lines written at once, then read back).
//!
//! ```text
//! cargo build --release -p pitboss-example-bot
//! cargo run --release -p pitboss-external --example external_bench -- [HANDS] [--sandbox] [--only TEXT]
//! ```
//!
//! The rates include starting the bots (a jail and a process each: ~0.1 s, ~0.2 s for Python),
//! so HANDS of 200,000 gives the steady rate within a few percent; the version 1 rows play at
//! most 30,000 hands.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

use pitboss_arena::{run_match, MatchConfig, MatchFile};
use pitboss_external::{ExternalFactory, ExternalOptions};

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

/// Lines per second through `cat` with 16 in flight: one write of 16 lines, then the 16 lines
/// read back, repeated (the referee's batches with 16 tables in flight).
fn pipe_pipelined(n: u32) -> f64 {
    let mut child = Command::new("cat")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("cat");
    let mut w = child.stdin.take().unwrap();
    let mut r = BufReader::new(child.stdout.take().unwrap());
    let msg = b"{\"type\":\"action\",\"id\":1,\"action\":{\"type\":\"call\"}}\n";
    let batch: Vec<u8> = msg.repeat(16);
    let mut line = String::new();
    let t = Instant::now();
    for _ in 0..n / 16 {
        w.write_all(&batch).unwrap();
        w.flush().unwrap();
        for _ in 0..16 {
            line.clear();
            r.read_line(&mut line).unwrap();
        }
    }
    let rate = f64::from((n / 16) * 16) / t.elapsed().as_secs_f64();
    drop(w);
    let _ = child.wait();
    rate
}

fn median3(f: impl Fn() -> f64) -> f64 {
    let mut v = [f(), f(), f()];
    v.sort_by(f64::total_cmp);
    v[1]
}

fn main() {
    let mut hands = 100_000u64;
    let mut sandbox = false;
    // `--only TEXT`: the rows whose label contains TEXT (e.g. "Python SDK terse").
    let mut only = String::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--sandbox" {
            sandbox = true;
        } else if a == "--only" {
            only = args.next().expect("--only TEXT");
        } else {
            hands = a.parse().expect("HANDS");
        }
    }
    let bin = |name: &str| {
        format!(
            "exec:{}/../../target/release/{name}",
            env!("CARGO_MANIFEST_DIR")
        )
    };
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "load average before: {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    let pipe = median3(|| pipe_round_trips(100_000));
    let piped = median3(|| pipe_pipelined(800_000));
    println!("bare pipe, one tiny JSON line in flight (round trips), median of 3: {pipe:.0} /s");
    println!("bare pipe, 16 lines in flight (pipelined), median of 3: {piped:.0} lines/s");
    // The third pair: the SDK bot as `pitboss match` plays it by default with an external bot,
    // with the luck adjustment on (the other rows measure the protocol alone).
    // The interpreter: `python3` from PATH, or `PITBOSS_BENCH_PYTHON` (builds differ: a
    // distribution's PGO/LTO build runs the same SDK with ~15% fewer instructions than a plain one).
    let interpreter = std::env::var("PITBOSS_BENCH_PYTHON").unwrap_or_else(|_| "python3".into());
    let python = format!(
        "exec:{interpreter} {}/../../bots/sdk/python/example.py",
        env!("CARGO_MANIFEST_DIR")
    );
    let rust = |args: &str| format!("{}{args}", bin("pitboss-example-bot"));
    // Version 1 bots are an order of magnitude slower: their rows play at most 30,000 hands, so
    // that a run long enough for the fast rows' start-up (a jail and a process per bot, ~0.1 s;
    // ~0.2 s for Python) to vanish in their rate still takes minutes, not a quarter of an hour.
    for (label, bot, against_call, luck) in [
        ("v1 raw", bin("pitboss-example-raw"), false, false),
        ("1.1 SDK compact", rust(" --compact"), false, false),
        ("1.2 SDK terse", rust(""), false, false),
        ("1.2 SDK terse, luck adjustment on", rust(""), false, true),
        (
            "Python SDK compact vs call",
            format!("{python} --compact"),
            true,
            false,
        ),
        ("Python SDK terse vs call", python.clone(), true, false),
    ] {
        if !label.contains(only.as_str()) {
            continue;
        }
        let hands = if label.starts_with("v1") {
            hands.min(30_000)
        } else {
            hands
        };
        for threads in [1usize, 2] {
            let out = std::env::temp_dir().join(format!("pitboss-bench-{}", std::process::id()));
            let other = if against_call {
                "call".into()
            } else {
                bot.clone()
            };
            let bots = vec![bot.clone(), other];
            let cfg = MatchConfig::from_file(
                MatchFile {
                    game: Some("27td-fl".into()),
                    bots: Some(bots.clone()),
                    hands: Some(hands),
                    seed: Some(1),
                    threads: Some(threads),
                    out: Some(out.clone()),
                    luck_adjust: Some(luck),
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
            let factory = ExternalFactory::new(&bots, pitboss_bots::builtin, &opts).expect("bots");
            // The pipe again next to this row (before and after it): on a shared machine the
            // rate of both moves from minute to minute, so the share is taken against these.
            let before = median3(|| pipe_pipelined(400_000));
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
            let spawns: u32 = factory.reports().iter().flatten().map(|r| r.spawns).sum();
            drop(factory);
            let near = (before + median3(|| pipe_pipelined(400_000))) / 2.0;
            let rate = decisions as f64 / secs;
            println!(
                "{label}, --threads {threads}: {hands} hands in {secs:.2} s = {:.0} hands/s, \
                 {rate:.0} decisions/s = {:.0}% of the round-trip rate, {:.0}% of the pipelined \
                 rate ({:.0}% of the {near:.0} lines/s measured next to this row); {spawns} \
                 processes, faults {faults}",
                hands as f64 / secs,
                100.0 * rate / pipe,
                100.0 * rate / piped,
                100.0 * rate / near,
            );
            let _ = std::fs::remove_dir_all(&out);
        }
    }
}
