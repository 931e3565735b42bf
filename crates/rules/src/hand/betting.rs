//! Betting rounds in all three structures: levels, full and short raises, reopening, the cap,
//! forced bets, and uncalled bets.
//!
//! A raise is *full* when it raises the level by at least the current full increment (the last
//! full bet or raise, at least the minimum bet; in fixed limit the unit). A short all-in raise
//! moves the level but does not reopen raising to players who already acted, unless short raises
//! since their action add up to a full increment (`level - acted_level >= full_inc`).

use crate::action::{Action, Legal, RaiseKind, RaiseRange};
use crate::event::{Blind, Event};
use crate::game::{Chips, Structure, Variant, MAX_SEATS};
use crate::seat::Seat;
use crate::source::CardSource;

use super::{DealError, Hand, Phase};

/// The state of the current betting round.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Round {
    /// The amount every player must match (a short big blind or bring-in does not lower it).
    pub level: Chips,
    /// The size a raise must have to be full.
    pub full_inc: Chips,
    /// Counts full bets and raises; a player may raise again after a new one.
    pub full_seq: u32,
    /// Full bets and raises this round, for the fixed-limit cap (the big blind counts as one) and
    /// [`MAX_BETS_PER_ROUND`](crate::MAX_BETS_PER_ROUND).
    pub bets: u16,
    /// Stud third street: whether the bring-in has been completed (or exceeded).
    pub completed: bool,
    /// Stud third street: whether the bring-in is still to be posted.
    pub bring_in_due: bool,
    pub acted: [bool; MAX_SEATS],
    pub acted_seq: [u32; MAX_SEATS],
    pub acted_level: [Chips; MAX_SEATS],
    /// The last player to bet or raise this round.
    pub aggressor: Option<Seat>,
    /// Who acted first this round (the start of the showdown order when nobody bet).
    pub first: Option<Seat>,
    /// Players not asked this round unless they owe chips: at its start they had already put in
    /// as much as any other player could ever match (as PokerKit decides it).
    pub settled: [bool; MAX_SEATS],
}

impl<S: CardSource> Hand<S> {
    /// Opens betting round `r`: posts the blinds before the first draw, finds the first actor, and
    /// skips the round when fewer than two players could still bet.
    pub(crate) fn start_round(&mut self, r: u8) -> Result<(), DealError> {
        self.round = r;
        self.phase = Phase::Betting;
        self.bet = [0; MAX_SEATS];
        let fixed = self.fixed();
        self.b = Round {
            full_inc: if fixed {
                self.game.limit_bet(r)
            } else {
                self.game.min_bet()
            },
            ..Round::default()
        };
        self.events.push(Event::Round { round: r });
        let n = self.n;
        let first = match (self.game.variant, r) {
            (Variant::TripleDraw, 0) => {
                let (sb, bb) = if n == 2 {
                    (self.button, self.button.next(n))
                } else {
                    (self.button.next(n), self.button.next(n).next(n))
                };
                self.post_blind(sb, Blind::Small, self.game.stakes.small_blind);
                self.post_blind(bb, Blind::Big, self.game.stakes.big_blind);
                self.b.level = self.game.stakes.big_blind;
                self.b.bets = 1;
                if !fixed {
                    self.b.full_inc = self.game.stakes.big_blind;
                }
                self.first_from(bb.next(n), |s| self.can_act(s))
            }
            (Variant::TripleDraw, _) => self.first_from(self.button.next(n), |s| self.can_act(s)),
            (Variant::StudHiLo, 0) => {
                self.b.full_inc = self.game.stakes.small_bet;
                self.bring_in_seat()
            }
            (Variant::StudHiLo, _) => {
                let best = self.best_board_seat();
                self.first_from(best, |s| self.can_act(s))
            }
        };
        self.mark_settled();
        let stud3 = self.game.variant == Variant::StudHiLo && r == 0;
        let first = if stud3 {
            let actors = self.seats().filter(|s| self.can_act(*s)).count();
            first.filter(|_| actors >= 2)
        } else {
            first.and_then(|f| self.first_from(f, |s| self.needs_action(s)))
        };
        match first {
            Some(f) => {
                self.b.bring_in_due = stud3;
                self.b.first = Some(f);
                self.to_act = Some(f);
                Ok(())
            }
            None => self.end_round(),
        }
    }

    fn post_blind(&mut self, s: Seat, blind: Blind, amount: Chips) {
        if amount == 0 || self.stack[s.index()] == 0 {
            return;
        }
        let (a, all_in) = self.put(s, amount);
        self.bet[s.index()] += a;
        self.events.push(Event::Blind {
            seat: s,
            blind,
            amount: a,
            all_in,
        });
    }

