//! Bot specs: what `--bot` (and `bots = [...]` in a match file) accepts.
//!
//! * a built-in name (`random`, `call`, ...) resolved by the binary, which knows the bots crate;
//! * `exec:COMMAND ARGS` — a program speaking the JSON-lines protocol, words split on whitespace;
//! * a path to a `bot.toml` manifest (or to a folder holding one).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// A spec that cannot be used, with the reason.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("`{0}`: empty command after `exec:`")]
    EmptyExec(String),
    #[error("{path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Toml {
        path: String,
        #[source]
        source: toml::de::Error,
    },
    #[error("{path}: {why}")]
    Manifest { path: String, why: String },
    #[error("`{0}` is neither a built-in bot, `exec:COMMAND`, nor a bot.toml path")]
    Unknown(String),
    #[error(
        "{path}: reads outside its own folder ({}); the operator may allow it with \
         --allow-read-outside",
        outside.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    ReadsOutside { path: String, outside: Vec<PathBuf> },
    #[error("{path}: build command {command:?} failed: {why}")]
    Build {
        path: String,
        command: Vec<String>,
        why: String,
    },
}

/// Per-bot limits. In a manifest they are the bot's defaults; flags and match-file keys override.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Time per decision, milliseconds.
    pub decision_ms: Option<u64>,
    /// Match time bank, milliseconds.
    pub bank_ms: Option<u64>,
    /// Address-space limit (RLIMIT_AS), MiB.
    pub memory_mb: Option<u64>,
    /// CPU-time limit (RLIMIT_CPU), seconds, per process.
    pub cpu_seconds: Option<u64>,
    /// Restarts after a crash before the bot forfeits the match.
    pub restarts: Option<u32>,
    /// Time to start and answer the hello, milliseconds.
    pub startup_ms: Option<u64>,
}

impl Limits {
    /// `self` with every field `over` sets replaced.
    pub fn overlay(self, over: Limits) -> Limits {
        Limits {
            decision_ms: over.decision_ms.or(self.decision_ms),
            bank_ms: over.bank_ms.or(self.bank_ms),
            memory_mb: over.memory_mb.or(self.memory_mb),
            cpu_seconds: over.cpu_seconds.or(self.cpu_seconds),
            restarts: over.restarts.or(self.restarts),
            startup_ms: over.startup_ms.or(self.startup_ms),
        }
    }
}

/// Defaults for limits nobody set.
pub const DEFAULT_DECISION_MS: u64 = 1_000;
pub const DEFAULT_BANK_MS: u64 = 10_000;
pub const DEFAULT_RESTARTS: u32 = 3;
pub const DEFAULT_STARTUP_MS: u64 = 10_000;

/// `bot.toml` as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestFile {
    /// The bot's name in tables, logs and file names: the set of [`crate::name`].
    name: String,
    command: Vec<String>,
    /// Working directory, relative to the manifest's folder (default: that folder).
    workdir: Option<PathBuf>,
    /// Run once before a match, in the manifest's folder, in the jail.
    build: Option<Vec<String>>,
    /// The folder (relative to the manifest) the build may write; default `build`.
    build_dir: Option<PathBuf>,
    /// Extra paths the sandbox lets the bot read (e.g. a virtualenv outside its folder).
    #[serde(default)]
    read: Vec<PathBuf>,
    #[serde(default)]
    limits: Limits,
}

/// A program to run, resolved to absolute paths.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalSpec {
    pub name: String,
    /// Program and arguments; a program with a `/` is resolved against `dir`.
    pub command: Vec<String>,
    /// Working directory (the bot's own folder: readable under the sandbox).
    pub dir: PathBuf,
    pub build: Option<Vec<String>>,
    /// Where the build may write (absolute): the manifest folder joined with a relative path of
    /// plain names (no `..`; checked at load, and again without following links by the build).
    pub build_dir: PathBuf,
    pub read: Vec<PathBuf>,
    pub limits: Limits,
    /// The manifest, when there is one.
    pub manifest: Option<PathBuf>,
}

