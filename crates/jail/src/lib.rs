//! The jail every external bot process runs in — its build step and any probe included.
//!
//! A bot is an adversary: it may try to read hidden cards from the referee or another bot, talk
//! to another bot, tamper with results, exhaust the machine or outlive its match. The jail takes
//! away everything a JSON-lines program on stdin/stdout does not need:
//!
//! * **Its own namespaces** — PID (it sees only its own processes; when the jail's init dies the
//!   kernel kills every descendant, `setsid` or not), mount, network (no interface but a loopback
//!   nobody else is on), UTS and IPC.
//! * **A mount view of its own files**: a fresh root holding read-only binds of the system
//!   directories, its own folder, its program's installation and the manifest's extra `read`
//!   paths; a private `/tmp` (size-limited tmpfs, gone with the jail) as its scratch and home; a
//!   `/proc` of its own PID namespace; `/dev/null`, `zero`, `full`, `random`, `urandom`. The
//!   results, the registry and other bots' folders do not exist in it.
//! * **An unprivileged identity**: a uid of its own (never root; with a non-root referee, the
//!   referee's own uid inside a user namespace), no capabilities (bounding set emptied),
//!   `no_new_privs`, no set-uid effects.
//! * **A seccomp filter** ([`seccomp`]): no sockets, no ptrace, no mount, bpf, keyctl, new
//!   namespaces, io_uring, perf, module loading, ...
//! * **Limits on the whole tree** ([`cgroup`]): memory, number of processes and CPU share through
//!   cgroups (v2, or v1 controllers where that is what the machine has), plus per-process rlimits.
//! * **Death with the referee**: the jail's outer process watches the referee through a pidfd and
//!   kills the jail when it goes, however it goes (SIGKILL included).
//! * **A scrubbed environment**: the caller passes an allow-list; nothing of the referee's
//!   environment is inherited.
//!
//! What the kernel and the referee's privileges allow is found out once by jailing `/bin/true`
//! ([`features`]); [`Features::describe`] says what is in force, and a missing layer is reported,
//! never silently skipped. Without root and without user namespaces the jail falls back to
//! Landlock, a network namespace where permitted, and rlimits ([`landlock_fallback`]).
//!
//! The process tree of one jail:
//!
//! ```text
//! referee ── shim (referee's namespaces; watches the referee; mirrors the bot's exit status)
//!              └─ init (PID 1 of the new PID namespace; mounts the view; reaps)
//!                   └─ bot (unprivileged uid, seccomp, rlimits) ── its children
//! ```

pub mod cgroup;
mod child;
pub mod features;
pub mod landlock_fallback;
mod mounts;
pub mod pagecache;
pub mod resolve;
pub mod seccomp;
mod sys;
pub mod uids;

use std::ffi::CString;
use std::path::{Path, PathBuf};

pub use features::{features, Features, Mode};
pub use resolve::protect;

/// Errors preparing a jail.
#[derive(Debug, thiserror::Error)]
pub enum JailError {
    #[error("{path}: {source}")]
    Path {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}: a path with a NUL byte")]
    Nul(String),
    #[error("seccomp filter: {0}")]
    Seccomp(String),
    #[error("cgroup {path}: {source}")]
    Cgroup {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Landlock(#[from] landlock_fallback::SandboxError),
    #[error("the jail cannot run here: {0}")]
    Unavailable(String),
}

/// Resource limits of one jail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Memory of the whole process tree (cgroup), MiB.
    pub memory_mb: u64,
    /// Address space per process (RLIMIT_AS), MiB; `None`: only the tree limit.
    pub address_space_mb: Option<u64>,
    /// Processes and threads of the whole tree.
    pub pids: u64,
    /// CPU time per process (RLIMIT_CPU), seconds.
    pub cpu_seconds: Option<u64>,
    /// CPU share of the whole tree, in hundredths of a core (100: one core).
    pub cpu_percent: u32,
    /// Size of the private `/tmp`, MiB.
    pub scratch_mb: u64,
    /// Open files per process.
    pub open_files: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            memory_mb: 1024,
            address_space_mb: None,
            pids: 64,
            cpu_seconds: None,
            cpu_percent: 100,
            scratch_mb: 64,
            open_files: 256,
        }
    }
}

/// What one jailed process may see and use.
#[derive(Clone, Debug, Default)]
pub struct JailSpec {
    /// The working directory (bound read-only at its real path).
    pub workdir: PathBuf,
    /// The bot's own folder: every path of `read`, `write` and `workdir` whose text lies inside it
    /// is opened beneath it with no symbolic link and no `..` ([`resolve`]); `None` for a bot with
    /// no folder of its own (an `exec:` command).
    pub base: Option<PathBuf>,
    /// Files and folders bound read-only at their own paths.
    pub read: Vec<PathBuf>,
    /// Folders bound read-write (a build's output folder).
    pub write: Vec<PathBuf>,
    /// Keep the host's network (only for a build step the operator allowed it for).
    pub network: bool,
    pub limits: Limits,
}

