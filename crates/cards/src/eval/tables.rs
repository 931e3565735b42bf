//! The lookup tables behind the fast evaluators, generated on first use (no committed blobs).
//!
//! Why this shape: a high hand of 5 to 7 cards without a flush depends only on its multiset of
//! ranks, and there are only 73,775 such multisets (6,175 of five cards, 18,395 of six, 49,205 of
//! seven). Each is identified by the base-5 number `Σ count(r) · 5^r`, which is the sum over the
//! four suits of a per-suit table lookup ([`Tables::base5`], indexed by the 13-bit rank mask of one
//! suit). A perfect hash (hash-and-displace, built here at start-up) turns that sparse key into a
//! slot of a 2^17-entry value table. A flush is detected with a SWAR count of the four suit lanes
//! and looked up by its suit's 13-bit rank mask ([`Tables::flush`]); with at most seven cards a
//! flush beats anything the other cards could make, so that lookup is the answer.
//!
//! All values stored are the packed high values of [`super::high::packed_high`], the slow,
//! straightforward evaluator, so the tables agree with it by construction; the tests check both
//! against an independent reference.

use std::sync::LazyLock;

use super::high::packed_high;
use crate::{Card, CardSet, Rank, Suit};

/// log2 of the number of value slots of the perfect hash.
const SLOT_BITS: u32 = 17;
/// log2 of the number of displacement buckets.
const BUCKET_BITS: u32 = 14;

/// Every table the hot paths read. About 640 KiB in all, built once in a few milliseconds.
pub(crate) struct Tables {
    /// `base5[m]` = `Σ 5^r` over the ranks `r` set in the 13-bit mask `m`.
    base5: Box<[u32; 8192]>,
    /// Multiplier of the perfect hash (the first of a fixed sequence that gave no collision).
    mul: u64,
    /// Displacement of each bucket, XORed into the slot.
    disp: Box<[u16]>,
    /// Packed high value (ace also low in the wheel) of each rank multiset, by slot.
    slots: Box<[u32]>,
    /// Packed high value of the best flush or straight flush of a suit's 13-bit rank mask (only
    /// masks of 5 or more ranks are meaningful).
    pub(crate) flush: Box<[u32; 8192]>,
    /// Ace-to-five eight-or-better value by low mask (ace = bit 0, deuce..eight = bits 1..7); 0
    /// when fewer than five ranks qualify.
    pub(crate) a5: [u8; 256],
}

static TABLES: LazyLock<Tables> = LazyLock::new(Tables::build);

/// The shared tables, built on first call.
#[inline]
pub(crate) fn tables() -> &'static Tables {
    &TABLES
}

impl Tables {
    /// The base-5 rank-count key of a set: one lookup per suit lane.
    #[inline]
    pub(crate) fn key(&self, bits: u64) -> u32 {
        let b = &self.base5;
        b[(bits & 0x1fff) as usize]
            + b[(bits >> 16 & 0x1fff) as usize]
            + b[(bits >> 32 & 0x1fff) as usize]
            + b[(bits >> 48 & 0x1fff) as usize]
    }

    /// The packed high value of the rank multiset with base-5 key `key` (5 to 7 cards).
    #[inline]
    pub(crate) fn by_key(&self, key: u32) -> u32 {
        let (bucket, h) = split(key, self.mul);
        let slot = h ^ u32::from(self.disp[bucket]);
        self.slots[slot as usize]
    }

    fn build() -> Tables {
        let mut base5 = Box::new([0u32; 8192]);
        for (m, v) in base5.iter_mut().enumerate() {
            *v = (0..13)
                .filter(|r| m >> r & 1 == 1)
                .map(|r| 5u32.pow(r))
                .sum();
        }

        let mut flush = Box::new([0u32; 8192]);
        for (m, v) in flush.iter_mut().enumerate() {
            if m.count_ones() >= 5 {
                *v = packed_high(CardSet::from_bits(m as u64), true);
            }
        }

        let mut a5 = [0u8; 256];
        for (m, v) in a5.iter_mut().enumerate() {
            let mut m = m as u8;
            if m.count_ones() >= 5 {
                // Keep the five lowest ranks: dropping the highest bit improves a low.
                while m.count_ones() > 5 {
                    m &= !(1 << (7 - m.leading_zeros()));
                }
                *v = 255 - m;
            }
        }

        let entries = rank_multisets();
        let (mul, disp, slots) = (0u64..)
            .map(|i| splitmix(0x5eed_0000 + i) | 1)
            .find_map(|mul| perfect_hash(&entries, mul))
            .expect("some multiplier yields a perfect hash");
        Tables {
            base5,
            mul,
            disp,
            slots,
            flush,
            a5,
        }
    }
}

