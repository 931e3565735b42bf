//! Bot specs for tournaments and submissions: the factory that starts them (built-in bots
//! in-process, `exec:` and `bot.toml` bots as supervised processes) and the conformance check that
//! `pitboss submit` runs first (the same as `pitboss check`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use pitboss_arena::{BotFactory, ConfigError, Fault, Player};
use pitboss_cards::Salt;
use pitboss_external::{self as external, BotSpec, CheckOptions, ExternalFactory, ExternalOptions};
use pitboss_tournament::{
    Entrant, EntrantFactory, GameFactories, TournamentConfig, TournamentError,
};

pub fn is_builtin(s: &str) -> bool {
    pitboss_bots::builtin(s, 1).is_some()
}

/// Whether a spec can be started, naming the flag/key otherwise.
///
/// # Errors
/// A [`ConfigError`] for a spec that is not a built-in name, an `exec:` command or a manifest.
pub fn check_spec(spec: &str) -> Result<(), ConfigError> {
    BotSpec::parse(spec, &is_builtin)
        .map(|_| ())
        .map_err(|e| ConfigError {
            key: "--bot / bots",
            why: format!(
                "{e} (built-in bots: {}, and best = {}; exploiters: {}; or exec:COMMAND, or a bot.toml path)",
                pitboss_bots::NAMES.join(", "),
                pitboss_bots::BEST,
                pitboss_bots::EXPLOITERS.join(", ")
            ),
        })
}

/// Whether a spec starts a process (anything but a built-in bot).
pub fn is_external(spec: &str) -> bool {
    !is_builtin(spec)
}

/// Gives a tournament a secret deck salt when it has none and has an external bot (or `always`):
/// the one of the tournament already in `cfg.out` (a resume or the registry's gauntlet), else a
/// random one.
///
/// # Errors
/// When the operating system's random source cannot be read.
pub fn salt_tournament(cfg: &mut TournamentConfig, always: bool) -> anyhow::Result<()> {
    if cfg.salt.is_some() || !(always || cfg.bots.iter().any(|b| is_external(&b.spec))) {
        return Ok(());
    }
    let old = pitboss_tournament::shards::read_plan(&cfg.out)
        .ok()
        .and_then(|p| p.config.salt);
    cfg.salt = Some(match old {
        Some(s) => s,
        None => Salt::random().map_err(|e| anyhow::anyhow!("drawing the deck salt: {e}"))?,
    });
    Ok(())
}

/// The field of a tournament: a fresh [`Entrants`] for every game, so that no bot process plays
/// two games; external bots of game `G` log under `OUT/games/G/bots/`.
pub struct Field {
    pub bots: Vec<Entrant>,
    pub out: PathBuf,
}

impl Field {
    /// Checks every spec once before anything is played.
    ///
    /// # Errors
    /// The first spec that cannot be used.
    pub fn new(bots: &[Entrant], out: &Path) -> Result<Field, ConfigError> {
        for b in bots {
            check_spec(&b.spec)?;
        }
        Ok(Field {
            bots: bots.to_vec(),
            out: out.to_path_buf(),
        })
    }
}

impl GameFactories for Field {
    fn for_game(&self, game: &str) -> Result<Box<dyn EntrantFactory + '_>, TournamentError> {
        let out = self.out.join("games").join(game);
        match Entrants::new(&self.bots, &out) {
            Ok(e) => Ok(Box::new(e)),
            Err(e) => Err(TournamentError::Bots {
                game: game.to_string(),
                why: e.to_string(),
            }),
        }
    }
}

/// Starts the field's bots from their specs; external bots write their logs under `out/bots/`.
pub struct Entrants {
    factory: ExternalFactory,
    index: HashMap<String, usize>,
}

impl Entrants {
    /// Checks and prepares every entrant's spec (building external bots that have a build
    /// command).
    ///
    /// # Errors
    /// The first spec that cannot be used.
    pub fn new(bots: &[Entrant], out: &Path) -> Result<Entrants, ConfigError> {
        let specs: Vec<String> = bots.iter().map(|b| b.spec.clone()).collect();
        for s in &specs {
            check_spec(s)?;
        }
        let opts = ExternalOptions {
            sandbox: true,
            out: out.to_path_buf(),
            ..ExternalOptions::default()
        };
        let factory = ExternalFactory::new(&specs, pitboss_bots::builtin, &opts).map_err(|e| {
            ConfigError {
                key: "--bot / bots",
                why: e.to_string(),
            }
        })?;
        let index = specs
            .iter()
            .enumerate()
            .map(|(i, s)| (s.clone(), i))
            .collect();
        Ok(Entrants { factory, index })
    }
}

impl Entrants {
    fn index(&self, spec: &str) -> Result<usize, Fault> {
        self.index.get(spec).copied().ok_or_else(|| {
            Fault::new(
                pitboss_protocol::FaultKind::Crash,
                format!("unknown bot {spec}"),
            )
        })
    }
}

impl EntrantFactory for Entrants {
    fn create(&self, spec: &str, seed: u64, lane: usize) -> Result<Box<dyn Player>, Fault> {
        self.factory.create(self.index(spec)?, seed, lane)
    }

    fn concurrency(&self, spec: &str) -> usize {
        self.index(spec)
            .map_or(usize::MAX, |i| self.factory.concurrency(i))
    }

    fn create_multi(
        &self,
        spec: &str,
        lane: usize,
    ) -> Result<pitboss_arena::multi::SharedProcess, Fault> {
        self.factory.create_multi(self.index(spec)?, lane)
    }

    fn is_process(&self, spec: &str) -> bool {
        self.index(spec).is_ok_and(|i| self.factory.is_external(i))
    }

    fn end_lane(&self, lane: usize) {
        self.factory.end_lane(lane);
    }
}

/// The outcome of a conformance check: passed or not, and the checker's report.
pub struct CheckReport {
    pub passed: bool,
    pub report: String,
}

/// Runs the conformance check of `pitboss check` on a spec: built-in bots pass (their tests are
/// their conformance); others must pass the handshake and a short match in every game they claim.
pub fn conformance(spec: &str, allow_read_outside: bool) -> CheckReport {
    if is_builtin(spec) {
        return CheckReport {
            passed: true,
            report: format!("{spec}: built-in bot, conformance guaranteed by its tests"),
        };
    }
    let out = std::env::temp_dir().join(format!("pitboss-submit-check-{}", std::process::id()));
    let co = CheckOptions {
        game: None,
        hands: 200,
        opponent: "random".into(),
        external: ExternalOptions {
            sandbox: true,
            out: out.clone(),
            allow_read_outside,
            ..ExternalOptions::default()
        },
        allow_read_outside,
    };
    let r = match external::check(spec, pitboss_bots::builtin, &co) {
        Ok(rep) => CheckReport {
            passed: rep.fit(),
            // Nothing of a submit stays in the temp directory, so the report must not send the
            // author to a folder that is gone: `pitboss check` keeps the logs of an unfit bot.
            report: rep.lines.join("\n").replace(
                &format!("the bot's log and transcript are in {}", out.display()),
                &format!(
                    "`pitboss check {}` keeps the bot's log and transcript",
                    pitboss_arena::name::one_line(spec)
                ),
            ),
        },
        Err(e) => CheckReport {
            passed: false,
            report: e.to_string(),
        },
    };
    let _ = std::fs::remove_dir_all(&out);
    r
}
