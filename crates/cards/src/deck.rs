//! Seeded decks. The deck of hand `k` of a match is a pure function of a 256-bit [`DeckKey`] and `k`:
//!
//! 1. a ChaCha8 generator is keyed by the key and its stream is set to `k` (`set_stream(k)`), so
//!    every hand has an independent, random-access stream. The key is either
//!    - [`DeckKey::from_seed`]: rand_core's documented PCG32 expansion of a 64-bit seed
//!      (`ChaCha8Rng::seed_from_u64(seed)`) — anyone who knows or guesses the seed knows every
//!      deck, so this is for in-process bots only; or
//!    - [`DeckKey::salted`]: the first 32 bytes of the ChaCha20 stream `seed` under a secret
//!      256-bit [`Salt`] as key — without the salt no deck can be derived from the seed;
//! 2. cards are dealt lazily by a partial Fisher–Yates shuffle over the 52 cards in index order
//!    (2c 2d 2h 2s 3c ... As): the i-th card dealt is drawn uniformly from the cards not yet dealt,
//!    using one `next_u32` and Lemire's multiply-shift with rejection (exactly uniform).
//!
//! Dealing lazily costs only the cards a hand uses (a heads-up triple-draw hand needs about 35),
//! and the i-th card out of the deck does not depend on who receives it, which is what duplicate
//! matches need. A reshuffle (triple draw running out of cards) continues with the same generator.

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::{ChaCha20Rng, ChaCha8Rng};

use crate::{Card, CardSet};

/// A secret 256-bit value mixed into the deck key (see the module docs). Written as 64 lowercase
/// hexadecimal digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Salt(pub [u8; 32]);

/// A salt that is not 64 hexadecimal digits.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a salt (64 hexadecimal digits)")]
pub struct BadSalt(pub String);

impl Salt {
    /// 256 bits from the operating system's random source (`/dev/urandom`).
    ///
    /// # Errors
    /// The I/O error when the random source cannot be read.
    pub fn random() -> std::io::Result<Salt> {
        use std::io::Read;
        let mut b = [0u8; 32];
        std::fs::File::open("/dev/urandom")?.read_exact(&mut b)?;
        Ok(Salt(b))
    }

    /// Parses 64 hexadecimal digits.
    ///
    /// # Errors
    /// [`BadSalt`] for anything else.
    pub fn parse(s: &str) -> Result<Salt, BadSalt> {
        let bad = || BadSalt(s.to_string());
        if s.len() != 64 || !s.is_ascii() {
            return Err(bad());
        }
        let mut b = [0u8; 32];
        for (i, x) in b.iter_mut().enumerate() {
            *x = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
        }
        Ok(Salt(b))
    }
}

impl std::fmt::Display for Salt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl std::fmt::Debug for Salt {
    /// Never prints the secret itself (logs and error messages may end up where bots can read).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Salt(..)")
    }
}

impl serde::Serialize for Salt {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Salt {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Salt, D::Error> {
        let s = String::deserialize(d)?;
        Salt::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// The 256-bit key of a match's decks (see the module docs). Derive it once per match or block:
/// [`Deck::with_key`] then costs one ChaCha8 setup per hand.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct DeckKey([u8; 32]);

impl DeckKey {
    /// The unsalted key of `seed`: public, for matches of in-process bots only.
    pub fn from_seed(seed: u64) -> DeckKey {
        DeckKey(ChaCha8Rng::seed_from_u64(seed).get_seed())
    }

    /// The key of `seed` under a secret salt: ChaCha20 keyed by the salt, stream `seed`, first 32
    /// bytes.
    pub fn salted(seed: u64, salt: &Salt) -> DeckKey {
        let mut rng = ChaCha20Rng::from_seed(salt.0);
        rng.set_stream(seed);
        let mut k = [0u8; 32];
        rng.fill_bytes(&mut k);
        DeckKey(k)
    }

    /// Salted when a salt is given, else [`DeckKey::from_seed`].
    pub fn new(seed: u64, salt: Option<&Salt>) -> DeckKey {
        salt.map_or_else(|| DeckKey::from_seed(seed), |s| DeckKey::salted(seed, s))
    }

    /// A 64-bit seed for random choices of the referee other than the deal (the luck estimator's
    /// sampler): ChaCha8 under the key on a stream no hand uses, so it is as secret as the decks
    /// and independent of them.
    pub fn side_seed(&self) -> u64 {
        let mut rng = ChaCha8Rng::from_seed(self.0);
        rng.set_stream(u64::MAX);
        rng.next_u64()
    }
}

impl std::fmt::Debug for DeckKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DeckKey(..)")
    }
}

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
    /// The deck of hand `hand` of a match played with `seed` and no salt (see the module docs):
    /// `Deck::with_key(&DeckKey::from_seed(seed), hand)`.
    pub fn for_hand(seed: u64, hand: u64) -> Deck {
        Deck::with_key(&DeckKey::from_seed(seed), hand)
    }

    /// The deck of hand `hand` under `key`.
    #[inline]
    pub fn with_key(key: &DeckKey, hand: u64) -> Deck {
        let mut rng = ChaCha8Rng::from_seed(key.0);
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
    fn keys_unsalted_salted() {
        // The unsalted key is the old `seed_from_u64` expansion: decks of saved seeds stay valid.
        let mut old = ChaCha8Rng::seed_from_u64(7);
        old.set_stream(3);
        let mut new = ChaCha8Rng::from_seed(DeckKey::from_seed(7).0);
        new.set_stream(3);
        assert_eq!(old.next_u64(), new.next_u64());
        let a = Salt([1; 32]);
        let b = Salt([2; 32]);
        let deck = |k: DeckKey| deal_all(Deck::with_key(&k, 3));
        assert_eq!(deck(DeckKey::salted(7, &a)), deck(DeckKey::salted(7, &a)));
        assert_ne!(deck(DeckKey::salted(7, &a)), deck(DeckKey::salted(7, &b)));
        assert_ne!(deck(DeckKey::salted(7, &a)), deck(DeckKey::salted(8, &a)));
        assert_ne!(deck(DeckKey::salted(7, &a)), deck(DeckKey::from_seed(7)));
        assert_eq!(DeckKey::new(7, None), DeckKey::from_seed(7));
    }

    #[test]
    fn salt_text_round_trip() {
        let s = Salt::random().unwrap();
        assert_ne!(s, Salt::random().unwrap());
        let text = s.to_string();
        assert_eq!(text.len(), 64);
        assert_eq!(Salt::parse(&text), Ok(s));
        assert!(Salt::parse("00").is_err());
        assert!(Salt::parse(&"g".repeat(64)).is_err());
        assert_eq!(format!("{s:?}"), "Salt(..)");
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
