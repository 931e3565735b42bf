//! The result of a finished hand, derived from its events.

use pitboss_cards::CardSet;

use crate::event::{Event, Share};
use crate::game::Chips;
use crate::hand::Hand;
use crate::seat::Seat;
use crate::source::CardSource;

/// Chips moved to a seat from one pot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Award {
    pub seat: Seat,
    pub pot: u8,
    pub share: Share,
    pub amount: Chips,
}

/// What a finished hand produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Net chips per seat (won minus put in).
    pub net: Vec<i64>,
    pub awards: Vec<Award>,
    /// Hands shown at showdown.
    pub shown: Vec<(Seat, CardSet)>,
    /// Whether the hand reached a showdown (two or more players at the end).
    pub showdown: bool,
}

impl<S: CardSource> Hand<S> {
    /// The outcome, once the hand is over.
    pub fn outcome(&self) -> Option<Outcome> {
        if !self.is_over() {
            return None;
        }
        let mut awards = Vec::new();
        let mut shown = Vec::new();
        let mut showdown = false;
        for e in &self.events {
            match *e {
                Event::Award {
                    seat,
                    pot,
                    share,
                    amount,
                } => awards.push(Award {
                    seat,
                    pot,
                    share,
                    amount,
                }),
                Event::Show { seat, cards } => {
                    showdown = true;
                    shown.push((seat, cards));
                }
                Event::Muck { .. } => showdown = true,
                _ => {}
            }
        }
        Some(Outcome {
            net: self.net().map(|(_, v)| v).collect(),
            awards,
            shown,
            showdown,
        })
    }
}
