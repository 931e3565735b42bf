//! The fast evaluators against the slow reference in `reference/`: every five-card hand for each
//! rule (same equivalence classes, same order, known totals), seeded samples of six and seven
//! cards, the docs/RULES.md edge cases, and (ignored, `--ignored`) the full seven-card class census.

mod reference;

use std::collections::HashMap;

use pitboss_cards::eval::{self, HighClass};
use pitboss_cards::{parse_cards, Card, CardSet, Deck};
use reference::{a5_5, a5_best, deuce_to_seven5, high5, high_best, HighKey, CLASS_NAMES};

/// Sorts by the reference key and checks that the fast values rise with it: equal keys have equal
/// values and a larger key a strictly larger value, i.e. the same classes in the same order.
/// Returns the number of distinct keys.
fn assert_same_order<K: Ord + std::fmt::Debug, V: Ord + Copy + std::fmt::Debug>(
    mut pairs: Vec<(K, V, CardSet)>,
) -> usize {
    pairs.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut distinct = 1;
    for w in pairs.windows(2) {
        let ((k1, v1, h1), (k2, v2, h2)) = (&w[0], &w[1]);
        if k1 == k2 {
            assert_eq!(v1, v2, "tie in the reference but not here: {h1} vs {h2}");
        } else {
            assert!(
                v1 < v2,
                "order differs: {h1} ({k1:?}, {v1:?}) vs {h2} ({k2:?}, {v2:?})"
            );
            distinct += 1;
        }
    }
    distinct
}

/// Every five-card hand, as cards and as a set.
fn all_fives() -> impl Iterator<Item = ([Card; 5], CardSet)> {
    let c = |i: u8| Card::from_index(i);
    (0..52u8).flat_map(move |a| {
        (a + 1..52).flat_map(move |b| {
            (b + 1..52).flat_map(move |d| {
                (d + 1..52).flat_map(move |e| {
                    (e + 1..52).map(move |f| {
                        let h = [c(a), c(b), c(d), c(e), c(f)];
                        (h, h.iter().collect())
                    })
                })
            })
        })
    })
}

/// A reference high key as one integer (class, then rank digits), so that sorting 2.6 M keys is
/// quick; same-class keys have the same length, so this preserves the order.
fn compact(k: &HighKey) -> u64 {
    let mut v = u64::from(k.0);
    for i in 0..5 {
        v = v << 4 | u64::from(k.1.get(i).copied().unwrap_or(0));
    }
    v
}

fn census(classes: impl Iterator<Item = HighClass>) -> HashMap<&'static str, u64> {
    let mut m = HashMap::new();
    for c in classes {
        *m.entry(c.name()).or_insert(0) += 1;
    }
    m
}

const FIVE_CARD_HIGH_COUNTS: [(&str, u64); 9] = [
    ("straight flush", 40),
    ("four of a kind", 624),
    ("full house", 3_744),
    ("flush", 5_108),
    ("straight", 10_200),
    ("three of a kind", 54_912),
    ("two pair", 123_552),
    ("pair", 1_098_240),
    ("high card", 1_302_540),
];

#[test]
fn high_every_five_card_hand() {
    let pairs: Vec<_> = all_fives()
        .map(|(h, s)| (compact(&high5(&h, true)), eval::high(s), s))
        .collect();
    assert_eq!(pairs.len(), 2_598_960);
    let fast = census(pairs.iter().map(|p| p.1.class()));
    let slow = census(pairs.iter().map(|p| {
        let class = (p.0 >> 20) as usize;
        HighClass::ALL[class]
    }));
    for (name, n) in FIVE_CARD_HIGH_COUNTS {
        assert_eq!(fast.get(name), Some(&n), "{name}");
        assert_eq!(slow.get(name), Some(&n), "reference {name}");
    }
    assert_eq!(assert_same_order(pairs), 7_462);
}

#[test]
fn deuce_to_seven_every_five_card_hand_both_options() {
    for ace_five_straight in [false, true] {
        let pairs: Vec<_> = all_fives()
            .map(|(h, s)| {
                let k = std::cmp::Reverse(compact(&deuce_to_seven5(&h, ace_five_straight).0));
                (k, eval::deuce_to_seven(s, ace_five_straight), s)
            })
            .collect();
        let counts = census(pairs.iter().map(|p| p.1.class()));
        // A-2-3-4-5 is one of the 10 straights (and 10 straight flushes) only under the option.
        let (straights, sf, flushes, high) = if ace_five_straight {
            (10_200, 40, 5_108, 1_302_540)
        } else {
            (10_200 - 1_020, 36, 5_112, 1_302_540 + 1_020)
        };
        assert_eq!(counts["straight"], straights);
        assert_eq!(counts["straight flush"], sf);
        assert_eq!(counts["flush"], flushes);
        assert_eq!(counts["high card"], high);
        assert_eq!(counts["pair"], 1_098_240);
        assert_eq!(
            assert_same_order(pairs),
            7_462,
            "option {ace_five_straight}"
        );
    }
}

