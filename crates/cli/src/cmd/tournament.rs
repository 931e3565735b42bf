//! `pitboss tournament`: flags and an optional TOML file → a validated `TournamentConfig` → the
//! arena's tournament runner (resume, shards) → reports, with progress on a terminal.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::Context;
use pitboss_arena::output::timestamp;
use pitboss_arena::ConfigError;
use pitboss_tournament as tournament;
use pitboss_tournament::report::Report;
use pitboss_tournament::sprt::SprtConfig;
use pitboss_tournament::{
    load_folders, shards, EntrantEntry, RunMode, RunProgress, Shard, Standings, TournamentConfig,
    TournamentFile,
};

use super::bots::{salt_tournament, Field};
use crate::args::TournamentArgs;

fn cfg_err(key: &'static str, why: impl Into<String>) -> ConfigError {
    ConfigError {
        key,
        why: why.into(),
    }
}

/// Parses `M0,M1[,ALPHA,BETA]`.
///
/// # Errors
/// A [`ConfigError`] for `--sprt`.
pub fn parse_sprt(s: &str) -> Result<SprtConfig, ConfigError> {
    let v: Vec<f64> = s
        .split(',')
        .map(|x| x.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| cfg_err("--sprt", format!("`{s}`: use M0,M1 or M0,M1,ALPHA,BETA")))?;
    let c = match v[..] {
        [m0, m1] => SprtConfig {
            m0,
            m1,
            alpha: 0.05,
            beta: 0.05,
        },
        [m0, m1, alpha, beta] => SprtConfig {
            m0,
            m1,
            alpha,
            beta,
        },
        _ => {
            return Err(cfg_err(
                "--sprt",
                format!("`{s}`: use M0,M1 or M0,M1,ALPHA,BETA"),
            ))
        }
    };
    Ok(c)
}

/// Reads a TOML tournament file.
///
/// # Errors
/// When the file cannot be read or parsed (the message names the file).
pub fn read_file(path: &Path) -> anyhow::Result<TournamentFile> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading tournament file {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("tournament file {}", path.display()))
}

/// `--bot NAME=SPEC` or `--bot SPEC`. A spec that is not itself a bot name (a bot.toml path,
/// `exec:...`) is named after its manifest `name` or program, made unique against `taken`.
///
/// # Errors
/// A `NAME=SPEC` whose NAME is not a bot name, or a spec that cannot be read (a manifest with a
/// bad `name`), said here rather than as a name made of the whole argument.
fn entrant(s: &str, taken: &mut Vec<String>) -> Result<EntrantEntry, ConfigError> {
    let e = match s.split_once('=') {
        Some((name, spec)) if tournament::config::valid_name(name) => EntrantEntry::Named {
            name: name.to_string(),
            spec: spec.to_string(),
        },
        _ if tournament::config::valid_name(s) => EntrantEntry::Spec(s.to_string()),
        _ => {
            let is_builtin = |n: &str| pitboss_bots::builtin(n, 1).is_some();
            if let Err(e) = pitboss_external::BotSpec::parse(s, &is_builtin) {
                return Err(cfg_err(
                    "--bot",
                    match s.split_once('=') {
                        Some((name, _)) if !s.starts_with("exec:") => format!(
                            "{}: {}",
                            pitboss_arena::name::quoted(s),
                            pitboss_arena::name::problem(name).unwrap_or_default()
                        ),
                        _ => e.to_string(),
                    },
                ));
            }
            let base = pitboss_external::display_name(s);
            let mut name = base.clone();
            let mut k = 1;
            while taken.contains(&name) {
                k += 1;
                name = pitboss_arena::name::numbered(&base, k);
            }
            EntrantEntry::Named {
                name,
                spec: s.to_string(),
            }
        }
    };
    taken.push(match &e {
        EntrantEntry::Spec(s) => s.clone(),
        EntrantEntry::Named { name, .. } => name.clone(),
    });
    Ok(e)
}

fn default_out(name: &str) -> PathBuf {
    PathBuf::from("results").join(format!("{}-{name}", timestamp()))
}

