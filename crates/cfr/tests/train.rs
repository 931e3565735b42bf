//! The trainer is reproducible from its seed, its file reads back, and what it learns is poker.

use pitboss_cfr::mccfr::{infoset, infoset_in, Trainer};
use pitboss_cfr::strategy::{Strategy, StrategyError};
use pitboss_cfr::stud;
use pitboss_cfr::tree::{
    Next, Tree, ALL_IN, CALL, FOLD, HALF, POT, STUD_FL, STUD_NL, STUD_PL, TD_FL,
};

fn train(seed: u64, n: u64) -> Trainer {
    let mut t = Trainer::new(Tree::new(TD_FL), seed);
    t.run(n);
    t
}

#[test]
fn the_same_seed_gives_the_same_file_byte_for_byte() {
    let a = Strategy::from_trainer("27td-fl", 5, &train(5, 20_000)).to_bytes();
    let b = Strategy::from_trainer("27td-fl", 5, &train(5, 20_000)).to_bytes();
    let c = Strategy::from_trainer("27td-fl", 6, &train(6, 20_000)).to_bytes();
    assert_eq!(a, b);
    assert_ne!(a, c, "another seed deals other cards");
    let nodes = Tree::new(TD_FL).nodes.len();
    let s = Strategy::from_bytes(&a, nodes, 3).unwrap();
    assert_eq!(
        (s.game.as_str(), s.iterations, s.seed),
        ("27td-fl", 20_000, 5)
    );
    assert_eq!(s.to_bytes(), a);
    assert!(matches!(
        Strategy::from_bytes(&a, nodes + 1, 3),
        Err(StrategyError::Shape { .. })
    ));
    assert_eq!(
        Strategy::from_bytes(&a[..a.len() - 1], nodes, 3).unwrap_err(),
        StrategyError::Truncated
    );
    let mut v = a.clone();
    v[6 + 1 + 7] = 99;
    assert_eq!(
        Strategy::from_bytes(&v, nodes, 3).unwrap_err(),
        StrategyError::Version(99)
    );
    assert_eq!(
        Strategy::from_bytes(b"PBT1....", nodes, 3).unwrap_err(),
        StrategyError::Magic
    );
    // Abstraction 2 sees both players' draws; abstraction 1 (the pot- and no-limit files) the
    // opponent's alone, on the same deals, and is still read.
    assert_eq!((a[6 + 1 + 7], s.draws), (2, 16));
    let mut t1 = Trainer::with_draws(Tree::new(TD_FL), 5, 4);
    t1.run(20_000);
    let one = Strategy::from_trainer("27td-fl", 5, &t1).to_bytes();
    assert_eq!(one[6 + 1 + 7], 1);
    assert_eq!(Strategy::from_bytes(&one, nodes, 3).unwrap().draws, 4);
    assert!(one.len() < a.len());
    let mut wrong = one.clone();
    wrong[6 + 1 + 7] = 2;
    assert!(matches!(
        Strategy::from_bytes(&wrong, nodes, 3),
        Err(StrategyError::Shape { .. })
    ));
}

/// After a short training the extremes are already played as poker is: the button raises a pat 7
/// far more often than it folds, and folds five cards to draw more often than a pat 7; facing a
/// raise after the last draw, the nut class calls or raises and a pair folds more than it raises.
#[test]
fn the_trained_strategy_plays_the_extremes_sensibly() {
    let t = train(3, 400_000);
    let p = |n: u32, class: u8, opp: u8| {
        t.average(infoset(n, class, opp, t.draws()))
            .expect("reached")
    };
    let pat7 = p(0, 17, 0);
    let five = p(0, 0, 0);
    assert!(pat7[2] > 0.6, "pat 7 on the button raises: {pat7:?}");
    assert!(pat7[0] < 0.02, "pat 7 never folds: {pat7:?}");
    assert!(five[0] > pat7[0] + 0.2, "drawing five folds more: {five:?}");
    // A river node where player 1 faces a bet: check-raise lines aside, walk limp, check
    // through to the last round, then player 1 checks and player 0 bets.
    let tree = &t.tree;
    let step = |n: u32, k: usize| match tree.nodes[n as usize].next[k] {
        Next::Node(m) => m,
        x => panic!("{x:?}"),
    };
    let mut n = step(0, 1); // the button completes
    n = step(n, 1); // the big blind checks: round 1
    for _ in 0..2 {
        n = step(step(n, 1), 1); // check, check: the next round
    }
    assert_eq!(tree.nodes[n as usize].round, 3);
    let facing = step(step(n, 1), 2); // check, bet: player 1 to answer
    assert_eq!(tree.nodes[facing as usize].player, 1);
    // Both drew one card at the last draw (draw class 1 + 4 · 1 of abstraction 2).
    let nut = p(facing, 14, 5);
    let pair = p(facing, 1, 5);
    assert!(nut[0] < 0.05, "the nuts does not fold: {nut:?}");
    assert!(pair[0] > 0.5, "a pair folds to a last-round bet: {pair:?}");
}

