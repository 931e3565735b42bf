//! The files of a submitted bot, read once, beneath its folder, without trusting any of them
//! (issue 23 item 7): what `pitboss submit` hashes (`Entry.hash`) and copies into the registry.
//!
//! A bot folder is written by the bot's author, and `submit` may run as root, so nothing in it is
//! followed or believed:
//!
//! * The folder is opened once (`O_DIRECTORY | O_NOFOLLOW`), and everything below it is reached
//!   from that descriptor, one name at a time (`fstatat(AT_SYMLINK_NOFOLLOW)`, then
//!   `openat(O_NOFOLLOW | O_NONBLOCK)` and `fstat` of the opened descriptor, which decides): a
//!   path is never resolved twice, so nothing can be swapped between a check and a use.
//! * Only regular files and folders are taken. **Every symbolic link is refused** (inside the
//!   folder or not: one that stays inside today can be retargeted, and copying links faithfully
//!   would need the resolution rules of the jail here too), and so are fifos, sockets, devices, a
//!   file with more than one hard link (another name for it may lie outside the folder, e.g. a
//!   root-only file on a machine without `fs.protected_hardlinks`) and another file system mounted
//!   inside the folder (a FUSE mount could block a read forever). A device or fifo is never opened.
//! * At most [`MAX_FILES`] files and folders and [`MAX_BYTES`] bytes in all, counted from `st_size`
//!   before anything is read (a sparse file counts by its length), nested at most [`MAX_DEPTH`]
//!   folders deep; the operator may change the first two with `--max-files` / `--max-size-mb`.
//! * Files are read in [`CHUNK`]-sized pieces and exactly `st_size` bytes: a file that grows or
//!   shrinks while it is read is refused.
//! * Each refusal is an error naming the file, relative to the bot's folder.
//!
//! What is read: for a manifest, its whole folder except the manifest's `build_dir` when it has a
//! `build` command (what the build makes is not the submission, and a Rust `target/` would exceed
//! every limit); for an `exec:` spec, the one file it runs (the script after an interpreter, else
//! the program when it is a path), opened the same way in its folder; for a built-in bot, nothing.
//!
//! The copy (when asked for) goes into a folder that must not exist yet: every folder is created
//! with `mkdirat`, every file with `O_CREAT | O_EXCL | O_NOFOLLOW`, permissions kept without
//! set-uid, set-gid or sticky bits.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Component, Path, PathBuf};

use sha2::{Digest, Sha256};

use sys::{fchmod, fstat, list, lstatat, mkdirat, openat, readlinkat};

/// Files and folders a submission may have (the folder itself not counted): far above any bot's
/// sources, low enough that listing, hashing and copying stay quick.
pub const MAX_FILES: u64 = 10_000;
/// Total bytes of a submission's files, counted by length (`st_size`, so a sparse file counts as
/// large as it claims to be): 256 MiB.
pub const MAX_BYTES: u64 = 256 << 20;
/// How deep folders may nest below the bot's folder (each level holds one descriptor open).
pub const MAX_DEPTH: usize = 64;
/// The size of one read: the referee never holds more of a bot's file at once.
pub const CHUNK: usize = 64 << 10;
/// The manifest is also parsed here (for its `build_dir`); a larger one is not a manifest.
const MAX_MANIFEST: u64 = 1 << 20;

/// Programs that run a script (as `pitboss_arena::spec` names `exec:` bots): for an `exec:` spec
/// through one of them the script is the bot's file.
const INTERPRETERS: [&str; 9] = [
    "python", "python3", "node", "ruby", "perl", "sh", "bash", "java", "deno",
];

/// The operator's maxima for one submission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub files: u64,
    pub bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            files: MAX_FILES,
            bytes: MAX_BYTES,
        }
    }
}

