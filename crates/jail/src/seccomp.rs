//! The system-call filter of a jailed bot. A bot talks to the referee through the pipes it was
//! given and needs nothing that reaches beyond its own process tree, so the filter refuses (with
//! `EPERM`) every call that opens a channel or changes the system:
//!
//! * sockets of every family (`socket`; `socketpair` stays: an unnamed pair reaches nobody), and
//!   with them TCP, UDP, path-named and abstract Unix sockets, netlink;
//! * other processes' memory and control: `ptrace`, `process_vm_readv/writev`, `pidfd_getfd`,
//!   `kcmp`;
//! * the system: `mount` and the new mount API, `pivot_root`, `chroot`, `umount2`, `swapon`,
//!   `reboot`, `kexec_*`, modules, `sethostname`, `setdomainname`, clock setting, `acct`,
//!   `quotactl`, `syslog`;
//! * kernel facilities with a record of escapes: `bpf`, `perf_event_open`, `userfaultfd`,
//!   `io_uring_*` (whose operations bypass this filter), `keyctl`/`add_key`/`request_key`,
//!   `open_by_handle_at`, `fanotify_init`, `lookup_dcookie`;
//! * new namespaces: `unshare`, `setns`, and `clone` with any `CLONE_NEW*` flag; `clone3` (whose
//!   flags a filter cannot read) answers `ENOSYS`, so C libraries fall back to `clone`;
//! * **kernel objects keyed by an inode that two jails share** — every jail binds the same host
//!   inodes read-only (the system directories, a bot's own files in every process of that bot),
//!   and a lock or a watch on a shared inode is visible from every other jail that binds it: a
//!   one-way channel between two processes that must not talk (the two seat rotations of a
//!   duplicate deal, two colluding bots at one table). So: `flock` answers `EOPNOTSUPP` (what a
//!   file system without locks says; cargo and most tools then go on without locking), record
//!   and open-file-description locks (`fcntl` `F_GETLK`/`F_SETLK`/`F_SETLKW` and their `F_OFD_*`
//!   forms) answer `ENOLCK`, leases and directory notification (`F_SETLEASE`, `F_GETLEASE`,
//!   `F_NOTIFY`) `EPERM`, and `inotify_init`/`inotify_init1`/`inotify_add_watch` `ENOSYS` (tools
//!   then poll), `fanotify_init` and `fanotify_mark` `EPERM`;
//! * **the page cache as an oracle**: `cachestat` and `mincore` (which say whether a shared
//!   file's pages are in memory: `mincore` answers for any file whose mode lets the caller write,
//!   even through a read-only bind) and `fadvise64` (which can drop them) answer `ENOSYS`,
//!   `preadv2` with `RWF_NOWAIT` (which reads only cached pages) `EOPNOTSUPP`, `madvise` with
//!   `MADV_COLD`/`MADV_PAGEOUT` `EPERM`; what is left (timing a first read) is in protocol.md §9;
//! * **x32 system-call numbers** (`nr | 0x4000_0000` on x86-64): a kernel built with x32 support
//!   would run `socket` or `mount` under those numbers past a filter that lists only the x86-64
//!   ones, so every number with the x32 bit answers `EPERM` (a separate hand-written program,
//!   checked before the others' verdicts are merged);
//! * set-uid and set-gid modes ([`set_id_modes`]): `chmod`, `fchmod`, `fchmodat(2)` with
//!   `S_ISUID` or `S_ISGID`, and `open`, `openat`, `creat` creating a file with them (a build's
//!   output must not carry them out of the jail; its copy-out strips them too).
//!
//! Everything else is allowed: the jail's other layers (uid, mount view, namespaces, cgroups)
//! bound what the remaining calls can reach.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// The calls refused outright.
fn denied() -> Vec<i64> {
    let mut v = vec![
        libc::SYS_socket,
        libc::SYS_ptrace,
        libc::SYS_process_vm_readv,
        libc::SYS_process_vm_writev,
        libc::SYS_pidfd_getfd,
        libc::SYS_kcmp,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_chroot,
        libc::SYS_open_tree,
        libc::SYS_move_mount,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_mount_setattr,
        libc::SYS_swapon,
        libc::SYS_swapoff,
        libc::SYS_reboot,
        libc::SYS_kexec_load,
        libc::SYS_kexec_file_load,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_sethostname,
        libc::SYS_setdomainname,
        libc::SYS_settimeofday,
        libc::SYS_clock_settime,
        libc::SYS_clock_adjtime,
        libc::SYS_adjtimex,
        libc::SYS_acct,
        libc::SYS_quotactl,
        libc::SYS_syslog,
        libc::SYS_bpf,
        libc::SYS_perf_event_open,
        libc::SYS_userfaultfd,
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_open_by_handle_at,
        libc::SYS_name_to_handle_at,
        libc::SYS_fanotify_init,
        libc::SYS_fanotify_mark,
        libc::SYS_lookup_dcookie,
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_personality,
        libc::SYS_vhangup,
    ];
    #[cfg(target_arch = "x86_64")]
    v.extend([
        libc::SYS_iopl,
        libc::SYS_ioperm,
        libc::SYS_uselib,
        libc::SYS_mknod,
    ]);
    v.push(libc::SYS_mknodat);
    v
}

