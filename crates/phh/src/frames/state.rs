//! Walks the engine's events, keeps the table's state (stacks, bets, pot, each seat's cards) and
//! takes a snapshot after every step.

use pitboss_cards::{Card, CardSet};
use pitboss_rules::{Chips, Event, Game, RaiseKind, Seat, Share, Variant};

use super::made::{describe, made, summary};
use super::{who, Audience, Award, CardView, Discard, SeatResult, SeatView, Step as Frame};
use crate::replay::Replayed;
use dealing::replacements;

mod dealing;

const STUD_STREETS: [&str; 5] = ["third", "fourth", "fifth", "sixth", "seventh"];

#[derive(Clone, Debug, Default)]
struct SeatState {
    start: Chips,
    stack: Chips,
    bet: Chips,
    folded: bool,
    all_in: bool,
    shown: bool,
    /// (card, dealt face up)
    cards: Vec<(Card, bool)>,
    /// (draw number, how many, cards thrown; `None` when the record hides them)
    discards: Vec<(u8, u8, Option<Vec<Card>>)>,
    awards: Vec<Award>,
}

pub(super) struct Builder<'a> {
    r: &'a Replayed,
    game: Game,
    audience: Audience,
    seats: Vec<SeatState>,
    pot: Chips,
    community: Option<Card>,
    /// Round events seen so far.
    rounds: u8,
    street: String,
    /// Cards dealt during the step being built.
    fresh: CardSet,
    steps: Vec<Frame>,
}

/// A card's name.
fn name(c: Card) -> String {
    c.to_string()
}

