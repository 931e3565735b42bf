//! The rules of Pitboss: a hand of Deuce-to-Seven Triple Draw or Seven Card Stud Hi/Lo as a pure
//! state machine, the single authority on what is legal, what each seat may see, and who wins what.
//!
//! Flow: a [`TableSetup`] is validated into a [`Table`]; [`Hand::start`] deals from a
//! [`CardSource`] (a seeded [`pitboss_cards::Deck`] live, or [`Dictated`] cards in a replay);
//! [`Hand::legal`] and [`Hand::apply`] drive it; [`Hand::view`] is what a bot may know;
//! [`Hand::outcome`] and the [`Event`] record are what statistics and hand histories use.
//! Nothing here knows about bots, threads, files or the wire.

mod action;
mod event;
mod game;
mod hand;
mod outcome;
mod seat;
mod setup;
mod source;
mod view;

pub use action::{Action, IllegalAction, Legal, RaiseKind, RaiseRange, Reason};
pub use event::{Blind, Event, Share};
pub use game::{
    Chips, Game, Preset, Reveal, Stakes, Structure, TableOptions, Variant, MAX_BETS_PER_ROUND,
    MAX_CHIPS, MAX_SEATS, PRESETS,
};
pub use hand::{ApplyError, Cards, DealError, Hand, Phase};
pub use outcome::{Award, Outcome};
pub use seat::Seat;
pub use setup::{SetupError, Table, TableSetup};
pub use source::{CardSource, Dictated, Recipient};
pub use view::View;
