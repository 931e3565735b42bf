//! The two low evaluators: deuce-to-seven (five cards) and ace-to-five eight-or-better (5 to 7).

use std::fmt;

use super::high::{five_for, HighClass, HighValue};
use super::tables::tables;
use crate::{Card, CardSet, Rank, Suit};

/// A deuce-to-seven low: the inverse of the hand's high value with aces always high, so that
/// larger = better. 7-5-4-3-2 of two or more suits is the best hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DeuceSevenValue(u32);

const HIGH_SPACE: u32 = 1 << 24;

impl DeuceSevenValue {
    /// The ordering integer (larger = better).
    #[inline]
    pub const fn get(self) -> u32 {
        self.0
    }

    /// The hand's category as a high hand (a low is good when it is `HighCard`).
    pub fn class(self) -> HighClass {
        HighValue(HIGH_SPACE - 1 - self.0).class()
    }
}

/// Packed high values of A-2-3-4-5 under the two readings of docs/RULES.md: as the five-high straight
/// (and straight flush) the tables hold, and as ace-high no-pair hands.
const WHEEL_STRAIGHT: u32 = (HighClass::Straight as u32) << 20 | (Rank::Five as u32) << 16;
const WHEEL_STRAIGHT_FLUSH: u32 =
    (HighClass::StraightFlush as u32) << 20 | (Rank::Five as u32) << 16;
const NUT_ACE: u32 = (HighClass::HighCard as u32) << 20 | 0xc_3210;
const NUT_ACE_FLUSH: u32 = (HighClass::Flush as u32) << 20 | 0xc_3210;

/// Evaluates exactly five cards as a deuce-to-seven low. With `ace_five_straight`, A-2-3-4-5 is a
/// five-high straight (table option); by default it is an ace-high no-pair hand.
///
/// The fast path: a flush is five cards in the lowest occupied suit lane; otherwise the rank
/// multiset goes through the high evaluator's perfect hash. The only hand the two table options
/// disagree on is A-2-3-4-5, patched after the lookup.
#[inline]
pub fn deuce_to_seven(cards: CardSet, ace_five_straight: bool) -> DeuceSevenValue {
    debug_assert_eq!(cards.len(), 5);
    let t = tables();
    let b = cards.bits();
    let lane = b.trailing_zeros() & 48;
    let mut hv = if b >> lane <= 0x1fff {
        t.flush[(b >> lane) as usize]
    } else {
        t.by_key(t.key(b))
    };
    if !ace_five_straight {
        if hv == WHEEL_STRAIGHT {
            hv = NUT_ACE;
        } else if hv == WHEEL_STRAIGHT_FLUSH {
            hv = NUT_ACE_FLUSH;
        }
    }
    DeuceSevenValue(HIGH_SPACE - 1 - hv)
}

/// An ace-to-five eight-or-better low: `255 - mask` of the five ranks used (ace = bit 0, deuce =
/// bit 1, ..., eight = bit 7), so a lower low has a larger value. The wheel is the best.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AceFiveValue(u8);

impl AceFiveValue {
    /// The ordering integer (larger = better).
    #[inline]
    pub const fn get(self) -> u32 {
        self.0 as u32
    }

    /// The five ranks, highest first, ace as `Rank::Ace`.
    pub fn ranks(self) -> [Rank; 5] {
        let mask = 255 - self.0;
        let mut out = [Rank::Ace; 5];
        let mut i = 0;
        for bit in (0..8).rev() {
            if mask & (1 << bit) != 0 {
                out[i] = if bit == 0 {
                    Rank::Ace
                } else {
                    Rank::from_index(bit - 1)
                };
                i += 1;
            }
        }
        out
    }

    /// The class name: "eight low", "seven low", "six low" or "five low" (the wheel).
    pub fn class_name(self) -> &'static str {
        match self.ranks()[0] {
            Rank::Eight => "eight low",
            Rank::Seven => "seven low",
            Rank::Six => "six low",
            _ => "five low",
        }
    }
}

impl fmt::Display for AceFiveValue {
    /// Written as the ranks, highest first: `8-6-4-3-A`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self.ranks();
        write!(
            f,
            "{}-{}-{}-{}-{}",
            r[0].to_char(),
            r[1].to_char(),
            r[2].to_char(),
            r[3].to_char(),
            r[4].to_char()
        )
    }
}

