//! Limits on a jail's whole process tree: memory, number of processes, CPU share, and a freezer.
//! A bot that forks, or calls `setsid`, stays in its cgroup, so the limits and the freezer hold
//! for every descendant (per-process rlimits alone let a fork bomb or many 1 GB children pass).
//!
//! cgroup v2 (`/sys/fs/cgroup` unified) is used where the machine has it; otherwise the v1
//! controllers that are mounted (`/sys/fs/cgroup/{pids,memory,cpu,freezer}`). Each jail gets
//! `pitboss/<referee pid>-<n>` under every controller; the jail's shim joins it before anything
//! else runs, and the referee removes it after reaping. Folders of referees that died are removed
//! by the next referee ([`sweep`]).

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use crate::{JailError, Limits};

/// Which cgroup interface, with which controllers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// The unified hierarchy; the controllers enabled for our subtree.
    V2(Vec<String>),
    /// v1 controllers mounted under `/sys/fs/cgroup/<name>`.
    V1(Vec<String>),
}

impl Flavor {
    /// `cgroup v2 (pids, memory, cpu)` or `cgroup v1 (pids, memory)`.
    pub fn describe(&self) -> String {
        match self {
            Flavor::V2(c) => format!("cgroup v2 ({})", c.join(", ")),
            Flavor::V1(c) => format!("cgroup v1 ({})", c.join(", ")),
        }
    }

    fn has(&self, c: &str) -> bool {
        match self {
            Flavor::V2(v) | Flavor::V1(v) => v.iter().any(|x| x == c),
        }
    }
}

const ROOT: &str = "/sys/fs/cgroup";

/// The parent folders of our cgroups, created once; `None` where none can be made.
fn parents() -> &'static Option<(Flavor, Vec<PathBuf>)> {
    static P: OnceLock<Option<(Flavor, Vec<PathBuf>)>> = OnceLock::new();
    P.get_or_init(|| {
        let r = setup();
        if let Some((_, dirs)) = &r {
            for d in dirs {
                sweep(d);
            }
        }
        r
    })
}

fn setup() -> Option<(Flavor, Vec<PathBuf>)> {
    let root = Path::new(ROOT);
    if let Ok(ctl) = std::fs::read_to_string(root.join("cgroup.controllers")) {
        let want: Vec<String> = ["pids", "memory", "cpu"]
            .iter()
            .filter(|c| ctl.split_whitespace().any(|x| x == **c))
            .map(|c| c.to_string())
            .collect();
        if want.is_empty() {
            return None;
        }
        let enable: String = want.iter().map(|c| format!("+{c} ")).collect();
        let _ = std::fs::write(root.join("cgroup.subtree_control"), enable.trim());
        let ours = root.join("pitboss");
        std::fs::create_dir_all(&ours).ok()?;
        std::fs::write(ours.join("cgroup.subtree_control"), enable.trim()).ok()?;
        return Some((Flavor::V2(want), vec![ours]));
    }
    let mut ctl = Vec::new();
    let mut dirs = Vec::new();
    for c in ["pids", "memory", "cpu", "freezer"] {
        let base = root.join(c);
        if !base.join("cgroup.procs").exists() {
            continue;
        }
        let ours = base.join("pitboss");
        if std::fs::create_dir_all(&ours).is_ok() {
            ctl.push(c.to_string());
            dirs.push(ours);
        }
    }
    (!ctl.is_empty()).then_some((Flavor::V1(ctl), dirs))
}

/// Removes leftover cgroups of referees that are gone.
fn sweep(parent: &Path) {
    let Ok(rd) = std::fs::read_dir(parent) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.split('-').next().and_then(|p| p.parse::<i32>().ok()) else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            kill_procs(&e.path());
            let _ = std::fs::remove_dir(e.path());
        }
    }
}

fn kill_procs(dir: &Path) {
    if let Ok(text) = std::fs::read_to_string(dir.join("cgroup.procs")) {
        for p in text
            .split_whitespace()
            .filter_map(|p| p.parse::<i32>().ok())
        {
            // SAFETY: SIGKILL to a process of a jail cgroup.
            unsafe {
                libc::kill(p, libc::SIGKILL);
            }
        }
    }
}

/// The cgroup interface in use, if any.
pub fn flavor() -> Option<Flavor> {
    parents().as_ref().map(|(f, _)| f.clone())
}