/// Why a bot's files were refused; `file` is relative to the bot's folder, quoted and escaped.
#[derive(Debug, thiserror::Error)]
pub enum FilesError {
    #[error(
        "{file} is a symbolic link (to {target}): submissions take regular files and folders \
         only; put the file itself there"
    )]
    Symlink { file: String, target: String },
    #[error("{file} is a {kind}: submissions take regular files and folders only")]
    Special { file: String, kind: &'static str },
    #[error(
        "{file} has {links} hard links (another name for it may lie outside the folder): \
         submissions take files with one name only; copy it"
    )]
    HardLink { file: String, links: u64 },
    #[error("{file} is another file system mounted inside the bot's folder")]
    Mount { file: String },
    #[error(
        "{file}: {size} bytes bring the bot's files past {max} bytes ({} MiB), the most a \
         submission may hold (the operator may change it with --max-size-mb)",
        max >> 20
    )]
    TooBig { file: String, size: u64, max: u64 },
    #[error(
        "{file}: more than {max} files and folders, the most a submission may hold (the \
         operator may change it with --max-files)"
    )]
    TooMany { file: String, max: u64 },
    #[error("{file}: folders nested deeper than {max}")]
    TooDeep { file: String, max: usize },
    #[error("{file} changed while it was being read")]
    Changed { file: String },
    #[error("{file}: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the registry's copy of {file}: {source}")]
    Write {
        file: String,
        #[source]
        source: std::io::Error,
    },
}

/// What a spec's files are, decided from its text and `lstat` alone (nothing is opened).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A built-in bot, an `exec:` command that names no file, or a spec that does not exist (the
    /// conformance check says what is wrong with it).
    Nothing,
    /// A manifest: its folder is walked whole.
    Folder { dir: PathBuf, manifest: OsString },
    /// The file an `exec:` spec runs, in its folder.
    File { dir: PathBuf, name: OsString },
}

fn parent_or_dot(p: &Path) -> PathBuf {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The word of an `exec:` command that names the bot's file: the first non-option word after an
/// interpreter, else the program when it is a path (a bare name is looked up on `PATH`).
fn exec_file_word(cmd: &str) -> Option<&str> {
    let words: Vec<&str> = cmd.split_whitespace().collect();
    let (prog, rest) = words.split_first()?;
    let stem = Path::new(prog)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if INTERPRETERS.contains(&stem.as_str()) {
        rest.iter().find(|w| !w.starts_with('-')).copied()
    } else if prog.contains('/') {
        Some(prog)
    } else {
        None
    }
}

impl Source {
    /// Where a spec's files are, by the rules of `BotSpec::parse` (a `.toml` path, or a folder
    /// holding a `bot.toml`, is a manifest).
    pub fn of(spec: &str) -> Source {
        let named = |p: &Path| p.symlink_metadata().is_ok() && p.file_name().is_some();
        if let Some(cmd) = spec.strip_prefix("exec:") {
            return match exec_file_word(cmd).map(Path::new) {
                Some(p) if named(p) => Source::File {
                    dir: parent_or_dot(p),
                    name: p.file_name().expect("named").to_os_string(),
                },
                _ => Source::Nothing,
            };
        }
        let path = Path::new(spec);
        if spec.ends_with(".toml") || path.join("bot.toml").is_file() {
            let file = if path.is_dir() {
                path.join("bot.toml")
            } else {
                path.to_path_buf()
            };
            if named(&file) {
                return Source::Folder {
                    dir: parent_or_dot(&file),
                    manifest: file.file_name().expect("named").to_os_string(),
                };
            }
        }
        Source::Nothing
    }

    /// The spec to record and play: a manifest by its absolute path (the folder's canonical path
    /// and the manifest's name), an `exec:` command with its file's word made absolute (unless
    /// that path has white space, which would split it), else the spec as typed. So a later
    /// submission from another folder still finds every registered bot.
    pub fn absolute_spec(&self, spec: &str) -> String {
        let abs = |dir: &Path, name: &OsStr| {
            dir.canonicalize()
                .ok()
                .map(|d| d.join(name))
                .and_then(|p| p.to_str().map(String::from))
        };
        match self {
            Source::Nothing => spec.to_string(),
            Source::Folder { dir, manifest } => abs(dir, manifest).unwrap_or_else(|| spec.into()),
            Source::File { dir, name } => {
                let Some(cmd) = spec.strip_prefix("exec:") else {
                    return spec.to_string();
                };
                let (Some(word), Some(a)) = (exec_file_word(cmd), abs(dir, name)) else {
                    return spec.to_string();
                };
                if a.contains(char::is_whitespace) {
                    return spec.to_string();
                }
                let mut done = false;
                let words: Vec<&str> = cmd
                    .split_whitespace()
                    .map(|w| {
                        if !done && w == word {
                            done = true;
                            a.as_str()
                        } else {
                            w
                        }
                    })
                    .collect();
                format!("exec:{}", words.join(" "))
            }
        }
    }
}

/// What was read: the hash and how much.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// SHA-256 (hex) over the spec and every file: its path relative to the folder, a 0 byte,
    /// its length (u64 little-endian) and its bytes, in path order; for a spec with no files,
    /// `builtin <pitboss version>` instead. For a folder of files only (no subfolders) this is
    /// the hash earlier versions computed, so unchanged bots keep their version.
    pub hash: String,
    pub files: u64,
    pub bytes: u64,
}

