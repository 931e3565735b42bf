//! Deuce-to-seven triple draw: the pot share of a keep with k draws left, and the best keep.
//!
//! What a seat knows of an opponent is how many cards it took at each draw, so an opponent is
//! modelled from that: before any draw its five cards are random; after taking `d` cards it holds
//! `5 - d` cards worth keeping (distinct ranks eight or lower) and `d` fresh random cards; a pat
//! opponent holds a made hand ten or better (five distinct ranks, not a flush). From there every
//! opponent — and this seat after the draw being decided — draws by a standard rule ([`policy`]):
//! stand pat on a made 8 with three draws left, a 9 with two, a 10 with one; otherwise keep one
//! card of each rank up to 8 (9 at the last draw). Opponents whose hand is known (shown, or in
//! tests) can be given as such. Equity is the share of the pot won at showdown (ties split); it
//! ignores folds, which is what pot odds need.
//!
//! A Monte Carlo *sample* deals and plays out every opponent and this seat once. When this seat's
//! last draw is of one card to a four-card keep, that card is not dealt: the sample's share is the
//! average over every card still undealt, counted exactly (the expectation of the dealt version
//! given the rest of the sample, so the estimate stays unbiased and its error can only shrink;
//! each sample is still one independent draw of everything else, and the standard error is that
//! of the mean of the samples' shares). With one draw left against known hands that average is
//! the whole answer, and the error is zero. Likewise when every draw this seat has left is of one
//! card to the same four ranks (a four-card keep that throws any card but one it stands pat with,
//! say 2-3-4-7 with three draws left): none of its cards is dealt, and the share is averaged over
//! every sequence of cards it could draw, counted exactly.
//!
//! ```
//! use pitboss_cards::{parse_cards, CardSet};
//! use pitboss_equity::{draw, Config};
//!
//! // One draw left, 2-3-4-7-K against an opponent who took one card last time.
//! let hand: CardSet = parse_cards("2c 3d 4h 7s Kc").unwrap().iter().collect();
//! let spot = draw::DrawSpot {
//!     hand,
//!     draws_left: 1,
//!     opponents: vec![draw::DrawOpponent::unknown(Some(1), 1)],
//!     dead: CardSet::EMPTY,
//!     ace_five_straight: false,
//! };
//! let best = draw::best_keep(&spot, &Config::default()).unwrap();
//! assert_eq!(best.keep.len(), 4); // throw the king
//! assert!(!best.keep.contains("Kc".parse().unwrap()));
//! ```

use pitboss_cards::eval::deuce_to_seven;
use pitboss_cards::{Card, CardSet};

use std::sync::LazyLock;

use crate::sample::{Pool, Tally, LANES};
use crate::{Config, EquityError};

/// An opponent in a draw hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawOpponent {
    /// Cards it took at its latest draw (`None` before its first).
    pub drew: Option<u8>,
    /// Draws it still has (3 before the first draw; fewer once it drew in this draw round).
    pub draws_left: u8,
    /// Its five cards when known (shown hands, tests); `None` to use the model.
    pub known: Option<CardSet>,
    /// A narrower model (a seat that bet into the pot is not random): the highest rank of its
    /// good cards, as a rank index (5 = seven, 6 = eight, 7 = nine, 8 = ten); `None` for the
    /// model's default (ten for a pat hand, eight for the cards kept by a drawer). Lower bars
    /// than the default only; at least the seven.
    pub bar: Option<u8>,
}

impl DrawOpponent {
    /// An opponent known only by its draw counts.
    pub const fn unknown(drew: Option<u8>, draws_left: u8) -> DrawOpponent {
        DrawOpponent {
            drew,
            draws_left,
            known: None,
            bar: None,
        }
    }

    /// The same opponent with its good cards no higher than rank index `bar` (see
    /// [`DrawOpponent::bar`]).
    #[must_use]
    pub const fn with_bar(mut self, bar: u8) -> DrawOpponent {
        self.bar = Some(bar);
        self
    }
}

/// One seat's information at a triple-draw decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrawSpot {
    /// The five cards held.
    pub hand: CardSet,
    /// Draws still to come for this seat, counting one being decided now (0 to 3).
    pub draws_left: u8,
    /// The opponents still in the hand (1 to 7).
    pub opponents: Vec<DrawOpponent>,
    /// Cards known not to be in the stub (this seat's own discards).
    pub dead: CardSet,
    /// The table option: A-2-3-4-5 is a straight.
    pub ace_five_straight: bool,
}

/// The worth of a keep.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DrawEquity {
    /// Expected share of the pot at showdown.
    pub share: f64,
    /// Standard error of `share` (0 when exact).
    pub std_err: f64,
    pub samples: u64,
    pub exact: bool,
}

/// The best keep found and its equity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Keep {
    /// The cards to keep (throw the rest).
    pub keep: CardSet,
    pub equity: DrawEquity,
    /// How many keeps were compared.
    pub candidates: u32,
}

const SEVEN: u8 = 5;
const EIGHT: u8 = 6;
const NINE: u8 = 7;
const TEN: u8 = 8;

#[inline]
fn ranks(hand: CardSet) -> u16 {
    hand.rank_mask()
}

#[inline]
fn straight(mask: u16) -> bool {
    let m = u32::from(mask);
    m & m << 1 & m << 2 & m << 3 & m << 4 != 0
}

#[inline]
fn top(mask: u16) -> u8 {
    15 - mask.leading_zeros() as u8
}

/// Five distinct ranks, no straight, no flush.
#[inline]
fn made(hand: CardSet) -> bool {
    let m = ranks(hand);
    m.count_ones() == 5 && !straight(m) && !flush(hand)
}

#[inline]
fn flush(hand: CardSet) -> bool {
    let b = hand.bits();
    (0..4).any(|s| (b >> (16 * s) & 0x1fff).count_ones() >= 5)
}

/// The standard drawing rule the model gives everyone for future draws: with `draws_left` draws
/// to come (counting this one), stand pat on a made 8 (three left), 9 (two) or 10 (one);
/// otherwise keep the lowest card of each rank up to 8 (up to 9 with one draw left), at most four.
pub fn policy(hand: CardSet, draws_left: u8) -> CardSet {
    if hand.len() == 5 {
        return policy5(hand, draws_left).0;
    }
    let bar = pat_bar(draws_left);
    let m = ranks(hand);
    if made(hand) && top(m) <= bar {
        return hand;
    }
    keep_lowest(hand.bits(), m & keep_ranks(draws_left)).0
}

