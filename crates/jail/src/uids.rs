//! Jail uids, one per live jail on the whole machine, across referees.
//!
//! A root referee runs each jail under a uid of its own so that per-uid limits (`RLIMIT_NPROC`),
//! signals and file ownership never mix two bots. Deriving the uid from the referee's pid (as
//! before) let two referees, or one past 4,096 jails, give two live jails the same uid. Here a
//! uid is *leased*: the referee takes an exclusive `flock` on the file `<dir>/<n>` and holds it
//! for the life of the jail ([`UidLease`] is kept by the [`crate::Jail`] until it is cleaned up,
//! after its process was reaped); the kernel drops the lock when the referee dies however it dies,
//! and the jail dies with its referee (the shim watches it). The lowest free number is taken, so
//! the folder holds as many files as jails ever ran at once. The folder belongs to root, mode
//! 0700, and is refused if it is anything else (a link, another owner, writable by others).

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};

use crate::{cstring, JailError};

/// The first jail uid: a block far above the range of real accounts.
pub const BASE: u32 = 0x5EB0_0000;
/// How many jails may live at once on one machine.
pub const COUNT: u32 = 1 << 20;

/// A jail uid held for as long as this value lives.
#[derive(Debug)]
pub struct UidLease {
    uid: u32,
    _lock: OwnedFd,
}

/// The numbers this process holds: skipped without a look at their lock files.
static HELD: std::sync::Mutex<std::collections::BTreeSet<u32>> =
    std::sync::Mutex::new(std::collections::BTreeSet::new());

fn held() -> std::sync::MutexGuard<'static, std::collections::BTreeSet<u32>> {
    HELD.lock().unwrap_or_else(|e| e.into_inner())
}

impl Drop for UidLease {
    fn drop(&mut self) {
        held().remove(&(self.uid - BASE));
    }
}

impl UidLease {
    pub fn uid(&self) -> u32 {
        self.uid
    }
}

/// The folder of the lock files: `/run/pitboss-jail-uids` where `/run` exists, else
/// `/tmp/.pitboss-jail-uids` (every root referee on the machine computes the same one).
fn dir() -> PathBuf {
    if Path::new("/run").is_dir() {
        PathBuf::from("/run/pitboss-jail-uids")
    } else {
        PathBuf::from("/tmp/.pitboss-jail-uids")
    }
}

fn checked_dir() -> Result<PathBuf, JailError> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    let d = dir();
    let err = |source| JailError::Path {
        path: d.display().to_string(),
        source,
    };
    match std::fs::DirBuilder::new().mode(0o700).create(&d) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(err(e)),
    }
    let md = std::fs::symlink_metadata(&d).map_err(err)?;
    // SAFETY: geteuid has no preconditions.
    let euid = unsafe { libc::geteuid() };
    if !md.is_dir() || md.uid() != euid || md.mode() & 0o022 != 0 {
        return Err(err(std::io::Error::other(
            "not a folder of the referee's user closed to others: jail uids cannot be leased",
        )));
    }
    Ok(d)
}

/// Leases the lowest jail uid no live jail on this machine holds.
///
/// # Errors
/// [`JailError`] when the lock folder is unusable or every uid is taken.
pub fn lease() -> Result<UidLease, JailError> {
    let d = checked_dir()?;
    let mut mine = held();
    for k in 0..COUNT {
        if mine.contains(&k) {
            continue;
        }
        let path = d.join(k.to_string());
        let c = cstring(&path)?;
        // SAFETY: open on a C string; the descriptor is owned at once.
        let fd = unsafe {
            libc::open(
                c.as_ptr(),
                libc::O_RDWR | libc::O_CREAT | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                0o600,
            )
        };
        if fd < 0 {
            return Err(JailError::Path {
                path: path.display().to_string(),
                source: std::io::Error::last_os_error(),
            });
        }
        // SAFETY: fd was just opened and is owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: flock on an open descriptor.
        if unsafe { libc::flock(fd.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            mine.insert(k);
            return Ok(UidLease {
                uid: BASE + k,
                _lock: fd,
            });
        }
    }
    Err(JailError::Unavailable(format!(
        "all {COUNT} jail uids are in use"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// More jails than the old per-referee block of 4,096 held at once: all distinct; a released
    /// uid is taken again. Root only (the lock folder is root's).
    #[test]
    fn live_leases_never_share_a_uid() {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return;
        }
        // Enough descriptors for 4,100 leases.
        let mut rl = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit/setrlimit on a local struct.
        unsafe {
            libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl);
            if rl.rlim_max < 5000 {
                return;
            }
            rl.rlim_cur = rl.rlim_cur.max(5000);
            libc::setrlimit(libc::RLIMIT_NOFILE, &rl);
        }
        let leases: Vec<UidLease> = (0..4100).map(|_| lease().unwrap()).collect();
        let mut uids: Vec<u32> = leases.iter().map(UidLease::uid).collect();
        uids.sort_unstable();
        uids.dedup();
        assert_eq!(uids.len(), 4100);
        assert!(uids.iter().all(|&u| (BASE..BASE + COUNT).contains(&u)));
        // Another referee would see the number taken: its own open of the lock file cannot
        // take the lock while the lease lives.
        let path = dir().join((leases[5].uid() - BASE).to_string());
        let f = std::fs::File::open(&path).unwrap();
        // SAFETY: flock on an open descriptor.
        let r = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        assert_eq!(r, -1, "{} could be locked twice", path.display());
        let freed = leases[17].uid();
        drop(leases);
        // Another referee (here: the same process) gets the freed numbers back.
        let again = lease().unwrap();
        assert!(again.uid() <= freed, "{} > {freed}", again.uid());
    }
}
