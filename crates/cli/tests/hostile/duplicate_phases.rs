//! Issue 23 item 1: the seat rotations of a duplicate deal are played by different processes of
//! one bot, which must never be alive at the same time — or any channel between two live
//! processes (locks, CPU timing, caches, memory pressure) carries the cards of one rotation to the
//! next. Two kinds of checks, each in a match (heads-up and three-handed, one table and several
//! tables per process, several threads) and a tournament (every table deals the same cards):
//!
//! * the attack: `duplicate_channel.py` publishes its cards as byte-range locks on a file every
//!   process can reach (with `--no-sandbox`, a file of the test; in the jail, its own script) and
//!   reads those another process holds for the same deal: it must never find one;
//! * the referee's record: `bots/processes.csv` (every process, when it started and ended, the
//!   lanes and hands it served) against `hands.csv` (each hand's deal and rotation): no two
//!   processes of one bot that served the same deal from different rotations (in a tournament:
//!   from anywhere) were alive at the same time, no process served two lanes or two rotations,
//!   and in a match no process of one phase outlived the start of the next (no relay either).

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use crate::harness::*;

/// One line of `processes.csv`.
#[derive(Debug)]
struct Proc {
    bot: String,
    pid: u32,
    start: u64,
    end: u64,
    lanes: Vec<usize>,
    hands: Vec<u64>,
}

fn processes(csv: &Path) -> Vec<Proc> {
    let text = std::fs::read_to_string(csv)
        .unwrap_or_else(|e| panic!("{}: {e} (the referee's record of processes)", csv.display()));
    let mut out = Vec::new();
    for l in text.lines().skip(1) {
        let f: Vec<&str> = l.split(',').collect();
        assert_eq!(f.len(), 9, "{l}");
        assert!(!f[8].ends_with('…'), "runs cut: {l}");
        let hands = f[8]
            .split_whitespace()
            .flat_map(|r| {
                let (first, rest) = r.split_once('+').unwrap();
                let (step, count) = rest.split_once('*').unwrap();
                let (first, step, count): (u64, u64, u64) = (
                    first.parse().unwrap(),
                    step.parse().unwrap(),
                    count.parse().unwrap(),
                );
                (0..count).map(move |i| first + i * step)
            })
            .collect::<Vec<u64>>();
        assert_eq!(hands.len() as u64, f[5].parse::<u64>().unwrap(), "{l}");
        out.push(Proc {
            bot: f[0].to_string(),
            pid: f[1].parse().unwrap(),
            start: f[2].parse().unwrap(),
            end: f[3].parse().unwrap(),
            lanes: f[4]
                .split_whitespace()
                .map(|x| x.parse().unwrap())
                .collect(),
            hands,
        });
    }
    out
}

/// hand → (deal, rotation) from `hands.csv`.
fn slots(csv: &Path) -> HashMap<u64, (u64, u64)> {
    let text = std::fs::read_to_string(csv).unwrap();
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[0].parse().unwrap(),
                (f[1].parse().unwrap(), f[2].parse().unwrap()),
            )
        })
        .collect()
}

/// The invariants of the referee's record of a match or a game of a tournament: `slot(h)` gives
/// the deal and the rotation of hand `h` (numbered from 1 in `processes.csv` and `hands.csv`; a
/// tournament's hands are numbered per game: deal · seats + rotation + 1, at every table). `strict`: a match, where two processes of one bot
/// alive at once must belong to one phase. Returns (processes, lanes) of external bots.
fn check_record(
    f: &mut Findings,
    procs: &[Proc],
    slot: impl Fn(u64) -> (u64, u64),
    strict: bool,
) -> (usize, usize) {
    let mut lanes = BTreeSet::new();
    for p in procs {
        lanes.extend(p.lanes.iter().copied());
        f.check(p.lanes.len() <= 1, || {
            format!("{} process {} served lanes {:?}", p.bot, p.pid, p.lanes)
        });
        let rots: BTreeSet<u64> = p.hands.iter().map(|&h| slot(h).1).collect();
        f.check(rots.len() <= 1, || {
            format!("{} process {} served rotations {rots:?}", p.bot, p.pid)
        });
    }
    for (i, p) in procs.iter().enumerate() {
        for q in &procs[i + 1..] {
            if p.bot != q.bot || p.end <= q.start || q.end <= p.start {
                continue;
            }
            if strict {
                f.check(
                    p.lanes == q.lanes || p.hands.is_empty() || q.hands.is_empty(),
                    || {
                        format!(
                        "{}: process {} (lanes {:?}, {}..{} µs) and {} (lanes {:?}, {}..{} µs) \
                         of different phases were alive together",
                        p.bot, p.pid, p.lanes, p.start, p.end, q.pid, q.lanes, q.start, q.end
                    )
                    },
                );
            }
            let pd: HashMap<u64, u64> = p.hands.iter().map(|&h| slot(h)).collect();
            let shared = q
                .hands
                .iter()
                .map(|&h| slot(h))
                .find_map(|(deal, rot)| pd.get(&deal).map(|&r| (deal, r, rot)));
            if let Some((deal, r, rot)) = shared {
                f.0.push(format!(
                    "{}: processes {} ({}..{} µs) and {} ({}..{} µs) were alive together and both \
                     served deal {deal} (rotations {r} and {rot})",
                    p.bot, p.pid, p.start, p.end, q.pid, q.start, q.end
                ));
            }
        }
    }
    (procs.len(), lanes.len())
}