/// A parsed `--bot` value.
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(clippy::large_enum_variant)] // parsed once per bot
pub enum BotSpec {
    Builtin(String),
    External(ExternalSpec),
}

impl BotSpec {
    /// Parses a spec; `is_builtin` says whether a bare name is a built-in bot.
    ///
    /// # Errors
    /// [`SpecError`] naming the spec and what is wrong.
    pub fn parse(s: &str, is_builtin: &dyn Fn(&str) -> bool) -> Result<BotSpec, SpecError> {
        if let Some(cmd) = s.strip_prefix("exec:") {
            let command: Vec<String> = cmd.split_whitespace().map(String::from).collect();
            if command.is_empty() {
                return Err(SpecError::EmptyExec(s.into()));
            }
            // The name tables show (the script, not its interpreter: `exec:node bot.js` is
            // `bot`), so that the bot's log is named as its row in summary.csv; made a name of
            // the set (it becomes the log's file name and is printed).
            let name = display_name(s);
            let dir = std::env::current_dir().map_err(|source| SpecError::Read {
                path: ".".into(),
                source,
            })?;
            return Ok(BotSpec::External(ExternalSpec {
                name,
                command,
                build_dir: dir.join("build"),
                dir,
                build: None,
                read: Vec::new(),
                limits: Limits::default(),
                manifest: None,
            }));
        }
        let path = Path::new(s);
        if s.ends_with(".toml") || path.join("bot.toml").is_file() {
            let file = if path.is_dir() {
                path.join("bot.toml")
            } else {
                path.to_path_buf()
            };
            return load_manifest(&file).map(BotSpec::External);
        }
        if is_builtin(s) {
            return Ok(BotSpec::Builtin(s.into()));
        }
        Err(SpecError::Unknown(s.into()))
    }

    /// The bot's name (for logs and file names).
    pub fn name(&self) -> &str {
        match self {
            BotSpec::Builtin(n) => n,
            BotSpec::External(e) => &e.name,
        }
    }
}

/// Programs that run a script: an `exec:` bot started through one is named after its script.
const INTERPRETERS: [&str; 9] = [
    "python", "python3", "node", "ruby", "perl", "sh", "bash", "java", "deno",
];

/// The short name a bot is shown under in tables and files: a manifest's `name`, the script or
/// program of an `exec:` spec, else the spec itself (built-in names). Spec paths such as
/// `/home/me/bots/x/bot.toml` would break the columns of every table. Always a name of the set of
/// [`crate::name`]: a manifest's name is checked when it is loaded, anything else is sanitized.
pub fn display_name(spec: &str) -> String {
    crate::name::sanitize(&raw_display_name(spec))
}

fn raw_display_name(spec: &str) -> String {
    if let Some(cmd) = spec.strip_prefix("exec:") {
        let words: Vec<&str> = cmd.split_whitespace().collect();
        let stem = |w: &str| {
            let p = Path::new(w);
            p.file_stem()
                .or_else(|| p.file_name())
                .map_or_else(|| w.to_string(), |n| n.to_string_lossy().into_owned())
        };
        return match words.split_first() {
            Some((prog, rest)) if INTERPRETERS.contains(&stem(prog).as_str()) => rest
                .iter()
                .find(|w| !w.starts_with('-'))
                .map_or_else(|| stem(prog), |w| stem(w)),
            Some((prog, _)) => stem(prog),
            None => spec.to_string(),
        };
    }
    match BotSpec::parse(spec, &|_| true) {
        Ok(BotSpec::External(e)) => e.name,
        _ => spec.to_string(),
    }
}

/// Display names of a match's bots, made unique: the second `x` is `x-2`, the third `x-3`.
pub fn display_names(specs: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(specs.len());
    for spec in specs {
        let base = display_name(spec);
        let mut name = base.clone();
        let mut k = 1;
        while out.contains(&name) {
            k += 1;
            name = crate::name::numbered(&base, k);
        }
        out.push(name);
    }
    out
}

/// The longest manifest read.
pub const MAX_MANIFEST_BYTES: u64 = 1 << 20;