impl<'a> Builder<'a> {
    pub(super) fn new(r: &'a Replayed, audience: Audience) -> Builder<'a> {
        let seats = (0..r.table.seats() as u8)
            .map(|s| {
                let start = r.table.stack(Seat(s));
                SeatState {
                    start,
                    stack: start,
                    ..SeatState::default()
                }
            })
            .collect();
        Builder {
            r,
            game: *r.table.game(),
            audience,
            seats,
            pot: 0,
            community: None,
            rounds: 0,
            street: String::new(),
            fresh: CardSet::EMPTY,
            steps: Vec::new(),
        }
    }

    fn who(&self, seat: Seat) -> String {
        who(self.r, seat.0)
    }

    /// Moves chips from a seat's stack into the pot; `bet` says whether they count as a bet of
    /// the round (antes do not).
    fn put(&mut self, seat: Seat, amount: Chips, bet: bool, all_in: bool) {
        let s = &mut self.seats[seat.index()];
        s.stack = s.stack.saturating_sub(amount);
        if bet {
            s.bet += amount;
        }
        s.all_in |= all_in;
        self.pot += amount;
    }

    fn betting_street(&self, round: u8) -> String {
        match self.game.variant {
            Variant::StudHiLo => format!("{} street", STUD_STREETS[usize::from(round.min(4))]),
            Variant::TripleDraw if round == 0 => "pre-draw".into(),
            Variant::TripleDraw => format!("after draw {round}"),
        }
    }

    pub(super) fn run(mut self) -> Vec<Frame> {
        let ev = &self.r.events;
        let mut used = vec![false; ev.len()];
        self.forced_bets(&mut used);
        let mut i = 0;
        while i < ev.len() {
            if used[i] {
                i += 1;
                continue;
            }
            used[i] = true;
            match ev[i] {
                Event::Round { round } => {
                    if round > 0 {
                        self.end_betting();
                    }
                    self.rounds = self.rounds.saturating_add(1);
                    self.street = self.betting_street(round);
                }
                Event::Deal { .. } => {
                    let mut group = vec![ev[i]];
                    while i + 1 < ev.len()
                        && !used[i + 1]
                        && matches!(ev[i + 1], Event::Deal { .. })
                    {
                        i += 1;
                        used[i] = true;
                        group.push(ev[i]);
                    }
                    self.deal(&group);
                }
                Event::Discard { seat, count, cards } => {
                    let draw = self.rounds.max(1);
                    let (new, shuffled) = replacements(ev, &mut used, i, seat, count);
                    self.draw(seat, draw, count, cards, &new, shuffled);
                }
                e => self.event(e),
            }
            i += 1;
        }
        self.finish();
        self.steps
    }

    fn event(&mut self, e: Event) {
        let (text, actor) = match e {
            Event::Ante {
                seat,
                amount,
                all_in,
            } => {
                self.put(seat, amount, false, all_in);
                (format!("{} antes {amount}", self.who(seat)), Some(seat))
            }
            Event::Blind {
                seat,
                amount,
                all_in,
                ..
            } => {
                self.put(seat, amount, true, all_in);
                (
                    format!("{} posts a blind of {amount}", self.who(seat)),
                    Some(seat),
                )
            }
            Event::BringIn {
                seat,
                amount,
                all_in,
            } => {
                self.put(seat, amount, true, all_in);
                (
                    format!("{} brings in for {amount}", self.who(seat)),
                    Some(seat),
                )
            }
            Event::Fold { seat } => {
                self.seats[seat.index()].folded = true;
                (format!("{} folds", self.who(seat)), Some(seat))
            }
            Event::Check { seat } => (format!("{} checks", self.who(seat)), Some(seat)),
            Event::Call {
                seat,
                amount,
                all_in,
            } => {
                self.put(seat, amount, true, all_in);
                let tail = if all_in { ", all-in" } else { "" };
                (
                    format!("{} calls {amount}{tail}", self.who(seat)),
                    Some(seat),
                )
            }
            Event::Raise {
                seat,
                kind,
                to,
                all_in,
            } => {
                let add = to.saturating_sub(self.seats[seat.index()].bet);
                self.put(seat, add, true, all_in);
                let verb = match kind {
                    RaiseKind::Bet => "bets",
                    RaiseKind::Raise => "raises to",
                    RaiseKind::Complete => "completes to",
                };
                let tail = if all_in { ", all-in" } else { "" };
                (format!("{} {verb} {to}{tail}", self.who(seat)), Some(seat))
            }
            Event::Return { seat, amount } => {
                let s = &mut self.seats[seat.index()];
                s.stack += amount;
                s.bet = s.bet.saturating_sub(amount);
                self.pot = self.pot.saturating_sub(amount);
                (
                    format!("{amount} uncalled returned to {}", self.who(seat)),
                    Some(seat),
                )
            }
            Event::Community { card } => {
                self.community = Some(card);
                self.fresh.insert(card);
                self.street = "seventh street".into();
                (
                    format!(
                        "the stub is short: {card} is dealt face up, shared by every live player"
                    ),
                    None,
                )
            }
            Event::Reshuffle { cards } => (
                format!("the stub ran out: {cards} mucked cards are shuffled into a new stub"),
                None,
            ),
            Event::Show { seat, cards } => {
                self.street = "showdown".into();
                self.end_betting();
                self.seats[seat.index()].shown = true;
                let m = made(&self.game, self.with_community(cards));
                let list: Vec<String> = cards.iter().map(name).collect();
                let text = format!(
                    "{} shows {}: {}",
                    self.who(seat),
                    list.join(" "),
                    describe(&m)
                );
                (text, Some(seat))
            }
            Event::Muck { seat } => {
                self.street = "showdown".into();
                self.end_betting();
                (format!("{} mucks", self.who(seat)), Some(seat))
            }
            Event::Award {
                seat,
                pot,
                share,
                amount,
            } => {
                let s = &mut self.seats[seat.index()];
                s.stack += amount;
                let share = match share {
                    Share::Whole => "whole",
                    Share::High => "high",
                    Share::Low => "low",
                };
                s.awards.push(Award {
                    pot,
                    share: share.into(),
                    amount,
                });
                self.pot = self.pot.saturating_sub(amount);
                return; // shown on the result step
            }
            Event::Round { .. } | Event::Deal { .. } | Event::Discard { .. } => return,
        };
        self.push(text, actor);
    }

    fn with_community(&self, mut cards: CardSet) -> CardSet {
        if let Some(c) = self.community {
            cards.insert(c);
        }
        cards
    }

    /// The last step: the result of a finished hand, or where an unfinished replay stopped.
    fn finish(&mut self) {
        if self.r.finishing_stacks.is_none() {
            let why = match &self.r.verdict {
                crate::Verdict::Rejected(rej) => rej.to_string(),
                crate::Verdict::Verified => "the hand did not finish".into(),
            };
            self.push(format!("the replay stops here: {why}"), None);
            return;
        }
        self.street = "result".into();
        let results: Vec<SeatResult> = (0..self.seats.len())
            .map(|i| {
                let s = &self.seats[i];
                let all: CardSet = s.cards.iter().map(|x| x.0).collect();
                let visible = s
                    .cards
                    .iter()
                    .all(|&(_, up)| self.audience.sees(i, up, s.shown));
                SeatResult {
                    seat: i as u8,
                    made: if s.folded || !visible {
                        Vec::new()
                    } else {
                        made(&self.game, self.with_community(all))
                    },
                    won: s.awards.iter().map(|a| a.amount).sum(),
                    awards: s.awards.clone(),
                    net: s.stack as i64 - s.start as i64,
                    finishing_stack: s.stack,
                }
            })
            .collect();
        self.end_betting();
        let text = summary(&results, |s| who(self.r, s));
        self.push(text, None);
        if let Some(last) = self.steps.last_mut() {
            last.result = Some(results);
        }
    }

    /// Takes the snapshot of the step just built.
    fn push(&mut self, text: String, actor: Option<Seat>) {
        let seats = self
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| SeatView {
                seat: i as u8,
                stack: s.stack,
                bet: s.bet,
                folded: s.folded,
                all_in: s.all_in,
                shown: s.shown,
                cards: s
                    .cards
                    .iter()
                    .map(|&(c, up)| CardView {
                        card: self.audience.sees(i, up, s.shown).then(|| name(c)),
                        up,
                        new: self.fresh.contains(c),
                    })
                    .collect(),
                discards: s
                    .discards
                    .iter()
                    .map(|(draw, count, cs)| Discard {
                        draw: *draw,
                        cards: match cs {
                            Some(cs) if self.audience.sees(i, false, false) => {
                                cs.iter().map(|&c| Some(name(c))).collect()
                            }
                            Some(cs) => vec![None; cs.len()],
                            None => vec![None; usize::from(*count)],
                        },
                    })
                    .collect(),
            })
            .collect();
        self.steps.push(Frame {
            street: self.street.clone(),
            text,
            actor: actor.map(|s| s.0),
            pot: self.pot,
            seats,
            community: self.community.map(name),
            result: None,
        });
        self.fresh = CardSet::EMPTY;
    }
}
