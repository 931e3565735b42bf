//! The complete, ordered record of a hand. Hand histories, statistics and bot observations are all
//! built from events alone. Hidden information is carried as `Option`s so that one type serves both
//! the full record and a seat's redacted copy ([`Event::redacted_for`]).

use pitboss_cards::{Card, CardSet};
use serde::{Deserialize, Serialize};

use crate::action::RaiseKind;
use crate::game::Chips;
use crate::seat::Seat;

/// Which blind a post is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Blind {
    Small,
    Big,
}

/// Which part of a pot an award is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Share {
    /// The whole pot (one winner by folds, or a single-half game).
    Whole,
    High,
    Low,
}

/// One thing that happened in a hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A betting round begins (0-based; stud round 0 is third street).
    Round {
        round: u8,
    },
    Ante {
        seat: Seat,
        amount: Chips,
        all_in: bool,
    },
    Blind {
        seat: Seat,
        blind: Blind,
        amount: Chips,
        all_in: bool,
    },
    /// A card to a seat. `card` is `None` in a copy for someone who may not see it.
    Deal {
        seat: Seat,
        card: Option<Card>,
        up: bool,
    },
    /// Stud seventh street with a short stub: one face-up card shared by every active player.
    Community {
        card: Card,
    },
    BringIn {
        seat: Seat,
        amount: Chips,
        all_in: bool,
    },
    Fold {
        seat: Seat,
    },
    Check {
        seat: Seat,
    },
    /// `amount` is what the call added.
    Call {
        seat: Seat,
        amount: Chips,
        all_in: bool,
    },
    /// A bet, raise or completion to a total of `to` this round.
    Raise {
        seat: Seat,
        kind: RaiseKind,
        to: Chips,
        all_in: bool,
    },
    /// A draw declaration: the count is public, the cards are the owner's.
    Discard {
        seat: Seat,
        count: u8,
        cards: Option<CardSet>,
    },
    /// The stub ran out; `cards` muck cards were shuffled into a new stub.
    Reshuffle {
        cards: u8,
    },
    /// An uncalled bet (or its uncalled part) goes back to its owner.
    Return {
        seat: Seat,
        amount: Chips,
    },
    /// A hand shown at showdown (all the seat's cards).
    Show {
        seat: Seat,
        cards: CardSet,
    },
    /// A hand thrown away unseen at showdown.
    Muck {
        seat: Seat,
    },
    /// Chips from pot `pot` (0 = main) to a seat.
    Award {
        seat: Seat,
        pot: u8,
        share: Share,
        amount: Chips,
    },
}

impl Event {
    /// The event as `viewer` may see it: other seats' face-down cards and discards are hidden.
    pub fn redacted_for(self, viewer: Seat) -> Event {
        match self {
            Event::Deal {
                seat, up: false, ..
            } if seat != viewer => Event::Deal {
                seat,
                card: None,
                up: false,
            },
            Event::Discard { seat, count, .. } if seat != viewer => Event::Discard {
                seat,
                count,
                cards: None,
            },
            e => e,
        }
    }

    /// The seat the event is about, if any.
    pub fn seat(&self) -> Option<Seat> {
        match *self {
            Event::Ante { seat, .. }
            | Event::Blind { seat, .. }
            | Event::Deal { seat, .. }
            | Event::BringIn { seat, .. }
            | Event::Fold { seat }
            | Event::Check { seat }
            | Event::Call { seat, .. }
            | Event::Raise { seat, .. }
            | Event::Discard { seat, .. }
            | Event::Return { seat, .. }
            | Event::Show { seat, .. }
            | Event::Muck { seat }
            | Event::Award { seat, .. } => Some(seat),
            Event::Round { .. } | Event::Community { .. } | Event::Reshuffle { .. } => None,
        }
    }
}