/// The highest top card worth standing pat on with `draws_left` draws to come.
#[inline]
const fn pat_bar(draws_left: u8) -> u8 {
    match draws_left {
        3.. => EIGHT,
        2 => NINE,
        _ => TEN,
    }
}

/// The ranks worth keeping when drawing: up to the 8, or the 9 at the last draw.
#[inline]
fn keep_ranks(draws_left: u8) -> u16 {
    let keep_bar = if draws_left <= 1 { NINE } else { EIGHT };
    (1u16 << (keep_bar + 1)) - 1
}

/// One card of each rank of `want` (at most four: the highest goes when there are five), the
/// lowest suit's where a rank repeats; and how many. Bit operations on the four suit lanes.
#[inline]
fn keep_lowest(b: u64, mut want: u16) -> (CardSet, u32) {
    let mut n = pop13(want);
    if n == 5 {
        want &= !(1 << top(want));
        n = 4;
    }
    let mut keep = 0u64;
    for lane in 0..4 {
        let l = (b >> (16 * lane)) as u16 & want;
        keep |= u64::from(l) << (16 * lane);
        want &= !l;
    }
    (CardSet::from_bits(keep), n)
}

/// The ranks of a card mask, as a 13-bit mask (the four suit lanes folded together).
#[inline]
fn rank_mask(b: u64) -> u16 {
    let x = b | b >> 32;
    ((x | x >> 16) & 0x1fff) as u16
}

/// Whether the cards of a non-empty card mask are all of one suit: shifted down to the suit lane
/// of its lowest card, nothing is left above that lane.
#[inline]
fn one_suit(b: u64) -> bool {
    b >> (b.trailing_zeros() & 48) < 1 << 13
}

/// [`policy`] of a five-card hand, and the number of cards kept: the simulations' hot path.
///
/// A table by rank mask gives the ranks kept (all five to stand pat) and their number, and the
/// cards kept are the hand's cards of those ranks with no card of the same rank in a lower suit
/// lane (the lowest suit of a pair): a handful of bit operations, no population count. The one
/// thing the table cannot see is a flush, and a flush only matters where the table stands pat
/// (five cards of one suit are five ranks, and a draw to them keeps the same cards whether or not
/// they share a suit): so the suits are looked at only then (rare: the careful path).
///
/// Why that order: the suit test costs as much as the lookup, and standing pat is the exception
/// (with `draws_left` a constant, as in [`play_out`], the table row is found at compile time too).
#[inline(always)]
fn policy5(hand: CardSet, draws_left: u8) -> (CardSet, u32) {
    let (keep, kept) = rule5(hand.bits(), draws_left);
    (CardSet::from_bits(keep), kept)
}

/// [`policy5`] on a card mask (no [`CardSet`] in the way: its constructor masks the bits again).
#[inline(always)]
fn rule5(b: u64, draws_left: u8) -> (u64, u32) {
    let m = rank_mask(b);
    let e = RULE[usize::from(draws_left.clamp(1, 3) - 1)][usize::from(m)];
    let kept = u32::from(e >> 13);
    if kept == 5 && one_suit(b) {
        let (keep, kept) = keep_lowest(b, m & keep_ranks(draws_left));
        return (keep.bits(), kept);
    }
    let x = b & (LANES * u64::from(e & 0x1fff));
    (x & !(x << 16 | x << 32 | x << 48), kept)
}

/// The rule for a hand that is not all of one suit, by rank mask and draws left (1, 2, 3+): the
/// ranks kept (all five to stand pat) and their number in the top three bits. Five ranks are five
/// distinct cards: stand pat when made (no straight) and low enough, else keep the ranks up to
/// the keep bar, the highest going when that is all five. Fewer ranks (a pair or worse) keep
/// their ranks up to the keep bar (at most four).
///
/// Why a table: it is every hand the simulations meet but a flush, and the straight test, the
/// pat bar and the count of the ranks kept become one lookup (48 KiB, built at compile time).
static RULE: [[u16; 8192]; 3] = {
    let mut t = [[0u16; 8192]; 3];
    let mut left = 1;
    while left <= 3 {
        let bar = pat_bar(left as u8);
        let keep_bar = if left <= 1 { NINE } else { EIGHT };
        let mut m = 0usize;
        while m < 8192 {
            let r = m as u32;
            let straight = r & r << 1 & r << 2 & r << 3 & r << 4 != 0;
            let top = 31 - (r | 1).leading_zeros();
            t[left - 1][m] = if r.count_ones() == 5 && !straight && top <= bar as u32 {
                m as u16 | 5 << 13
            } else {
                let mut want = r & ((1 << (keep_bar + 1)) - 1);
                if want.count_ones() == 5 {
                    want &= !(1 << (31 - want.leading_zeros()));
                }
                want as u16 | (want.count_ones() as u16) << 13
            };
            m += 1;
        }
        left += 1;
    }
    t
};

/// The number of ranks in a 13-bit mask, by table (no `popcnt` on the baseline target).
#[inline]
fn pop13(m: u16) -> u32 {
    static POP: [u8; 8192] = {
        let mut t = [0u8; 8192];
        let mut i = 0;
        while i < 8192 {
            t[i] = (i as u32).count_ones() as u8;
            i += 1;
        }
        t
    };
    u32::from(POP[usize::from(m & 0x1fff)])
}

/// A modelled opponent's good cards and their highest rank (see the module docs), from its last
/// draw count and its [`DrawOpponent::bar`]; fixed for a query, so [`Sim::new`] finds it once.
fn model(drew: Option<u8>, narrow: Option<u8>) -> (u8, u8) {
    let (good, bar) = match drew {
        None | Some(5..) => (0, 0),
        Some(0) => (5, TEN),
        Some(d) => (5 - d, EIGHT),
    };
    (good, narrow.map_or(bar, |n| bar.min(n.max(SEVEN))))
}

/// The current five cards of a modelled opponent with `good` good cards no higher than `bar`
/// ([`model`]), as a card mask.
#[inline(always)]
fn model_hand<const ROOMY: bool>(pool: &mut Pool, (good, bar): (u8, u8)) -> u64 {
    let hand = pool.deal_distinct_low(u32::from(good), bar);
    hand | deal::<ROOMY>(pool, u32::from(5 - good))
}