/// Reads a manifest the way a file of a stranger's folder is read: not through a link (the
/// manifest itself must be the file), never blocking on a fifo or a device (`O_NONBLOCK`, and only
/// a regular file is read), at most [`MAX_MANIFEST_BYTES`].
fn read_manifest_file(file: &Path) -> std::io::Result<String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(file)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                std::io::Error::other("a symbolic link: name the manifest file itself")
            } else {
                e
            }
        })?;
    let md = f.metadata()?;
    if !md.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    if md.len() > MAX_MANIFEST_BYTES {
        return Err(std::io::Error::other(format!(
            "{} bytes: a manifest is at most {MAX_MANIFEST_BYTES}",
            md.len()
        )));
    }
    let mut text = String::new();
    f.take(MAX_MANIFEST_BYTES).read_to_string(&mut text)?;
    Ok(text)
}

fn load_manifest(file: &Path) -> Result<ExternalSpec, SpecError> {
    let path = file.display().to_string();
    let text = read_manifest_file(file).map_err(|source| SpecError::Read {
        path: path.clone(),
        source,
    })?;
    let m: ManifestFile = toml::from_str(&text).map_err(|source| SpecError::Toml {
        path: path.clone(),
        source,
    })?;
    let bad = |why: &str| SpecError::Manifest {
        path: path.clone(),
        why: why.into(),
    };
    if m.command.is_empty() {
        return Err(bad(
            "command: must name a program, e.g. [\"python3\", \"bot.py\"]",
        ));
    }
    if let Some(why) = crate::name::problem(&m.name) {
        return Err(bad(&format!("name: {why}")));
    }
    if m.limits.decision_ms == Some(0) {
        return Err(bad("limits.decision_ms: must be at least 1"));
    }
    let base = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let base = base.canonicalize().map_err(|source| SpecError::Read {
        path: base.display().to_string(),
        source,
    })?;
    let dir = match &m.workdir {
        Some(w) => base.join(w),
        None => base.clone(),
    };
    let mut command = m.command;
    if command[0].contains('/') && !Path::new(&command[0]).is_absolute() {
        command[0] = dir.join(&command[0]).display().to_string();
    }
    let rel = m.build_dir.unwrap_or_else(|| PathBuf::from("build"));
    if let Err(why) = beneath(&base, &rel, m.build.is_some()) {
        return Err(bad(&format!("build_dir {:?}: {why}", rel.display())));
    }
    let build_dir = base.join(rel);
    Ok(ExternalSpec {
        name: m.name,
        command,
        dir,
        build: m.build,
        build_dir,
        read: m.read.into_iter().map(|p| base.join(p)).collect(),
        limits: m.limits,
        manifest: Some(file.to_path_buf()),
    })
}

