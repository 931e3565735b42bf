//! From a bot spec to what starts its processes: the jail's view (what the bot may read), its
//! limits (the manifest's, capped by the operator's maxima), its environment (an allow-list) and
//! the command with its program resolved to an absolute path — by looking it up, never by
//! running it (a probe would be code of the bot's choosing running outside the jail).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pitboss_jail::{features, install_root, resolve_program, JailSpec, Mode};

use super::session::{BotLog, Launch};
use super::spec::{self, ExternalSpec, Limits, SpecError};

/// The operator's maxima: whatever a manifest asks for, no more than this.
pub const MAX_DECISION_MS: u64 = 10_000;
pub const MAX_BANK_MS: u64 = 20_000;
pub const MAX_STARTUP_MS: u64 = 60_000;
pub const MAX_RESTARTS: u32 = 100;
pub const MAX_MEMORY_MB: u64 = 16_384;
pub const MAX_CPU_SECONDS: u64 = 86_400;
/// Memory of a bot's process tree when its manifest says nothing.
pub const DEFAULT_MEMORY_MB: u64 = 1024;
/// Processes and threads of a bot's tree.
pub const PIDS: u64 = 64;

/// `limits` with every value capped by the operator's maxima; `capped` lists what was cut.
pub fn capped(limits: Limits, capped: &mut Vec<String>) -> Limits {
    fn cap<T: PartialOrd + Copy + std::fmt::Display>(
        name: &str,
        v: Option<T>,
        max: T,
        out: &mut Vec<String>,
    ) -> Option<T> {
        v.map(|x| {
            if x > max {
                out.push(format!(
                    "{name} {x} is above the maximum {max}: {max} applies"
                ));
                max
            } else {
                x
            }
        })
    }
    Limits {
        decision_ms: cap("decision_ms", limits.decision_ms, MAX_DECISION_MS, capped),
        bank_ms: cap("bank_ms", limits.bank_ms, MAX_BANK_MS, capped),
        memory_mb: cap("memory_mb", limits.memory_mb, MAX_MEMORY_MB, capped),
        cpu_seconds: cap("cpu_seconds", limits.cpu_seconds, MAX_CPU_SECONDS, capped),
        restarts: cap("restarts", limits.restarts, MAX_RESTARTS, capped),
        startup_ms: cap("startup_ms", limits.startup_ms, MAX_STARTUP_MS, capped),
    }
}

/// What the bot reads: its folder (manifest bots), its program and the program's installation,
/// the folders of script arguments (`exec:` bots), the manifest's `read` paths. A program inside
/// the bot's folder is in the view with the folder (its path is not followed here); `outside` is
/// what such a program leads to elsewhere, resolved by [`program_outside`].
fn reads(e: &ExternalSpec, program: &Path, inside: bool, outside: &[PathBuf]) -> Vec<PathBuf> {
    let mut read = Vec::new();
    if let Some(m) = &e.manifest {
        read.push(e.dir.clone());
        if let Some(base) = m.parent() {
            read.push(base.to_path_buf());
        }
    }
    if !inside {
        read.extend(install_root(program));
        read.push(program.to_path_buf());
    }
    read.extend(outside.iter().cloned());
    if e.manifest.is_none() {
        for a in &e.command[1..] {
            let p = e.dir.join(a);
            if p.is_file() {
                read.extend(p.parent().map(Path::to_path_buf));
            }
        }
    }
    read.extend(e.read.iter().cloned());
    read
}

/// System directories every jail already reads.
const SYSTEM: [&str; 6] = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc"];

/// Where a program inside the bot's folder leads when it is a link (a virtualenv's `python` to
/// the interpreter it was made from): resolved once, here, after the build. Nothing when it is
/// no link or leads to the system directories every jail has; else the real program and its
/// installation, which the view must add.
///
/// # Errors
/// The link's target, when it lies outside the folder and `allow` is false.
fn program_outside(program: &Path, base: &Path, allow: bool) -> Result<Vec<PathBuf>, String> {
    let Ok(real) = program.canonicalize() else {
        return Ok(Vec::new());
    };
    if real.starts_with(base) || SYSTEM.iter().any(|s| real.starts_with(s)) {
        return Ok(Vec::new());
    }
    if !allow {
        return Err(format!(
            "command: {} is a link to {}, outside the bot's folder (pass --allow-read-outside \
             to accept it)",
            program.display(),
            real.display()
        ));
    }
    let mut v = vec![real.clone()];
    v.extend(install_root(&real));
    Ok(v)
}