/// `n` cards from the pool: [`Pool::deal_bits_roomy`] when `ROOMY` (the caller knows the pool
/// holds at least `n + 12`), else [`Pool::deal_bits`].
#[inline(always)]
fn deal<const ROOMY: bool>(pool: &mut Pool, n: u32) -> u64 {
    if ROOMY {
        pool.deal_bits_roomy(n)
    } else {
        pool.deal_bits(n)
    }
}

/// Plays `draws` draws of the standard rule on `hand` (a card mask).
///
/// Written out draw by draw rather than as a loop over the draws left: each draw's rule then
/// reads its own table row, found at compile time, and the loop's bookkeeping goes (the
/// opponents' play-out is most of a sample). More than three draws play the three-draw rule.
#[inline(always)]
fn play_out<const ROOMY: bool>(pool: &mut Pool, mut hand: u64, draws: u8) -> u64 {
    #[inline(always)]
    fn draw<const ROOMY: bool>(pool: &mut Pool, hand: u64, left: u8) -> u64 {
        let (keep, kept) = rule5(hand, left);
        keep | deal::<ROOMY>(pool, 5 - kept)
    }
    if draws >= 3 {
        for _ in 2..draws {
            hand = draw::<ROOMY>(pool, hand, 3);
        }
    }
    if draws >= 2 {
        hand = draw::<ROOMY>(pool, hand, 2);
    }
    if draws >= 1 {
        hand = draw::<ROOMY>(pool, hand, 1);
    }
    hand
}

/// Deuce-to-seven values of five distinct ranks that are not a flush, by 13-bit rank mask
/// (A-2-3-4-5 read as ace high; the other table option is left to the full evaluator).
///
/// Why: such a hand's value depends only on its ranks, and nearly every final hand of a
/// simulation is one; a lookup by the mask the drawing rule has already computed is cheaper than
/// the evaluator's perfect hash of the rank multiset.
static NO_PAIR: LazyLock<Box<[u32; 8192]>> = LazyLock::new(|| {
    let mut t = Box::new([0u32; 8192]);
    for (m, v) in t.iter_mut().enumerate() {
        let m = m as u64;
        if m.count_ones() == 5 {
            // The lowest rank a club, the others diamonds: not a flush.
            let low = m & m.wrapping_neg();
            *v = deuce_to_seven(CardSet::from_bits(low | (m ^ low) << 16), false).get();
            // [`value5`] reads 0 as "not five ranks".
            assert!(*v != 0, "a no-pair hand valued 0");
        }
    }
    t
});

/// A-2-3-4-5, the one rank mask the two straight rules disagree on.
const WHEEL: u16 = 0b1_0000_0000_1111;

/// The deuce-to-seven value of five cards (as a card mask): the rank-mask table when the ranks are
/// distinct (the table holds 0 for fewer ranks) and not all of one suit, else the evaluator.
#[inline]
fn value5(no_pair: &[u32; 8192], b: u64, afs: bool) -> u32 {
    let m = rank_mask(b);
    let v = no_pair[usize::from(m)];
    if v != 0 && !one_suit(b) && !(afs && m == WHEEL) {
        return v;
    }
    deuce_to_seven(CardSet::from_bits(b), afs).get()
}

/// Room for the distinct values this seat's five cards can take over the card drawn to a four-card
/// keep: one per rank, and one more per rank for the cards that complete a flush (26), rounded up
/// for the vectorised count.
const ONE_CARD_GROUPS: usize = 32;

/// This seat's value for every card it could draw to a four-card keep, grouped by value, best
/// first: what lets a sample count its last one-card draw exactly (see [`Sim::hero_share`]).
///
/// Why by value with card masks: given the opponents' best final value, the cards that win are
/// those of the groups above it, so the chance of winning is two population counts of the
/// undealt cards, whatever the opponents took.
#[derive(Clone, Copy)]
struct OneCard {
    key: u64,
    len: usize,
    values: [u32; ONE_CARD_GROUPS],
    cards: [u64; ONE_CARD_GROUPS],
    /// `better[j]`: the cards of the groups before `j`.
    better: [u64; ONE_CARD_GROUPS + 1],
    /// `pat[a - 1]`: the cards this seat stands pat with when drawn to the keep with `a` more
    /// draws to come (one or two); see [`OneCard::chains`].
    pat: [u64; 2],
    /// Whether every other card drawn to the keep, with one or two more draws to come, is thrown
    /// for four cards of the keep's ranks again (the same cards, or a pair's lower suit swapped
    /// in). Only for keeps of four ranks not all of one suit (the table is by ranks; a flush draw
    /// may keep a different four); see [`OneCard::chains`] for the suits.
    chain: bool,
}

impl OneCard {
    /// The table of the four cards `keep`, under `key` (see [`Sim::one_card`]). Every card not
    /// in the keep is grouped: a sample only ever counts the undealt ones.
    fn new(key: u64, keep: u64, no_pair: &[u32; 8192], afs: bool) -> OneCard {
        let mut t = OneCard {
            key,
            len: 0,
            values: [0; ONE_CARD_GROUPS],
            cards: [0; ONE_CARD_GROUPS],
            better: [0; ONE_CARD_GROUPS + 1],
            pat: [0; 2],
            chain: key >> 63 == 1,
        };
        // Without five of a suit, a card's rank decides the value; the keep's suit, when all four
        // cards share one, is counted apart.
        let mut flush_lane = 0u64;
        for lane in 0..4 {
            let l = 0x1fffu64 << (16 * lane);
            if keep & !l == 0 {
                flush_lane = l;
            }
        }
        for r in 0..13 {
            let of_rank = LANES << r & !keep;
            for part in [of_rank & flush_lane, of_rank & !flush_lane] {
                if part == 0 {
                    continue;
                }
                let v = value5(no_pair, keep | (part & part.wrapping_neg()), afs);
                match t.values[..t.len].iter().position(|x| *x == v) {
                    Some(j) => t.cards[j] |= part,
                    None => {
                        t.values[t.len] = v;
                        t.cards[t.len] = part;
                        t.len += 1;
                    }
                }
            }
        }
        // Best first (insertion sort of at most 26 groups).
        for i in 1..t.len {
            let mut j = i;
            while j > 0 && t.values[j - 1] < t.values[j] {
                t.values.swap(j - 1, j);
                t.cards.swap(j - 1, j);
                j -= 1;
            }
        }
        for j in 0..t.len {
            t.better[j + 1] = t.better[j] | t.cards[j];
        }
        if t.chain {
            // Four ranks not all of one suit: with any card, no flush, so a card's rank decides
            // what the rule does with it (the table serves every keep of these ranks).
            for r in 0..13 {
                let of_rank = LANES << r & !keep;
                let hand = keep | (of_rank & of_rank.wrapping_neg());
                for a in 1..=2u8 {
                    let (k, n) = policy5(CardSet::from_bits(hand), a);
                    if n == 5 {
                        t.pat[usize::from(a - 1)] |= LANES << r;
                    } else if n != 4 || rank_mask(k.bits()) != rank_mask(keep) {
                        t.chain = false;
                    }
                }
            }
            // Standing pat with two draws to come is standing pat with one (the formula in
            // `share_after` relies on it; the rule's bars make it so).
            t.chain &= t.pat[1] & !t.pat[0] == 0;
        }
        t
    }

