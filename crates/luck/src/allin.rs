//! The all-in value estimate of stud hi/lo: each live seat's expected share of the pot if every
//! live seat went to showdown, over the cards still to come, with every card dealt so far known
//! (the referee sees them all).
//!
//! Why it suits the estimator: with `V` = all-in shares the mean of `V` after a card equals `V`
//! before it (the card is uniform over the stub, and so are the cards after it), so the exact mean
//! the corrections subtract is `V` of the state before — one estimate per state instead of one
//! per card the stub could produce. Estimating it by Monte Carlo with a generator independent of
//! the deck keeps each correction mean-zero: the estimate after a card is unbiased for `V` after,
//! whose mean over the card is `V` before, for which the estimate before is unbiased too.

use pitboss_cards::eval::{ace_to_five_8, high};
use pitboss_cards::{Card, CardSet};
use pitboss_rules::MAX_SEATS;

/// The estimator's generator: wyrand seeded through SplitMix64, independent of the deck (a
/// different algorithm and key), so its noise is independent of the cards to come.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Rng(z ^ (z >> 31))
    }

    #[inline]
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0xa076_1d64_78bd_642f);
        let t = u128::from(self.0) * u128::from(self.0 ^ 0xe703_7ed1_a0b4_28db);
        (t >> 64) as u64 ^ t as u64
    }

    #[inline]
    pub(crate) fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// The live seats of a stud hand and their cards, as the estimate needs them.
pub(crate) struct Table<'a> {
    pub n: usize,
    pub held: &'a [CardSet; MAX_SEATS],
    pub live: &'a [bool; MAX_SEATS],
    /// The stub: every card not dealt yet.
    pub stub: CardSet,
}

/// All-in values of the live seats (zero for the others): the expected share of the pot, and the
/// expected part of it won with the low half.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Shares {
    pub pot: [f64; MAX_SEATS],
    pub low: [f64; MAX_SEATS],
}

/// The outcomes behind the last estimate: per deal (or enumerated card), every then-live seat's
/// final high and low values (`hi << 32 | lo`, by absolute seat). A fold changes who shares the
/// pot but not the cards, so the estimate for the seats still in comes from the same deals at the
/// cost of the comparisons only — and is as unbiased as a fresh one (the deals are uniform
/// completions of the same cards).
#[derive(Clone, Debug, Default)]
pub(crate) struct Store {
    rows: Vec<[u64; MAX_SEATS]>,
    valid: bool,
    /// Whether the deals gave the seventh card as a community card: fewer seats may not need one,
    /// and then the deals are not those of the seats still in (a fresh estimate is needed).
    community: bool,
}

/// A seat's final values, packed: high in the upper half, low (0: none) in the lower.
#[inline]
fn values(set: CardSet) -> u64 {
    u64::from(high(set).get()) << 32 | u64::from(ace_to_five_8(set).map_or(0, |v| v.get()))
}

/// Pot shares in integer units: 1,680 = 2 · lcm(1..8), so that half a pot split among up to
/// eight tied winners is a whole number of units, and sums of showdowns stay exact.
const UNITS: u32 = 1680;

/// Integer pot and low shares of the live seats, summed over showdowns.
#[derive(Clone, Copy)]
struct Tally {
    pot: [u32; MAX_SEATS],
    low: [u32; MAX_SEATS],
}

impl Tally {
    fn new() -> Tally {
        Tally {
            pot: [0; MAX_SEATS],
            low: [0; MAX_SEATS],
        }
    }

    /// The mean shares over `count` showdowns.
    fn shares(&self, count: usize) -> Shares {
        let f = 1.0 / (f64::from(UNITS) * count as f64);
        let mut out = Shares::default();
        for i in 0..MAX_SEATS {
            out.pot[i] = f64::from(self.pot[i]) * f;
            out.low[i] = f64::from(self.low[i]) * f;
        }
        out
    }
}

