//! `pitboss submit BOT --name NAME [--registry DIR]`: check the bot, record it in the registry,
//! play it against every registered bot with the registry's settings (reusing every result that
//! does not involve it), and update the registry's leaderboard.
//!
//! Where the registry is: `--registry DIR`, else `$PITBOSS_REGISTRY`, else the per-user data
//! folder (`$XDG_DATA_HOME/pitboss/registry`, by default `~/.local/share/pitboss/registry`), so
//! that it does not depend on where the command is run from.
//!
//! Registry layout:
//! `registry.toml` (settings and entries), `entries/<name>/` (the entry record and a copy of the
//! bot's manifest or program), `tournament/` (plan, unit results, leaderboard and report).

use std::path::{Path, PathBuf};

use anyhow::Context;
use pitboss_arena::output::{timestamp, write_atomic};
use pitboss_tournament::{
    config::valid_name, EntrantEntry, RunMode, Shard, TournamentConfig, TournamentFile,
};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

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
            games: vec!["27td-fl".to_string(), "stud8-fl".to_string()],
            deals: 5000,
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

/// SHA-256 of a bot: its spec, and each of its files (name and contents); built-in bots also
/// hash the pitboss version they come with.
pub fn bot_hash(spec: &str) -> anyhow::Result<String> {
    let mut h = Sha256::new();
    h.update(spec.as_bytes());
    h.update([0]);
    let files = bots::bot_files(spec);
    if files.is_empty() {
        h.update(concat!("builtin ", env!("CARGO_PKG_VERSION")).as_bytes());
    }
    for f in files {
        let bytes = std::fs::read(&f).with_context(|| format!("reading {}", f.display()))?;
        h.update(
            f.file_name()
                .map(|n| n.as_encoded_bytes())
                .unwrap_or_default(),
        );
        h.update([0]);
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
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
    Ok(n)
}

/// The registry's tournament over all entries.
fn gauntlet(dir: &Path, r: &Registry, threads: Option<usize>) -> anyhow::Result<TournamentConfig> {
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
    // Always salted: the gauntlet keeps its plan's settings (salt included) as bots join, and
    // any submission may be an external bot.
    bots::salt_tournament(&mut cfg, true)?;
    Ok(cfg)
}

/// Makes the registry's secrets unreachable from every jail of this process: its settings and
/// its tournament (the plan holds the salt, the units the results). The entries' copies of bots
/// stay bindable: a registered bot may be played from its copy.
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

/// Refuses to take over a name that is a reference bot's or was submitted from another spec,
/// unless `--replace`: a typo in `--name` must not silently replace someone else's bot.
fn check_name(reg: &Registry, name: &str, spec: &str, replace: bool) -> anyhow::Result<()> {
    let Some(e) = reg.entries.iter().find(|e| e.name == name) else {
        return Ok(());
    };
    if e.spec == spec || replace {
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

pub fn run(args: SubmitArgs) -> anyhow::Result<()> {
    if !valid_name(&args.name) {
        return Err(pitboss_arena::ConfigError {
            key: "--name",
            why: format!("`{}`: use letters, digits, _ . + - (at most 64)", args.name),
        }
        .into());
    }
    let (dir, source) = registry_dir(args.registry.as_deref(), &|k| std::env::var(k).ok())?;
    protect_registry(&dir);
    let dir = &dir;
    let is_new = !dir.join("registry.toml").exists();
    let mut reg = load(dir)?;
    check_name(&reg, &args.name, &args.bot, args.replace)?;
    let check = bots::conformance(&args.bot, args.allow_read_outside);
    if !check.passed {
        anyhow::bail!(
            "{} refused: the conformance check failed:\n{}",
            args.bot,
            check.report
        );
    }
    println!("conformance check passed: {}", check.report);
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    if is_new {
        println!(
            "created a new registry in {} ({source}) with the reference bots {}",
            dir.display(),
            pitboss_bots::NAMES.join(", ")
        );
    } else {
        println!("registry: {} ({source})", dir.display());
    }
    let hash = bot_hash(&args.bot)?;
    let tdir = dir.join("tournament");
    match reg.entries.iter_mut().find(|e| e.name == args.name) {
        Some(e) if e.hash == hash && e.spec == args.bot => {
            println!(
                "{} is registered already with the same files (version {}); nothing to replay",
                e.name, e.version
            );
        }
        Some(e) => {
            let gone = forget(&tdir, &e.name)?;
            e.version += 1;
            e.spec.clone_from(&args.bot);
            e.hash.clone_from(&hash);
            e.submitted = timestamp();
            println!(
                "{} changed: version {}, {gone} old results dropped",
                e.name, e.version
            );
        }
        None => reg.entries.push(Entry {
            name: args.name.clone(),
            spec: args.bot.clone(),
            version: 1,
            hash: hash.clone(),
            submitted: timestamp(),
        }),
    }
    let entry = reg
        .entries
        .iter()
        .find(|e| e.name == args.name)
        .expect("just added")
        .clone();
    let edir = dir.join("entries").join(&entry.name);
    std::fs::create_dir_all(&edir)?;
    for f in bots::bot_files(&args.bot) {
        if let Some(name) = f.file_name() {
            std::fs::copy(&f, edir.join(name))?;
        }
    }
    write_atomic(
        &edir.join("entry.toml"),
        toml::to_string(&entry)?.as_bytes(),
    )?;
    std::fs::write(edir.join("check.txt"), format!("{}\n", check.report))?;
    save(dir, &reg)?;
    let cfg = gauntlet(dir, &reg, args.threads)?;
    let report = super::tournament::run_config(&cfg, Shard::default(), RunMode::Extend)?
        .expect("unsharded runs report");
    super::tournament::print_report(&report, &cfg.out);
    if let Some(b) = report.bots.iter().find(|b| b.bot == entry.name) {
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
    Ok(())
}
