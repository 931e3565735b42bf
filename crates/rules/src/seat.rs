//! Seats as a newtype, so a seat is never confused with a count or a card index.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A seat at the table, 0-based inside the engine and on the wire (the protocol's numbering).
/// Displayed from 1 (`Seat(0)` is `seat 1`): everything a person reads (`hands.csv`, `phh show`,
/// `match.log`, error messages) numbers seats from 1, as the hand histories' `seats` field does
/// (docs/REFERENCE.md, *Numbering*; protocol.md §2 says how the wire maps to it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Seat(pub u8);

impl Seat {
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The next seat clockwise at a table of `n`.
    #[inline]
    pub const fn next(self, n: u8) -> Seat {
        Seat(if self.0 + 1 == n { 0 } else { self.0 + 1 })
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seat {}", u16::from(self.0) + 1)
    }
}
