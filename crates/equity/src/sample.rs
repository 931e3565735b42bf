//! The sampler's pieces: a pool of unseen cards kept as a card mask (no allocation, and a sample
//! starts over with one store), and a weighted running mean with its standard error.

use pitboss_cards::{Card, CardSet};

/// The sampler's generator: wyrand (Wang Yi's 64-bit generator; one add and one 64×64→128
/// multiply per number, passes BigCrush and PractRand), seeded through SplitMix64.
///
/// Why not ChaCha8 like the decks: a Monte Carlo equity draws ten to thirty numbers per sample and
/// a query is a thousand samples, so the generator was a third of the time; nothing here needs a
/// cryptographic generator (a bot's own estimate reveals nothing), only a good and fast one.
#[derive(Clone, Copy)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        // SplitMix64 once, so that nearby seeds start far apart.
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Rng(z ^ (z >> 31))
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0xa076_1d64_78bd_642f);
        let t = u128::from(self.0) * u128::from(self.0 ^ 0xe703_7ed1_a0b4_28db);
        (t >> 64) as u64 ^ t as u64
    }

    /// A uniform number below `n` (multiply-high; the bias is below 2^-58 for a deck's sizes).
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// Every card's bit in a [`CardSet`], by `suit * 13 + rank`.
const BIT: [u64; 52] = {
    let mut b = [0u64; 52];
    let mut i = 0;
    while i < 52 {
        b[i] = 1 << (16 * (i / 13) + i % 13);
        i += 1;
    }
    b
};

/// A card's bit in each of the four suit lanes: `LANES << r` is every card of rank `r`.
pub const LANES: u64 = 0x0001_0001_0001_0001;

/// The `k`-th (from 0) lowest set bit of `mask`, which has more than `k` bits.
#[inline]
fn select(mut mask: u64, k: usize) -> u64 {
    for _ in 0..k {
        mask &= mask - 1;
    }
    mask & mask.wrapping_neg()
}

/// The unseen cards. `deal` takes a uniformly random card among those not yet dealt in this
/// sample; `reset` puts them all back.
///
/// Why a mask and rejection rather than a shuffled array: a random card id is accepted when still
/// in the pool, which is most of the time (40-odd of 52 cards in play), so the branch is
/// predictable and nothing is swapped or copied; a sample starts over with one store. Nearly
/// empty pools (eight-handed draw simulations) are dealt by counting set bits instead.
#[derive(Clone)]
pub struct Pool {
    full: u64,
    avail: u64,
    left: u32,
    total: u32,
    pub rng: Rng,
}

impl Pool {
    pub fn new(unseen: CardSet, seed: u64) -> Pool {
        Pool {
            full: unseen.bits(),
            avail: unseen.bits(),
            left: unseen.len(),
            total: unseen.len(),
            rng: Rng::new(seed),
        }
    }

    #[inline]
    pub fn reset(&mut self) {
        self.avail = self.full;
        self.left = self.total;
    }

    /// The mask of a random undealt card. When the pool runs dry (big multiway draw simulations),
    /// it starts over: the real game would reshuffle the discards, which this approximates.
    #[inline]
    fn deal_mask(&mut self) -> u64 {
        if self.left < 13 {
            if self.left == 0 {
                self.reset();
            }
            if self.left < 13 {
                let b = select(self.avail, self.rng.below(self.left as usize));
                return self.take(b);
            }
        }
        loop {
            let r = self.rng.next_u64();
            for half in [r & 0xffff_ffff, r >> 32] {
                let b = BIT[((half * 52) >> 32) as usize];
                if self.avail & b != 0 {
                    return self.take(b);
                }
            }
        }
    }

    #[inline]
    fn take(&mut self, b: u64) -> u64 {
        self.avail ^= b;
        self.left -= 1;
        b
    }

    /// A random undealt card.
    #[inline]
    pub fn deal(&mut self) -> Card {
        CardSet::from_bits(self.deal_mask())
            .iter()
            .next()
            .expect("one card")
    }

    /// `n` random undealt cards as a set.
    #[inline]
    pub fn deal_set(&mut self, n: u32) -> CardSet {
        let mut s = 0;
        for _ in 0..n {
            s |= self.deal_mask();
        }
        CardSet::from_bits(s)
    }

    /// `count` random undealt cards of distinct ranks among the ranks `0..=bar` (each uniform among
    /// the undealt cards of the ranks not yet taken; any undealt card when none is left): how the
    /// draw models give an opponent "good" cards. Returns them as a card mask.
    #[inline]
    pub fn deal_distinct_low(&mut self, count: u32, bar: u8) -> u64 {
        let mut list = [0u8; 13];
        let mut n = usize::from(bar) + 1;
        for (i, r) in list.iter_mut().enumerate().take(n) {
            *r = i as u8;
        }
        let mut spread = LANES * ((1u64 << n) - 1);
        let mut hand = 0u64;
        for _ in 0..count {
            let eligible = self.avail & spread;
            let b = if eligible == 0 {
                self.deal_mask()
            } else {
                let b = self.pick(eligible, &list[..n]);
                self.take(b)
            };
            hand |= b;
            let r = (b.trailing_zeros() & 15) as u8;
            spread &= !(LANES << r);
            if let Some(i) = list[..n].iter().position(|x| *x == r) {
                list.swap(i, n - 1);
                n -= 1;
            }
        }
        hand
    }

    /// A uniform card of the non-empty mask `eligible`, whose cards all have ranks in `ranks`:
    /// rejection over the cards of those ranks, then counting if unlucky.
    #[inline]
    fn pick(&mut self, eligible: u64, ranks: &[u8]) -> u64 {
        for _ in 0..8 {
            let i = self.rng.below(4 * ranks.len());
            let b = 1u64 << (16 * (i & 3) + usize::from(ranks[i >> 2]));
            if eligible & b != 0 {
                return b;
            }
        }
        let k = eligible.count_ones() as usize;
        select(eligible, self.rng.below(k))
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
