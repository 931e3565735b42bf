//! The code that runs between `fork` and `exec` (see the tree in the crate docs). Everything it
//! touches was prepared by [`ChildPlan::new`] in the parent; here there are only system calls.
//!
//! 1. **shim** (the referee's child, in the referee's namespaces): joins the jail's cgroups,
//!    unshares the namespaces, opens a pidfd on the referee, forks the init, closes every
//!    descriptor (so the bot's pipes see end-of-file the moment the bot is gone) and waits for
//!    either the init or the referee to end: the referee's end kills the init (and so the whole
//!    PID namespace); the init's end is mirrored as the shim's own exit status.
//! 2. **init** (PID 1 of the new PID namespace): dies with the shim (`PR_SET_PDEATHSIG`), builds
//!    the mount view and pivots into it, sets the hostname, forks the bot, then reaps until the
//!    bot ends and passes its wait status to the shim through a pipe.
//! 3. **bot**: dies with the init, enters its working folder, sets rlimits, empties the
//!    capability bounding set, becomes the jail's uid (or, in a user namespace, drops every
//!    capability and locks `SECBIT_NOROOT`), sets `no_new_privs`, installs the seccomp filter,
//!    and returns to `std`, which `exec`s the program.

use std::ffi::CString;
use std::io;

use libc::{c_int, pid_t};
use seccompiler::BpfProgram;

use crate::mounts::MountPlan;
use crate::sys::{
    check, check_i, close_from, ignore_signals, mirror_exit, pidfd_open, wait_either,
};
use crate::{cstring, JailError, JailSpec, Mode};

pub(crate) struct ChildPlan {
    referee: pid_t,
    cgroup_procs: Vec<CString>,
    unshare: c_int,
    /// User-namespace maps (`deny`, gid map, uid map) for a referee without root.
    userns: Option<[CString; 3]>,
    mounts: MountPlan,
    workdir: CString,
    uid: Option<u32>,
    rlimits: Vec<(libc::__rlimit_resource_t, u64)>,
    seccomp: Vec<BpfProgram>,
    /// The referee's argument and environment areas, which the init (a fork of the referee)
    /// wipes from its own copy of the memory.
    wipe: [(usize, usize); 2],
}

/// `arg_start, arg_end, env_start, env_end` of this process (fields 48–51 of `/proc/self/stat`).
fn arg_env_areas() -> [(usize, usize); 2] {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<usize> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0))
        .collect();
    // `rest` starts at field 3 (state): field n is f[n - 3].
    let get = |n: usize| f.get(n - 3).copied().unwrap_or(0);
    [(get(48), get(49)), (get(50), get(51))]
}

impl ChildPlan {
    pub(crate) fn new(
        spec: &JailSpec,
        mode: Mode,
        uid: Option<u32>,
        cgroup_procs: Vec<CString>,
    ) -> Result<ChildPlan, JailError> {
        let mounts = MountPlan::new(
            &spec.read,
            &spec.write,
            Some(&spec.workdir),
            spec.base.as_deref(),
            spec.limits.scratch_mb,
        )?;
        let workdir = cstring(&mounts.workdir)?;
        let mut unshare = libc::CLONE_NEWNS
            | libc::CLONE_NEWPID
            | libc::CLONE_NEWUTS
            | libc::CLONE_NEWIPC
            | libc::CLONE_NEWCGROUP;
        if !spec.network {
            unshare |= libc::CLONE_NEWNET;
        }
        let userns = if mode == Mode::UserNs {
            unshare |= libc::CLONE_NEWUSER;
            // SAFETY: getuid/getgid have no preconditions.
            let (u, g) = unsafe { (libc::getuid(), libc::getgid()) };
            // The referee's ids map to themselves: inside, the bot is the same unprivileged
            // user it is outside, never uid 0 of its namespace (the jail's shim and init keep
            // the capabilities the namespace's creator has, which need no uid 0; the bot drops
            // them).
            Some([
                CString::new("deny").expect("no NUL"),
                CString::new(format!("{g} {g} 1")).expect("no NUL"),
                CString::new(format!("{u} {u} 1")).expect("no NUL"),
            ])
        } else {
            None
        };
        let l = &spec.limits;
        let tree_limits = !cgroup_procs.is_empty();
        let mut rlimits = vec![(libc::RLIMIT_CORE, 0), (libc::RLIMIT_NOFILE, l.open_files)];
        // Without a cgroup (a referee without root: no cgroup is delegated to it) the memory
        // limit falls back to each process's address space, so that a limit is in force by
        // default in both modes, not only when a manifest sets one.
        let address_space = l.address_space_mb.or((!tree_limits).then_some(l.memory_mb));
        if let Some(mb) = address_space {
            rlimits.push((libc::RLIMIT_AS, mb.saturating_mul(1 << 20)));
        }
        if let Some(s) = l.cpu_seconds {
            rlimits.push((libc::RLIMIT_CPU, s));
        }
        if uid.is_some() || mode == Mode::UserNs {
            // Counted per (user namespace, uid) by the kernel: with a uid of its own (root
            // referee), or in a user namespace of its own (every jail of a non-root referee
            // unshares one), this bounds the jail's whole tree, even where no pids cgroup exists.
            rlimits.push((libc::RLIMIT_NPROC, l.pids));
        }
        Ok(ChildPlan {
            referee: std::process::id() as pid_t,
            cgroup_procs,
            unshare,
            userns,
            mounts,
            workdir,
            uid,
            rlimits,
            seccomp: crate::seccomp::programs().map_err(JailError::Seccomp)?,
            wipe: arg_env_areas(),
        })
    }