/// The low-rank mask of a set: ace at bit 0, deuce..eight at bits 1..7.
#[inline]
fn low_mask(cards: CardSet) -> u8 {
    let m = cards.rank_mask();
    (((m << 1) & 0xfe) | (m >> 12 & 1)) as u8
}

/// Evaluates the best qualifying ace-to-five low of 5 to 7 cards; `None` if there is none. One
/// lookup in a 256-entry table by the mask of ranks eight or lower.
#[inline]
pub fn ace_to_five_8(cards: CardSet) -> Option<AceFiveValue> {
    match tables().a5[usize::from(low_mask(cards))] {
        0 => None,
        v => Some(AceFiveValue(v)),
    }
}

/// [`ace_to_five_8`] of any set whose 13-bit rank mask is `rank_mask` (the low depends on the
/// ranks only), for callers that enumerate rank patterns.
#[inline]
pub fn ace_to_five_8_of_ranks(rank_mask: u16) -> Option<AceFiveValue> {
    ace_to_five_8(CardSet::from_bits(u64::from(rank_mask & 0x1fff)))
}

/// As [`ace_to_five_8`], also naming the five cards used (highest suit where a rank repeats).
pub fn ace_to_five_8_best_five(cards: CardSet) -> Option<(AceFiveValue, [Card; 5])> {
    let v = ace_to_five_8(cards)?;
    let mut five = [Card::from_index(0); 5];
    for (slot, rank) in five.iter_mut().zip(v.ranks()) {
        *slot = Suit::ALL
            .iter()
            .rev()
            .map(|s| Card::new(rank, *s))
            .find(|c| cards.contains(*c))
            .expect("rank present");
    }
    Some((v, five))
}

/// As [`deuce_to_seven`], also giving the five cards in display order (highest group first).
pub fn deuce_to_seven_best_five(
    cards: CardSet,
    ace_five_straight: bool,
) -> (DeuceSevenValue, [Card; 5]) {
    let v = deuce_to_seven(cards, ace_five_straight);
    let hv = HighValue(HIGH_SPACE - 1 - v.0);
    (v, five_for(cards, hv, ace_five_straight))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_cards;

    fn set(s: &str) -> CardSet {
        parse_cards(s).unwrap().iter().collect()
    }

    #[test]
    fn deuce_to_seven_edges() {
        let d = |s: &str| deuce_to_seven(set(s), false);
        assert!(d("7c 5d 4h 3s 2c") > d("7c 6d 4h 3s 2c"));
        assert!(d("7c 5c 4c 3c 2c") < d("7c 5d 4h 3s 2c"), "a flush is bad");
        assert!(
            d("6c 5d 4h 3s 2c") < d("Ac Kd Qh Js 9c"),
            "a straight is bad"
        );
        assert!(
            d("Ac 2d 3h 4s 5c") > d("Ac Kd Qh Js 9c"),
            "nut ace beats A-K"
        );
        assert_eq!(d("Ac 2d 3h 4s 5c").class(), HighClass::HighCard);
        let s = deuce_to_seven(set("Ac 2d 3h 4s 5c"), true);
        assert_eq!(s.class(), HighClass::Straight);
        assert!(s < d("2c 2d 3h 4s 5c"));
        assert!(d("2c 2d 3h 4s 5c") < d("Ac Kd Qh Js 9c"));
        assert_eq!(
            deuce_to_seven_best_five(set("Ac 2d 3h 4s 5c"), true).1[4].rank(),
            Rank::Ace
        );
    }

    #[test]
    fn ace_to_five_edges() {
        let a = |s: &str| ace_to_five_8(set(s));
        assert_eq!(a("Ac 2d 3h 4s 5c").unwrap().to_string(), "5-4-3-2-A");
        assert!(a("8c 6d 4h 3s 2c") > a("8c 7d 3h 2s Ac"));
        assert_eq!(a("8c 7d 6h 5s 4c").unwrap().class_name(), "eight low");
        assert!(a("8c 7d 6h 5s 4c") < a("8c 7d 6h 5s 3c"));
        assert_eq!(a("9c 7d 6h 5s 4c"), None);
        assert_eq!(a("Ac Ad 2h 3s 4c 4d Kc"), None, "pairs never count");
        assert_eq!(a("Ac Ad 2h 3s 4c 7d Kc").unwrap().to_string(), "7-4-3-2-A");
        let (_, five) = ace_to_five_8_best_five(set("Ac Ad 2h 3s 4c 7d Kc")).unwrap();
        assert_eq!(five[4].to_string(), "Ad");
    }
}
