//! `pitboss match`: flags and an optional TOML match file → one validated `MatchConfig` → the
//! arena's match runner, with a progress bar on a terminal and the leaderboard printed at the end.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::Context;
use pitboss_arena::{
    output::timestamp, run_match, ConfigError, MatchConfig, MatchFile, MatchStats, SummaryRow,
};
use pitboss_external::{ExternalFactory, ExternalOptions, SpecError};

use crate::args::MatchArgs;

/// Every bot spec: built-in names through `pitboss_bots::builtin`, external programs as
/// supervised processes.
///
/// # Errors
/// A [`ConfigError`] naming `--bot / bots` for a spec that cannot be used.
pub fn factory(cfg: &MatchConfig) -> Result<ExternalFactory, ConfigError> {
    ExternalFactory::new(
        &cfg.bots,
        pitboss_bots::builtin,
        &ExternalOptions::from_config(cfg),
    )
    .map_err(|e| ConfigError {
        key: "--bot / bots",
        why: match e {
            SpecError::Unknown(n) => format!(
                "unknown bot `{n}` (built-in bots: {}, and best = {}; exploiters: {}; or exec:COMMAND, or a bot.toml path)",
                pitboss_bots::NAMES.join(", "),
                pitboss_bots::BEST,
                pitboss_bots::EXPLOITERS.join(", ")
            ),
            e => e.to_string(),
        },
    })
}

/// Kills every bot process group on Ctrl-C (and SIGTERM), prints `note()` (where the partial
/// results are and how to go on), then exits with 130. Nothing is silent: an interrupted run
/// says what it leaves behind.
pub fn install_interrupt_handler(note: impl Fn() -> String + Send + 'static) {
    let _ = ctrlc::set_handler(move || {
        pitboss_external::kill_all();
        eprintln!("\npitboss: interrupted; bot processes killed");
        let n = note();
        if !n.is_empty() {
            eprintln!("pitboss: {n}");
        }
        std::process::exit(130);
    });
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
        salt: None,
        duplicate: args.duplicate.then_some(true),
        threads: args.threads,
        out: args.out,
        history: args.history.then_some(true),
        zstd: args.zstd.then_some(true),
        stack: args.stack,
        stakes: None,
        options: None,
        decision_ms: args.decision_ms,
        bank_ms: args.bank_ms,
        restarts: args.restarts,
        sandbox: args.no_sandbox.then_some(false),
        build_network: args.build_network.then_some(true),
        freeze_idle: args.freeze_idle.then_some(true),
        transcript: args.transcript.then_some(true),
        luck_adjust: if args.no_luck_adjust {
            Some(false)
        } else {
            args.luck_adjust.then_some(true)
        },
        luck_model: None,
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
        // By display name (a spec may be a long path, or hold anything a file name can).
        let leader = stats
            .bots
            .iter()
            .enumerate()
            .map(|(i, s)| SummaryRow::new(cfg.name(i), s, unit, per_unit))
            .max_by(|a, b| a.mbb_per_hand.total_cmp(&b.mbb_per_hand));
        if let Some(r) = leader {
            // A duplicate match in phases counts its units when a block's last rotation is in:
            // no interval before that.
            let leader = pitboss_arena::name::one_line(&r.bot);
            bar.set_message(if r.units > 1 {
                format!(
                    "leader {leader} {:+.1} mbb/h [{:.1}, {:.1}]",
                    r.mbb_per_hand, r.ci95_low, r.ci95_high
                )
            } else {
                format!("leader {leader} {:+.1} mbb/h", r.mbb_per_hand)
            });
        }
    }

    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// A bot forfeited or faulted on more than 1% of its decisions and `--strict` was given.
#[derive(Debug, thiserror::Error)]
#[error("--strict: {0} bot(s) forfeited or faulted on more than 1% of their decisions (see above)")]
pub struct Troubled(pub usize);