    /// The number of groups whose value beats `best`: a count of independent comparisons
    /// (vector instructions), of the first 16 slots when the groups fit (keeps that cannot make a
    /// flush have one group a rank at most; a predictable branch, the same for a whole query).
    #[inline(always)]
    fn beating(&self, best: u32) -> usize {
        if self.len <= 16 {
            self.values[..16].iter().filter(|v| **v > best).count()
        } else {
            self.values.iter().filter(|v| **v > best).count()
        }
    }

    /// The expected share of a card drawn uniformly from `avail` (`left` cards) against
    /// opponents whose best value is `best`, held by `tied` of them.
    #[inline(always)]
    fn share(&self, avail: u64, left: u32, best: u32, tied: u32) -> f64 {
        // The groups are best first and the unused slots hold 0, below every value: `j`, the
        // number of groups that beat `best`, is a count of 32 independent comparisons (vector
        // instructions; a binary search's five dependent loads made a longer chain of latency,
        // which the next sample waited for); group `j` ties when it equals `best`.
        let j = self.beating(best);
        let tie = self.cards[j] & 0u64.wrapping_sub(u64::from(self.values[j] == best));
        let wins = (avail & self.better[j]).count_ones();
        // Ties are rare: a predictable branch skips their count.
        let ties = if tie == 0 {
            0
        } else {
            (avail & tie).count_ones()
        };
        // Reciprocals from a table: a division's latency would hold up the next sample.
        (f64::from(wins) + f64::from(ties) * RECIPROCAL[tied as usize + 1])
            * RECIPROCAL[left as usize]
    }

    /// Whether this seat's last `draws` draws (one to three) to the four cards `keep`, whose table
    /// this is, are one card each until it stands pat, to four cards of the keep's ranks not all
    /// of one suit and so to this table: then [`OneCard::share_after`] counts them exactly.
    ///
    /// Besides [`OneCard::chain`], a pair's lower suit swapping in at each of the `draws - 1`
    /// throws must not bring all four cards to one suit (a flush draw for the last card). Cards
    /// only move to a lower suit, so that needs the cards above the keep's lowest suit to be at
    /// most `draws - 1`; such keeps are dealt (rare: two or three cards of the lowest suit).
    #[inline]
    fn chains(&self, keep: u64, draws: u8) -> bool {
        if draws <= 1 {
            return true;
        }
        let above = keep >> (keep.trailing_zeros() & 48) >> 16;
        self.chain && above.count_ones() >= u32::from(draws)
    }

    /// The expected share of this seat's last `draws` draws (one to three) to the keep, against
    /// opponents whose best value is `best`, held by `tied` of them, from the undealt cards
    /// `avail` (`left` of them, at least `draws`; with two or three draws, only when
    /// [`OneCard::chains`] holds): each draw is one card uniform among those still undealt, kept
    /// when it makes a hand this seat stands pat on (then to the end), else thrown for the next
    /// draw; the last card is kept whatever it is.
    ///
    /// Counted exactly from population counts. With `w(c)` the share of the keep and card `c`
    /// (1, `1 / (tied + 1)` or 0), `L = left`, `S` the sum of `w` over the undealt cards, `P_a`
    /// those that stand pat with `a` draws to come, `S_a` the sum of `w` over them and `N_a` the
    /// number of the others (`P_2` is within `P_1`): two draws give
    /// `(S_1 + (N_1 S - (S - S_1)) / (L - 1)) / L`; three draws give
    /// `(S_2 + (N_2 S_1 - (S_1 - S_2) + T / (L - 2)) / (L - 1)) / L` with
    /// `T = N_2 N_1 S - N_1 (S - S_2) - N_1 S + 2 (S - S_1) - N_2 (S - S_1)`, the sum over the
    /// first card `x` thrown and the second `y` of what the last card is worth, `S - w(x) - w(y)`
    /// (derived in the test `chain_share_counts_every_draw`, which checks it card by card).
    #[inline(always)]
    fn share_after(&self, draws: u8, avail: u64, left: u32, best: u32, tied: u32) -> f64 {
        if draws <= 1 {
            return self.share(avail, left, best, tied);
        }
        let j = self.beating(best);
        let tie = self.cards[j] & 0u64.wrapping_sub(u64::from(self.values[j] == best));
        let win = avail & self.better[j];
        let tie = avail & tie;
        let r = RECIPROCAL[tied as usize + 1];
        // The sum of `w` over the undealt cards of `mask`.
        let sum = |mask: u64| {
            let wins = f64::from((win & mask).count_ones());
            // Ties are rare: a predictable branch skips their count.
            if tie == 0 {
                wins
            } else {
                wins + f64::from((tie & mask).count_ones()) * r
            }
        };
        let l = left as usize;
        let s = sum(!0);
        let p1 = self.pat[0];
        let s1 = sum(p1);
        let n1 = f64::from(left - (avail & p1).count_ones());
        if draws == 2 {
            return (s1 + (n1 * s - (s - s1)) * RECIPROCAL[l - 1]) * RECIPROCAL[l];
        }
        let p2 = self.pat[1];
        let s2 = sum(p2);
        let n2 = f64::from(left - (avail & p2).count_ones());
        // Thrown with two to come (`n2` cards, their `w` summing to `s - s2`), then with one
        // (`n1` cards, summing to `s - s1`; all among the `n2`).
        let (sn2, sn1) = (s - s2, s - s1);
        let third = n2 * n1 * s - n1 * sn2 - s * n1 + 2.0 * sn1 - n2 * sn1;
        let second = n2 * s1 - (sn2 - sn1) + third * RECIPROCAL[l - 2];
        (s2 + second * RECIPROCAL[l - 1]) * RECIPROCAL[l]
    }
}

