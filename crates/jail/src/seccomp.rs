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
    Ok(vec![
        deny.try_into()
            .map_err(|e: seccompiler::BackendError| e.to_string())?,
        clone3
            .try_into()
            .map_err(|e: seccompiler::BackendError| e.to_string())?,
    ])
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
