//! `cfr`'s opponent model pays against the styles it reads and costs little elsewhere: the same
//! deals (duplicate, luck-adjusted, one seed) played by `cfr` and by `cfr-eq` (the strategy
//! alone) against each opponent, compared. Against `x-switch`, which folds to everything until
//! the model has learnt to bluff it and then raises everything, the model must not turn into a
//! loss (it risks only what it has won).

#[path = "common/house.rs"]
mod house;

/// `cfr` against `opp` less `cfr-eq` against it, on the same deals.
fn gain(game: &str, opp: &'static str) -> (f64, f64, f64) {
    let (m, h) = house::luck_adjusted(game, ["cfr", opp], 40_000);
    let (e, _) = house::luck_adjusted(game, ["cfr-eq", opp], 40_000);
    eprintln!("{game} against {opp}: cfr {m:.1} ± {h:.1}, cfr-eq {e:.1}");
    (m - e, m, h)
}

#[test]
fn the_model_exploits_bots_that_fold_call_or_raise_too_much() {
    for game in ["27td-fl", "27td-nl"] {
        for (opp, at_least) in [("x-fold", 40.0), ("call", 20.0), ("raise", 100.0)] {
            let (d, ..) = gain(game, opp);
            assert!(
                d >= at_least,
                "{game}: the model gains only {d:.1} mbb/hand against {opp}"
            );
        }
    }
}

#[test]
fn the_model_is_safe_against_a_bot_that_changes_style_and_against_sound_ones() {
    for game in ["27td-fl", "27td-nl"] {
        let (d, m, h) = gain(game, "x-switch");
        assert!(
            m - h > 0.0,
            "{game}: cfr loses to x-switch ({m:.1} ± {h:.1})"
        );
        assert!(
            d > -h,
            "{game}: x-switch turned the model against cfr: {d:.1}"
        );
    }
    for opp in ["adaptive", "lowball", "x-open1"] {
        let (d, _, h) = gain("27td-fl", opp);
        assert!(
            d > -h / 2.0,
            "27td-fl: the model costs {d:.1} against {opp}"
        );
    }
}