#[test]
fn ace_to_five_8_every_five_card_hand() {
    let pairs: Vec<_> = all_fives()
        .map(|(h, s)| (a5_5(&h), eval::ace_to_five_8(s), s))
        .collect();
    let qualifying = pairs.iter().filter(|p| p.1.is_some()).count();
    assert_eq!(qualifying, 57_344);
    assert_eq!(pairs.iter().filter(|p| p.0.is_some()).count(), 57_344);
    // 56 lows plus the one class of all non-qualifying hands.
    assert_eq!(assert_same_order(pairs), 56 + 1);
}

/// Seeded six- and seven-card holdings.
fn sample(cards: usize, n: u64, seed: u64) -> Vec<Vec<Card>> {
    (0..n)
        .map(|k| {
            let mut d = Deck::for_hand(seed, k);
            (0..cards).map(|_| d.deal().expect("card")).collect()
        })
        .collect()
}

#[test]
fn high_six_and_seven_cards_match_best_of_subsets() {
    for cards in [6, 7] {
        let mut pairs = Vec::new();
        for h in sample(cards, 30_000, 7 + cards as u64) {
            let set: CardSet = h.iter().collect();
            let best = high_best(&h);
            let (v, five) = eval::high_best_five(set);
            assert_eq!(v.class().name(), CLASS_NAMES[best.0 as usize], "{set}");
            assert!(five.iter().all(|c| set.contains(*c)), "{set}");
            assert_eq!(high5(&five, true), best, "best five of {set}");
            pairs.push((compact(&best), v, set));
        }
        assert_same_order(pairs);
    }
}

#[test]
fn ace_to_five_8_six_and_seven_cards_match_best_of_subsets() {
    for cards in [6, 7] {
        let mut pairs = Vec::new();
        for h in sample(cards, 30_000, 70 + cards as u64) {
            let set: CardSet = h.iter().collect();
            let best = a5_best(&h);
            let fast = eval::ace_to_five_8_best_five(set);
            assert_eq!(best.is_some(), fast.is_some(), "{set}");
            if let Some((_, five)) = fast {
                assert!(five.iter().all(|c| set.contains(*c)), "{set}");
                assert_eq!(a5_5(&five), best, "best five of {set}");
            }
            pairs.push((best, fast.map(|f| f.0), set));
        }
        assert_same_order(pairs);
    }
}

#[test]
fn deuce_to_seven_best_five_is_the_holding() {
    for h in sample(5, 2_000, 5) {
        let set: CardSet = h.iter().collect();
        for opt in [false, true] {
            let (v, five) = eval::deuce_to_seven_best_five(set, opt);
            assert_eq!(v, eval::deuce_to_seven(set, opt));
            assert_eq!(five.iter().collect::<CardSet>(), set);
        }
    }
}

fn set(s: &str) -> CardSet {
    parse_cards(s).expect("test cards").iter().collect()
}

