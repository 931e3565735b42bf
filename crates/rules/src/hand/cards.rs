//! A seat's cards in the order received, in a fixed array (no allocation per hand).

use pitboss_cards::{Card, CardSet};

/// Up to seven cards in dealing order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cards {
    cards: [Card; 7],
    len: u8,
    set: CardSet,
}

impl Cards {
    pub const EMPTY: Cards = Cards {
        cards: [Card::from_index(0); 7],
        len: 0,
        set: CardSet::EMPTY,
    };

    #[inline]
    pub fn push(&mut self, c: Card) {
        self.cards[usize::from(self.len)] = c;
        self.len += 1;
        self.set.insert(c);
    }

    #[inline]
    pub fn as_slice(&self) -> &[Card] {
        &self.cards[..usize::from(self.len)]
    }

    #[inline]
    pub fn set(&self) -> CardSet {
        self.set
    }

    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Removes every card in `set`, keeping the others in order.
    pub fn remove_all(&mut self, set: CardSet) {
        let mut k = 0;
        for i in 0..usize::from(self.len) {
            let c = self.cards[i];
            if !set.contains(c) {
                self.cards[k] = c;
                k += 1;
            }
        }
        self.len = k as u8;
        self.set = self.set.difference(set);
    }
}
