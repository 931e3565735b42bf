//! Cards, sets of cards, seeded decks and the three hand evaluators of Pitboss.
//!
//! Everything here is allocation-free on the hot path: a [`Card`] is a byte, a [`CardSet`] a 64-bit
//! mask, a [`Deck`] a fixed array with its own ChaCha8 generator, and each evaluator turns a
//! [`CardSet`] into a small `Ord` value (larger = better).

mod card;
mod deck;
pub mod eval;
mod serde_impls;
mod set;

pub use card::{parse_cards, Card, Rank, Suit};
pub use deck::{BadSalt, Deck, DeckKey, Salt};
pub use set::CardSet;

/// What can go wrong reading cards.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CardError {
    /// The text is not a rank character followed by a suit character.
    #[error("unknown card `{0}` (expected a rank 2-9 T J Q K A and a suit c d h s, e.g. `Td`)")]
    UnknownCard(String),
    /// The same card appears twice in one holding.
    #[error("duplicate card `{0}`")]
    DuplicateCard(Card),
}
