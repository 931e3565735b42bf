//! The equity engine against a brute-force reference: every outcome enumerated with plain loops
//! and scored with the slow, independent evaluators of `crates/cards/tests/reference`; and the
//! Monte Carlo estimates within their stated error of the exact values (fixed seeds; 4.5 standard
//! errors, so a correct sampler fails about once in 150,000 checks, and a biased one fails).

#[allow(dead_code)]
#[path = "../../cards/tests/reference/mod.rs"]
mod reference;

use pitboss_cards::{parse_cards, Card, CardSet};
use pitboss_equity::draw::{self, DrawOpponent, DrawSpot};
use pitboss_equity::stud::{self, StudOpponent, StudSpot};
use pitboss_equity::{Config, EquityError};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

fn set(text: &str) -> CardSet {
    parse_cards(text).unwrap().iter().collect()
}

fn shuffled(seed: u64) -> Vec<Card> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut deck: Vec<Card> = Card::all().collect();
    for i in (1..deck.len()).rev() {
        deck.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
    }
    deck
}

/// [share, scoop, high, low] of `hero` against `opp` (seven cards each), by the reference.
fn ref_outcome(hero: &[Card], opp: &[Card]) -> [f64; 4] {
    let (h0, h1) = (reference::high_best(hero), reference::high_best(opp));
    let (l0, l1) = (reference::a5_best(hero), reference::a5_best(opp));
    let hs = match h0.cmp(&h1) {
        std::cmp::Ordering::Greater => 1.0,
        std::cmp::Ordering::Equal => 0.5,
        std::cmp::Ordering::Less => 0.0,
    };
    if l0.is_none() && l1.is_none() {
        return [hs, if hs == 1.0 { 1.0 } else { 0.0 }, hs, 0.0];
    }
    let ls = match (l0, l1) {
        (Some(a), Some(b)) if a == b => 0.5,
        (Some(a), Some(b)) => f64::from(u8::from(a > b)),
        (Some(_), None) => 1.0,
        _ => 0.0,
    };
    let share = (hs + ls) / 2.0;
    [share, if share == 1.0 { 1.0 } else { 0.0 }, hs, ls]
}

/// Heads-up seventh street by brute force: every three-card holding of the opponent, each
/// optionally kept only when `keep` says so.
fn ref_river(hero: &[Card], up: &[Card], keep: impl Fn(&[Card]) -> bool) -> [f64; 4] {
    let unseen: Vec<Card> = Card::all()
        .filter(|c| !hero.contains(c) && !up.contains(c))
        .collect();
    let (mut sum, mut n) = ([0.0; 4], 0.0);
    for a in 0..unseen.len() {
        for b in a + 1..unseen.len() {
            for c in b + 1..unseen.len() {
                let mut opp = up.to_vec();
                opp.extend([unseen[a], unseen[b], unseen[c]]);
                if !keep(&opp) {
                    continue;
                }
                let o = ref_outcome(hero, &opp);
                for k in 0..4 {
                    sum[k] += o[k];
                }
                n += 1.0;
            }
        }
    }
    sum.map(|s| s / n)
}

fn river_spot(deck: &[Card]) -> StudSpot {
    StudSpot {
        hero: deck[..7].iter().collect(),
        board: None,
        opponents: vec![StudOpponent {
            up: deck[7..11].iter().collect(),
            hidden: 3,
        }],
        dead: CardSet::EMPTY,
    }
}

#[test]
fn stud_heads_up_river_equals_brute_force() {
    for seed in 0..6 {
        let deck = shuffled(seed);
        let e = stud::equity(&river_spot(&deck), &Config::default(), None).unwrap();
        assert!(e.exact);
        let r = ref_river(&deck[..7], &deck[7..11], |_| true);
        let got = [e.share, e.scoop, e.high, e.low];
        for k in 0..4 {
            assert!(
                (got[k] - r[k]).abs() < 1e-9,
                "seed {seed}: {got:?} vs {r:?}"
            );
        }
    }
}

