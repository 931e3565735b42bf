//! The value estimate `V`: a cheap strength key per seat from all of its cards (the referee sees
//! them), turned into pot shares by comparing the keys of the live seats as if the hand were shown
//! down now. Every key is "larger is better"; equal keys split.
//!
//! The keys are built for speed (the estimator evaluates one seat for every card the stub could
//! produce, some 2,500 times in a full stud hand), not for precision: any `V` leaves the adjusted
//! result unbiased, a better one only narrows it (see the crate docs).

use std::sync::OnceLock;

use pitboss_cards::eval::{deuce_to_seven, high, HighClass};
use pitboss_cards::{Card, CardSet, Rank, Suit};

/// A high key for any number of cards: the evaluator's packed value (`class << 20 | five rank
/// nibbles`) for five to seven cards; for fewer, the same packing from pairs, trips and quads only
/// (no straights or flushes of fewer than five cards, as on a stud board).
#[inline]
pub fn high_key(set: CardSet) -> u32 {
    if set.len() >= 5 {
        high(set).get()
    } else {
        partial_high(set)
    }
}

/// Every high key of a holding with a pair, a straight or a flush (or better) is at least this;
/// every key of the high card class is below it.
pub const HIGH_PAIR: u32 = (HighClass::Pair as u32) << 20;

/// The packed high value of at most four cards, from bit operations on the four suit lanes.
#[inline]
pub fn partial_high(set: CardSet) -> u32 {
    let [any, ge2, ge3, ge4] = rank_groups(set);
    let (class, groups) = if ge4 != 0 {
        (HighClass::Quads, ge4)
    } else if ge3 != 0 {
        (HighClass::Trips, ge3)
    } else if ge2.count_ones() >= 2 {
        (HighClass::TwoPair, ge2)
    } else if ge2 != 0 {
        (HighClass::Pair, ge2)
    } else {
        (HighClass::HighCard, 0)
    };
    let mut v = (class as u32) << 20;
    let mut shift = 16i32;
    for mask in [groups, any & !groups] {
        let mut m = mask;
        while m != 0 && shift >= 0 {
            let r = 15 - m.leading_zeros();
            v |= r << shift;
            shift -= 4;
            m &= !(1 << r);
        }
    }
    v
}

/// The ace-to-five mask of ranks eight or lower: ace at bit 0, deuce..eight at bits 1..7.
#[inline]
fn low_mask(set: CardSet) -> u8 {
    let m = set.rank_mask();
    (((m << 1) & 0xfe) | (m >> 12 & 1)) as u8
}

/// A missing card of a low in the making counts as a rank of 7.5 (in half ranks: 15).
const LOW_VIRTUAL: u32 = 15;

fn low_table() -> &'static [[u32; 256]; 8] {
    static T: OnceLock<Box<[[u32; 256]; 8]>> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = Box::new([[0u32; 256]; 8]);
        for (to_come, row) in t.iter_mut().enumerate() {
            for (mask, key) in row.iter_mut().enumerate() {
                let cnt = (mask as u32).count_ones() as usize;
                if cnt + to_come < 5 {
                    continue;
                }
                // The five lowest ranks held (ace = 1 .. eight = 8, in half ranks), missing ones
                // virtual, compared highest first.
                let mut v: Vec<u32> = (0..8)
                    .filter(|b| mask >> b & 1 == 1)
                    .map(|b| 2 * (b + 1))
                    .take(5)
                    .collect();
                v.resize(5, LOW_VIRTUAL);
                v.sort_unstable_by(|x, y| y.cmp(x));
                let packed = v.iter().fold(0u32, |acc, r| acc << 5 | r);
                *key = (1 << 25) - packed;
            }
        }
        t
    })
}

/// An eight-or-better low key (0 = no low possible any more) of a stud seat holding `set` with
/// `to_come` cards still to be dealt to it: the five lowest distinct ranks up to eight, where
/// a missing one counts as a 7.5; no low when too few low ranks can still come.
#[inline]
pub fn low_key(set: CardSet, to_come: usize) -> u32 {
    low_table()[to_come.min(7)][usize::from(low_mask(set))]
}

/// A missing card of a deuce-to-seven hand counts as a 9.5 (in half ranks with deuce = 0: 15).
const D27_VIRTUAL: u32 = 15;
const D27_GOOD: u32 = 1 << 26;
/// Every deuce-to-seven key of a holding with a pair is below this, every key of a no-pair
/// holding of fewer than five cards (and of a five-card no-pair, no-straight, no-flush hand) at
/// or above it.
pub const D27_NO_PAIR: u32 = 1 << 25;

