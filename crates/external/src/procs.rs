//! Small process and pipe helpers of a session.

use std::time::{Duration, Instant};

use pitboss_protocol::FromBot;

/// Per-process limits of a bot run without the jail (in the forked child).
pub(crate) fn set_rlimits(mem: Option<u64>, cpu: Option<u64>) -> std::io::Result<()> {
    for (res, v, hard) in [
        (libc::RLIMIT_AS, mem, mem),
        (libc::RLIMIT_CPU, cpu, cpu.map(|c| c + 1)),
    ] {
        if let (Some(v), Some(h)) = (v, hard) {
            let r = libc::rlimit {
                rlim_cur: v,
                rlim_max: h,
            };
            // SAFETY: setrlimit on the calling process.
            if unsafe { libc::setrlimit(res, &r) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
    }
    Ok(())
}

/// The id a reply line carries, if it parses as a reply.
pub(crate) fn reply_id(line: &[u8]) -> Result<u64, ()> {
    match pitboss_protocol::parse_reply(line) {
        Ok(FromBot::Hello(h)) => Ok(h.id),
        Ok(FromBot::Action(a)) => Ok(a.id),
        Err(_) => Err(()),
    }
}

/// Whether `fd` has data (or end-of-file) to read right now.
pub(crate) fn fd_readable(fd: i32) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: poll on one descriptor we own, without waiting.
    unsafe { libc::poll(&mut p, 1, 0) > 0 && p.revents & (libc::POLLIN | libc::POLLHUP) != 0 }
}

/// Reaps leftover members of a killed group that were reparented to us.
pub(crate) fn reap_group(pgid: i32) {
    // SIGKILL cannot be caught; only a process stuck in the kernel takes long to go.
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let mut st = 0;
        // SAFETY: waitpid on a process group we created and killed.
        let r = unsafe { libc::waitpid(-pgid, &mut st, libc::WNOHANG) };
        if r < 0 {
            break; // ECHILD: nothing of that group is our child any more
        }
        if r == 0 {
            if Instant::now() > until {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}