/// Rivers where the opponent's up cards hold two, three or four of a suit (the flush patches of
/// the rank-pattern count) and where this seat holds a flush or a wheel, against brute force.
#[test]
fn stud_heads_up_river_flush_draws_equal_brute_force() {
    for (hero, up) in [
        ("As 2d 5h 7c 9s Kd Kh", "3h 4h Qh Jh"),
        ("As 2d 5h 7c 9s Kd Kh", "3h 4h Qh Js"),
        ("2h 3h 6h 8h Th Kd Kc", "4h 9h Qs Js"),
        ("Ac 2c 3d 4s 5h 9d 9c", "6c 7c 8c 6d"),
        ("Ac 2c 3d 4s 5h 9d 9c", "Tc Jc Qc Kc"),
    ] {
        let spot = StudSpot {
            hero: set(hero),
            board: None,
            opponents: vec![StudOpponent {
                up: set(up),
                hidden: 3,
            }],
            dead: CardSet::EMPTY,
        };
        let e = stud::equity(&spot, &Config::default(), None).unwrap();
        let h: Vec<Card> = set(hero).iter().collect();
        let u: Vec<Card> = set(up).iter().collect();
        let r = ref_river(&h, &u, |_| true);
        let got = [e.share, e.scoop, e.high, e.low];
        for k in 0..4 {
            assert!(
                (got[k] - r[k]).abs() < 1e-9,
                "{hero} vs {up}: {got:?} vs {r:?}"
            );
        }
    }
}

/// The rank-pattern count (unweighted) and the card-by-card count (a weight of 1 everywhere takes
/// that path) agree on many seeded rivers, dead cards included.
#[test]
fn stud_river_rank_count_equals_card_count() {
    for seed in 100..400 {
        let deck = shuffled(seed);
        let mut spot = river_spot(&deck);
        spot.dead = deck[11..11 + (seed % 8) as usize].iter().collect();
        let fast = stud::equity(&spot, &Config::default(), None).unwrap();
        let one = |_: usize, _: CardSet| 1.0;
        let slow = stud::equity(&spot, &Config::default(), Some(&one)).unwrap();
        assert!(fast.exact && slow.exact);
        assert_eq!(fast.samples, slow.samples, "seed {seed}");
        let (a, b) = (
            [fast.share, fast.scoop, fast.high, fast.low],
            [slow.share, slow.scoop, slow.high, slow.low],
        );
        for k in 0..4 {
            assert!((a[k] - b[k]).abs() < 1e-9, "seed {seed}: {a:?} vs {b:?}");
        }
    }
}

#[test]
fn stud_weighted_range_equals_filtered_brute_force() {
    // A range of paired (or better) holdings only: weight 1 for a pair among the cards, else 0.
    let paired = |cards: CardSet| cards.rank_mask().count_ones() < cards.len();
    for seed in 10..13 {
        let deck = shuffled(seed);
        let w = |_: usize, cards: CardSet| f64::from(u8::from(paired(cards)));
        let e = stud::equity(&river_spot(&deck), &Config::default(), Some(&w)).unwrap();
        let r = ref_river(&deck[..7], &deck[7..11], |opp| paired(opp.iter().collect()));
        assert!(
            (e.share - r[0]).abs() < 1e-9,
            "seed {seed}: {} vs {}",
            e.share,
            r[0]
        );
    }
}

#[test]
fn stud_monte_carlo_is_within_its_error_of_the_exact_value() {
    for seed in 20..30 {
        let deck = shuffled(seed);
        let spot = river_spot(&deck);
        let exact = stud::equity(&spot, &Config::default(), None).unwrap();
        let cfg = Config {
            samples: 4000,
            exact_limit: 0,
            seed,
        };
        let mc = stud::equity(&spot, &cfg, None).unwrap();
        assert!(!mc.exact && mc.samples == 4000);
        if exact.share == 0.0 || exact.share == 1.0 {
            assert_eq!(mc.share, exact.share);
            continue;
        }
        assert!(mc.std_err > 0.0);
        let z = (mc.share - exact.share) / mc.std_err;
        assert!(
            z.abs() < 4.5,
            "seed {seed}: {} vs {} (z = {z})",
            mc.share,
            exact.share
        );
    }
}

