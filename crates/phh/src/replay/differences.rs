//! The known differences with PokerKit 0.7.7: which one a refused action or a settlement
//! difference shows, decided by the situation in the replayed hand (docs/RULES.md lists 1-7; 8 and 9
//! were found by the cross-check, see the README).

use pitboss_cards::{eval, CardSet};
use pitboss_rules::{
    Action, Blind, Chips, Event, IllegalAction, Reason, Seat, Share, Structure, Variant,
};

use super::{Rejection, Run};

impl Run<'_> {
    /// Adds a known-difference label the situation explains (5 and 1, 7 for refusals).
    pub(super) fn label(
        &self,
        mut r: Rejection,
        events: &[Event],
        refused: Option<(Seat, &IllegalAction)>,
    ) -> Rejection {
        if r.known.is_some() {
            return r;
        }
        if let Some(text) = self.short_forced(events, refused.map(|x| x.0)) {
            r.known = Some(5);
            r.reason = format!(
                "known difference 5 with PokerKit 0.7.7: {text} ({})",
                r.reason
            );
            return r;
        }
        let Some((_, e)) = refused else { return r };
        let all_in_bring_in = events
            .iter()
            .any(|e| matches!(e, Event::BringIn { all_in: true, .. }));
        if all_in_bring_in
            && matches!(e.action, Action::Raise { .. })
            && self.game.variant == Variant::StudHiLo
            && !events
                .iter()
                .any(|e| matches!(e, Event::Round { round } if *round > 0))
        {
            r.known = Some(9);
            r.reason = format!(
                "known difference 9 with PokerKit 0.7.7 (found by this cross-check, not in \
                 docs/RULES.md's list): a bring-in player with no more than the bring-in may \
                 'complete' all-in in PokerKit, which then prices the next completion as a raise \
                 over it; here that player posted the bring-in all-in ({})",
                r.reason
            );
            return r;
        }
        if matches!(e.action, Action::Raise { .. })
            && matches!(e.reason, Reason::CannotRaise(why) if why.starts_with("you already acted"))
            && self.pokerkit_full_short_raise(round_events(events))
        {
            r.known = Some(8);
            r.reason = format!(
                "known difference 8 with PokerKit 0.7.7 (found by this cross-check, not in \
                 docs/RULES.md's list): PokerKit counts a raise as full when it is at least the largest \
                 raise so far this round (the first raise over the blinds, or one after a short \
                 all-in bet, of any size), so it reopens raising; docs/RULES.md does not ({})",
                r.reason
            );
            return r;
        }
        if !matches!(e.action, Action::Raise { .. }) || self.game.structure != Structure::FixedLimit
        {
            return r;
        }
        let this_round = round_events(events);
        let full_raises = this_round
            .iter()
            .filter(|e| matches!(e, Event::Raise { .. }))
            .count();
        let short_all_in = self.short_all_in_raise(this_round);
        let td_first = self.game.variant == Variant::TripleDraw
            && !events
                .iter()
                .any(|e| matches!(e, Event::Round { round } if *round > 0));
        let cap = usize::from(self.game.options.cap);
        if matches!(e.reason, Reason::CannotRaise(_)) && td_first && full_raises + 1 >= cap {
            r.known = Some(1);
            r.reason = format!(
                "known difference 1 with PokerKit 0.7.7: before the first draw the big blind \
                 counts as the bet, so the cap of {cap} is reached after {} raises; PokerKit \
                 allows one more ({})",
                cap - 1,
                r.reason
            );
        } else if short_all_in && e.reason == Reason::CannotRaise("the betting is capped") {
            r.known = Some(7);
            r.reason = format!(
                "known difference 7 with PokerKit 0.7.7: a short all-in raise this round does \
                 not count toward the cap here ({})",
                r.reason
            );
        }
        r
    }

    /// Whether this round had a raise that PokerKit counts as full (at least the largest raise
    /// so far this round, starting from zero) but docs/RULES.md does not (smaller than a full raise).
    pub(super) fn pokerkit_full_short_raise(&self, round: &[Event]) -> bool {
        let st = &self.game.stakes;
        let fixed = self.game.structure == Structure::FixedLimit;
        let r = round
            .iter()
            .find_map(|e| match e {
                Event::Round { round } => Some(*round),
                _ => None,
            })
            .unwrap_or(0);
        let min_full = if fixed {
            self.game.limit_bet(r)
        } else {
            self.game.min_bet()
        };
        let mut level = 0;
        let mut pk_max = 0;
        let mut rules_inc = min_full;
        for e in round {
            match *e {
                Event::Blind {
                    blind: Blind::Big, ..
                } => level = level.max(st.big_blind),
                Event::BringIn { .. } => level = level.max(st.bring_in),
                Event::Raise { to, .. } => {
                    let inc = to.saturating_sub(level);
                    let rules_full = if level == 0
                        || (self.game.variant == Variant::StudHiLo
                            && r == 0
                            && level <= st.bring_in)
                    {
                        true
                    } else {
                        inc >= rules_inc
                    };
                    if inc >= pk_max && !rules_full {
                        return true;
                    }
                    if rules_full && !fixed {
                        rules_inc = rules_inc.max(inc);
                    }
                    pk_max = pk_max.max(inc);
                    level = level.max(to);
                }
                _ => {}
            }
        }
        false
    }

    pub(super) fn short_all_in_raise(&self, round: &[Event]) -> bool {
        let mut level = 0;
        let mut prev_inc = match self.game.variant {
            Variant::TripleDraw => self.game.stakes.big_blind,
            Variant::StudHiLo => self.game.stakes.small_bet,
        };
        for e in round {
            match *e {
                Event::Blind { amount, .. } | Event::BringIn { amount, .. } => {
                    level = level.max(amount)
                }
                Event::Raise { to, all_in, .. } => {
                    let inc = to.saturating_sub(level);
                    if all_in && inc < prev_inc {
                        return true;
                    }
                    prev_inc = prev_inc.max(inc);
                    level = to;
                }
                _ => {}
            }
        }
        false
    }

    /// docs/RULES.md difference 5: a short big blind or bring-in, after which someone else called or
    /// raised (or tried to) on that street.
    pub(super) fn short_forced(&self, events: &[Event], trying: Option<Seat>) -> Option<String> {
        let st = &self.game.stakes;
        let mut short = None;
        let mut first_round = true;
        let mut answered = false;
        for e in events {
            match *e {
                Event::Round { round } if round > 0 => first_round = false,
                Event::Blind {
                    seat,
                    blind: Blind::Big,
                    amount,
                    ..
                } if amount < st.big_blind => {
                    short = Some((seat, amount, "big blind", st.big_blind))
                }
                Event::BringIn { seat, amount, .. } if amount < st.bring_in => {
                    short = Some((seat, amount, "bring-in", st.bring_in))
                }
                Event::Call { seat, .. } | Event::Raise { seat, .. }
                    if first_round && short.is_some_and(|s| s.0 != seat) =>
                {
                    answered = true
                }
                _ => {}
            }
        }
        // Still on the street of the short forced bet: the level docs/RULES.md keeps decides who
        // owes what (PokerKit may not even ask the others to act).
        if first_round {
            answered = answered
                || trying.is_some_and(|t| short.is_some_and(|s| s.0 != t))
                || short.is_some();
        }
        // A big blind all-in from the ante posts nothing at all: the same difference, at 0.
        if short.is_none() && self.game.variant == Variant::TripleDraw {
            let blind_posted = events.iter().any(|e| {
                matches!(
                    e,
                    Event::Blind {
                        blind: Blind::Big,
                        ..
                    }
                )
            });
            let ante_all_in = events.iter().find_map(|e| match *e {
                Event::Ante {
                    seat, all_in: true, ..
                } => Some(seat),
                _ => None,
            });
            if let (false, Some(seat)) = (blind_posted, ante_all_in) {
                short = Some((seat, 0, "big blind", st.big_blind));
                let called_first_round = events
                    .iter()
                    .take_while(|e| !matches!(e, Event::Round { round } if *round > 0))
                    .any(|e| matches!(e, Event::Call { .. } | Event::Raise { .. }));
                answered = first_round || called_first_round;
            }
        }
        let (seat, amount, what, level) = short?;
        answered.then(|| {
            format!(
                "{} posted a short {what} of {amount}; docs/RULES.md keeps {level} as the level to \
                 call, PokerKit lets the others call only {amount}",
                self.pname(seat)
            )
        })
    }

    /// The finishing stacks differ: explain by known differences 4, 6 (settlement) or 5.
    pub(super) fn stacks_differ(
        &self,
        want: &[Chips],
        got: &[Chips],
        events: &[Event],
    ) -> Rejection {
        let base = format!("finishing_stacks {want:?} but the referee gives {got:?}");
        let r = Rejection {
            action: None,
            reason: base.clone(),
            known: None,
        };
        if self.game.variant == Variant::StudHiLo {
            let odd_tie = odd_split(events);
            let no_low_side = no_low_side_pot(events);
            let merged = losing_all_in(events);
            if odd_tie || no_low_side || merged {
                let (k, why) = if odd_tie && !(no_low_side || merged) {
                    (
                        4,
                        "a tied pot had an odd chip; docs/RULES.md gives it to the tied hand with the \
                         highest card, PokerKit to the lowest seat",
                    )
                } else if no_low_side {
                    (
                        6,
                        "a side pot had no eligible qualifying low; docs/RULES.md gives the best high \
                         all of it, PokerKit still splits off a low half",
                    )
                } else {
                    (
                        6,
                        "an all-in hand lost its side pot; PokerKit merges pots of equal \
                         eligibility after killing hands, which can move the hi/lo odd chip",
                    )
                };
                return Rejection {
                    action: None,
                    reason: format!("known difference {k} with PokerKit 0.7.7: {why} ({base})"),
                    known: Some(k),
                };
            }
        }
        self.label(r, events, None)
    }
}

