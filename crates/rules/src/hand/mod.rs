//! The hand as a pure state machine: [`Hand::start`] from a validated [`Table`] and a card source,
//! then [`Hand::legal`] / [`Hand::apply`] until [`Hand::is_over`], then [`Hand::outcome`].
//!
//! The engine is the only authority on legality: `apply` checks an action against exactly the set
//! `legal` reports and leaves the hand untouched when it refuses. Dealing, reshuffles, uncalled
//! bets, showdown and awards happen inside `apply` as consequences of the last action, and every
//! one of them is recorded as an [`Event`].

mod betting;
mod cards;
mod draw;
mod showdown;
mod stud;

use pitboss_cards::{Card, CardSet, Deck};

pub use cards::Cards;

use crate::action::{Action, IllegalAction, Legal, Reason};
use crate::event::Event;
use crate::game::{Chips, Game, Structure, Variant, MAX_SEATS};
use crate::seat::Seat;
use crate::setup::Table;
use crate::source::{CardSource, Recipient};

/// A card could not be dealt (only possible with dictated cards, or a source that runs dry).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DealError {
    #[error("no card is given for {0}")]
    Missing(String),
    #[error("{card} cannot be dealt to {to}: {why}")]
    Unavailable {
        card: Card,
        to: String,
        why: &'static str,
    },
}

/// Why `apply` failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApplyError {
    /// The action is not legal; the hand is unchanged.
    #[error(transparent)]
    Illegal(#[from] IllegalAction),
    /// The action was taken but the cards that follow could not be dealt; the hand cannot go on.
    #[error(transparent)]
    Deal(#[from] DealError),
}

/// Where the hand is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Betting,
    /// Triple draw: declarations for draw `0..3`.
    Draw(u8),
    Over,
}

/// One hand in progress. Generic over the card source so that live play (a seeded [`Deck`]) and
/// replays (dictated cards) run the same code.
#[derive(Clone, Debug)]
pub struct Hand<S: CardSource = Deck> {
    pub(crate) game: Game,
    pub(crate) n: u8,
    pub(crate) button: Seat,
    source: S,
    pub(crate) start: [Chips; MAX_SEATS],
    pub(crate) stack: [Chips; MAX_SEATS],
    /// Chips put in this hand, including this round's bets.
    pub(crate) total: [Chips; MAX_SEATS],
    /// Chips put in this round.
    pub(crate) bet: [Chips; MAX_SEATS],
    pub(crate) folded: [bool; MAX_SEATS],
    pub(crate) down: [Cards; MAX_SEATS],
    pub(crate) up: [Cards; MAX_SEATS],
    pub(crate) draws: [[u8; 3]; MAX_SEATS],
    pub(crate) community: Option<Card>,
    pub(crate) phase: Phase,
    pub(crate) round: u8,
    pub(crate) to_act: Option<Seat>,
    pub(crate) b: betting::Round,
    /// The acting order of the last round that had betting: (aggressor, first actor).
    last_betting: Option<(Option<Seat>, Seat)>,
    /// Cards never dealt this hand (the stub, in the no-burn convention).
    unseen: CardSet,
    /// Cards that may go into a reshuffle: earlier discards and folded hands.
    muck: CardSet,
    declared: [Option<CardSet>; MAX_SEATS],
    pub(crate) shown: [bool; MAX_SEATS],
    /// The legal actions of the seat to act, computed once per state change.
    legal: Option<Legal>,
    pub(crate) won: [Chips; MAX_SEATS],
    pub(crate) events: Vec<Event>,
    /// Cards dealt against the house convention (only with a physical-only source).
    pub(crate) notes: Vec<String>,
}