/// Adds the showdown shares of the live seats of `row` to `tally`.
#[inline]
fn showdown(row: &[u64; MAX_SEATS], seats: &[usize], tally: &mut Tally) {
    let (mut best_hi, mut best_lo) = (0u64, 0u64);
    for &i in seats {
        best_hi = best_hi.max(row[i] >> 32);
        best_lo = best_lo.max(row[i] & 0xffff_ffff);
    }
    let (mut w_hi, mut w_lo) = (0u32, 0u32);
    for &i in seats {
        w_hi += u32::from(row[i] >> 32 == best_hi);
        w_lo += u32::from(row[i] & 0xffff_ffff == best_lo);
    }
    let (hi_unit, lo_unit) = if best_lo > 0 {
        (UNITS / 2 / w_hi, UNITS / 2 / w_lo)
    } else {
        (UNITS / w_hi, 0)
    };
    for &i in seats {
        let lo = u32::from(row[i] & 0xffff_ffff == best_lo) * lo_unit;
        tally.pot[i] += u32::from(row[i] >> 32 == best_hi) * hi_unit + lo;
        tally.low[i] += lo;
    }
}

/// Whether the live `seats` of `t` would get their seventh card as one community card: the stub
/// (`stub` cards) cannot give each of them all its missing cards (the rules' short seventh street).
fn short_seventh(t: &Table<'_>, seats: &[usize], stub: usize) -> bool {
    let need = |i: usize| 7usize.saturating_sub(t.held[i].len() as usize);
    let total: usize = seats.iter().map(|&i| need(i)).sum();
    total > stub && seats.iter().all(|&i| need(i) >= 1)
}

/// The live seats of `t`, in order.
fn live_seats(t: &Table<'_>, seats: &mut [usize; MAX_SEATS]) -> usize {
    let mut k = 0;
    for i in (0..t.n).filter(|i| t.live[*i]) {
        seats[k] = i;
        k += 1;
    }
    k
}

/// The all-in shares of the live seats into `out` (zero for the others): exact when at most one
/// card is missing in all (or only the community card), else the mean of `samples` deals; the
/// deals' outcomes are kept in `store` for [`refold`].
///
/// Seats get their missing cards in turn from the stub; when the stub cannot give every live
/// seat its seventh card, the seventh is one community card (the rules' short seventh street).
pub(crate) fn stud_shares(
    t: &Table<'_>,
    samples: u32,
    rng: &mut Rng,
    out: &mut Shares,
    store: &mut Store,
) {
    *out = Shares::default();
    store.rows.clear();
    store.valid = false;
    let mut seats = [0usize; MAX_SEATS];
    let k = live_seats(t, &mut seats);
    let seats = &seats[..k];
    if k == 0 {
        return;
    }
    let mut need = [0usize; MAX_SEATS];
    for &i in seats {
        need[i] = 7usize.saturating_sub(t.held[i].len() as usize);
    }
    if seats.iter().all(|&i| t.held[i].is_empty()) {
        // Nobody holds a card yet: by symmetry every live seat's share is the same.
        for &i in seats {
            out.pot[i] = 1.0 / k as f64;
            out.low[i] = 0.0;
        }
        return;
    }
    let mut cards = [Card::from_index(0); 52];
    let mut m = 0;
    for c in t.stub.iter() {
        cards[m] = c;
        m += 1;
    }
    let community = short_seventh(t, seats, m);
    let total: usize = seats.iter().map(|&i| need[i]).sum();
    let private: usize = if community { total - k } else { total };
    let draws = private + usize::from(community);
    store.valid = true;
    store.community = community;
    let mut row = [0u64; MAX_SEATS];
    let mut tally = Tally::new();
    if draws == 0 || draws > m {
        // Everything is known (or, impossible in a legal hand, too few cards: a showdown of what
        // is held keeps V defined).
        for &i in seats {
            row[i] = values(t.held[i]);
        }
        store.rows.push(row);
        showdown(&row, seats, &mut tally);
        *out = tally.shares(1);
        return;
    }
    if draws == 1 {
        // One card decides: enumerate it.
        let to = seats.iter().copied().find(|&i| need[i] > 0);
        for &i in seats {
            row[i] = values(t.held[i]);
        }
        for &c in &cards[..m] {
            for &i in seats {
                if community || Some(i) == to {
                    let mut x = t.held[i];
                    x.insert(c);
                    row[i] = values(x);
                }
            }
            store.rows.push(row);
            showdown(&row, seats, &mut tally);
        }
        *out = tally.shares(m);
        return;
    }
    for _ in 0..samples {
        let mut next = 0;
        let mut take = |rng: &mut Rng| {
            let r = next + rng.below(m - next);
            cards.swap(next, r);
            next += 1;
            cards[next - 1]
        };
        let mut s = *t.held;
        for &i in seats {
            let own = if community { need[i] - 1 } else { need[i] };
            for _ in 0..own {
                s[i].insert(take(rng));
            }
        }
        if community {
            let c = take(rng);
            for &i in seats {
                s[i].insert(c);
            }
        }
        for &i in seats {
            row[i] = values(s[i]);
        }
        store.rows.push(row);
        showdown(&row, seats, &mut tally);
    }
    *out = tally.shares(samples as usize);
}

