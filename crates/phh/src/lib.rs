//! PHH hand histories for Pitboss: the TOML-based Poker Hand History format that PokerKit reads
//! and writes, in PokerKit 0.7.7's conventions (`scripts/pokerkit/notes.md`).
//!
//! - [`write`]: a finished hand's events → a [`PhhHand`] → TOML text; [`PhhsWriter`] streams a
//!   match into a `.phhs` file one table per hand.
//! - [`read`]: `.phh` / `.phhs` text → [`PhhHand`]s; action lines → typed actions.
//! - [`replay`]: a [`PhhHand`] → a Pitboss table, dictated cards, every action through the engine,
//!   finishing stacks compared; a [`Verdict`] per hand whose rejections name the action and, when
//!   the situation is one of docs/RULES.md's known differences with PokerKit 0.7.7, say so.
//! - [`show`]: a replayed hand rendered for a person.
//! - [`frames`]: a replayed hand as the web hand viewer's steps, one full snapshot per step.
//! - [`cli`]: `phh verify` / `phh show` as functions returning the text and exit status, for the
//!   `pitboss` binary to wire.

pub mod cli;
mod error;
pub mod frames;
mod model;
pub mod read;
pub mod replay;
pub mod show;
pub mod write;

pub use error::{Location, PhhError};
pub use model::{code_of, game_of, HandId, PhhHand, Players, CODES};
pub use read::{parse_str, read_file, ReadHand};
pub use replay::{replay, replay_with, ActionRef, Rejection, Replayed, Verdict};
pub use write::{phh_from_events, to_toml, HandRecord, PhhsWriter};
