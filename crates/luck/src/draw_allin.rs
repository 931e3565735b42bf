//! The all-in value estimate of triple draw once the betting is over: each live seat's expected
//! share of the pot at the showdown that must now come, every card dealt so far known, the cards
//! still to come uniform over the stub, and every draw still to make by the standard drawing rule
//! (`pitboss_equity::draw::policy`: stand pat on a made 8, 9 or 10 with three, two or one draws to
//! come, else keep the lowest card of each rank up to the 8).
//!
//! Why it keeps the estimator unbiased although the bots may draw otherwise: the corrections are
//! taken at chance events only. Between two chance events nothing but a bot's discard happens,
//! and there `V` may jump freely (no correction is taken at a decision). At a chance event, the
//! estimate of the state after a seat's cards is unbiased for the value `A(after)` of the process
//! "deal uniformly from the stub, draw by the rule", whose mean over those cards is the same
//! process's value `A(before)` (its first step *is* dealing those cards uniformly), for which the
//! estimate before is unbiased too. So `E[A(after) − A(before)] = 0` over the cards and the
//! sampler together, whatever the bots draw.
//!
//! It is used only while the stub cannot run out (heads-up it never can: 10 + 30 cards): a
//! reshuffle of the muck would make the cards to come depend on the discards in a way the simple
//! deal below does not follow.

use pitboss_cards::eval::deuce_to_seven;
use pitboss_cards::{Card, CardSet};
use pitboss_rules::MAX_SEATS;

use crate::allin::{Rng, Shares};

/// Draws in deuce-to-seven triple draw.
pub(crate) const DRAWS: u8 = 3;

/// The live seats of a triple-draw hand whose betting is over, as the estimate needs them.
pub(crate) struct DrawTable<'a> {
    pub n: usize,
    pub held: &'a [CardSet; MAX_SEATS],
    pub live: &'a [bool; MAX_SEATS],
    /// The stub: the cards that may come next.
    pub stub: CardSet,
    /// Cards a seat is still owed from the draw it declared.
    pub to_serve: &'a [u8; MAX_SEATS],
    /// Draws each seat has declared so far.
    pub drawn: &'a [u8; MAX_SEATS],
    pub ace_five_straight: bool,
}

impl DrawTable<'_> {
    /// The most cards the rest of the hand can take from the stub: every seat's owed cards and
    /// five for each draw it has still to declare.
    pub(crate) fn most_needed(&self) -> u32 {
        (0..self.n)
            .filter(|&i| self.live[i])
            .map(|i| {
                u32::from(self.to_serve[i]) + 5 * u32::from(DRAWS.saturating_sub(self.drawn[i]))
            })
            .sum()
    }

    /// Whether nothing is left to deal: the showdown's cards are known.
    fn settled(&self) -> bool {
        (0..self.n).all(|i| !self.live[i] || (self.to_serve[i] == 0 && self.drawn[i] >= DRAWS))
    }
}

/// The stub as an array, dealt from without replacement by a partial Fisher–Yates shuffle that
/// starts over for every sample (the swaps stay: any order of the stub is as good a start).
struct Dealer {
    cards: [Card; 52],
    len: usize,
    next: usize,
}

impl Dealer {
    fn new(stub: CardSet) -> Dealer {
        let mut cards = [Card::from_index(0); 52];
        let mut len = 0;
        for c in stub.iter() {
            cards[len] = c;
            len += 1;
        }
        Dealer {
            cards,
            len,
            next: 0,
        }
    }

    #[inline]
    fn deal(&mut self, rng: &mut Rng) -> Card {
        let j = self.next + rng.below(self.len - self.next);
        self.cards.swap(self.next, j);
        self.next += 1;
        self.cards[self.next - 1]
    }
}

/// Adds one showdown's shares (win 1, ties split) of the live seats of `values` to `sum`.
#[inline]
fn showdown(values: &[u32; MAX_SEATS], seats: &[usize], sum: &mut [f64; MAX_SEATS]) {
    let best = seats.iter().map(|&i| values[i]).max().unwrap_or(0);
    let winners = seats.iter().filter(|&&i| values[i] == best).count() as f64;
    for &i in seats {
        if values[i] == best {
            sum[i] += 1.0 / winners;
        }
    }
}