/// The config of a `pitboss tournament` invocation: from the file and flags, or (resume without a
/// file) from the folder's plan.
///
/// # Errors
/// Bad files or values, naming the flag or key.
pub fn config_from_args(args: &TournamentArgs) -> anyhow::Result<TournamentConfig> {
    let mut cfg = config_without_history(args)?;
    if args.history {
        cfg.history_hands = args
            .history_hands
            .unwrap_or(tournament::history::DEFAULT_HANDS);
    }
    Ok(cfg)
}

fn config_without_history(args: &TournamentArgs) -> anyhow::Result<TournamentConfig> {
    let has_flags = !args.games.is_empty()
        || !args.bots.is_empty()
        || args.deals.is_some()
        || args.batch.is_some()
        || args.seed.is_some()
        || args.format.is_some()
        || args.sprt.is_some();
    if let (Some(dir), None, false) = (&args.resume, &args.file, has_flags) {
        let plan = shards::read_plan(dir)?;
        let mut cfg = plan.config;
        cfg.out = dir.clone();
        cfg.threads = match args.threads {
            Some(0) => return Err(cfg_err("--threads", "0: use 1 to 256").into()),
            Some(t) => t,
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        return Ok(cfg);
    }
    // Resuming with a file or flags: the seed and salt not given are the folder's.
    let old = match &args.resume {
        Some(dir) if dir.join("plan.json").exists() => Some(shards::read_plan(dir)?.config),
        _ => None,
    };
    let file = match &args.file {
        Some(p) => read_file(p)?,
        None => TournamentFile::default(),
    };
    let flags = TournamentFile {
        name: None,
        games: (!args.games.is_empty()).then(|| args.games.clone()),
        bots: if args.bots.is_empty() {
            None
        } else {
            let mut taken = Vec::new();
            Some(
                args.bots
                    .iter()
                    .map(|b| entrant(b, &mut taken))
                    .collect::<Result<_, _>>()?,
            )
        },
        format: args.format.clone(),
        table_size: args.table_size,
        tables: args.tables,
        deals: args.deals,
        batch: args.batch,
        seed: args.seed,
        salt: None,
        bootstrap: args.bootstrap,
        threads: args.threads,
        out: args.resume.clone().or_else(|| args.out.clone()),
        sprt: args.sprt.as_deref().map(parse_sprt).transpose()?,
        luck_adjust: args.luck_adjust.then_some(true),
    };
    let mut merged = file.overlay(flags);
    if let Some(old) = old {
        merged.seed = merged.seed.or(Some(old.seed));
        merged.luck_adjust = merged.luck_adjust.or(Some(old.luck_adjust));
        merged.salt = merged.salt.or(old.salt);
    }
    let name = merged
        .name
        .clone()
        .unwrap_or_else(|| "tournament".to_string());
    let mut cfg = TournamentConfig::from_file(merged, || default_out(&name))?;
    salt_tournament(&mut cfg, false)?;
    Ok(cfg)
}

/// Progress on stderr when it is a terminal: units, hands/s, ETA.
pub struct Progress {
    bar: Option<indicatif::ProgressBar>,
}

impl Progress {
    pub fn new() -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let b = indicatif::ProgressBar::new(0);
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:30} {pos}/{len} units  {msg}  ETA {eta}",
                )
                .expect("valid template"),
            );
            b
        });
        Progress { bar }
    }

    pub fn update(&self, p: &RunProgress, started: std::time::Instant) {
        let Some(bar) = &self.bar else { return };
        bar.set_length(p.total);
        bar.set_position(p.done);
        let secs = started.elapsed().as_secs_f64().max(1e-3);
        bar.set_message(format!(
            "{} hands, {:.0} hands/s{}",
            p.hands,
            p.hands as f64 / secs,
            if p.skipped > 0 {
                format!(", {} skipped (SPRT)", p.skipped)
            } else {
                String::new()
            }
        ));
    }

    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

impl Default for Progress {
    fn default() -> Progress {
        Progress::new()
    }
}

