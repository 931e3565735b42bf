//! The jail's mount view: a new root on a small tmpfs holding, at their own paths, read-only binds
//! of the system directories and of what the bot may read, read-write binds of what it may write,
//! a private `/tmp`, a build's output tmpfs (see `output`), a `/proc` of its PID namespace and a
//! handful of device files. Computed in the
//! parent as a list of operations on C strings; applied in the child by [`MountPlan::apply`] with
//! raw system calls, then `pivot_root`, so nothing of the host outside the list stays reachable.
//! `/proc` is mounted with `hidepid=2`: the bot sees its own processes only, not the jail's init
//! (a fork of the referee, whose command line it still carries).

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::CString;
use std::io;
use std::path::{Path, PathBuf};

use libc::c_ulong;

use crate::resolve::{resolve, Base, Resolved};
use crate::sys::check_i;
use crate::{cstring, JailError, OutputDir};

/// System directories every jailed program may read (symlinks, as in merged-/usr systems, are
/// recreated as symlinks).
const SYSTEM: &[&str] = &[
    "/usr", "/etc", "/opt", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
];
/// Device files bound into `/dev`.
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    Ro,
    Rw,
    Dev,
    Symlink(PathBuf),
    Tmpfs,
    Proc,
    /// A build's output folder: a tmpfs of `mb` MiB and `files` inodes.
    Output {
        mb: u64,
        files: u64,
    },
}

enum Op {
    Dir(CString),
    File(CString),
    Symlink {
        target: CString,
        link: CString,
    },
    Bind {
        src: CString,
        dst: CString,
        remount: c_ulong,
        /// For a path of the bot's: the identity (device, inode) the referee resolved; the
        /// init opens `src` again with no link and binds it only if it is still that object.
        expect: Option<(u64, u64)>,
    },
    Tmpfs {
        dst: CString,
        data: CString,
    },
    Proc(CString),
}

/// The prepared view.
pub(crate) struct MountPlan {
    staging: CString,
    ops: Vec<Op>,
    old: CString,
    /// The working folder's real path (as resolved, so as the view has it).
    pub(crate) workdir: PathBuf,
}

/// The folder new roots are assembled on: one per euid, reused by every jail (each mounts its
/// own tmpfs on it in its own mount namespace, so the host only ever sees an empty folder).
fn staging_dir() -> Result<PathBuf, JailError> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    // SAFETY: geteuid has no preconditions.
    let euid = unsafe { libc::geteuid() };
    let dir = PathBuf::from(format!("/tmp/.pitboss-jail-{euid}"));
    let err = |source| JailError::Path {
        path: dir.display().to_string(),
        source,
    };
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(err(e)),
    }
    let md = std::fs::symlink_metadata(&dir).map_err(err)?;
    if !md.is_dir() || md.uid() != euid {
        return Err(err(io::Error::other(
            "exists and is not a folder of the referee's user",
        )));
    }
    Ok(dir)
}

/// Mount flags of the file system holding `p`, as far as a bind remount must keep them.
fn kept_flags(p: &Path) -> c_ulong {
    let Ok(c) = cstring(p) else { return 0 };
    // SAFETY: statvfs into a zeroed struct.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return 0;
    }
    flags_of(&st)
}

/// [`kept_flags`] of an opened path.
fn kept_flags_fd(r: &Resolved) -> c_ulong {
    use std::os::fd::AsRawFd;
    // SAFETY: fstatvfs into a zeroed struct.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstatvfs(r.fd.as_raw_fd(), &mut st) } != 0 {
        return 0;
    }
    flags_of(&st)
}

fn flags_of(st: &libc::statvfs) -> c_ulong {
    let mut f = 0;
    for (s, m) in [
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOSUID, libc::MS_NOSUID),
    ] {
        if st.f_flag & s != 0 {
            f |= m;
        }
    }
    f
}

