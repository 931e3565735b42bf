//! Match configuration: raw fields from flags and from a TOML match file, merged (flags win) and
//! validated into one [`MatchConfig`]; errors name the flag or key and the bad value.

use std::path::PathBuf;

use pitboss_cards::{DeckKey, Salt};
use pitboss_rules::{Chips, Game, Preset, Stakes, TableOptions, TableSetup};
use serde::{Deserialize, Serialize};

/// Fields as given, all optional. A TOML match file has exactly these keys.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchFile {
    /// A preset name: 27td-fl, 27td-pl, 27td-nl, stud8-fl, stud8-pl, stud8-nl.
    pub game: Option<String>,
    /// Bot specs, one per seat (2 or more).
    pub bots: Option<Vec<String>>,
    pub hands: Option<u64>,
    pub seed: Option<u64>,
    /// The secret mixed into the deck key (64 hex digits); written by the referee when an
    /// external bot plays, so that `config.toml` repeats the run exactly.
    pub salt: Option<Salt>,
    pub duplicate: Option<bool>,
    pub threads: Option<usize>,
    pub out: Option<PathBuf>,
    pub history: Option<bool>,
    /// With `history`: write `hands.phhs.zst` (zstd) instead of `hands.phhs`.
    pub zstd: Option<bool>,
    /// Every seat's starting stack (default: the preset's).
    pub stack: Option<Chips>,
    /// Replaces the preset's stakes (all fields).
    pub stakes: Option<Stakes>,
    /// Replaces the preset's table options.
    pub options: Option<TableOptions>,
    /// External bots: time per decision, milliseconds (overrides the bots' manifests).
    pub decision_ms: Option<u64>,
    /// External bots: match time bank, milliseconds.
    pub bank_ms: Option<u64>,
    /// External bots: restarts after a crash before the bot forfeits.
    pub restarts: Option<u32>,
    /// External bots: run them (and their build steps) in the jail (default true).
    pub sandbox: Option<bool>,
    /// External bots: give build steps the host's network (default false).
    pub build_network: Option<bool>,
    /// External bots: SIGSTOP a bot while it is not its turn.
    pub freeze_idle: Option<bool>,
    /// External bots: record every line exchanged, timestamped, per bot process.
    pub transcript: Option<bool>,
    /// Luck-adjusted results (`adj_*` columns; crate `pitboss-luck`); default: when an external
    /// bot plays.
    pub luck_adjust: Option<bool>,
    /// The value model of the luck adjustment, by its recorded name (`pitboss_luck::MODEL_NAME`).
    /// Not a flag: the binary records the model a match starts with in its `config.toml`, so that
    /// repeating the match from that file gives the same adjusted results after the referee's
    /// model has changed.
    pub luck_model: Option<String>,
}

impl MatchFile {
    /// `self` with every field that `over` sets replaced.
    pub fn overlay(self, over: MatchFile) -> MatchFile {
        MatchFile {
            game: over.game.or(self.game),
            bots: over.bots.or(self.bots),
            hands: over.hands.or(self.hands),
            seed: over.seed.or(self.seed),
            salt: over.salt.or(self.salt),
            duplicate: over.duplicate.or(self.duplicate),
            threads: over.threads.or(self.threads),
            out: over.out.or(self.out),
            history: over.history.or(self.history),
            zstd: over.zstd.or(self.zstd),
            stack: over.stack.or(self.stack),
            stakes: over.stakes.or(self.stakes),
            options: over.options.or(self.options),
            decision_ms: over.decision_ms.or(self.decision_ms),
            bank_ms: over.bank_ms.or(self.bank_ms),
            restarts: over.restarts.or(self.restarts),
            sandbox: over.sandbox.or(self.sandbox),
            build_network: over.build_network.or(self.build_network),
            freeze_idle: over.freeze_idle.or(self.freeze_idle),
            transcript: over.transcript.or(self.transcript),
            luck_adjust: over.luck_adjust.or(self.luck_adjust),
            luck_model: over.luck_model.or(self.luck_model),
        }
    }
}

