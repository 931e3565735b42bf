//! Seeded decks. The deck of hand `k` of a match is a pure function of `(seed, k)`:
//!
//! 1. a ChaCha8 generator is keyed by `ChaCha8Rng::seed_from_u64(seed)` (rand_core's documented
//!    PCG32 expansion of the 64-bit seed into the 256-bit key), and its stream is set to `k`
//!    (`set_stream(k)`), so every hand has an independent, random-access stream;
//! 2. cards are dealt lazily by a partial Fisher–Yates shuffle over the 52 cards in index order
//!    (2c 2d 2h 2s 3c ... As): the i-th card dealt is drawn uniformly from the cards not yet dealt,
//!    using one `next_u32` and Lemire's multiply-shift with rejection (exactly uniform).
//!
//! Dealing lazily costs only the cards a hand uses (a heads-up triple-draw hand needs about 35),
//! and the i-th card out of the deck does not depend on who receives it, which is what duplicate
//! matches need. A reshuffle (triple draw running out of cards) continues with the same generator.

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::{Card, CardSet};

/// A stub of cards with its own seeded generator.
#[derive(Clone, Debug)]
pub struct Deck {
    cards: [Card; 52],
    /// Cards `next..len` are still in the stub, in no particular order until drawn.
    next: u8,
    len: u8,
    rng: ChaCha8Rng,
}

impl Deck {
    /// The deck of hand `hand` of a match played with `seed` (see the module docs).
    pub fn for_hand(seed: u64, hand: u64) -> Deck {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(hand);
        let mut cards = [Card::from_index(0); 52];
        for (i, c) in cards.iter_mut().enumerate() {
            *c = Card::from_index(i as u8);
        }
        Deck {
            cards,
            next: 0,
            len: 52,
            rng,
        }
    }

    /// How many cards are left in the stub.
    #[inline]
    pub fn remaining(&self) -> usize {
        usize::from(self.len - self.next)
    }

    /// The cards still in the stub.
    pub fn stub(&self) -> CardSet {
        self.cards[usize::from(self.next)..usize::from(self.len)]
            .iter()
            .collect()
    }

    /// Deals the next card, or `None` when the stub is empty.
    #[inline]
    pub fn deal(&mut self) -> Option<Card> {
        let n = u32::from(self.len - self.next);
        if n == 0 {
            return None;
        }
        let j = usize::from(self.next) + self.below(n) as usize;
        let i = usize::from(self.next);
        self.cards.swap(i, j);
        self.next += 1;
        Some(self.cards[i])
    }

    /// Replaces the stub by `cards` (the muck gathered for a reshuffle); later deals draw from them
    /// uniformly with the same generator.
    pub fn reshuffle(&mut self, cards: CardSet) {
        let mut len = 0u8;
        for c in cards.iter() {
            self.cards[usize::from(len)] = c;
            len += 1;
        }
        self.next = 0;
        self.len = len;
    }

    /// A uniform integer in `0..n` (Lemire, "Fast random integer generation in an interval").
    #[inline]
    fn below(&mut self, n: u32) -> u32 {
        loop {
            let m = u64::from(self.rng.next_u32()) * u64::from(n);
            let low = m as u32;
            if low >= n || low >= n.wrapping_neg() % n {
                return (m >> 32) as u32;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deal_all(mut d: Deck) -> Vec<Card> {
        std::iter::from_fn(|| d.deal()).collect()
    }

    #[test]
    fn a_deck_is_a_permutation_and_reproducible() {
        let a = deal_all(Deck::for_hand(7, 3));
        assert_eq!(a.len(), 52);
        assert_eq!(a.iter().collect::<CardSet>(), CardSet::FULL);
        assert_eq!(a, deal_all(Deck::for_hand(7, 3)));
        assert_ne!(a, deal_all(Deck::for_hand(7, 4)));
        assert_ne!(a, deal_all(Deck::for_hand(8, 3)));
    }

    #[test]
    fn reshuffle_deals_exactly_the_given_cards() {
        let mut d = Deck::for_hand(1, 1);
        let first: CardSet = (0..50).map(|_| d.deal().unwrap()).collect();
        assert_eq!(d.remaining(), 2);
        let muck = CardSet::FULL
            .difference(first)
            .union(first.iter().take(5).collect());
        let stub_before = d.stub();
        d.reshuffle(first.iter().take(5).collect());
        assert_eq!(d.remaining(), 5);
        let got: CardSet = std::iter::from_fn(|| d.deal()).collect();
        assert_eq!(got.union(stub_before), muck);
        assert_eq!(d.deal(), None);
    }

    #[test]
    fn first_card_is_roughly_uniform() {
        let mut counts = [0u32; 52];
        for k in 0..52_000 {
            counts[Deck::for_hand(42, k).deal().unwrap().index() as usize] += 1;
        }
        // Expected 1000 each; a 6-sigma band (sd ~ 31) cannot fail by chance in practice.
        assert!(
            counts.iter().all(|&c| (800..1200).contains(&c)),
            "{counts:?}"
        );
    }
}
