//! `cfr` in heads-up fixed-limit stud hi/lo plays a strategy solved by Monte Carlo CFR
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
