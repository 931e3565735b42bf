//! The messages between the referee and a bot, one JSON object per line, and the [`Bot`] trait
//! that in-process bots implement with exactly the same data.
//!
//! This crate stands alone (it depends only on `pitboss-cards` and serde) so that bot authors can
//! use it without the referee. `protocol.md` at the top of the repository is the contract, field
//! by field; these types are its Rust mirror. Every request that needs an answer carries an `id`
//! that the reply echoes, so a late reply to an old request is recognised and discarded.

mod bot;
pub mod encode;
mod messages;
mod scan;
pub mod sdk;
pub mod terse;
mod wire;

pub use bot::Bot;
pub use messages::*;
pub use wire::{parse_reply, read_line, read_message, write_message, WireError, MAX_LINE};

/// The protocol version spoken by this crate; the handshake must agree on it.
pub const PROTOCOL_VERSION: u32 = 1;
