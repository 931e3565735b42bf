//! `pitboss submit BOT --name NAME [--registry DIR]`: read the bot's files, check the bot, play it
//! against every registered bot with the registry's settings (reusing every result that does not
//! involve it), and only then record it in the registry and update the leaderboard.
//!
//! Where the registry is: `--registry DIR`, else `$PITBOSS_REGISTRY`, else the per-user data
//! folder (`$XDG_DATA_HOME/pitboss/registry`, by default `~/.local/share/pitboss/registry`), so
//! that it does not depend on where the command is run from.
//!
//! Registry layout:
//! `registry.toml` (settings and entries), `entries/<name>/` (the entry record `entry.toml`, the
//! checker's report `check.txt`, and `files/`: a copy of the bot's folder, or of the one file an
//! `exec:` spec runs), `tournament/` (plan, unit results, leaderboard and report), and while a
//! submission runs `incoming/<name>/` (its staged entry) and `pending.toml`.
//!
//! The bot's files are read by [`botfiles`] (issue 23 item 7): once, beneath its folder, regular
//! files and folders only, within `--max-files` and `--max-size-mb`, before any of its code runs;
//! the same walk gives the entry's hash. The gauntlet plays the bot from its own folder (as
//! `check` and `match` do; a manifest may read beside its folder with `--allow-read-outside`), by
//! the absolute path recorded as the entry's `spec`, so that a later submission from anywhere
//! replays it; the copy in `entries/` is the record of what was submitted.
//!
//! `registry.toml` changes only when the gauntlet succeeded: the submission holds an exclusive
//! lock on the registry folder, stages its entry in `incoming/`, writes `pending.toml` before the
//! gauntlet touches `tournament/`, and once the gauntlet completed writes `registry.toml`
//! atomically (the commit), moves the entry into `entries/` and removes `pending.toml`. A refused
//! bot or a failed gauntlet is undone at once (its unit results dropped); a submission killed
//! mid-way (Ctrl-C, SIGKILL) is finished or undone by the next one, which `pending.toml` tells
//! what to do.

use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use anyhow::Context;
use pitboss_arena::output::{timestamp, write_atomic};
use pitboss_tournament::{EntrantEntry, RunMode, Shard, TournamentConfig, TournamentFile};
use serde::{Deserialize, Serialize};

use super::botfiles::{self, Limits, Source};
use super::bots;
use crate::args::SubmitArgs;

/// The gauntlet's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    pub name: String,
    pub games: Vec<String>,
    pub deals: u64,
    pub batch: u64,
    pub seed: u64,
    pub bootstrap: usize,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            name: "Pitboss registry".to_string(),
            // Every game and structure (the check tests them all): 6 x 2,000 deals play about as
            // many hands as the 2 x 5,000 of the fixed-limit games alone did.
            games: super::games::all(),
            deals: 2000,
            batch: 1000,
            seed: 1,
            bootstrap: 200,
        }
    }
}

/// A registered bot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub name: String,
    pub spec: String,
    /// 1 for the first submission, +1 whenever the bot's files change.
    pub version: u32,
    /// SHA-256 over the spec and the bot's files.
    pub hash: String,
    /// UTC, `YYYYMMDD-HHMMSS`.
    pub submitted: String,
}

/// `registry.toml`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Registry {
    pub settings: Settings,
    #[serde(default, rename = "entry")]
    pub entries: Vec<Entry>,
}

/// SHA-256 of a bot: its spec, and each of its files (path and contents), read by the careful
/// walk of [`botfiles`] within the default limits; built-in bots also hash the pitboss version
/// they come with.
///
/// # Errors
/// A file the walk refuses or cannot read.
pub fn bot_hash(spec: &str) -> anyhow::Result<String> {
    Ok(botfiles::collect(spec, &Source::of(spec), Limits::default(), None)?.hash)
}

