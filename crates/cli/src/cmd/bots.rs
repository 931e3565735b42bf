//! Bot specs for tournaments and submissions: the factory that starts them and the conformance
//! check that `pitboss submit` runs first.
//!
//! Today a spec is a built-in bot name. The external-bot work (`exec:...` specs, `bot.toml`
//! manifests, `pitboss check`) plugs in here and nothing else changes:
//! - `Entrants::new` builds its `ExternalFactory::new(specs, pitboss_bots::builtin, &opts)` over
//!   the entrants' specs and keeps a spec → index map; `Entrants::create(spec, seed)` calls the
//!   inner factory's `create(index, seed)` (a fresh process per unit, like a fresh block);
//! - `check_spec` becomes `BotSpec::parse`;
//! - `conformance` calls `external::check(spec, pitboss_bots::builtin, &CheckOptions)` and passes
//!   when `problems == 0`, with the report's lines as the checker's report;
//! - `bot_files` already hashes a `bot.toml`'s folder or an `exec:` command's program.

use pitboss_arena::tournament::{Entrant, EntrantFactory};
use pitboss_arena::{ConfigError, Fault, InProcess, Player};

/// Whether a spec can be started, naming the flag/key otherwise.
///
/// # Errors
/// A [`ConfigError`] for an unknown spec.
pub fn check_spec(spec: &str) -> Result<(), ConfigError> {
    if pitboss_bots::builtin(spec, 0).is_some() {
        return Ok(());
    }
    Err(ConfigError {
        key: "--bot / bots",
        why: format!(
            "unknown bot `{spec}` (built-in bots: {}; external bots arrive with `pitboss check`)",
            pitboss_bots::NAMES.join(", ")
        ),
    })
}

/// Starts the field's bots from their specs.
pub struct Entrants;

impl Entrants {
    /// Checks every entrant's spec.
    ///
    /// # Errors
    /// The first unknown spec.
    pub fn new(bots: &[Entrant]) -> Result<Entrants, ConfigError> {
        for b in bots {
            check_spec(&b.spec)?;
        }
        Ok(Entrants)
    }
}

impl EntrantFactory for Entrants {
    fn create(&self, spec: &str, seed: u64) -> Result<Box<dyn Player>, Fault> {
        let bot = pitboss_bots::builtin(spec, seed).ok_or_else(|| {
            Fault::new(
                pitboss_protocol::FaultKind::Crash,
                format!("unknown bot {spec}"),
            )
        })?;
        Ok(Box::new(InProcess(bot)))
    }
}

/// The outcome of a conformance check: passed or not, and the checker's report.
pub struct CheckReport {
    pub passed: bool,
    pub report: String,
}

/// Runs the conformance check on a spec (the hook for `pitboss check`): built-in bots pass; other
/// specs are refused until external bots are available.
pub fn conformance(spec: &str) -> CheckReport {
    match check_spec(spec) {
        Ok(()) => CheckReport {
            passed: true,
            report: format!("{spec}: built-in bot, conformance guaranteed by its tests"),
        },
        Err(e) => CheckReport {
            passed: false,
            report: e.why,
        },
    }
}

/// The files that make up a bot, for its hash: the manifest or program a spec points to (and the
/// rest of its folder when it is a manifest), or nothing for a built-in bot.
pub fn bot_files(spec: &str) -> Vec<std::path::PathBuf> {
    let path = std::path::Path::new(spec.strip_prefix("exec:").unwrap_or(spec));
    let first = path
        .to_str()
        .and_then(|s| s.split_whitespace().last())
        .map(std::path::PathBuf::from);
    let Some(p) = first.filter(|p| p.exists()) else {
        return Vec::new();
    };
    if p.is_file() && p.file_name().is_some_and(|n| n == "bot.toml") {
        let dir = p.parent().unwrap_or(std::path::Path::new("."));
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .map(|e| {
                e.filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| p.is_file())
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        return files;
    }
    if p.is_file() {
        vec![p]
    } else {
        Vec::new()
    }
}
