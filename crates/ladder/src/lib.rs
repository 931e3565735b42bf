//! The continuous ladder of the Pitboss service: ratings with 95% intervals from heads-up duplicate
//! results, provisional and ranked versions, head-to-head comparisons of a version with its
//! predecessor, and the choice of the next pairings. Pure logic: no I/O, no clock, no randomness.
//!
//! # The model
//!
//! Every finished match is a [`Record`]: in one preset (game + betting structure), version `a`
//! won `mean` mbb/hand per duplicate unit against `b`, with standard error `se`. Duplicate play and
//! luck adjustment make `mean` nearly normal with a known `se`, so per preset the ratings `r` are
//! the weighted least-squares fit of
//!
//! ```text
//! r_a − r_b ≈ mean    with weight 1/se²   (one term per record)
//! ```
//!
//! Records of the same pair simply add up their weights: ten short matches tell as much as one
//! long one. The fit only determines *differences*, so one constraint fixes the level:
//!
//! - **The anchor is the mean rating of the reference bots, set to 0.** The built-in reference bots
//!   never change, so a rating means "mbb/hand against the average reference bot" and stays put
//!   when uploads arrive: a new version connected by a single record moves nobody else (a leaf of
//!   the graph of records is fitted exactly), and only cycles of records refine old ratings. Had we
//!   anchored on the mean of *all* versions (the fallback when there is no reference bot), every
//!   upload would shift everybody's number.
//! - A version not connected to the anchor through a chain of records has no rating in that preset
//!   (`None`): nothing ties its level to the others. When the references themselves fall into
//!   several disconnected groups (a young ladder), the group with the most references carries the
//!   anchor.
//!
//! The standard errors come from the inverse of the information matrix (the weighted graph
//! Laplacian) under the anchor constraint, so they account for every path through which a version
//! is compared with the anchor. `low`/`high` are `value ∓ 1.96·se`: **a 95% confidence interval of
//! the version's rating relative to the reference mean, under the model** (additive strengths,
//! independent records, each `se` right). Non-transitive bots break the additive model; each
//! preset's `chi2` against its `dof` ([`PresetSummary`]) shows how well it fits (chi² ≫ dof:
//! intervals too narrow).
//!
//! The **overall** rating is the plain mean of the per-preset ratings over the ladder's presets
//! (each game counts the same, whatever was played most); presets have disjoint records, so its
//! variance is the sum of the per-preset variances over the number of presets squared. A version
//! missing a preset still shows the mean of what exists, flagged provisional.
//!
//! # Provisional and ranked
//!
//! A version is **ranked** once it is rated in every preset, has at least
//! `min_matches_per_preset` matches in each, and its overall 95% half-width is at most
//! `ranked_halfwidth` mbb/hand; until then it is **provisional**. Ranks order the ranked, active
//! versions by overall rating. Provisional is a property of the data, not of time: a preset added
//! to the ladder makes everybody provisional again until they have played it. The half-width
//! shrinks like `1/sqrt(matches)`, so with a typical record `se` of `s` per preset a version
//! needs roughly `(1.96·s/ranked_halfwidth)² / presets` matches per preset against
//! well-measured opponents before it is ranked.
//!
//! # What to play next
//!
//! [`next`] chooses pairings greedily, one at a time, each pick counted as in flight for the
//! following ones (see the `next` module): new versions first, then a version against its
//! predecessor until [`compare`] decides, then provisional (or starved) versions, then neighbours
//! whose overall intervals overlap, by the expected shrink of the variance of their rating
//! difference, and reference against reference last. A non-reference version gets at most
//! `max_in_flight` matches at a time while another pairing is possible; ties go by ids, so it is
//! deterministic, and the order of the records does not matter (sums are taken in a canonical
//! order).
//!
//! # Use
//!
//! [`rate`] for the pages (standings, per-preset tables, ranks), [`compare`] for a version's page
//! (is it better than its predecessor), [`next`] for the scheduler, which passes the matches it
//! has running as `in_flight`. All three take the whole history and are cheap enough to call
//! every time (200 versions, 6 presets, 12,000 records: about 0.1 s on one core). Records naming an
//! unknown version or carrying non-finite or absurd numbers are rejected and counted
//! ([`Ratings::rejected`]); records of presets the settings do not name are ignored.

mod compare;
mod fit;
mod next;
mod rate;
mod solve;

pub use compare::{compare, Comparison, PresetComparison, Verdict};
pub use next::next;
pub use rate::{rate, PresetRating, PresetSummary, Ratings, VersionRating};

/// The id of a version of a bot (the store's row id).
pub type VersionId = i64;

/// The two-sided 95% quantile of the normal distribution.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Smallest standard error a record is given, mbb/hand. Two deterministic bots that mirror each
/// other in duplicate play produce a record with `se = 0`; a floor keeps its weight finite (and
/// the linear algebra well conditioned) while still tying the two tightly.
pub const MIN_SE: f64 = 0.1;

/// Largest |mean| or `se` a record may have, mbb/hand: far beyond any real result (a whole 200 bb
/// stack lost every hand is 200,000), so anything larger is a corrupt record and is rejected.
pub const MAX_MBB: f64 = 1e7;

