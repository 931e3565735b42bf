//! Paths resolved once, by the referee, where they are used.
//!
//! A path the jail binds is opened here, in the referee, as an `O_PATH` descriptor, and what it
//! is (device and inode) is recorded with its real path. A path inside the bot's own folder (the
//! folder itself, its manifest's `read` paths, its working folder, a build's output folder) is
//! opened beneath that folder with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`: a symbolic
//! link anywhere on the way (one the build made, one the folder ships) or a `..` that would leave
//! the folder is refused with an error naming the path, never followed. Paths outside the folder
//! are the operator's (the program's installation, a `read` path the operator allowed): resolved
//! to their real path, opened without following a final link, and checked again through the
//! descriptor. The jail's init cannot bind a descriptor opened before its mount namespace existed
//! (the kernel refuses a mount of another namespace as a bind source), so it opens the real path
//! again with `RESOLVE_NO_SYMLINKS` and binds it only if it is the same object
//! (`mounts::bind_checked`): nothing can change between the check and the bind.
//!
//! Whatever the kind, a resolved path is refused when it is the whole file system, lies in
//! `/proc`, `/sys` or `/dev`, or reaches a **protected** folder (inside one, or holding one):
//! output folders, plans, registries — everything that holds a match's secret salt or results.
//! The commands register those with [`protect`] before any jail is prepared.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Component, Path, PathBuf};
use std::sync::RwLock;

use crate::{cstring, JailError};

/// Folders no jail may ever bind, for this referee process.
static PROTECTED: RwLock<Vec<PathBuf>> = RwLock::new(Vec::new());

/// Registers `dir` (an output folder, a registry, a plan's folder) as never reachable from a
/// jail: a path that resolves into it, or a folder that holds it, is refused. The folder need not
/// exist yet; it is recorded as its real path where it does, and as given (made absolute) too.
pub fn protect(dir: &Path) {
    let abs = absolute(dir);
    let mut v = PROTECTED.write().unwrap_or_else(|e| e.into_inner());
    // Its real path even when it is not made yet (a link on the way to it is followed).
    for p in [Some(real_or_planned(&abs)), Some(lexical(&abs))]
        .into_iter()
        .flatten()
    {
        if !v.contains(&p) {
            v.push(p);
        }
    }
}

/// The protected folders registered so far.
pub fn protected() -> Vec<PathBuf> {
    PROTECTED.read().unwrap_or_else(|e| e.into_inner()).clone()
}

fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    }
}