/// The all-in shares of the live seats of `t` from the outcomes of the last estimate, made when
/// these seats (and maybe others, who have folded since) were live and held the same cards; `None`
/// if there are none to use.
pub(crate) fn refold(t: &Table<'_>, store: &Store) -> Option<Shares> {
    if !store.valid || store.rows.is_empty() {
        return None;
    }
    let mut seats = [0usize; MAX_SEATS];
    let k = live_seats(t, &mut seats);
    if short_seventh(t, &seats[..k], t.stub.len() as usize) != store.community {
        return None;
    }
    let mut tally = Tally::new();
    for row in &store.rows {
        showdown(row, &seats[..k], &mut tally);
    }
    Some(tally.shares(store.rows.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitboss_cards::parse_cards;

    fn set(s: &str) -> CardSet {
        parse_cards(s).unwrap().into_iter().collect()
    }

    /// A plain showdown of finished seven-card hands, written apart from [`showdown`]: who wins
    /// the high half, who the low half (cards speak, ties split).
    fn naive(hands: &[CardSet]) -> Vec<f64> {
        let hi: Vec<_> = hands.iter().map(|h| high(*h)).collect();
        let lo: Vec<_> = hands.iter().map(|h| ace_to_five_8(*h)).collect();
        let best_hi = *hi.iter().max().unwrap();
        let best_lo = lo.iter().flatten().max().copied();
        let hi_winners = hi.iter().filter(|h| **h == best_hi).count() as f64;
        let lo_winners = lo.iter().filter(|l| l.is_some() && **l == best_lo).count() as f64;
        let hi_part = if best_lo.is_some() { 0.5 } else { 1.0 };
        (0..hands.len())
            .map(|j| {
                let mut s = 0.0;
                if hi[j] == best_hi {
                    s += hi_part / hi_winners;
                }
                if best_lo.is_some() && lo[j] == best_lo {
                    s += 0.5 / lo_winners;
                }
                s
            })
            .collect()
    }

    /// Heads-up, both seats one card short: every ordered pair of cards, counted by brute force.
    fn brute_two(a: CardSet, b: CardSet, stub: CardSet) -> [f64; 2] {
        let (mut s, mut n) = ([0.0; 2], 0.0);
        for x in stub.iter() {
            for y in stub.iter().filter(|y| *y != x) {
                let mut ha = a;
                ha.insert(x);
                let mut hb = b;
                hb.insert(y);
                let r = naive(&[ha, hb]);
                s[0] += r[0];
                s[1] += r[1];
                n += 1.0;
            }
        }
        [s[0] / n, s[1] / n]
    }

    fn table(held: &[CardSet], stub: CardSet) -> ([CardSet; MAX_SEATS], [bool; MAX_SEATS]) {
        let mut h = [CardSet::EMPTY; MAX_SEATS];
        let mut live = [false; MAX_SEATS];
        for (i, s) in held.iter().enumerate() {
            h[i] = *s;
            live[i] = true;
        }
        assert!(held.iter().all(|s| s.intersection(stub).is_empty()));
        (h, live)
    }

    fn rest(held: &[CardSet]) -> CardSet {
        held.iter().fold(CardSet::FULL, |acc, s| acc.difference(*s))
    }

    #[test]
    fn one_missing_card_is_enumerated_exactly_and_averages_to_the_state_before() {
        // Sixth street heads-up: a low draw with a flush draw against two pair.
        let a = set("Ah 2h 3d 7h Kh Qc");
        let b = set("9s 9c 5s 5d Js 4c");
        let stub = rest(&[a, b]);
        let want = brute_two(a, b, stub);
        // The tower rule by the module's exact path: deal seat 0's card, enumerate seat 1's.
        let mut mean = [0.0; 2];
        for x in stub.iter() {
            let mut a1 = a;
            a1.insert(x);
            let mut s2 = stub;
            s2.remove(x);
            let (held, live) = table(&[a1, b], s2);
            let t = Table {
                n: 2,
                held: &held,
                live: &live,
                stub: s2,
            };
            let mut out = Shares::default();
            stud_shares(&t, 1, &mut Rng::new(0), &mut out, &mut Store::default());
            mean[0] += out.pot[0] / f64::from(stub.len());
            mean[1] += out.pot[1] / f64::from(stub.len());
        }
        for j in 0..2 {
            assert!((mean[j] - want[j]).abs() < 1e-12, "{mean:?} {want:?}");
        }
        assert!(want[0] > 0.05 && want[0] < 0.95, "{want:?}");
    }

    #[test]
    fn monte_carlo_shares_are_unbiased_with_the_stated_noise() {
        let a = set("Ah 2h 3d 7h Kh Qc");
        let b = set("9s 9c 5s 5d Js 4c");
        let stub = rest(&[a, b]);
        let want = brute_two(a, b, stub);
        let (held, live) = table(&[a, b], stub);
        let t = Table {
            n: 2,
            held: &held,
            live: &live,
            stub,
        };
        let (runs, samples) = (2_000, 48);
        let (mut sum, mut sq) = (0.0, 0.0);
        for seed in 0..runs {
            let mut out = Shares::default();
            stud_shares(
                &t,
                samples,
                &mut Rng::new(seed),
                &mut out,
                &mut Store::default(),
            );
            assert!((out.pot[0] + out.pot[1] - 1.0).abs() < 1e-12);
            sum += out.pot[0];
            sq += out.pot[0] * out.pot[0];
        }
        let n = f64::from(runs as u32);
        let mean = sum / n;
        let sd = (sq / n - mean * mean).sqrt();
        let se = sd / n.sqrt();
        assert!(
            (mean - want[0]).abs() < 4.5 * se,
            "{mean} vs {want:?} ± {se}"
        );
        // The noise of one estimate is that of `samples` independent showdowns: a share in
        // [0, 1] with mean p has a variance of at most p (1 − p).
        let p_sd = (want[0] * (1.0 - want[0])).sqrt();
        assert!(
            sd < 1.2 * p_sd / f64::from(samples).sqrt(),
            "{sd} vs {p_sd}"
        );
    }

    #[test]
    fn after_a_fold_the_same_deals_estimate_the_seats_still_in_without_bias() {
        // Three seats on sixth street; the third folds: the two left are worth what a brute-force
        // count of their seventh cards says, averaged over the third seat's deals too.
        let a = set("Ah 2h 3d 7h Kh Qc");
        let b = set("9s 9c 5s 5d Js 4c");
        let c = set("Tc Td 8s 6c 6d 2c");
        let stub = rest(&[a, b, c]);
        // The folded seat's cards are dealt, hence not in the stub: brute force over it.
        let want = brute_two(a, b, stub);
        let (held, mut live) = table(&[a, b, c], stub);
        let (runs, samples) = (2_000, 48);
        let (mut sum, mut sq) = (0.0, 0.0);
        for seed in 0..runs {
            live[2] = true;
            let t = Table {
                n: 3,
                held: &held,
                live: &live,
                stub,
            };
            let (mut out, mut store) = (Shares::default(), Store::default());
            stud_shares(&t, samples, &mut Rng::new(seed), &mut out, &mut store);
            live[2] = false;
            let t = Table {
                n: 3,
                held: &held,
                live: &live,
                stub,
            };
            let after = refold(&t, &store).expect("deals kept");
            assert!((after.pot[0] + after.pot[1] - 1.0).abs() < 1e-12);
            assert_eq!(after.pot[2], 0.0);
            sum += after.pot[0];
            sq += after.pot[0] * after.pot[0];
        }
        let n = f64::from(runs as u32);
        let mean = sum / n;
        let se = ((sq / n - mean * mean) / n).sqrt();
        assert!(se > 0.0);
        assert!(
            (mean - want[0]).abs() < 4.5 * se,
            "{mean} vs {want:?} ± {se}"
        );
    }

    #[test]
    fn deals_with_a_community_card_are_not_reused_for_fewer_seats_that_need_none() {
        // Eight seats after third street (24 cards dealt, 28 left): the seventh card is shared.
        let deck: Vec<Card> = (0..52).map(Card::from_index).collect();
        let held: Vec<CardSet> = (0..8)
            .map(|i| deck[i * 3..i * 3 + 3].iter().copied().collect())
            .collect();
        let stub = rest(&held);
        let (h, mut live) = table(&held, stub);
        let t = Table {
            n: 8,
            held: &h,
            live: &live,
            stub,
        };
        let (mut out, mut store) = (Shares::default(), Store::default());
        stud_shares(&t, 18, &mut Rng::new(3), &mut out, &mut store);
        assert!(store.community);
        // One fold: seven seats still need 28 cards, the stub has 28: no community card.
        live[7] = false;
        let t = Table {
            n: 8,
            held: &h,
            live: &live,
            stub,
        };
        assert!(refold(&t, &store).is_none());
        // Heads-up the same cards are reused.
        let (h2, live2) = table(&held[..2], rest(&held[..2]));
        let t2 = Table {
            n: 2,
            held: &h2,
            live: &live2,
            stub: rest(&held[..2]),
        };
        stud_shares(&t2, 18, &mut Rng::new(3), &mut out, &mut store);
        let mut live3 = live2;
        live3[1] = false;
        let t3 = Table {
            n: 2,
            held: &h2,
            live: &live3,
            stub: rest(&held[..2]),
        };
        assert_eq!(refold(&t3, &store).expect("reused").pot[0], 1.0);
    }

    #[test]
    fn a_short_seventh_street_shares_one_community_card() {
        // Eight seats with six cards each leave four: the seventh card is a community card.
        let deck: Vec<Card> = (0..52).map(Card::from_index).collect();
        let held: Vec<CardSet> = (0..8)
            .map(|i| deck[i * 6..i * 6 + 6].iter().copied().collect())
            .collect();
        let stub = rest(&held);
        assert_eq!(stub.len(), 4);
        let (h, live) = table(&held, stub);
        let t = Table {
            n: 8,
            held: &h,
            live: &live,
            stub,
        };
        let mut out = Shares::default();
        stud_shares(&t, 1, &mut Rng::new(0), &mut out, &mut Store::default());
        let mut want = vec![0.0; 8];
        for c in stub.iter() {
            let hands: Vec<CardSet> = held
                .iter()
                .map(|s| {
                    let mut x = *s;
                    x.insert(c);
                    x
                })
                .collect();
            for (w, r) in want.iter_mut().zip(naive(&hands)) {
                *w += r / 4.0;
            }
        }
        for j in 0..8 {
            assert!(
                (out.pot[j] - want[j]).abs() < 1e-12,
                "{:?} {want:?}",
                out.pot
            );
        }
    }

    #[test]
    fn nobody_holding_a_card_shares_alike() {
        let (h, live) = table(&[CardSet::EMPTY; 3], CardSet::FULL);
        let t = Table {
            n: 3,
            held: &h,
            live: &live,
            stub: CardSet::FULL,
        };
        let mut out = Shares::default();
        stud_shares(&t, 48, &mut Rng::new(1), &mut out, &mut Store::default());
        assert_eq!(&out.pot[..3], &[1.0 / 3.0; 3]);
        assert_eq!(&out.low[..3], &[0.0; 3]);
    }
}
