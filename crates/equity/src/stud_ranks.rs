//! Exact heads-up stud equity counted by rank pattern, for the common decision where this seat's
//! seven cards are all known (seventh street) and one opponent's unknown cards are unweighted.
//!
//! Why: counting the opponent's holdings card by card (C(38, 3) = 8,436 on a typical river) costs
//! two evaluations each. But a seven-card hand's high value depends only on its ranks unless it
//! holds a flush, and its low always does. So the holdings are counted by rank multiset (at most
//! 455 for three cards, each weighted by the number of ways the unseen cards make it), and the
//! flushes are patched afterwards: for each suit in which the opponent could still complete one,
//! the holdings with enough cards of that suit are enumerated (the suited cards as a set of ranks,
//! the others again by rank pattern) and moved from the outcome of their rank value to the
//! outcome of the flush. Seven cards hold at most one flush, so the patches never overlap.
//! `tests/reference.rs` checks the result against card-by-card brute force.

use pitboss_cards::eval::{
    ace_to_five_8, ace_to_five_8_of_ranks, flush_high, high, high_of_rank_key, rank_key,
    AceFiveValue, HighValue,
};
use pitboss_cards::{CardSet, Suit};

use crate::stud::StudEquity;

/// `C(n, k)` for `n, k ≤ 4` (cards of one rank).
const BINOM: [[u32; 5]; 5] = [
    [1, 0, 0, 0, 0],
    [1, 1, 0, 0, 0],
    [1, 2, 1, 0, 0],
    [1, 3, 3, 1, 0],
    [1, 4, 6, 4, 1],
];

const UNIT: [u32; 13] = {
    let mut u = [1u32; 13];
    let mut r = 1;
    while r < 13 {
        u[r] = u[r - 1] * 5;
        r += 1;
    }
    u
};

/// Heads-up outcomes for this seat, by weight: high half won / tied / lost, by low half won /
/// tied / lost / nobody qualifies. The rank-pattern count adds numbers of holdings (exact in
/// `f64` far beyond any count here, and negative for the flush patches); the heads-up sampler
/// adds one sample at a time with its range weight.
pub(crate) struct Counts {
    c: [[f64; 4]; 3],
    /// Sum of squared weights and number of samples (the sampler's effective sample size).
    w2: f64,
    n: u64,
    hero_hi: HighValue,
    hero_lo: Option<AceFiveValue>,
}

impl Counts {
    pub(crate) fn new(hero_hi: HighValue, hero_lo: Option<AceFiveValue>) -> Counts {
        Counts {
            c: [[0.0; 4]; 3],
            w2: 0.0,
            n: 0,
            hero_hi,
            hero_lo,
        }
    }

    /// Counts one sample between two players' values (this seat's first) with weight `w`.
    #[inline]
    pub(crate) fn add_pair(
        &mut self,
        hero: (HighValue, Option<AceFiveValue>),
        opp: (HighValue, Option<AceFiveValue>),
        w: f64,
    ) {
        self.hero_hi = hero.0;
        self.hero_lo = hero.1;
        self.add(opp.0, opp.1, w);
        self.w2 += w * w;
        self.n += 1;
    }

    /// Whether anything was counted with a positive weight.
    pub(crate) fn is_empty(&self) -> bool {
        self.c.iter().flatten().sum::<f64>() <= 0.0
    }

    #[inline]
    fn add(&mut self, hi: HighValue, lo: Option<AceFiveValue>, w: f64) {
        let h = match self.hero_hi.cmp(&hi) {
            std::cmp::Ordering::Greater => 0,
            std::cmp::Ordering::Equal => 1,
            std::cmp::Ordering::Less => 2,
        };
        let l = if self.hero_lo.is_none() && lo.is_none() {
            3
        } else {
            match self.hero_lo.cmp(&lo) {
                std::cmp::Ordering::Greater => 0,
                std::cmp::Ordering::Equal => 1,
                std::cmp::Ordering::Less => 2,
            }
        };
        self.c[h][l] += w;
    }

