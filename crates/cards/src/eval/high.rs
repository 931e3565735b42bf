//! High-hand evaluation from rank masks and rank counts.

use std::fmt;

use super::tables::tables;
use crate::{Card, CardSet, Rank, Suit};

/// The category of a high hand, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HighClass {
    HighCard,
    Pair,
    TwoPair,
    Trips,
    Straight,
    Flush,
    FullHouse,
    Quads,
    StraightFlush,
}

impl HighClass {
    /// Lower-case English name, as printed by `pitboss eval`.
    pub const fn name(self) -> &'static str {
        match self {
            HighClass::HighCard => "high card",
            HighClass::Pair => "pair",
            HighClass::TwoPair => "two pair",
            HighClass::Trips => "three of a kind",
            HighClass::Straight => "straight",
            HighClass::Flush => "flush",
            HighClass::FullHouse => "full house",
            HighClass::Quads => "four of a kind",
            HighClass::StraightFlush => "straight flush",
        }
    }

    /// Every class, weakest first (the index is the class's discriminant).
    pub const ALL: [HighClass; 9] = [
        HighClass::HighCard,
        HighClass::Pair,
        HighClass::TwoPair,
        HighClass::Trips,
        HighClass::Straight,
        HighClass::Flush,
        HighClass::FullHouse,
        HighClass::Quads,
        HighClass::StraightFlush,
    ];

    const fn from_index(i: u32) -> HighClass {
        HighClass::ALL[i as usize]
    }
}

impl fmt::Display for HighClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The value of a high hand: `class << 20 | five rank nibbles`, most significant first, so that
/// integer order is hand order. Equal values tie.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HighValue(pub(crate) u32);

impl HighValue {
    /// The ordering integer (larger = better).
    #[inline]
    pub const fn get(self) -> u32 {
        self.0
    }

    #[inline]
    pub const fn class(self) -> HighClass {
        HighClass::from_index(self.0 >> 20)
    }

    /// The five ranks that decide the hand, most significant first (for a straight, its top card
    /// then zeros).
    pub(crate) fn ranks(self) -> [u8; 5] {
        let v = self.0;
        [
            (v >> 16 & 15) as u8,
            (v >> 12 & 15) as u8,
            (v >> 8 & 15) as u8,
            (v >> 4 & 15) as u8,
            (v & 15) as u8,
        ]
    }

    fn pack(class: HighClass, ranks: &[u8]) -> HighValue {
        let mut v = (class as u32) << 20;
        for (i, r) in ranks.iter().enumerate() {
            v |= u32::from(*r) << (16 - 4 * i);
        }
        HighValue(v)
    }
}

/// The top card of the best straight in a 13-bit rank mask; `wheel` lets A-2-3-4-5 count (top 5).
#[inline]
pub(crate) fn straight_top(mask: u16, wheel: bool) -> Option<u8> {
    let m = u32::from(mask);
    let runs = m & m << 1 & m << 2 & m << 3 & m << 4;
    if runs != 0 {
        return Some(31 - runs.leading_zeros() as u8);
    }
    if wheel && m & 0b1_0000_0000_1111 == 0b1_0000_0000_1111 {
        return Some(Rank::Five as u8);
    }
    None
}

/// The `n` highest ranks of a mask, highest first.
#[inline]
fn top_ranks(mut mask: u16, n: usize, out: &mut [u8; 5], from: usize) {
    for slot in out.iter_mut().skip(from).take(n) {
        let r = 15 - mask.leading_zeros() as u8;
        *slot = r;
        mask &= !(1 << r);
    }
}

/// Per-suit card counts of a 64-bit card mask, one count in the low byte of each 16-bit lane
/// (a SWAR population count, since the baseline x86-64 target has no `popcnt`).
#[inline]
const fn lane_counts(b: u64) -> u64 {
    let mut x = b - ((b >> 1) & 0x5555_5555_5555_5555);
    x = (x & 0x3333_3333_3333_3333) + ((x >> 2) & 0x3333_3333_3333_3333);
    x = (x + (x >> 4)) & 0x0f0f_0f0f_0f0f_0f0f;
    (x + (x >> 8)) & 0x00ff_00ff_00ff_00ff
}