/// `p` made absolute with `.` and `..` removed by the text alone (no look-up).
pub fn lexical(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in absolute(p).components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// `p`'s real path when it exists; else that of its deepest existing ancestor joined with the rest
/// (taken by its text). A folder about to be made (an output folder) is compared with real paths
/// by this, before it exists: its relative or linked spelling must not hide where it will be.
pub fn real_or_planned(p: &Path) -> PathBuf {
    let abs = lexical(p);
    for a in abs.ancestors() {
        if let Ok(real) = a.canonicalize() {
            return match abs.strip_prefix(a) {
                Ok(rest) if !rest.as_os_str().is_empty() => real.join(rest),
                _ => real,
            };
        }
    }
    abs
}

/// One path, resolved: its descriptor and the real path it is bound at in the view.
#[derive(Debug)]
pub(crate) struct Resolved {
    pub(crate) fd: OwnedFd,
    pub(crate) path: PathBuf,
    pub(crate) is_dir: bool,
}

impl Resolved {
    /// Device and inode: what the jail's init checks before it binds the path.
    pub(crate) fn identity(&self) -> (u64, u64) {
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: fstat into a zeroed struct (an O_PATH descriptor may be fstat'ed).
        unsafe { libc::fstat(self.fd.as_raw_fd(), &mut st) };
        (st.st_dev, st.st_ino)
    }
}

/// The bot's folder, opened once.
#[derive(Debug)]
pub(crate) struct Base {
    fd: OwnedFd,
    path: PathBuf,
}

impl Base {
    /// Opens the bot's folder (its real path: where it lies is the operator's business).
    pub(crate) fn open(dir: &Path) -> Result<Base, JailError> {
        let path = dir.canonicalize().map_err(|source| JailError::Path {
            path: dir.display().to_string(),
            source,
        })?;
        let fd = open_path(&path, libc::O_DIRECTORY)?;
        Ok(Base { fd, path })
    }

    /// Whether `p` names something inside the folder (by its text: `..` removed, no look-up).
    pub(crate) fn contains(&self, p: &Path) -> bool {
        lexical(p).starts_with(&self.path)
    }

    /// Opens `p` (inside the folder by its text) beneath the folder, following no link.
    fn open_beneath(&self, p: &Path) -> io::Result<Resolved> {
        let rel = lexical(p)
            .strip_prefix(&self.path)
            .map(Path::to_path_buf)
            .unwrap_or_default();
        if rel.as_os_str().is_empty() {
            let fd = self.fd.try_clone()?;
            return Ok(Resolved {
                fd,
                path: self.path.clone(),
                is_dir: true,
            });
        }
        let c = cstring(&rel).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
        let fd = openat2_beneath(&self.fd, &c)?;
        let is_dir = fstat_is_dir(&fd)?;
        Ok(Resolved {
            fd,
            path: self.path.join(rel),
            is_dir,
        })
    }
}

/// `open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC | extra)`.
fn open_path(path: &Path, extra: libc::c_int) -> Result<OwnedFd, JailError> {
    let c = cstring(path)?;
    // SAFETY: open on a C string; the descriptor is owned at once.
    let fd = unsafe {
        libc::open(
            c.as_ptr(),
            libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC | extra,
        )
    };
    if fd < 0 {
        return Err(JailError::Path {
            path: path.display().to_string(),
            source: io::Error::last_os_error(),
        });
    }
    // SAFETY: a fresh descriptor nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// `openat2(dir, rel, O_PATH, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)`;
/// where the kernel has no `openat2` (before 5.6), the same walk one component at a time with
/// `O_NOFOLLOW` (no `..`, no link at any step).
fn openat2_beneath(dir: &OwnedFd, rel: &std::ffi::CStr) -> io::Result<OwnedFd> {
    let fd = crate::sys::openat2(
        dir.as_raw_fd(),
        rel,
        libc::O_PATH,
        libc::RESOLVE_BENEATH | libc::RESOLVE_NO_SYMLINKS | libc::RESOLVE_NO_MAGICLINKS,
    );
    if fd >= 0 {
        // SAFETY: a fresh descriptor nobody else owns.
        return Ok(unsafe { OwnedFd::from_raw_fd(fd) });
    }
    let err = io::Error::last_os_error();
    if err.raw_os_error() != Some(libc::ENOSYS) {
        return Err(err);
    }
    let mut cur = dir.try_clone()?;
    let text = {
        use std::os::unix::ffi::OsStrExt;
        Path::new(std::ffi::OsStr::from_bytes(rel.to_bytes()))
    };
    for comp in text.components() {
        let Component::Normal(name) = comp else {
            return Err(io::Error::from_raw_os_error(libc::EXDEV));
        };
        let c = {
            use std::os::unix::ffi::OsStrExt;
            CString::new(name.as_bytes())
                .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?
        };
        // SAFETY: openat on a C string relative to an open descriptor.
        let fd = unsafe {
            libc::openat(
                cur.as_raw_fd(),
                c.as_ptr(),
                libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a fresh descriptor nobody else owns.
        let next = unsafe { OwnedFd::from_raw_fd(fd) };
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: fstat into a zeroed struct.
        if unsafe { libc::fstat(next.as_raw_fd(), &mut st) } != 0 {
            return Err(io::Error::last_os_error());
        }
        if st.st_mode & libc::S_IFMT == libc::S_IFLNK {
            return Err(io::Error::from_raw_os_error(libc::ELOOP));
        }
        cur = next;
    }
    Ok(cur)
}

fn fstat_is_dir(fd: &OwnedFd) -> io::Result<bool> {
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: fstat into a zeroed struct.
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(st.st_mode & libc::S_IFMT == libc::S_IFDIR)
}

/// The real path of an open descriptor, as the kernel has it.
fn fd_real_path(fd: &OwnedFd) -> io::Result<PathBuf> {
    std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd()))
}

/// Files in which Pitboss keeps a salt: a match's `config.toml`, a tournament's `plan.json` (a
/// registry's is in its `tournament/`; its entries' copies of bots hold none).
const SECRET_FILES: [&str; 2] = ["config.toml", "plan.json"];

/// Whether `dir` directly holds a file of Pitboss's that holds (or stands beside) a salt.
fn holds_secret(dir: &Path) -> Option<PathBuf> {
    use std::io::Read;
    for name in SECRET_FILES {
        let f = dir.join(name);
        let Ok(md) = std::fs::symlink_metadata(&f) else {
            continue;
        };
        if !md.is_file() {
            continue;
        }
        let mut head = Vec::new();
        if let Ok(file) = std::fs::File::open(&f) {
            let _ = file.take(1 << 16).read_to_end(&mut head);
        }
        let text = String::from_utf8_lossy(&head);
        if text.contains("\"salt\"") || text.lines().any(|l| l.trim_start().starts_with("salt")) {
            return Some(f);
        }
    }
    None
}

/// Folders looked at below an outside path, at most, when searching it for secrets.
const SCAN_BUDGET: usize = 20_000;

/// A secret of Pitboss's in `real` or below it (a bounded walk, remembered per path): an outside
/// path the operator allowed must not hold another run's output folder or a registry.
fn secret_below(real: &Path) -> Option<PathBuf> {
    static SEEN: std::sync::Mutex<Vec<(PathBuf, Option<PathBuf>)>> =
        std::sync::Mutex::new(Vec::new());
    if let Some((_, r)) = SEEN
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|(p, _)| p == real)
    {
        return r.clone();
    }
    let mut found = None;
    let mut queue = std::collections::VecDeque::from([(real.to_path_buf(), 0u32)]);
    let mut seen = 0;
    while let Some((d, depth)) = queue.pop_front() {
        if let Some(f) = holds_secret(&d) {
            found = Some(f);
            break;
        }
        seen += 1;
        if seen > SCAN_BUDGET || depth >= 6 {
            continue;
        }
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                queue.push_back((e.path(), depth + 1));
            }
        }
    }
    SEEN.lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((real.to_path_buf(), found.clone()));
    found
}

