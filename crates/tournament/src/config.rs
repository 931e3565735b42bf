//! Tournament configuration: a TOML file (and flags laid over it) validated into one
//! [`TournamentConfig`]; errors name the key (and flag) and the bad value.

use std::path::PathBuf;

use pitboss_cards::Salt;
use pitboss_rules::Preset;
use serde::{Deserialize, Serialize};

use crate::sprt::SprtConfig;
use pitboss_arena::config::{at_most, random_seed, ConfigError, MAX_SEED};

/// A bot of the field: its name in reports and file names, and the spec the factory starts it
/// from (a built-in bot name, or whatever the bot factory understands).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entrant {
    pub name: String,
    pub spec: String,
}

/// A bot as written in a tournament file: `"lowball"` (name and spec), or
/// `{ name = "mine", spec = "exec:python3 bot.py" }`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum EntrantEntry {
    Spec(String),
    Named { name: String, spec: String },
}

/// Fields as given, all optional; a tournament file has exactly these keys.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TournamentFile {
    /// A title for the reports.
    pub name: Option<String>,
    /// Game presets, e.g. ["27td-fl", "stud8-fl"].
    pub games: Option<Vec<String>>,
    pub bots: Option<Vec<EntrantEntry>>,
    /// "heads-up" (every pair) or "ring" (tables of `table_size`).
    pub format: Option<String>,
    pub table_size: Option<usize>,
    /// Ring only: this many random balanced tables instead of every `table_size`-subset.
    pub tables: Option<usize>,
    /// Duplicate deals per table and game (each deal is played in every seat rotation).
    pub deals: Option<u64>,
    /// Deals per work unit (the unit of resume, sharding and SPRT checks).
    pub batch: Option<u64>,
    pub seed: Option<u64>,
    /// The secret mixed into the deck keys (64 hex digits); chosen by the referee when an
    /// external bot plays and kept in `plan.json`.
    pub salt: Option<Salt>,
    /// Bootstrap resamples for the rating and bankroll intervals.
    pub bootstrap: Option<usize>,
    pub threads: Option<usize>,
    pub out: Option<PathBuf>,
    /// Early stopping per pairing (heads-up only); absent: fixed length.
    pub sprt: Option<SprtConfig>,
    /// Luck-adjusted results (crate `pitboss-luck`): per-deal adjusted nets in the units, `adj_*`
    /// columns, and SPRT and ratings on the adjusted values (default false).
    pub luck_adjust: Option<bool>,
}

impl TournamentFile {
    /// `self` with every field that `over` sets replaced.
    pub fn overlay(self, over: TournamentFile) -> TournamentFile {
        TournamentFile {
            name: over.name.or(self.name),
            games: over.games.or(self.games),
            bots: over.bots.or(self.bots),
            format: over.format.or(self.format),
            table_size: over.table_size.or(self.table_size),
            tables: over.tables.or(self.tables),
            deals: over.deals.or(self.deals),
            batch: over.batch.or(self.batch),
            seed: over.seed.or(self.seed),
            salt: over.salt.or(self.salt),
            bootstrap: over.bootstrap.or(self.bootstrap),
            threads: over.threads.or(self.threads),
            out: over.out.or(self.out),
            sprt: over.sprt.or(self.sprt),
            luck_adjust: over.luck_adjust.or(self.luck_adjust),
        }
    }
}

/// How bots meet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    HeadsUp,
    Ring,
}

