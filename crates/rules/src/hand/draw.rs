//! Triple-draw draws: declarations in turn, then replacements served in the same order, with the
//! reshuffle rule of docs/RULES.md (a new stub from the muck, without the discards of the player being
//! served or of players not yet served).

use pitboss_cards::CardSet;

use crate::event::Event;
use crate::game::Variant;
use crate::seat::Seat;
use crate::source::{CardSource, Recipient};

use super::{DealError, Hand, Phase};

impl<S: CardSource> Hand<S> {
    /// Puts a folded hand in the muck (triple draw reshuffles it later).
    pub(crate) fn muck_hand(&mut self, s: Seat) {
        if self.game.variant == Variant::TripleDraw {
            self.muck = self.muck.union(self.down[s.index()].set());
        }
    }

    /// Draw `k` starts with the first player still in, left of the button.
    pub(crate) fn start_draw(&mut self, k: u8) {
        self.phase = Phase::Draw(k);
        self.declared = [None; crate::MAX_SEATS];
        let n = self.n;
        self.to_act = self.first_from(self.button.next(n), |s| !self.folded[s.index()]);
    }

    /// Records a declaration; after the last one, serves everybody and opens the next round.
    pub(crate) fn declare(&mut self, s: Seat, cards: CardSet) -> Result<(), DealError> {
        let Phase::Draw(k) = self.phase else {
            unreachable!("legal() offers discards only in a draw")
        };
        let i = s.index();
        self.declared[i] = Some(cards);
        self.draws[i][usize::from(k)] = cards.len() as u8;
        self.down[i].remove_all(cards);
        self.events.push(Event::Discard {
            seat: s,
            count: cards.len() as u8,
            cards: Some(cards),
        });
        let n = self.n;
        let next = self.first_from(s.next(n), |o| {
            !self.folded[o.index()] && self.declared[o.index()].is_none()
        });
        match next {
            Some(o) if o != s => {
                self.to_act = Some(o);
                Ok(())
            }
            _ => {
                self.serve()?;
                self.start_round(k + 1)
            }
        }
    }

    /// Serves the replacements in declaration order; each player's discards join the muck once
    /// that player is fully served.
    fn serve(&mut self) -> Result<(), DealError> {
        self.to_act = None;
        let n = self.n;
        let first = self.button.next(n);
        for k in 0..n {
            let s = Seat((first.0 + k) % n);
            let Some(thrown) = self.declared[s.index()] else {
                continue;
            };
            for _ in 0..thrown.len() {
                let c = self.deal_to(Recipient::Seat(s))?;
                self.down[s.index()].push(c);
                self.events.push(Event::Deal {
                    seat: s,
                    card: Some(c),
                    up: false,
                });
            }
            // What is left of the discards: a dealer whose dealing is only checked for physical
            // possibility may have handed some of them out again already.
            for c in thrown.iter() {
                if !self.is_held(c) {
                    self.muck.insert(c);
                }
            }
            self.declared[s.index()] = None;
        }
        Ok(())
    }
}