/// Whether `rel` names a folder beneath `base` that a build may write: a relative path of plain
/// names (no `..`, not the folder itself), and, when `existing` is set, no symlink among the
/// components that exist now (the build checks again, race-free, when it runs).
fn beneath(base: &Path, rel: &Path, existing: bool) -> Result<(), String> {
    use std::path::Component;
    let mut names = 0;
    for c in rel.components() {
        match c {
            Component::Normal(_) => names += 1,
            Component::CurDir => {}
            _ => {
                return Err(
                    "must be a folder beneath the bot's folder: a relative path without `..`"
                        .into(),
                )
            }
        }
    }
    if names == 0 {
        return Err("must be a folder beneath the bot's folder, not the folder itself".into());
    }
    if existing {
        let mut p = base.to_path_buf();
        for c in rel.components() {
            p.push(c);
            match std::fs::symlink_metadata(&p) {
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(format!(
                        "{} is a symbolic link: a build writes only into a real folder beneath \
                         its bot's folder",
                        p.strip_prefix(base).unwrap_or(&p).display()
                    ))
                }
                Ok(m) if !m.is_dir() => {
                    return Err(format!(
                        "{} is not a folder",
                        p.strip_prefix(base).unwrap_or(&p).display()
                    ))
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
    }
    Ok(())
}

impl ExternalSpec {
    /// The manifest's folder (`None` for `exec:` bots).
    pub fn base(&self) -> Option<PathBuf> {
        self.manifest
            .as_ref()
            .and_then(|m| m.parent().map(Path::to_path_buf))
            .map(|p| {
                if p.as_os_str().is_empty() {
                    PathBuf::from(".")
                } else {
                    p
                }
            })
            .and_then(|p| p.canonicalize().ok())
    }

    /// What the manifest makes readable outside its own folder (`workdir`, `read`,
    /// `build_dir`), resolved; empty for `exec:` bots, which name their files themselves.
    pub fn reads_outside(&self) -> Vec<PathBuf> {
        let Some(base) = self.base() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        // A program named by a path is read too (and the installation it belongs to): one in
        // another bot's folder would open that folder. A bare name is looked up on PATH.
        let program = self
            .command
            .first()
            .filter(|c| c.contains('/'))
            .map(PathBuf::from);
        for p in std::iter::once(&self.dir)
            .chain(&self.read)
            .chain(std::iter::once(&self.build_dir))
            .chain(program.as_ref())
        {
            // Inside the folder by its text: the jail opens it beneath the folder with no link
            // (a link there is refused when the bot starts), so it reads nothing outside.
            if lexical(p).starts_with(&base) {
                continue;
            }
            let c = normalize(p);
            if !c.starts_with(&base) {
                out.push(c);
            }
        }
        out
    }
}

/// How build steps run (operator flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// In the jail (off only with `--no-sandbox`).
    pub sandbox: bool,
    /// With the host's network (`--build-network`; off by default).
    pub network: bool,
}

impl Default for BuildOptions {
    fn default() -> BuildOptions {
        BuildOptions {
            sandbox: true,
            network: false,
        }
    }
}

/// `p` made absolute and free of `.`/`..`, without touching the file system (a path that does
/// not exist yet still has a place).
fn normalize(p: &Path) -> PathBuf {
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    };
    if let Ok(c) = abs.canonicalize() {
        return c;
    }
    lexical(&abs)
}