fn load(dir: &Path) -> anyhow::Result<Registry> {
    let path = dir.join("registry.toml");
    if !path.exists() {
        let entries = pitboss_bots::NAMES
            .iter()
            .map(|n| {
                Ok(Entry {
                    name: n.to_string(),
                    spec: n.to_string(),
                    version: 1,
                    hash: bot_hash(n)?,
                    submitted: timestamp(),
                })
            })
            .collect::<anyhow::Result<_>>()?;
        return Ok(Registry {
            settings: Settings {
                seed: pitboss_arena::config::random_seed("seed")?,
                ..Settings::default()
            },
            entries,
        });
    }
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("registry file {}", path.display()))
}

fn save(dir: &Path, r: &Registry) -> anyhow::Result<()> {
    let text = format!(
        "# The pitboss registry: the gauntlet's settings and every registered bot (written by `pitboss submit`).\n{}",
        toml::to_string(r)?
    );
    let path = dir.join("registry.toml");
    write_atomic(&path, text.as_bytes()).with_context(|| format!("writing {}", path.display()))
}

/// Deletes the unit results that involve `name` (its files changed).
fn forget(tournament: &Path, name: &str) -> anyhow::Result<usize> {
    let mut n = 0;
    if let Ok(entries) = std::fs::read_dir(tournament.join("units")) {
        for e in entries.filter_map(Result::ok) {
            let file = e.file_name();
            let id = file.to_string_lossy();
            let parts: Vec<&str> = id.trim_end_matches(".json").split('~').collect();
            if parts.len() > 2 && parts[1..parts.len() - 1].contains(&name) {
                std::fs::remove_file(e.path())?;
                n += 1;
            }
        }
    }
    // Its kept hands (`hands/<game>~<bot>~<bot>.phhs`) go with its results.
    let hands = tournament.join(pitboss_tournament::history::FOLDER);
    if let Ok(entries) = std::fs::read_dir(&hands) {
        for e in entries.filter_map(Result::ok) {
            let file = e.file_name();
            let id = file.to_string_lossy();
            let parts: Vec<&str> = id.trim_end_matches(".phhs").split('~').collect();
            if parts.len() > 1 && parts[1..].contains(&name) {
                std::fs::remove_file(e.path())?;
            }
        }
    }
    Ok(n)
}

/// The registry's tournament over all entries.
fn gauntlet(
    dir: &Path,
    r: &Registry,
    threads: Option<usize>,
    kept: Option<&str>,
) -> anyhow::Result<TournamentConfig> {
    let s = &r.settings;
    let f = TournamentFile {
        name: Some(s.name.clone()),
        games: Some(s.games.clone()),
        bots: Some(
            r.entries
                .iter()
                .map(|e| EntrantEntry::Named {
                    name: e.name.clone(),
                    spec: e.spec.clone(),
                })
                .collect(),
        ),
        deals: Some(s.deals),
        batch: Some(s.batch),
        seed: Some(s.seed),
        bootstrap: Some(s.bootstrap),
        threads,
        out: Some(dir.join("tournament")),
        ..TournamentFile::default()
    };
    let mut cfg = TournamentConfig::from_file(f, || dir.join("tournament"))?;
    // The submitted bot's pairings keep their first hands, which the report links.
    if let Some(name) = kept {
        cfg.history_hands = pitboss_tournament::history::DEFAULT_HANDS;
        cfg.history_of = vec![name.to_string()];
    }
    // Always salted: the gauntlet keeps its plan's settings (salt included) as bots join, and
    // any submission may be an external bot.
    bots::salt_tournament(&mut cfg, true)?;
    Ok(cfg)
}

/// Makes the registry's secrets unreachable from every jail of this process: its settings and
/// its tournament (the plan holds the salt, the units the results). The entries' copies of bots
/// (a record of what was submitted; bots play from their own folders), `incoming/` and
/// `pending.toml` hold no secret.
pub fn protect_registry(dir: &Path) {
    pitboss_external::jail::protect(&dir.join("registry.toml"));
    pitboss_external::jail::protect(&dir.join("tournament"));
}

