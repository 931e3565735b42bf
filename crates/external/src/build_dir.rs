//! A manifest's `build_dir` on the host: found beneath the bot's folder without following a link,
//! and, after a build that succeeded, replaced by a sanitized copy of what the build left.
//!
//! Every step works on descriptors of folders opened one component at a time with `O_NOFOLLOW`,
//! never on paths the bot's owner could change between a check and a use:
//!
//! * [`Target::open`] walks `build_dir` from the bot's folder: each component must be a real
//!   folder (a symlink is refused, naming it); missing ones are created and given to the folder's
//!   owner. Leftovers of a copy that a killed referee left half done are removed.
//! * [`Target::replace_with`] copies a tree (the build's tmpfs, read through a descriptor) into a
//!   fresh folder next to `build_dir`, private to the referee while it is filled, then swaps it
//!   with `build_dir` by name (`renameat2(RENAME_EXCHANGE)`: a link in its place is moved away, not
//!   followed) and removes the old tree. Copied are folders, regular files (modes masked with
//!   `0o755`: no set-uid, set-gid or sticky bit) and symlinks as symlinks; fifos, sockets and
//!   devices are left out (with a note). The copy counts every file by its length (a sparse file
//!   as its length, a hard link once per name) against the cap, and never crosses into another
//!   file system.

use std::ffi::{CStr, CString, OsStr, OsString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Component, Path};

/// Prefix of the fresh folders a copy is made in, next to `build_dir`.
const FRESH: &str = ".pitboss-build-";
/// The deepest folder a copy follows (two descriptors a level).
const MAX_DEPTH: usize = 64;
/// The deepest folder removal follows.
const MAX_REMOVE_DEPTH: usize = 256;

/// What a copy may hold.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cap {
    pub(crate) bytes: u64,
    pub(crate) files: u64,
}

/// `build_dir`, resolved.
pub(crate) struct Target {
    /// `build_dir` as the manifest writes it (for messages).
    shown: String,
    /// The folder holding `build_dir`.
    parent: OwnedFd,
    name: CString,
    /// The owner copies are given to (when the referee is root and so can give them).
    owner: Option<(u32, u32)>,
    /// Folders made by [`Target::open`], last first: removed again after a failed build if they
    /// are still empty.
    created: Vec<(OwnedFd, CString)>,
}

fn cstr(s: &OsStr) -> io::Result<CString> {
    CString::new(s.as_bytes()).map_err(|_| io::Error::other("a name with a NUL byte"))
}

fn fd_result(fd: libc::c_int) -> io::Result<OwnedFd> {
    if fd < 0 {
        Err(io::Error::last_os_error())
    } else {
        // SAFETY: a descriptor just returned to us.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }
}

fn unit(r: libc::c_int) -> io::Result<()> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// `lstat` of `name` in `dir`.
fn lstat_at(dir: &OwnedFd, name: &CStr) -> io::Result<libc::stat> {
    // SAFETY: fstatat into a zeroed struct.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        unit(libc::fstatat(
            dir.as_raw_fd(),
            name.as_ptr(),
            &mut st,
            libc::AT_SYMLINK_NOFOLLOW,
        ))?;
        Ok(st)
    }
}

fn fstat(fd: &OwnedFd) -> io::Result<libc::stat> {
    // SAFETY: fstat into a zeroed struct.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        unit(libc::fstat(fd.as_raw_fd(), &mut st))?;
        Ok(st)
    }
}

/// Opens the folder `name` in `dir`, never through a symlink.
fn open_dir_at(dir: &OwnedFd, name: &CStr) -> io::Result<OwnedFd> {
    // SAFETY: openat of a C string relative to a descriptor we own.
    fd_result(unsafe {
        libc::openat(
            dir.as_raw_fd(),
            name.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        )
    })
}

fn is(st: &libc::stat, kind: libc::mode_t) -> bool {
    st.st_mode & libc::S_IFMT == kind
}