/// A validated tournament. Everything but `threads` and `out` is part of the plan: the same
/// settings give the same hands and the same results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TournamentConfig {
    pub name: String,
    pub games: Vec<String>,
    pub bots: Vec<Entrant>,
    pub format: Format,
    pub table_size: usize,
    pub tables: Option<usize>,
    pub deals: u64,
    pub batch: u64,
    pub seed: u64,
    /// Deck salt: `None` only when every entrant is an in-process bot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub salt: Option<Salt>,
    pub bootstrap: usize,
    pub sprt: Option<SprtConfig>,
    /// Luck-adjusted units, SPRT and ratings. Written to `plan.json` only when on, so plans made
    /// before it existed keep their settings hash.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub luck_adjust: bool,
    /// The luck estimator's value model (`pitboss_luck::MODEL_NAME` when made), so that a resume
    /// or merge by a later pitboss keeps it. Absent: a plan made before the all-in model of stud
    /// (the showdown-now model), or no luck adjustment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub luck_model: Option<String>,
    #[serde(skip)]
    pub threads: usize,
    #[serde(skip)]
    pub out: PathBuf,
    /// Keep the PHH histories of the first this many hands of each pairing (0: none), at most
    /// its first work unit's hands: see [`crate::history`]. A setting of the run, not of the
    /// plan (like `threads`), so a resume may turn it on or off without changing any result.
    #[serde(skip)]
    pub history_hands: u64,
    /// With `history_hands`: keep only the hands of tables where one of these bots sits (empty:
    /// every table). The registry keeps the submitted bot's.
    #[serde(skip)]
    pub history_of: Vec<String>,
}

/// The most duplicate deals per table and game (10^12).
pub const MAX_DEALS: u64 = 1_000_000_000_000;

/// The most bootstrap resamples (each one walks every deal of every table).
pub const MAX_BOOTSTRAP: usize = 100_000;

/// The most work units of a plan (`plan.json` lists them all, and a run keeps them in memory).
pub const MAX_UNITS: u64 = 200_000;

/// `n` choose `k`, `None` when it does not fit.
fn binomial(n: u128, k: u128) -> Option<u128> {
    let mut r: u128 = 1;
    for i in 0..k.min(n.saturating_sub(k)) {
        r = r.checked_mul(n - i)? / (i + 1);
    }
    Some(r)
}

fn err(key: &'static str, why: impl Into<String>) -> ConfigError {
    ConfigError {
        key,
        why: why.into(),
    }
}

/// Whether `s` can be a bot name (it appears in file names, terminals and spreadsheets): the set
/// of [`pitboss_arena::name`], 1 to 64 letters, digits, `_ . + -`, starting with a letter, digit
/// or `_`.
pub fn valid_name(s: &str) -> bool {
    pitboss_arena::name::valid(s)
}