impl<S: CardSource> Hand<S> {
    /// Starts a hand: antes, blinds or third street are posted and dealt, and the first decision
    /// is waiting.
    ///
    /// # Errors
    /// [`DealError`] when the source cannot supply a card (never with a full [`Deck`]).
    pub fn start(table: &Table, source: S) -> Result<Hand<S>, DealError> {
        let mut h = Hand::fresh(table, source, Vec::with_capacity(64));
        h.deal_first()?;
        Ok(h)
    }

    /// Starts a new hand in place of this one, reusing its event buffer (a runner playing millions
    /// of hands then allocates nothing per hand).
    ///
    /// # Errors
    /// As [`Hand::start`].
    pub fn restart(&mut self, table: &Table, source: S) -> Result<(), DealError> {
        let mut events = std::mem::take(&mut self.events);
        events.clear();
        *self = Hand::fresh(table, source, events);
        self.deal_first()
    }

    fn fresh(table: &Table, source: S, events: Vec<Event>) -> Hand<S> {
        Hand {
            game: table.game,
            n: table.n,
            button: table.button,
            source,
            start: table.stacks,
            stack: table.stacks,
            total: [0; MAX_SEATS],
            bet: [0; MAX_SEATS],
            folded: [false; MAX_SEATS],
            down: [Cards::EMPTY; MAX_SEATS],
            up: [Cards::EMPTY; MAX_SEATS],
            draws: [[0; 3]; MAX_SEATS],
            community: None,
            phase: Phase::Betting,
            round: 0,
            to_act: None,
            b: betting::Round::default(),
            last_betting: None,
            unseen: CardSet::FULL,
            muck: CardSet::EMPTY,
            declared: [None; MAX_SEATS],
            shown: [false; MAX_SEATS],
            won: [0; MAX_SEATS],
            legal: None,
            events,
            notes: Vec::new(),
        }
    }

    /// Antes, blinds or third street, up to the first decision.
    fn deal_first(&mut self) -> Result<(), DealError> {
        let h = self;
        let n = h.n;
        for s in h.seats() {
            if h.game.stakes.ante > 0 {
                let (amount, all_in) = h.put(s, h.game.stakes.ante);
                h.events.push(Event::Ante {
                    seat: s,
                    amount,
                    all_in,
                });
            }
        }
        match h.game.variant {
            Variant::TripleDraw => {
                let first = h.button.next(n);
                for _ in 0..5 {
                    for k in 0..n {
                        let s = Seat((first.0 + k) % n);
                        let c = h.deal_to(Recipient::Seat(s))?;
                        h.down[s.index()].push(c);
                        h.events.push(Event::Deal {
                            seat: s,
                            card: Some(c),
                            up: false,
                        });
                    }
                }
            }
            Variant::StudHiLo => h.deal_street(0)?,
        }
        h.start_round(0)?;
        h.legal = h.compute_legal();
        Ok(())
    }

    /// Seats at the table, in order.
    pub(crate) fn seats(&self) -> impl Iterator<Item = Seat> {
        (0..self.n).map(Seat)
    }

    /// Moves up to `amount` from a stack into the pot; returns what moved and whether it emptied the
    /// stack. Forced bets use this: a short stack posts what it has.
    fn put(&mut self, s: Seat, amount: Chips) -> (Chips, bool) {
        let i = s.index();
        let a = amount.min(self.stack[i]);
        self.stack[i] -= a;
        self.total[i] += a;
        (a, self.stack[i] == 0)
    }