/// The names in the folder `dir` (`.` and `..` left out).
fn entries(dir: &OwnedFd) -> io::Result<Vec<CString>> {
    // SAFETY: fdopendir takes a duplicate we own (closed by closedir); readdir's entries are read
    // before the next call.
    unsafe {
        let dup = libc::fcntl(dir.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 0);
        if dup < 0 {
            return Err(io::Error::last_os_error());
        }
        let d = libc::fdopendir(dup);
        if d.is_null() {
            let e = io::Error::last_os_error();
            libc::close(dup);
            return Err(e);
        }
        libc::rewinddir(d);
        let mut out = Vec::new();
        loop {
            *libc::__errno_location() = 0;
            let e = libc::readdir64(d);
            if e.is_null() {
                let err = *libc::__errno_location();
                libc::closedir(d);
                if err != 0 {
                    return Err(io::Error::from_raw_os_error(err));
                }
                return Ok(out);
            }
            let name = CStr::from_ptr((*e).d_name.as_ptr());
            if name != c"." && name != c".." {
                out.push(name.to_owned());
            }
        }
    }
}

/// Removes `name` in `dir` — a tree, a file or a link (never followed).
fn remove_at(dir: &OwnedFd, name: &CStr, depth: usize) -> io::Result<()> {
    let st = match lstat_at(dir, name) {
        Ok(st) => st,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    let flag = if is(&st, libc::S_IFDIR) {
        if depth > MAX_REMOVE_DEPTH {
            return Err(io::Error::other("folders nested too deep to remove"));
        }
        let d = open_dir_at(dir, name)?;
        for e in entries(&d)? {
            remove_at(&d, &e, depth + 1)?;
        }
        libc::AT_REMOVEDIR
    } else {
        0
    };
    // SAFETY: unlinkat of a C string relative to a descriptor we own.
    unit(unsafe { libc::unlinkat(dir.as_raw_fd(), name.as_ptr(), flag) })
}

fn chown_fd(fd: &OwnedFd, owner: Option<(u32, u32)>) -> io::Result<()> {
    match owner {
        // SAFETY: fchown of a descriptor we own.
        Some((u, g)) => unit(unsafe { libc::fchown(fd.as_raw_fd(), u, g) }),
        None => Ok(()),
    }
}

impl Target {
    /// Resolves `rel` (relative, no `..`: the manifest loader made sure) beneath `base`, creating
    /// what is missing.
    ///
    /// # Errors
    /// A message naming `build_dir` and the component that is a symlink or no folder.
    pub(crate) fn open(base: &Path, rel: &Path) -> Result<Target, String> {
        let shown = rel.display().to_string();
        let fail = |what: &str, e: io::Error| format!("build_dir {shown:?}: {what}: {e}");
        let c = cstr(base.as_os_str()).map_err(|e| fail("the bot's folder", e))?;
        // SAFETY: open of a C string.
        let base_fd = fd_result(unsafe {
            libc::open(
                c.as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        })
        .map_err(|e| fail("the bot's folder", e))?;
        let st = fstat(&base_fd).map_err(|e| fail("the bot's folder", e))?;
        // SAFETY: geteuid has no preconditions.
        let owner = (unsafe { libc::geteuid() } == 0).then_some((st.st_uid, st.st_gid));
        let names: Vec<&OsStr> = rel
            .components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(Ok(n)),
                Component::CurDir => None,
                _ => Some(Err(())),
            })
            .collect::<Result<_, _>>()
            .map_err(|()| {
                format!("build_dir {shown:?}: must be a folder beneath the bot's folder")
            })?;
        let Some((last, _)) = names.split_last() else {
            return Err(format!(
                "build_dir {shown:?}: must be a folder beneath the bot's folder"
            ));
        };
        let mut created = Vec::new();
        let mut cur = base_fd;
        let mut parent = None;
        let mut so_far = std::path::PathBuf::new();
        for n in &names {
            so_far.push(n);
            let name = cstr(n).map_err(|e| fail("a name", e))?;
            let link = || {
                format!(
                    "build_dir {shown:?}: {:?} is a symbolic link or no folder: a build writes \
                     only into a real folder beneath its bot's folder",
                    so_far.display()
                )
            };
            let mut made = false;
            match lstat_at(&cur, &name) {
                Ok(st) if is(&st, libc::S_IFDIR) => {}
                Ok(_) => return Err(link()),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    // SAFETY: mkdirat of a C string relative to a descriptor we own.
                    let r = unit(unsafe { libc::mkdirat(cur.as_raw_fd(), name.as_ptr(), 0o755) });
                    match r {
                        Ok(()) => made = true,
                        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                        Err(e) => return Err(fail(&so_far.display().to_string(), e)),
                    }
                }
                Err(e) => return Err(fail(&so_far.display().to_string(), e)),
            }
            let next = open_dir_at(&cur, &name).map_err(|e| match e.raw_os_error() {
                Some(libc::ELOOP | libc::ENOTDIR) => link(),
                _ => fail(&so_far.display().to_string(), e),
            })?;
            if made {
                chown_fd(&next, owner).map_err(|e| fail("giving it to its owner", e))?;
                let dup = cur.try_clone().map_err(|e| fail("a folder", e))?;
                created.push((dup, name.clone()));
            }
            parent = Some(std::mem::replace(&mut cur, next));
        }
        let parent = parent.expect("at least one component");
        created.reverse();
        let t = Target {
            shown: shown.clone(),
            parent,
            name: cstr(last).map_err(|e| fail("a name", e))?,
            owner,
            created,
        };
        t.remove_stale();
        Ok(t)
    }

    /// Removes what a copy killed midway left next to `build_dir`: fresh folders of referees
    /// that are gone (`.pitboss-build-<pid>-<n>`; a live one may be copying right now).
    fn remove_stale(&self) {
        let Ok(names) = entries(&self.parent) else {
            return;
        };
        for n in names {
            let Some(rest) = n.to_bytes().strip_prefix(FRESH.as_bytes()) else {
                continue;
            };
            let pid = rest.split(|&b| b == b'-').next().unwrap_or_default();
            let pid = std::str::from_utf8(pid)
                .ok()
                .and_then(|p| p.parse::<u32>().ok());
            let live = pid.is_some_and(|p| Path::new(&format!("/proc/{p}")).exists());
            if !live {
                if let Err(e) = remove_at(&self.parent, &n, 0) {
                    tracing::warn!("removing the leftover {n:?} next to build_dir: {e}");
                }
            }
        }
    }

    /// `build_dir` itself, opened.
    ///
    /// # Errors
    /// When it is no longer a folder.
    pub(crate) fn dir(&self) -> io::Result<OwnedFd> {
        open_dir_at(&self.parent, &self.name)
    }

    /// After a failed build: the folders [`Target::open`] made go again if they are empty.
    pub(crate) fn discard(&self) {
        for (dir, name) in &self.created {
            // SAFETY: unlinkat of a C string relative to a descriptor we own (an empty folder
            // only: rmdir semantics).
            unsafe {
                libc::unlinkat(dir.as_raw_fd(), name.as_ptr(), libc::AT_REMOVEDIR);
            }
        }
    }

    /// Replaces `build_dir` by a sanitized copy of the tree `src`; returns notes on what was
    /// left out.
    ///
    /// # Errors
    /// A message naming `build_dir`: the tree exceeds `cap`, or a file could not be copied. The
    /// old `build_dir` is then untouched and the partial copy removed.
    pub(crate) fn replace_with(&self, src: &OwnedFd, cap: Cap) -> Result<Vec<String>, String> {
        let fail = |e: String| format!("build_dir {:?}: {e}", self.shown);
        let (fresh, dst) = self
            .fresh()
            .map_err(|e| fail(format!("a fresh folder: {e}")))?;
        let root = fstat(src).map_err(|e| fail(e.to_string()))?;
        let mut copy = Copy {
            left: cap,
            cap,
            dev: root.st_dev,
            owner: self.owner,
            notes: Vec::new(),
        };
        let done = copy
            .tree(src, &dst, Path::new(""), 0)
            .and_then(|()| {
                // SAFETY: fchmod of a descriptor we own.
                unit(unsafe { libc::fchmod(dst.as_raw_fd(), 0o755) })
                    .and_then(|()| chown_fd(&dst, self.owner))
                    .map_err(|e| e.to_string())
            })
            .and_then(|()| {
                self.swap(&fresh)
                    .map_err(|e| format!("putting it in place: {e}"))
            });
        if let Err(e) = done {
            let _ = remove_at(&self.parent, &fresh, 0);
            return Err(fail(e));
        }
        // The old tree now has the fresh name.
        if let Err(e) = remove_at(&self.parent, &fresh, 0) {
            tracing::warn!("build_dir {:?}: removing the old tree: {e}", self.shown);
        }
        Ok(copy.notes)
    }

    /// A fresh folder next to `build_dir`, private to the referee.
    fn fresh(&self) -> io::Result<(CString, OwnedFd)> {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        loop {
            let name = CString::new(format!(
                "{FRESH}{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::Relaxed)
            ))
            .expect("no NUL");
            // SAFETY: mkdirat of a C string relative to a descriptor we own.
            match unit(unsafe { libc::mkdirat(self.parent.as_raw_fd(), name.as_ptr(), 0o700) }) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
            let fd = open_dir_at(&self.parent, &name)?;
            // SAFETY: geteuid has no preconditions.
            if fstat(&fd)?.st_uid != unsafe { libc::geteuid() } {
                return Err(io::Error::other("the fresh folder was replaced"));
            }
            return Ok((name, fd));
        }
    }

    /// Exchanges the names `fresh` and `build_dir` (or just renames, if `build_dir` is gone).
    fn swap(&self, fresh: &CStr) -> io::Result<()> {
        let p = self.parent.as_raw_fd();
        // SAFETY: renameat2 of C strings relative to a descriptor we own.
        let r = unsafe {
            libc::renameat2(
                p,
                fresh.as_ptr(),
                p,
                self.name.as_ptr(),
                libc::RENAME_EXCHANGE,
            )
        };
        match unit(r) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                // SAFETY: as above.
                unit(unsafe {
                    libc::renameat2(
                        p,
                        fresh.as_ptr(),
                        p,
                        self.name.as_ptr(),
                        libc::RENAME_NOREPLACE,
                    )
                })?;
                // Nothing old to remove: the fresh name is free again.
                Ok(())
            }
            other => other,
        }
    }
}