/// A jail prepared for one process: everything the child needs is computed here, before `fork`.
pub struct Jail {
    child: Option<child::ChildPlan>,
    fallback: Option<landlock_fallback::ChildSandbox>,
    cgroup: Option<cgroup::Cgroup>,
    uid: Option<u32>,
    /// Held until the jail is cleaned up: no other jail on the machine gets `uid` meanwhile.
    uid_lease: Option<uids::UidLease>,
    env_home: &'static str,
}

impl Jail {
    /// Prepares the jail of one process.
    ///
    /// # Errors
    /// [`JailError`] when a path cannot be resolved or a cgroup cannot be created.
    pub fn prepare(spec: &JailSpec) -> Result<Jail, JailError> {
        let f = features();
        match f.mode {
            Mode::Root | Mode::UserNs => {
                let uid_lease = if f.mode == Mode::Root {
                    Some(uids::lease()?)
                } else {
                    None
                };
                let uid = uid_lease.as_ref().map(uids::UidLease::uid);
                let cg = if f.cgroup.is_some() {
                    Some(cgroup::Cgroup::create(&spec.limits)?)
                } else {
                    None
                };
                let procs = cg.as_ref().map(|c| c.procs_files()).unwrap_or_default();
                let plan = child::ChildPlan::new(spec, f.mode, uid, procs)?;
                Ok(Jail {
                    child: Some(plan),
                    fallback: None,
                    cgroup: cg,
                    uid,
                    uid_lease,
                    env_home: "/tmp",
                })
            }
            Mode::Fallback => {
                let scratch = spec
                    .write
                    .first()
                    .cloned()
                    .unwrap_or_else(std::env::temp_dir);
                let plan = landlock_fallback::Plan::new(&spec.read, &scratch)?;
                Ok(Jail {
                    child: None,
                    fallback: Some(plan.into_child(spec.limits)),
                    cgroup: None,
                    uid: None,
                    uid_lease: None,
                    env_home: "",
                })
            }
        }
    }

    /// Installs the jail on `cmd`: the environment is cleared (add the allow-list after this
    /// call) and the namespaces, mounts, identity, limits and filter are applied between `fork`
    /// and `exec`. Call once; the process is then the jail's shim, whose exit status mirrors the
    /// bot's.
    pub fn install(&mut self, cmd: &mut std::process::Command) {
        use std::os::unix::process::CommandExt;
        cmd.env_clear();
        if let Some(mut plan) = self.child.take() {
            if !self.env_home.is_empty() {
                cmd.env("HOME", self.env_home)
                    .env("TMPDIR", "/tmp")
                    .env("PITBOSS_SCRATCH", "/tmp");
            }
            // SAFETY: the closure runs in the forked child; it only makes system calls on data
            // prepared before the fork (see `child`).
            unsafe {
                cmd.pre_exec(move || plan.run());
            }
        } else if let Some(mut fb) = self.fallback.take() {
            // SAFETY: as above.
            unsafe {
                cmd.pre_exec(move || fb.apply());
            }
        }
    }

    /// The uid the process runs as (None: the referee's own).
    pub fn uid(&self) -> Option<u32> {
        self.uid
    }

    /// Freezes or thaws the whole tree through the cgroup freezer. `false`: no freezer here.
    pub fn freeze(&self, on: bool) -> bool {
        self.cgroup.as_ref().is_some_and(|c| c.freeze(on))
    }

    /// Kills every process of the tree through the cgroup, whatever group or session it made.
    pub fn kill_all(&self) {
        if let Some(c) = &self.cgroup {
            c.kill_all();
        }
    }

    /// Removes the cgroup (after the process has been reaped). Also done on drop.
    pub fn cleanup(&mut self) {
        if let Some(mut c) = self.cgroup.take() {
            c.remove();
        }
        self.uid_lease = None;
    }
}

impl Drop for Jail {
    fn drop(&mut self) {
        self.cleanup();
    }
}

/// Finds `prog` the way `execvp` would with the referee's `PATH` (a plain path look-up: nothing is
/// run), relative names with a slash against `dir`.
pub fn resolve_program(prog: &str, dir: &Path) -> Option<PathBuf> {
    if prog.contains('/') {
        let p = dir.join(prog);
        return p.is_file().then_some(p);
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(prog))
            .find(|p| p.is_file())
    })
}

/// The installation a program belongs to, which the jail must make readable for it to run: the
/// folder above its `bin/` (a Python or Rust toolchain prefix), or above `shims/` (pyenv-style
/// shims, which re-execute the real interpreter from that root). `None` for programs of the
/// system directories, which every jail can read.
pub fn install_root(exe: &Path) -> Option<PathBuf> {
    let mut roots = Vec::new();
    for p in [exe.to_path_buf(), exe.canonicalize().ok()?] {
        let Some(parent) = p.parent() else { continue };
        let name = parent.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name == "bin" || name == "shims" {
            if let Some(prefix) = parent.parent() {
                roots.push(prefix.to_path_buf());
            }
        }
    }
    roots.into_iter().find(|p| {
        !matches!(
            p.to_str(),
            Some("/" | "/usr" | "/usr/local" | "/bin" | "/sbin")
        )
    })
}

pub(crate) fn cstring(p: &Path) -> Result<CString, JailError> {
    use std::os::unix::ffi::OsStrExt;
    CString::new(p.as_os_str().as_bytes()).map_err(|_| JailError::Nul(p.display().to_string()))
}