    /// The equity: exact (the counts are every outcome; `samples` is their number) or sampled
    /// (with the standard error of the weighted mean, by its effective sample size).
    pub(crate) fn equity(&self, exact: bool) -> StudEquity {
        const HALF: [f64; 3] = [1.0, 0.5, 0.0];
        let mut e = StudEquity {
            exact,
            ..StudEquity::default()
        };
        let mut t = 0.0;
        let mut share_sq = 0.0;
        for (h, row) in self.c.iter().enumerate() {
            for (l, &w) in row.iter().enumerate() {
                t += w;
                let hs = HALF[h];
                let (ls, share) = if l == 3 {
                    (0.0, hs)
                } else {
                    (HALF[l], 0.5 * (hs + HALF[l]))
                };
                e.high += w * hs;
                e.low += w * ls;
                e.share += w * share;
                share_sq += w * share * share;
                if share == 1.0 {
                    e.scoop += w;
                }
            }
        }
        e.high /= t;
        e.low /= t;
        e.share /= t;
        e.scoop /= t;
        if exact {
            e.samples = t.round() as u64;
        } else {
            e.samples = self.n;
            let n_eff = t * t / self.w2;
            if n_eff > 1.0 {
                let var = (share_sq / t - e.share * e.share).max(0.0);
                e.std_err = (var / (n_eff - 1.0)).sqrt();
            }
        }
        e
    }
}

/// Calls `f(ways, key, mask)` for every multiset of `k` ranks that the cards `avail[r]` (per rank)
/// can make: `ways` is how many card sets make it, `key` its rank key, `mask` its ranks.
fn rank_multisets(avail: &[u8; 13], k: u32, f: &mut impl FnMut(f64, u32, u16)) {
    fn go(
        avail: &[u8; 13],
        r: usize,
        left: u32,
        acc: (f64, u32, u16),
        f: &mut impl FnMut(f64, u32, u16),
    ) {
        if left == 0 {
            f(acc.0, acc.1, acc.2);
            return;
        }
        if r == 13 {
            return;
        }
        go(avail, r + 1, left, acc, f);
        let a = u32::from(avail[r]);
        for m in 1..=a.min(left) {
            let next = (
                acc.0 * f64::from(BINOM[a as usize][m as usize]),
                acc.1 + m * UNIT[r],
                acc.2 | 1 << r,
            );
            go(avail, r + 1, left - m, next, f);
        }
    }
    go(avail, 0, k, (1.0, 0, 0), f);
}

/// Calls `f(mask, key)` for every set of `k` of the ranks `ranks`: its rank mask and rank key.
fn combinations(ranks: &[usize], k: usize, f: &mut impl FnMut(u16, u32)) {
    fn go(
        ranks: &[usize],
        k: usize,
        from: usize,
        mask: u16,
        key: u32,
        f: &mut impl FnMut(u16, u32),
    ) {
        if k == 0 {
            f(mask, key);
            return;
        }
        for i in from..=ranks.len() - k {
            let r = ranks[i];
            go(ranks, k - 1, i + 1, mask | 1 << r, key + UNIT[r], f);
        }
    }
    if k <= ranks.len() {
        go(ranks, k, 0, 0, 0, f);
    }
}

/// The exact equity of `hero` (seven cards) against one opponent holding `known` and `unknown`
/// more cards from `unseen` (seven in all).
pub(crate) fn heads_up_river(
    hero: CardSet,
    known: CardSet,
    unknown: u32,
    unseen: CardSet,
) -> StudEquity {
    debug_assert_eq!(hero.len(), 7);
    debug_assert_eq!(known.len() + unknown, 7);
    let mut counts = Counts::new(high(hero), ace_to_five_8(hero));
    let mut avail = [0u8; 13];
    for c in unseen.iter() {
        avail[c.rank().index() as usize] += 1;
    }
    let base = rank_key(known);
    let known_ranks = known.rank_mask();
    rank_multisets(&avail, unknown, &mut |w, key, mask| {
        let lo = ace_to_five_8_of_ranks(known_ranks | mask);
        counts.add(high_of_rank_key(base + key), lo, w);
    });
    for suit in Suit::ALL {
        let held = known.suit_ranks(suit);
        let need = 5u32.saturating_sub(held.count_ones());
        let suited = unseen.suit_ranks(suit);
        if need > unknown || need > suited.count_ones() {
            continue;
        }
        let mut others = avail;
        for (r, a) in others.iter_mut().enumerate() {
            *a -= u8::from(suited >> r & 1 == 1);
        }
        // Every set of `need..=unknown` suited ranks, by combinations of their positions (at most
        // C(13, 3) sets, against 2^13 submasks).
        let ranks: Vec<usize> = (0..13).filter(|r| suited >> r & 1 == 1).collect();
        let top = (unknown as usize).min(ranks.len());
        for j in need as usize..=top {
            combinations(&ranks, j, &mut |sub, sub_key| {
                let flush = flush_high(held | sub);
                rank_multisets(&others, unknown - j as u32, &mut |w, key, mask| {
                    let lo = ace_to_five_8_of_ranks(known_ranks | sub | mask);
                    counts.add(flush, lo, w);
                    counts.add(high_of_rank_key(base + sub_key + key), lo, -w);
                });
            });
        }
    }
    counts.equity(true)
}
