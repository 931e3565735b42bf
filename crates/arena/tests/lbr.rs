//! `lbr`, the local best response to `cfr-eq`: it wins against the strategy it answers (what it
//! wins is a lower bound on the strategy's exploitability, bots/README.md "Local best
//! response"), its range of the opponent's hands never runs dry (an action the strategy gives
//! none of them: the range read the hand wrong), and answering only after the last draw it wins
//! part of the whole; the same in fixed-limit stud hi/lo.
//!
//! One test: the matches share a folder name and the bot's tally is the process's.

#[path = "common/house.rs"]
mod house;

#[test]
fn lbr_beats_the_strategy_it_answers_and_follows_every_hand() {
    let (all, h_all) = house::luck_adjusted("27td-fl", ["lbr", "cfr-eq"], 20_000);
    eprintln!("27td-fl: lbr against cfr-eq {all:.1} ± {h_all:.1}");
    assert!(
        all - h_all > 0.0,
        "lbr against cfr-eq: {all:.1} ± {h_all:.1}"
    );
    let (played, lost) = pitboss_bots::LbrBot::tally();
    eprintln!("{played} hands against the strategy, the range lost in {lost}");
    assert!(played >= 20_000, "{played}");
    assert!(
        lost * 1000 < played,
        "the range lost every hand in {lost} of {played}"
    );

    // Each round's part is a local best response in that round against the strategy in the
    // others: the last round's is part of the whole.
    let (last, h_last) = house::luck_adjusted("27td-fl", ["lbr-3", "cfr-eq"], 20_000);
    eprintln!("27td-fl: lbr-3 against cfr-eq {last:.1} ± {h_last:.1}");
    assert!(last - h_last > 0.0 && last + h_last < all + h_all);

    // Stud: answering from fourth street on (its one-step view of third street, where most of the
    // betting is still to come, plays worse than the strategy), and on seventh street alone.
    let before = pitboss_bots::LbrBot::tally();
    let (stud, h_stud) = house::luck_adjusted("stud8-fl", ["lbr-1234", "cfr-eq"], 20_000);
    eprintln!("stud8-fl: lbr-1234 against cfr-eq {stud:.1} ± {h_stud:.1}");
    assert!(
        stud - h_stud > 0.0,
        "lbr-1234 in stud: {stud:.1} ± {h_stud:.1}"
    );
    let (played, lost) = pitboss_bots::LbrBot::tally();
    let (played, lost) = (played - before.0, lost - before.1);
    assert!(played >= 20_000, "{played}");
    assert!(
        lost * 1000 < played,
        "the stud range lost every hand in {lost} of {played}"
    );
    let (last, h_last) = house::luck_adjusted("stud8-fl", ["lbr-4", "cfr-eq"], 20_000);
    eprintln!("stud8-fl: lbr-4 against cfr-eq {last:.1} ± {h_last:.1}");
    assert!(last - h_last > 0.0 && last + h_last < stud + h_stud);
}