/// Runs (a shard of) a tournament into `cfg.out`; unsharded, writes and returns the report.
///
/// # Errors
/// Config, folder and I/O errors.
pub fn run_config(
    cfg: &TournamentConfig,
    shard: Shard,
    mode: RunMode,
) -> anyhow::Result<Option<Report>> {
    let factory = Field::new(&cfg.bots, &cfg.out)?;
    tracing::info!(out = %cfg.out.display(), shard = %shard, "tournament");
    // The plan (with the tournament's salt) and every unit's results.
    pitboss_external::jail::protect(&cfg.out);
    // Every table of a tournament is a duplicate deal.
    if cfg.bots.iter().any(|b| !super::bots::is_builtin(&b.spec)) {
        if let Some(w) = pitboss_external::jail::pagecache::duplicate_warning() {
            eprintln!("pitboss: warning: {w}");
        }
    }
    let progress = Progress::new();
    let started = std::time::Instant::now();
    let summary = tournament::run(cfg, &cfg.out, shard, mode, &factory, &mut |p| {
        progress.update(p, started)
    })?;
    progress.finish();
    if cfg.history_hands > 0 && summary.played > 0 {
        let n = cfg.history_hands.min(cfg.batch * cfg.table_size as u64);
        let of = if cfg.history_of.is_empty() {
            String::new()
        } else {
            format!(
                " of {}",
                pitboss_arena::name::terminal(&cfg.history_of.join(", "))
            )
        };
        println!(
            "kept the first {n} hands of each pairing{of} played by this run in {} (one .phhs file per pairing; read one with: pitboss phh show FILE --hand N)",
            cfg.out.join(tournament::history::FOLDER).display()
        );
    }
    let secs = summary.elapsed.as_secs_f64();
    println!(
        "{} units played, {} reused, {} skipped by SPRT; {} hands in {:.1} s ({:.0} hands/s); seed {}{}",
        summary.played,
        summary.reused,
        summary.skipped,
        summary.hands,
        secs,
        summary.hands as f64 / secs.max(1e-9),
        cfg.seed,
        if cfg.salt.is_some() {
            " (salted: decks secret, salt in plan.json)"
        } else {
            ""
        }
    );
    if shard.count > 1 {
        println!(
            "shard {shard} done in {}; when every shard is done: pitboss merge DIR... --out OUT",
            cfg.out.display()
        );
        return Ok(None);
    }
    let report = report_folders(std::slice::from_ref(&cfg.out), &cfg.out)?;
    Ok(Some(report))
}

/// Loads folders, computes the standings and writes the reports into `out`.
///
/// # Errors
/// Folder checks (plans, shards, units) and I/O.
pub fn report_folders(dirs: &[PathBuf], out: &Path) -> anyhow::Result<Report> {
    let loaded = load_folders(dirs)?;
    let standings = Standings::compute(&loaded.plan, &loaded.units, &|u| loaded.locate(u))?;
    let report = Report::build(&loaded.plan, &standings);
    // The kept hands of shard folders go beside the report that links them.
    tournament::history::gather(dirs, &loaded.plan, out)?;
    report.write(out)?;
    Ok(report)
}

/// Prints the leaderboard and where the files are.
pub fn print_report(report: &Report, out: &Path) {
    print!("{}", report.text_table());
    for b in report.bots.iter().filter(|b| !b.illegal.is_empty()) {
        for line in &b.illegal {
            println!(
                "illegal action of {}: {}",
                pitboss_arena::name::terminal(&b.bot),
                pitboss_arena::name::terminal(line)
            );
        }
    }
    println!(
        "wrote {}/leaderboard.csv, crosstable.csv, leaderboard.md, report.html",
        out.display()
    );
}

/// Whether `dir` holds a tournament: its plan (the plan check then decides whether it is this
/// one), or only what a tournament killed before its plan was complete leaves behind.
pub fn tournament_folder(dir: &Path) -> bool {
    if dir.join("plan.json").is_file() {
        return true;
    }
    std::fs::read_dir(dir).is_ok_and(|rd| {
        rd.filter_map(Result::ok).all(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with("plan.json")
                || name.starts_with("shard.json")
                || name == "units"
                || name == "bots"
        })
    })
}

