//! A set of cards as a 64-bit mask: bit `suit * 16 + rank`. Sixteen bits per suit make the rank
//! mask of one suit a shift and a mask, which the evaluators use for flushes and straights.

use std::fmt;

use crate::{Card, Rank, Suit};

/// A set of distinct cards. Copy, allocation-free, and iterated in card order (2c 2d 2h 2s 3c ...).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CardSet(u64);

const SUIT_BITS: u32 = 16;
const RANK_MASK: u64 = 0x1fff;

impl CardSet {
    /// The empty set.
    pub const EMPTY: CardSet = CardSet(0);
    /// All 52 cards.
    pub const FULL: CardSet = CardSet(
        RANK_MASK
            | RANK_MASK << SUIT_BITS
            | RANK_MASK << (2 * SUIT_BITS)
            | RANK_MASK << (3 * SUIT_BITS),
    );

    #[inline]
    const fn bit(card: Card) -> u64 {
        1u64 << (card.suit() as u32 * SUIT_BITS + card.rank() as u32)
    }

    /// The raw mask (bit `suit * 16 + rank`).
    #[inline]
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// Builds a set from a raw mask; bits outside the 52 card positions are dropped.
    #[inline]
    pub const fn from_bits(bits: u64) -> CardSet {
        CardSet(bits & CardSet::FULL.0)
    }

    #[inline]
    pub const fn contains(self, card: Card) -> bool {
        self.0 & CardSet::bit(card) != 0
    }

    /// Adds a card; returns false if it was already present.
    #[inline]
    pub fn insert(&mut self, card: Card) -> bool {
        let had = self.contains(card);
        self.0 |= CardSet::bit(card);
        !had
    }

    /// Removes a card; returns false if it was absent.
    #[inline]
    pub fn remove(&mut self, card: Card) -> bool {
        let had = self.contains(card);
        self.0 &= !CardSet::bit(card);
        had
    }

    #[inline]
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[inline]
    pub const fn union(self, other: CardSet) -> CardSet {
        CardSet(self.0 | other.0)
    }

    #[inline]
    pub const fn intersection(self, other: CardSet) -> CardSet {
        CardSet(self.0 & other.0)
    }

    #[inline]
    pub const fn difference(self, other: CardSet) -> CardSet {
        CardSet(self.0 & !other.0)
    }

    /// The 13-bit mask of ranks present in `suit` (bit = rank index).
    #[inline]
    pub const fn suit_ranks(self, suit: Suit) -> u16 {
        ((self.0 >> (suit as u32 * SUIT_BITS)) & RANK_MASK) as u16
    }

    /// The 13-bit mask of ranks present in any suit.
    #[inline]
    pub const fn rank_mask(self) -> u16 {
        let b = self.0;
        ((b | b >> SUIT_BITS | b >> (2 * SUIT_BITS) | b >> (3 * SUIT_BITS)) & RANK_MASK) as u16
    }

    /// How many cards of `rank` the set holds (0 to 4).
    #[inline]
    pub const fn rank_count(self, rank: Rank) -> u32 {
        let b = self.0 >> rank as u32;
        ((b & 1) + (b >> SUIT_BITS & 1) + (b >> (2 * SUIT_BITS) & 1) + (b >> (3 * SUIT_BITS) & 1))
            as u32
    }

    /// The cards, one bit scan each: suit by suit (clubs first), deuce to ace within a suit. Use
    /// [`CardSet::sorted`] for card order.
    #[inline]
    pub fn iter(self) -> impl Iterator<Item = Card> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let b = bits.trailing_zeros();
            bits &= bits - 1;
            Some(Card::new(
                Rank::from_index((b % SUIT_BITS) as u8),
                Suit::from_index((b / SUIT_BITS) as u8),
            ))
        })
    }

    /// The cards in card order (rank, then suit: 2c 2d 2h 2s 3c ...), as people read them.
    pub fn sorted(self) -> impl Iterator<Item = Card> {
        Card::all().filter(move |c| self.contains(*c))
    }
}

impl FromIterator<Card> for CardSet {
    fn from_iter<I: IntoIterator<Item = Card>>(iter: I) -> CardSet {
        let mut s = CardSet::EMPTY;
        for c in iter {
            s.insert(c);
        }
        s
    }
}

impl<'a> FromIterator<&'a Card> for CardSet {
    fn from_iter<I: IntoIterator<Item = &'a Card>>(iter: I) -> CardSet {
        iter.into_iter().copied().collect()
    }
}

impl fmt::Debug for CardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CardSet({self})")
    }
}

impl fmt::Display for CardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for c in self.sorted() {
            if !first {
                f.write_str(" ")?;
            }
            first = false;
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_set_has_52_cards_in_order() {
        assert_eq!(CardSet::FULL.len(), 52);
        let v: Vec<Card> = CardSet::FULL.sorted().collect();
        assert_eq!(v, Card::all().collect::<Vec<_>>());
        let mut w: Vec<Card> = CardSet::FULL.iter().collect();
        w.sort();
        assert_eq!(v, w);
    }

    #[test]
    fn masks() {
        let s: CardSet = crate::parse_cards("As Ah 2c 7s").unwrap().iter().collect();
        assert_eq!(s.rank_count(Rank::Ace), 2);
        assert_eq!(s.rank_mask(), 1 << 12 | 1 | 1 << 5);
        assert_eq!(s.suit_ranks(Suit::Spades), 1 << 12 | 1 << 5);
        let mut t = s;
        assert!(!t.insert("As".parse().unwrap()));
        assert!(t.remove("As".parse().unwrap()));
        assert_eq!(t.len(), 3);
    }
}