    /// Runs in the forked child: only the bot returns (to be `exec`ed); shim and init end here.
    pub(crate) fn run(&mut self) -> io::Result<()> {
        // SAFETY: system calls on prepared data in a freshly forked, single-threaded child.
        unsafe {
            for p in &self.cgroup_procs {
                write_file(p, b"0")?;
            }
            check_i(libc::unshare(self.unshare), b"unshare namespaces")?;
            if let Some([deny, gid, uid]) = &self.userns {
                write_file(c"/proc/self/setgroups", deny.as_bytes())?;
                write_file(c"/proc/self/gid_map", gid.as_bytes())?;
                write_file(c"/proc/self/uid_map", uid.as_bytes())?;
            }
            if libc::getppid() != self.referee {
                libc::_exit(124);
            }
            let referee = pidfd_open(self.referee);
            check_i(referee, b"pidfd_open(referee)")?;
            let mut status_pipe = [0 as c_int; 2];
            check_i(
                libc::pipe2(status_pipe.as_mut_ptr(), libc::O_CLOEXEC),
                b"pipe2",
            )?;
            let init = libc::fork();
            check_i(init, b"fork init")?;
            if init > 0 {
                self.shim(referee, init, status_pipe[0]);
            }
            libc::close(status_pipe[0]);
            libc::close(referee);
            self.init(status_pipe[1])
        }
    }

    unsafe fn shim(&self, referee: c_int, init: pid_t, status_rd: c_int) -> ! {
        ignore_signals();
        let init_fd = pidfd_open(init);
        let mut keep = [referee, init_fd, status_rd];
        keep.sort_unstable();
        close_from(0, &keep);
        if init_fd >= 0 && wait_either(referee, init_fd) == 0 {
            // The referee is gone: the jail goes too.
            libc::kill(init, libc::SIGKILL);
        }
        let mut st: c_int = 0;
        while libc::waitpid(init, &mut st, 0) < 0 && *libc::__errno_location() == libc::EINTR {}
        let mut bot_status: c_int = 0;
        let n = libc::read(
            status_rd,
            (&mut bot_status as *mut c_int).cast(),
            std::mem::size_of::<c_int>(),
        );
        if n == std::mem::size_of::<c_int>() as isize {
            mirror_exit(bot_status)
        }
        mirror_exit(st)
    }