/// Reads the files of `spec` (found by [`Source::of`]) within `limits`, hashing them, and
/// copies them into `into` (created; it must not exist) when given.
///
/// # Errors
/// A [`FilesError`] naming the first file refused or unreadable (the partial copy is left for
/// the caller to remove).
pub fn collect(
    spec: &str,
    source: &Source,
    limits: Limits,
    into: Option<&Path>,
) -> Result<Summary, FilesError> {
    let mut w = Walk {
        limits,
        count: 0,
        bytes: 0,
        hash: Sha256::new(),
        skip: None,
        dev: 0,
        buf: vec![0; CHUNK],
    };
    w.hash.update(spec.as_bytes());
    w.hash.update([0]);
    let out = match into {
        Some(p) => Some(make_out_root(p)?),
        None => None,
    };
    match source {
        Source::Nothing => {
            w.hash
                .update(concat!("builtin ", env!("CARGO_PKG_VERSION")).as_bytes());
        }
        Source::Folder { dir, manifest } => {
            let root = open_root(dir, libc::O_NOFOLLOW)?;
            w.dev = fstat(&root).map_err(io(Path::new("")))?.st_dev;
            w.skip = build_dir(&root, manifest);
            w.dir(&root, Path::new(""), out.as_ref(), 0)?;
        }
        Source::File { dir, name } => {
            let root = open_root(dir, 0)?;
            w.dev = fstat(&root).map_err(io(Path::new("")))?.st_dev;
            let rel = Path::new(name);
            let st = lstatat(&root, name).map_err(io(rel))?;
            w.entry(&root, name, rel, &st, out.as_ref(), 0)?;
        }
    }
    Ok(Summary {
        hash: w
            .hash
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect(),
        files: w.count,
        bytes: w.bytes,
    })
}

/// A path relative to the bot's folder as errors show it: quoted, control characters escaped
/// (a file name is the author's text and must not drive the operator's terminal).
fn show(rel: &Path) -> String {
    if rel.as_os_str().is_empty() {
        "the bot's folder".to_string()
    } else {
        format!("{:?}", rel.to_string_lossy())
    }
}

fn io(rel: &Path) -> impl Fn(std::io::Error) -> FilesError + '_ {
    move |source| FilesError::Io {
        file: show(rel),
        source,
    }
}

fn write_err(rel: &Path) -> impl Fn(std::io::Error) -> FilesError + '_ {
    move |source| FilesError::Write {
        file: show(rel),
        source,
    }
}

/// Opens a bot's folder by path (`extra`: `O_NOFOLLOW` for a manifest's folder, which must not
/// be a link).
fn open_root(dir: &Path, extra: libc::c_int) -> Result<OwnedFd, FilesError> {
    sys::open_dir(dir, extra).map_err(|e| {
        let why =
            if e.raw_os_error() == Some(libc::ELOOP) || e.raw_os_error() == Some(libc::ENOTDIR) {
                std::io::Error::new(
                    e.kind(),
                    "is a symbolic link or not a folder: give the folder's own path",
                )
            } else {
                e
            };
        FilesError::Io {
            file: format!("the bot's folder {:?}", dir.to_string_lossy()),
            source: why,
        }
    })
}