/// A validated match. Serialized as `config.toml` in the output folder, it repeats the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchConfig {
    pub game: String,
    pub bots: Vec<String>,
    pub hands: u64,
    pub seed: u64,
    /// Deck salt (see [`DeckKey`]): `None` only for matches of in-process bots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub salt: Option<Salt>,
    pub duplicate: bool,
    pub threads: usize,
    pub out: PathBuf,
    pub history: bool,
    /// PHH histories zstd-compressed (`hands.phhs.zst`); histories of 300,000 stud hands take
    /// 200 MB uncompressed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub zstd: bool,
    /// With `history`, only the first this many hands are written (the service keeps a sample of
    /// every match for its hand viewer: a whole history would cost a quarter of the speed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_hands: Option<u64>,
    /// Record the action tape of every hand ([`crate::tape`], returned in
    /// [`crate::MatchResult::tape`]): what a server needs to audit a result played elsewhere.
    /// Not a flag or a match-file key: the service sets it on the matches it has played remotely.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tape: bool,
    pub stack: Chips,
    pub stakes: Stakes,
    pub options: TableOptions,
    /// Settings of external bots (`None`: each bot's manifest, else the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bank_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restarts: Option<u32>,
    #[serde(default = "yes")]
    pub sandbox: bool,
    #[serde(default)]
    pub build_network: bool,
    #[serde(default)]
    pub freeze_idle: bool,
    #[serde(default)]
    pub transcript: bool,
    /// Luck-adjusted results per hand (`adj_*` columns, crate `pitboss-luck`). `None` (not given):
    /// the binary decides before the match starts (on when an external bot plays, where it costs
    /// a few percent; off for in-process bots, which it would slow several times) and records
    /// its choice; absent from an older `config.toml`, it stays off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub luck_adjust: Option<bool>,
    /// The value model of the luck adjustment ([`pitboss_luck::MODEL_NAME`]), recorded by the
    /// binary when the match starts with the adjustment on. Absent: the referee's current model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub luck_model: Option<String>,
    /// What the bots are shown as (manifest names, made unique; see
    /// [`crate::spec::display_names`]). Not written to `config.toml`, which keeps the specs.
    #[serde(skip)]
    pub names: Vec<String>,
    /// The output folder is scratch: its files are read once right after the match (a remote
    /// worker sends the result and the history, then deletes the folder), so they are written
    /// atomically but not synced to disk — four `fsync`s a match job cost more than the rest of
    /// the queue's overhead. Not a flag or a match-file key.
    #[serde(skip)]
    pub scratch: bool,
}

fn yes() -> bool {
    true
}

/// The largest seed: TOML (`config.toml`) integers are signed 64-bit.
pub const MAX_SEED: u64 = i64::MAX as u64;

/// The most hands of a match (10^12).
pub const MAX_HANDS: u64 = 1_000_000_000_000;

/// A random seed (48 bits, from the operating system) for runs given none.
///
/// # Errors
/// A [`ConfigError`] on `key` when the random source cannot be read.
pub fn random_seed(key: &'static str) -> Result<u64, ConfigError> {
    let s = Salt::random().map_err(|e| {
        err(
            key,
            format!("none given and no random one could be drawn ({e})"),
        )
    })?;
    Ok(u64::from_le_bytes(s.0[..8].try_into().expect("8 bytes")) >> 16)
}

/// Refuses `v` above `max`, naming the flag/key and the maximum.
///
/// # Errors
/// A [`ConfigError`] on `key`.
pub fn at_most(key: &'static str, v: u64, max: u64, max_text: &str) -> Result<u64, ConfigError> {
    if v > max {
        return Err(err(key, format!("{v} is more than the maximum {max_text}")));
    }
    Ok(v)
}

/// A configuration value that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {why}")]
pub struct ConfigError {
    /// The flag and key, e.g. `--hands / hands`.
    pub key: &'static str,
    pub why: String,
}

fn err(key: &'static str, why: impl Into<String>) -> ConfigError {
    ConfigError {
        key,
        why: why.into(),
    }
}

