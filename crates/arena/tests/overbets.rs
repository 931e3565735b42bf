//! Bets larger than the pot are not paid off as if they were pot-sized: `x-big` (`equity`'s
//! decisions with every bet and raise at 2.5 pots) against `cfr` in no-limit triple draw, whose
//! tree reads such a bet as one pot, and against `adaptive` (`best` in stud) in no-limit stud.
//! Both lost to it, or nearly, before they defended less against an overbet.

#[path = "common/house.rs"]
mod house;

/// The first bot's luck-adjusted mbb/hand and the half-width of its 95% interval.
fn result(game: &str, bots: [&'static str; 2], hands: u64) -> (f64, f64) {
    let r = house::play(game, &bots, hands, 1, Some(true), 2);
    let row = &r.rows[0];
    let mean = row.adj_mbb_per_hand.expect("luck-adjusted");
    (mean, (row.adj_ci95_high.unwrap() - mean).abs())
}

/// `cfr` and `cfr-eq` beat `x-big` in 27td-nl (without the defence against a bet larger than
/// the tree's: −41.8 ± 124.4 over these 40,000 hands).
#[test]
fn cfr_does_not_pay_oversized_bets_as_pot_sized_ones() {
    for bot in ["cfr", "cfr-eq"] {
        let (m, h) = result("27td-nl", [bot, "x-big"], 40_000);
        eprintln!("27td-nl: {bot} against x-big {m:.1} ± {h:.1}");
        assert!(m - h > 0.0, "{bot} against x-big: {m:.1} ± {h:.1}");
    }
}

/// `best` (in stud, `adaptive`) beats `x-big` in stud8-nl (when an overbet counted as one bet:
/// −44.7 ± 66.3 over these 40,000 hands).
#[test]
fn best_in_stud_respects_an_overbet() {
    let (m, h) = result("stud8-nl", ["best", "x-big"], 40_000);
    eprintln!("stud8-nl: best against x-big {m:.1} ± {h:.1}");
    assert!(
        m - h > 0.0,
        "best against x-big in stud8-nl: {m:.1} ± {h:.1}"
    );
}