/// The working folder: the manifest's; for `exec:` bots the folder of the script (or program)
/// they run, which the jail binds; else the private `/tmp`.
fn workdir(e: &ExternalSpec, program: &Path) -> PathBuf {
    if e.manifest.is_some() {
        return e.dir.clone();
    }
    e.command[1..]
        .iter()
        .map(|a| e.dir.join(a))
        .find(|p| p.is_file())
        .or_else(|| e.command[0].contains('/').then(|| program.to_path_buf()))
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("/tmp"))
}

/// The environment of a jailed bot: nothing of the referee's.
fn environment(program: &Path, scratch: Option<&Path>) -> Vec<(String, String)> {
    let mut path = String::new();
    if let Some(d) = program.parent() {
        path.push_str(&d.display().to_string());
        path.push(':');
    }
    path.push_str("/usr/local/bin:/usr/bin:/bin");
    let mut env = vec![
        ("PATH".to_string(), path),
        ("LANG".to_string(), "C.UTF-8".to_string()),
    ];
    if let Some(s) = scratch {
        let s = s.display().to_string();
        for k in ["HOME", "TMPDIR", "PITBOSS_SCRATCH"] {
            env.push((k.to_string(), s.clone()));
        }
    }
    env
}

/// Everything needed to start the processes of one external bot.
pub struct Prepared {
    pub launch: Launch,
    /// The bot's own files: its folder (manifest bots), the folders of the scripts it runs and
    /// its program when it is not a system one (`exec:` bots). Their cached pages are forgotten
    /// between two phases of a duplicate match ([`forget`]).
    pub own: Vec<PathBuf>,
    /// A scratch folder on the host (only in the reduced jail; the full jail's `/tmp` is private).
    pub scratch: Option<PathBuf>,
    pub warnings: Vec<String>,
    pub limits: Limits,
}