/// The manifest's `build_dir` (relative, inside, not the folder itself) when it has a `build`
/// command: skipped by the walk. The manifest is read the same careful way; whatever is wrong
/// with it is left to the walk (which refuses it) or to the conformance check (which says why).
fn build_dir(root: &OwnedFd, manifest: &OsStr) -> Option<PathBuf> {
    let f = openat(
        root,
        manifest,
        libc::O_RDONLY | libc::O_NONBLOCK | libc::O_NOCTTY,
        0,
    )
    .ok()?;
    let st = fstat(&f).ok()?;
    if st.st_mode & libc::S_IFMT != libc::S_IFREG || st.st_size as u64 > MAX_MANIFEST {
        return None;
    }
    let mut text = String::new();
    File::from(f)
        .take(MAX_MANIFEST)
        .read_to_string(&mut text)
        .ok()?;
    let v: toml::Table = toml::from_str(&text).ok()?;
    v.get("build")?;
    let dir = v
        .get("build_dir")
        .map_or(Some("build"), |d| d.as_str())
        .map(PathBuf::from)?;
    let mut out = PathBuf::new();
    for c in dir.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::CurDir => {}
            _ => return None,
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

fn make_out_root(p: &Path) -> Result<OwnedFd, FilesError> {
    let fail = |source| FilesError::Write {
        file: format!("{:?}", p.to_string_lossy()),
        source,
    };
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(p)
        .map_err(fail)?;
    sys::open_dir(p, libc::O_NOFOLLOW).map_err(fail)
}

/// The state of one walk.
struct Walk {
    limits: Limits,
    count: u64,
    bytes: u64,
    hash: Sha256,
    skip: Option<PathBuf>,
    dev: libc::dev_t,
    buf: Vec<u8>,
}

fn kind(mode: libc::mode_t) -> &'static str {
    match mode & libc::S_IFMT {
        libc::S_IFIFO => "fifo (named pipe)",
        libc::S_IFSOCK => "socket",
        libc::S_IFCHR => "character device",
        libc::S_IFBLK => "block device",
        libc::S_IFLNK => "symbolic link",
        libc::S_IFDIR => "folder",
        _ => "special file",
    }
}

impl Walk {
    fn count(&mut self, rel: &Path) -> Result<(), FilesError> {
        self.count += 1;
        if self.count > self.limits.files {
            return Err(FilesError::TooMany {
                file: show(rel),
                max: self.limits.files,
            });
        }
        Ok(())
    }

    /// Every entry of the folder `fd` (at `rel`), in name order.
    fn dir(
        &mut self,
        fd: &OwnedFd,
        rel: &Path,
        out: Option<&OwnedFd>,
        depth: usize,
    ) -> Result<(), FilesError> {
        let room = self.limits.files.saturating_sub(self.count);
        let Some(names) = list(fd, room).map_err(io(rel))? else {
            return Err(FilesError::TooMany {
                file: show(rel),
                max: self.limits.files,
            });
        };
        for name in names {
            let r = rel.join(&name);
            let st = lstatat(fd, &name).map_err(io(&r))?;
            self.entry(fd, &name, &r, &st, out, depth)?;
        }
        Ok(())
    }

    /// One entry, classified by `st` (from `lstatat`) and then by the `fstat` of what was opened.
    fn entry(
        &mut self,
        parent: &OwnedFd,
        name: &OsStr,
        rel: &Path,
        st: &libc::stat,
        out: Option<&OwnedFd>,
        depth: usize,
    ) -> Result<(), FilesError> {
        match st.st_mode & libc::S_IFMT {
            libc::S_IFLNK => Err(FilesError::Symlink {
                file: show(rel),
                target: readlinkat(parent, name),
            }),
            libc::S_IFDIR => {
                if self.skip.as_deref() == Some(rel) {
                    return Ok(());
                }
                self.count(rel)?;
                if depth >= MAX_DEPTH {
                    return Err(FilesError::TooDeep {
                        file: show(rel),
                        max: MAX_DEPTH,
                    });
                }
                let sub = openat(parent, name, libc::O_RDONLY | libc::O_DIRECTORY, 0)
                    .map_err(|e| self.open_error(e, rel))?;
                let sst = fstat(&sub).map_err(io(rel))?;
                if sst.st_mode & libc::S_IFMT != libc::S_IFDIR {
                    return Err(FilesError::Changed { file: show(rel) });
                }
                if sst.st_dev != self.dev {
                    return Err(FilesError::Mount { file: show(rel) });
                }
                let sub_out = match out {
                    Some(o) => {
                        mkdirat(o, name, 0o700).map_err(write_err(rel))?;
                        Some(
                            openat(o, name, libc::O_RDONLY | libc::O_DIRECTORY, 0)
                                .map_err(write_err(rel))?,
                        )
                    }
                    None => None,
                };
                self.dir(&sub, rel, sub_out.as_ref(), depth + 1)?;
                if let Some(so) = &sub_out {
                    fchmod(so, (sst.st_mode & 0o777) | 0o700).map_err(write_err(rel))?;
                }
                Ok(())
            }
            libc::S_IFREG => {
                self.count(rel)?;
                self.file(parent, name, rel, out)
            }
            m => Err(FilesError::Special {
                file: show(rel),
                kind: kind(m),
            }),
        }
    }