    /// Whether `o` must still be asked this round: it owes chips, or it has not acted yet and was
    /// not already settled when the round began.
    fn needs_action(&self, o: Seat) -> bool {
        let i = o.index();
        self.can_act(o) && (self.bet[i] < self.b.level || (!self.b.acted[i] && !self.b.settled[i]))
    }

    /// Marks the players whose bet already covers what every other player could put in (the
    /// second largest bet plus stack among the live players): they have no decision this round
    /// unless they owe chips.
    fn mark_settled(&mut self) {
        let mut top = [0 as Chips; 2];
        for s in self.live() {
            let t = self.bet[s.index()] + self.stack[s.index()];
            if t > top[0] {
                top = [t, top[0]];
            } else if t > top[1] {
                top[1] = t;
            }
        }
        for s in self.seats() {
            self.b.settled[s.index()] = self.bet[s.index()] >= top[1];
        }
    }

    /// Whether another player still in the hand could answer a raise (has chips beyond the level).
    fn someone_can_answer(&self, s: Seat) -> bool {
        self.live().any(|o| {
            o != s
                && self.stack[o.index()] > 0
                && self.bet[o.index()] + self.stack[o.index()] > self.b.level
        })
    }

    fn capped(&self) -> bool {
        if self.b.bets >= crate::MAX_BETS_PER_ROUND {
            return true;
        }
        let cap = u16::from(self.game.options.cap);
        self.fixed()
            && cap != 0
            && self.b.bets >= cap
            && !(self.game.options.heads_up_uncapped && self.live().count() == 2)
    }

    /// Whether `s` was already passed a chance and no full raise (or short ones adding up to one)
    /// has come since.
    fn closed_to(&self, s: Seat) -> bool {
        let i = s.index();
        self.b.acted[i]
            && self.b.full_seq == self.b.acted_seq[i]
            && self.b.level - self.b.acted_level[i] < self.b.full_inc
    }