impl MountPlan {
    /// The view for `read` (read-only) and `write` (read-write) paths and the working folder;
    /// `/tmp` is a tmpfs of `scratch_mb` MiB; `output` a fresh tmpfs owned by the jail's `uid`
    /// (the init's own uid in a user namespace). Paths inside `base` (the bot's folder) are
    /// opened beneath it with no link ([`crate::resolve`]).
    pub(crate) fn new(
        read: &[PathBuf],
        write: &[PathBuf],
        workdir: Option<&Path>,
        base: Option<&Path>,
        scratch_mb: u64,
        output: Option<&OutputDir>,
        uid: Option<u32>,
    ) -> Result<MountPlan, JailError> {
        let staging = staging_dir()?;
        let mut want: BTreeMap<PathBuf, Kind> = BTreeMap::new();
        for s in SYSTEM {
            let p = Path::new(s);
            match std::fs::symlink_metadata(p) {
                Ok(m) if m.file_type().is_symlink() => {
                    if let Ok(t) = std::fs::read_link(p) {
                        want.insert(p.into(), Kind::Symlink(t));
                    }
                }
                Ok(m) if m.is_dir() => {
                    want.insert(p.into(), Kind::Ro);
                }
                _ => {}
            }
        }
        want.insert("/tmp".into(), Kind::Tmpfs);
        want.insert("/proc".into(), Kind::Proc);
        for d in DEVICES {
            if Path::new(d).exists() {
                want.insert(d.into(), Kind::Dev);
            }
        }
        let base = match base {
            Some(b) => Some(Base::open(b)?),
            None => None,
        };
        // Every path of the bot's is opened once, here; the init binds the descriptors.
        let mut fds: BTreeMap<PathBuf, Resolved> = BTreeMap::new();
        for p in read {
            if let Some(r) = resolve(p, base.as_ref(), &staging, true)? {
                want.entry(r.path.clone()).or_insert(Kind::Ro);
                fds.entry(r.path.clone()).or_insert(r);
            }
        }
        for p in write {
            let r = resolve(p, base.as_ref(), &staging, false)?.expect("not optional");
            want.insert(r.path.clone(), Kind::Rw);
            fds.insert(r.path.clone(), r);
        }
        if let Some(o) = output {
            // Its own path, not the canonical one: a mount point that is a symlink now mounts
            // the tmpfs elsewhere (in the jail's own namespace, harmlessly), and the referee,
            // which opens the path with no symlink followed, finds no tmpfs there.
            let forbidden = o.path == Path::new("/")
                || ["/proc", "/sys", "/dev"]
                    .iter()
                    .any(|s| o.path.starts_with(s))
                || o.path.starts_with(&staging);
            if !o.path.is_absolute() || forbidden {
                return Err(JailError::Path {
                    path: o.path.display().to_string(),
                    source: io::Error::other(
                        "an output folder must be an absolute path outside /proc, /sys, /dev",
                    ),
                });
            }
            want.insert(
                o.path.clone(),
                Kind::Output {
                    mb: o.mb,
                    files: o.files,
                },
            );
        }
        let workdir = match workdir {
            Some(w) if w != Path::new("/") => {
                let r = resolve(w, base.as_ref(), &staging, false)?.expect("not optional");
                let path = r.path.clone();
                want.entry(path.clone()).or_insert(Kind::Ro);
                fds.entry(path.clone()).or_insert(r);
                path
            }
            _ => PathBuf::from("/"),
        };
        // A read-only path inside another read-only path adds nothing.
        let ro_roots: Vec<PathBuf> = want
            .iter()
            .filter(|(_, k)| **k == Kind::Ro)
            .map(|(p, _)| p.clone())
            .collect();
        want.retain(|p, k| {
            *k != Kind::Ro
                || !ro_roots
                    .iter()
                    .any(|r| r != p && p.starts_with(r) && !under_special(p, r))
        });

        let mut ops = Vec::new();
        let mut made: BTreeSet<PathBuf> = BTreeSet::new();
        let inside = |p: &Path| staging.join(p.strip_prefix("/").unwrap_or(p));
        for (p, kind) in &want {
            // Parent folders of the mount point, in the new root.
            let mut parents: Vec<&Path> = p.ancestors().skip(1).collect();
            parents.reverse();
            for a in parents {
                if a == Path::new("/") || made.contains(a) {
                    continue;
                }
                made.insert(a.to_path_buf());
                ops.push(Op::Dir(cstring(&inside(a))?));
            }
            let dst = cstring(&inside(p))?;
            made.insert(p.clone());
            match kind {
                Kind::Symlink(t) => ops.push(Op::Symlink {
                    target: cstring(t)?,
                    link: dst,
                }),
                Kind::Tmpfs => {
                    ops.push(Op::Dir(dst.clone()));
                    let data = format!("mode=1777,size={}m", scratch_mb.max(1));
                    ops.push(Op::Tmpfs {
                        dst,
                        data: CString::new(data).expect("no NUL"),
                    });
                }
                &Kind::Output { mb, files } => {
                    // The mount point exists (in a read-only bind: mkdir only says EEXIST).
                    ops.push(Op::Dir(dst.clone()));
                    let owner = uid.map_or_else(String::new, |u| format!(",uid={u},gid={u}"));
                    let data = format!(
                        "mode=0755,size={}m,nr_inodes={}{owner}",
                        mb.max(1),
                        files.max(16)
                    );
                    ops.push(Op::Tmpfs {
                        dst,
                        data: CString::new(data).expect("no NUL"),
                    });
                }
                Kind::Proc => {
                    ops.push(Op::Dir(dst.clone()));
                    ops.push(Op::Proc(dst));
                }
                Kind::Ro | Kind::Rw | Kind::Dev => {
                    // The bot's paths are bound from the descriptors opened above; the system
                    // directories and device files by their (fixed, host) paths.
                    let (is_dir, flags, expect) = match fds.get(p) {
                        Some(r) => (r.is_dir, kept_flags_fd(r), Some(r.identity())),
                        None => (p.is_dir(), kept_flags(p), None),
                    };
                    let src = cstring(p)?;
                    ops.push(if is_dir {
                        Op::Dir(dst.clone())
                    } else {
                        Op::File(dst.clone())
                    });
                    let mut remount = libc::MS_REMOUNT | libc::MS_BIND | libc::MS_NOSUID | flags;
                    match kind {
                        Kind::Ro => remount |= libc::MS_RDONLY | libc::MS_NODEV,
                        Kind::Rw => remount |= libc::MS_NODEV,
                        _ => remount &= !libc::MS_NODEV,
                    }
                    ops.push(Op::Bind {
                        src,
                        dst,
                        remount,
                        expect,
                    });
                }
            }
        }
        let old = inside(Path::new("/.old"));
        ops.push(Op::Dir(cstring(&old)?));
        Ok(MountPlan {
            staging: cstring(&staging)?,
            ops,
            old: cstring(&old)?,
            workdir,
        })
    }

