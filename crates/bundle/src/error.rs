//! The errors of packing and unpacking. Entry names come from strangers: they are kept as text
//! (invalid UTF-8 replaced) and always shown with `{:?}`, which escapes control characters, so
//! a message can be printed on a terminal or a web page without the name driving it.

use std::io;
use std::path::PathBuf;

use thiserror::Error;

use crate::Format;

/// Why a bundle was refused or could not be packed or unpacked.
#[derive(Debug, Error)]
pub enum BundleError {
    /// The archive is larger than [`crate::Limits::max_archive_bytes`].
    #[error("the archive is {size} bytes, more than the {max} allowed")]
    ArchiveTooLarge { size: u64, max: u64 },
    /// The first bytes are none of the formats of [`crate::detect`].
    #[error(
        "not a bundle: the archive is none of tar, tar.gz, tar.zst and zip (by its first bytes)"
    )]
    UnknownFormat,
    /// The archive's structure is broken (a bad header, truncated data, a bad checksum).
    #[error("the {format} archive is unreadable: {reason}")]
    Corrupt { format: Format, reason: String },
    /// One entry's data could not be read (truncated, bad CRC, unsupported compression...).
    #[error("entry {entry:?}: unreadable: {reason}")]
    EntryUnreadable { entry: String, reason: String },
    /// A path with `..`: it would leave the bundle.
    #[error("entry {entry:?}: a path leaving the bundle")]
    Escape { entry: String },
    /// A path starting with `/`.
    #[error("entry {entry:?}: an absolute path")]
    Absolute { entry: String },
    /// A path that is not valid UTF-8.
    #[error("entry {entry:?}: a path that is not UTF-8")]
    NotUtf8 { entry: String },
    /// A path refused for its characters or for being empty.
    #[error("entry {entry:?}: {reason}")]
    BadPath { entry: String, reason: &'static str },
    /// A path longer than [`crate::Limits::max_path_bytes`].
    #[error("entry {entry:?}: a path of {len} bytes, more than the {max} allowed")]
    PathTooLong {
        entry: String,
        len: usize,
        max: usize,
    },
    /// A path deeper than [`crate::Limits::max_depth`].
    #[error("entry {entry:?}: a path {depth} levels deep, more than the {max} allowed")]
    TooDeep {
        entry: String,
        depth: usize,
        max: usize,
    },
    /// A symbolic or hard link.
    #[error("entry {entry:?}: a {kind}; links are refused (the referee's jail refuses symlinks in bot folders), copy the file instead")]
    Link { entry: String, kind: &'static str },
    /// Anything but a regular file or a directory.
    #[error("entry {entry:?}: a {kind}; a bundle holds only regular files and directories")]
    Special { entry: String, kind: String },
    /// An encrypted zip entry.
    #[error("entry {entry:?}: encrypted; a bundle is not encrypted")]
    Encrypted { entry: String },
    /// The same path twice (after dropping `.` and empty components).
    #[error("entry {entry:?}: a duplicate of an earlier entry")]
    Duplicate { entry: String },
    /// A path beneath a regular file, or a file where a directory is.
    #[error("entry {entry:?}: {conflict:?} is {what}")]
    Conflict {
        entry: String,
        conflict: String,
        what: &'static str,
    },
    /// More entries than [`crate::Limits::max_files`].
    #[error("entry {entry:?}: more than {max} files and directories")]
    TooManyFiles { entry: String, max: u64 },
    /// More bytes than [`crate::Limits::max_unpacked_bytes`] (counted as written).
    #[error("entry {entry:?}: the bundle unpacks to more than {max} bytes")]
    TooLarge { entry: String, max: u64 },
    /// Tar metadata between two files larger than the bound (a bomb of headers or skipped data).
    #[error("after entry {after:?}: more than {max} bytes of tar headers and skipped data before the next file")]
    MetadataTooLarge { after: String, max: u64 },
    /// The root `bot.toml` could not be read as a manifest.
    #[error("bot.toml: {reason}")]
    Manifest { reason: String },
    /// `unpack`'s destination exists.
    #[error("{}: already exists; a bundle is unpacked only into a new folder", path.display())]
    DestExists { path: PathBuf },
    /// A symlink found by `pack`.
    #[error("{}: a symlink; links are refused in bundles (the referee's jail refuses symlinks in bot folders), copy the file instead", path.display())]
    PackSymlink { path: PathBuf },
    /// A device, FIFO or socket found by `pack`.
    #[error("{}: not a regular file or a directory", path.display())]
    PackSpecial { path: PathBuf },
    /// A file or folder name that `unpack` would refuse, found by `pack`.
    #[error("{}: cannot be packed: {reason}", path.display())]
    PackPath { path: PathBuf, reason: String },
    /// A folder too big for the limits, found by `pack`.
    #[error("{}: {reason}", path.display())]
    PackLimit { path: PathBuf, reason: String },
    /// An I/O error, with the path it happened on.
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
}

impl BundleError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: io::Error) -> Self {
        BundleError::Io {
            path: path.into(),
            source,
        }
    }
}
