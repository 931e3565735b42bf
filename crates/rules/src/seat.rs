//! Seats as a newtype, so a seat is never confused with a count or a card index.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A seat at the table, 0-based. Displayed as `seat 0`, `seat 1`, ...: the protocol's numbering,
/// which is what a bot author sees in `view.you` (hand histories use their own `p1`, `p2`, ...).
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
        write!(f, "seat {}", self.0)
    }
}