/// Stud hi/lo: the file names its own abstraction and reads back, and a short training already
/// plays the extremes as poker does: facing a completion on third street, three high cards with at
/// most one low card fold far more often than rolled-up trips; facing a bet on seventh street after
/// checks all the way, a hand with no pair and no low folds far more often than trips or better
/// with a six low.
#[test]
fn the_stud_strategy_reads_back_and_plays_the_extremes_sensibly() {
    let mut t = Trainer::new(Tree::new(STUD_FL), 3);
    t.run(400_000);
    let bytes = Strategy::from_trainer("stud8-fl", 3, &t).to_bytes();
    assert_eq!(bytes[6 + 1 + 8], 3, "stud's abstraction version");
    let nodes = t.tree.nodes.len();
    let s = Strategy::from_bytes(&bytes, nodes, 3).unwrap();
    assert_eq!((s.buckets, s.draws), (stud::BUCKETS, stud::ORDERS));
    assert_eq!(s.to_bytes(), bytes);
    let p = |n: u32, class: u8, order: u8| {
        t.average(infoset_in(n, class, order, stud::ORDERS, stud::BUCKETS))
    };
    let tree = &t.tree;
    let step = |n: u32, k: usize| match tree.nodes[n as usize].next[k] {
        Next::Node(m) => m,
        x => panic!("{x:?}"),
    };
    // The bring-in posts, the other completes: the bring-in (position 0) answers.
    let facing = step(step(0, CALL), HALF);
    assert_eq!(tree.nodes[facing as usize].player, 0);
    let trips = p(facing, 17, 0).expect("reached");
    let junk = p(facing, 1, 0).expect("reached");
    assert!(trips[FOLD] < 0.1, "trips rarely fold: {trips:?}");
    assert!(junk[FOLD] > trips[FOLD] + 0.3, "junk folds: {junk:?}");
    // Checked to seventh street, position 0 bets: position 1 answers.
    let mut n = step(step(0, CALL), CALL);
    for _ in 0..3 {
        n = step(step(n, CALL), CALL);
    }
    assert_eq!(tree.nodes[n as usize].round, 4);
    let facing = step(n, HALF);
    let folds = |high: u8, low: u8| {
        let seen: Vec<f32> = (0..stud::ORDERS as u8)
            .flat_map(|o| (0..6).map(move |b| (o, (high * 6 + low) * 6 + b)))
            .filter_map(|(o, c)| p(facing, c, o).map(|x| x[FOLD]))
            .collect();
        assert!(!seen.is_empty(), "class {high}/{low} reached");
        seen.iter().sum::<f32>() / seen.len() as f32
    };
    let (nothing, scoop) = (folds(0, 0), folds(4, 5));
    assert!(scoop < 0.05, "trips with a six low do not fold: {scoop}");
    assert!(nothing > scoop + 0.3, "nothing folds: {nothing}");
}

/// The strategy the house bot embeds is what the trainer makes from the seed and iterations in
/// its header (six or seven minutes on one core:
/// `cargo test --release -p pitboss-cfr --test train -- --ignored`).
#[test]
#[ignore = "retrains the shipped strategy: six or seven minutes"]
fn the_shipped_strategy_is_rebuilt_byte_for_byte() {
    let shipped = pitboss_cfr::strategy::decompress(include_bytes!(
        "../../../bots/builtin/strategy/27td-fl.cfr.zst"
    ))
    .unwrap();
    let nodes = Tree::new(TD_FL).nodes.len();
    let s = Strategy::from_bytes(&shipped, nodes, 3).unwrap();
    let again = Strategy::from_trainer(&s.game, s.seed, &train(s.seed, s.iterations)).to_bytes();
    assert!(again == shipped, "retraining gave another file");
}

