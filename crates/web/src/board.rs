//! The board: everything the pages and the API show that is *derived* from the database (ratings,
//! crosstables, comparisons, play statistics), computed by the service after every finished match
//! and handed to the web server as one immutable snapshot (`tokio::sync::watch`). Why a snapshot:
//! the leaderboard must answer in milliseconds under load, so a request reads a ready `Arc`
//! instead of re-rating thousands of matches; and every page of one request sees one state.

use std::collections::BTreeMap;

use serde::Serialize;

/// The name of the overall table in [`Board::tables`] (the mean over the ladder's presets).
pub const OVERALL: &str = "overall";

/// A version as the pages show it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VersionView {
    pub id: i64,
    /// `name` for a reference bot, `name.vN` for an upload.
    pub label: String,
    pub bot: String,
    pub number: i64,
    /// pending, checking, active, failed, retired.
    pub state: String,
    pub reference: bool,
    /// The owning account's id (`None`: the house). Never shown; used to decide who sees logs.
    #[serde(skip)]
    pub owner: Option<i64>,
    pub created_at: i64,
}

/// One line of a leaderboard (one preset, or overall).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RatingRow {
    pub version: i64,
    /// mbb/hand against the reference bots' mean (0); `None` when not yet connected.
    pub rating: Option<f64>,
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub matches: u64,
    pub hands: u64,
    pub provisional: bool,
    /// 1-based rank among the ranked (non-provisional) active versions.
    pub rank: Option<usize>,
}

/// A head-to-head entry of the crosstable: `a`'s result against `b` (in one preset, or all
/// presets pooled when `preset` is `None`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cross {
    pub a: i64,
    pub b: i64,
    pub preset: Option<String>,
    /// mbb/hand, luck-adjusted, with its 95% interval.
    pub mean: f64,
    pub low: f64,
    pub high: f64,
    pub matches: u64,
    pub hands: u64,
}

/// A new version against the one it replaced.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    pub new: i64,
    pub old: i64,
    pub mean: f64,
    pub low: f64,
    pub high: f64,
    pub matches: u64,
    /// "better", "worse" or "not yet known".
    pub verdict: String,
}

/// Play statistics of a version over all its finished matches (fractions in 0..=1).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PlayStats {
    pub hands: u64,
    /// Voluntarily put chips in the pot.
    pub vpip: f64,
    /// (bets + raises) / calls.
    pub aggression: f64,
    /// Went to showdown, of hands played.
    pub went_to_showdown: f64,
    /// Won at showdown, of showdowns.
    pub won_at_showdown: f64,
    /// Folded when facing a bet, of the times it faced one.
    pub fold_to_bet: f64,
    /// Faults by kind (e.g. "timeout") with counts; only kinds that happened.
    pub faults: Vec<(String, u64)>,
}

/// A point of a version's overall rating over time.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RatingPoint {
    /// Unix ms.
    pub at: i64,
    pub rating: f64,
    pub low: f64,
    pub high: f64,
}

/// The whole derived state.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Board {
    /// Bumped on every change: pages and the event stream use it to tell whether to refresh.
    pub generation: u64,
    pub updated_at: i64,
    /// The ladder's presets, in order.
    pub presets: Vec<String>,
    /// Every version, by id.
    pub versions: BTreeMap<i64, VersionView>,
    /// Leaderboards: one per preset and [`OVERALL`]; rows of active versions, best first
    /// (ranked ones by rank, then provisional ones by rating).
    pub tables: BTreeMap<String, Vec<RatingRow>>,
    /// Retired versions' last ratings (overall), for their pages.
    pub retired: BTreeMap<i64, RatingRow>,
    pub cross: Vec<Cross>,
    pub comparisons: BTreeMap<i64, Comparison>,
    pub stats: BTreeMap<i64, PlayStats>,
    pub history: BTreeMap<i64, Vec<RatingPoint>>,
    /// Finished matches and hands so far.
    pub matches: u64,
    pub hands: u64,
}