/// `p` made absolute with `.` and `..` removed by the text alone (no look-up, no link followed).
fn lexical(p: &Path) -> PathBuf {
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    };
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A manifest is read as a stranger's file: a link, a fifo (which would block for ever) or an
    /// oversized file is refused, promptly and by name.
    #[test]
    fn a_manifest_that_is_a_link_a_fifo_or_huge_is_refused() {
        let d = std::env::temp_dir().join(format!("pitboss-spec-manifest-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("real.toml"), "name = \"x\"\ncommand = [\"x\"]\n").unwrap();
        std::os::unix::fs::symlink(d.join("real.toml"), d.join("link.toml")).unwrap();
        let fifo = std::ffi::CString::new(d.join("fifo.toml").to_str().unwrap()).unwrap();
        // SAFETY: mkfifo on a C string.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        std::fs::File::create(d.join("huge.toml"))
            .unwrap()
            .set_len(MAX_MANIFEST_BYTES + 1)
            .unwrap();
        assert!(load_manifest(&d.join("real.toml")).is_ok());
        for (f, why) in [
            ("link.toml", "symbolic link"),
            ("fifo.toml", "not a regular file"),
            ("huge.toml", "at most"),
        ] {
            let e = load_manifest(&d.join(f)).unwrap_err().to_string();
            assert!(e.contains(f) && e.contains(why), "{f}: {e}");
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn parses_the_three_kinds() {
        let builtin = |s: &str| s == "random";
        assert_eq!(
            BotSpec::parse("random", &builtin).unwrap(),
            BotSpec::Builtin("random".into())
        );
        let BotSpec::External(e) = BotSpec::parse("exec:python3 -u bot.py", &builtin).unwrap()
        else {
            panic!()
        };
        assert_eq!(e.command, ["python3", "-u", "bot.py"]);
        assert_eq!(e.name, "bot", "named as in the tables: its script");
        assert!(matches!(
            BotSpec::parse("nosuch", &builtin),
            Err(SpecError::Unknown(_))
        ));
        assert!(matches!(
            BotSpec::parse("exec: ", &builtin),
            Err(SpecError::EmptyExec(_))
        ));
        let d = std::env::temp_dir().join(format!("pitboss-spec-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join("bot.toml"),
            "name = \"x\"\ncommand = [\"./run\", \"a\"]\n[limits]\ndecision_ms = 50\n",
        )
        .unwrap();
        let BotSpec::External(e) = BotSpec::parse(d.to_str().unwrap(), &builtin).unwrap() else {
            panic!()
        };
        assert_eq!(e.name, "x");
        assert!(e.command[0].ends_with("/run"));
        assert_eq!(e.limits.decision_ms, Some(50));
        assert!(e.reads_outside().is_empty(), "{:?}", e.reads_outside());
        std::fs::write(
            d.join("away.toml"),
            "name = \"x\"\ncommand = [\"../elsewhere/bin/run\"]\n",
        )
        .unwrap();
        let BotSpec::External(e) =
            BotSpec::parse(d.join("away.toml").to_str().unwrap(), &builtin).unwrap()
        else {
            panic!()
        };
        assert_eq!(e.reads_outside().len(), 1, "{:?}", e.reads_outside());
        for name in [
            "\\u001B[2Jx",
            "a\\nb",
            "=cmd|' /C calc'!A0",
            "-x",
            "",
            &"n".repeat(300),
        ] {
            std::fs::write(
                d.join("named.toml"),
                format!("name = \"{name}\"\ncommand = [\"./run\"]\n"),
            )
            .unwrap();
            let err = BotSpec::parse(d.join("named.toml").to_str().unwrap(), &builtin)
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("named.toml") && err.contains("name:"),
                "{name}: {err}"
            );
            assert!(!err.contains('\u{1b}') && !err.contains('\n'), "{err}");
        }
        std::fs::write(d.join("bad.toml"), "name = \"x\"\ncmd = []\n").unwrap();
        let err = BotSpec::parse(d.join("bad.toml").to_str().unwrap(), &builtin).unwrap_err();
        assert!(err.to_string().contains("cmd"), "{err}");
        assert_eq!(display_name(d.to_str().unwrap()), "x");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn build_dir_stays_beneath_the_manifest_folder() {
        let d = std::env::temp_dir().join(format!("pitboss-spec-bd-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("real")).unwrap();
        std::os::unix::fs::symlink("/tmp", d.join("x")).unwrap();
        let parse = |build_dir: &str, build: bool| {
            let b = if build { "build = [\"true\"]\n" } else { "" };
            std::fs::write(
                d.join("bot.toml"),
                format!("name = \"x\"\ncommand = [\"run\"]\n{b}build_dir = {build_dir:?}\n"),
            )
            .unwrap();
            BotSpec::parse(d.to_str().unwrap(), &|_| false).map(|_| ())
        };
        for bad in ["../x", "/tmp/x", ".", "a/../../b"] {
            let err = parse(bad, false).unwrap_err().to_string();
            assert!(err.contains("build_dir"), "{bad}: {err}");
        }
        for bad in ["x/pwn", "x"] {
            let err = parse(bad, true).unwrap_err().to_string();
            assert!(
                err.contains("build_dir") && err.contains("symbolic link"),
                "{err}"
            );
        }
        parse("x/pwn", false).unwrap();
        parse("real/out", true).unwrap();
        parse("./target", true).unwrap();
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn display_names_are_short_and_unique() {
        let specs: Vec<String> = [
            "lowball",
            "exec:python3 -u /home/me/bots/x/bot.py --flag",
            "exec:/opt/bots/mybot --fast",
            "lowball",
            "exec:python3 other/bot.py",
            "lowball",
            "exec:python3 /x/=cmd|'\u{1b}]0;t\u{7}'!A0.py",
            "exec:/x/@evil",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            display_names(&specs),
            [
                "lowball",
                "bot",
                "mybot",
                "lowball-2",
                "bot-2",
                "lowball-3",
                "_cmd____0_t___A0",
                "_evil"
            ]
        );
        let BotSpec::External(e) = BotSpec::parse("exec:/x/=a\u{1b}b", &|_| false).unwrap() else {
            panic!()
        };
        assert_eq!(e.name, "_a_b");
    }
}