#[test]
fn rules_edge_cases() {
    let d = |s: &str, opt: bool| eval::deuce_to_seven(set(s), opt);
    // A-2-3-4-5: the nut ace by default, a five-high straight under the option.
    assert_eq!(d("Ac 2d 3h 4s 5c", false).class(), HighClass::HighCard);
    assert!(d("Ac 2d 3h 4s 5c", false) > d("Ac Kd Qh Js 9c", false));
    assert!(d("Ac 2d 3h 4s 5c", false) < d("Kc Qd Jh Ts 8c", false));
    assert_eq!(d("Ac 2d 3h 4s 5c", true).class(), HighClass::Straight);
    assert!(d("Ac 2d 3h 4s 5c", true) < d("2c 2d 3h 4s 5c", true));
    assert!(d("Ac 2d 3h 4s 5c", true) > d("2c 3d 4h 5s 6c", true));
    assert_eq!(d("Ac 2c 3c 4c 5c", false).class(), HighClass::Flush);
    assert_eq!(d("Ac 2c 3c 4c 5c", true).class(), HighClass::StraightFlush);
    // 7-5-4-3-2: the best hand unsuited, a bad flush suited.
    for opt in [false, true] {
        let best = d("7c 5d 4h 3s 2c", opt);
        assert!(all_fives().all(|(_, s)| eval::deuce_to_seven(s, opt) <= best));
        assert!(d("7c 5c 4c 3c 2c", opt) < d("Ac Kd Qh Js 9c", opt));
        assert!(d("7c 6d 4h 3s 2c", opt) < best);
        assert!(d("As Ks Qs Js Ts", opt) <= d("2c 3d 4h 5s 7c", opt));
        assert!(all_fives().all(|(_, s)| eval::deuce_to_seven(s, opt) >= d("As Ks Qs Js Ts", opt)));
    }
    // Ace-to-five: the wheel is the best low, 8-7-6-5-4 the worst, pairs never used.
    let a = |s: &str| eval::ace_to_five_8(set(s));
    let wheel = a("Ac 2d 3h 4s 5c").expect("wheel");
    let worst = a("8c 7d 6h 5s 4c").expect("eight low");
    assert_eq!(wheel.to_string(), "5-4-3-2-A");
    assert_eq!(a("Ac 2c 3c 4c 5c"), Some(wheel), "flushes do not count");
    for (_, s) in all_fives() {
        if let Some(v) = eval::ace_to_five_8(s) {
            assert!(worst <= v && v <= wheel, "{s}");
        }
    }
    assert!(a("8c 6d 4h 3s 2c") > a("8c 7d 3h 2s Ac"));
    assert_eq!(a("Ac Ad 2h 2s 3c 4d 5h"), Some(wheel));
    assert_eq!(a("Ac Ad 2h 2s 3c 4d Kh"), None, "pairs never make a low");
    assert_eq!(a("9c 7d 6h 5s 4c 9d Ks"), None);
    let (v, five) = eval::ace_to_five_8_best_five(set("Ac Ad 2h 3s 4c 7d 8c")).expect("low");
    assert_eq!(v.to_string(), "7-4-3-2-A");
    assert_eq!(five.iter().collect::<CardSet>().len(), 5);
}

/// The census of all 133,784,560 seven-card holdings. Run with
/// `cargo test --release -p pitboss-cards -- --ignored` (a few seconds with the fast evaluator).
#[test]
#[ignore = "full seven-card sweep; run with --ignored"]
fn high_seven_card_census() {
    let mut counts = [0u64; 9];
    let cards: Vec<CardSet> = (0..52)
        .map(|i| [Card::from_index(i)].iter().collect())
        .collect();
    let bit = |i: usize| cards[i];
    for a in 0..52usize {
        let sa = bit(a);
        for b in a + 1..52 {
            let sb = sa.union(bit(b));
            for c in b + 1..52 {
                let sc = sb.union(bit(c));
                for d in c + 1..52 {
                    let sd = sc.union(bit(d));
                    for e in d + 1..52 {
                        let se = sd.union(bit(e));
                        for f in e + 1..52 {
                            let sf = se.union(bit(f));
                            for g in f + 1..52 {
                                counts[eval::high(sf.union(bit(g))).class() as usize] += 1;
                            }
                        }
                    }
                }
            }
        }
    }
    assert_eq!(
        counts,
        [
            23_294_460, 58_627_800, 31_433_400, 6_461_620, 6_180_020, 4_047_644, 3_473_184,
            224_848, 41_584
        ]
    );
    assert_eq!(counts.iter().sum::<u64>(), 133_784_560);
}

/// The rank-pattern entry points (used by the equity engine to count suits apart) give what the
/// card evaluators give: the rank key is additive, `high_of_rank_key` is `high` of any hand without
/// a flush, `flush_high` is `high` of any hand with one, the low depends on the ranks only.
#[test]
fn rank_pattern_entry_points_agree_with_the_card_evaluators() {
    let (mut flushes, mut others) = (0, 0);
    for cards in [5, 6, 7] {
        for h in sample(cards, 20_000, 40 + cards as u64) {
            let set: CardSet = h.iter().collect();
            let key: u32 = h.iter().map(|c| eval::rank_key_unit(c.rank())).sum();
            assert_eq!(key, eval::rank_key(set), "{set}");
            let flush_suit = pitboss_cards::Suit::ALL
                .into_iter()
                .find(|s| set.suit_ranks(*s).count_ones() >= 5);
            let want = eval::high(set);
            match flush_suit {
                Some(s) => {
                    flushes += 1;
                    assert_eq!(eval::flush_high(set.suit_ranks(s)), want, "{set}");
                }
                None => {
                    others += 1;
                    assert_eq!(eval::high_of_rank_key(key), want, "{set}");
                }
            }
            assert_eq!(
                eval::ace_to_five_8_of_ranks(set.rank_mask()),
                eval::ace_to_five_8(set),
                "{set}"
            );
        }
    }
    assert!(flushes > 100 && others > 10_000, "{flushes} {others}");
}