/// The registry folder and where that choice came from (for the "new registry" message).
///
/// # Errors
/// A [`pitboss_arena::ConfigError`] when no flag, no variable and no home folder give one.
pub fn registry_dir(
    flag: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
) -> anyhow::Result<(PathBuf, &'static str)> {
    if let Some(d) = flag {
        return Ok((d.to_path_buf(), "from --registry"));
    }
    if let Some(d) = env("PITBOSS_REGISTRY").filter(|d| !d.is_empty()) {
        return Ok((PathBuf::from(d), "from $PITBOSS_REGISTRY"));
    }
    if let Some(d) = env("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        return Ok((
            Path::new(&d).join("pitboss/registry"),
            "the per-user data folder, from $XDG_DATA_HOME",
        ));
    }
    if let Some(h) = env("HOME").filter(|d| !d.is_empty()) {
        return Ok((
            Path::new(&h).join(".local/share/pitboss/registry"),
            "the per-user data folder",
        ));
    }
    Err(pitboss_arena::ConfigError {
        key: "--registry",
        why: "no registry folder: give --registry DIR or set PITBOSS_REGISTRY (HOME is not set)"
            .into(),
    }
    .into())
}

/// Whether a registered spec names the bot `spec` (absolute) names: the same text, or an older
/// entry's relative spec that resolves to it from here.
fn same_spec(registered: &str, spec: &str) -> bool {
    registered == spec || Source::of(registered).absolute_spec(registered) == spec
}

/// Refuses to take over a name that is a reference bot's or was submitted from another spec,
/// unless `--replace`: a typo in `--name` must not silently replace someone else's bot.
fn check_name(reg: &Registry, name: &str, spec: &str, replace: bool) -> anyhow::Result<()> {
    let Some(e) = reg.entries.iter().find(|e| e.name == name) else {
        return Ok(());
    };
    if same_spec(&e.spec, spec) || replace {
        return Ok(());
    }
    let whose = if pitboss_bots::NAMES.contains(&e.name.as_str()) && e.spec == e.name {
        "a reference bot".to_string()
    } else {
        format!("a bot submitted from `{}` (version {})", e.spec, e.version)
    };
    Err(pitboss_arena::ConfigError {
        key: "--name",
        why: format!(
            "`{name}` is {whose}; choose another name, or add --replace to replace it with `{spec}`"
        ),
    }
    .into())
}

/// `pending.toml`: a submission whose gauntlet may have changed `tournament/` while
/// `registry.toml` does not record it yet. Written before the first unit file is touched, removed
/// once `registry.toml` and `entries/NAME/` are written; the next submit that finds it finishes
/// the submission (when `registry.toml` has the entry) or undoes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Pending {
    name: String,
    version: u32,
    hash: String,
    /// The registry had no `registry.toml`: its whole `tournament/` is this submission's.
    new_registry: bool,
}

const PENDING: &str = "pending.toml";

/// The staging folder of an entry: `incoming/NAME` (same file system as `entries/`).
fn incoming(dir: &Path, name: &str) -> PathBuf {
    dir.join("incoming").join(name)
}