    unsafe fn init(&self, status_wr: c_int) -> io::Result<()> {
        check_i(
            libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            ),
            b"pdeathsig (init)",
        )?;
        // The shim lives in the parent PID namespace (getppid() says 0 here): whether it is
        // still there is seen on the status pipe, whose only reader it is.
        let mut p = libc::pollfd {
            fd: status_wr,
            events: libc::POLLOUT,
            revents: 0,
        };
        if libc::poll(&mut p, 1, 0) < 0 || p.revents & libc::POLLERR != 0 {
            libc::_exit(124);
        }
        // The init is a copy of the referee: its command line (a `--seed`, paths) and
        // environment must not be readable from the jail. Wipe both from this copy, and make the
        // process non-dumpable (its /proc files then belong to root of the initial namespace).
        for &(start, end) in &self.wipe {
            if start != 0 && end > start {
                std::ptr::write_bytes(start as *mut u8, 0, end - start);
            }
        }
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
        self.mounts.apply()?;
        let host = c"pitboss-jail";
        libc::sethostname(host.as_ptr(), host.to_bytes().len());
        let bot = libc::fork();
        check_i(bot, b"fork bot")?;
        if bot == 0 {
            libc::close(status_wr);
            return self.bot();
        }
        ignore_signals();
        close_from(0, &[status_wr]);
        loop {
            let mut st: c_int = 0;
            let r = libc::waitpid(-1, &mut st, 0);
            if r == bot {
                libc::write(
                    status_wr,
                    (&st as *const c_int).cast(),
                    std::mem::size_of::<c_int>(),
                );
                libc::_exit(0);
            }
            if r < 0 && *libc::__errno_location() == libc::ECHILD {
                libc::_exit(125);
            }
        }
    }

    unsafe fn bot(&self) -> io::Result<()> {
        check_i(
            libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            ),
            b"pdeathsig (bot)",
        )?;
        if libc::getppid() != 1 {
            libc::_exit(124);
        }
        check_i(
            libc::chdir(self.workdir.as_ptr()),
            b"chdir to the bot's folder",
        )?;
        for &(res, v) in &self.rlimits {
            let r = libc::rlimit {
                rlim_cur: v,
                rlim_max: v,
            };
            check_i(libc::setrlimit(res, &r), b"setrlimit")?;
        }
        // Empty the bounding set: no exec can bring a capability back.
        let mut cap = 0;
        while libc::prctl(libc::PR_CAPBSET_READ, cap, 0, 0, 0) >= 0 {
            check_i(
                libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0),
                b"drop the capability bounding set",
            )?;
            cap += 1;
        }
        check_i(
            libc::prctl(
                libc::PR_CAP_AMBIENT,
                libc::PR_CAP_AMBIENT_CLEAR_ALL,
                0,
                0,
                0,
            ),
            b"clear ambient capabilities",
        )?;
        match self.uid {
            Some(uid) => {
                check_i(libc::setgroups(0, std::ptr::null()), b"setgroups")?;
                check_i(libc::setresgid(uid, uid, uid), b"setresgid")?;
                // From root to a non-zero uid: the kernel clears every capability.
                check_i(libc::setresuid(uid, uid, uid), b"setresuid")?;
            }
            None => {
                // Uid 0 of a user namespace: never gain root's capabilities again, drop them now.
                const SECBIT_NOROOT: libc::c_ulong = 1;
                const SECBIT_NOROOT_LOCKED: libc::c_ulong = 2;
                const SECBIT_NO_SETUID_FIXUP: libc::c_ulong = 4;
                const SECBIT_NO_SETUID_FIXUP_LOCKED: libc::c_ulong = 8;
                check_i(
                    libc::prctl(
                        libc::PR_SET_SECUREBITS,
                        SECBIT_NOROOT
                            | SECBIT_NOROOT_LOCKED
                            | SECBIT_NO_SETUID_FIXUP
                            | SECBIT_NO_SETUID_FIXUP_LOCKED,
                        0,
                        0,
                        0,
                    ),
                    b"securebits",
                )?;
                drop_all_caps()?;
            }
        }
        check_i(
            libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0),
            b"no_new_privs",
        )?;
        crate::seccomp::apply(&self.seccomp)
    }
}

/// Writes `data` to the file `path` (open, write, close).
unsafe fn write_file(path: &std::ffi::CStr, data: &[u8]) -> io::Result<()> {
    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    check_i(fd, b"open a cgroup or id-map file")?;
    let n = libc::write(fd, data.as_ptr().cast(), data.len());
    libc::close(fd);
    check(n as libc::c_long, b"write a cgroup or id-map file")
}

/// `capset` with empty effective, permitted and inheritable sets.
unsafe fn drop_all_caps() -> io::Result<()> {
    #[repr(C)]
    struct Header {
        version: u32,
        pid: c_int,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    const V3: u32 = 0x2008_0522;
    let h = Header {
        version: V3,
        pid: 0,
    };
    let d = [Data {
        effective: 0,
        permitted: 0,
        inheritable: 0,
    }; 2];
    check(
        libc::syscall(libc::SYS_capset, &h as *const Header, d.as_ptr()),
        b"capset",
    )
}