/// The weighted sampler against the weighted exact count (a range that keeps paired holdings at
/// full weight and others at a fifth), heads-up on the river and on sixth street.
#[test]
fn stud_weighted_monte_carlo_is_within_its_error_of_the_exact_value() {
    let w = |_: usize, cards: CardSet| {
        if cards.rank_mask().count_ones() < cards.len() {
            1.0
        } else {
            0.2
        }
    };
    for seed in 40..46 {
        let deck = shuffled(seed);
        let mut spot = river_spot(&deck);
        if seed % 2 == 1 {
            // Sixth street: one card to come each, two face-down for the opponent.
            spot.hero = deck[..6].iter().collect();
            spot.opponents[0].hidden = 2;
        }
        let big = Config {
            exact_limit: 2_000_000,
            ..Config::default()
        };
        let exact = stud::equity(&spot, &big, Some(&w)).unwrap();
        assert!(exact.exact);
        let cfg = Config {
            samples: 4000,
            exact_limit: 0,
            seed,
        };
        let mc = stud::equity(&spot, &cfg, Some(&w)).unwrap();
        assert!(!mc.exact && mc.std_err > 0.0);
        let z = (mc.share - exact.share) / mc.std_err;
        assert!(
            z.abs() < 4.5,
            "seed {seed}: {} vs {} (z = {z})",
            mc.share,
            exact.share
        );
    }
}

#[test]
fn stud_sampling_earlier_streets_agrees_with_a_bigger_sample() {
    // Fourth street, three-handed: no exact value, so a 40,000-sample estimate is the yardstick.
    let deck = shuffled(99);
    let spot = StudSpot {
        hero: deck[..4].iter().collect(),
        board: None,
        opponents: vec![
            StudOpponent {
                up: deck[4..6].iter().collect(),
                hidden: 2,
            },
            StudOpponent {
                up: deck[6..8].iter().collect(),
                hidden: 2,
            },
        ],
        dead: deck[8..10].iter().collect(),
    };
    let big = Config {
        samples: 40_000,
        exact_limit: 0,
        seed: 1,
    };
    let small = Config {
        samples: 2_000,
        exact_limit: 0,
        seed: 2,
    };
    let a = stud::equity(&spot, &big, None).unwrap();
    let b = stud::equity(&spot, &small, None).unwrap();
    let se = (a.std_err.powi(2) + b.std_err.powi(2)).sqrt();
    assert!((a.share - b.share).abs() < 4.5 * se, "{a:?} vs {b:?}");
    assert!(a.share > 0.0 && a.share < 1.0);
}

#[test]
fn stud_refuses_bad_spots_and_is_deterministic() {
    let deck = shuffled(5);
    let mut spot = river_spot(&deck);
    spot.dead = deck[7..8].iter().collect();
    assert_eq!(
        stud::equity(&spot, &Config::default(), None),
        Err(EquityError::DuplicateCard(deck[7]))
    );
    spot.dead = CardSet::EMPTY;
    spot.opponents.clear();
    assert_eq!(
        stud::equity(&spot, &Config::default(), None),
        Err(EquityError::Opponents(0))
    );
    let spot = StudSpot {
        hero: deck[..3].iter().collect(),
        board: None,
        opponents: vec![StudOpponent {
            up: deck[3..4].iter().collect(),
            hidden: 2,
        }],
        dead: CardSet::EMPTY,
    };
    let cfg = Config {
        samples: 500,
        exact_limit: 0,
        seed: 7,
    };
    let a = stud::equity(&spot, &cfg, None).unwrap();
    assert_eq!(a, stud::equity(&spot, &cfg, None).unwrap());
    let b = stud::equity(&spot, &Config { seed: 8, ..cfg }, None).unwrap();
    assert_ne!(a.share, b.share);
}

