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

/// The ten tries of [`Pool::deal_bits`] on one random number `r`: each takes the card at the
/// position of the next six bits (from the lowest) when it is in `avail` and clears its bit
/// either way, and counts `k` down on a hit; they stop when `k` reaches 0.
#[inline(always)]
fn tries(avail: &mut u64, k: &mut u64, r: u64) {
    #[cfg(target_arch = "x86_64")]
    {
        // Four instructions a try where the compiler makes seven: `btr` clears the bit and leaves
        // what it was in the carry flag, `sbb` takes that from the count and sets the zero flag
        // when it reaches 0, and the position is the low six bits of `r` as it is shifted (a bit
        // offset in a register is taken modulo 64). The tries are most of the cost of a
        // triple-draw sample. `portable_tries` is the same in Rust (tested against this).
        //
        // SAFETY: registers only: no memory is read or written, no stack is used, and every
        // register written is an operand (the flags are clobbered, which `asm!` assumes).
        unsafe {
            std::arch::asm!(
                "btr {a}, {r}", "sbb {k}, 0", "jz 2f", "shr {r}, 6",
                "btr {a}, {r}", "sbb {k}, 0", "jz 2f", "shr {r}, 6",
                "btr {a}, {r}", "sbb {k}, 0", "jz 2f", "shr {r}, 6",
                "btr {a}, {r}", "sbb {k}, 0", "jz 2f", "shr {r}, 6",
                "btr {a}, {r}", "sbb {k}, 0", "jz 2f", "shr {r}, 6",
                "btr {a}, {r}", "sbb {k}, 0", "jz 2f", "shr {r}, 6",
                "btr {a}, {r}", "sbb {k}, 0", "jz 2f", "shr {r}, 6",
                "btr {a}, {r}", "sbb {k}, 0", "jz 2f", "shr {r}, 6",
                "btr {a}, {r}", "sbb {k}, 0", "jz 2f", "shr {r}, 6",
                "btr {a}, {r}", "sbb {k}, 0",
                "2:",
                a = inout(reg) *avail,
                k = inout(reg) *k,
                r = inout(reg) r => _,
                options(pure, nomem, nostack),
            );
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    portable_tries(avail, k, r);
}

/// [`tries`] in Rust.
#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
#[inline(always)]
fn portable_tries(avail: &mut u64, k: &mut u64, mut r: u64) {
    for _ in 0..10 {
        // A bit test and a bit reset.
        let p = r & 63;
        r >>= 6;
        *k -= *avail >> p & 1;
        *avail &= !(1u64 << p);
        if *k == 0 {
            return;
        }
    }
}

/// The unseen cards. `deal` takes a uniformly random card among those not yet dealt in this
/// sample; `reset` puts them all back.
///
/// Why a mask and rejection rather than a shuffled array: a random card position is kept when
/// still in the pool, which is often (40-odd cards in play), nothing is swapped or copied, and a
/// sample starts over with one store ([`Pool::deal_bits`] has the details). Nearly empty pools
/// (eight-handed draw simulations) are dealt by counting set bits instead.
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
        CardSet::from_bits(self.deal_bits(n))
    }

    /// The cards still undealt in this sample, as a card mask.
    #[inline]
    pub fn avail(&self) -> u64 {
        self.avail
    }

    /// How many cards are still undealt in this sample.
    #[inline]
    pub fn left(&self) -> u32 {
        self.left
    }

    /// `n` random undealt cards as a card mask.
    ///
    /// Why not [`Pool::deal_mask`] `n` times: here the pool and the random bits stay in registers
    /// and a try costs four instructions and no branch but the loop's ([`tries`]). Each try takes
    /// six random bits as a position of the card mask (16 per suit, 64 in all) and keeps the card
    /// when it is undealt, so every undealt card is equally likely and nothing is rounded (no
    /// modulo); a random number serves ten tries, and with more than a dozen cards left well over
    /// one try in five succeeds. A pool that is nearly empty takes the careful path, one card at a
    /// time.
    #[inline(always)]
    pub fn deal_bits(&mut self, n: u32) -> u64 {
        self.deal_bits_in::<false>(n)
    }

    /// [`Pool::deal_bits`] where the caller knows that at least `n + 12` cards are left, so
    /// the careful path is never taken (its test skipped: the same cards, for one
    /// comparison fewer per deal).
    #[inline(always)]
    pub fn deal_bits_roomy(&mut self, n: u32) -> u64 {
        debug_assert!(self.left >= n + 12, "{} cards left for {n}", self.left);
        self.deal_bits_in::<true>(n)
    }

    #[inline(always)]
    fn deal_bits_in<const ROOMY: bool>(&mut self, n: u32) -> u64 {
        if n == 0 {
            return 0;
        }
        if !ROOMY && self.left < n + 12 {
            let mut s = 0;
            for _ in 0..n {
                s |= self.deal_mask();
            }
            return s;
        }
        let mut avail = self.avail;
        let mut k = u64::from(n);
        // Without branches on the outcome of a try (a miss is about as likely as a hit, so a branch
        // would be mispredicted at every other card): a missed card moves nothing. The cards
        // taken are the ones gone from the pool at the end.
        loop {
            tries(&mut avail, &mut k, self.rng.next_u64());
            if k == 0 {
                break;
            }
        }
        let got = self.avail ^ avail;
        self.avail = avail;
        self.left -= n;
        got
    }

    /// `count` random undealt cards of distinct ranks among the ranks `0..=bar` (each uniform among
    /// the undealt cards of the ranks not yet taken; any undealt card when none is left): how the
    /// draw models give an opponent "good" cards. Returns them as a card mask.
    ///
    /// The same rejection as [`Pool::deal_bits`], over the positions of the ranks up to the 9
    /// or up to the king (six bits a try, some rank bits cleared), keeping a card when its rank
    /// is still wanted; after six random numbers' worth of tries (a wanted set of one or two
    /// cards) the rest are chosen by counting.
    #[inline(always)]
    pub fn deal_distinct_low(&mut self, count: u32, bar: u8) -> u64 {
        if count == 0 {
            return 0;
        }
        let spread = LANES * ((1u64 << (u32::from(bar) + 1)) - 1);
        if bar < 8 {
            self.distinct_low::<3>(count, spread)
        } else {
            self.distinct_low::<4>(count, spread)
        }
    }

    /// [`Pool::deal_distinct_low`] with ranks of `RANK_BITS` bits: rounds of tries on one random
    /// number each, the pool checked between rounds.
    #[inline(always)]
    fn distinct_low<const RANK_BITS: u32>(&mut self, count: u32, spread: u64) -> u64 {
        // A try's six bits as a card position, the rank bits above `RANK_BITS` cleared: the
        // suit (bits 4 and 5) and a rank below `1 << RANK_BITS`, in one mask.
        let position = ((1u64 << RANK_BITS) - 1) | 0x30;
        // The cards still eligible, in one mask: a hit strikes out its whole rank (its own card
        // with it), so a try's only dependence on the one before is this mask.
        let mut eligible = self.avail & spread;
        let mut hand = 0u64;
        let mut k = u64::from(count);
        for _ in 0..6 {
            if eligible == 0 {
                // No card of a rank still wanted is left: any cards.
                self.avail ^= hand;
                self.left -= count - k as u32;
                return hand | self.deal_bits(k as u32);
            }
            let mut r = self.rng.next_u64();
            for _ in 0..10 {
                let p = r & position;
                r >>= 6;
                // As in `deal_bits`, a miss moves nothing (no branch on the outcome).
                let hit = eligible >> p & 1;
                hand |= hit << p;
                eligible &= !((LANES << (p & 15)) & 0u64.wrapping_sub(hit));
                k -= hit;
                if k == 0 {
                    self.avail ^= hand;
                    self.left -= count;
                    return hand;
                }
            }
        }
        // A wanted set of one or two cards, missed every time: choose by counting.
        self.avail ^= hand;
        self.left -= count - k as u32;
        let rest;
        (*self, rest) = self.clone().deal_distinct_low_rest(k as u32, eligible);
        hand | rest
    }

    /// The rest of [`Pool::deal_distinct_low`] when the rejection missed too often: the `count`
    /// cards still to deal among the ranks of `spread`, one at a time by counting (rare: the
    /// wanted cards are nearly gone).
    ///
    /// The pool goes in and comes back by value: a reference would make the callers keep their
    /// pool in memory, storing it at every deal of the hot path.
    #[cold]
    fn deal_distinct_low_rest(mut self, count: u32, mut spread: u64) -> (Pool, u64) {
        let mut hand = 0;
        for _ in 0..count {
            let eligible = self.avail & spread;
            let b = if eligible == 0 {
                self.deal_mask()
            } else {
                let b = select(eligible, self.rng.below(eligible.count_ones() as usize));
                self.take(b)
            };
            hand |= b;
            spread &= !(LANES << (b.trailing_zeros() & 15));
        }
        (self, hand)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The dealing tries as compiled (by hand on x86-64) against the same in Rust, from pools
    /// full to nearly empty and every count of cards wanted, whatever the random bits.
    #[test]
    fn tries_equal_their_portable_form() {
        let mut rng = Rng::new(11);
        for case in 0..200_000 {
            let full = CardSet::FULL.bits();
            let avail = full & rng.next_u64() | if case % 3 == 0 { full } else { 0 };
            let k = 1 + rng.below(6) as u64;
            let r = rng.next_u64();
            let (mut a1, mut k1) = (avail, k);
            let (mut a2, mut k2) = (avail, k);
            tries(&mut a1, &mut k1, r);
            portable_tries(&mut a2, &mut k2, r);
            assert_eq!((a1, k1), (a2, k2), "avail {avail:#x}, k {k}, r {r:#x}");
        }
    }
}
