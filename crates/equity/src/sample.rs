//! The sampler's pieces: a pool of unseen cards dealt by partial Fisher-Yates (no allocation per
//! sample), and a weighted running mean with its standard error.

use pitboss_cards::{Card, CardSet};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

/// The unseen cards. `deal` takes a uniformly random card among those not yet dealt in this
/// sample; `reset` puts them all back (the order left behind is still a permutation, so sampling
/// stays uniform without re-copying).
pub struct Pool {
    cards: [Card; 52],
    len: usize,
    next: usize,
    pub rng: ChaCha8Rng,
}

impl Pool {
    pub fn new(unseen: CardSet, seed: u64) -> Pool {
        let mut cards = [Card::from_index(0); 52];
        let mut len = 0;
        for c in unseen.iter() {
            cards[len] = c;
            len += 1;
        }
        Pool {
            cards,
            len,
            next: 0,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    #[inline]
    pub fn reset(&mut self) {
        self.next = 0;
    }

    #[inline]
    fn below(&mut self, n: usize) -> usize {
        ((u64::from(self.rng.next_u32()) * n as u64) >> 32) as usize
    }

    /// A random undealt card. When the pool runs dry (big multiway draw simulations), it starts
    /// over: the real game would reshuffle the discards, which this approximates.
    #[inline]
    pub fn deal(&mut self) -> Card {
        if self.next >= self.len {
            self.next = 0;
        }
        let j = self.next + self.below(self.len - self.next);
        self.cards.swap(self.next, j);
        self.next += 1;
        self.cards[self.next - 1]
    }

    /// `n` random undealt cards as a set.
    #[inline]
    pub fn deal_set(&mut self, n: u32) -> CardSet {
        let mut s = CardSet::EMPTY;
        for _ in 0..n {
            s.insert(self.deal());
        }
        s
    }

    /// A random undealt card satisfying `ok`, tried a few times, else any card: how the draw
    /// models give an opponent "good" cards without scanning the pool.
    #[inline]
    pub fn deal_where(&mut self, ok: impl Fn(Card) -> bool) -> Card {
        if self.next >= self.len {
            self.next = 0;
        }
        for _ in 0..24 {
            let j = self.next + self.below(self.len - self.next);
            if ok(self.cards[j]) {
                self.cards.swap(self.next, j);
                self.next += 1;
                return self.cards[self.next - 1];
            }
        }
        self.deal()
    }
}

/// A weighted running mean of several quantities, with the standard error of one of them.
pub struct Tally<const N: usize> {
    pub sum: [f64; N],
    pub sum_sq0: f64,
    pub w: f64,
    pub w2: f64,
    pub n: u64,
}

impl<const N: usize> Tally<N> {
    pub fn new() -> Tally<N> {
        Tally {
            sum: [0.0; N],
            sum_sq0: 0.0,
            w: 0.0,
            w2: 0.0,
            n: 0,
        }
    }

    /// Adds one outcome with weight `w`; `x[0]` is the quantity whose error is reported.
    #[inline]
    pub fn add(&mut self, w: f64, x: [f64; N]) {
        for (s, v) in self.sum.iter_mut().zip(x) {
            *s += w * v;
        }
        self.sum_sq0 += w * x[0] * x[0];
        self.w += w;
        self.w2 += w * w;
        self.n += 1;
    }

    pub fn means(&self) -> [f64; N] {
        self.sum.map(|s| s / self.w)
    }

    /// The standard error of the mean of `x[0]`, using the effective sample size of the weights.
    pub fn std_err(&self) -> f64 {
        let m = self.sum[0] / self.w;
        let var = (self.sum_sq0 / self.w - m * m).max(0.0);
        let n_eff = self.w * self.w / self.w2;
        if n_eff <= 1.0 {
            return var.sqrt();
        }
        (var * n_eff / (n_eff - 1.0) / n_eff).sqrt()
    }
}