/// The last draw by brute force: every set of replacements for `keep` against a known final hand.
fn ref_last_draw(hand: CardSet, keep: CardSet, opp: CardSet) -> f64 {
    let unseen: Vec<Card> = Card::all()
        .filter(|c| !hand.contains(*c) && !opp.contains(*c))
        .collect();
    let opp_v: Vec<Card> = opp.iter().collect();
    let theirs = reference::deuce_to_seven5(&opp_v, false);
    let need = 5 - keep.len() as usize;
    let (mut sum, mut n) = (0.0, 0.0);
    let mut score = |extra: &[Card]| {
        let mut mine: Vec<Card> = keep.iter().collect();
        mine.extend_from_slice(extra);
        let v = reference::deuce_to_seven5(&mine, false);
        sum += match v.cmp(&theirs) {
            std::cmp::Ordering::Greater => 1.0,
            std::cmp::Ordering::Equal => 0.5,
            std::cmp::Ordering::Less => 0.0,
        };
        n += 1.0;
    };
    match need {
        1 => unseen.iter().for_each(|a| score(&[*a])),
        2 => {
            for i in 0..unseen.len() {
                for j in i + 1..unseen.len() {
                    score(&[unseen[i], unseen[j]]);
                }
            }
        }
        _ => unreachable!(),
    }
    sum / n
}

fn last_draw_spot(hand: &str, opp: &str) -> DrawSpot {
    DrawSpot {
        hand: set(hand),
        draws_left: 1,
        opponents: vec![DrawOpponent {
            drew: Some(0),
            draws_left: 0,
            known: Some(set(opp)),
            bar: None,
        }],
        dead: CardSet::EMPTY,
        ace_five_straight: false,
    }
}

#[test]
fn last_draw_equals_brute_force_and_sampling_agrees() {
    let cases = [
        ("2c 3d 4h 7s Kc", "2d 4c 5s 6h 8d", "2c 3d 4h 7s"),
        ("2c 3d 5h 8s 8c", "3c 4d 6s 7h 9d", "2c 3d 5h 8s"),
        ("2c 3d 6h Js Qc", "2h 4c 5d 7d 9s", "2c 3d 6h"),
        ("4c 5d 6h 7s Tc", "2h 3c 4d 5s 8c", "4c 5d 6h 7s"),
    ];
    for (k, (hand, opp, keep)) in cases.into_iter().enumerate() {
        let spot = last_draw_spot(hand, opp);
        let keep = set(keep);
        let e = draw::equity(&spot, keep, &Config::default()).unwrap();
        assert!(e.exact);
        let r = ref_last_draw(spot.hand, keep, set(opp));
        assert!((e.share - r).abs() < 1e-9, "{hand}: {} vs {r}", e.share);
        let cfg = Config {
            samples: 5000,
            exact_limit: 0,
            seed: k as u64,
        };
        let mc = draw::equity(&spot, keep, &cfg).unwrap();
        assert!(!mc.exact && mc.samples == 5000);
        if keep.len() == 4 {
            // One card to draw against a known hand: each sample averages over every card left,
            // which is the whole answer: no sampling error (but rounding).
            assert!(mc.std_err < 1e-6, "{hand}: {}", mc.std_err);
            assert!((mc.share - r).abs() < 1e-9, "{hand}: {} vs {r}", mc.share);
            continue;
        }
        let z = (mc.share - r) / mc.std_err;
        assert!(z.abs() < 4.5, "{hand}: {} vs {r} (z = {z})", mc.share);
    }
}

