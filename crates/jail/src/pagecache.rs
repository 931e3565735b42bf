//! Forgetting which pages of a bot's files are in memory.
//!
//! The page cache is shared by every process on the machine and outlives them: a process that
//! reads page `p` of a file leaves it in memory, and a later process — another jail, or the same
//! bot's process of another seat rotation, started after the first one died — can tell by timing
//! its own first read of `p` (microseconds against a page fault or a disk read). A bot folder that
//! ships a large (even sparse) file gives a bot as many such one-bit cells as the file has pages.
//! The jail refuses the calls that ask or empty the page cache directly (`mincore`, `cachestat`,
//! `fadvise`); what it cannot stop is the timing. So the referee empties the cells itself:
//! [`forget`] drops the cached pages of every regular file beneath a folder (`POSIX_FADV_DONTNEED`,
//! which drops clean pages that no process maps), and a duplicate match calls it on each bot's
//! folder between two seat rotations, when none of the bot's processes is alive: whatever the
//! first rotation read, the next one finds every page of its own files cold.

use std::os::fd::AsRawFd;
use std::path::Path;

/// What [`forget`] did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Forgotten {
    /// Regular files whose cached pages were dropped.
    pub files: usize,
    /// Folders the referee could not list (a non-root referee and a folder closed to it): their
    /// files keep whatever pages they had, and the caller says so.
    pub unreadable: Vec<std::path::PathBuf>,
}

/// Drops the cached pages of every regular file beneath `dir` (links not followed). Every file
/// is visited, however many (a cap would let a bot hide its cells past it).
pub fn forget(dir: &Path) -> Forgotten {
    let mut out = Forgotten::default();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            out.unreadable.push(d);
            continue;
        };
        for e in rd.flatten() {
            let Ok(t) = e.file_type() else { continue };
            if t.is_dir() {
                stack.push(e.path());
            } else if t.is_file() {
                match std::fs::File::open(e.path()) {
                    Ok(f) => {
                        // SAFETY: posix_fadvise on an open descriptor.
                        unsafe {
                            libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED);
                        }
                        out.files += 1;
                    }
                    Err(_) => out.unreadable.push(e.path()),
                }
            }
        }
    }
    out
}

/// Drops the machine's clean caches — page cache, dentries (names found *and* names looked up
/// in vain) and inodes — as `echo 3 > /proc/sys/vm/drop_caches` does. Root only (`Ok(false)`
/// otherwise).
///
/// Why the whole machine: what a process leaves in the kernel's caches outlives it, and another
/// process can read it back by timing its own first access — a page of a system file read or
/// not, a name of a system folder looked up or not (a `stat` of a missing name is about twice as
/// fast when the kernel remembers it is missing). A name is free to make up, so the dentry cache
/// alone is a channel of unbounded width between the seat rotations of a duplicate deal, played
/// one after the other. Between two phases of a bot, with none of its processes alive, the
/// referee empties these caches; the cost is the machine's, which re-reads what it needs (a
/// duplicate match has one phase per rotation and chunk of up to a million hands).
///
/// # Errors
/// The write's error, as root.
pub fn drop_machine_caches() -> std::io::Result<bool> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Ok(false);
    }
    std::fs::write("/proc/sys/vm/drop_caches", b"3\n")?;
    Ok(true)
}

/// What a duplicate match of jailed bots must be told when the referee cannot empty the machine's
/// caches between two phases (it is not root); `None` when it can.
pub fn duplicate_warning() -> Option<&'static str> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        return None;
    }
    Some(
        "duplicate play with a referee that is not root: the kernel's caches (names looked up, \
         pages read) outlive a phase and can carry a deal's cards from one seat rotation to the \
         other, which only root can empty between phases (protocol.md §9); run duplicate matches \
         of untrusted bots as root",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pages of `f` in memory, by `mincore` on a mapping (the test runs outside any jail).
    fn resident(f: &std::fs::File, len: usize) -> usize {
        let pages = len.div_ceil(4096);
        // SAFETY: a read-only shared mapping of an open file, unmapped below.
        unsafe {
            let p = libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                f.as_raw_fd(),
                0,
            );
            assert_ne!(p, libc::MAP_FAILED);
            let mut v = vec![0u8; pages];
            assert_eq!(libc::mincore(p, len, v.as_mut_ptr()), 0);
            libc::munmap(p, len);
            v.iter().filter(|b| **b & 1 == 1).count()
        }
    }

    #[test]
    fn the_pages_a_bot_read_are_forgotten() {
        use std::io::{Read, Seek, SeekFrom};
        let dir = std::env::temp_dir().join(format!("pitboss-pagecache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        let path = dir.join("sub/cells.bin");
        let len = 64 * 4096;
        // Sparse: a hole of 64 pages, as a hostile bot folder ships them.
        std::fs::File::create(&path)
            .unwrap()
            .set_len(len as u64)
            .unwrap();
        let mut f = std::fs::File::open(&path).unwrap();
        forget(&dir);
        let mut b = [0u8; 1];
        for page in [3u64, 17, 40] {
            f.seek(SeekFrom::Start(page * 4096)).unwrap();
            f.read_exact(&mut b).unwrap();
        }
        assert!(resident(&f, len) >= 3, "the reads left no page in memory");
        assert_eq!(forget(&dir).files, 1);
        assert_eq!(resident(&f, len), 0, "pages still in memory after forget");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