/// A duplicate match of `bots` (channel bots and `call`) through `pitboss match`.
fn duplicate_match(a: &Arena, bots: &[String], hands: u64, threads: u32, jail: bool) -> Run {
    let mut c = a.pitboss();
    c.args(["match", "--game", "stud8-fl", "--duplicate", "--history"])
        .args([
            "--threads",
            &threads.to_string(),
            "--hands",
            &hands.to_string(),
        ])
        .arg("--out")
        .arg(&a.out);
    for b in bots {
        c.arg("--bot").arg(b);
    }
    if !jail {
        c.arg("--no-sandbox");
    }
    a.run(c, secs(240))
}

/// The channel bot: `id`, protocol 1.1 on `tables` tables (1: version 1); with `file`, that
/// file (else its own script).
fn channel(a: &Arena, id: u32, tables: u32, file: Option<&Path>) -> String {
    let mut args = vec![format!("id={id}"), format!("tables={tables}")];
    if let Some(p) = file {
        args.push(format!("file={}", p.display()));
    }
    a.exec("duplicate_channel.py", &args)
}

/// Runs a duplicate match and checks the attack and the record.
fn match_case(name: &str, externals: &[u32], tables: u32, threads: u32, jail: bool) {
    let _g = lock();
    let a = Arena::new(name);
    let file = a.root.join("channel.bin");
    std::fs::write(&file, b"").unwrap();
    let mut bots: Vec<String> = externals
        .iter()
        .map(|&id| channel(&a, id, tables, (!jail).then_some(file.as_path())))
        .collect();
    bots.push("call".into());
    let n = bots.len() as u64;
    let hands = 1200 * n;
    let run = duplicate_match(&a, &bots, hands, threads, jail);
    let mut f = Findings::default();
    f.of_match(&a, &run, hands, &["duplicate-channel"]);
    let procs = processes(&run.out.join("bots/processes.csv"));
    let by_hand = slots(&run.out.join("hands.csv"));
    let (count, lanes) = check_record(&mut f, &procs, |h| by_hand[&h], true);
    f.check(lanes >= n as usize, || {
        format!("{lanes} lane(s) for {n} rotations: the test did not exercise phases")
    });
    let served: u64 = procs.iter().map(|p| p.hands.len() as u64).sum();
    f.check(served == hands * externals.len() as u64, || {
        format!("the processes served {served} hands, not {hands} per external bot")
    });
    eprintln!("{name}: {count} processes in {lanes} lanes");
    f.assert(&run);
}

#[test]
fn duplicate_rotations_never_overlap_heads_up_no_sandbox() {
    match_case("dupch-hu", &[0], 1, 2, false);
}

#[test]
fn duplicate_rotations_never_overlap_multi_table_no_sandbox() {
    match_case("dupch-multi", &[0], 4, 2, false);
}

#[test]
fn duplicate_rotations_never_overlap_three_handed_no_sandbox() {
    match_case("dupch-3", &[0, 1], 1, 3, false);
}

#[test]
fn duplicate_rotations_never_overlap_three_handed_multi_table_in_the_jail() {
    match_case("dupch-3-jail", &[0, 1], 3, 2, true);
}

#[test]
fn duplicate_rotations_never_overlap_heads_up_in_the_jail() {
    match_case("dupch-hu-jail", &[0], 1, 2, true);
}

/// A tournament: every table of a game deals the same cards, so a bot meets each deal at each of
/// its tables in each rotation; no two of its processes that served a deal may overlap.
#[test]
fn a_tournaments_tables_and_rotations_never_overlap() {
    let _g = lock();
    let a = Arena::new("dupch-tour");
    let bots = [
        format!("a={}", channel(&a, 0, 1, None)),
        format!("b={}", channel(&a, 1, 2, None)),
        "call".to_string(),
    ];
    let mut c = a.pitboss();
    c.args(["tournament", "--game", "27td-fl"]);
    for b in &bots {
        c.arg("--bot").arg(b);
    }
    c.args([
        "--deals",
        "600",
        "--batch",
        "100",
        "--threads",
        "2",
        "--out",
    ])
    .arg(&a.out);
    let run = a.run(c, secs(240));
    let mut f = Findings::default();
    f.check(run.status.is_some_and(|s| s.success()), || {
        "the tournament did not complete".into()
    });
    f.no_success("bot logs", &run.logs(), &["duplicate-channel"]);
    let procs = processes(&run.out.join("games/27td-fl/bots/processes.csv"));
    // Heads-up: hand h (numbered from 1) is deal (h - 1) / 2 in rotation (h - 1) % 2 at every
    // table.
    let (count, lanes) = check_record(&mut f, &procs, |h| ((h - 1) / 2, (h - 1) % 2), false);
    f.check(lanes >= 4, || format!("{lanes} lanes: no phases"));
    // Every unit of the two bots' four tables, in both rotations.
    let served: u64 = procs.iter().map(|p| p.hands.len() as u64).sum();
    f.check(served == 4 * 600 * 2, || {
        format!("the processes served {served} hands, not {}", 4 * 600 * 2)
    });
    eprintln!("tournament: {count} processes in {lanes} lanes");
    f.clean(&a, &run);
    f.assert(&run);
}