/// `fcntl` commands that take or test a lock (record or open-file-description) on an inode.
const LOCK_COMMANDS: [u64; 6] = [
    libc::F_GETLK as u64,
    libc::F_SETLK as u64,
    libc::F_SETLKW as u64,
    libc::F_OFD_GETLK as u64,
    libc::F_OFD_SETLK as u64,
    libc::F_OFD_SETLKW as u64,
];

/// `fcntl` commands for leases and directory notification, both keyed by a shared inode.
const LEASE_COMMANDS: [u64; 3] = [
    libc::F_SETLEASE as u64,
    libc::F_GETLEASE as u64,
    libc::F_NOTIFY as u64,
];

/// A filter answering `errno` for `syscalls` (every call) and for `fcntl` with a command of
/// `fcntl_cmds`; everything else passes to the other filters.
fn errno_filter(
    syscalls: &[i64],
    fcntl_cmds: &[u64],
    errno: i32,
    arch: TargetArch,
) -> Result<SeccompFilter, String> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
        syscalls.iter().map(|&s| (s, Vec::new())).collect();
    if !fcntl_cmds.is_empty() {
        let by_cmd = fcntl_cmds
            .iter()
            .map(|&cmd| {
                // The command is an int: compare the low 32 bits only.
                SeccompCondition::new(1, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, cmd)
                    .and_then(|c| SeccompRule::new(vec![c]))
                    .map_err(|e| e.to_string())
            })
            .collect::<Result<Vec<_>, _>>()?;
        rules.insert(libc::SYS_fcntl, by_cmd);
    }
    SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno as u32),
        arch,
    )
    .map_err(|e| e.to_string())
}

/// `cachestat(2)` (Linux 6.5): the same number on every architecture (not in libc yet).
const SYS_CACHESTAT: i64 = 451;

/// `madvise` advice that pushes pages out of memory: on a shared file's pages, an eviction another
/// jail could time.
const EVICTING_ADVICE: [u64; 2] = [libc::MADV_COLD as u64, libc::MADV_PAGEOUT as u64];