/// Bucket index and slot hash of a key under multiplier `mul`.
#[inline]
fn split(key: u32, mul: u64) -> (usize, u32) {
    let h = u64::from(key).wrapping_mul(mul);
    let bucket = (h >> (64 - BUCKET_BITS)) as usize;
    let slot = (h >> (64 - BUCKET_BITS - SLOT_BITS)) as u32 & ((1 << SLOT_BITS) - 1);
    (bucket, slot)
}

/// `(base-5 key, packed high value)` of every rank multiset of 5 to 7 cards (counts ≤ 4).
fn rank_multisets() -> Vec<(u32, u32)> {
    let mut out = Vec::with_capacity(73_775);
    let mut counts = [0u8; 13];
    fn rec(r: usize, left: u8, counts: &mut [u8; 13], out: &mut Vec<(u32, u32)>) {
        if r == 13 {
            let n: u8 = counts.iter().sum();
            if n >= 5 {
                out.push(multiset_entry(counts));
            }
            return;
        }
        for c in 0..=left.min(4) {
            counts[r] = c;
            rec(r + 1, left - c, counts, out);
        }
        counts[r] = 0;
    }
    rec(0, 7, &mut counts, &mut out);
    out
}

/// Builds a flush-free set with the given rank counts (suits dealt round-robin, so no suit gets
/// more than two of seven cards) and evaluates it slowly.
fn multiset_entry(counts: &[u8; 13]) -> (u32, u32) {
    let mut set = CardSet::EMPTY;
    let mut next_suit = 0u8;
    let mut key = 0u32;
    for (r, &c) in counts.iter().enumerate() {
        key += u32::from(c) * 5u32.pow(r as u32);
        for _ in 0..c {
            set.insert(Card::new(
                Rank::from_index(r as u8),
                Suit::from_index(next_suit % 4),
            ));
            next_suit += 1;
        }
    }
    (key, packed_high(set, true))
}

/// Hash-and-displace: place the keys bucket by bucket, largest bucket first, each with the first
/// displacement that sends all its keys to free slots. `None` if two keys of one bucket share a
/// slot hash (no displacement can separate them) or a bucket finds no room.
#[allow(clippy::type_complexity)]
fn perfect_hash(entries: &[(u32, u32)], mul: u64) -> Option<(u64, Box<[u16]>, Box<[u32]>)> {
    let mut buckets: Vec<Vec<(u32, u32)>> = vec![Vec::new(); 1 << BUCKET_BITS];
    for &(key, value) in entries {
        let (b, h) = split(key, mul);
        buckets[b].push((h, value));
    }
    let mut order: Vec<usize> = (0..buckets.len()).collect();
    order.sort_by_key(|&b| std::cmp::Reverse(buckets[b].len()));
    let mut used = vec![false; 1 << SLOT_BITS];
    let mut slots = vec![0u32; 1 << SLOT_BITS].into_boxed_slice();
    let mut disp = vec![0u16; 1 << BUCKET_BITS].into_boxed_slice();
    for b in order {
        let items = &buckets[b];
        if items.is_empty() {
            break;
        }
        let mut hs: Vec<u32> = items.iter().map(|&(h, _)| h).collect();
        hs.sort_unstable();
        if hs.windows(2).any(|w| w[0] == w[1]) {
            return None;
        }
        let d = (0..=u16::MAX).find(|&d| {
            items
                .iter()
                .all(|&(h, _)| !used[(h ^ u32::from(d)) as usize])
        })?;
        for &(h, value) in items {
            let s = (h ^ u32::from(d)) as usize;
            used[s] = true;
            slots[s] = value;
        }
        disp[b] = d;
    }
    Some((mul, disp, slots))
}

/// SplitMix64, to derive the candidate multipliers deterministically.
fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multiset_counts_and_hash_are_perfect() {
        let entries = rank_multisets();
        assert_eq!(entries.len(), 6_175 + 18_395 + 49_205);
        let t = tables();
        let mut seen = std::collections::HashSet::new();
        for &(key, value) in &entries {
            let (b, h) = split(key, t.mul);
            assert!(seen.insert(h ^ u32::from(t.disp[b])), "slot collision");
            assert_eq!(t.by_key(key), value);
        }
    }
}
