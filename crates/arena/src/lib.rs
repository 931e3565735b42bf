//! The arena: the referee loop that puts bots and the rules together, matches over many hands on
//! worker threads, streaming statistics, and the files a match leaves behind.
//!
//! Data flow: [`MatchConfig`] → [`run_match`] → blocks of hands on threads (in duplicate matches
//! with bots that run as processes, one seat rotation of a chunk of blocks at a time: [`phases`])
//! → [`Referee::play`] (seed → deck → `rules::Hand` → `Hand::view` → [`Player`] → `Hand::apply`)
//! → [`MatchStats`] → [`SummaryRow`]s → `summary.csv`. Tournaments, ratings, SPRT and the reports
//! built on these matches are the crate `pitboss-tournament`; external bots (processes, sessions,
//! the protocol's multi-table processes) are `pitboss-external`, and their jail `pitboss-jail`.

pub mod config;
pub mod convert;
pub mod multi;
pub mod name;
pub mod output;
pub mod phases;
pub mod player;
pub mod referee;
pub mod runner;
pub mod spec;
pub mod stats;
pub mod summary;
pub mod tape;

pub use config::{ConfigError, MatchConfig, MatchFile};
pub use player::{Fault, InProcess, Player};
pub use referee::{Referee, SeatFault};
pub use runner::{run_match, slot, ArenaError, BotFactory, MatchResult, Slot};
pub use stats::{BotStats, MatchStats};
pub use summary::SummaryRow;
