//! Which hands are replayed: a uniform random sample drawn with the server's own randomness after
//! the result has arrived, so that a worker cannot know which of its hands will be looked at and
//! forging any one of them is a gamble on the whole result.

use std::collections::BTreeSet;

/// How many hands are replayed: at least `min`, at least `fraction` of the hands, never more
/// than the match has.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sampling {
    pub min: u64,
    pub fraction: f64,
}

impl Default for Sampling {
    /// 64 hands or 2%, whichever is more: a 20,000-hand ladder match replays 400 hands (a few
    /// milliseconds), and a result with 1% of its hands forged escapes with probability
    /// 0.99^400 ≈ 2%.
    fn default() -> Sampling {
        Sampling {
            min: 64,
            fraction: 0.02,
        }
    }
}

impl Sampling {
    /// The sample's size for a match of `hands` hands.
    pub fn size(&self, hands: u64) -> u64 {
        let part = (self.fraction.clamp(0.0, 1.0) * hands as f64).ceil() as u64;
        part.max(self.min).min(hands)
    }
}

/// SplitMix64: a small generator is enough once it is seeded from the operating system; the
/// worker never sees the seed.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..=hi` (Lemire's multiply-shift; the bias is below 2^-40 for any match).
    fn upto(&mut self, hi: u64) -> u64 {
        ((u128::from(self.next()) * (u128::from(hi) + 1)) >> 64) as u64
    }
}

/// `size` distinct hands of `0..hands`, in increasing order, chosen uniformly from `seed`
/// (Floyd's algorithm: `size` draws whatever the match's length).
pub fn sample(hands: u64, size: u64, seed: u64) -> Vec<u64> {
    let size = size.min(hands);
    let mut rng = Mix(seed);
    let mut set = BTreeSet::new();
    for j in hands - size..hands {
        let t = rng.upto(j);
        if !set.insert(t) {
            set.insert(j);
        }
    }
    set.into_iter().collect()
}

/// A seed from the operating system's random source.
///
/// # Panics
/// When the operating system has no random source (the service cannot run without one: its
/// tokens and seeds come from it too).
pub fn server_seed() -> u64 {
    let mut b = [0u8; 8];
    getrandom::getrandom(&mut b).expect("the operating system's random source");
    u64::from_le_bytes(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_the_rule() {
        let s = Sampling::default();
        assert_eq!(s.size(20_000), 400);
        assert_eq!(s.size(1_000), 64);
        assert_eq!(s.size(10), 10);
        assert_eq!(s.size(3_201), 65);
    }

    #[test]
    fn samples_are_distinct_sorted_in_range_and_of_their_size() {
        for (n, k, seed) in [(20_000, 400, 1), (100, 100, 2), (64, 10, 3), (5, 9, 4)] {
            let v = sample(n, k, seed);
            assert_eq!(v.len() as u64, k.min(n));
            assert!(v.windows(2).all(|w| w[0] < w[1]));
            assert!(v.iter().all(|&x| x < n));
        }
    }

    /// Every hand is about equally likely to be drawn (each has probability k/n per sample):
    /// over 2,000 samples of 10 among 100, each hand's count is near 200, the first hands no
    /// more than the last.
    #[test]
    fn samples_are_uniform() {
        let mut counts = vec![0u32; 100];
        for seed in 0..2_000 {
            for x in sample(100, 10, seed) {
                counts[x as usize] += 1;
            }
        }
        let (lo, hi) = (*counts.iter().min().unwrap(), *counts.iter().max().unwrap());
        assert!(lo > 140 && hi < 260, "counts from {lo} to {hi}");
        let first: u32 = counts[..50].iter().sum();
        let last: u32 = counts[50..].iter().sum();
        assert!(first.abs_diff(last) < 600, "{first} vs {last}");
    }

    #[test]
    fn server_seeds_differ() {
        assert_ne!(server_seed(), server_seed());
    }
}