/// `1 / n` for the numbers of cards and of tied players.
static RECIPROCAL: [f64; 53] = {
    let mut t = [0.0; 53];
    let mut n = 1;
    while n < 53 {
        t[n] = 1.0 / n as f64;
        n += 1;
    }
    t
};

/// How many four-card keeps [`Sim`] builds tables for: a query meets a handful (by rank mask),
/// except that small keeps drawn several times reach many; each table costs about as much as
/// a few samples.
const ONE_CARD_CACHE: usize = 32;

/// Entries of the memo of keeps found lately (a power of two: the hash keeps four bits).
const RECENT: usize = 16;

/// An opponent as [`Sim::opponents_best`] reads it, found once per query: its five cards when
/// known (0 when modelled: no hand is empty), its [`model`] and its draws to come.
#[derive(Clone, Copy)]
struct Seat {
    known: u64,
    good: u8,
    bar: u8,
    draws: u8,
}

/// One query's simulation: the spot, the tables it reads, and the one-card tables built so far.
struct Sim<'a> {
    spot: &'a DrawSpot,
    /// The opponents as the sampler reads them.
    seats: Vec<Seat>,
    /// Whether the pool is big enough for every opponent's deal of a sample to find a dozen cards
    /// more than it takes (the unseen cards number at least 12 more than all the opponents
    /// can take: five a hand and five a draw): then [`Sim::opponents_best`] skips the test for
    /// a nearly empty pool at each deal (heads-up and most multiway spots; same cards).
    roomy: bool,
    no_pair: &'static [u32; 8192],
    cache: Vec<OneCard>,
    /// The keeps found lately and their slots, by a hash of the keep's cards (no keep is empty,
    /// so an empty entry never matches): [`best_keep`] asks for its candidates in turn.
    recent_keep: [u64; RECENT],
    recent: [u8; RECENT],
}