/// The top card of a no-pair deuce-to-seven key ([`d27_key`]) in half ranks (deuce 0, seven 10,
/// eight 12, nine 14, a missing card 15, ten 16 …); `None` for a key with a pair or worse.
#[inline]
pub fn d27_top_half(key: u32) -> Option<u32> {
    (key >= D27_NO_PAIR).then(|| (D27_GOOD - key) >> 20)
}

/// The ranks of a no-pair holding in half ranks, highest first, missing cards virtual, packed.
#[inline]
fn packed_halves(mut mask: u16, k: usize) -> u32 {
    let mut v = 0u32;
    let mut filled = 0;
    let mut virtual_left = 5 - k;
    // Merge the real ranks (descending) with the virtual ones at their place.
    while filled < 5 {
        let top = if mask != 0 {
            2 * (15 - mask.leading_zeros())
        } else {
            0
        };
        let r = if virtual_left > 0 && (mask == 0 || D27_VIRTUAL > top) {
            virtual_left -= 1;
            D27_VIRTUAL
        } else {
            mask &= !(1 << (top / 2));
            top
        };
        v = v << 5 | r;
        filled += 1;
    }
    v
}

/// The deuce-to-seven keys of the no-pair holdings of at most five cards (not a flush), by rank
/// mask, for `ace_five_straight` false and true: they depend on the ranks only.
fn d27_table() -> &'static [[u32; 8192]; 2] {
    static T: OnceLock<Box<[[u32; 8192]; 2]>> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = Box::new([[0u32; 8192]; 2]);
        for (a5, row) in t.iter_mut().enumerate() {
            for (mask, key) in row.iter_mut().enumerate() {
                if mask.count_ones() > 5 {
                    continue;
                }
                // One card per rank, suits in turn: five cards are never of one suit.
                let set: CardSet = (0..13u8)
                    .filter(|r| mask >> r & 1 == 1)
                    .enumerate()
                    .map(|(i, r)| Card::new(Rank::from_index(r), Suit::from_index(i as u8 % 4)))
                    .collect();
                *key = d27_key_direct(set, a5 == 1);
            }
        }
        t
    })
}

/// The deuce-to-seven keys of the no-pair holdings of at most five cards that are not a flush, by
/// rank mask: `d27_key(set)` is `d27_no_pair_keys(a5)[rank_mask(set)]` for every such `set`.
#[inline]
pub fn d27_no_pair_keys(ace_five_straight: bool) -> &'static [u32; 8192] {
    &d27_table()[usize::from(ace_five_straight)]
}

/// The rank masks of a set's ranks held at least once, twice, three and four times.
#[inline]
pub fn rank_groups(set: CardSet) -> [u16; 4] {
    let b = set.bits();
    let (a, c, d, e) = (
        (b & 0x1fff) as u16,
        (b >> 16 & 0x1fff) as u16,
        (b >> 32 & 0x1fff) as u16,
        (b >> 48 & 0x1fff) as u16,
    );
    [
        a | c | d | e,
        (a & c) | (a & d) | (a & e) | (c & d) | (c & e) | (d & e),
        (a & c & d) | (a & c & e) | (a & d & e) | (c & d & e),
        a & c & d & e,
    ]
}

/// [`d27_key`] of a holding of at most five cards with a pair, from its [`rank_groups`] (with a
/// pair five cards are neither a straight nor a flush: the key depends on the ranks only). It is
/// `(1 << 24) - 1` minus the evaluator's packed high value, as [`partial_high`] packs it for fewer
/// than five cards (a full house being a class of five cards only).
#[inline]
pub fn d27_paired_key([any, ge2, ge3, ge4]: [u16; 4]) -> u32 {
    let (class, groups) = if ge4 != 0 {
        (HighClass::Quads, ge4)
    } else if ge3 != 0 && ge2 & !ge3 != 0 {
        (HighClass::FullHouse, ge3)
    } else if ge3 != 0 {
        (HighClass::Trips, ge3)
    } else if ge2 & ge2.wrapping_sub(1) != 0 {
        (HighClass::TwoPair, ge2)
    } else {
        (HighClass::Pair, ge2)
    };
    let mut v = (class as u32) << 20;
    let mut shift = 16i32;
    for mask in [groups, any & !groups] {
        let mut m = mask;
        while m != 0 {
            let r = 15 - m.leading_zeros();
            v |= r << shift;
            shift -= 4;
            m &= !(1 << r);
        }
    }
    (1 << 24) - 1 - v
}