    /// Why `s` may not raise now (for error messages).
    pub(crate) fn why_no_raise(&self, s: Seat) -> &'static str {
        let i = s.index();
        if self.stack[i] <= self.b.level - self.bet[i] {
            "a call puts you all-in"
        } else if self.b.bets >= crate::MAX_BETS_PER_ROUND {
            "this round has had the most bets and raises a round may have (MAX_BETS_PER_ROUND, 1000)"
        } else if self.capped() {
            "the betting is capped"
        } else if self.closed_to(s) {
            "you already acted and no full raise has come since (a short all-in does not reopen)"
        } else if !self.someone_can_answer(s) {
            "every other player has folded or is all-in"
        } else {
            "not allowed now"
        }
    }

    /// The kind and the smallest full total of an aggressive action now.
    fn raise_kind_and_min(&self) -> (RaiseKind, Chips) {
        let st = &self.game.stakes;
        let stud3 = self.game.variant == Variant::StudHiLo && self.round == 0;
        if stud3 && !self.b.completed {
            let at_bring_in = self.b.level <= st.bring_in;
            let min = if at_bring_in {
                st.small_bet
            } else {
                self.b.level + self.b.full_inc
            };
            (RaiseKind::Complete, min)
        } else if self.b.level == 0 {
            let min = if self.fixed() {
                self.game.limit_bet(self.round)
            } else {
                self.game.min_bet()
            };
            (RaiseKind::Bet, min)
        } else {
            (RaiseKind::Raise, self.b.level + self.b.full_inc)
        }
    }

    pub(crate) fn betting_legal(&self, s: Seat) -> Legal {
        let i = s.index();
        let owed = self.b.level - self.bet[i];
        let stack = self.stack[i];
        let mut legal = Legal {
            seat: s,
            fold: false,
            check: false,
            call: None,
            raise: None,
            bring_in: None,
            discard: None,
        };
        if self.b.bring_in_due {
            legal.bring_in = Some(self.game.stakes.bring_in.min(stack));
        } else if owed == 0 {
            legal.check = true;
        } else {
            legal.fold = true;
            legal.call = Some(owed.min(stack));
        }
        let short_bring_in = self.b.bring_in_due && stack <= self.game.stakes.bring_in;
        let blocked = stack <= owed || short_bring_in || self.capped() || self.closed_to(s);
        let may_raise = !blocked && self.someone_can_answer(s);
        if may_raise {
            let (kind, min_full) = self.raise_kind_and_min();
            let all_in = self.bet[i] + stack;
            let max = match self.game.structure {
                Structure::FixedLimit => min_full,
                Structure::PotLimit => {
                    let pot: Chips = self.total.iter().sum();
                    (self.b.level + pot + owed).max(min_full)
                }
                Structure::NoLimit => all_in,
            };
            let (min_to, max_to) = if all_in <= min_full {
                (all_in, all_in)
            } else {
                (min_full, max.min(all_in))
            };
            legal.raise = Some(RaiseRange {
                kind,
                min_to,
                max_to,
            });
        }
        legal
    }

    /// Performs a legal betting action and everything that follows from it.
    pub(crate) fn bet_action(&mut self, s: Seat, action: Action) -> Result<(), DealError> {
        let i = s.index();
        match action {
            Action::Fold => {
                self.folded[i] = true;
                self.muck_hand(s);
                self.events.push(Event::Fold { seat: s });
            }
            Action::Check => self.events.push(Event::Check { seat: s }),
            Action::Call => {
                let (amount, all_in) = self.put(s, self.b.level - self.bet[i]);
                self.bet[i] += amount;
                self.events.push(Event::Call {
                    seat: s,
                    amount,
                    all_in,
                });
            }
            Action::BringIn => {
                let (amount, all_in) = self.put(s, self.game.stakes.bring_in);
                self.bet[i] += amount;
                self.b.level = self.game.stakes.bring_in;
                self.b.bring_in_due = false;
                self.events.push(Event::BringIn {
                    seat: s,
                    amount,
                    all_in,
                });
            }
            Action::Raise { to } => {
                let (kind, min_full) = self.raise_kind_and_min();
                // The first bet of a round (or the first completion of a bring-in) opens the
                // betting whatever its size: docs/RULES.md's "does not reopen" is about raises. A short
                // all-in bet therefore lets players who checked raise, without counting toward the
                // cap or changing the raise increment.
                let opening = kind == RaiseKind::Bet
                    || (kind == RaiseKind::Complete && self.b.level <= self.game.stakes.bring_in);
                let (_, all_in) = self.put(s, to - self.bet[i]);
                self.bet[i] = to;
                let inc = to - self.b.level;
                if to < min_full && opening {
                    self.b.full_seq += 1;
                }
                if to >= min_full {
                    if !self.fixed() {
                        let counted = if kind == RaiseKind::Bet { to } else { inc };
                        self.b.full_inc = self.b.full_inc.max(counted);
                    }
                    self.b.full_seq += 1;
                    self.b.bets += 1;
                    if kind == RaiseKind::Complete {
                        self.b.completed = true;
                    }
                }
                self.b.bring_in_due = false;
                self.b.level = to;
                self.b.aggressor = Some(s);
                self.events.push(Event::Raise {
                    seat: s,
                    kind,
                    to,
                    all_in,
                });
            }
            Action::Discard { .. } => unreachable!("draws are handled by declare"),
        }
        self.b.acted[i] = true;
        self.b.acted_seq[i] = self.b.full_seq;
        self.b.acted_level[i] = self.b.level;
        if self.live().count() == 1 {
            self.finish_by_folds();
            return Ok(());
        }
        let n = self.n;
        let next = self.first_from(s.next(n), |o| self.needs_action(o));
        match next {
            Some(o) => {
                self.to_act = Some(o);
                Ok(())
            }
            None => self.end_round(),
        }
    }

    /// Returns the part of the top bet nobody matched.
    pub(crate) fn return_uncalled(&mut self) {
        let Some(top) = self
            .seats()
            .max_by_key(|s| (self.bet[s.index()], std::cmp::Reverse(s.0)))
        else {
            return;
        };
        let second = self
            .seats()
            .filter(|s| *s != top)
            .map(|s| self.bet[s.index()])
            .max()
            .unwrap_or(0);
        let t = top.index();
        if self.bet[t] > second {
            let amount = self.bet[t] - second;
            self.bet[t] -= amount;
            self.total[t] -= amount;
            self.stack[t] += amount;
            self.events.push(Event::Return { seat: top, amount });
        }
    }

    /// Closes the round and moves on: a draw, the next street, or the showdown.
    pub(crate) fn end_round(&mut self) -> Result<(), DealError> {
        self.return_uncalled();
        if let Some(first) = self.b.first {
            self.last_betting = Some((self.b.aggressor, first));
        }
        self.to_act = None;
        let last = self.game.variant.rounds() - 1;
        if self.round == last {
            self.showdown();
            return Ok(());
        }
        match self.game.variant {
            Variant::TripleDraw => {
                self.start_draw(self.round);
                Ok(())
            }
            Variant::StudHiLo => {
                self.deal_street(self.round + 1)?;
                self.start_round(self.round + 1)
            }
        }
    }

    /// The acting order of the last round that had betting: (last aggressor, first actor).
    pub(crate) fn last_betting(&self) -> Option<(Option<Seat>, Seat)> {
        self.last_betting
    }
}