/// The channels through shared inodes (see the module docs), one filter per answer.
fn inode_channel_filters(arch: TargetArch) -> Result<Vec<SeccompFilter>, String> {
    let madvise = {
        let by_advice = EVICTING_ADVICE
            .iter()
            .map(|&a| {
                SeccompCondition::new(2, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, a)
                    .and_then(|c| SeccompRule::new(vec![c]))
                    .map_err(|e| e.to_string())
            })
            .collect::<Result<Vec<_>, _>>()?;
        SeccompFilter::new(
            [(libc::SYS_madvise, by_advice)].into_iter().collect(),
            SeccompAction::Allow,
            SeccompAction::Errno(libc::EPERM as u32),
            arch,
        )
        .map_err(|e| e.to_string())?
    };
    // preadv2(fd, iov, iovcnt, pos_l, pos_h, flags): RWF_NOWAIT reads only what is in memory,
    // an answer to "is this page cached?" without timing. Refused as a kernel without it would.
    let nowait = {
        const RWF_NOWAIT: u64 = 0x8;
        let rule = SeccompCondition::new(
            5,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::MaskedEq(RWF_NOWAIT),
            RWF_NOWAIT,
        )
        .and_then(|c| SeccompRule::new(vec![c]))
        .map_err(|e| e.to_string())?;
        SeccompFilter::new(
            [(libc::SYS_preadv2, vec![rule])].into_iter().collect(),
            SeccompAction::Allow,
            SeccompAction::Errno(libc::EOPNOTSUPP as u32),
            arch,
        )
        .map_err(|e| e.to_string())?
    };
    Ok(vec![
        madvise,
        nowait,
        // The page cache of a shared file: its residency asked directly (cachestat) or its pages
        // dropped (fadvise DONTNEED), a bit another jail can read back.
        errno_filter(
            &[SYS_CACHESTAT, libc::SYS_fadvise64, libc::SYS_mincore],
            &[],
            libc::ENOSYS,
            arch,
        )?,
        errno_filter(&[libc::SYS_flock], &[], libc::EOPNOTSUPP, arch)?,
        errno_filter(&[], &LOCK_COMMANDS, libc::ENOLCK, arch)?,
        errno_filter(&[], &LEASE_COMMANDS, libc::EPERM, arch)?,
        errno_filter(
            &[
                #[cfg(target_arch = "x86_64")]
                libc::SYS_inotify_init,
                libc::SYS_inotify_init1,
                libc::SYS_inotify_add_watch,
            ],
            &[],
            libc::ENOSYS,
            arch,
        )?,
    ])
}