fn remove_tree(p: &Path) -> std::io::Result<()> {
    match std::fs::remove_dir_all(p) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Puts the staged `incoming/NAME` in place of `entries/NAME` (nothing to do when it is gone).
fn install(dir: &Path, name: &str) -> anyhow::Result<()> {
    let from = incoming(dir, name);
    if from.symlink_metadata().is_err() {
        return Ok(());
    }
    let entries = dir.join("entries");
    std::fs::create_dir_all(&entries).with_context(|| format!("creating {}", entries.display()))?;
    let to = entries.join(name);
    remove_tree(&to).with_context(|| format!("removing {}", to.display()))?;
    std::fs::rename(&from, &to).with_context(|| format!("moving {} into place", from.display()))
}

/// Undoes a submission that did not reach `registry.toml`: its unit results go (or the whole
/// tournament, when it was the registry's first), and so do its staged files and the record.
fn undo(dir: &Path, p: &Pending, registry_exists: bool) -> anyhow::Result<()> {
    let tdir = dir.join("tournament");
    if p.new_registry && !registry_exists {
        remove_tree(&tdir).with_context(|| format!("removing {}", tdir.display()))?;
    } else {
        forget(&tdir, &p.name)?;
    }
    let staged = incoming(dir, &p.name);
    remove_tree(&staged).with_context(|| format!("removing {}", staged.display()))?;
    std::fs::remove_file(dir.join(PENDING))
        .with_context(|| format!("removing {}", dir.join(PENDING).display()))
}

/// Tidies up after a submission that was interrupted (Ctrl-C, SIGKILL, a crash): finishes or
/// undoes the one `pending.toml` names, and removes anything staged in `incoming/`.
fn recover(dir: &Path, reg: &Registry, registry_exists: bool) -> anyhow::Result<()> {
    let path = dir.join(PENDING);
    if let Ok(text) = std::fs::read_to_string(&path) {
        let p: Pending = toml::from_str(&text).with_context(|| {
            format!(
                "{}: the record of an interrupted submission is unreadable; remove it and the \
                 tournament/ folder to replay the gauntlet",
                path.display()
            )
        })?;
        let done = registry_exists
            && reg
                .entries
                .iter()
                .any(|e| e.name == p.name && e.version == p.version && e.hash == p.hash);
        if done {
            install(dir, &p.name)?;
            std::fs::remove_file(&path)?;
            println!(
                "finished the interrupted submission of {} (version {})",
                p.name, p.version
            );
        } else {
            undo(dir, &p, registry_exists)?;
            println!(
                "undid the interrupted submission of {} (version {}): its results are dropped, \
                 registry.toml never listed it",
                p.name, p.version
            );
        }
    }
    if let Ok(rd) = std::fs::read_dir(dir.join("incoming")) {
        for e in rd.flatten() {
            remove_tree(&e.path()).with_context(|| format!("removing {}", e.path().display()))?;
        }
    }
    Ok(())
}

/// The registry, held for one submission: an exclusive `flock` on its folder (another submit
/// waits; the kernel releases it when the process ends, however it ends).
fn lock(dir: &Path) -> anyhow::Result<std::fs::File> {
    let f = std::fs::File::open(dir).with_context(|| format!("opening {}", dir.display()))?;
    let flock = |op| {
        // SAFETY: flock on a descriptor this function owns.
        if unsafe { libc::flock(f.as_raw_fd(), op) } == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    };
    if flock(libc::LOCK_EX | libc::LOCK_NB).is_err() {
        println!(
            "waiting for another submission to {} to finish",
            dir.display()
        );
        flock(libc::LOCK_EX).with_context(|| format!("locking {}", dir.display()))?;
    }
    Ok(f)
}

/// Removes a staging folder when dropped, unless it was installed.
struct Staged(Option<PathBuf>);

impl Drop for Staged {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = remove_tree(&p);
        }
    }
}

pub fn run(args: SubmitArgs) -> anyhow::Result<()> {
    if let Some(why) = pitboss_arena::name::problem(&args.name) {
        return Err(pitboss_arena::ConfigError { key: "--name", why }.into());
    }
    let (dir, source) = registry_dir(args.registry.as_deref(), &|k| std::env::var(k).ok())?;
    protect_registry(&dir);
    let created = dir.symlink_metadata().is_err();
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let r = submit(&args, &dir, source);
    if created && r.is_err() {
        // Nothing was registered: leave no empty registry behind (non-empty folders stay).
        for d in ["incoming", "entries", ""] {
            let _ = std::fs::remove_dir(dir.join(d));
        }
    }
    r
}

