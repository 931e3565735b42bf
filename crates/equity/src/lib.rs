//! Equity from one seat's information: what share of the pot a holding is worth against opponents
//! whose cards are unknown, in seven card stud hi/lo and deuce-to-seven triple draw.
//!
//! Why a crate of its own: bots (built in or written by others) need the same questions answered —
//! "how often do I scoop from here?", "which cards do I throw?" — and answering them well is mostly
//! counting cards fast. It depends only on `pitboss-cards` (cards and the table evaluators), never
//! on the rules engine or the arena, so it takes exactly what a seat can see: its own cards, every
//! up card, the cards seen folded or shown, the opponents' draw counts and what is still to come.
//!
//! - [`stud`]: P(scoop), the expected shares of the high and low halves and of the pot, by exact
//!   enumeration when the unknown cards allow few outcomes (e.g. heads-up seventh street), else by
//!   seeded Monte Carlo with a standard error; opponents may carry weighted ranges.
//! - [`draw`]: the pot share of a keep with k draws left against opponents modelled from their draw
//!   counts, the shares of several keeps on shared samples (`keep_equities`, cheaper at a full
//!   table), and the best keep.
//!
//! Every random choice comes from [`Config::seed`]: the same query and config give the same answer.
//!
//! ```
//! use pitboss_cards::{parse_cards, CardSet};
//! use pitboss_equity::{stud, Config};
//!
//! // Seventh street, heads-up: we hold a wheel and a straight; the opponent shows four hearts.
//! let hero: CardSet = parse_cards("Ac 2d 3h 4s 5c Kd Ks").unwrap().iter().collect();
//! let up: CardSet = parse_cards("9h Th Jh 2h").unwrap().iter().collect();
//! let spot = stud::StudSpot {
//!     hero,
//!     board: None,
//!     opponents: vec![stud::StudOpponent { up, hidden: 3 }],
//!     dead: CardSet::EMPTY,
//! };
//! let eq = stud::equity(&spot, &Config::default(), None).unwrap();
//! assert!(eq.exact); // C(41, 3) = 10,660 opponent holdings, counted by rank pattern
//! assert!(eq.low > 0.99); // nothing beats the wheel
//! assert!(eq.share > 0.5 && eq.share < 1.0); // but the high half is at risk from the flush
//! ```

pub mod draw;
mod sample;
pub mod stud;
mod stud_ranks;

/// How hard to look: the sample count of Monte Carlo, the largest number of outcomes enumerated
/// exactly, and the seed of every random choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Monte Carlo samples (per candidate keep in [`draw::best_keep`]). A sample is one random
    /// deal of the unknown cards, except that a triple-draw sample averages this seat's last
    /// one-card draw (or all its draws, when each is of one card to the same four ranks) over
    /// every card left instead of dealing it (see [`draw`]).
    pub samples: u32,
    /// Enumerate exactly when the number of outcomes is at most this (0: always sample).
    pub exact_limit: u64,
    /// Seed of the sampler (wyrand, seeded through SplitMix64).
    pub seed: u64,
}

impl Default for Config {
    /// 1,000 samples, exact up to 20,000 outcomes (heads-up seventh street is at most C(41, 3) = 10,660).
    fn default() -> Config {
        Config {
            samples: 1000,
            exact_limit: 20_000,
            seed: 0,
        }
    }
}

/// What a query can get wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EquityError {
    /// The same card was given twice (held by two players, or held and dead).
    #[error("card {0} appears twice in the spot")]
    DuplicateCard(pitboss_cards::Card),
    /// A player would hold more cards than the game deals.
    #[error("player {player} holds {cards} cards; the game deals at most {max}")]
    TooManyCards { player: usize, cards: u32, max: u32 },
    /// Not enough unseen cards to finish the hands even with a shared last card.
    #[error("{needed} unseen cards are needed but only {left} are left")]
    DeckExhausted { needed: u32, left: u32 },
    /// No opponents (or more than seven).
    #[error("{0} opponents; between 1 and 7 are supported")]
    Opponents(usize),
    /// A keep that is not part of the hand, or a hand that is not five cards.
    #[error("bad draw query: {0}")]
    BadDraw(&'static str),
    /// Monte Carlo with zero samples, or every sampled outcome weighted zero.
    #[error("no samples: give a positive sample count and a range that allows some holding")]
    NoSamples,
}