    /// Deals one card from the source, checking it is available: never dealt, or in the muck that a
    /// reshuffle may use. Reshuffles the muck first when the stub is empty.
    pub(crate) fn deal_to(&mut self, to: Recipient) -> Result<Card, DealError> {
        if self.unseen.is_empty() && !self.muck.is_empty() {
            let stub = self.muck;
            self.muck = CardSet::EMPTY;
            self.unseen = stub;
            self.source.reshuffle(stub);
            self.events.push(Event::Reshuffle {
                cards: stub.len() as u8,
            });
        }
        let name = || match to {
            Recipient::Seat(s) => s.to_string(),
            Recipient::Board => "the board".to_string(),
        };
        let card = self
            .source
            .deal(to)
            .ok_or_else(|| DealError::Missing(name()))?;
        if self.unseen.remove(card) || self.muck.remove(card) {
            return Ok(card);
        }
        if self.source.physical_only() {
            if let Some(note) = self.physically_possible(card, to) {
                self.notes
                    .push(format!("{card} dealt to {}: {note}", name()));
                return Ok(card);
            }
        }
        let held = self.is_held(card);
        let why = if self.declared.iter().flatten().any(|d| d.contains(card)) {
            "it was discarded in this draw by a player not yet served (docs/RULES.md: a reshuffle \
             excludes those discards; PokerKit difference 2)"
        } else if held {
            "it is already live in a hand or on the board"
        } else {
            self.out_of_play_words()
        };
        Err(DealError::Unavailable {
            card,
            to: name(),
            why,
        })
    }

