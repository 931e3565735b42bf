//! The three hand evaluators. Each returns a value type that is `Ord` with **larger = better**, can
//! name its class, and (on a slower path) the best five cards.
//!
//! - [`high`]: best five of 5 to 7 cards, ace high and low in the wheel (stud high half).
//! - [`deuce_to_seven`]: exactly five cards, the worst high hand wins, aces high; the table option
//!   `ace_five_straight` makes A-2-3-4-5 a (bad) five-high straight (docs/RULES.md, "Hand rankings").
//! - [`ace_to_five_8`]: best five distinct ranks 8 or lower, ace low, from 5 to 7 cards; `None`
//!   when no low qualifies.
//!
//! Why tables: the arena evaluates every showdown of millions of hands, so each evaluator is a few
//! lookups in tables that `tables.rs` generates on first use from the slow, readable evaluator in
//! `high.rs` (never committed as blobs). The `*_best_five` functions are slower; use them for
//! display and odd-chip decisions only. `tests/evaluators.rs` checks all of it against an
//! independent reference, exhaustively over five-card hands.

mod high;
mod low;
mod tables;

pub use high::{
    flush_high, high, high_best_five, high_of_rank_key, rank_key, rank_key_unit, HighClass,
    HighValue,
};
pub use low::{
    ace_to_five_8, ace_to_five_8_best_five, ace_to_five_8_of_ranks, deuce_to_seven,
    deuce_to_seven_best_five, AceFiveValue, DeuceSevenValue,
};
