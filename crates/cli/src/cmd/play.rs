//! `pitboss match`: flags and an optional TOML match file → one validated `MatchConfig` → the
//! arena's match runner, with a progress bar on a terminal and the leaderboard printed at the end.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::Context;
use pitboss_arena::{
    output::timestamp, run_match, BotFactory, ConfigError, Fault, InProcess, MatchConfig,
    MatchFile, MatchStats, Player, SummaryRow,
};

use crate::args::MatchArgs;

/// Built-in bots by name (external bots plug in here too).
pub struct Factory {
    pub names: Vec<String>,
}

impl Factory {
    /// Checks every name before the match starts, naming the flag.
    ///
    /// # Errors
    /// A [`ConfigError`] for an unknown bot.
    pub fn new(names: &[String]) -> Result<Factory, ConfigError> {
        for n in names {
            if pitboss_bots::builtin(n, 0).is_none() {
                return Err(ConfigError {
                    key: "--bot / bots",
                    why: format!(
                        "unknown bot `{n}` (built-in bots: {})",
                        pitboss_bots::NAMES.join(", ")
                    ),
                });
            }
        }
        Ok(Factory {
            names: names.to_vec(),
        })
    }
}

impl BotFactory for Factory {
    fn create(&self, index: usize, seed: u64) -> Result<Box<dyn Player>, Fault> {
        let bot = pitboss_bots::builtin(&self.names[index], seed).expect("checked in Factory::new");
        Ok(Box::new(InProcess(bot)))
    }
}

/// Reads a TOML match file.
///
/// # Errors
/// When the file cannot be read or parsed (the message names the file).
pub fn read_match_file(path: &Path) -> anyhow::Result<MatchFile> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading match file {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("match file {}", path.display()))
}

/// The default output folder: `results/<timestamp>-<game>`.
pub fn default_out(game: &str) -> PathBuf {
    PathBuf::from("results").join(format!("{}-{game}", timestamp()))
}

pub fn config_from_args(args: MatchArgs) -> anyhow::Result<MatchConfig> {
    let file = match &args.file {
        Some(p) => read_match_file(p)?,
        None => MatchFile::default(),
    };
    let flags = MatchFile {
        game: args.game,
        bots: (!args.bots.is_empty()).then_some(args.bots),
        hands: args.hands,
        seed: args.seed,
        duplicate: args.duplicate.then_some(true),
        threads: args.threads,
        out: args.out,
        history: args.history.then_some(true),
        stack: args.stack,
        stakes: None,
        options: None,
    };
    Ok(MatchConfig::from_file(file.overlay(flags), default_out)?)
}

/// A progress bar on stderr when it is a terminal: hands, hands/s, ETA and the current leader.
pub struct Progress {
    bar: Option<indicatif::ProgressBar>,
}

impl Progress {
    pub fn new(total: u64) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let b = indicatif::ProgressBar::new(total);
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:30} {pos}/{len} hands  {per_sec}  ETA {eta}  {msg}",
                )
                .expect("valid template"),
            );
            b
        });
        Progress { bar }
    }

    pub fn update(&self, cfg: &MatchConfig, stats: &MatchStats, done: u64) {
        let Some(bar) = &self.bar else { return };
        bar.set_position(done);
        let unit = cfg.game().unit();
        let per_unit = if cfg.duplicate {
            cfg.bots.len() as u64
        } else {
            1
        };
        let leader = cfg
            .bots
            .iter()
            .zip(&stats.bots)
            .map(|(n, s)| SummaryRow::new(n, s, unit, per_unit))
            .max_by(|a, b| a.mbb_per_hand.total_cmp(&b.mbb_per_hand));
        if let Some(r) = leader {
            bar.set_message(format!(
                "leader {} {:+.1} mbb/h [{:.1}, {:.1}]",
                r.bot, r.mbb_per_hand, r.ci95_low, r.ci95_high
            ));
        }
    }

    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

pub fn run(args: MatchArgs) -> anyhow::Result<()> {
    let cfg = config_from_args(args)?;
    let factory = Factory::new(&cfg.bots)?;
    tracing::info!(game = %cfg.game, hands = cfg.hands, out = %cfg.out.display(), "match");
    let progress = Progress::new(cfg.hands);
    let result = run_match(&cfg, &factory, &mut |stats, done| {
        progress.update(&cfg, stats, done)
    })?;
    progress.finish();
    println!(
        "{} hands of {} in {:.1} s ({:.0} hands/s), seed {}{}",
        result.hands,
        cfg.game,
        result.elapsed.as_secs_f64(),
        result.hands as f64 / result.elapsed.as_secs_f64(),
        cfg.seed,
        if cfg.duplicate { ", duplicate" } else { "" }
    );
    print!("{}", pitboss_arena::summary::table(&result.rows));
    println!("wrote {}", cfg.out.join("summary.csv").display());
    Ok(())
}