/// `--game`: the games of a new registry; an existing one keeps the games it was made with (its
/// results and plan are of those), so a different list is refused rather than ignored.
fn choose_games(
    reg: &mut Registry,
    asked: &[String],
    exists: bool,
    dir: &Path,
) -> anyhow::Result<()> {
    let asked = super::games::presets(asked, "--game")?;
    if asked.is_empty() {
        return Ok(());
    }
    let sorted = |v: &[String]| {
        let mut v = v.to_vec();
        v.sort();
        v
    };
    if exists && sorted(&asked) != sorted(&reg.settings.games) {
        return Err(pitboss_arena::ConfigError {
            key: "--game",
            why: format!(
                "the registry {} ranks in {} (settings.games of its registry.toml) and keeps the \
                 games it was made with; leave out --game, or give another --registry for {}",
                dir.display(),
                reg.settings.games.join(", "),
                asked.join(", ")
            ),
        }
        .into());
    }
    reg.settings.games = asked;
    Ok(())
}

/// The submission proper, on a registry folder that exists.
///
/// Order: the bot's files are read (and staged in `incoming/NAME`) before any of its code runs;
/// then the conformance check; then, if the bot is new or changed, `pending.toml`, the gauntlet,
/// and only once it completed `registry.toml` (atomically: the commit) and `entries/NAME/`.
fn submit(args: &SubmitArgs, dir: &Path, source: &str) -> anyhow::Result<()> {
    let _lock = lock(dir)?;
    let registry_exists = dir.join("registry.toml").exists();
    let mut reg = load(dir)?;
    choose_games(&mut reg, &args.games, registry_exists, dir)?;
    recover(dir, &reg, registry_exists)?;
    let tdir = dir.join("tournament");
    if !registry_exists && tdir.exists() {
        anyhow::bail!(
            "{} has a tournament/ folder but no registry.toml: it is not a registry (give \
             another --registry, or remove tournament/ to start one there)",
            dir.display()
        );
    }
    let src = Source::of(&args.bot);
    let spec = src.absolute_spec(&args.bot);
    // The manifest first (its own fields: name, build_dir beneath the folder, ...), so that its
    // refusal names the field at fault before the files are walked.
    pitboss_external::BotSpec::parse(&spec, &|s| super::bots::is_builtin(s)).map_err(|e| {
        anyhow::anyhow!("{} refused: {e}", pitboss_arena::name::terminal(&args.bot))
    })?;
    check_name(&reg, &args.name, &spec, args.replace)?;
    let note_dir = dir.to_path_buf();
    super::play::install_interrupt_handler(move || {
        format!(
            "{}/registry.toml changes only when the gauntlet completes; the next submission \
             tidies up after this one",
            note_dir.display()
        )
    });
    // The bot's files, read once and staged before any of its code runs (the check builds and
    // plays it): a refused file stops the submission here.
    let staging = incoming(dir, &args.name);
    std::fs::create_dir_all(&staging).with_context(|| format!("creating {}", staging.display()))?;
    let mut staged = Staged(Some(staging.clone()));
    let limits = Limits {
        files: args.max_files,
        bytes: args.max_size_mb.saturating_mul(1 << 20),
    };
    let into = (src != Source::Nothing).then(|| staging.join("files"));
    let files = botfiles::collect(&spec, &src, limits, into.as_deref())
        .map_err(|e| anyhow::anyhow!("{} refused: {e}", args.bot))?;
    let check = bots::conformance(&spec, args.allow_read_outside);
    if !check.passed {
        anyhow::bail!(
            "{} refused: the conformance check failed:\n{}",
            args.bot,
            check.report
        );
    }
    println!(
        "conformance check passed: {}",
        pitboss_arena::name::terminal(&check.report)
    );
    if registry_exists {
        println!("registry: {} ({source})", dir.display());
    } else {
        println!(
            "created a new registry in {} ({source}) with the reference bots {}",
            dir.display(),
            pitboss_bots::NAMES.join(", ")
        );
    }
    let known = reg.entries.iter().any(|e| e.name == args.name);
    let changed = match reg.entries.iter_mut().find(|e| e.name == args.name) {
        // The hash covers the spec: the same hash is the same spec with the same files.
        Some(e) if e.hash == files.hash => {
            println!(
                "{} is registered already with the same files (version {}); nothing to replay",
                e.name, e.version
            );
            None
        }
        Some(e) => {
            e.version += 1;
            e.spec.clone_from(&spec);
            e.hash.clone_from(&files.hash);
            e.submitted = timestamp();
            Some(e.clone())
        }
        None => {
            let e = Entry {
                name: args.name.clone(),
                spec: spec.clone(),
                version: 1,
                hash: files.hash.clone(),
                submitted: timestamp(),
            };
            reg.entries.push(e.clone());
            Some(e)
        }
    };
    let Some(entry) = changed else {
        drop(staged);
        if let Some(report) = play(dir, &reg, args.threads, Some(&args.name))? {
            print_rank(&report, &args.name, &dir.join("tournament"));
        }
        return Ok(());
    };
    write_atomic(
        &staging.join("entry.toml"),
        toml::to_string(&entry)?.as_bytes(),
    )?;
    std::fs::write(staging.join("check.txt"), format!("{}\n", check.report))?;
    let pending = Pending {
        name: entry.name.clone(),
        version: entry.version,
        hash: entry.hash.clone(),
        new_registry: !registry_exists,
    };
    write_atomic(&dir.join(PENDING), toml::to_string(&pending)?.as_bytes())?;
    let played = (|| {
        // Results under this name that registry.toml does not vouch for go, whatever left them.
        let gone = forget(&tdir, &entry.name)?;
        if known {
            println!(
                "{} changed: version {}, {gone} old results dropped",
                entry.name, entry.version
            );
        }
        play(dir, &reg, args.threads, Some(&entry.name))
    })();
    let report = match played {
        Ok(r) => r,
        Err(e) => {
            if let Err(u) = undo(dir, &pending, registry_exists) {
                eprintln!("pitboss: undoing the submission: {u:#}");
            }
            return Err(e.context(format!(
                "the gauntlet of {} failed; registry.toml is unchanged",
                entry.name
            )));
        }
    };
    // The commit: registry.toml lists the entry; then its files take their place.
    save(dir, &reg)?;
    install(dir, &entry.name)?;
    staged.0 = None;
    std::fs::remove_file(dir.join(PENDING))?;
    println!(
        "registered {} version {} ({} files and folders, {} bytes, sha256 {})",
        entry.name, entry.version, files.files, files.bytes, entry.hash
    );
    if let Some(report) = report {
        print_rank(&report, &entry.name, &dir.join("tournament"));
    }
    Ok(())
}

