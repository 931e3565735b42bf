//! The house bot `cfr` follows real hands down its solved tree: through the referee's events,
//! against bots of every style, it never loses its place (in stud too, where who acts first
//! changes from street to street, and in pot and no limit, against bets of sizes the tree does
//! not have); outside the solved games it plays as `adaptive` and never touches the strategy.

#[path = "common/house.rs"]
mod house;

use pitboss_arena::{run_match, MatchConfig, MatchFile};
use pitboss_bots::CfrBot;

fn play(game: &str, bots: &[&'static str], hands: u64) {
    house::play(game, bots, hands, 9, None, 1);
}

/// One test (the tally is per process): the solved games first, then games it must leave alone.
#[test]
fn cfr_follows_every_hand_of_its_games_and_only_those() {
    for game in [
        "27td-fl", "27td-pl", "27td-nl", "stud8-fl", "stud8-pl", "stud8-nl",
    ] {
        let big = !game.ends_with("-fl");
        for opp in [
            "random",
            "call",
            "x-raise",
            "x-raise1st",
            "lowball",
            "adaptive",
            // Bets of sizes the tree does not have: between its own, and above the pot.
            "x-mid",
            "x-big",
        ] {
            if !big && (opp == "x-mid" || opp == "x-big") {
                continue;
            }
            let (played, left) = CfrBot::tally();
            let off0 = CfrBot::off_tree();
            play(game, &["cfr", opp], 1000);
            let off = CfrBot::off_tree();
            let (p, l) = CfrBot::tally();
            eprintln!(
                "{game} against {opp}: {} decisions off the tree",
                off - off0
            );
            assert_eq!(
                p - played,
                1000,
                "{game}: every hand against {opp} from the strategy"
            );
            assert_eq!(l - left, 0, "{game}: against {opp} a hand left the tree");
        }
    }
    let before = CfrBot::tally();
    play("27td-fl", &["cfr", "call", "x-raise"], 300);
    play("stud8-nl", &["cfr", "call", "x-raise"], 300);
    play("stud8-fl", &["cfr", "call", "x-raise"], 300);
    assert_eq!(
        CfrBot::tally(),
        before,
        "no strategy outside heads-up games"
    );
    best_plays_as_cfr();
}

/// `best` is `cfr` under another name: the same seeds play the same hands. (Called by the test
/// above: the tally is per process, so nothing else may play `cfr` while it counts.)
fn best_plays_as_cfr() {
    let run = |name: &'static str| {
        let out =
            std::env::temp_dir().join(format!("pitboss-test-{}-best-{name}", std::process::id()));
        let cfg = MatchConfig::from_file(
            MatchFile {
                game: Some("27td-nl".into()),
                bots: Some(vec![name.into(), "adaptive".into()]),
                hands: Some(400),
                seed: Some(4),
                threads: Some(1),
                out: Some(out.clone()),
                history: Some(true),
                ..MatchFile::default()
            },
            |_| unreachable!(),
        )
        .expect("valid config");
        run_match(
            &cfg,
            &house::Builtins(vec![name, "adaptive"]),
            &mut |_, _| {},
        )
        .expect("match");
        let nets: Vec<String> = std::fs::read_to_string(out.join("hands.csv"))
            .unwrap()
            .lines()
            .map(|l| l.split(',').skip(6).take(1).collect())
            .collect();
        let _ = std::fs::remove_dir_all(&out);
        nets
    };
    assert_eq!(run("best"), run("cfr"));
}