    /// Whether `card`, which the house convention would not deal now, is at least physically
    /// available (held by nobody still in the hand, not the community card); if so the returned
    /// text says why the house would not have dealt it.
    fn physically_possible(&self, card: Card, to: Recipient) -> Option<&'static str> {
        if self.is_held(card) {
            return None;
        }
        for (i, d) in self.declared.iter().enumerate() {
            if d.is_some_and(|set| set.contains(card)) {
                return Some(if to == Recipient::Seat(Seat(i as u8)) {
                    "the player's own discard of this draw (the house reshuffle leaves it out)"
                } else {
                    "a discard of a player not yet served (the house reshuffle leaves it out)"
                });
            }
        }
        Some(self.out_of_play_words())
    }

    /// Whether a player still in the hand holds `card`, or it is the community card.
    pub(crate) fn is_held(&self, card: Card) -> bool {
        self.community == Some(card)
            || self.live().any(|s| {
                self.down[s.index()].set().contains(card) || self.up[s.index()].set().contains(card)
            })
    }

    /// What a card held by nobody still in the hand, and neither in the stub nor the muck, is.
    fn out_of_play_words(&self) -> &'static str {
        if self.game.variant == Variant::StudHiLo {
            "a card of a folded hand (the house does not reshuffle folded stud hands)"
        } else {
            "a card already out of play"
        }
    }

    /// Cards dealt against the house convention by a physical-only source (see
    /// [`CardSource::physical_only`]), one text each: empty for a conventional dealing.
    pub fn dealing_notes(&self) -> &[String] {
        &self.notes
    }

    /// Players still in the hand (not folded).
    pub(crate) fn live(&self) -> impl Iterator<Item = Seat> + '_ {
        self.seats().filter(|s| !self.folded[s.index()])
    }

    /// Players who can still bet (in the hand with chips behind).
    pub(crate) fn can_act(&self, s: Seat) -> bool {
        !self.folded[s.index()] && self.stack[s.index()] > 0
    }

    /// The first seat from `from` (inclusive), clockwise, that satisfies `pred`.
    pub(crate) fn first_from(&self, from: Seat, pred: impl Fn(Seat) -> bool) -> Option<Seat> {
        (0..self.n)
            .map(|k| Seat((from.0 + k) % self.n))
            .find(|s| pred(*s))
    }

    // ----- public API -----

    /// The seat whose decision is awaited, or `None` when the hand is over.
    pub fn to_act(&self) -> Option<Seat> {
        self.to_act
    }

    pub fn is_over(&self) -> bool {
        self.phase == Phase::Over
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The current (or last) betting round, 0-based.
    pub fn round(&self) -> u8 {
        self.round
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    pub fn seat_count(&self) -> usize {
        usize::from(self.n)
    }

    pub fn button(&self) -> Seat {
        self.button
    }

    /// The full event record so far.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// The legal actions of the seat to act, or `None` when the hand is over.
    #[inline]
    pub fn legal(&self) -> Option<Legal> {
        self.legal
    }

    fn compute_legal(&self) -> Option<Legal> {
        let s = self.to_act?;
        Some(match self.phase {
            Phase::Draw(_) => Legal {
                seat: s,
                fold: false,
                check: false,
                call: None,
                raise: None,
                bring_in: None,
                discard: Some(self.down[s.index()].set()),
            },
            Phase::Betting => self.betting_legal(s),
            Phase::Over => return None,
        })
    }

    /// Applies `seat`'s action. On success returns the events it caused (the action itself and
    /// everything that follows automatically: deals, draws served, showdown, awards).
    ///
    /// # Errors
    /// [`ApplyError::Illegal`] with the reason, leaving the hand unchanged; [`ApplyError::Deal`]
    /// when a dictated card is missing or unavailable (the hand cannot continue).
    pub fn apply(&mut self, seat: Seat, action: Action) -> Result<&[Event], ApplyError> {
        let from = self.events.len();
        let illegal = |reason| IllegalAction {
            seat,
            action,
            reason,
        };
        let Some(legal) = self.legal() else {
            return Err(illegal(Reason::HandOver).into());
        };
        if legal.seat != seat {
            return Err(illegal(Reason::NotYourTurn(legal.seat)).into());
        }
        if !legal.allows(&action) {
            return Err(illegal(self.refusal(&legal, &action)).into());
        }
        let done = match action {
            Action::Discard { cards } => self.declare(seat, cards),
            _ => self.bet_action(seat, action),
        };
        self.legal = if done.is_ok() {
            self.compute_legal()
        } else {
            None
        };
        done?;
        Ok(&self.events[from..])
    }

    /// The reason an action outside `legal` is refused.
    fn refusal(&self, legal: &Legal, action: &Action) -> Reason {
        if legal.discard.is_some() {
            if let Action::Discard { cards } = action {
                let held = legal.discard.unwrap_or_default();
                if let Some(c) = cards.difference(held).iter().next() {
                    return Reason::NotHeld(c);
                }
            }
            return Reason::DrawExpected;
        }
        if legal.bring_in.is_some() && !matches!(action, Action::Raise { .. }) {
            return Reason::MustBringInOrComplete;
        }
        match *action {
            Action::Discard { .. } => Reason::NotADraw,
            Action::BringIn => Reason::NoBringIn,
            Action::Fold => Reason::FoldWhenFree,
            Action::Check => Reason::MustCallOrFold(legal.call.unwrap_or(0)),
            Action::Call => Reason::NothingToCall,
            Action::Raise { to } => match legal.raise {
                Some(r) => Reason::AmountOutOfRange {
                    kind: r.kind,
                    to,
                    min: r.min_to,
                    max: r.max_to,
                },
                None => Reason::CannotRaise(self.why_no_raise(legal.seat)),
            },
        }
    }

    /// Ends the hand when one player is left: uncalled chips back, the rest to the survivor.
    fn finish_by_folds(&mut self) {
        self.return_uncalled();
        let winner = self.live().next().expect("one player left");
        let pot: Chips = self.total.iter().sum();
        let i = winner.index();
        self.stack[i] += pot;
        self.won[i] += pot;
        self.events.push(Event::Award {
            seat: winner,
            pot: 0,
            share: crate::event::Share::Whole,
            amount: pot,
        });
        self.end();
    }

    fn end(&mut self) {
        self.phase = Phase::Over;
        self.to_act = None;
    }

    /// Net result so far for every seat (final once the hand is over).
    pub fn net(&self) -> impl Iterator<Item = (Seat, i64)> + '_ {
        self.seats().map(|s| {
            let i = s.index();
            (s, self.stack[i] as i64 - self.start[i] as i64)
        })
    }

    /// Whether the structure is fixed limit.
    pub(crate) fn fixed(&self) -> bool {
        self.game.structure == Structure::FixedLimit
    }
}
