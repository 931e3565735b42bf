//! Matches end to end with small in-test bots: determinism across thread counts, seat rotation,
//! duplicate deals, output files.

mod common;

use std::path::PathBuf;

use common::Factory;
use pitboss_arena::{run_match, slot, MatchConfig, MatchFile};

fn config(
    game: &str,
    bots: &[&str],
    hands: u64,
    duplicate: bool,
    threads: usize,
    out: PathBuf,
) -> MatchConfig {
    MatchConfig::from_file(
        MatchFile {
            game: Some(game.into()),
            bots: Some(bots.iter().map(|s| s.to_string()).collect()),
            hands: Some(hands),
            seed: Some(42),
            duplicate: Some(duplicate),
            threads: Some(threads),
            out: Some(out),
            history: Some(true),
            ..MatchFile::default()
        },
        |_| unreachable!(),
    )
    .expect("valid config")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pitboss-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn same_seed_same_results_for_any_thread_count() {
    for game in ["27td-nl", "stud8-fl"] {
        let bots = ["random", "random", "call"];
        let mut outputs = Vec::new();
        for threads in [1, 2, 3] {
            let out = tmp(&format!("det-{game}-{threads}"));
            let cfg = config(game, &bots, 5000, false, threads, out.clone());
            run_match(&cfg, &Factory(bots.to_vec()), &mut |_, _| {}).unwrap();
            let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
            let hands = std::fs::read_to_string(out.join("hands.csv")).unwrap();
            assert_eq!(hands.lines().count(), 1 + 5000 * 3);
            outputs.push((summary, hands));
            let _ = std::fs::remove_dir_all(&out);
        }
        assert_eq!(outputs[0], outputs[1], "{game}: 1 vs 2 threads");
        assert_eq!(outputs[0], outputs[2], "{game}: 1 vs 3 threads");
    }
}

/// The luck adjustment's sampler is seeded per deal from the match's secret, so adjusted results
/// (`adj_net` in hands.csv, `adj_*` in summary.csv) do not depend on the thread count either.
#[test]
fn luck_adjusted_results_do_not_depend_on_threads() {
    for (game, duplicate) in [("stud8-fl", false), ("stud8-fl", true), ("27td-fl", true)] {
        let bots = ["random", "call", "call"];
        let mut outputs = Vec::new();
        for threads in [1, 2] {
            let out = tmp(&format!("luck-{game}-{duplicate}-{threads}"));
            let mut cfg = config(game, &bots, 3000, duplicate, threads, out.clone());
            cfg.luck_adjust = Some(true);
            run_match(&cfg, &Factory(bots.to_vec()), &mut |_, _| {}).unwrap();
            let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
            let hands = std::fs::read_to_string(out.join("hands.csv")).unwrap();
            assert!(hands.lines().next().unwrap().ends_with(",adj_net"));
            outputs.push((summary, hands));
            let _ = std::fs::remove_dir_all(&out);
        }
        assert_eq!(
            outputs[0], outputs[1],
            "{game} duplicate {duplicate}: 1 vs 2 threads"
        );
    }
}

#[test]
fn rotation_gives_every_bot_every_position_equally_often() {
    for n in 2..=6 {
        let mut count = vec![vec![0u32; n]; n];
        for k in 0..(n * n * 10) as u64 {
            let s = slot(k, n, false);
            for (bot, row) in count.iter_mut().enumerate() {
                let seat = (bot + s.rotation) % n;
                let position = (seat + n - s.button) % n;
                row[position] += 1;
            }
        }
        assert!(
            count.iter().flatten().all(|&c| c == 10 * n as u32),
            "{count:?}"
        );
    }
}

#[test]
fn duplicate_replays_each_deal_in_every_rotation() {
    let out = tmp("dup");
    let cfg = config("27td-fl", &["random", "call"], 2000, true, 2, out.clone());
    let res = run_match(&cfg, &Factory(vec!["random", "call"]), &mut |_, _| {}).unwrap();
    assert_eq!(res.stats.bots[0].units, 1000);
    assert_eq!(res.stats.bots[0].hands, 2000);
    let hands = std::fs::read_to_string(out.join("hands.csv")).unwrap();
    // Hands 2d and 2d+1 share deal d with the bots swapped.
    let rows: Vec<Vec<&str>> = hands
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    for pair in rows.chunks(4) {
        assert_eq!(pair[0][1], pair[2][1], "same deal");
        assert_ne!(pair[0][2], pair[2][2], "other rotation");
    }
    assert!(out.join("summary.csv").exists() && out.join("config.toml").exists());
    assert!(!out.join("summary.csv.partial").exists());
    let _ = std::fs::remove_dir_all(&out);
}

/// In-process bots as if they ran as processes: a duplicate match is then played in phases
/// (each chunk rotation by rotation, lanes ended in between).
struct Phased {
    bots: Factory,
    /// The lanes asked for, in order of creation, and the lanes ended.
    created: std::sync::Mutex<Vec<usize>>,
    ended: std::sync::Mutex<Vec<usize>>,
}

impl pitboss_arena::BotFactory for Phased {
    fn create(
        &self,
        index: usize,
        seed: u64,
        lane: usize,
    ) -> Result<Box<dyn pitboss_arena::Player>, pitboss_arena::Fault> {
        let ended = self.ended.lock().unwrap();
        assert!(
            !ended.contains(&lane),
            "a player of lane {lane} after its end"
        );
        self.created.lock().unwrap().push(lane);
        self.bots.create(index, seed, lane)
    }
    fn has_processes(&self) -> bool {
        true
    }
    fn end_lane(&self, lane: usize) {
        self.ended.lock().unwrap().push(lane);
    }
}

/// Played in phases, a duplicate match gives the files it gives block by block (bots are seeded
/// per block and rotation, statistics are integer sums, the luck adjustment is seeded per deal),
/// for any thread count and chunk size; and phases follow one another.
#[test]
fn duplicate_in_phases_gives_the_same_files_for_any_threads_and_chunks() {
    for (game, bots) in [
        ("27td-fl", vec!["random", "call"]),
        ("stud8-fl", vec!["random", "random", "call"]),
    ] {
        let n = bots.len();
        let hands = 2100 * n as u64;
        let files = |out: &std::path::Path| {
            ["summary.csv", "hands.csv", "hands.phhs"]
                .map(|f| std::fs::read_to_string(out.join(f)).unwrap())
        };
        let out = tmp(&format!("phases-ref-{game}"));
        let mut cfg = config(game, &bots, hands, true, 1, out.clone());
        cfg.luck_adjust = Some(true);
        run_match(&cfg, &Factory(bots.clone()), &mut |_, _| {}).unwrap();
        let want = files(&out);
        assert!(want[1].lines().next().unwrap().ends_with(",adj_net"));
        let _ = std::fs::remove_dir_all(&out);
        for (threads, chunk) in [(1, None), (2, Some(1)), (3, Some(2048)), (2, None)] {
            let out = tmp(&format!("phases-{game}-{threads}"));
            let mut cfg = config(game, &bots, hands, true, threads, out.clone());
            cfg.luck_adjust = Some(true);
            let f = Phased {
                bots: Factory(bots.clone()),
                created: Default::default(),
                ended: Default::default(),
            };
            let mut calls = 0;
            let mut last = 0;
            let res =
                pitboss_arena::runner::run_match_in_chunks(&cfg, &f, chunk, &mut |_, done| {
                    assert!(done > last && done <= hands);
                    last = done;
                    calls += 1;
                })
                .unwrap();
            assert_eq!(res.hands, hands);
            assert_eq!(last, hands);
            assert_eq!(
                files(&out),
                want,
                "{game}: {threads} threads, chunk {chunk:?}"
            );
            // Lanes are phases: every one ended, in order, and none used after its end.
            let ended = f.ended.into_inner().unwrap();
            let bsize = pitboss_arena::runner::block_size(n);
            let blocks = hands.div_ceil(bsize);
            let chunks = chunk.map_or(1, |c| blocks.div_ceil((c / bsize).max(1)));
            assert_eq!(ended, (0..chunks as usize * n).collect::<Vec<_>>());
            assert!(calls as u64 >= blocks * n as u64);
            let _ = std::fs::remove_dir_all(&out);
        }
    }
}

#[test]
fn a_history_limit_keeps_the_first_hands_and_changes_no_result() {
    let bots = ["random", "call"];
    let full = tmp("hist-full");
    let cut = tmp("hist-cut");
    let cfg = config("stud8-fl", &bots, 4096, true, 2, full.clone());
    run_match(&cfg, &Factory(bots.to_vec()), &mut |_, _| {}).unwrap();
    let mut cfg_cut = config("stud8-fl", &bots, 4096, true, 2, cut.clone());
    cfg_cut.history_hands = Some(30);
    run_match(&cfg_cut, &Factory(bots.to_vec()), &mut |_, _| {}).unwrap();
    let read = |d: &PathBuf, f: &str| std::fs::read_to_string(d.join(f)).unwrap();
    assert_eq!(read(&full, "summary.csv"), read(&cut, "summary.csv"));
    let (hf, hc) = (read(&full, "hands.csv"), read(&cut, "hands.csv"));
    assert_eq!(hc.lines().count(), 1 + 30 * 2);
    assert!(
        hf.starts_with(&hc),
        "the kept hands are the first ones, as in the full history"
    );
    let (pf, pc) = (read(&full, "hands.phhs"), read(&cut, "hands.phhs"));
    assert_eq!(pc.matches("\n[").count() + 1, 30);
    assert!(pf.starts_with(&pc));
    let _ = std::fs::remove_dir_all(&full);
    let _ = std::fs::remove_dir_all(&cut);
}
