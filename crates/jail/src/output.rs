//! A build's output folder: a fresh tmpfs the jail mounts at the folder's path in its own view,
//! capped in size and files by the kernel, which the referee reads back after the build ended
//! and before the view is torn down.
//!
//! Nothing on the host is written by the jailed process, so nothing on the host is ever owned by
//! a jail's uid, and a referee killed mid-build leaves nothing behind: the tmpfs lives only in
//! the jail's mount namespace and goes with it.
//!
//! The hand-over: when the jail's init has ended (and with it every process of the jail's PID
//! namespace), the shim — still a member of the jail's mount namespace, so the view is still
//! there — writes one byte on a pipe and waits until the referee closes the pipe's other end (or
//! dies). The referee opens the folder through `/proc/<shim>/root` with no symlink and no `..`
//! followed ([`open_beneath`]), checks that it is the tmpfs it asked for (a mount root of type
//! tmpfs), and keeps that descriptor: an open descriptor keeps the tmpfs alive after the namespace
//! is gone, so the shim is released at once and the referee copies at its pace.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};

/// The output folder of a jailed build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputDir {
    /// Where the tmpfs is mounted in the view (an absolute path that must exist on the host: it
    /// is the mount point).
    pub path: PathBuf,
    /// Its size, MiB.
    pub mb: u64,
    /// How many files and folders it may hold.
    pub files: u64,
}

/// Where a held jail stands.
#[derive(Debug)]
pub enum Held {
    /// The process still runs.
    Running,
    /// The process and everything of its PID namespace ended; the output folder, opened (or why
    /// it could not be).
    Ended(io::Result<OwnedFd>),
    /// The jail ended without handing its view over (killed, or it never started).
    Gone,
}

/// Opens `path` (relative) beneath the folder `dir` with `flags`: no symlink, magic link or `..`
/// may take the resolution anywhere else (`openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
/// RESOLVE_NO_MAGICLINKS`; Linux 5.6). `O_CLOEXEC` is added.
///
/// # Errors
/// The system call's error: `ELOOP` for a symlink on the way, `EXDEV` for an escape.
pub fn open_beneath(dir: &impl AsRawFd, path: &Path, flags: i32) -> io::Result<OwnedFd> {
    let c = crate::cstring(path).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let fd = crate::sys::openat2(
        dir.as_raw_fd(),
        &c,
        flags,
        libc::RESOLVE_BENEATH | libc::RESOLVE_NO_SYMLINKS | libc::RESOLVE_NO_MAGICLINKS,
    );
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a descriptor we just opened and own.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// The pipe of a held jail, referee side.
pub(crate) struct Hold {
    /// Read end: one byte when the jail's processes are gone; closing it releases the shim.
    pub(crate) rd: Option<OwnedFd>,
    /// Write end, for the shim; closed here once the shim has its copy.
    pub(crate) wr: Option<OwnedFd>,
    pub(crate) path: PathBuf,
}

impl Hold {
    pub(crate) fn new(path: &Path) -> io::Result<Hold> {
        let mut fds = [0; 2];
        // SAFETY: pipe2 into a stack array.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: two descriptors we just opened and own.
        let (rd, wr) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        Ok(Hold {
            rd: Some(rd),
            wr: Some(wr),
            path: path.to_path_buf(),
        })
    }

    /// See [`crate::Jail::poll_output`].
    pub(crate) fn poll(&mut self, shim: u32) -> Held {
        // The shim has its own copy since it was forked: ours would hide its end.
        self.wr = None;
        let Some(rd) = &self.rd else {
            return Held::Gone;
        };
        let mut b = [0u8; 1];
        // SAFETY: a one-byte read into a stack buffer.
        let n = unsafe { libc::read(rd.as_raw_fd(), b.as_mut_ptr().cast(), 1) };
        match n {
            1 => {
                let out = open_view(shim, &self.path);
                // Release the shim: the descriptor (if any) keeps the tmpfs.
                self.rd = None;
                Held::Ended(out)
            }
            0 => {
                self.rd = None;
                Held::Gone
            }
            _ => Held::Running,
        }
    }
}

/// Opens the output folder `path` in the view of the jail whose shim is `shim`, checking that it
/// is the root of a tmpfs (the one the jail mounted there, not a folder put in its place).
fn open_view(shim: u32, path: &Path) -> io::Result<OwnedFd> {
    let root = CString::new(format!("/proc/{shim}/root")).expect("no NUL");
    // SAFETY: open of a C string.
    let fd = unsafe {
        libc::open(
            root.as_ptr(),
            libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a descriptor we just opened and own.
    let root = unsafe { OwnedFd::from_raw_fd(fd) };
    let rel = path.strip_prefix("/").unwrap_or(path);
    let dir = open_beneath(
        &root,
        rel,
        libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW,
    )?;
    // SAFETY: fstatfs/fstat/fstatat into zeroed structs, on descriptors we own.
    unsafe {
        let mut fs: libc::statfs = std::mem::zeroed();
        if libc::fstatfs(dir.as_raw_fd(), &mut fs) != 0 {
            return Err(io::Error::last_os_error());
        }
        let mut here: libc::stat = std::mem::zeroed();
        let mut up: libc::stat = std::mem::zeroed();
        if libc::fstat(dir.as_raw_fd(), &mut here) != 0
            || libc::fstatat(dir.as_raw_fd(), c"..".as_ptr(), &mut up, 0) != 0
        {
            return Err(io::Error::last_os_error());
        }
        // f_type's and the constant's types differ across architectures.
        #[allow(clippy::unnecessary_cast)]
        let tmpfs = fs.f_type as i64 == libc::TMPFS_MAGIC as i64;
        if !tmpfs || here.st_dev == up.st_dev {
            return Err(io::Error::other(
                "not the jail's output tmpfs (the folder was replaced during the build)",
            ));
        }
    }
    Ok(dir)
}
