//! An example external bot for Pitboss, in Rust. It speaks the JSON-lines protocol of
//! `protocol.md` on stdin/stdout using the `pitboss-protocol` types, and plays both games with a
//! few lines of strategy: in deuce-to-seven triple draw it keeps distinct low cards and bets made
//! hands; in stud hi/lo it plays low cards and pairs.
//!
//! It is written on the SDK of `pitboss-protocol` (`sdk::run`): the bot is only the [`Bot`]
//! implementation below. The SDK speaks protocol 1.2 (here 64 tables at once, terse messages: it
//! keeps the view from the events; `--compact` asks for compact ones), 1.1 and version 1 with an
//! older referee.

use pitboss_cards::{Card, Rank};
use pitboss_protocol::{sdk, ActRequest, Action, Bot, Phase};

/// Lowball rank value: deuce 2 .. ace 14 (aces are high in deuce-to-seven).
fn value(c: Card) -> u8 {
    c.rank().index() + 2
}

/// A tiny strategy for both games.
#[derive(Default)]
struct Example {
    stud: bool,
}

impl Example {
    /// Triple draw: cards to throw — pairs and anything above 8 (keeping 5 distinct low ones):
    /// the first card of each rank 8 or lower is kept, in one pass without sorting.
    fn discards(&self, cards: &[Card]) -> Vec<Card> {
        let mut seen = 0u16;
        cards
            .iter()
            .filter(|c| {
                let bit = 1u16 << c.rank().index();
                let keep = value(**c) <= 8 && seen & bit == 0;
                if keep {
                    seen |= bit;
                }
                !keep
            })
            .copied()
            .collect()
    }

    /// How many cards [`Example::discards`] would throw, without building the list.
    fn throws(&self, cards: &[Card]) -> usize {
        let low = cards
            .iter()
            .filter(|c| value(**c) <= 8)
            .fold(0u16, |m, c| m | 1 << c.rank().index());
        cards.len() - low.count_ones() as usize
    }

    /// Hand strength from 0 (junk) to 2 (strong).
    fn strength(&self, r: &ActRequest) -> u8 {
        if !self.stud {
            return match self.throws(&r.view.cards) {
                0 => 2,
                1 => 1,
                _ => 0,
            };
        }
        let cards: Vec<Card> = r
            .view
            .cards
            .iter()
            .copied()
            .chain(r.view.seats[r.view.seat as usize].up.iter().copied())
            .collect();
        let lows = cards
            .iter()
            .filter(|c| value(**c) <= 8 || c.rank() == Rank::Ace)
            .count();
        let mut ranks: Vec<Rank> = cards.iter().map(|c| c.rank()).collect();
        ranks.sort();
        let paired = ranks.windows(2).any(|w| w[0] == w[1]);
        u8::from(lows >= 3) + u8::from(paired && ranks.iter().any(|r| *r >= Rank::Ten))
    }
}

impl Bot for Example {
    fn match_start(&mut self, m: &pitboss_protocol::MatchStart) {
        self.stud = m.game.variant == "stud-hi-lo";
    }

    fn act(&mut self, r: &ActRequest) -> Action {
        let l = &r.legal;
        if r.view.phase == Phase::Draw && l.discard.is_some() {
            return Action::Discard {
                cards: self.discards(&r.view.cards),
            };
        }
        if l.bring_in.is_some() {
            return Action::BringIn;
        }
        let s = self.strength(r);
        if let Some(raise) = l.raise {
            if s == 2 {
                return Action::Raise { to: raise.min_to };
            }
        }
        if l.check {
            return Action::Check;
        }
        if s == 0 && l.fold && r.view.round >= 2 {
            return Action::Fold;
        }
        Action::Call
    }
}

fn main() {
    let mut opts = sdk::Options::new("rust-example");
    opts.version = Some(env!("CARGO_PKG_VERSION").into());
    opts.games = vec!["triple-draw".into(), "stud-hi-lo".into()];
    // This bot decides in microseconds, so it can take the referee's maximum of tables: bigger
    // batches mean fewer writes and wake-ups per decision (measured: about half the system time
    // of 16 tables). The SDK's default stays 16, because each request's clock starts when it is
    // written and a slow bot answers a batch one request after the other.
    opts.concurrency = 64;
    // `--compact`: compact messages instead of terse ones (for the bench that compares them).
    opts.terse = !std::env::args().any(|a| a == "--compact");
    if let Err(e) = sdk::run(&opts, Example::default) {
        eprintln!("rust-example: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sorting version these replaced: the same cards thrown, in the same order.
    fn sorted_discards(cards: &[Card]) -> Vec<Card> {
        let mut keep: Vec<Card> = Vec::new();
        let mut sorted = cards.to_vec();
        sorted.sort_by_key(|c| value(*c));
        for c in sorted {
            if value(c) <= 8 && !keep.iter().any(|k| k.rank() == c.rank()) {
                keep.push(c);
            }
        }
        cards
            .iter()
            .filter(|c| !keep.contains(c))
            .copied()
            .collect()
    }

    #[test]
    fn one_pass_discards_are_the_sorted_ones() {
        let e = Example::default();
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let n = (x % 8) as usize;
            let mut deck: Vec<Card> = Card::all().collect();
            let mut hand = Vec::new();
            let mut y = x;
            for _ in 0..n {
                let i = (y % deck.len() as u64) as usize;
                hand.push(deck.swap_remove(i));
                y = y.rotate_left(11) ^ 0x5851_F42D_4C95_7F2D;
            }
            let want = sorted_discards(&hand);
            assert_eq!(e.discards(&hand), want, "{hand:?}");
            assert_eq!(e.throws(&hand), want.len(), "{hand:?}");
        }
    }
}