/// Whether `out` holds this very match (its `config.toml` is this config, threads aside), so that
/// repeating a run into its own folder is allowed.
fn same_match(cfg: &MatchConfig) -> impl Fn(&Path) -> bool + '_ {
    move |out: &Path| {
        let Ok(text) = std::fs::read_to_string(out.join("config.toml")) else {
            return false;
        };
        let Ok(mut old) = toml::from_str::<MatchConfig>(&text) else {
            return false;
        };
        old.threads = cfg.threads;
        old.out.clone_from(&cfg.out);
        old.names.clone_from(&cfg.names);
        if cfg.luck_adjust.is_none() {
            // Not given: decided (and recorded) when the match starts, as it was then.
            old.luck_adjust = None;
        }
        if cfg.luck_model.is_none() {
            old.luck_model = None;
        }
        old == *cfg
    }
}

/// `1.2 MB`, `340 kB`, `12 B`.
pub fn human_size(bytes: u64) -> String {
    match bytes {
        b if b >= 10_000_000 => format!("{} MB", b / 1_000_000),
        b if b >= 1_000_000 => format!("{:.1} MB", b as f64 / 1e6),
        b if b >= 1_000 => format!("{} kB", b / 1_000),
        b => format!("{b} B"),
    }
}

pub fn run(args: MatchArgs) -> anyhow::Result<()> {
    let force = args.force;
    let strict = args.strict;
    let mut cfg = config_from_args(args)?;
    super::outdir::prepare(&cfg.out, force, same_match(&cfg))?;
    let again = format!(
        "the match was not finished and wrote no results (only {}); repeat it with: pitboss match {}",
        cfg.out.join("config.toml").display(),
        super::outdir::shell_word(&cfg.out.join("config.toml"))
    );
    install_interrupt_handler(move || again.clone());
    // The bots are checked first: a spec refused (an output folder its bot could read) leaves
    // no folder behind.
    let factory = factory(&cfg)?;
    std::fs::create_dir_all(&cfg.out).with_context(|| format!("creating {}", cfg.out.display()))?;
    if factory.has_external() && cfg.salt.is_none() {
        // A secret deck key: no bot can derive a deck from the seed (it is kept in config.toml).
        cfg.salt = Some(pitboss_cards::Salt::random().context("drawing the deck salt")?);
    }
    // Luck adjustment by default where it is cheap next to the bots (see docs/REFERENCE.md).
    cfg.luck_adjust.get_or_insert(factory.has_external());
    if cfg.luck_adjust == Some(true) {
        // Recorded in config.toml: a repeat from that file keeps the model the match began with.
        cfg.luck_model
            .get_or_insert_with(|| pitboss_luck::MODEL_NAME.to_string());
    }
    let mut log = String::new();
    if factory.has_external() {
        let line = factory.sandbox_description();
        if cfg.sandbox && !pitboss_external::jail::features().complete() {
            eprintln!("pitboss: warning: the jail is weaker than the full one here: {line}");
        } else {
            eprintln!("pitboss: {line}");
        }
        log.push_str(&line);
        log.push('\n');
        if cfg.duplicate && cfg.sandbox {
            if let Some(w) = pitboss_external::jail::pagecache::duplicate_warning() {
                eprintln!("pitboss: warning: {w}");
                log.push_str(&format!("warning: {w}\n"));
            }
        }
    }
    tracing::info!(game = %cfg.game, hands = cfg.hands, out = %cfg.out.display(), "match");
    let progress = Progress::new(cfg.hands);
    let result = run_match(&cfg, &factory, &mut |stats, done| {
        progress.update(&cfg, stats, done)
    })?;
    progress.finish();
    let mut loud = Vec::new();
    for (i, r) in factory.reports().into_iter().enumerate() {
        let name = cfg.name(i);
        let Some(r) = r else { continue };
        let faults: u64 = result.stats.bots[i].faults.iter().sum();
        let line = format!(
            "{name} ({}): {} process(es) started, {} restart(s){}, {} decision(s) answered in time, {faults} fault(s), mean reply {:.3} ms, slowest {:.1} ms",
            pitboss_arena::name::one_line(&cfg.bots[i]),
            r.spawns,
            r.restarts,
            if r.forfeited { ", FORFEITED" } else { "" },
            r.decisions,
            r.total_us as f64 / r.decisions.max(1) as f64 / 1000.0,
            r.max_us as f64 / 1000.0
        );
        log.push_str(&line);
        log.push('\n');
        // Which files hold this bot (its name is its file name only once made one).
        match &r.log {
            Some(p) => log.push_str(&format!("  log: {}\n", p.display())),
            None => log.push_str("  log: none (see the warning)\n"),
        }
        if let Some(t) = &r.transcripts {
            log.push_str(&format!(
                "  transcripts: {}{}\n",
                t.display(),
                if r.transcripts_cut {
                    format!(
                        " (cut at the cap of {} MiB)",
                        pitboss_external::player::TRANSCRIPT_CAP >> 20
                    )
                } else {
                    String::new()
                }
            ));
        }
        for w in &r.warnings {
            let w = pitboss_arena::name::one_line(w);
            eprintln!("pitboss: warning: {name}: {w}");
            log.push_str(&format!("  warning: {w}\n"));
        }
        for f in &r.faults {
            let f = f.to_string();
            log.push_str(&format!("  fault: {}\n", pitboss_arena::name::one_line(&f)));
        }
        // The rules' reasons for its first illegal actions (judged by the referee, so in no
        // report of the process).
        let illegal = &result.illegal[i];
        for l in illegal {
            log.push_str(&format!("  fault: {}\n", pitboss_arena::name::one_line(l)));
        }
        let shown = (r.faults.len() + illegal.len()) as u64;
        if shown > 0 && faults > shown {
            log.push_str(&format!(
                "  ({} more fault(s) of the same kinds; counts by kind in summary.csv)\n",
                faults - shown
            ));
        }
        // More than 1% of the decisions it was asked for (answered or not).
        let asked = r.decisions.max(faults);
        if r.forfeited || faults * 100 > asked {
            let mut reasons: Vec<String> = Vec::new();
            for f in r
                .faults
                .iter()
                .map(ToString::to_string)
                .chain(illegal.iter().cloned())
            {
                if !reasons.contains(&f) && reasons.len() < 3 {
                    reasons.push(f);
                }
            }
            loud.push(format!(
                "WARNING: bot `{name}` {} ({faults} fault(s), {} decision(s) answered in time); first reasons: {}; all in {}",
                if r.forfeited {
                    "FORFEITED the match"
                } else {
                    "faulted on more than 1% of its decisions"
                },
                r.decisions,
                if reasons.is_empty() {
                    "none recorded".to_string()
                } else {
                    reasons.join(" | ")
                },
                cfg.out.join("match.log").display()
            ));
        }
    }
    drop(factory);
    if !log.is_empty() {
        let path = cfg.out.join("match.log");
        std::fs::write(&path, &log).with_context(|| format!("writing {}", path.display()))?;
    }
    println!(
        "{} hands of {} in {:.1} s ({:.0} hands/s), seed {}{}{}",
        result.hands,
        cfg.game,
        result.elapsed.as_secs_f64(),
        result.hands as f64 / result.elapsed.as_secs_f64(),
        cfg.seed,
        if cfg.salt.is_some() {
            " (salted: decks secret, salt in config.toml)"
        } else {
            ""
        },
        if cfg.duplicate { ", duplicate" } else { "" }
    );
    print!("{}", pitboss_arena::summary::table(&result.rows));
    println!("wrote {}", cfg.out.join("summary.csv").display());
    if cfg.history {
        for f in ["hands.csv", pitboss_arena::runner::history_phhs_name(&cfg)] {
            let path = cfg.out.join(f);
            let size = std::fs::metadata(&path).map_or(0, |m| m.len());
            println!("wrote {} ({})", path.display(), human_size(size));
        }
    }
    for l in &loud {
        eprintln!("pitboss: {}", pitboss_arena::name::terminal(l));
    }
    if strict && !loud.is_empty() {
        return Err(Troubled(loud.len()).into());
    }
    Ok(())
}