#[test]
fn best_keep_plays_like_a_lowball_player() {
    let keep = |hand: &str, left: u8, drew: Option<u8>| {
        let spot = DrawSpot {
            hand: set(hand),
            draws_left: left,
            opponents: vec![DrawOpponent::unknown(drew, left)],
            dead: CardSet::EMPTY,
            ace_five_straight: false,
        };
        draw::best_keep(&spot, &Config::default()).unwrap().keep
    };
    assert_eq!(keep("2c 3d 4h 7s Kc", 3, None), set("2c 3d 4h 7s"));
    assert_eq!(keep("2c 3d 4h 5s 7c", 2, Some(1)), set("2c 3d 4h 5s 7c"));
    assert_eq!(keep("2c 2d 5h 7s Kd", 3, None).len(), 3, "one deuce goes");
    assert_eq!(
        keep("2c 3d 4h 5s 6c", 2, Some(2)).len(),
        4,
        "break the straight"
    );
    assert!(keep("Kc Qd Jh 9s 9c", 3, None).len() <= 1);
}

#[test]
fn draw_refuses_bad_queries() {
    let spot = last_draw_spot("2c 3d 4h 7s Kc", "2d 4c 5s 6h 8d");
    assert!(matches!(
        draw::equity(&spot, set("2c 3d 4h 7s Kd"), &Config::default()),
        Err(EquityError::BadDraw(_))
    ));
    let clash = last_draw_spot("2c 3d 4h 7s Kc", "2c 4c 5s 6h 8d");
    assert_eq!(
        draw::equity(&clash, set("2c"), &Config::default()),
        Err(EquityError::DuplicateCard(set("2c").iter().next().unwrap()))
    );
}

/// The drawing rule as first written (card by card), kept as the reference for the bit-operation
/// version the simulations use.
fn policy_reference(hand: CardSet, draws_left: u8) -> CardSet {
    let m = hand.rank_mask();
    let straight = {
        let m = u32::from(m);
        m & m << 1 & m << 2 & m << 3 & m << 4 != 0
    };
    let flush = (0..4).any(|s| (hand.bits() >> (16 * s) & 0x1fff).count_ones() >= 5);
    let made = m.count_ones() == 5 && !straight && !flush;
    let top = 15 - m.leading_zeros() as u8;
    let bar = match draws_left {
        3.. => 6,
        2 => 7,
        _ => 8,
    };
    if made && top <= bar {
        return hand;
    }
    let keep_bar = if draws_left <= 1 { 7 } else { 6 };
    let mut keep = CardSet::EMPTY;
    let mut kept = 0u16;
    for c in hand.iter() {
        let r = c.rank().index();
        if r <= keep_bar && kept & 1 << r == 0 {
            keep.insert(c);
            kept |= 1 << r;
        }
    }
    if keep.len() == 5 {
        let hi = 15 - kept.leading_zeros() as u8;
        let c = keep.iter().find(|c| c.rank().index() == hi).unwrap();
        keep.remove(c);
    }
    keep
}

/// Every five-card hand, every number of draws left.
#[test]
fn drawing_rule_equals_its_reference_on_every_hand() {
    let cards: Vec<Card> = Card::all().collect();
    let mut n = 0u64;
    for a in 0..52 {
        for b in a + 1..52 {
            for c in b + 1..52 {
                for d in c + 1..52 {
                    for e in d + 1..52 {
                        let hand: CardSet = [cards[a], cards[b], cards[c], cards[d], cards[e]]
                            .into_iter()
                            .collect();
                        for left in 0..=3 {
                            assert_eq!(
                                draw::policy(hand, left),
                                policy_reference(hand, left),
                                "{hand} with {left} draws left"
                            );
                        }
                        n += 1;
                    }
                }
            }
        }
    }
    assert_eq!(n, 2_598_960);
}

/// `keep_equities` (opponents played once per sample for every keep) agrees with one `equity`
/// per keep, within their joint error, on a four-handed spot.
#[test]
fn keep_equities_agree_with_single_keep_equities() {
    let hand = set("2c 3d 4h 8s 9c");
    let spot = DrawSpot {
        hand,
        draws_left: 2,
        opponents: vec![
            DrawOpponent::unknown(Some(1), 2),
            DrawOpponent::unknown(Some(3), 2),
            DrawOpponent::unknown(Some(2), 2),
        ],
        dead: CardSet::EMPTY,
        ace_five_straight: false,
    };
    let keeps = draw::candidates(hand);
    assert!(keeps.len() >= 4);
    let cfg = Config {
        samples: 6000,
        exact_limit: 0,
        seed: 5,
    };
    let batch = draw::keep_equities(&spot, &keeps, &cfg).unwrap();
    for (k, b) in keeps.iter().zip(&batch) {
        let one = draw::equity(&spot, *k, &Config { seed: 99, ..cfg }).unwrap();
        let z = (b.share - one.share) / (b.std_err.hypot(one.std_err));
        assert!(z.abs() < 4.5, "{k}: {} vs {} (z = {z})", b.share, one.share);
    }
}