    /// Builds the view and makes it the root. Runs in the jail's init, in its own mount
    /// namespace, before anything else of the bot.
    pub(crate) fn apply(&self) -> io::Result<()> {
        let none = std::ptr::null();
        // SAFETY: mount/mkdir/open/symlink/pivot_root on prepared C strings.
        unsafe {
            check_i(
                libc::mount(
                    c"none".as_ptr(),
                    c"/".as_ptr(),
                    none,
                    libc::MS_REC | libc::MS_PRIVATE,
                    none.cast(),
                ),
                b"make / private",
            )?;
            check_i(
                libc::mount(
                    c"tmpfs".as_ptr(),
                    self.staging.as_ptr(),
                    c"tmpfs".as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV,
                    c"mode=0755,size=4m".as_ptr().cast(),
                ),
                b"mount the new root",
            )?;
            for op in &self.ops {
                match op {
                    Op::Dir(d) => {
                        if libc::mkdir(d.as_ptr(), 0o755) != 0
                            && *libc::__errno_location() != libc::EEXIST
                        {
                            check_i(-1, b"mkdir in the new root")?;
                        }
                    }
                    Op::File(f) => {
                        let fd = libc::open(
                            f.as_ptr(),
                            libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC,
                            0o644,
                        );
                        check_i(fd, b"mount point file")?;
                        libc::close(fd);
                    }
                    Op::Symlink { target, link } => {
                        check_i(libc::symlink(target.as_ptr(), link.as_ptr()), b"symlink")?;
                    }
                    Op::Bind {
                        src,
                        dst,
                        remount,
                        expect,
                    } => {
                        match expect {
                            Some(id) => bind_checked(src, dst, *id)?,
                            None => check_i(
                                libc::mount(
                                    src.as_ptr(),
                                    dst.as_ptr(),
                                    none,
                                    libc::MS_BIND | libc::MS_REC,
                                    none.cast(),
                                ),
                                b"bind mount",
                            )?,
                        }
                        check_i(
                            libc::mount(none, dst.as_ptr(), none, *remount, none.cast()),
                            b"remount a bind",
                        )?;
                    }
                    Op::Tmpfs { dst, data } => {
                        check_i(
                            libc::mount(
                                c"tmpfs".as_ptr(),
                                dst.as_ptr(),
                                c"tmpfs".as_ptr(),
                                libc::MS_NOSUID | libc::MS_NODEV,
                                data.as_ptr().cast(),
                            ),
                            b"mount a tmpfs (/tmp, output folder)",
                        )?;
                    }
                    Op::Proc(dst) => {
                        check_i(
                            libc::mount(
                                c"proc".as_ptr(),
                                dst.as_ptr(),
                                c"proc".as_ptr(),
                                libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                                // The jail's init is a fork of the referee: its command line
                                // must not be readable. hidepid=2 shows a process only to its
                                // own uid, and the init's is not the bot's.
                                c"hidepid=2".as_ptr().cast(),
                            ),
                            b"mount /proc",
                        )?;
                    }
                }
            }
            check_i(
                libc::syscall(
                    libc::SYS_pivot_root,
                    self.staging.as_ptr(),
                    self.old.as_ptr(),
                ) as i32,
                b"pivot_root",
            )?;
            check_i(libc::chdir(c"/".as_ptr()), b"chdir /")?;
            check_i(
                libc::umount2(c"/.old".as_ptr(), libc::MNT_DETACH),
                b"detach the old root",
            )?;
            libc::rmdir(c"/.old".as_ptr());
            check_i(
                libc::mount(
                    none,
                    c"/".as_ptr(),
                    none,
                    libc::MS_REMOUNT | libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV,
                    none.cast(),
                ),
                b"make the new root read-only",
            )?;
        }
        Ok(())
    }
}

