//! Seats as a newtype, so a seat is never confused with a count or a card index.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A seat at the table, 0-based. Displayed 1-based as `p1`, `p2`, ... like hand histories.
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
        write!(f, "p{}", self.0 + 1)
    }
}