/// The all-in pot shares of the live seats of `t` into `out.pot` (zero for the others; `out.low`
/// zero): exact when nothing is left to deal, or one card in all with no draw to declare; else
/// the mean of `samples` deals of the rest of the hand.
pub(crate) fn draw_shares(t: &DrawTable<'_>, samples: u32, rng: &mut Rng, out: &mut Shares) {
    let mut seats = [0usize; MAX_SEATS];
    let mut k = 0;
    for i in (0..t.n).filter(|&i| t.live[i]) {
        seats[k] = i;
        k += 1;
    }
    let seats = &seats[..k];
    *out = Shares::default();
    let value = |set: CardSet| deuce_to_seven(set, t.ace_five_straight).get();
    let mut values = [0u32; MAX_SEATS];
    let mut sum = [0.0; MAX_SEATS];
    if t.settled() {
        for &i in seats {
            values[i] = value(t.held[i]);
        }
        showdown(&values, seats, &mut sum);
        out.pot = sum;
        return;
    }
    let owed: u32 = seats.iter().map(|&i| u32::from(t.to_serve[i])).sum();
    let no_draws = seats.iter().all(|&i| t.drawn[i] >= DRAWS);
    if owed == 1 && no_draws {
        // One card to one seat: every card of the stub, exactly.
        let r = *seats
            .iter()
            .find(|&&i| t.to_serve[i] == 1)
            .unwrap_or(&seats[0]);
        for &i in seats {
            values[i] = value(t.held[i]);
        }
        let mut count = 0.0;
        for c in t.stub.iter() {
            let mut h = t.held[r];
            h.insert(c);
            values[r] = value(h);
            showdown(&values, seats, &mut sum);
            count += 1.0;
        }
        for &i in seats {
            out.pot[i] = sum[i] / count;
        }
        return;
    }
    let mut dealer = Dealer::new(t.stub);
    let samples = samples.max(1);
    for _ in 0..samples {
        dealer.next = 0;
        for &i in seats {
            let mut h = t.held[i];
            for _ in 0..t.to_serve[i] {
                h.insert(dealer.deal(rng));
            }
            for d in t.drawn[i]..DRAWS {
                let keep = pitboss_equity::draw::policy(h, DRAWS - d);
                h = keep;
                while h.len() < 5 {
                    h.insert(dealer.deal(rng));
                }
            }
            values[i] = value(h);
        }
        showdown(&values, seats, &mut sum);
    }
    let f = 1.0 / f64::from(samples);
    for &i in seats {
        out.pot[i] = sum[i] * f;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitboss_cards::parse_cards;

    fn set(s: &str) -> CardSet {
        parse_cards(s).unwrap().into_iter().collect()
    }

    /// Heads-up shares written apart from [`showdown`]: 1 to the better low, ½ each on a tie.
    fn naive(a: CardSet, b: CardSet) -> f64 {
        let (x, y) = (deuce_to_seven(a, false), deuce_to_seven(b, false));
        match x.cmp(&y) {
            std::cmp::Ordering::Greater => 1.0,
            std::cmp::Ordering::Equal => 0.5,
            std::cmp::Ordering::Less => 0.0,
        }
    }

    struct Spot {
        held: [CardSet; MAX_SEATS],
        live: [bool; MAX_SEATS],
        to_serve: [u8; MAX_SEATS],
        drawn: [u8; MAX_SEATS],
    }

    impl Spot {
        fn new(a: &str, b: &str, owed: [u8; 2], drawn: [u8; 2]) -> Spot {
            let mut s = Spot {
                held: [CardSet::EMPTY; MAX_SEATS],
                live: [false; MAX_SEATS],
                to_serve: [0; MAX_SEATS],
                drawn: [0; MAX_SEATS],
            };
            s.held[0] = set(a);
            s.held[1] = set(b);
            s.live[..2].fill(true);
            s.to_serve[..2].copy_from_slice(&owed);
            s.drawn[..2].copy_from_slice(&drawn);
            s
        }

        fn stub(&self) -> CardSet {
            CardSet::FULL
                .difference(self.held[0])
                .difference(self.held[1])
        }

        fn table(&self, stub: CardSet) -> DrawTable<'_> {
            DrawTable {
                n: 2,
                held: &self.held,
                live: &self.live,
                stub,
                to_serve: &self.to_serve,
                drawn: &self.drawn,
                ace_five_straight: false,
            }
        }

        fn shares(&self, stub: CardSet, samples: u32, seed: u64) -> f64 {
            let mut out = Shares::default();
            draw_shares(&self.table(stub), samples, &mut Rng::new(seed), &mut out);
            assert!((out.pot[0] + out.pot[1] - 1.0).abs() < 1e-9);
            out.pot[0]
        }
    }

    #[test]
    fn the_last_cards_are_enumerated_exactly() {
        // Seat 0 owed one card of the last draw to 7-5-3-2; seat 1 stands on 8-6-4-3-2.
        let s = Spot::new("7c 5d 3h 2s", "8c 6d 4h 3s 2c", [1, 0], [3, 3]);
        let stub = s.stub();
        let want = stub
            .iter()
            .map(|c| {
                let mut a = s.held[0];
                a.insert(c);
                naive(a, s.held[1])
            })
            .sum::<f64>()
            / f64::from(stub.len());
        assert!((s.shares(stub, 1, 1) - want).abs() < 1e-12);
        // Nothing left to deal: the showdown itself.
        let done = Spot::new("7c 5d 3h 2s 4d", "8c 6d 4h 3s 2c", [0, 0], [3, 3]);
        assert_eq!(done.shares(done.stub(), 1, 1), 1.0);
    }

    #[test]
    fn sampled_shares_match_a_brute_force_count() {
        // Two cards owed to seat 0 at the last draw, against a pat 9-7-6-4-3.
        let s = Spot::new("8c 5d 2h", "9c 7d 6h 4s 3c", [2, 0], [3, 3]);
        let stub = s.stub();
        let (mut sum, mut n) = (0.0, 0.0);
        for x in stub.iter() {
            for y in stub.iter().filter(|y| *y > x) {
                let mut a = s.held[0];
                a.insert(x);
                a.insert(y);
                sum += naive(a, s.held[1]);
                n += 1.0;
            }
        }
        let want = sum / n;
        let samples = 200_000;
        let got = s.shares(stub, samples, 7);
        let sd = (want * (1.0 - want) / f64::from(samples)).sqrt();
        assert!((got - want).abs() < 5.0 * sd, "{got} against {want} ± {sd}");
    }

    /// The property the corrections' zero mean rests on: the value before a card is the mean,
    /// over the stub, of the values after it — with a draw still to come by the rule.
    #[test]
    fn the_value_before_a_card_is_the_mean_of_the_values_after_it() {
        // Seat 0 owed one card of the second draw (one more to come); seat 1 has declared its
        // second draw and is owed nothing, its third draw still to come.
        let s = Spot::new("7c 4d 3h 2s", "8c 6d 5h 3s 2c", [1, 0], [2, 2]);
        let stub = s.stub();
        let samples = 400_000;
        let before = s.shares(stub, samples, 11);
        let (mut after, mut k) = (0.0, 0.0);
        for (j, c) in stub.iter().enumerate() {
            let mut next = Spot::new("7c 4d 3h 2s", "8c 6d 5h 3s 2c", [0, 0], [2, 2]);
            next.held[0].insert(c);
            let mut rest = stub;
            rest.remove(c);
            after += next.shares(rest, samples / 40, 100 + j as u64);
            k += 1.0;
        }
        after /= k;
        // Noise of both sides (shares are within [0, 1]: variance at most ¼ per deal).
        let sd = (0.25 / f64::from(samples) + 0.25 / f64::from(samples / 40) / k).sqrt();
        assert!(
            (before - after).abs() < 5.0 * sd,
            "{before} against {after} ± {sd}"
        );
    }

    #[test]
    fn the_rest_of_the_hand_needs_at_most_these_cards() {
        let s = Spot::new("7c 4d 3h", "8c 6d 5h 3s 2c", [2, 0], [1, 1]);
        // Seat 0: 2 owed + 2 draws of up to 5; seat 1: 2 draws of up to 5.
        assert_eq!(s.table(s.stub()).most_needed(), 22);
    }
}