impl<'a> Sim<'a> {
    /// The simulation of `spot`, whose pool holds `unseen` cards.
    fn new(spot: &'a DrawSpot, unseen: u32) -> Sim<'a> {
        // The most cards the opponents can take in a sample: five for a modelled hand, five a
        // draw.
        let most: u32 = spot
            .opponents
            .iter()
            .map(|o| if o.known.is_some() { 0 } else { 5 } + 5 * u32::from(o.draws_left))
            .sum();
        Sim {
            spot,
            seats: spot
                .opponents
                .iter()
                .map(|o| {
                    let (good, bar) = model(o.drew, o.bar);
                    Seat {
                        known: o.known.map_or(0, CardSet::bits),
                        good,
                        bar,
                        draws: o.draws_left,
                    }
                })
                .collect(),
            // Each deal of `n` cards finds at least `unseen - (most - n)` left.
            roomy: unseen >= most + 12,
            no_pair: &NO_PAIR,
            cache: Vec::new(),
            recent_keep: [0; RECENT],
            recent: [0; RECENT],
        }
    }

    /// Deals every opponent's hand of one sample and plays it out: the best final value among
    /// them and how many hold it. Opponents are dealt before this seat's draw; dealing is uniform
    /// without replacement, so the order changes no probability, and it lets [`best_keep`] play
    /// the opponents once per sample for every candidate keep, and [`Sim::hero_share`] count this
    /// seat's last card exactly against them.
    #[inline(always)]
    fn opponents_best(&self, pool: &mut Pool) -> (u32, u32) {
        if self.roomy {
            self.opponents_best_in::<true>(pool)
        } else {
            self.opponents_best_in::<false>(pool)
        }
    }

    /// [`Sim::opponents_best`], dealing by [`Pool::deal_bits_roomy`] when `ROOMY` ([`Sim::roomy`]).
    #[inline(always)]
    fn opponents_best_in<const ROOMY: bool>(&self, pool: &mut Pool) -> (u32, u32) {
        // A copy the compiler can keep in registers: the caller's pool is in memory, where every
        // deal would store it back.
        let mut p = pool.clone();
        let (mut best, mut tied) = (0, 0);
        for o in &self.seats {
            let h = if o.known != 0 {
                o.known
            } else {
                model_hand::<ROOMY>(&mut p, (o.good, o.bar))
            };
            let h = play_out::<ROOMY>(&mut p, h, o.draws);
            let v = value5(self.no_pair, h, self.spot.ace_five_straight);
            if v > best {
                (best, tied) = (v, 1);
            } else if v == best {
                tied += 1;
            }
        }
        *pool = p;
        (best, tied)
    }

    /// This seat's share of one sample after keeping `keep` now and drawing by [`policy`]
    /// afterwards, against opponents whose best final value is `best` (held by `tied` of them).
    ///
    /// When this seat's last draw is of one card, that card is not dealt: the share is averaged
    /// over every card still undealt (each equally likely), counted from the keep's [`OneCard`]
    /// table. That is the conditional expectation of the sampled share given everything else in
    /// the sample, so the estimate stays unbiased and its variance can only shrink (Rao and
    /// Blackwell), for the price of two population counts instead of a card and an evaluation.
    #[inline]
    fn hero_share(&mut self, keep: u64, pool: &mut Pool, best: u32, tied: u32) -> f64 {
        let afs = self.spot.ace_five_straight;
        let mut hand = keep;
        if self.spot.draws_left > 0 {
            let mut need = 5 - CardSet::from_bits(keep).len();
            let mut after = self.spot.draws_left - 1;
            loop {
                if after == 0 && need == 1 && pool.left() > 0 {
                    if let Some(t) = self.one_card(hand) {
                        return t.share(pool.avail(), pool.left(), best, tied);
                    }
                }
                hand |= pool.deal_bits(need);
                if after == 0 {
                    break;
                }
                let (k, kept) = policy5(CardSet::from_bits(hand), after);
                hand = k.bits();
                need = 5 - kept;
                after -= 1;
            }
        }
        share_against(value5(self.no_pair, hand, afs), best, tied)
    }

    /// The [`OneCard`] table of `keep` when this seat's draws to it are counted exactly: a
    /// four-card keep whose last draw is now, or whose draws chain ([`OneCard::chains`]).
    fn chained(&mut self, keep: CardSet) -> Option<OneCard> {
        let draws = self.spot.draws_left;
        if !(1..=3).contains(&draws) || keep.len() != 4 {
            return None;
        }
        let t = *self.one_card(keep.bits())?;
        t.chains(keep.bits(), draws).then_some(t)
    }

    /// The [`OneCard`] table of a four-card keep, built on first use; `None` when the cache is
    /// full of other keeps (the card is then dealt: either way the sample's share has the same
    /// expectation given what was dealt before, so which one a sample uses biases nothing).
    ///
    /// Four distinct ranks not all of one suit can make no flush, so every keep of those ranks
    /// has the same table (the keep's own cards are never undealt): it is found by the rank mask
    /// alone, and a simulation whose keeps differ only by suits (pairing a rank and keeping the
    /// lowest suit) builds one table. Other keeps are found by their cards.
    #[inline]
    fn one_card(&mut self, keep: u64) -> Option<&OneCard> {
        let h = (keep.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 60) as usize;
        if self.recent_keep[h] == keep {
            return Some(&self.cache[usize::from(self.recent[h])]);
        }
        let lanes = [
            keep as u16 & 0x1fff,
            (keep >> 16) as u16 & 0x1fff,
            (keep >> 32) as u16 & 0x1fff,
            (keep >> 48) as u16 & 0x1fff,
        ];
        let m = lanes[0] | lanes[1] | lanes[2] | lanes[3];
        let sum: u32 = lanes.iter().map(|l| u32::from(*l)).sum();
        let key = if sum == u32::from(m) && !lanes.contains(&m) {
            1 << 63 | u64::from(m)
        } else {
            keep
        };
        let i = match self.cache.iter().position(|t| t.key == key) {
            Some(i) => i,
            None if self.cache.len() < ONE_CARD_CACHE => {
                let t = OneCard::new(key, keep, self.no_pair, self.spot.ace_five_straight);
                self.cache.push(t);
                self.cache.len() - 1
            }
            None => return None,
        };
        self.recent_keep[h] = keep;
        self.recent[h] = i as u8;
        Some(&self.cache[i])
    }
}

fn check(spot: &DrawSpot, keep: CardSet) -> Result<CardSet, EquityError> {
    if spot.hand.len() != 5 {
        return Err(EquityError::BadDraw("a hand is five cards"));
    }
    if keep.difference(spot.hand) != CardSet::EMPTY {
        return Err(EquityError::BadDraw("the keep is not part of the hand"));
    }
    if spot.draws_left == 0 && keep != spot.hand {
        return Err(EquityError::BadDraw("no draw left: keep the whole hand"));
    }
    let n = spot.opponents.len();
    if !(1..=7).contains(&n) {
        return Err(EquityError::Opponents(n));
    }
    let mut seen = spot.hand;
    for o in &spot.opponents {
        if let Some(k) = o.known {
            if let Some(c) = seen.intersection(k).iter().next() {
                return Err(EquityError::DuplicateCard(c));
            }
            seen = seen.union(k);
        }
    }
    Ok(CardSet::FULL.difference(seen.union(spot.dead)))
}

/// Share of player 0 among `values`.
#[inline]
fn share(values: &[u32]) -> f64 {
    let best = values.iter().copied().max().unwrap_or(0);
    if values[0] < best {
        return 0.0;
    }
    1.0 / values.iter().filter(|&&v| v == best).count() as f64
}

/// The equity of keeping `keep` (a subset of the hand) now, then drawing by [`policy`].
///
/// Exact when no opponent has a draw left and every opponent is known and this is the last draw
/// (all replacement sets are counted); otherwise Monte Carlo ([`Config::samples`] samples, see
/// the module docs for what a sample counts).
///
/// # Errors
/// A hand that is not five cards, a keep outside it, a draw with no draws left, a card given twice,
/// no or too many opponents, zero samples.
pub fn equity(spot: &DrawSpot, keep: CardSet, cfg: &Config) -> Result<DrawEquity, EquityError> {
    let unseen = check(spot, keep)?;
    if exact_for(spot, keep, unseen, cfg) {
        return Ok(exact(spot, keep, unseen));
    }
    if cfg.samples == 0 {
        return Err(EquityError::NoSamples);
    }
    let tally = with_popcnt(
        #[inline(always)]
        || {
            let mut pool = Pool::new(unseen, cfg.seed);
            let mut tally = Tally::<1>::new();
            let mut sim = Sim::new(spot, unseen.len());
            let draws = spot.draws_left;
            if let Some(table) = sim.chained(keep) {
                // This seat's draws are of one card to `keep` until it stands pat: every sample counts
                // them from the same table (the common query; no look-up per sample).
                for _ in 0..cfg.samples {
                    pool.reset();
                    let (best, tied) = sim.opponents_best(&mut pool);
                    let (avail, left) = (pool.avail(), pool.left());
                    let share = if draws == 1 && left > 0 {
                        table.share(avail, left, best, tied)
                    } else if left >= u32::from(draws) {
                        table.share_after(draws, avail, left, best, tied)
                    } else {
                        sim.hero_share(keep.bits(), &mut pool, best, tied)
                    };
                    tally.add(1.0, [share]);
                }
            } else {
                for _ in 0..cfg.samples {
                    pool.reset();
                    let (best, tied) = sim.opponents_best(&mut pool);
                    tally.add(1.0, [sim.hero_share(keep.bits(), &mut pool, best, tied)]);
                }
            }
            tally
        },
    );
    Ok(DrawEquity {
        share: tally.means()[0],
        std_err: tally.std_err(),
        samples: tally.n,
        exact: false,
    })
}

/// Runs `f` (a simulation) compiled for the `popcnt` instruction when the processor has it.
///
/// Why: the baseline x86-64 target has no `popcnt`, so a population count is a dozen
/// instructions of bit sums, and counting this seat's draws exactly takes up to seven per sample.
/// Everything `f` inlines (the sampler is all `#[inline]`) is compiled again with the
/// instruction, and the processor is asked once per query (the answer is cached).
#[inline(always)]
fn with_popcnt<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "popcnt")]
        fn run<R>(f: impl FnOnce() -> R) -> R {
            f()
        }
        if std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: `run` needs no feature but `popcnt`, which the processor has.
            return unsafe { run(f) };
        }
    }
    f()
}