/// Evaluates the best high hand of 5 to 7 cards. Fewer cards work too, as a partial hand (stud up
/// cards), on a slower path; such values compare correctly among partial hands of the same size.
///
/// The fast path is a SWAR flush test and either one flush-table lookup or four per-suit lookups
/// plus a perfect hash of the rank multiset (see `tables.rs`); it does not allocate.
#[inline]
pub fn high(cards: CardSet) -> HighValue {
    let b = cards.bits();
    let x = lane_counts(b);
    let total = x.wrapping_mul(0x0001_0001_0001_0001) >> 48;
    if !(5..=7).contains(&total) {
        return HighValue(packed_high(cards, true));
    }
    let t = tables();
    // A lane holding 5+ cards reaches 8 when 3 is added: bit 3 of that lane marks the flush suit.
    let flush = (x + 0x0003_0003_0003_0003) & 0x0008_0008_0008_0008;
    if flush != 0 {
        let lane = flush.trailing_zeros() - 3;
        return HighValue(t.flush[(b >> lane & 0x1fff) as usize]);
    }
    HighValue(t.by_key(t.key(b)))
}

/// The base-5 rank key of a set, `Σ count(r) · 5^r`: additive over cards, so a caller that
/// enumerates rank patterns instead of cards (the equity engine counts suits apart) can build the
/// key of a hand from the keys of its parts. See [`high_of_rank_key`].
#[inline]
pub fn rank_key(cards: CardSet) -> u32 {
    tables().key(cards.bits())
}

/// The rank key of one card of `rank` (`5^rank`).
#[inline]
pub const fn rank_key_unit(rank: Rank) -> u32 {
    5u32.pow(rank as u32)
}

/// The best high hand of a rank multiset of 5 to 7 cards (at most four of a rank) given by its
/// [`rank_key`], *not counting flushes*: the value [`high`] gives any such hand that holds no five
/// cards of one suit. Other keys give an unspecified value.
#[inline]
pub fn high_of_rank_key(key: u32) -> HighValue {
    HighValue(tables().by_key(key))
}

/// The best flush (or straight flush) among the ranks of one suit, given as a 13-bit rank mask of
/// five or more ranks: what [`high`] gives any hand of at most seven cards holding them.
#[inline]
pub fn flush_high(suit_ranks: u16) -> HighValue {
    debug_assert!(suit_ranks.count_ones() >= 5);
    HighValue(tables().flush[usize::from(suit_ranks & 0x1fff)])
}

/// The slow, straightforward evaluator behind the tables (and partial hands): the packed value
/// `class << 20 | rank nibbles`; `wheel` lets A-2-3-4-5 count as a straight.
pub(crate) fn packed_high(cards: CardSet, wheel: bool) -> u32 {
    high_with(cards, wheel).0
}

fn high_with(cards: CardSet, wheel: bool) -> HighValue {
    for suit in Suit::ALL {
        let sm = cards.suit_ranks(suit);
        if sm.count_ones() >= 5 {
            if let Some(top) = straight_top(sm, wheel) {
                return HighValue::pack(HighClass::StraightFlush, &[top]);
            }
            // With at most 7 cards a flush excludes quads and a full house.
            let mut r = [0; 5];
            top_ranks(sm, 5, &mut r, 0);
            return HighValue::pack(HighClass::Flush, &r);
        }
    }
    let mut by_count = [0u16; 5];
    for rank in Rank::ALL {
        by_count[cards.rank_count(rank) as usize] |= 1 << rank as u8;
    }
    let mask = cards.rank_mask();
    let mut r = [0u8; 5];
    if by_count[4] != 0 {
        top_ranks(by_count[4], 1, &mut r, 0);
        top_ranks(mask & !(1 << r[0]), 1, &mut r, 1);
        return HighValue::pack(HighClass::Quads, &r[..2]);
    }
    if by_count[3] != 0 {
        top_ranks(by_count[3], 1, &mut r, 0);
        let pairs = (by_count[3] & !(1 << r[0])) | by_count[2];
        if pairs != 0 {
            top_ranks(pairs, 1, &mut r, 1);
            return HighValue::pack(HighClass::FullHouse, &r[..2]);
        }
    }
    if let Some(top) = straight_top(mask, wheel) {
        return HighValue::pack(HighClass::Straight, &[top]);
    }
    if by_count[3] != 0 {
        top_ranks(mask & !(1 << r[0]), 2, &mut r, 1);
        return HighValue::pack(HighClass::Trips, &r[..3]);
    }
    match by_count[2].count_ones() {
        0 => {
            top_ranks(mask, 5.min(mask.count_ones() as usize), &mut r, 0);
            HighValue::pack(HighClass::HighCard, &r)
        }
        1 => {
            top_ranks(by_count[2], 1, &mut r, 0);
            top_ranks(mask & !(1 << r[0]), 3, &mut r, 1);
            HighValue::pack(HighClass::Pair, &r[..4])
        }
        _ => {
            top_ranks(by_count[2], 2, &mut r, 0);
            top_ranks(mask & !(1 << r[0]) & !(1 << r[1]), 1, &mut r, 2);
            HighValue::pack(HighClass::TwoPair, &r[..3])
        }
    }
}