impl MatchConfig {
    /// Validates raw fields. `default_out` is used when no output folder is given.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the flag/key.
    pub fn from_file(
        f: MatchFile,
        default_out: impl FnOnce(&str) -> PathBuf,
    ) -> Result<MatchConfig, ConfigError> {
        let game = f.game.unwrap_or_else(|| "27td-fl".to_string());
        let preset = Preset::by_name(&game).map_err(|e| err("--game / game", e.to_string()))?;
        let bots = f.bots.unwrap_or_default();
        let seats = preset.game.variant.seats();
        if !seats.contains(&bots.len()) {
            return Err(err(
                "--bot / bots",
                format!(
                    "{} bots given; {} seats {} to {} players",
                    bots.len(),
                    game,
                    seats.start(),
                    seats.end()
                ),
            ));
        }
        let hands = at_most(
            "--hands / hands",
            f.hands.unwrap_or(10_000),
            MAX_HANDS,
            "1000000000000 (10^12)",
        )?;
        if hands == 0 {
            return Err(err("--hands / hands", "must be at least 1"));
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
        let duplicate = f.duplicate.unwrap_or(false);
        if duplicate && !hands.is_multiple_of(bots.len() as u64) {
            return Err(err(
                "--hands / hands",
                format!(
                    "{hands} is not a multiple of {} (duplicate mode plays every deal in each of the {} seat rotations)",
                    bots.len(),
                    bots.len()
                ),
            ));
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
        if f.decision_ms == Some(0) {
            return Err(err("--decision-ms / decision_ms", "must be at least 1"));
        }
        if let Some(ms) = f.decision_ms.filter(|ms| *ms > 3_600_000) {
            return Err(err(
                "--decision-ms / decision_ms",
                format!("{ms}: at most 3600000 (one hour)"),
            ));
        }
        if let Some(ms) = f.bank_ms.filter(|ms| *ms > 86_400_000) {
            return Err(err(
                "--bank-ms / bank_ms",
                format!("{ms}: at most 86400000 (one day)"),
            ));
        }
        if let Some(r) = f.restarts.filter(|r| *r > 1000) {
            return Err(err("--restarts / restarts", format!("{r}: at most 1000")));
        }
        if let Some(name) = &f.luck_model {
            if pitboss_luck::Model::by_name(Some(name), preset.game.variant).is_none() {
                return Err(err(
                    "luck_model",
                    format!(
                        "{name:?}: a value model this version does not know (it knows {:?}, {:?} \
                         and {:?})",
                        pitboss_luck::MODEL_NAME,
                        pitboss_luck::SIZED_MODEL_NAME,
                        pitboss_luck::LEGACY_MODEL_NAME
                    ),
                ));
            }
        }
        let cfg = MatchConfig {
            decision_ms: f.decision_ms,
            bank_ms: f.bank_ms,
            restarts: f.restarts,
            sandbox: f.sandbox.unwrap_or(true),
            build_network: f.build_network.unwrap_or(false),
            freeze_idle: f.freeze_idle.unwrap_or(false),
            transcript: f.transcript.unwrap_or(false),
            luck_adjust: f.luck_adjust,
            luck_model: f.luck_model,
            out: f.out.unwrap_or_else(|| default_out(&game)),
            game,
            hands,
            seed,
            salt: f.salt,
            duplicate,
            threads,
            history: f.history.unwrap_or(false),
            zstd: f.zstd.unwrap_or(false),
            history_hands: None,
            tape: false,
            scratch: false,
            stack: f.stack.unwrap_or(preset.stack),
            stakes: f.stakes.unwrap_or(preset.game.stakes),
            options: f.options.unwrap_or(preset.game.options),
            names: crate::spec::display_names(&bots),
            bots,
        };
        cfg.table_setup().validate().map_err(|e| {
            let key = match &e {
                pitboss_rules::SetupError::Field {
                    field: "stacks", ..
                } => "--stack / stack",
                _ => "stakes / options",
            };
            err(key, e.to_string())
        })?;
        Ok(cfg)
    }

    /// The luck adjustment's value model: the recorded one, else the referee's current model.
    pub fn luck_model(&self) -> pitboss_luck::Model {
        let variant = self.game().variant;
        self.luck_model
            .as_deref()
            .and_then(|name| pitboss_luck::Model::by_name(Some(name), variant))
            .unwrap_or_else(|| pitboss_luck::Model::recommended(variant))
    }

    /// The key of the match's decks: salted when the config has a salt.
    pub fn deck_key(&self) -> DeckKey {
        DeckKey::new(self.seed, self.salt.as_ref())
    }

    /// The display name of bot `i` (its spec when the names were not computed, e.g. a config
    /// read back with serde alone).
    pub fn name(&self, i: usize) -> &str {
        self.names.get(i).unwrap_or(&self.bots[i])
    }

    pub fn game(&self) -> Game {
        let preset = Preset::by_name(&self.game).expect("validated");
        Game {
            stakes: self.stakes,
            options: self.options,
            ..preset.game
        }
    }

    pub fn table_setup(&self) -> TableSetup {
        TableSetup {
            game: self.game(),
            stacks: vec![self.stack; self.bots.len()],
            button: 0,
        }
    }
}
