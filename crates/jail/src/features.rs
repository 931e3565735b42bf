//! What the jail enforces on this machine, found out once per referee process by jailing
//! `/bin/true` for real: a layer is reported as in force only when a process actually ran inside
//! it. `pitboss check` prints [`Features::describe`]; a match warns when the jail is weaker than
//! the full one.

use std::sync::OnceLock;

use crate::cgroup::{self, Flavor};
use crate::{Jail, JailSpec, Limits};

/// How bots are confined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The full jail, set up as root: namespaces, mount view, a uid of its own, seccomp.
    Root,
    /// The full jail inside a user namespace (a referee without root): the bot is the
    /// referee's own unprivileged uid, without capabilities.
    UserNs,
    /// Neither root nor user namespaces: Landlock, a network namespace if permitted, rlimits.
    Fallback,
}

/// The jail's layers in force.
#[derive(Clone, Debug)]
pub struct Features {
    pub mode: Mode,
    /// Tree-wide limits, if a cgroup interface is usable.
    pub cgroup: Option<Flavor>,
    /// Why a stronger mode was not available.
    pub notes: Vec<String>,
}

impl Features {
    /// Whether every layer of the jail is in force (namespaces, view, uid, seccomp, cgroups).
    pub fn complete(&self) -> bool {
        self.mode != Mode::Fallback && self.cgroup.is_some()
    }

    /// One paragraph for `pitboss check`, logs and warnings.
    pub fn describe(&self) -> String {
        let d = Limits::default();
        let filter = "seccomp (no sockets, ptrace, mount, bpf, keyctl, namespaces, io_uring, \
                      locks or leases on files, inotify/fanotify watches, x32 system calls, ...)";
        let mut s = match self.mode {
            Mode::Root => format!(
                "jail: own PID, mount, network, UTS and IPC namespaces; a read-only view of the \
                 system and the bot's own files (resolved beneath its folder, no link followed) \
                 with a private /tmp; a uid of its own leased for the jail's life (not root), no \
                 capabilities, no_new_privs; {filter}; killed with the referee"
            ),
            Mode::UserNs => format!(
                "jail (user namespace, the referee is not root): own PID, mount, network, UTS and \
                 IPC namespaces; a read-only view of the system and the bot's own files \
                 (resolved beneath its folder, no link followed) with a private /tmp; the \
                 referee's unprivileged uid without capabilities, no_new_privs; {filter}; killed \
                 with the referee"
            ),
            Mode::Fallback => "jail: REDUCED — no namespaces could be created (neither root nor \
                 user namespaces): Landlock file-system rules where the kernel has them, a \
                 network namespace where permitted, per-process rlimits"
                .to_string(),
        };
        match (&self.cgroup, self.mode) {
            (Some(f), _) => s.push_str(&format!(
                "; limits on the whole process tree: {} (memory {} MiB unless the manifest sets \
                 memory_mb, {} processes and threads, one core)",
                f.describe(),
                d.memory_mb,
                d.pids
            )),
            (None, Mode::Fallback) => s.push_str(&format!(
                "; NO cgroup limits: address space {} MiB per process (RLIMIT_AS; the \
                 manifest's memory_mb if set), processes NOT limited (no user namespace to \
                 count them in)",
                d.memory_mb
            )),
            (None, _) => s.push_str(&format!(
                "; no cgroup (none is delegated to this user), so rlimits instead: address \
                 space {} MiB per process (RLIMIT_AS; the manifest's memory_mb if set), {} \
                 processes and threads for the whole tree (RLIMIT_NPROC, counted in the jail's \
                 own user namespace), no CPU share limit",
                d.memory_mb, d.pids
            )),
        }
        for n in &self.notes {
            s.push_str("; note: ");
            s.push_str(n);
        }
        s
    }
}

/// The features, probed once.
pub fn features() -> &'static Features {
    static F: OnceLock<Features> = OnceLock::new();
    F.get_or_init(probe)
}

fn probe() -> Features {
    let mut notes = Vec::new();
    let cg = cgroup::flavor();
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let candidates: &[Mode] = if root {
        &[Mode::Root, Mode::UserNs]
    } else {
        &[Mode::UserNs]
    };
    for &mode in candidates {
        match try_mode(mode, cg.is_some() && mode == Mode::Root) {
            Ok(()) => {
                return Features {
                    mode,
                    cgroup: if mode == Mode::Root { cg } else { None },
                    notes,
                }
            }
            Err(e) => notes.push(format!("{mode:?} jail unavailable: {e}")),
        }
    }
    Features {
        mode: Mode::Fallback,
        cgroup: None,
        notes,
    }
}

/// Runs `/bin/true` in a jail of `mode`.
fn try_mode(mode: Mode, with_cgroup: bool) -> Result<(), String> {
    let spec = JailSpec {
        workdir: "/".into(),
        base: None,
        read: Vec::new(),
        write: Vec::new(),
        network: false,
        limits: Limits::default(),
    };
    let cg = if with_cgroup {
        Some(cgroup::Cgroup::create(&spec.limits).map_err(|e| e.to_string())?)
    } else {
        None
    };
    let procs = cg.as_ref().map(|c| c.procs_files()).unwrap_or_default();
    let uid_lease = if mode == Mode::Root {
        Some(crate::uids::lease().map_err(|e| e.to_string())?)
    } else {
        None
    };
    let uid = uid_lease.as_ref().map(crate::uids::UidLease::uid);
    let plan = crate::child::ChildPlan::new(&spec, mode, uid, procs).map_err(|e| e.to_string())?;
    let mut jail = Jail {
        child: Some(plan),
        fallback: None,
        cgroup: cg,
        uid,
        uid_lease,
        env_home: "/tmp",
    };
    let mut cmd = std::process::Command::new("/bin/true");
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    jail.install(&mut cmd);
    let out = cmd.output().map_err(|e| e.to_string())?;
    jail.cleanup();
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}
