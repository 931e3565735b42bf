//! The house bot `cfr` follows real hands down its solved tree: through the referee's events,
//! against bots of every style, it never loses its place; outside the solved game it plays as
//! `adaptive` and never touches the strategy.

use std::path::PathBuf;

use pitboss_arena::{run_match, BotFactory, Fault, InProcess, MatchConfig, MatchFile, Player};
use pitboss_bots::CfrBot;

/// The built-in bots by name.
struct Builtins(Vec<&'static str>);

impl BotFactory for Builtins {
    fn create(&self, index: usize, seed: u64, _lane: usize) -> Result<Box<dyn Player>, Fault> {
        let bot = pitboss_bots::builtin(self.0[index], seed).expect("a built-in bot");
        Ok(Box::new(InProcess(bot)))
    }
}

fn play(game: &str, bots: &[&'static str], hands: u64) {
    let out: PathBuf = std::env::temp_dir().join(format!(
        "pitboss-test-{}-cfr-{game}-{}",
        std::process::id(),
        bots.join("-")
    ));
    let cfg = MatchConfig::from_file(
        MatchFile {
            game: Some(game.into()),
            bots: Some(bots.iter().map(|s| s.to_string()).collect()),
            hands: Some(hands),
            seed: Some(9),
            duplicate: Some(true),
            threads: Some(1),
            out: Some(out.clone()),
            ..MatchFile::default()
        },
        |_| unreachable!(),
    )
    .expect("valid config");
    let r = run_match(&cfg, &Builtins(bots.to_vec()), &mut |_, _| {});
    let _ = std::fs::remove_dir_all(&out);
    r.expect("match");
}

/// One test (the tally is per process): the solved game first, then games it must leave alone.
#[test]
fn cfr_follows_every_hand_of_its_game_and_only_those() {
    for opp in ["random", "call", "x-raise", "x-raise1st", "adaptive"] {
        let (played, left) = CfrBot::tally();
        play("27td-fl", &["cfr", opp], 2000);
        let (p, l) = CfrBot::tally();
        assert_eq!(
            p - played,
            2000,
            "every heads-up hand against {opp} from the strategy"
        );
        assert_eq!(l - left, 0, "against {opp} a hand left the tree");
    }
    let before = CfrBot::tally();
    play("27td-pl", &["cfr", "x-raise"], 300);
    play("stud8-fl", &["cfr", "adaptive"], 300);
    play("27td-fl", &["cfr", "call", "x-raise"], 300);
    assert_eq!(
        CfrBot::tally(),
        before,
        "no strategy outside heads-up 27td-fl"
    );
}
