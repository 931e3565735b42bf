//! The service's settings: flags of `pitboss serve` over an optional `ladder.toml` in the data
//! folder, over built-in defaults (every preset heads-up against the eight built-in bots).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::ServiceError;

/// `ladder.toml`: every key optional.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LadderFile {
    pub presets: Option<Vec<String>>,
    pub references: Option<Vec<String>>,
    pub hands_per_match: Option<u64>,
    pub workers: Option<usize>,
    pub threads_per_match: Option<usize>,
    pub ranked_halfwidth: Option<f64>,
    pub check_hands: Option<u64>,
    pub history_hands: Option<u64>,
    pub luck_adjust: Option<bool>,
    pub uploads_per_hour: Option<i64>,
    pub max_bundle_mb: Option<i64>,
    pub plan: Option<bool>,
}

/// The validated settings.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    pub data: PathBuf,
    /// A database URL instead of `DATA/pitboss.db` (PostgreSQL for a service on many machines).
    pub database: Option<String>,
    pub listen: std::net::SocketAddr,
    pub presets: Vec<String>,
    pub references: Vec<String>,
    /// Hands of a ladder match (even: every deal from both seats).
    pub hands_per_match: u64,
    /// Jobs (matches or checks) at once.
    pub workers: usize,
    pub threads_per_match: usize,
    pub ranked_halfwidth: f64,
    pub check_hands: u64,
    /// Hands of each match kept for the hand viewer.
    pub history_hands: u64,
    pub luck_adjust: bool,
    pub sandbox: bool,
    pub uploads_per_hour: i64,
    pub max_bundle_bytes: i64,
    /// Whether the scheduler plans ladder matches (`ladder.toml`: `plan = false` makes it play
    /// only the matches already queued in the store: a fixed list, for tests and benchmarks
    /// that compare runs on the same seeds).
    pub plan: bool,
}

impl ServeConfig {
    /// Defaults for data folder `data`, overlaid with `DATA/ladder.toml` when it exists.
    ///
    /// # Errors
    /// [`ServiceError::Config`] naming the file and key of a bad value.
    pub fn load(data: &Path, listen: std::net::SocketAddr) -> Result<ServeConfig, ServiceError> {
        let path = data.join("ladder.toml");
        let f: LadderFile = match std::fs::read_to_string(&path) {
            Ok(t) => toml::from_str(&t).map_err(|e| ServiceError::Config {
                what: path.display().to_string(),
                why: e.to_string(),
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => LadderFile::default(),
            Err(e) => {
                return Err(ServiceError::Config {
                    what: path.display().to_string(),
                    why: e.to_string(),
                })
            }
        };
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let c = ServeConfig {
            data: data.to_path_buf(),
            database: None,
            listen,
            presets: f.presets.unwrap_or_else(|| {
                pitboss_ladder::DEFAULT_PRESETS
                    .iter()
                    .map(|s| s.to_string())
                    .collect()
            }),
            references: f
                .references
                .unwrap_or_else(|| pitboss_bots::NAMES.iter().map(|s| s.to_string()).collect()),
            hands_per_match: f.hands_per_match.unwrap_or(20_000),
            workers: f.workers.unwrap_or(cores),
            threads_per_match: f.threads_per_match.unwrap_or(1),
            ranked_halfwidth: f.ranked_halfwidth.unwrap_or(60.0),
            check_hands: f.check_hands.unwrap_or(100),
            history_hands: f.history_hands.unwrap_or(100),
            luck_adjust: f.luck_adjust.unwrap_or(true),
            sandbox: true,
            uploads_per_hour: f.uploads_per_hour.unwrap_or(20),
            max_bundle_bytes: f.max_bundle_mb.unwrap_or(64) << 20,
            plan: f.plan.unwrap_or(true),
        };
        c.validate(&path)?;
        Ok(c)
    }

    fn validate(&self, path: &Path) -> Result<(), ServiceError> {
        let bad = |key: &str, why: String| ServiceError::Config {
            what: format!("{} ({key})", path.display()),
            why,
        };
        for p in &self.presets {
            if pitboss_rules::Preset::by_name(p).is_err() {
                let names: Vec<&str> = pitboss_rules::PRESETS.iter().map(|p| p.name).collect();
                return Err(bad(
                    "presets",
                    format!("unknown preset {p:?} (presets: {})", names.join(", ")),
                ));
            }
        }
        self.ladder()
            .validate()
            .map_err(|e| bad("presets / ranked_halfwidth", e.to_string()))?;
        for r in &self.references {
            if pitboss_bots::builtin(r, 1).is_none() {
                return Err(bad(
                    "references",
                    format!(
                        "unknown built-in bot {r:?} ({})",
                        pitboss_bots::NAMES.join(", ")
                    ),
                ));
            }
        }
        if self.references.is_empty() {
            return Err(bad(
                "references",
                "at least one reference bot: ratings are measured against them".into(),
            ));
        }
        if self.hands_per_match < 2
            || !self.hands_per_match.is_multiple_of(2)
            || self.hands_per_match > 10_000_000
        {
            return Err(bad(
                "hands_per_match",
                format!(
                    "{}: an even number from 2 to 10000000",
                    self.hands_per_match
                ),
            ));
        }
        if !(1..=256).contains(&self.workers) {
            return Err(bad("workers", format!("{}: 1 to 256", self.workers)));
        }
        if !(1..=64).contains(&self.threads_per_match) {
            return Err(bad(
                "threads_per_match",
                format!("{}: 1 to 64", self.threads_per_match),
            ));
        }
        if self.check_hands == 0 || self.check_hands > 100_000 {
            return Err(bad(
                "check_hands",
                format!("{}: 1 to 100000", self.check_hands),
            ));
        }
        if self.uploads_per_hour < 1 || self.max_bundle_bytes < 1 {
            return Err(bad("uploads_per_hour / max_bundle_mb", "at least 1".into()));
        }
        Ok(())
    }

    /// The ladder's settings.
    pub fn ladder(&self) -> pitboss_ladder::Settings {
        pitboss_ladder::Settings {
            presets: self.presets.clone(),
            ranked_halfwidth: self.ranked_halfwidth,
            ..pitboss_ladder::Settings::default()
        }
    }
}