/// Evaluates and also names the five cards used. Among equal choices (a kicker of the same rank in
/// two suits) the higher suit is taken, which matters only for display and stud odd chips.
pub fn high_best_five(cards: CardSet) -> (HighValue, [Card; 5]) {
    let v = high(cards);
    (v, five_for(cards, v, true))
}

/// Picks the cards that realise value `v` from `cards`.
pub(crate) fn five_for(cards: CardSet, v: HighValue, wheel: bool) -> [Card; 5] {
    let class = v.class();
    let ranks = v.ranks();
    let mut out = Vec::with_capacity(5);
    let highest_of = |rank: u8, used: &[Card], suit: Option<Suit>| -> Option<Card> {
        Suit::ALL
            .iter()
            .rev()
            .filter(|s| suit.is_none_or(|t| t == **s))
            .map(|s| Card::new(Rank::from_index(rank), *s))
            .find(|c| cards.contains(*c) && !used.contains(c))
    };
    match class {
        HighClass::Straight | HighClass::StraightFlush => {
            let top = ranks[0];
            let suit = if class == HighClass::StraightFlush {
                Suit::ALL
                    .into_iter()
                    .find(|s| straight_top(cards.suit_ranks(*s), wheel) == Some(top))
            } else {
                None
            };
            for k in 0..5u8 {
                let r = if top == Rank::Five as u8 && k == 4 && wheel {
                    Rank::Ace as u8
                } else {
                    top - k
                };
                out.push(highest_of(r, &out, suit).expect("straight card present"));
            }
        }
        HighClass::Flush => {
            let suit = Suit::ALL
                .into_iter()
                .find(|s| cards.suit_ranks(*s).count_ones() >= 5)
                .expect("flush suit");
            for r in ranks {
                out.push(Card::new(Rank::from_index(r), suit));
            }
        }
        _ => {
            let groups: &[usize] = match class {
                HighClass::Quads => &[4, 1],
                HighClass::FullHouse => &[3, 2],
                HighClass::Trips => &[3, 1, 1],
                HighClass::TwoPair => &[2, 2, 1],
                HighClass::Pair => &[2, 1, 1, 1],
                _ => &[1, 1, 1, 1, 1],
            };
            for (g, n) in groups.iter().enumerate() {
                for _ in 0..*n {
                    if let Some(c) = highest_of(ranks[g], &out, None) {
                        out.push(c);
                    }
                }
            }
        }
    }
    let mut five = [out[0]; 5];
    for (i, c) in out.iter().take(5).enumerate() {
        five[i] = *c;
    }
    five
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_cards;

    fn v(s: &str) -> HighValue {
        high(parse_cards(s).unwrap().iter().collect())
    }

    #[test]
    fn classes_and_order() {
        assert_eq!(v("As Ks Qs Js Ts 2c 2d").class(), HighClass::StraightFlush);
        assert_eq!(v("5s 4s 3s 2s As").class(), HighClass::StraightFlush);
        assert!(v("5s 4s 3s 2s As") < v("6s 5s 4s 3s 2s"));
        assert_eq!(v("As 2d 3c 4h 5s").class(), HighClass::Straight);
        assert!(v("As 2d 3c 4h 5s") < v("2d 3c 4h 5s 6h"));
        assert_eq!(v("Ac Ad Ah Kc Kd Ks 2c").class(), HighClass::FullHouse);
        assert!(v("Ac Ad Ah Kc Kd") > v("Kc Kd Kh Ac Ad"));
        assert!(v("2c 2d 5h 5s 9c") < v("2c 2d 5h 5s Tc"));
        assert_eq!(v("2c 2d 5h 5s 9c 9d Ac").ranks()[..3], [7, 3, 12]);
    }

    #[test]
    fn best_five_names_the_cards() {
        let cards: CardSet = parse_cards("As 2d 3c 4h 5s Kd Kc")
            .unwrap()
            .iter()
            .collect();
        let (val, five) = high_best_five(cards);
        assert_eq!(val.class(), HighClass::Straight);
        let s: CardSet = five.iter().collect();
        assert_eq!(s.to_string(), "2d 3c 4h 5s As");
    }
}