/// A version taking part in the ladder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entrant {
    pub id: VersionId,
    /// A built-in reference bot: the references' mean rating is the anchor (0).
    pub reference: bool,
    /// Retired versions keep their history (and ratings) but are never scheduled.
    pub active: bool,
    /// The previous version of the same bot, for the head-to-head comparison.
    pub predecessor: Option<VersionId>,
}

/// One finished match.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub preset: String,
    pub a: VersionId,
    pub b: VersionId,
    /// Duplicate units played.
    pub units: u64,
    /// `a`'s result, mbb/hand per unit (`b`'s is `-mean`).
    pub mean: f64,
    /// The standard error of `mean`.
    pub se: f64,
}

/// A match to play: `a` against `b` in `preset`, the lower id first.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pairing {
    pub preset: String,
    pub a: VersionId,
    pub b: VersionId,
}

impl Pairing {
    /// A pairing with the lower id first (duplicate matches are symmetric).
    pub fn new(preset: &str, x: VersionId, y: VersionId) -> Self {
        Pairing {
            preset: preset.to_string(),
            a: x.min(y),
            b: x.max(y),
        }
    }

    pub fn involves(&self, id: VersionId) -> bool {
        self.a == id || self.b == id
    }
}

/// The ladder's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// The presets every version is rated in; the overall rating is their mean.
    pub presets: Vec<String>,
    /// A version is ranked once its overall 95% half-width is at most this, mbb/hand.
    pub ranked_halfwidth: f64,
    /// ... and it has at least this many matches in every preset.
    pub min_matches_per_preset: u32,
    /// At most this many head-to-head matches against the predecessor per preset while their
    /// comparison is undecided (the rest of the ladder must not wait forever on a near tie).
    pub head_to_head_cap: u32,
    /// A non-reference version gets at most this many matches in flight while another pairing is
    /// possible (reference bots run in process and are not limited).
    pub max_in_flight: u32,
}

/// The default presets of the service.
pub const DEFAULT_PRESETS: [&str; 6] = [
    "27td-fl", "27td-pl", "27td-nl", "stud8-fl", "stud8-pl", "stud8-nl",
];

impl Default for Settings {
    fn default() -> Self {
        Settings {
            presets: DEFAULT_PRESETS.iter().map(|s| s.to_string()).collect(),
            ranked_halfwidth: 60.0,
            min_matches_per_preset: 1,
            head_to_head_cap: 6,
            max_in_flight: 2,
        }
    }
}

/// Why settings cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LadderError {
    #[error("the ladder has no presets")]
    NoPresets,
    #[error("a preset name is empty")]
    EmptyPreset,
    #[error("preset {0:?} is listed twice")]
    DuplicatePreset(String),
    #[error("ranked_halfwidth = {0} must be a positive number of mbb/hand")]
    BadHalfwidth(f64),
    #[error("max_in_flight must be at least 1")]
    NoInFlight,
}

impl Settings {
    /// Checks the settings (for the config loader). The functions of this crate never panic on
    /// bad settings: duplicate presets count once and a non-positive half-width ranks nobody.
    pub fn validate(&self) -> Result<(), LadderError> {
        if self.presets.is_empty() {
            return Err(LadderError::NoPresets);
        }
        for (i, p) in self.presets.iter().enumerate() {
            if p.is_empty() {
                return Err(LadderError::EmptyPreset);
            }
            if self.presets[..i].contains(p) {
                return Err(LadderError::DuplicatePreset(p.clone()));
            }
        }
        if !(self.ranked_halfwidth.is_finite() && self.ranked_halfwidth > 0.0) {
            return Err(LadderError::BadHalfwidth(self.ranked_halfwidth));
        }
        if self.max_in_flight == 0 {
            return Err(LadderError::NoInFlight);
        }
        Ok(())
    }

    /// The presets without repeats, in order.
    pub(crate) fn unique_presets(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for p in &self.presets {
            if !out.contains(p) {
                out.push(p.clone());
            }
        }
        out
    }
}

/// A value with its standard error and 95% interval, mbb/hand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub value: f64,
    pub se: f64,
    pub low: f64,
    pub high: f64,
}

impl Estimate {
    pub fn new(value: f64, se: f64) -> Self {
        Estimate {
            value,
            se,
            low: value - Z95 * se,
            high: value + Z95 * se,
        }
    }

    pub fn halfwidth(&self) -> f64 {
        Z95 * self.se
    }

    /// Whether the two intervals share a point.
    pub fn overlaps(&self, other: &Estimate) -> bool {
        self.low <= other.high && other.low <= self.high
    }
}

/// A record's `a` result and weight `1/se²`, or `None` when it is unusable (a version against
/// itself, a non-finite or absurd number). `se` is floored at [`MIN_SE`].
pub(crate) fn usable(r: &Record) -> Option<(f64, f64)> {
    let ok = r.a != r.b
        && r.mean.is_finite()
        && r.mean.abs() <= MAX_MBB
        && r.se.is_finite()
        && r.se >= 0.0
        && r.se <= MAX_MBB;
    ok.then(|| {
        let se = r.se.max(MIN_SE);
        (r.mean, 1.0 / (se * se))
    })
}

/// Entrants without repeated ids (the first one counts).
pub(crate) fn unique_entrants(entrants: &[Entrant]) -> Vec<Entrant> {
    let mut seen = std::collections::HashSet::new();
    entrants
        .iter()
        .filter(|e| seen.insert(e.id))
        .copied()
        .collect()
}
