//! What a player may do, what they did, and why an attempt was refused.

use std::fmt;

use pitboss_cards::{Card, CardSet};
use serde::{Deserialize, Serialize};

use crate::game::Chips;
use crate::seat::Seat;

/// A player's decision as submitted. Amounts are totals the player's contribution this round is
/// brought **to**, never increments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    Fold,
    Check,
    Call,
    /// Bet, raise or (stud) complete to a total of `to` chips this round.
    Raise {
        to: Chips,
    },
    /// Stud: post the bring-in instead of completing.
    BringIn,
    /// Triple draw: throw these cards (empty = stand pat).
    Discard {
        cards: CardSet,
    },
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Fold => f.write_str("fold"),
            Action::Check => f.write_str("check"),
            Action::Call => f.write_str("call"),
            Action::Raise { to } => write!(f, "raise to {to}"),
            Action::BringIn => f.write_str("bring-in"),
            Action::Discard { cards } if cards.is_empty() => f.write_str("stand pat"),
            Action::Discard { cards } => write!(f, "discard {cards}"),
        }
    }
}

/// What an aggressive action is called at that point of the round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RaiseKind {
    /// No bet yet this round.
    Bet,
    /// Raise over a bet (or over the big blind).
    Raise,
    /// Stud third street: bring the bring-in up to a full bet.
    Complete,
}

impl RaiseKind {
    /// The word a player would use: `bet`, `raise`, `completion`.
    pub fn word(self) -> &'static str {
        match self {
            RaiseKind::Bet => "a bet",
            RaiseKind::Raise => "a raise",
            RaiseKind::Complete => "a completion",
        }
    }
}

/// The allowed totals in plain words (error texts are read by bot authors, not Rust programmers).
fn allowed_words(min: Chips, max: Chips) -> String {
    if min == max {
        format!("the only allowed total is {min}")
    } else {
        format!("the total must be from {min} to {max}")
    }
}

/// The allowed totals for a bet, raise or completion: `min_to..=max_to` (equal in fixed limit, or
/// when only an all-in is possible).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RaiseRange {
    pub kind: RaiseKind,
    pub min_to: Chips,
    pub max_to: Chips,
}

/// The legal actions of the seat to act.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Legal {
    pub seat: Seat,
    pub fold: bool,
    pub check: bool,
    /// Chips a call adds (less than the amount owed when the caller is all-in).
    pub call: Option<Chips>,
    pub raise: Option<RaiseRange>,
    /// Stud: chips the bring-in posts.
    pub bring_in: Option<Chips>,
    /// Triple draw: the cards that may be discarded (any subset).
    pub discard: Option<CardSet>,
}

impl Legal {
    /// Whether `action` is among the legal ones (the engine's `apply` is the authority; this is the
    /// same test it makes).
    pub fn allows(&self, action: &Action) -> bool {
        match *action {
            Action::Fold => self.fold,
            Action::Check => self.check,
            Action::Call => self.call.is_some(),
            Action::Raise { to } => self
                .raise
                .is_some_and(|r| (r.min_to..=r.max_to).contains(&to)),
            Action::BringIn => self.bring_in.is_some(),
            Action::Discard { cards } => self
                .discard
                .is_some_and(|h| cards.difference(h).is_empty() && cards.len() <= 5),
        }
    }
}

/// Why an action was refused. The hand is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{seat} tried `{action}`: {reason}")]
pub struct IllegalAction {
    pub seat: Seat,
    pub action: Action,
    pub reason: Reason,
}

/// The rule an illegal action breaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Reason {
    #[error("the hand is over")]
    HandOver,
    #[error("it is {0}'s turn")]
    NotYourTurn(Seat),
    #[error("this is a draw: discard 0 to 5 of your cards")]
    DrawExpected,
    #[error("there is no draw now")]
    NotADraw,
    #[error("there is a bet of {0} to call")]
    MustCallOrFold(Chips),
    #[error("nothing to call; check instead")]
    NothingToCall,
    #[error("folding is not allowed when checking is free")]
    FoldWhenFree,
    #[error("the bring-in player must post the bring-in or complete")]
    MustBringInOrComplete,
    #[error("only the bring-in player posts the bring-in, before any other action")]
    NoBringIn,
    #[error("raising is not allowed: {0}")]
    CannotRaise(&'static str),
    #[error("{} to {to} is not allowed: {}", kind.word(), allowed_words(*min, *max))]
    AmountOutOfRange {
        kind: RaiseKind,
        to: Chips,
        min: Chips,
        max: Chips,
    },
    #[error("you do not hold {0}")]
    NotHeld(Card),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Error texts are read by bot authors: the protocol's 0-based seat numbers, and plain words
    /// for the allowed totals rather than Rust ranges.
    #[test]
    fn illegal_actions_read_in_plain_words() {
        let e = IllegalAction {
            seat: Seat(1),
            action: Action::Raise { to: 300 },
            reason: Reason::AmountOutOfRange {
                kind: RaiseKind::Raise,
                to: 300,
                min: 200,
                max: 200,
            },
        };
        let text = e.to_string();
        // Seats are shown from 1, as everywhere a person reads them: Seat(1) is the second.
        assert!(text.starts_with("seat 2 tried"), "{text}");
        assert!(text.contains("the only allowed total is 200"), "{text}");
        assert!(!text.contains("..="), "{text}");
        let r = Reason::AmountOutOfRange {
            kind: RaiseKind::Bet,
            to: 50,
            min: 100,
            max: 900,
        };
        assert_eq!(
            r.to_string(),
            "a bet to 50 is not allowed: the total must be from 100 to 900"
        );
    }
}