/// One jail's cgroup (a folder per v1 controller, or one v2 folder).
pub struct Cgroup {
    flavor: Flavor,
    dirs: Vec<PathBuf>,
}

impl Cgroup {
    /// Creates the cgroup with `limits`.
    ///
    /// # Errors
    /// [`JailError::Cgroup`] when a folder or limit cannot be written.
    pub fn create(limits: &Limits) -> Result<Cgroup, JailError> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let Some((flavor, parents)) = parents().as_ref() else {
            return Err(JailError::Unavailable("no cgroup controllers".into()));
        };
        let name = format!(
            "{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let mut cg = Cgroup {
            flavor: flavor.clone(),
            dirs: Vec::new(),
        };
        for p in parents {
            let d = p.join(&name);
            std::fs::create_dir(&d).map_err(|source| JailError::Cgroup {
                path: d.display().to_string(),
                source,
            })?;
            cg.dirs.push(d);
        }
        let mem = limits.memory_mb.saturating_mul(1 << 20).to_string();
        let quota = u64::from(limits.cpu_percent.max(1)) * 1000;
        let w = |d: &Path, file: &str, v: &str| -> Result<(), JailError> {
            std::fs::write(d.join(file), v).map_err(|source| JailError::Cgroup {
                path: d.join(file).display().to_string(),
                source,
            })
        };
        for d in &cg.dirs {
            match &cg.flavor {
                Flavor::V2(_) => {
                    if cg.flavor.has("pids") {
                        w(d, "pids.max", &limits.pids.to_string())?;
                    }
                    if cg.flavor.has("memory") {
                        w(d, "memory.max", &mem)?;
                        if d.join("memory.swap.max").exists() {
                            w(d, "memory.swap.max", "0")?;
                        }
                    }
                    if cg.flavor.has("cpu") {
                        w(d, "cpu.max", &format!("{quota} 100000"))?;
                    }
                }
                Flavor::V1(_) => {
                    match d.parent().and_then(Path::parent).and_then(Path::file_name) {
                        Some(c) if c == "pids" => w(d, "pids.max", &limits.pids.to_string())?,
                        Some(c) if c == "memory" => {
                            w(d, "memory.limit_in_bytes", &mem)?;
                            if d.join("memory.memsw.limit_in_bytes").exists() {
                                let _ = w(d, "memory.memsw.limit_in_bytes", &mem);
                            }
                        }
                        Some(c) if c == "cpu" => {
                            w(d, "cpu.cfs_period_us", "100000")?;
                            w(d, "cpu.cfs_quota_us", &quota.to_string())?;
                        }
                        _ => {}
                    }
                }
            }
        }
        Ok(cg)
    }

    /// The `cgroup.procs` files the jail's first process writes itself into.
    pub(crate) fn procs_files(&self) -> Vec<CString> {
        self.dirs
            .iter()
            .filter_map(|d| crate::cstring(&d.join("cgroup.procs")).ok())
            .collect()
    }

    /// Freezes (`true`) or thaws the tree; `false` if there is no freezer.
    pub fn freeze(&self, on: bool) -> bool {
        for d in &self.dirs {
            let (file, v) = match &self.flavor {
                Flavor::V2(_) => ("cgroup.freeze", if on { "1" } else { "0" }),
                Flavor::V1(_)
                    if d.parent().and_then(Path::parent).and_then(Path::file_name)
                        == Some("freezer".as_ref()) =>
                {
                    ("freezer.state", if on { "FROZEN" } else { "THAWED" })
                }
                Flavor::V1(_) => continue,
            };
            return std::fs::write(d.join(file), v).is_ok();
        }
        false
    }

    /// SIGKILL to every process in the cgroup (thawing it first).
    pub fn kill_all(&self) {
        if let Some(d) = self.dirs.first() {
            if d.join("cgroup.kill").exists() {
                let _ = std::fs::write(d.join("cgroup.kill"), "1");
            }
            kill_procs(d);
        }
        self.freeze(false);
    }

    /// Removes the folders (retrying briefly while the kernel finishes tearing processes down).
    pub fn remove(&mut self) {
        for d in self.dirs.drain(..) {
            for _ in 0..50 {
                if std::fs::remove_dir(&d).is_ok() || !d.exists() {
                    break;
                }
                kill_procs(&d);
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        }
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        self.remove();
    }
}