impl TournamentConfig {
    /// Validates raw fields; `default_out` names the output folder when none is given.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the key.
    pub fn from_file(
        f: TournamentFile,
        default_out: impl FnOnce() -> PathBuf,
    ) -> Result<TournamentConfig, ConfigError> {
        let games = f.games.unwrap_or_else(|| vec!["27td-fl".to_string()]);
        if games.is_empty() {
            return Err(err("--game / games", "no game given"));
        }
        for (i, g) in games.iter().enumerate() {
            Preset::by_name(g).map_err(|e| err("--game / games", e.to_string()))?;
            if games[..i].contains(g) {
                return Err(err("--game / games", format!("{g} given twice")));
            }
        }
        let mut bots: Vec<Entrant> = Vec::new();
        for e in f.bots.unwrap_or_default() {
            let (name, spec) = match e {
                EntrantEntry::Spec(s) => (s.clone(), s),
                EntrantEntry::Named { name, spec } => (name, spec),
            };
            if !valid_name(&name) {
                return Err(err(
                    "--bot / bots",
                    format!(
                        "{} is not a bot name ({}; give {{ name = \"...\", spec = \"...\" }} \
                         for other specs, or NAME=SPEC on the command line)",
                        pitboss_arena::name::quoted(&name),
                        pitboss_arena::name::RULE
                    ),
                ));
            }
            if bots.iter().any(|b| b.name == name) {
                return Err(err("--bot / bots", format!("`{name}` given twice")));
            }
            bots.push(Entrant { name, spec });
        }
        let format = match f.format.as_deref().unwrap_or("heads-up") {
            "heads-up" => Format::HeadsUp,
            "ring" => Format::Ring,
            other => {
                return Err(err(
                    "--format / format",
                    format!("`{other}`: use heads-up or ring"),
                ))
            }
        };
        let table_size = match format {
            Format::HeadsUp => {
                if f.table_size.is_some_and(|k| k != 2) {
                    return Err(err("--table-size / table_size", "heads-up tables seat 2"));
                }
                2
            }
            Format::Ring => f.table_size.unwrap_or(3),
        };
        for g in &games {
            let seats = Preset::by_name(g).expect("checked").game.variant.seats();
            if !seats.contains(&table_size) {
                return Err(err(
                    "--table-size / table_size",
                    format!(
                        "{table_size}: {g} seats {} to {}",
                        seats.start(),
                        seats.end()
                    ),
                ));
            }
        }
        if bots.len() < table_size {
            return Err(err(
                "--bot / bots",
                format!(
                    "{} bots given; a tournament of tables of {table_size} needs at least {table_size}",
                    bots.len()
                ),
            ));
        }
        if f.tables.is_some() && format != Format::Ring {
            return Err(err("--tables / tables", "only for format = \"ring\""));
        }
        if f.tables == Some(0) {
            return Err(err("--tables / tables", "must be at least 1"));
        }
        let deals = at_most(
            "--deals / deals",
            f.deals.unwrap_or(10_000),
            MAX_DEALS,
            "1000000000000 (10^12)",
        )?;
        if deals == 0 {
            return Err(err("--deals / deals", "must be at least 1"));
        }
        let batch = f.batch.unwrap_or(1000.min(deals));
        if batch == 0 || batch > deals {
            return Err(err(
                "--batch / batch",
                format!("{batch}: use 1 to deals ({deals})"),
            ));
        }
        if let Some(s) = &f.sprt {
            if let Some(p) = s.problem() {
                return Err(err("sprt", p));
            }
            if format != Format::HeadsUp {
                return Err(err("sprt", "early stopping is for heads-up pairings only"));
            }
        }
        let threads = f
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        if threads == 0 || threads > 256 {
            return Err(err(
                "--threads / threads",
                format!("{threads}: use 1 to 256"),
            ));
        }
        let seed = match f.seed {
            Some(s) => at_most(
                "--seed / seed",
                s,
                MAX_SEED,
                "9223372036854775807 (2^63 - 1)",
            )?,
            None => random_seed("--seed / seed")?,
        };
        let table_count = match (format, f.tables) {
            (Format::Ring, Some(t)) => Some(t as u128),
            _ => binomial(bots.len() as u128, table_size as u128),
        }
        .map(|t| t * games.len() as u128);
        let batches = u128::from(deals.div_ceil(batch));
        let units = table_count.map(|t| t * batches);
        if units.is_none_or(|u| u > MAX_UNITS as u128) {
            let tables = table_count.map_or_else(|| "too many".to_string(), |t| t.to_string());
            let units = units.map_or_else(|| "too many".to_string(), |u| u.to_string());
            return Err(err(
                if f.tables.is_some() { "--tables / tables" } else { "--batch / batch" },
                format!(
                    "{tables} tables × {batches} batches of {batch} deals make {units} work units; \
                     a plan holds at most {MAX_UNITS}: use a larger batch, fewer deals or fewer tables"
                ),
            ));
        }
        Ok(TournamentConfig {
            name: f.name.unwrap_or_else(|| "tournament".to_string()),
            games,
            bots,
            format,
            table_size,
            tables: f.tables,
            deals,
            batch,
            seed,
            salt: f.salt,
            bootstrap: at_most(
                "--bootstrap / bootstrap",
                f.bootstrap.unwrap_or(200) as u64,
                MAX_BOOTSTRAP as u64,
                "100000",
            )? as usize,
            sprt: f.sprt,
            luck_adjust: f.luck_adjust.unwrap_or(false),
            luck_model: f
                .luck_adjust
                .unwrap_or(false)
                .then(|| pitboss_luck::MODEL_NAME.to_string()),
            threads,
            out: f.out.unwrap_or_else(default_out),
            history_hands: 0,
            history_of: Vec::new(),
        })
    }

    /// The index of a bot by name.
    pub fn bot_index(&self, name: &str) -> Option<usize> {
        self.bots.iter().position(|b| b.name == name)
    }
}