/// Prints, on Ctrl-C, where the finished units of `out` are and the exact command that goes on.
pub fn interrupt_note(out: &Path) -> impl Fn() -> String + Send + 'static {
    let out = out.to_path_buf();
    move || {
        let units = std::fs::read_dir(out.join("units")).map_or(0, |d| d.count());
        format!(
            "{units} finished unit(s) are kept in {}; continue with: pitboss tournament --resume {}",
            out.join("units").display(),
            super::outdir::shell_word(&out)
        )
    }
}

/// Refuses an output folder inside an entrant's folder before the plan is written (the jail
/// would refuse the entrant's first process, after the plan and its salt were already there for
/// it to read), or before a resumed one (moved there since) plays on. `flag` is the flag that
/// named the folder. The jail checks again, and anything else a manifest may read, when it
/// starts.
fn out_apart_from_bots(cfg: &TournamentConfig, flag: &'static str) -> anyhow::Result<()> {
    let is_builtin = |s: &str| pitboss_bots::builtin(s, 1).is_some();
    let out = pitboss_external::jail::resolve::real_or_planned(&cfg.out);
    for b in &cfg.bots {
        let Ok(pitboss_external::BotSpec::External(e)) =
            pitboss_external::BotSpec::parse(&b.spec, &is_builtin)
        else {
            continue;
        };
        let Some(dir) = e.base() else { continue };
        let dir = pitboss_external::jail::resolve::real_or_planned(&dir);
        if out.starts_with(&dir) {
            return Err(cfg_err(
                flag,
                format!(
                    "{} is inside {}, the folder of bot {}, which it may read: move the bot or \
                     the output folder apart",
                    out.display(),
                    dir.display(),
                    pitboss_arena::name::one_line(&b.name)
                ),
            )
            .into());
        }
    }
    Ok(())
}

pub fn run(args: TournamentArgs) -> anyhow::Result<()> {
    let cfg = config_from_args(&args)?;
    if args.resume.is_none() {
        // A folder with a plan is this tournament or is refused by the plan check (naming the
        // first differing key); anything else in it is not ours.
        super::outdir::prepare(&cfg.out, args.force, tournament_folder)?;
        out_apart_from_bots(&cfg, "--out")?;
    } else {
        out_apart_from_bots(&cfg, "--resume")?;
    }
    super::play::install_interrupt_handler(interrupt_note(&cfg.out));
    let shard = match &args.shard {
        Some(s) => Shard::parse(s).map_err(|why| cfg_err("--shard", why))?,
        None => Shard::from_env(&|k| std::env::var(k).ok())
            .map_err(|why| cfg_err("--shard (environment)", why))?
            // Resuming a shard folder: its own shard.
            .map_or_else(|| shards::read_shard(&cfg.out), Ok)?,
    };
    if shard.count > 1 && !cfg.out.join("plan.json").exists() {
        // Every shard must build the same plan: nothing in it may be drawn at random per shard.
        let file = args.file.as_deref().map(read_file).transpose()?;
        let file = file.unwrap_or_default();
        if args.seed.is_none() && file.seed.is_none() {
            return Err(cfg_err(
                "--shard",
                "every shard must play the same plan: give the seed (--seed, or `seed` in the tournament file)",
            )
            .into());
        }
        if cfg.salt.is_some() && file.salt.is_none() {
            return Err(cfg_err(
                "--shard",
                "with external bots every shard needs the same secret deck salt: give `salt = \"<64 hex digits>\"` \
                 in the tournament file (e.g. from `od -An -tx1 -N32 /dev/urandom | tr -d ' \\n'`) and keep the \
                 file where no bot can read it",
            )
            .into());
        }
    }
    if let Some(report) = run_config(&cfg, shard, RunMode::Resume)? {
        print_report(&report, &cfg.out);
    }
    Ok(())
}