/// x86-64 only: every system-call number with the x32 bit (`__X32_SYSCALL_BIT`) answers `EPERM`.
/// seccompiler compares numbers for equality only, so this one is written in BPF by hand:
/// load the architecture; not x86-64: allow (the other filters kill a foreign architecture);
/// load the number; at or above the x32 bit: `EPERM`; else allow.
#[cfg(target_arch = "x86_64")]
fn x32_filter() -> BpfProgram {
    const AUDIT_ARCH_X86_64: u32 = 0xC000_003E;
    const X32_SYSCALL_BIT: u32 = 0x4000_0000;
    const LD_W_ABS: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
    const JEQ_K: u16 = (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16;
    const JGE_K: u16 = (libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K) as u16;
    const RET_K: u16 = (libc::BPF_RET | libc::BPF_K) as u16;
    let op = |code: u16, jt: u8, jf: u8, k: u32| seccompiler::sock_filter { code, jt, jf, k };
    vec![
        // seccomp_data.arch
        op(LD_W_ABS, 0, 0, 4),
        op(JEQ_K, 0, 3, AUDIT_ARCH_X86_64),
        // seccomp_data.nr
        op(LD_W_ABS, 0, 0, 0),
        op(JGE_K, 0, 1, X32_SYSCALL_BIT),
        op(RET_K, 0, 0, libc::SECCOMP_RET_ERRNO | libc::EPERM as u32),
        op(RET_K, 0, 0, libc::SECCOMP_RET_ALLOW),
    ]
}

/// Rules refusing to give a file the set-uid or set-gid bit: `(call, [rule, ...])`, a call refused
/// when any of its rules matches (the mode argument has the bit; for the `open` family, only
/// when the flags create a file, as the mode argument means nothing otherwise).
fn set_id_modes() -> Result<Vec<(i64, Vec<SeccompRule>)>, String> {
    let bit = |arg: u8, b: u64| {
        SeccompCondition::new(arg, SeccompCmpArgLen::Dword, SeccompCmpOp::MaskedEq(b), b)
            .map_err(|e| e.to_string())
    };
    let mode = |arg: u8| -> Result<Vec<SeccompRule>, String> {
        [libc::S_ISUID, libc::S_ISGID]
            .iter()
            .map(|&b| SeccompRule::new(vec![bit(arg, b as u64)?]).map_err(|e| e.to_string()))
            .collect()
    };
    let creating = |flags: u8, arg: u8| -> Result<Vec<SeccompRule>, String> {
        let mut v = Vec::new();
        for create in [libc::O_CREAT, libc::O_TMPFILE] {
            for b in [libc::S_ISUID, libc::S_ISGID] {
                v.push(
                    SeccompRule::new(vec![bit(flags, create as u64)?, bit(arg, b as u64)?])
                        .map_err(|e| e.to_string())?,
                );
            }
        }
        Ok(v)
    };
    let mut v = vec![
        (libc::SYS_fchmod, mode(1)?),
        (libc::SYS_fchmodat, mode(2)?),
        (libc::SYS_fchmodat2, mode(2)?),
        (libc::SYS_openat, creating(2, 3)?),
    ];
    #[cfg(target_arch = "x86_64")]
    v.extend([
        (libc::SYS_chmod, mode(1)?),
        (libc::SYS_open, creating(1, 2)?),
        (libc::SYS_creat, mode(1)?),
    ]);
    Ok(v)
}

/// `CLONE_NEW*` flags: a `clone` with any of them is refused.
const NEW_NAMESPACES: [u64; 7] = [
    libc::CLONE_NEWNS as u64,
    libc::CLONE_NEWCGROUP as u64,
    libc::CLONE_NEWUTS as u64,
    libc::CLONE_NEWIPC as u64,
    libc::CLONE_NEWUSER as u64,
    libc::CLONE_NEWPID as u64,
    libc::CLONE_NEWNET as u64,
];

fn arch() -> Result<TargetArch, String> {
    TargetArch::try_from(std::env::consts::ARCH).map_err(|e| e.to_string())
}

/// The two filters (the `EPERM` list with the `clone` flag rules, and `clone3` → `ENOSYS`),
/// compiled to BPF. Built once per referee process and copied into each child.
///
/// # Errors
/// A description when this architecture is not supported by the filter compiler.
pub fn programs() -> Result<Vec<BpfProgram>, String> {
    let arch = arch()?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
        denied().into_iter().map(|s| (s, Vec::new())).collect();
    // clone(flags, ...): the flags are argument 0 on the architectures we build for.
    let clone_rules = NEW_NAMESPACES
        .iter()
        .map(|&bit| {
            SeccompCondition::new(0, SeccompCmpArgLen::Qword, SeccompCmpOp::MaskedEq(bit), bit)
                .and_then(|c| SeccompRule::new(vec![c]))
                .map_err(|e| e.to_string())
        })
        .collect::<Result<Vec<_>, _>>()?;
    rules.insert(libc::SYS_clone, clone_rules);
    for (call, r) in set_id_modes()? {
        // A call refused outright (an empty list) stays so.
        match rules.get_mut(&call) {
            Some(v) if v.is_empty() => {}
            Some(v) => v.extend(r),
            None => {
                rules.insert(call, r);
            }
        }
    }
    let deny = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    let clone3 = SeccompFilter::new(
        [(libc::SYS_clone3, Vec::new())].into_iter().collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    let mut progs: Vec<BpfProgram> = Vec::new();
    for f in [deny, clone3]
        .into_iter()
        .chain(inode_channel_filters(arch)?)
    {
        progs.push(
            f.try_into()
                .map_err(|e: seccompiler::BackendError| e.to_string())?,
        );
    }
    #[cfg(target_arch = "x86_64")]
    progs.push(x32_filter());
    Ok(progs)
}

/// Installs `progs` on the calling thread (after `no_new_privs`, which the caller has set).
/// Async-signal-safe: two `seccomp(2)` calls on prepared programs.
pub(crate) fn apply(progs: &[BpfProgram]) -> std::io::Result<()> {
    for p in progs {
        let fprog = libc::sock_fprog {
            len: p.len() as u16,
            filter: p.as_ptr() as *mut libc::sock_filter,
        };
        // SAFETY: seccomp(SECCOMP_SET_MODE_FILTER) with a valid program.
        let r = unsafe {
            libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER,
                0,
                &fprog as *const libc::sock_fprog,
            )
        };
        crate::sys::check(r, b"seccomp")?;
    }
    Ok(())
}
