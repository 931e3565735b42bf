//! System calls for the forked child: no allocation, no locks, only raw calls on prepared data,
//! and a failure message written straight to fd 2 (which is the bot's stderr log).

use std::io;

use libc::c_int;

/// Writes `pitboss-jail: <what>: errno <n>` to fd 2 without allocating.
pub(crate) fn report(what: &[u8], errno: i32) {
    let mut buf = [0u8; 160];
    let mut n = 0;
    for part in [&b"pitboss-jail: "[..], what, b": errno "] {
        let take = part.len().min(buf.len() - n - 12);
        buf[n..n + take].copy_from_slice(&part[..take]);
        n += take;
    }
    n += put_uint(&mut buf[n..], errno.unsigned_abs());
    buf[n] = b'\n';
    n += 1;
    // SAFETY: writing a stack buffer to fd 2.
    unsafe {
        libc::write(2, buf.as_ptr().cast(), n);
    }
}

/// `Ok` for a non-negative result, else the errno, reported on fd 2 under `what`.
pub(crate) fn check(r: libc::c_long, what: &[u8]) -> io::Result<()> {
    if r >= 0 {
        Ok(())
    } else {
        let e = io::Error::last_os_error();
        report(what, e.raw_os_error().unwrap_or(0));
        Err(e)
    }
}

/// Like [`check`] for calls returning `c_int`.
pub(crate) fn check_i(r: c_int, what: &[u8]) -> io::Result<()> {
    check(r as libc::c_long, what)
}

/// Closes every descriptor from `from` up, but `keep` (sorted, all `>= from`).
pub(crate) fn close_from(from: u32, keep: &[c_int]) {
    let mut lo = from;
    for &k in keep {
        let k = k as u32;
        if k >= lo {
            if k > lo {
                // SAFETY: close_range on our own descriptor table.
                unsafe { libc::syscall(libc::SYS_close_range, lo, k - 1, 0) };
            }
            lo = k + 1;
        }
    }
    // SAFETY: as above.
    unsafe { libc::syscall(libc::SYS_close_range, lo, u32::MAX, 0) };
}

/// A pidfd for `pid` (Linux 5.3).
pub(crate) fn pidfd_open(pid: libc::pid_t) -> c_int {
    // SAFETY: a plain system call.
    unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) as c_int }
}

/// Waits until one of the two descriptors is readable (a pidfd is readable when its process has
/// exited); returns its index.
pub(crate) fn wait_either(a: c_int, b: c_int) -> usize {
    let mut fds = [
        libc::pollfd {
            fd: a,
            events: libc::POLLIN,
            revents: 0,
        },
        libc::pollfd {
            fd: b,
            events: libc::POLLIN,
            revents: 0,
        },
    ];
    loop {
        // SAFETY: poll on a stack array.
        let r = unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) };
        if r > 0 {
            if fds[1].revents != 0 {
                return 1;
            }
            if fds[0].revents != 0 {
                return 0;
            }
        }
    }
}

/// Ignores the signals a supervisor should survive (the bot gets them; we only wait).
pub(crate) fn ignore_signals() {
    for s in [
        libc::SIGTERM,
        libc::SIGINT,
        libc::SIGHUP,
        libc::SIGPIPE,
        libc::SIGQUIT,
    ] {
        // SAFETY: setting a disposition to SIG_IGN.
        unsafe {
            libc::signal(s, libc::SIG_IGN);
        }
    }
}

/// Ends the calling process the way a child with wait status `status` ended: the same signal
/// (default action restored first) or the same exit code.
pub(crate) fn mirror_exit(status: c_int) -> ! {
    if libc::WIFSIGNALED(status) {
        let sig = libc::WTERMSIG(status);
        // SAFETY: restoring the default action and raising the signal at ourselves.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, sig);
            libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            libc::kill(libc::getpid(), sig);
        }
        // A signal whose default action is not to terminate: say so in the code.
        // SAFETY: _exit never returns.
        unsafe { libc::_exit(128 + sig) }
    }
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        125
    };
    // SAFETY: _exit never returns.
    unsafe { libc::_exit(code) }
}

/// `openat2(dir, path, {flags | O_CLOEXEC, resolve})`: the raw call (no allocation, so the forked
/// child may use it too). Returns the descriptor, or -1 with `errno` set (`ENOSYS` before Linux
/// 5.6, `ELOOP` for a link `resolve` forbids, `EXDEV` for an escape from `dir`).
pub(crate) fn openat2(dir: c_int, path: &std::ffi::CStr, flags: c_int, resolve: u64) -> c_int {
    // SAFETY: open_how is plain data (non_exhaustive in libc: built from zeroes).
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = (flags | libc::O_CLOEXEC) as u64;
    how.resolve = resolve;
    // SAFETY: openat2 with a C string and an open_how of the right size.
    unsafe {
        libc::syscall(
            libc::SYS_openat2,
            dir,
            path.as_ptr(),
            &how as *const libc::open_how,
            std::mem::size_of::<libc::open_how>(),
        ) as c_int
    }
}

/// Writes `v` in decimal at the start of `buf` without allocating; returns the bytes written
/// (`buf` must hold at least 10).
pub(crate) fn put_uint(buf: &mut [u8], mut v: u32) -> usize {
    let mut digits = [0u8; 10];
    let mut d = 0;
    loop {
        digits[d] = b'0' + (v % 10) as u8;
        d += 1;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for (i, &b) in digits[..d].iter().rev().enumerate() {
        buf[i] = b;
    }
    d
}
