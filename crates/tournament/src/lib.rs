//! Tournaments: round robins of duplicate heads-up pairings or ring tables over one or more games,
//! cut into work units that are played on worker threads, written one file each as they finish,
//! resumable after any interruption, shardable across machines and mergeable into results
//! byte-identical to a single uninterrupted run.
//!
//! Flow: [`TournamentConfig`] → [`Plan`] (`plan.json`, the list of units) → [`run`] (units →
//! `units/<id>.json`) → [`Standings::compute`] (units in canonical order, SPRT applied) →
//! [`report`] (leaderboard, crosstable, HTML), with [`ratings`] and [`sprt`].
//!
//! Why a crate apart from `pitboss-arena`: a tournament is a plan of many matches and the files
//! that make it resumable and mergeable; the arena plays one match. This crate only calls the
//! arena's match pieces (referee, seats, statistics), never the other way round.
//!
//! Folder layout: `plan.json`, `shard.json` (sharded runs), `units/`, `games/<game>/bots/` (logs of
//! external bots, written by the binary's factories), `hands/` (with `--history`: the first hands
//! of each pairing, see [`history`]), and the reports.

pub mod config;
pub mod history;
pub mod plan;
pub mod ratings;
pub mod report;
pub mod results;
pub mod runner;
pub mod shards;
pub mod sprt;
pub mod unit;

use std::path::Path;

pub use config::{Entrant, EntrantEntry, Format, TournamentConfig, TournamentFile};
pub use plan::{Plan, TableSpec, UnitSpec};
pub use results::{Standings, TableResult};
pub use runner::{run, RunMode, RunProgress, RunSummary};
pub use shards::{load_folders, Shard};
pub use unit::{EntrantFactory, GameFactories, SameForAll, UnitResult};

/// A failure to run, resume, merge or report a tournament.
#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not a tournament plan: {why}")]
    BadPlan { path: String, why: String },
    #[error("{path}: unreadable unit result ({why}); delete it and resume to replay the unit")]
    BadUnit { path: String, why: String },
    #[error("{path}: unit result refused: {why}; restore the original, or delete it and resume to replay the unit")]
    RefusedUnit { path: String, why: String },
    #[error("{path}: plan refused: {why}")]
    RefusedPlan { path: String, why: String },
    #[error("the bots of {game} cannot be started: {why}")]
    Bots { game: String, why: String },
    #[error("{dir} holds a different tournament ({detail}); use another --out folder, or resume it without a config")]
    PlanMismatch { dir: String, detail: String },
    #[error("{dir} is shard {have} but {want} was asked for")]
    ShardMismatch {
        dir: String,
        have: String,
        want: String,
    },
    #[error("{dir} has no plan.json: not a tournament folder")]
    NotATournament { dir: String },
    #[error("shard {index}/{count} is missing (no folder given holds it)")]
    MissingShard { index: usize, count: usize },
    #[error("shard {index}/{count} given twice: {first} and {second}")]
    DuplicateShard {
        index: usize,
        count: usize,
        first: String,
        second: String,
    },
    #[error("the folders were cut into different shard counts: {first} has {a}, {second} has {b}")]
    ShardCounts {
        first: String,
        a: usize,
        second: String,
        b: usize,
    },
    #[error("unit {id} found twice: {first} and {second}")]
    DuplicateUnit {
        id: String,
        first: String,
        second: String,
    },
    #[error("unit {id} is missing (shard {shard}, folder {dir}); resume that folder with `pitboss tournament --resume {dir}`{more}")]
    MissingUnit {
        id: String,
        shard: String,
        dir: String,
        more: String,
    },
    #[error("{what}: {source}")]
    Csv {
        what: String,
        #[source]
        source: csv::Error,
    },
}

impl TournamentError {
    /// A closure turning an I/O error on `path` into [`TournamentError::Io`].
    pub fn io(path: &Path) -> impl FnOnce(std::io::Error) -> TournamentError + '_ {
        move |source| TournamentError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}