/// Plays the registry's gauntlet and prints its leaderboard; `None` when fewer than two bots are
/// registered (nobody to play: the gauntlet succeeds with nothing to do). The pairings of bot
/// `kept` that are played keep their first hands (`tournament/hands/`).
fn play(
    dir: &Path,
    reg: &Registry,
    threads: Option<usize>,
    kept: Option<&str>,
) -> anyhow::Result<Option<pitboss_tournament::report::Report>> {
    if reg.entries.len() < 2 {
        println!("the gauntlet needs two bots: it plays when the next one is submitted");
        return Ok(None);
    }
    let cfg = gauntlet(dir, reg, threads, kept)?;
    let report = super::tournament::run_config(&cfg, Shard::default(), RunMode::Extend)?
        .expect("unsharded runs report");
    super::tournament::print_report(&report, &cfg.out);
    Ok(Some(report))
}

fn print_rank(report: &pitboss_tournament::report::Report, name: &str, tournament: &Path) {
    let kept = report.hands_of(tournament, name);
    if let Some(first) = kept.first() {
        println!(
            "{} pairings of {} keep their first {} hands in {} (linked from report.html); read one with: pitboss phh show {} --hand 1",
            kept.len(),
            pitboss_arena::name::terminal(name),
            first.2.hands,
            tournament.join(pitboss_tournament::history::FOLDER).display(),
            super::outdir::shell_word(&tournament.join(&first.2.path))
        );
    }
    if let Some(b) = report.bots.iter().find(|b| b.bot == name) {
        println!(
            "{} ranks {} of {} (rating {:.1} [{:.1}, {:.1}] mbb/hand)",
            b.bot,
            b.rank,
            report.bots.len(),
            b.rating.value,
            b.rating.low,
            b.rating.high
        );
    }
}