/// The events of the current (last) betting round.
fn round_events(events: &[Event]) -> &[Event] {
    let start = events
        .iter()
        .rposition(|e| matches!(e, Event::Round { .. }))
        .unwrap_or(0);
    &events[start..]
}

/// A pot half split among tied players with an odd chip.
fn odd_split(events: &[Event]) -> bool {
    let awards: Vec<(u8, Share, Chips)> = events
        .iter()
        .filter_map(|e| match *e {
            Event::Award {
                pot, share, amount, ..
            } => Some((pot, share, amount)),
            _ => None,
        })
        .collect();
    awards.iter().any(|&(p, s, a)| {
        awards
            .iter()
            .any(|&(p2, s2, a2)| p2 == p && s2 == s && a2 != a)
    })
}

/// The shown hands: seat → cards (with the community card).
fn shown(events: &[Event]) -> Vec<(Seat, CardSet)> {
    let community = events.iter().find_map(|e| match e {
        Event::Community { card } => Some(*card),
        _ => None,
    });
    events
        .iter()
        .filter_map(|e| match e {
            Event::Show { seat, cards } => {
                let mut c = *cards;
                if let Some(x) = community {
                    c.insert(x);
                }
                Some((*seat, c))
            }
            _ => None,
        })
        .collect()
}