/// One copy's state.
struct Copy {
    left: Cap,
    cap: Cap,
    dev: libc::dev_t,
    owner: Option<(u32, u32)>,
    notes: Vec<String>,
}

impl Copy {
    fn over(&self) -> String {
        format!(
            "the build left more than a build_dir may hold ({} MiB in {} files and folders)",
            self.cap.bytes >> 20,
            self.cap.files
        )
    }

    /// Copies the entries of `src` into `dst` (`at`: their path, for messages).
    fn tree(
        &mut self,
        src: &OwnedFd,
        dst: &OwnedFd,
        at: &Path,
        depth: usize,
    ) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!(
                "{}: folders nested deeper than {MAX_DEPTH}",
                at.display()
            ));
        }
        let names = entries(src).map_err(|e| format!("{}: {e}", at.display()))?;
        for name in names {
            let path = at.join(OsString::from_vec(name.to_bytes().to_vec()));
            let err = |e: io::Error| format!("{}: {e}", path.display());
            let st = lstat_at(src, &name).map_err(err)?;
            let special = match st.st_mode & libc::S_IFMT {
                libc::S_IFDIR | libc::S_IFREG | libc::S_IFLNK => None,
                libc::S_IFIFO => Some("a fifo"),
                libc::S_IFSOCK => Some("a socket"),
                _ => Some("a device"),
            };
            if let Some(what) = special {
                self.notes
                    .push(format!("{} left out: {what}", path.display()));
                continue;
            }
            if st.st_dev != self.dev {
                self.notes
                    .push(format!("{} left out: another file system", path.display()));
                continue;
            }
            if self.left.files == 0 {
                return Err(self.over());
            }
            self.left.files -= 1;
            if is(&st, libc::S_IFDIR) {
                let s = open_dir_at(src, &name).map_err(err)?;
                // SAFETY: mkdirat of a C string relative to a descriptor we own.
                unit(unsafe { libc::mkdirat(dst.as_raw_fd(), name.as_ptr(), 0o700) })
                    .map_err(err)?;
                let d = open_dir_at(dst, &name).map_err(err)?;
                self.tree(&s, &d, &path, depth + 1)?;
                let mode = (st.st_mode & 0o755) | 0o700;
                // SAFETY: fchmod of a descriptor we own.
                unit(unsafe { libc::fchmod(d.as_raw_fd(), mode) }).map_err(err)?;
                chown_fd(&d, self.owner).map_err(err)?;
            } else if is(&st, libc::S_IFREG) {
                let len = st.st_size.max(0) as u64;
                if len > self.left.bytes {
                    return Err(self.over());
                }
                self.left.bytes -= len;
                self.file(src, dst, &name, &st).map_err(err)?;
            } else {
                let mut buf = vec![0u8; libc::PATH_MAX as usize];
                // SAFETY: readlinkat into a buffer of the length given.
                let n = unsafe {
                    libc::readlinkat(
                        src.as_raw_fd(),
                        name.as_ptr(),
                        buf.as_mut_ptr().cast(),
                        buf.len(),
                    )
                };
                if n < 0 {
                    return Err(err(io::Error::last_os_error()));
                }
                buf.truncate(n as usize);
                let target = CString::new(buf).map_err(|_| err(io::Error::other("NUL")))?;
                // SAFETY: symlinkat and fchownat of C strings relative to a descriptor we own.
                unsafe {
                    unit(libc::symlinkat(
                        target.as_ptr(),
                        dst.as_raw_fd(),
                        name.as_ptr(),
                    ))
                    .map_err(err)?;
                    if let Some((u, g)) = self.owner {
                        unit(libc::fchownat(
                            dst.as_raw_fd(),
                            name.as_ptr(),
                            u,
                            g,
                            libc::AT_SYMLINK_NOFOLLOW,
                        ))
                        .map_err(err)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Copies the regular file `name` (`st`: what `lstat` said) of `src` into `dst`: at most its
    /// length, mode masked with `0o755`.
    fn file(&self, src: &OwnedFd, dst: &OwnedFd, name: &CStr, st: &libc::stat) -> io::Result<()> {
        // SAFETY: openat of C strings relative to descriptors we own.
        let (s, d) = unsafe {
            let s = fd_result(libc::openat(
                src.as_raw_fd(),
                name.as_ptr(),
                libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC,
            ))?;
            let now = fstat(&s)?;
            if !is(&now, libc::S_IFREG) || now.st_ino != st.st_ino {
                return Err(io::Error::other("changed while being copied"));
            }
            let d = fd_result(libc::openat(
                dst.as_raw_fd(),
                name.as_ptr(),
                libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                0o600 as libc::c_uint,
            ))?;
            (s, d)
        };
        let mut from = std::fs::File::from(s);
        let mut to = std::fs::File::from(d);
        let len = st.st_size.max(0) as u64;
        std::io::copy(&mut io::Read::take(&mut from, len), &mut to)?;
        let fd = OwnedFd::from(to);
        // SAFETY: fchmod of a descriptor we own.
        unit(unsafe { libc::fchmod(fd.as_raw_fd(), st.st_mode & 0o755) })?;
        chown_fd(&fd, self.owner)
    }
}