/// Whether [`equity`] counts every outcome for this spot (given the keep's size).
fn exact_for(spot: &DrawSpot, keep: CardSet, unseen: CardSet, cfg: &Config) -> bool {
    let all_known = spot
        .opponents
        .iter()
        .all(|o| o.known.is_some() && o.draws_left == 0);
    if !all_known || spot.draws_left > 1 {
        return false;
    }
    let need = 5 - keep.len();
    let mut c: u64 = 1;
    for i in 0..u64::from(need) {
        c = c * (u64::from(unseen.len()) - i) / (i + 1);
    }
    c <= cfg.exact_limit
}

fn exact(spot: &DrawSpot, keep: CardSet, unseen: CardSet) -> DrawEquity {
    let afs = spot.ace_five_straight;
    let mut values = [0u32; 8];
    let n = spot.opponents.len();
    for (i, o) in spot.opponents.iter().enumerate() {
        values[i + 1] = deuce_to_seven(o.known.unwrap_or(CardSet::EMPTY), afs).get();
    }
    let pool: Vec<Card> = unseen.iter().collect();
    let mut tally = Tally::<1>::new();
    let need = if spot.draws_left == 0 {
        0
    } else {
        5 - keep.len() as usize
    };
    let mut idx: Vec<usize> = (0..need).collect();
    loop {
        let mut hero = keep;
        for &i in &idx {
            hero.insert(pool[i]);
        }
        values[0] = deuce_to_seven(hero, afs).get();
        tally.add(1.0, [share(&values[..=n])]);
        // Next combination in lexicographic order.
        let mut k = need;
        while k > 0 && idx[k - 1] == pool.len() - need + k - 1 {
            k -= 1;
        }
        if k == 0 {
            break;
        }
        idx[k - 1] += 1;
        for j in k..need {
            idx[j] = idx[j - 1] + 1;
        }
    }
    DrawEquity {
        share: tally.means()[0],
        std_err: 0.0,
        samples: tally.n,
        exact: true,
    }
}

/// The keeps worth comparing: standing pat on a made hand (no pair, straight or flush) jack or
/// better, keeping the lowest `j` distinct ranks up to the ten for `j = 0..=4` (one card per rank;
/// of a pair, the card of the suit the others hold least), and, from five distinct ranks, each
/// four-card keep that throws one of them (breaking a straight or a rough hand where it helps
/// most). Keeping a pair or a high card while throwing a lower one is never better in
/// deuce-to-seven; "snowing" (standing pat on junk) only wins with betting, which equity leaves
/// out, so neither is tried.
pub fn candidates(hand: CardSet) -> Vec<CardSet> {
    let mut singles: Vec<Card> = Vec::with_capacity(5);
    let mut seen = 0u16;
    let mut sorted: Vec<Card> = hand.iter().collect();
    sorted.sort_by_key(|c| (c.rank().index(), suit_load(hand, *c)));
    for c in sorted {
        let r = c.rank().index();
        if seen & 1 << r == 0 {
            seen |= 1 << r;
            singles.push(c);
        }
    }
    let mut out = Vec::with_capacity(10);
    if made(hand) && top(ranks(hand)) <= TEN + 1 {
        out.push(hand);
    }
    let mut keep = CardSet::EMPTY;
    out.push(keep);
    for c in singles.iter().take(4) {
        if c.rank().index() > TEN {
            break;
        }
        keep.insert(*c);
        out.push(keep);
    }
    if singles.len() == 5 {
        for c in &singles[..4] {
            let mut four = hand;
            four.remove(*c);
            if !out.contains(&four) {
                out.push(four);
            }
        }
    }
    out
}

/// How many other cards of the hand share this card's suit (fewer: less flush risk).
fn suit_load(hand: CardSet, c: Card) -> u32 {
    hand.intersection(CardSet::from_bits(0x1fff << (16 * c.suit().index())))
        .len()
}

/// The best keep among [`candidates`], all estimated on the same samples: each sample plays the
/// opponents once, then every candidate's draw from the same random numbers (common random
/// numbers make the comparison sharper than the error of each estimate, and the opponents'
/// play-out, the larger part of a sample, is not repeated per candidate). Where [`equity`] would
/// count exactly (last draw, opponents known), each candidate is counted exactly. With no draw
/// left, the hand.
///
/// # Errors
/// As [`equity`].
pub fn best_keep(spot: &DrawSpot, cfg: &Config) -> Result<Keep, EquityError> {
    if spot.draws_left == 0 {
        let e = equity(spot, spot.hand, cfg)?;
        return Ok(Keep {
            keep: spot.hand,
            equity: e,
            candidates: 1,
        });
    }
    let cands = candidates(spot.hand);
    let equities = keep_equities(spot, &cands, cfg)?;
    let mut best: Option<Keep> = None;
    for (keep, e) in cands.iter().zip(equities) {
        if best.is_none_or(|b| e.share > b.equity.share) {
            best = Some(Keep {
                keep: *keep,
                equity: e,
                candidates: cands.len() as u32,
            });
        }
    }
    best.ok_or(EquityError::NoSamples)
}

/// The equity of each keep of `keeps` (subsets of the hand), all on the same samples as in
/// [`best_keep`]: cheaper than one [`equity`] per keep, since the opponents are played out once
/// per sample for all of them (what a bot comparing its own candidate keeps at a full table
/// wants). Keeps that [`equity`] would count exactly are counted exactly.
///
/// # Errors
/// As [`equity`], for any of the keeps.
pub fn keep_equities(
    spot: &DrawSpot,
    keeps: &[CardSet],
    cfg: &Config,
) -> Result<Vec<DrawEquity>, EquityError> {
    let mut unseen = CardSet::EMPTY;
    for k in keeps {
        unseen = check(spot, *k)?;
    }
    let (exact, sampled): (Vec<CardSet>, Vec<CardSet>) = keeps
        .iter()
        .partition(|k| exact_for(spot, **k, unseen, cfg));
    let mut sampled_eq = if sampled.is_empty() {
        Vec::new()
    } else {
        sampled_keeps(spot, &sampled, unseen, cfg)?
    }
    .into_iter();
    let mut equities = Vec::with_capacity(keeps.len());
    for keep in keeps {
        equities.push(if exact.contains(keep) {
            equity(spot, *keep, cfg)?
        } else {
            sampled_eq.next().expect("one estimate per sampled keep")
        });
    }
    Ok(equities)
}

