//! `cfr` in heads-up stud hi/lo plays strategies solved by Monte Carlo CFR
//! (`pitboss_cfr::stud`): it beats the heuristic house bots it replaced there (`adaptive`, which
//! `best` was in stud before) and the exploiter that did best against them (`x-open1`, which
//! raises at its first chance on third street). Before the strategy, `cfr` was `adaptive` in stud,
//! and these would be 0 (`adaptive` against itself) or its worst case, 34.9 against `x-open1`.

#[path = "common/house.rs"]
mod house;

#[test]
fn cfr_beats_adaptive_and_the_first_street_raiser_in_stud() {
    for (bot, opp) in [
        ("cfr", "adaptive"),
        ("cfr-eq", "adaptive"),
        ("cfr", "x-open1"),
    ] {
        let (m, h) = house::luck_adjusted("stud8-fl", [bot, opp], 40_000);
        eprintln!("stud8-fl: {bot} against {opp} {m:.1} ± {h:.1}");
        assert!(m - h > 0.0, "{bot} against {opp}: {m:.1} ± {h:.1}");
    }
}

/// `equity`'s edge is the smallest: 200,000 hands.
#[test]
fn cfr_beats_equity_in_stud() {
    let (m, h) = house::luck_adjusted("stud8-fl", ["cfr", "equity"], 200_000);
    eprintln!("stud8-fl: cfr against equity {m:.1} ± {h:.1}");
    assert!(m - h > 0.0, "cfr against equity: {m:.1} ± {h:.1}");
}

/// Pot- and no-limit stud: the strategies solved on the big-bet stud tree beat `adaptive`, which
/// `best` was there before (200,000 hands each; before, `adaptive` against itself: 0).
#[test]
fn cfr_beats_adaptive_in_pot_and_no_limit_stud() {
    for game in ["stud8-pl", "stud8-nl"] {
        let (m, h) = house::luck_adjusted(game, ["cfr", "adaptive"], 200_000);
        eprintln!("{game}: cfr against adaptive {m:.1} ± {h:.1}");
        assert!(m - h > 0.0, "{game}: cfr against adaptive {m:.1} ± {h:.1}");
    }
}