/// Some pot was won whole (no qualifying low among its contenders) while a shown hand had a low.
fn no_low_side_pot(events: &[Event]) -> bool {
    let any_low = shown(events)
        .iter()
        .any(|(_, c)| eval::ace_to_five_8(*c).is_some());
    let pots_whole = events.iter().any(|e| {
        matches!(
            e,
            Event::Award {
                share: Share::Whole,
                ..
            }
        )
    });
    any_low && pots_whole
}

/// More than one pot, and an all-in player won nothing.
fn losing_all_in(events: &[Event]) -> bool {
    let pots = events
        .iter()
        .filter_map(|e| match e {
            Event::Award { pot, .. } => Some(*pot),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    if pots == 0 {
        return false;
    }
    let all_in: Vec<Seat> = events
        .iter()
        .filter_map(|e| match *e {
            Event::Ante {
                seat, all_in: true, ..
            }
            | Event::Blind {
                seat, all_in: true, ..
            }
            | Event::BringIn {
                seat, all_in: true, ..
            }
            | Event::Call {
                seat, all_in: true, ..
            }
            | Event::Raise {
                seat, all_in: true, ..
            } => Some(seat),
            _ => None,
        })
        .collect();
    all_in.iter().any(|s| {
        !events
            .iter()
            .any(|e| matches!(e, Event::Award { seat, .. } if seat == s))
    })
}
