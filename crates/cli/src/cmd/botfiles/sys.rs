//! The system calls of the careful walk ([`super`]), each on a descriptor it is given and
//! returning an owned one: `open` of a folder, `openat` (always `O_NOFOLLOW | O_CLOEXEC`),
//! `fstat`, `fstatat` without following, `readlinkat`, `mkdirat`, `fchmod`, and a folder's names
//! by `fdopendir` on a copy of its descriptor.

use std::ffi::{CStr, CString, OsStr, OsString};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;

fn cstr(name: &OsStr) -> std::io::Result<CString> {
    CString::new(name.as_bytes()).map_err(|_| std::io::ErrorKind::InvalidInput.into())
}

fn cvt(ret: libc::c_int) -> std::io::Result<libc::c_int> {
    if ret < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// Opens a folder by path (`extra`: more flags, e.g. `O_NOFOLLOW`).
pub(super) fn open_dir(dir: &Path, extra: libc::c_int) -> std::io::Result<OwnedFd> {
    let c = cstr(dir.as_os_str())?;
    // SAFETY: a valid C string; the descriptor returned is owned below.
    let fd = cvt(unsafe {
        libc::open(
            c.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC | extra,
        )
    })?;
    // SAFETY: `fd` was just opened and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

pub(super) fn openat(
    dir: &OwnedFd,
    name: &OsStr,
    flags: libc::c_int,
    mode: libc::mode_t,
) -> std::io::Result<OwnedFd> {
    let c = cstr(name)?;
    // SAFETY: a valid descriptor and C string; the result is owned below.
    let fd = cvt(unsafe {
        libc::openat(
            dir.as_raw_fd(),
            c.as_ptr(),
            flags | libc::O_CLOEXEC | libc::O_NOFOLLOW,
            libc::c_uint::from(mode),
        )
    })?;
    // SAFETY: just opened, owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

pub(super) fn fstat(fd: &OwnedFd) -> std::io::Result<libc::stat> {
    // SAFETY: `stat` is plain old data, filled in by the kernel.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: a valid descriptor and a pointer to a `stat`.
    cvt(unsafe { libc::fstat(fd.as_raw_fd(), &mut st) })?;
    Ok(st)
}

/// `fstatat` without following a final symbolic link.
pub(super) fn lstatat(dir: &OwnedFd, name: &OsStr) -> std::io::Result<libc::stat> {
    let c = cstr(name)?;
    // SAFETY: as in `fstat`.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: a valid descriptor, C string and pointer to a `stat`.
    cvt(unsafe {
        libc::fstatat(
            dir.as_raw_fd(),
            c.as_ptr(),
            &mut st,
            libc::AT_SYMLINK_NOFOLLOW,
        )
    })?;
    Ok(st)
}

/// A link's target, for the error message (at most 256 bytes of it).
pub(super) fn readlinkat(dir: &OwnedFd, name: &OsStr) -> String {
    let Ok(c) = cstr(name) else {
        return "?".into();
    };
    let mut buf = [0u8; 256];
    // SAFETY: a valid descriptor, C string and buffer of the given length.
    let n = unsafe {
        libc::readlinkat(
            dir.as_raw_fd(),
            c.as_ptr(),
            buf.as_mut_ptr().cast(),
            buf.len(),
        )
    };
    if n < 0 {
        return "?".into();
    }
    format!("{:?}", String::from_utf8_lossy(&buf[..n as usize]))
}

/// The names in a folder, sorted, `.` and `..` left out; `None` when there are more than `max`.
pub(super) fn list(dir: &OwnedFd, max: u64) -> std::io::Result<Option<Vec<OsString>>> {
    // SAFETY: duplicates a valid descriptor; `fdopendir` takes the copy over.
    let dup = cvt(unsafe { libc::fcntl(dir.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 0) })?;
    // SAFETY: `dup` is a descriptor of a folder that nothing else uses.
    let d = unsafe { libc::fdopendir(dup) };
    if d.is_null() {
        let e = std::io::Error::last_os_error();
        // SAFETY: `dup` is still ours when fdopendir failed.
        unsafe { libc::close(dup) };
        return Err(e);
    }
    let mut names = Vec::new();
    let result = loop {
        // SAFETY: resets errno so that the end of the folder can be told from an error.
        unsafe { *libc::__errno_location() = 0 };
        // SAFETY: `d` is a valid directory stream until closedir below.
        let e = unsafe { libc::readdir(d) };
        if e.is_null() {
            let err = std::io::Error::last_os_error();
            break if err.raw_os_error().unwrap_or(0) == 0 {
                Ok(())
            } else {
                Err(err)
            };
        }
        // SAFETY: `d_name` is a NUL-terminated name inside the entry readdir returned.
        let name = unsafe { CStr::from_ptr((*e).d_name.as_ptr()) }.to_bytes();
        if name == b"." || name == b".." {
            continue;
        }
        names.push(OsString::from_vec(name.to_vec()));
        if names.len() as u64 > max {
            break Ok(());
        }
    };
    // SAFETY: closes the stream (and `dup`) once.
    unsafe { libc::closedir(d) };
    result?;
    if names.len() as u64 > max {
        return Ok(None);
    }
    names.sort();
    Ok(Some(names))
}

pub(super) fn mkdirat(dir: &OwnedFd, name: &OsStr, mode: libc::mode_t) -> std::io::Result<()> {
    let c = cstr(name)?;
    // SAFETY: a valid descriptor and C string.
    cvt(unsafe { libc::mkdirat(dir.as_raw_fd(), c.as_ptr(), mode) }).map(|_| ())
}

pub(super) fn fchmod(fd: &OwnedFd, mode: libc::mode_t) -> std::io::Result<()> {
    // SAFETY: a valid descriptor.
    cvt(unsafe { libc::fchmod(fd.as_raw_fd(), mode) }).map(|_| ())
}