/// A deuce-to-seven key of a holding of up to five cards. Five cards: a no-pair, no-straight,
/// no-flush hand by its ranks, any other hand below all of them in evaluator order. Fewer cards
/// (while cards are being dealt or replaced): no pair → its ranks with each missing card a 9.5;
/// a pair → below every no-pair holding. No-pair holdings that are not a flush come from a table
/// by rank mask, paired ones from their rank counts ([`d27_paired_key`]); the others are computed
/// ([`d27_key_direct`]).
#[inline]
pub fn d27_key(set: CardSet, ace_five_straight: bool) -> u32 {
    let k = set.len();
    let mask = set.rank_mask();
    let b = set.bits();
    let lane = b.trailing_zeros() & 48;
    let distinct = mask.count_ones();
    if distinct == k && (k < 5 || (k == 5 && b >> lane > 0x1fff)) {
        return d27_table()[usize::from(ace_five_straight)][usize::from(mask)];
    }
    if distinct < k && k <= 5 {
        return d27_paired_key(rank_groups(set));
    }
    d27_key_direct(set, ace_five_straight)
}

/// [`d27_key`] computed directly (it fills the table of no-pair holdings and checks it).
/// A deuce-to-seven key of a holding of up to five cards. Five cards: a no-pair, no-straight,
/// no-flush hand by its ranks, any other hand below all of them in evaluator order. Fewer cards
/// (while cards are being dealt or replaced): no pair → its ranks with each missing card a 9.5;
/// a pair → below every no-pair holding.
#[inline]
pub fn d27_key_direct(set: CardSet, ace_five_straight: bool) -> u32 {
    let k = set.len() as usize;
    let mask = set.rank_mask();
    if k == 5 {
        // The common case without the tables: five ranks, no straight, more than one suit.
        let b = set.bits();
        let suits = (0..4).filter(|l| b >> (16 * l) & 0x1fff != 0).count();
        let m = u32::from(mask);
        let straight = m & m << 1 & m << 2 & m << 3 & m << 4 != 0
            || (ace_five_straight && m & 0b1_0000_0000_1111 == 0b1_0000_0000_1111);
        if mask.count_ones() == 5 && suits > 1 && !straight {
            return D27_GOOD - packed_halves(mask, 5);
        }
        let d = deuce_to_seven(set, ace_five_straight);
        if d.class() == HighClass::HighCard {
            D27_GOOD - packed_halves(mask, 5)
        } else {
            d.get()
        }
    } else if (mask.count_ones() as usize) < k {
        (1 << 24) - 1 - partial_high(set)
    } else {
        D27_GOOD - packed_halves(mask, k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitboss_cards::parse_cards;

    fn set(s: &str) -> CardSet {
        parse_cards(s).unwrap().into_iter().collect()
    }

    #[test]
    fn partial_high_orders_small_hands_as_the_evaluator_does() {
        let hands = [
            "As Ad Kc",
            "2c 2d 2h",
            "7c 7d 3h 3s",
            "Kc Qd",
            "9s",
            "5c 5d 5h 5s",
            "",
            "As Kd Qc",
            "Ac Ad 2c",
            "Kc Kd Ks",
            "2c 3d 4h 5s",
            "Ac 2d 3h 4s",
            "Td Tc 9s 9d",
            "Tc Ts 8h 8d",
            "Ac Kd Qh Js",
            "Ac Kd Qh Ts",
            "7c 7d",
            "7h 7s 2c",
        ];
        for a in hands {
            for b in hands {
                let (sa, sb) = (set(a), set(b));
                // Where the evaluator orders them, so do we (we also break its ties by kickers).
                let want = high(sa).cmp(&high(sb));
                if sa.len() == sb.len() && want != std::cmp::Ordering::Equal {
                    assert_eq!(partial_high(sa).cmp(&partial_high(sb)), want, "{a} vs {b}");
                }
            }
        }
        assert!(partial_high(set("2c 2d")) > partial_high(set("Ac Kd Qh")));
    }

    #[test]
    fn high_keys_below_a_pair_are_the_no_pair_holdings() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut below = 0;
        for _ in 0..300_000 {
            let mut s = CardSet::EMPTY;
            let k = 1 + (x % 7) as usize;
            while (s.len() as usize) < k {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                s.insert(Card::from_index((x % 52) as u8));
            }
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let m = u32::from(s.rank_mask());
            let b = s.bits();
            let pair = m.count_ones() < s.len();
            let straight = m & m << 1 & m << 2 & m << 3 & m << 4 != 0 || m & 0x100f == 0x100f;
            let flush = (0..4).any(|l| (b >> (16 * l) & 0x1fff).count_ones() >= 5);
            let high_card = !pair && !straight && !flush;
            assert_eq!(high_key(s) < HIGH_PAIR, high_card, "{s:?}");
            below += usize::from(high_card);
        }
        assert!(below > 30_000, "{below}");
    }

    #[test]
    fn low_keys_order_lows_and_refuse_impossible_ones() {
        assert!(low_key(set("Ac 2d 3h 4s 5c"), 0) > low_key(set("Ac 2d 3h 4s 6c"), 0));
        assert!(low_key(set("Ac 2d 3h 4s 5c 6d 7h"), 0) > low_key(set("8c 2d 3h 4s 5c"), 2));
        assert_eq!(low_key(set("Kc Kd 9h 4s 5c 6d"), 1), 0);
        assert!(low_key(set("Kc Kd 9h 4s 5c 6d"), 2) > 0);
        assert!(low_key(set("2c 3d 4h"), 4) > low_key(set("2c 3d 8h"), 4));
    }

    #[test]
    fn d27_keys_order_lows_pairs_and_draws() {
        let a5 = false;
        let nut = d27_key(set("7c 5d 4h 3s 2c"), a5);
        assert!(nut > d27_key(set("8c 5d 4h 3s 2c"), a5));
        assert!(d27_key(set("Kc 5d 4h 3s 2c"), a5) > d27_key(set("2c 2d 4h 3s 7c"), a5));
        assert!(d27_key(set("2c 2d 4h 3s 7c"), a5) > d27_key(set("6c 5d 4h 3s 2c"), a5));
        // Drawing one to 7-5-3-2: a 9.5 on average, between a made nine and a made ten.
        let draw = d27_key(set("7c 5d 3s 2c"), a5);
        assert!(draw < d27_key(set("9c 7d 5h 3s 2c"), a5));
        assert!(draw > d27_key(set("Tc 7d 5h 3s 2c"), a5));
        assert!(draw > d27_key(set("7c 7d 3s 2c"), a5));
    }

    #[test]
    fn d27_paired_keys_equal_the_direct_ones_for_every_rank_multiset() {
        // Every multiset of two to five ranks with a pair (suits assigned in turn: the key
        // depends on the ranks only), both straight rules.
        let mut checked = 0;
        let mut counts = [0u8; 13];
        fn rec(r: usize, left: usize, counts: &mut [u8; 13], checked: &mut usize) {
            if r == 13 {
                let set: CardSet = (0..13)
                    .flat_map(|r| {
                        (0..counts[r])
                            .map(move |s| Card::new(Rank::from_index(r as u8), Suit::from_index(s)))
                    })
                    .collect();
                if set.len() >= 2 && set.rank_mask().count_ones() < set.len() {
                    for a5 in [false, true] {
                        let want = d27_key_direct(set, a5);
                        assert_eq!(d27_paired_key(rank_groups(set)), want, "{set:?} {a5}");
                        assert_eq!(d27_key(set, a5), want, "{set:?} {a5}");
                        assert!(want < D27_NO_PAIR, "{set:?}");
                        *checked += 1;
                    }
                }
                return;
            }
            for c in 0..=left.min(4) {
                counts[r] = c as u8;
                rec(r + 1, left - c, counts, checked);
            }
            counts[r] = 0;
        }
        rec(0, 5, &mut counts, &mut checked);
        // Paired multisets of two, three, four and five ranks: 13 + 169 + 1,105 + 4,888.
        assert_eq!(checked, 2 * 6175, "{checked}");
    }

    #[test]
    fn d27_keys_from_the_table_equal_the_direct_ones() {
        // Every holding of up to five cards of a 20-card deck (all suits of five ranks, spread so
        // that straights, wheels, flushes and pairs occur), both straight rules.
        let ranks = [0u8, 1, 2, 3, 12];
        let deck: Vec<Card> = ranks
            .iter()
            .flat_map(|&r| (0..4).map(move |s| Card::new(Rank::from_index(r), Suit::from_index(s))))
            .collect();
        let mut checked = 0;
        for bits in 0u32..1 << deck.len() {
            if bits.count_ones() > 5 {
                continue;
            }
            let s: CardSet = (0..deck.len())
                .filter(|i| bits >> i & 1 == 1)
                .map(|i| deck[i])
                .collect();
            for a5 in [false, true] {
                assert_eq!(d27_key(s, a5), d27_key_direct(s, a5), "{s:?} {a5}");
                checked += 1;
            }
        }
        assert!(checked > 40_000, "{checked}");
        // And random holdings of the full deck.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200_000 {
            let mut s = CardSet::EMPTY;
            let k = (x % 6) as usize;
            while (s.len() as usize) < k {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                s.insert(Card::from_index((x % 52) as u8));
            }
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            for a5 in [false, true] {
                let key = d27_key(s, a5);
                assert_eq!(key, d27_key_direct(s, a5), "{s:?} {a5}");
                let paired = s.rank_mask().count_ones() < s.len();
                if paired {
                    assert!(key < D27_NO_PAIR, "{s:?}");
                } else if s.len() < 5 {
                    assert!(key >= D27_NO_PAIR, "{s:?}");
                }
            }
        }
    }
}
