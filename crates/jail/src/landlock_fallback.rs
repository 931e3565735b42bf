//! The jail's fallback where no namespaces can be created (a referee without root on a kernel
//! without unprivileged user namespaces). Weaker than the full jail, and reported as such:
//!
//! * **Landlock** (file system): the bot may read (and execute) system directories, its own folder,
//!   its program and the manifest's extra `read` paths, and write only its scratch directory. The
//!   match's output folder and other bots' folders are out of reach. Where the kernel's Landlock
//!   ABI has them, TCP bind/connect are denied and signals/abstract sockets are scoped to the bot.
//! * **A new network namespace** (`unshare(CLONE_NEWNET)`): no network at all, loopback included.
//!
//! Both are prepared in the parent (the Landlock ruleset is built before `fork`, so the child only
//! makes two system calls in `pre_exec`). What the kernel permits is probed once, in a throwaway
//! thread, and reported by [`support`]; a missing feature is a recorded warning, not an error.

use std::path::{Path, PathBuf};

use std::sync::OnceLock;

use landlock::{
    path_beneath_rules, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreated, RulesetCreatedAttr, RulesetStatus, Scope, ABI,
};

/// What the kernel lets us enforce.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Support {
    /// Landlock enforced fully (`Some(true)`), partially (`Some(false)`), or not at all.
    pub landlock: Option<bool>,
    /// A new network namespace per bot is permitted.
    pub netns: bool,
    /// Human-readable notes on what is missing and why.
    pub notes: Vec<String>,
}

impl Support {
    /// One line for logs and `pitboss check`.
    pub fn describe(&self, enabled: bool) -> String {
        if !enabled {
            return "sandbox: off (--no-sandbox): bots run with the referee's rights".into();
        }
        let fs = match self.landlock {
            Some(true) => "file system confined by Landlock (read: system dirs + own folder; write: own scratch dir)",
            Some(false) => "file system partially confined by Landlock (older kernel ABI)",
            None => "file system NOT confined (Landlock unavailable)",
        };
        let net = if self.netns {
            "no network (own network namespace)"
        } else {
            "network NOT isolated (no permission for a network namespace)"
        };
        let mut s = format!("sandbox: {fs}; {net}");
        for n in &self.notes {
            s.push_str("; warning: ");
            s.push_str(n);
        }
        s
    }
}

/// Probes once per process.
pub fn support() -> &'static Support {
    static S: OnceLock<Support> = OnceLock::new();
    S.get_or_init(|| {
        std::thread::spawn(probe)
            .join()
            .unwrap_or_else(|_| Support {
                landlock: None,
                netns: false,
                notes: vec!["sandbox probe panicked".into()],
            })
    })
}

/// Runs in a throwaway thread: both restrictions apply to the calling thread only.
fn probe() -> Support {
    let mut notes = Vec::new();
    // SAFETY: unshare affects only this thread, which exits right after.
    let netns = unsafe { libc::unshare(libc::CLONE_NEWNET) } == 0;
    if !netns {
        notes.push(format!(
            "unshare(CLONE_NEWNET): {}",
            std::io::Error::last_os_error()
        ));
    }
    let landlock = match Ruleset::default()
        .handle_access(AccessFs::from_all(ABI::V6))
        .and_then(|r| r.create())
        .and_then(|r| r.restrict_self())
    {
        Ok(st) => match st.ruleset {
            RulesetStatus::FullyEnforced => Some(true),
            RulesetStatus::PartiallyEnforced => Some(false),
            RulesetStatus::NotEnforced => {
                notes.push("Landlock not supported by this kernel".into());
                None
            }
        },
        Err(e) => {
            notes.push(format!("Landlock: {e}"));
            None
        }
    };
    Support {
        landlock,
        netns,
        notes,
    }
}

/// System locations every program may read.
const SYSTEM_READ: &[&str] = &[
    "/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc", "/opt", "/proc", "/sys", "/dev",
];

/// A prepared confinement for one bot process.
pub struct Plan {
    ruleset: Option<RulesetCreated>,
    netns: bool,
}

/// Errors preparing a sandbox.
#[derive(Debug, thiserror::Error)]
#[error("preparing the Landlock ruleset: {0}")]
pub struct SandboxError(#[from] landlock::RulesetError);

impl Plan {
    /// The rules for a bot that may read `read` (its folder, its program, extra paths) and
    /// write `scratch`.
    ///
    /// # Errors
    /// [`SandboxError`] when the ruleset cannot be built.
    pub fn new(read: &[PathBuf], scratch: &Path) -> Result<Plan, SandboxError> {
        let sup = support();
        let ruleset = if sup.landlock.is_some() {
            let abi = ABI::V6;
            let mut ro: Vec<PathBuf> = SYSTEM_READ.iter().map(PathBuf::from).collect();
            ro.extend(read.iter().cloned());
            ro.retain(|p| p.exists());
            let rw: Vec<PathBuf> = [scratch, Path::new("/dev/null")]
                .iter()
                .map(|p| p.to_path_buf())
                .filter(|p| p.exists())
                .collect();
            let created = Ruleset::default()
                .set_compatibility(CompatLevel::BestEffort)
                .handle_access(AccessFs::from_all(abi))?
                .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?
                .scope(Scope::AbstractUnixSocket | Scope::Signal)?
                .create()?
                .add_rules(path_beneath_rules(&ro, AccessFs::from_read(abi)))?
                .add_rules(path_beneath_rules(&rw, AccessFs::from_all(abi)))?;
            Some(created)
        } else {
            None
        };
        Ok(Plan {
            ruleset,
            netns: sup.netns,
        })
    }

    /// Splits the plan into what the child needs after `fork`, with the per-process limits.
    pub fn into_child(self, limits: crate::Limits) -> ChildSandbox {
        let mut rlimits = vec![
            (libc::RLIMIT_CORE, 0),
            (libc::RLIMIT_NOFILE, limits.open_files),
        ];
        if let Some(mb) = limits.address_space_mb.or(Some(limits.memory_mb)) {
            rlimits.push((libc::RLIMIT_AS, mb.saturating_mul(1 << 20)));
        }
        if let Some(s) = limits.cpu_seconds {
            rlimits.push((libc::RLIMIT_CPU, s));
        }
        ChildSandbox {
            ruleset: self.ruleset,
            netns: self.netns,
            rlimits,
        }
    }
}

/// The part of a [`Plan`] applied in the child between `fork` and `exec`.
pub struct ChildSandbox {
    ruleset: Option<RulesetCreated>,
    netns: bool,
    rlimits: Vec<(libc::__rlimit_resource_t, u64)>,
}

impl ChildSandbox {
    /// Applies the confinement to the calling (child) process.
    ///
    /// # Errors
    /// The OS error of the failing call.
    ///
    /// # Safety
    /// Call only in a freshly forked child (from `pre_exec`).
    pub unsafe fn apply(&mut self) -> std::io::Result<()> {
        for &(res, v) in &self.rlimits {
            let r = libc::rlimit {
                rlim_cur: v,
                rlim_max: v,
            };
            if libc::setrlimit(res, &r) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
        if self.netns && libc::unshare(libc::CLONE_NEWNET) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if let Some(r) = self.ruleset.take() {
            r.restrict_self()
                .map_err(|e| std::io::Error::other(e.to_string()))?;
        }
        Ok(())
    }
}