/// The draw model played the plain way, for the sampler to be checked against: a deck as a
/// vector, every card dealt (this seat's last card included), each hand valued by the evaluator.
/// Returns the mean share and its standard error.
fn ref_draw_share(spot: &DrawSpot, keep: CardSet, samples: u32, seed: u64) -> (f64, f64) {
    use pitboss_cards::eval::deuce_to_seven;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut seen = spot.hand.union(spot.dead);
    for o in &spot.opponents {
        seen = seen.union(o.known.unwrap_or(CardSet::EMPTY));
    }
    let unseen: Vec<Card> = Card::all().filter(|c| !seen.contains(*c)).collect();
    fn take(rng: &mut ChaCha8Rng, deck: &mut Vec<Card>, ok: &dyn Fn(Card) -> bool) -> Card {
        let pool: Vec<usize> = (0..deck.len()).filter(|&i| ok(deck[i])).collect();
        let i = if pool.is_empty() {
            (rng.next_u64() % deck.len() as u64) as usize
        } else {
            pool[(rng.next_u64() % pool.len() as u64) as usize]
        };
        deck.swap_remove(i)
    }
    fn play(rng: &mut ChaCha8Rng, deck: &mut Vec<Card>, mut hand: CardSet, draws: u8) -> CardSet {
        for left in (1..=draws).rev() {
            hand = draw::policy(hand, left);
            while hand.len() < 5 {
                hand.insert(take(rng, deck, &|_| true));
            }
        }
        hand
    }
    let (mut sum, mut sum_sq) = (0.0, 0.0);
    for _ in 0..samples {
        let mut deck = unseen.clone();
        let mut values = vec![0u32];
        for o in &spot.opponents {
            let hand = o.known.unwrap_or_else(|| {
                let (good, bar) = match o.drew {
                    None | Some(5..) => (0, 0),
                    Some(0) => (5, 8),
                    Some(d) => (5 - d, 6),
                };
                let bar = o.bar.map_or(bar, |n| bar.min(n.max(5)));
                let mut hand = CardSet::EMPTY;
                for _ in 0..good {
                    let ranks = hand.rank_mask();
                    let c = take(&mut rng, &mut deck, &|c: Card| {
                        c.rank().index() <= bar && ranks & 1 << c.rank().index() == 0
                    });
                    hand.insert(c);
                }
                while hand.len() < 5 {
                    hand.insert(take(&mut rng, &mut deck, &|_| true));
                }
                hand
            });
            let hand = play(&mut rng, &mut deck, hand, o.draws_left);
            values.push(deuce_to_seven(hand, spot.ace_five_straight).get());
        }
        let mut hero = keep;
        if spot.draws_left > 0 {
            while hero.len() < 5 {
                hero.insert(take(&mut rng, &mut deck, &|_| true));
            }
            hero = play(&mut rng, &mut deck, hero, spot.draws_left - 1);
        }
        values[0] = deuce_to_seven(hero, spot.ace_five_straight).get();
        let best = *values.iter().max().unwrap();
        let s = if values[0] < best {
            0.0
        } else {
            1.0 / values.iter().filter(|v| **v == best).count() as f64
        };
        sum += s;
        sum_sq += s * s;
    }
    let n = f64::from(samples);
    let mean = sum / n;
    (mean, ((sum_sq / n - mean * mean) / (n - 1.0)).sqrt())
}