/// Whether `p` lies below one of the special mounts under `root` (a bind of `/tmp/x` must not
/// be dropped as redundant because `/` or `/tmp` is read-only: `/tmp` is a fresh tmpfs).
fn under_special(p: &Path, root: &Path) -> bool {
    ["/tmp", "/proc", "/dev"]
        .iter()
        .any(|s| p.starts_with(s) && !root.starts_with(s))
}

/// Binds the bot's path `src` (a real path: no link in it) at `dst`, in the jail's init.
///
/// The referee resolved `src` beneath the bot's folder and recorded what it is (`expect`: device
/// and inode). A descriptor opened before the jail's mount namespace existed cannot be the
/// source of a bind in it (the kernel refuses mounts of another namespace), so the init opens the
/// path again, with `openat2(RESOLVE_NO_SYMLINKS)`, checks that it is still the same object, and
/// binds that descriptor (`/proc/self/fd/N`): a link swapped in meanwhile is refused by the
/// look-up, a different file or folder by the identity check. Where the kernel has no `openat2`,
/// `O_NOFOLLOW` on the last component and the identity check.
///
/// # Safety
/// Runs in the forked child: raw system calls on prepared data, no allocation.
unsafe fn bind_checked(src: &CString, dst: &CString, expect: (u64, u64)) -> io::Result<()> {
    let mut fd = crate::sys::openat2(
        libc::AT_FDCWD,
        src,
        libc::O_PATH,
        libc::RESOLVE_NO_SYMLINKS | libc::RESOLVE_NO_MAGICLINKS,
    );
    if fd < 0 && *libc::__errno_location() == libc::ENOSYS {
        fd = libc::open(
            src.as_ptr(),
            libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        );
    }
    check_i(
        fd,
        b"open a path of the bot's again (a link appeared on it?)",
    )?;
    let mut st: libc::stat = std::mem::zeroed();
    if libc::fstat(fd, &mut st) != 0 || (st.st_dev, st.st_ino) != expect {
        libc::close(fd);
        crate::sys::report(
            b"a path of the bot's changed between its check and its bind",
            libc::EXDEV,
        );
        return Err(io::Error::from_raw_os_error(libc::EXDEV));
    }
    // "/proc/self/fd/" and the number, on the stack (the zeroed rest ends the C string).
    let mut buf = [0u8; 32];
    let prefix = b"/proc/self/fd/";
    buf[..prefix.len()].copy_from_slice(prefix);
    crate::sys::put_uint(&mut buf[prefix.len()..], fd as u32);
    let r = libc::mount(
        buf.as_ptr().cast(),
        dst.as_ptr(),
        std::ptr::null(),
        libc::MS_BIND | libc::MS_REC,
        std::ptr::null(),
    );
    libc::close(fd);
    check_i(r, b"bind mount")
}