/// Pot- and no-limit stud: five actions a decision (half the pot, the pot, all-in), the file
/// reads back, and a short training already folds junk far more often than rolled-up trips when
/// the bring-in faces a completion, and far more often than it folds trips facing an all-in.
#[test]
fn the_big_bet_stud_strategies_read_back_and_fold_junk_before_trips() {
    for (game, betting) in [("stud8-nl", STUD_NL), ("stud8-pl", STUD_PL)] {
        let mut t = Trainer::new(Tree::new(betting), 3);
        t.run(300_000);
        let bytes = Strategy::from_trainer(game, 3, &t).to_bytes();
        let s = Strategy::from_bytes(&bytes, t.tree.nodes.len(), 5).unwrap();
        assert_eq!(
            (s.width, s.buckets, s.draws),
            (5, stud::BUCKETS, stud::ORDERS)
        );
        assert_eq!(s.to_bytes(), bytes);
        let p = |n: u32, class: u8| {
            t.average(infoset_in(n, class, 0, stud::ORDERS, stud::BUCKETS))
                .expect("reached")
        };
        let tree = &t.tree;
        let step = |n: u32, k: usize| match tree.nodes[n as usize].next[k] {
            Next::Node(m) => m,
            x => panic!("{x:?}"),
        };
        let facing = step(step(0, CALL), HALF);
        let (trips, junk) = (p(facing, 17), p(facing, 1));
        assert!(trips[FOLD] < 0.2, "{game}: trips rarely fold: {trips:?}");
        assert!(
            junk[FOLD] > trips[FOLD] + 0.3,
            "{game}: junk folds: {junk:?}"
        );
        // The largest raise there: all-in in no limit, the pot in pot limit.
        let big = if game == "stud8-nl" { ALL_IN } else { POT };
        let shove = step(step(0, CALL), big);
        let (trips, junk) = (p(shove, 17), p(shove, 1));
        assert!(
            junk[FOLD] > trips[FOLD] + 0.3,
            "{game}: {junk:?} against {trips:?}"
        );
    }
}

/// The same for the stud strategy (about 40 minutes on one core:
/// `cargo test --release -p pitboss-cfr --test train -- --ignored`).
#[test]
#[ignore = "retrains the shipped stud strategy: about 40 minutes"]
fn the_shipped_stud_strategy_is_rebuilt_byte_for_byte() {
    let shipped = pitboss_cfr::strategy::decompress(include_bytes!(
        "../../../bots/builtin/strategy/stud8-fl.cfr.zst"
    ))
    .unwrap();
    let nodes = Tree::new(STUD_FL).nodes.len();
    let s = Strategy::from_bytes(&shipped, nodes, 3).unwrap();
    let mut t = Trainer::new(Tree::new(STUD_FL), s.seed);
    t.run(s.iterations);
    let again = Strategy::from_trainer(&s.game, s.seed, &t).to_bytes();
    assert!(again == shipped, "retraining gave another file");
}

/// The same for the pot- and no-limit stud strategies (about 77 and 71 minutes on one core:
/// `cargo test --release -p pitboss-cfr --test train -- --ignored`).
#[test]
#[ignore = "retrains the shipped pot- and no-limit stud strategies: about two and a half hours"]
fn the_shipped_big_bet_stud_strategies_are_rebuilt_byte_for_byte() {
    for (file, betting) in [
        (
            &include_bytes!("../../../bots/builtin/strategy/stud8-pl.cfr.zst")[..],
            STUD_PL,
        ),
        (
            &include_bytes!("../../../bots/builtin/strategy/stud8-nl.cfr.zst")[..],
            STUD_NL,
        ),
    ] {
        let shipped = pitboss_cfr::strategy::decompress(file).unwrap();
        let tree = Tree::new(betting);
        let s = Strategy::from_bytes(&shipped, tree.nodes.len(), 5).unwrap();
        let mut t = Trainer::new(tree, s.seed);
        t.run(s.iterations);
        let again = Strategy::from_trainer(&s.game, s.seed, &t).to_bytes();
        assert!(again == shipped, "{}: retraining gave another file", s.game);
    }
}
