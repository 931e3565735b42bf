//! Bot bundles: a bot folder (its manifest `bot.toml` at the root) packed into one archive for
//! upload, and uploaded archives unpacked into a new folder.
//!
//! Uploads come from strangers, so [`unpack`] treats every byte as hostile. What it accepts is
//! deliberately narrow — a bot folder needs nothing more — and every refusal is an error naming
//! the entry (`entry "../x": a path leaving the bundle`), so an honest author can fix the bundle.
//!
//! # Formats
//! tar, tar.gz, tar.zst and zip, recognised by their first bytes ([`detect`]), never by a file
//! name. [`pack`] writes tar.zst.
//!
//! # The rules of `unpack`
//! * **A new folder.** `dest` must not exist; it is created with mode 0700 and nothing is ever
//!   written into an existing folder. On any error `dest` is removed entirely, so a refusal
//!   leaves nothing behind.
//! * **Regular files and directories only.** Symlinks and hard links are refused, all of them
//!   (even ones pointing inside the bundle): the referee's jail refuses symlinks in bot folders
//!   anyway, and a link is the classic way out of an unpacking folder. Device files, FIFOs,
//!   sockets, sparse files and any other entry type are refused. (A pax global header — `git
//!   archive` writes one — is metadata and is skipped.)
//! * **Paths.** UTF-8, relative, `/`-separated; no `..` component, no leading `/`, no empty path,
//!   no NUL, no control character, no backslash (a zip made on Windows could mean `..\x`).
//!   Empty and `.` components are dropped (`./bot.toml` is `bot.toml`; a `.` entry is the root
//!   itself). After that at most [`Limits::max_path_bytes`] bytes and [`Limits::max_depth`]
//!   components. The same path twice is refused, and so is a path beneath a file.
//! * **Sizes are counted, never trusted.** Header sizes are ignored: the bytes actually
//!   written are counted while decompressing, and the bundle is refused as soon as they cross
//!   [`Limits::max_unpacked_bytes`] (a zip or gzip bomb stops there). The tar metadata between
//!   two files (headers, long names, pax records, skipped data) is bounded too, so no header
//!   can make the unpacker read or buffer without limit. Entries (files and directories,
//!   including the ones created implicitly for a file's parents) are at most
//!   [`Limits::max_files`]; the archive itself at most [`Limits::max_archive_bytes`]. A file
//!   shorter than its header says (a truncated upload) is refused, not kept short.
//! * **Writing.** Every directory is created here, one component at a time; files are opened
//!   with `O_CREAT|O_EXCL|O_NOFOLLOW`, so nothing already there is followed or overwritten.
//!   Since only this process writes into the new 0700 folder, that is enough. Modes are 0755 if
//!   the archive gave the file any exec bit, else 0644; directories 0755; never set-uid,
//!   set-gid or sticky; ownership and times are not taken from the archive.
//!
//! The zip reader works from the central directory (as most unzippers do); zip entries other
//! than stored and deflated, and encrypted ones, are refused.
//!
//! # Packing
//! [`pack`] makes a deterministic tar.zst of a folder: entries sorted by name, mtime 0, uid and
//! gid 0, no user or group names, modes 0644 or 0755 only — the same files give the same bytes
//! and so the same [`sha256_hex`]. It never follows a symlink inside the folder (a symlink is
//! refused with its name, as are special files), applies the same [`Limits`] and path rules as
//! `unpack` (so what it packs unpacks), and skips only the directories named `.git`, `target`,
//! `__pycache__` and `node_modules` (version control, build output and caches: the server
//! builds the bot itself).

mod error;
mod pack;
mod path;
mod read_tar;
mod read_zip;
mod sink;

use std::path::Path;

use sha2::{Digest, Sha256};

pub use error::BundleError;
pub use pack::{pack, SKIPPED_DIRS};

/// The archive formats a bundle may come in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A plain (ustar, GNU or pax) tar archive.
    Tar,
    /// A gzip-compressed tar archive.
    TarGz,
    /// A zstd-compressed tar archive (what [`pack`] writes).
    TarZst,
    /// A zip archive.
    Zip,
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Format::Tar => "tar",
            Format::TarGz => "tar.gz",
            Format::TarZst => "tar.zst",
            Format::Zip => "zip",
        })
    }
}

/// The format of an archive by its magic bytes: gzip `1f 8b`, zstd `28 b5 2f fd`, zip
/// `PK\x03\x04` (or `PK\x05\x06`, an empty zip), tar `ustar` at offset 257. `None` for anything
/// else (an old v7 tar without the magic included: nothing writes those any more).
pub fn detect(bytes: &[u8]) -> Option<Format> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        Some(Format::TarGz)
    } else if bytes.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Some(Format::TarZst)
    } else if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        Some(Format::Zip)
    } else if bytes.get(257..262) == Some(b"ustar") {
        Some(Format::Tar)
    } else {
        None
    }
}

/// The bounds of a bundle. The defaults are generous for a bot (an interpreter's bot is a few
/// files; a compiled bot's sources and data rarely reach megabytes) and small enough that a
/// server can unpack several uploads at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes the archive itself may have.
    pub max_archive_bytes: u64,
    /// The most bytes its files may hold in all, counted as they are written.
    pub max_unpacked_bytes: u64,
    /// The most entries (files and directories) it may hold.
    pub max_files: u64,
    /// The longest path, in bytes, after dropping `.` and empty components.
    pub max_path_bytes: usize,
    /// The most components a path may have.
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_archive_bytes: 64 << 20,
            max_unpacked_bytes: 256 << 20,
            max_files: 10_000,
            max_path_bytes: 255,
            max_depth: 32,
        }
    }
}

/// What [`unpack`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unpacked {
    /// Regular files written.
    pub files: u64,
    /// Bytes written in all.
    pub bytes: u64,
    /// The `name` of the `bot.toml` at the bundle's root, when there is one with a `name`. It is
    /// what the archive says, not checked against the rules for names: the caller checks it.
    pub manifest_name: Option<String>,
}

/// Unpacks `archive` into the new folder `dest` under the rules of this crate's documentation.
///
/// # Errors
/// A refusal naming the entry, or an I/O error naming the path; in both cases `dest` does not
/// exist afterwards (unless it existed before: [`BundleError::DestExists`]).
pub fn unpack(archive: &[u8], dest: &Path, limits: &Limits) -> Result<Unpacked, BundleError> {
    let size = archive.len() as u64;
    if size > limits.max_archive_bytes {
        return Err(BundleError::ArchiveTooLarge {
            size,
            max: limits.max_archive_bytes,
        });
    }
    let format = detect(archive).ok_or(BundleError::UnknownFormat)?;
    let mut sink = sink::Sink::create(dest, limits)?;
    let read = match format {
        Format::Tar => read_tar::read(archive, format, &mut sink),
        Format::TarGz => {
            let stream = flate2::read::MultiGzDecoder::new(archive);
            read_tar::read(stream, format, &mut sink)
        }
        Format::TarZst => read_tar::zstd(archive, &mut sink),
        Format::Zip => read_zip::read(archive, &mut sink),
    };
    match read.and_then(|()| sink.finish()) {
        Ok(unpacked) => Ok(unpacked),
        Err(err) => {
            // Removing follows no symlink (std's remove_dir_all does not), and there are none.
            let _ = std::fs::remove_dir_all(dest);
            Err(err)
        }
    }
}

/// The SHA-256 of `bytes` in lowercase hex: the identity of a bundle (see [`pack`]).
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
