//! The unchecked table setup and its validation: a hand is started only from a valid one, so the
//! hot loop never re-validates.

use serde::{Deserialize, Serialize};

use crate::game::{Chips, Game, Variant, MAX_CHIPS};
use crate::seat::Seat;

/// What can be wrong with a game or a table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("unknown game preset `{0}` (known: 27td-fl, 27td-pl, 27td-nl, stud8-fl, stud8-pl, stud8-nl)")]
    UnknownPreset(String),
    #[error("`{field}`: {why}")]
    Field { field: &'static str, why: String },
}

/// A table before validation: the game, each seat's stack, and the button (triple draw only; stud's
/// button is always the last seat).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableSetup {
    pub game: Game,
    pub stacks: Vec<Chips>,
    pub button: usize,
}

/// A validated table: the only input [`crate::Hand::start`] accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Table {
    pub(crate) game: Game,
    pub(crate) n: u8,
    pub(crate) stacks: [Chips; crate::MAX_SEATS],
    pub(crate) button: Seat,
}

impl TableSetup {
    /// Validates the setup.
    ///
    /// # Errors
    /// [`SetupError::Field`] naming `stacks`, `button` or a stakes field.
    pub fn validate(&self) -> Result<Table, SetupError> {
        self.game.validate()?;
        let seats = self.game.variant.seats();
        let n = self.stacks.len();
        if !seats.contains(&n) {
            return Err(SetupError::Field {
                field: "stacks",
                why: format!(
                    "{n} players; {:?} takes {} to {}",
                    self.game.variant,
                    seats.start(),
                    seats.end()
                ),
            });
        }
        let mut stacks = [0; crate::MAX_SEATS];
        for (i, &s) in self.stacks.iter().enumerate() {
            if s == 0 || s > MAX_CHIPS {
                return Err(SetupError::Field {
                    field: "stacks",
                    why: format!(
                        "seat {} has {s} chips; a stack must be 1 to {MAX_CHIPS}",
                        i + 1
                    ),
                });
            }
            stacks[i] = s;
        }
        if self.button >= n {
            return Err(SetupError::Field {
                field: "button",
                why: format!(
                    "seat {} does not exist at a table of {n} (seats 1 to {n})",
                    self.button + 1
                ),
            });
        }
        let button = match self.game.variant {
            Variant::TripleDraw => self.button,
            Variant::StudHiLo => n - 1,
        };
        Ok(Table {
            game: self.game,
            n: n as u8,
            stacks,
            button: Seat(button as u8),
        })
    }
}

impl Table {
    pub fn game(&self) -> &Game {
        &self.game
    }

    pub fn seats(&self) -> usize {
        usize::from(self.n)
    }

    pub fn button(&self) -> Seat {
        self.button
    }

    pub fn stack(&self, seat: Seat) -> Chips {
        self.stacks[seat.index()]
    }

    /// The same table with the button on `seat` (triple draw; stud keeps its button on the last
    /// seat). Lets a runner move the button without validating again.
    ///
    /// # Panics
    /// If `seat` is not at the table.
    pub fn with_button(mut self, seat: Seat) -> Table {
        assert!(seat.0 < self.n, "{seat} is not at a table of {}", self.n);
        if self.game.variant == Variant::TripleDraw {
            self.button = seat;
        }
        self
    }
}