/// Why a path may never be bound, if it may not.
fn refusal(real: &Path, staging: &Path) -> Option<String> {
    if real == Path::new("/")
        || ["/proc", "/sys", "/dev"]
            .iter()
            .any(|s| real.starts_with(s))
    {
        return Some(
            "the whole file system, /proc, /sys and /dev are never bound into a jail".into(),
        );
    }
    if real.starts_with(staging) || staging.starts_with(real) {
        return Some("a bot may not read the jail's own staging folder".into());
    }
    for p in protected() {
        if real.starts_with(&p) || p.starts_with(real) {
            return Some(format!(
                "it reaches {}, which holds results or secrets of the referee (an output \
                 folder, a plan or a registry) and is never bound into a jail",
                p.display()
            ));
        }
    }
    // Another run's folders, which this process did not register: found by what they hold.
    for a in real.ancestors() {
        if let Some(f) = holds_secret(a) {
            return Some(format!(
                "it lies in {}, a folder of Pitboss's that holds a salt ({}), never bound into a \
                 jail",
                a.display(),
                f.display()
            ));
        }
    }
    None
}

/// Resolves `p` for the view: beneath `base` when its text lies inside the bot's folder, else as
/// an outside path. `Ok(None)`: it does not exist (`optional`), and is simply not in the view.
///
/// # Errors
/// [`JailError::Path`] naming `p`: a link or `..` inside the bot's folder, a refused place, or
/// (not `optional`) a path that does not exist.
pub(crate) fn resolve(
    p: &Path,
    base: Option<&Base>,
    staging: &Path,
    optional: bool,
) -> Result<Option<Resolved>, JailError> {
    let err = |why: String| JailError::Path {
        path: p.display().to_string(),
        source: io::Error::other(why),
    };
    let r = match base.filter(|b| b.contains(p)) {
        Some(b) => match b.open_beneath(p) {
            Ok(r) => r,
            Err(e) if optional && e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                let why = match e.raw_os_error() {
                    Some(libc::ELOOP) => format!(
                        "is or passes through a symbolic link inside the bot's folder {}: \
                         paths of a bot's folder are resolved with no link ({e})",
                        b.path.display()
                    ),
                    Some(libc::EXDEV) => {
                        format!("leaves the bot's folder {} ({e})", b.path.display())
                    }
                    _ => e.to_string(),
                };
                return Err(err(why));
            }
        },
        None => {
            let real = match p.canonicalize() {
                Ok(c) => c,
                Err(e) if optional && e.kind() == io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(err(e.to_string())),
            };
            if let Some(why) = refusal(&real, staging) {
                return Err(err(why));
            }
            if real.is_dir() {
                if let Some(f) = secret_below(&real) {
                    return Err(err(format!(
                        "it holds {}, a file of Pitboss's with a salt (an output folder, a plan \
                         or a registry), which is never bound into a jail",
                        f.display()
                    )));
                }
            }
            let fd = open_path(&real, 0)?;
            let is_dir = fstat_is_dir(&fd).map_err(|e| err(e.to_string()))?;
            Resolved {
                fd,
                path: real,
                is_dir,
            }
        }
    };
    // What the descriptor really is, whatever happened to the text meanwhile.
    let real = fd_real_path(&r.fd).map_err(|e| err(e.to_string()))?;
    if real != r.path {
        return Err(err(format!(
            "changed while it was opened (it now leads to {})",
            real.display()
        )));
    }
    if let Some(why) = refusal(&real, staging) {
        return Err(err(why));
    }
    Ok(Some(r))
}