fn narrowed(mut spot: DrawSpot, bar: u8) -> DrawSpot {
    for o in &mut spot.opponents {
        *o = o.with_bar(bar);
    }
    spot
}

/// A narrowed model is a stronger opponent: a nine-low pat hand wins less often against a pat hand
/// an eight or better than against one a ten or better.
#[test]
fn a_narrowed_pat_hand_is_stronger() {
    let spot = |opp: DrawOpponent| DrawSpot {
        hand: set("2c 3d 4h 7s 9c"),
        draws_left: 0,
        opponents: vec![opp],
        dead: CardSet::EMPTY,
        ace_five_straight: false,
    };
    let cfg = Config {
        samples: 20_000,
        exact_limit: 0,
        seed: 7,
    };
    let wide = DrawOpponent::unknown(Some(0), 0);
    let s = spot(wide);
    let a = draw::equity(&s, s.hand, &cfg).unwrap().share;
    let s = spot(wide.with_bar(6));
    let b = draw::equity(&s, s.hand, &cfg).unwrap().share;
    assert!(
        a > 0.5 && b < 0.3,
        "{a} against a ten or better, {b} against an eight"
    );
}

/// The sampler (which counts this seat's last one-card draw exactly and deals the model with
/// bit operations) against the model played the plain way: heads-up and multiway, one to three
/// draws left, four-card keeps (a four-flush among them) and shorter ones, both straight rules.
#[test]
fn draw_sampler_agrees_with_the_model_played_plainly() {
    let spot = |hand: &str, left: u8, opps: &[(Option<u8>, u8)], afs: bool| DrawSpot {
        hand: set(hand),
        draws_left: left,
        opponents: opps
            .iter()
            .map(|&(drew, l)| DrawOpponent::unknown(drew, l))
            .collect(),
        dead: CardSet::EMPTY,
        ace_five_straight: afs,
    };
    let cases = [
        (
            spot("2c 3d 4h 7s Kc", 1, &[(Some(1), 1)], false),
            "2c 3d 4h 7s",
        ),
        (
            spot("2c 3d 4h 7s Kc", 3, &[(None, 3)], false),
            "2c 3d 4h 7s",
        ),
        (
            spot("2c 3c 4c 7c Kd", 1, &[(Some(0), 0)], false),
            "2c 3c 4c 7c",
        ),
        (
            spot("Ac 2d 3h 4s Kc", 1, &[(Some(1), 1)], true),
            "Ac 2d 3h 4s",
        ),
        (
            spot(
                "2c 3d 6h 8s Qc",
                2,
                &[(Some(2), 2), (Some(1), 2), (Some(3), 2)],
                false,
            ),
            "2c 3d 6h 8s",
        ),
        (
            spot("2c 3d 6h Js Qc", 1, &[(Some(2), 1), (Some(0), 0)], false),
            "2c 3d 6h",
        ),
        // Narrowed models: a pat hand an eight or better, a one-card draw to a seven.
        (
            narrowed(spot("2c 3d 4h 9s Kc", 1, &[(Some(0), 0)], false), 6),
            "2c 3d 4h 9s",
        ),
        (
            narrowed(spot("2c 3d 4h 8s Kc", 2, &[(Some(1), 2)], false), 5),
            "2c 3d 4h 8s",
        ),
    ];
    for (k, (spot, keep)) in cases.iter().enumerate() {
        let keep = set(keep);
        let cfg = Config {
            samples: 20_000,
            exact_limit: 0,
            seed: 50 + k as u64,
        };
        let e = draw::equity(spot, keep, &cfg).unwrap();
        let (r, r_se) = ref_draw_share(spot, keep, 20_000, 80 + k as u64);
        let z = (e.share - r) / e.std_err.hypot(r_se);
        assert!(
            z.abs() < 4.5,
            "case {k}: {} ± {} vs {r} ± {r_se} (z = {z})",
            e.share,
            e.std_err
        );
        eprintln!(
            "case {k}: {:.4} ± {:.4} vs {r:.4} ± {r_se:.4}",
            e.share, e.std_err
        );
    }
}