/// The sampled equity of each keep of `cands` (see [`best_keep`]).
fn sampled_keeps(
    spot: &DrawSpot,
    cands: &[CardSet],
    unseen: CardSet,
    cfg: &Config,
) -> Result<Vec<DrawEquity>, EquityError> {
    if cfg.samples == 0 {
        return Err(EquityError::NoSamples);
    }
    let tallies = with_popcnt(
        #[inline(always)]
        || {
            let mut pool = Pool::new(unseen, cfg.seed);
            let mut tallies: Vec<Tally<1>> = cands.iter().map(|_| Tally::new()).collect();
            let mut sim = Sim::new(spot, unseen.len());
            let draws = spot.draws_left;
            // The keeps whose draws are counted exactly, with their tables (see `equity`).
            let chained: Vec<Option<OneCard>> = cands.iter().map(|k| sim.chained(*k)).collect();
            for _ in 0..cfg.samples {
                pool.reset();
                let (best, tied) = sim.opponents_best(&mut pool);
                let after = pool.clone();
                for ((keep, tally), table) in cands.iter().zip(&mut tallies).zip(&chained) {
                    let share = match table {
                        Some(t) if after.left() >= u32::from(draws) => {
                            t.share_after(draws, after.avail(), after.left(), best, tied)
                        }
                        _ => {
                            pool.clone_from(&after);
                            sim.hero_share(keep.bits(), &mut pool, best, tied)
                        }
                    };
                    tally.add(1.0, [share]);
                }
                // The next sample's random numbers follow on from the last keep's, as when every
                // keep was dealt from a copy of the pool.
                if chained.last().is_some_and(Option::is_some) {
                    pool.clone_from(&after);
                }
            }
            tallies
        },
    );
    Ok(tallies
        .iter()
        .map(|t| DrawEquity {
            share: t.means()[0],
            std_err: t.std_err(),
            samples: t.n,
            exact: false,
        })
        .collect())
}

/// The share of the pot of a final value `v` against the opponents' best value `best`, held by
/// `tied` of them: all of it, an equal part among the `tied + 1`, or nothing.
#[inline]
fn share_against(v: u32, best: u32, tied: u32) -> f64 {
    if v > best {
        1.0
    } else if v == best {
        1.0 / f64::from(tied + 1)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::Rng;

    /// This seat's expected share of its last `draws` draws to the four cards `keep`, played card by
    /// card: every card of `avail` in turn, the rule applied to the five cards, the keep checked
    /// to be the same four ranks again when the card is thrown.
    fn played(keep: u64, draws: u8, avail: u64, best: u32, tied: u32) -> f64 {
        let mut sum = 0.0;
        let mut rest = avail;
        while rest != 0 {
            let c = rest & rest.wrapping_neg();
            rest ^= c;
            let hand = keep | c;
            let (k, n) = policy5(CardSet::from_bits(hand), draws - 1);
            sum += if draws == 1 || n == 5 {
                share_against(
                    deuce_to_seven(CardSet::from_bits(hand), false).get(),
                    best,
                    tied,
                )
            } else {
                assert_eq!(n, 4);
                assert_eq!(rank_mask(k.bits()), rank_mask(keep));
                played(k.bits(), draws - 1, avail ^ c, best, tied)
            };
        }
        sum / f64::from(avail.count_ones())
    }

    fn cards(text: &str) -> u64 {
        pitboss_cards::parse_cards(text)
            .unwrap()
            .iter()
            .collect::<CardSet>()
            .bits()
    }

    /// [`OneCard::share_after`]'s formula against every sequence of cards, for keeps whose draws
    /// chain (and the keeps that do not are recognised), over random stubs and opponents' values
    /// (ties included).
    #[test]
    fn chain_share_counts_every_draw() {
        let table = |keep: u64| {
            let key = if one_suit(keep) {
                keep
            } else {
                1 << 63 | u64::from(rank_mask(keep))
            };
            OneCard::new(key, keep, &NO_PAIR, false)
        };
        // Not chained: a flush draw, a 9 thrown at two to come, a straight
        // that throws the 6 (2-3-4-5-6), a king.
        for k in ["2c 3c 4c 7c", "2c 3d 4h 9s", "3c 4d 5h 6s", "2c 3d 4h Ks"] {
            let keep = cards(k);
            assert!(!table(keep).chains(keep, 2), "{k}");
        }
        // Chained by ranks, but swapping in a pair's clubs could make four clubs.
        for (k, draws) in [("2c 3c 4c 7d", 2), ("2c 3c 4h 7d", 3)] {
            let keep = cards(k);
            assert!(table(keep).chain && !table(keep).chains(keep, draws), "{k}");
        }
        let mut rng = Rng::new(7);
        for k in [
            "2c 3d 4h 7s",
            "2d 3h 4s 7c",
            "2c 3d 4h 5s",
            "2c 3d 6h 8s",
            "2d 4c 6h 8s",
            "2c 5d 7h 8s",
        ] {
            let keep = cards(k);
            let t = table(keep);
            assert!(t.chains(keep, 3), "{k}");
            for case in 0..12 {
                // A stub of 30 to 46 cards: the deck less the keep, its thrown card and others.
                let mut avail = CardSet::FULL.bits() & !keep;
                for _ in 0..rng.below(17) {
                    avail &= !(1 << (16 * rng.below(4) + rng.below(13)));
                }
                // Opponents' best: a value this keep can tie, or none, or the best there is.
                let best = match case % 4 {
                    0 => 0,
                    3 => u32::MAX,
                    _ => {
                        // A fifth card: one the keep does not hold (five cards to value).
                        let c = loop {
                            let c = 1u64 << (16 * rng.below(4) + rng.below(13));
                            if c & keep == 0 {
                                break c;
                            }
                        };
                        value5(&NO_PAIR, keep | c, false)
                    }
                };
                let tied = 1 + rng.below(3) as u32;
                let left = avail.count_ones();
                for draws in 1..=3 {
                    let want = played(keep, draws, avail, best, tied);
                    let got = t.share_after(draws, avail, left, best, tied);
                    assert!(
                        (want - got).abs() < 1e-12,
                        "{k}, {draws} draws, case {case}: {got} against {want}"
                    );
                }
            }
        }
    }
}
