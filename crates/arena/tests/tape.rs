//! The action tape: one record per hand in hand order, the same for any thread count and whether
//! a duplicate match is played block by block or rotation by rotation (phases), with each hand's
//! nets equal to the statistics' sums; off, nothing changes.

mod common;

use common::Factory;
use pitboss_arena::runner::run_match_in_chunks;
use pitboss_arena::tape::Tape;
use pitboss_arena::{run_match, BotFactory, Fault, MatchConfig, MatchFile, Player};

/// In-process bots that claim to be processes: the match is played in phases.
struct Phased(Factory);

impl BotFactory for Phased {
    fn create(&self, index: usize, seed: u64, lane: usize) -> Result<Box<dyn Player>, Fault> {
        self.0.create(index, seed, lane)
    }
    fn has_processes(&self) -> bool {
        true
    }
}

fn config(game: &str, threads: usize, tape: bool, name: &str) -> MatchConfig {
    let out = std::env::temp_dir().join(format!("pitboss-tape-{}-{name}", std::process::id()));
    let mut cfg = MatchConfig::from_file(
        MatchFile {
            game: Some(game.into()),
            bots: Some(vec!["random".into(), "call".into()]),
            hands: Some(3000),
            seed: Some(5),
            duplicate: Some(true),
            threads: Some(threads),
            out: Some(out),
            luck_adjust: Some(true),
            ..MatchFile::default()
        },
        |_| unreachable!(),
    )
    .expect("config");
    cfg.tape = tape;
    cfg
}

#[test]
fn the_tape_is_the_same_however_the_match_is_played() {
    for game in ["27td-fl", "stud8-nl"] {
        let f = Factory(vec!["random", "call"]);
        let mut tapes = Vec::new();
        for threads in [1, 3] {
            let cfg = config(game, threads, true, &format!("{game}-{threads}"));
            let r = run_match(&cfg, &f, &mut |_, _| {}).unwrap();
            tapes.push((r.tape.unwrap(), r.stats));
            let _ = std::fs::remove_dir_all(&cfg.out);
        }
        let cfg = config(game, 2, true, &format!("{game}-phased"));
        let r = run_match_in_chunks(&cfg, &Phased(f), Some(1024), &mut |_, _| {}).unwrap();
        tapes.push((r.tape.unwrap(), r.stats));
        let _ = std::fs::remove_dir_all(&cfg.out);
        assert_eq!(tapes[0], tapes[1], "{game}: 1 vs 3 threads");
        assert_eq!(tapes[0], tapes[2], "{game}: block by block vs phases");
        let t = Tape::parse(&tapes[0].0).unwrap();
        assert_eq!((t.seats, t.luck, t.hands.len()), (2, true, 3000));
        // Bot 0 sits in seat 0 in rotation 0 (even hands), seat 1 in rotation 1.
        let net0: i128 = t
            .hands
            .iter()
            .enumerate()
            .map(|(k, h)| i128::from(h.net[k % 2]))
            .sum();
        assert_eq!(net0, tapes[0].1.bots[0].net, "{game}");
        assert!(t.hands.iter().all(|h| !h.actions.is_empty()));
    }
}

#[test]
fn without_the_option_there_is_no_tape_and_the_config_file_is_unchanged() {
    let cfg = config("27td-fl", 1, false, "off");
    let r = run_match(&cfg, &Factory(vec!["random", "call"]), &mut |_, _| {}).unwrap();
    assert!(r.tape.is_none());
    let text = std::fs::read_to_string(cfg.out.join("config.toml")).unwrap();
    assert!(!text.lines().any(|l| l.starts_with("tape")), "{text}");
    let _ = std::fs::remove_dir_all(&cfg.out);
    let on = config("27td-fl", 1, true, "on");
    let text = toml::to_string(&on).unwrap();
    assert!(text.contains("tape = true"), "{text}");
    let back: MatchConfig = toml::from_str(&text).unwrap();
    assert!(back.tape);
}
