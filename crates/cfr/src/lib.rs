//! Near-equilibrium heads-up play for the house bot `cfr`: abstractions of the games small enough
//! to solve (triple draw and stud hi/lo, each in all three structures), a solver, and the
//! strategy files the bot plays from.
//!
//! Why: the reference bots are the yardstick of every leaderboard, and heuristic ones fold too
//! often against constant aggression, which a bot written in an hour learns to exploit. The
//! programs that play best approximate an equilibrium of an abstract game, whose worst case is
//! bounded. Here:
//!
//! - [`tree`]: the betting tree of heads-up triple draw (fixed limit: every legal sequence; pot
//!   and no limit: bets of half the pot, the pot and all-in);
//! - [`td`]: the card abstraction (what the standard drawing rule does with a hand and how good
//!   the kept cards are; after the last draw, the made hand) and a sampler of whole deals;
//! - [`stud_tree`], [`stud`]: the same for heads-up stud hi/lo (each street's betting whole in
//!   fixed limit, the same sizes as triple draw's in pot and no limit, the streets joined by the
//!   pot and the last aggressor; the high and low prospects against the opponent's board);
//! - [`mccfr`]: external-sampling Monte Carlo CFR with regret matching⁺ and linear averaging;
//! - [`strategy`]: the file of the average strategy (probabilities in 255ths, zstd-compressed),
//!   which the bot embeds.
//!
//! `cargo run --release -p pitboss-cfr --bin pitboss-cfr-train -- --help` builds a strategy; the
//! same seed and iterations give the same file, byte for byte.

pub mod mccfr;
pub mod strategy;
pub mod stud;
pub mod stud_tree;
pub mod td;
pub mod tree;