    /// An error opening an entry: a link or special file swapped in since `lstatat` says so.
    fn open_error(&self, e: std::io::Error, rel: &Path) -> FilesError {
        if e.raw_os_error() == Some(libc::ELOOP) || e.raw_os_error() == Some(libc::ENOTDIR) {
            FilesError::Changed { file: show(rel) }
        } else {
            io(rel)(e)
        }
    }

    fn file(
        &mut self,
        parent: &OwnedFd,
        name: &OsStr,
        rel: &Path,
        out: Option<&OwnedFd>,
    ) -> Result<(), FilesError> {
        // O_NONBLOCK: a fifo swapped in after `lstatat` does not block the open (and is then
        // refused by its fstat); O_NOCTTY: nor does a terminal become ours.
        let f = openat(
            parent,
            name,
            libc::O_RDONLY | libc::O_NONBLOCK | libc::O_NOCTTY,
            0,
        )
        .map_err(|e| self.open_error(e, rel))?;
        let st = fstat(&f).map_err(io(rel))?;
        if st.st_mode & libc::S_IFMT != libc::S_IFREG {
            return Err(FilesError::Special {
                file: show(rel),
                kind: kind(st.st_mode),
            });
        }
        if st.st_dev != self.dev {
            return Err(FilesError::Mount { file: show(rel) });
        }
        // `nlink_t` is u32 on some targets.
        #[allow(clippy::useless_conversion)]
        let links = u64::from(st.st_nlink);
        if links > 1 {
            return Err(FilesError::HardLink {
                file: show(rel),
                links,
            });
        }
        let size = u64::try_from(st.st_size).unwrap_or(u64::MAX);
        if self.bytes.saturating_add(size) > self.limits.bytes {
            return Err(FilesError::TooBig {
                file: show(rel),
                size,
                max: self.limits.bytes,
            });
        }
        self.bytes += size;
        self.hash.update(rel.as_os_str().as_bytes());
        self.hash.update([0]);
        self.hash.update(size.to_le_bytes());
        let mut copy = match out {
            Some(o) => Some(File::from(
                openat(
                    o,
                    name,
                    libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOCTTY,
                    0o600,
                )
                .map_err(write_err(rel))?,
            )),
            None => None,
        };
        let mut src = File::from(f);
        let mut left = size;
        while left > 0 {
            let want = self
                .buf
                .len()
                .min(usize::try_from(left).unwrap_or(usize::MAX));
            let n = match src.read(&mut self.buf[..want]) {
                Ok(0) => return Err(FilesError::Changed { file: show(rel) }),
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(io(rel)(e)),
            };
            self.hash.update(&self.buf[..n]);
            if let Some(c) = copy.as_mut() {
                c.write_all(&self.buf[..n]).map_err(write_err(rel))?;
            }
            left -= n as u64;
        }
        if src.read(&mut self.buf[..1]).map_err(io(rel))? != 0 {
            return Err(FilesError::Changed { file: show(rel) });
        }
        if let Some(c) = copy {
            let fd = OwnedFd::from(c);
            fchmod(&fd, st.st_mode & 0o777).map_err(write_err(rel))?;
        }
        Ok(())
    }
}

mod sys;
#[cfg(test)]
mod tests;