/// Prepares bot `label` of spec `e`.
///
/// # Errors
/// [`SpecError`] when the program cannot be found or the output folder would be readable.
pub fn prepare(
    e: &ExternalSpec,
    label: &str,
    over: Limits,
    sandbox: bool,
    allow_read_outside: bool,
    out: &Path,
    log: Arc<Mutex<BotLog>>,
) -> Result<Prepared, SpecError> {
    let mut warnings = Vec::new();
    // The operator's own flags are not capped: only what a manifest asks for.
    let lim = capped(e.limits, &mut warnings).overlay(over);
    // A program that is not there is not refused here: the bot then fails to start, which the
    // match records as handshake faults and announces loudly (a tournament goes on without it).
    let program = resolve_program(&e.command[0], &e.dir).unwrap_or_else(|| {
        warnings.push(format!(
            "command: program {:?} not found (not a file in {} nor on PATH)",
            e.command[0],
            e.dir.display()
        ));
        PathBuf::from(&e.command[0])
    });
    // A program inside the bot's folder keeps its path as written (`..` removed by the text
    // alone): the view has the folder, and inside the jail a link in it leads only to what the
    // view holds. A program elsewhere (on PATH, absolute) is the operator's: its real folder.
    let base = e.base();
    let inside = base
        .as_ref()
        .is_some_and(|b| pitboss_jail::resolve::lexical(&program).starts_with(b));
    let program = if inside {
        pitboss_jail::resolve::lexical(&program)
    } else {
        match (
            program.parent().map(Path::canonicalize),
            program.file_name(),
        ) {
            (Some(Ok(dir)), Some(name)) => dir.join(name),
            _ => program,
        }
    };
    let outside = match (&base, inside) {
        (Some(b), true) => {
            program_outside(&program, b, allow_read_outside).map_err(|why| SpecError::Manifest {
                path: e
                    .manifest
                    .as_ref()
                    .map_or_else(|| label.to_string(), |m| m.display().to_string()),
                why,
            })?
        }
        _ => Vec::new(),
    };
    for o in &outside {
        if allow_read_outside && sandbox {
            warnings.push(format!(
                "its program leads to {} outside its own folder (a link): the jail binds it",
                o.display()
            ));
        }
    }
    // Registered once for every jail of this referee: the output folder is never bound.
    pitboss_jail::protect(out);
    let mut command = e.command.clone();
    command[0] = program.display().to_string();
    if e.manifest.is_none() {
        for a in command.iter_mut().skip(1) {
            let p = e.dir.join(&*a);
            if p.is_file() {
                if let Ok(c) = p.canonicalize() {
                    *a = c.display().to_string();
                }
            }
        }
    }
    // What the manifest itself names outside its folder — what `check` and `submit` refuse. A
    // bare program name looked up on PATH (`python3`) is the system's interpreter: the jail
    // binds it for every bot, it is no read of the bot's choosing, so it is not warned about.
    let declared_outside = e.reads_outside();
    let e = &ExternalSpec {
        command: command.clone(),
        ..e.clone()
    };
    let read = reads(e, &program, inside, &outside);
    // The output folder may not exist yet (it is made once every bot has passed).
    let outc = pitboss_jail::resolve::real_or_planned(out);
    if sandbox {
        for r in &read {
            // A path inside the bot's folder is taken by its text: the jail resolves it beneath
            // the folder with no link when the process starts, and refuses a link there.
            let lexical = pitboss_jail::resolve::lexical(r);
            let r = if base.as_ref().is_some_and(|b| lexical.starts_with(b)) {
                lexical
            } else {
                r.canonicalize().unwrap_or_else(|_| r.clone())
            };
            if outc.starts_with(&r) {
                return Err(SpecError::Manifest {
                    path: e
                        .manifest
                        .as_ref()
                        .map_or_else(|| label.to_string(), |m| m.display().to_string()),
                    why: format!(
                        "the output folder {} is inside {}, which the bot may read: move the \
                         bot or the output folder apart (--out)",
                        outc.display(),
                        r.display()
                    ),
                });
            }
        }
        for o in declared_outside {
            warnings.push(format!(
                "reads {} outside its own folder (allowed for a match; `pitboss check` and \
                 `submit` refuse it without --allow-read-outside)",
                o.display()
            ));
        }
    }
    let fallback = features().mode == Mode::Fallback;
    let scratch = (sandbox && fallback).then(|| {
        std::env::temp_dir().join(format!("pitboss-scratch-{}-{label}", std::process::id()))
    });
    if let Some(s) = &scratch {
        std::fs::create_dir_all(s).map_err(|source| SpecError::Read {
            path: s.display().to_string(),
            source,
        })?;
    }
    let jail = sandbox.then(|| JailSpec {
        workdir: workdir(e, &program),
        base: base.clone(),
        read: read.clone(),
        write: scratch.iter().cloned().collect(),
        network: false,
        limits: pitboss_jail::Limits {
            memory_mb: lim.memory_mb.unwrap_or(DEFAULT_MEMORY_MB),
            address_space_mb: lim.memory_mb,
            pids: PIDS,
            cpu_seconds: lim.cpu_seconds,
            ..pitboss_jail::Limits::default()
        },
        output: None,
    });
    let dir = match &jail {
        Some(j) => j.workdir.clone(),
        None => e.dir.clone(),
    };
    let own = match &base {
        Some(b) => vec![b.clone()],
        None => {
            let mut own: Vec<PathBuf> = command[1..]
                .iter()
                .map(Path::new)
                .filter(|p| p.is_absolute() && p.is_file())
                .filter_map(|p| p.parent().map(Path::to_path_buf))
                .collect();
            if !SYSTEM.iter().any(|s| program.starts_with(s)) {
                own.push(program.clone());
            }
            own.sort();
            own.dedup();
            own
        }
    };
    let launch = Launch {
        command,
        dir,
        jail,
        memory_mb: lim.memory_mb,
        cpu_seconds: lim.cpu_seconds,
        env: environment(&program, scratch.as_deref()),
        startup: Duration::from_millis(lim.startup_ms.unwrap_or(spec::DEFAULT_STARTUP_MS)),
        freeze_idle: false,
        transcript: None,
        transcript_cap: None,
        log,
        ledger: None,
    };
    Ok(Prepared {
        launch,
        own,
        scratch,
        warnings,
        limits: lim,
    })
}

/// Forgets what a bot's processes left in the kernel's caches, when none of them is alive: the
/// cached pages of its own files ([`Prepared::own`]), and — with a root referee — the machine's
/// page, dentry and inode caches ([`pitboss_jail::pagecache::drop_machine_caches`]), so that a
/// process of the next phase finds every page and every name cold, whatever the last one did
/// (the caches as a channel between the seat rotations of a deal: protocol.md §9). Returns the
/// files dropped and what could not be (folders a non-root referee cannot list).
pub fn forget(own: &[PathBuf]) -> pitboss_jail::pagecache::Forgotten {
    let mut out = pitboss_jail::pagecache::Forgotten::default();
    for p in own {
        if p.is_dir() {
            let f = pitboss_jail::pagecache::forget(p);
            out.files += f.files;
            out.unreadable.extend(f.unreadable);
        } else if let Ok(f) = std::fs::File::open(p) {
            use std::os::fd::AsRawFd;
            // SAFETY: posix_fadvise on an open descriptor.
            unsafe {
                libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED);
            }
            out.files += 1;
        }
    }
    if let Err(e) = pitboss_jail::pagecache::drop_machine_caches() {
        tracing::warn!("dropping the machine's caches between two phases: {e}");
    }
    out
}
