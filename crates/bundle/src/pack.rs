//! `pack`: a bot folder into a deterministic tar.zst.

use std::fs::{self, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use tar::{EntryType, Header};

use crate::path::normalize;
use crate::{BundleError, Limits};

/// Directories `pack` leaves out wherever they are: version control, build output, caches and
/// downloaded dependencies. The server builds the bot itself, and these are what make a bot
/// folder big.
pub const SKIPPED_DIRS: [&str; 4] = [".git", "target", "__pycache__", "node_modules"];

/// zstd level of `pack`: well compressed, still quick for a large folder, and a window (2^22
/// at most) within what `unpack` accepts.
const LEVEL: i32 = 12;

/// One entry to pack, found by the walk.
struct Item {
    rel: String,
    full: PathBuf,
    dir: bool,
}

/// Packs `folder` into a tar.zst under the rules of this crate's documentation: the same files
/// give the same bytes. The folder itself may be a symlink (you named it); nothing in it is
/// followed.
///
/// # Errors
/// A symlink or special file (named), a name `unpack` would refuse, a folder over `limits`, or
/// an I/O error naming the path.
pub fn pack(folder: &Path, limits: &Limits) -> Result<Vec<u8>, BundleError> {
    let mut items = Vec::new();
    let mut total = 0u64;
    walk(folder, "", limits, &mut items, &mut total)?;
    let write_err = |e: io::Error| BundleError::io(folder, e);
    let encoder = zstd::stream::write::Encoder::new(Vec::new(), LEVEL).map_err(write_err)?;
    let mut builder = tar::Builder::new(encoder);
    let mut left = limits.max_unpacked_bytes;
    for item in &items {
        let mut header = Header::new_ustar();
        header.set_mtime(0);
        header.set_uid(0);
        header.set_gid(0);
        if item.dir {
            header.set_entry_type(EntryType::Directory);
            header.set_mode(0o755);
            header.set_size(0);
            builder
                .append_data(&mut header, &item.rel, io::empty())
                .map_err(write_err)?;
            continue;
        }
        let (bytes, exec) = read_file(&item.full, left, limits)?;
        left -= bytes.len() as u64;
        header.set_entry_type(EntryType::Regular);
        header.set_mode(if exec { 0o755 } else { 0o644 });
        header.set_size(bytes.len() as u64);
        builder
            .append_data(&mut header, &item.rel, bytes.as_slice())
            .map_err(write_err)?;
    }
    let archive = builder
        .into_inner()
        .and_then(|encoder| encoder.finish())
        .map_err(write_err)?;
    if archive.len() as u64 > limits.max_archive_bytes {
        return Err(BundleError::PackLimit {
            path: folder.to_owned(),
            reason: format!(
                "packs to {} bytes, more than the {} allowed",
                archive.len(),
                limits.max_archive_bytes
            ),
        });
    }
    Ok(archive)
}

/// Lists `dir` (the folder's `rel`) into `items`, sorted by name, depth first.
fn walk(
    dir: &Path,
    rel: &str,
    limits: &Limits,
    items: &mut Vec<Item>,
    total: &mut u64,
) -> Result<(), BundleError> {
    let mut names = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| BundleError::io(dir, e))? {
        names.push(entry.map_err(|e| BundleError::io(dir, e))?.file_name());
    }
    names.sort_by(|a, b| a.as_encoded_bytes().cmp(b.as_encoded_bytes()));
    for name in names {
        let full = dir.join(&name);
        let meta = fs::symlink_metadata(&full).map_err(|e| BundleError::io(&full, e))?;
        let kind = meta.file_type();
        let skipped = SKIPPED_DIRS
            .iter()
            .any(|s| name.as_encoded_bytes() == s.as_bytes());
        if kind.is_dir() && skipped {
            continue;
        }
        if kind.is_symlink() {
            return Err(BundleError::PackSymlink { path: full });
        }
        if !kind.is_dir() && !kind.is_file() {
            return Err(BundleError::PackSpecial { path: full });
        }
        let Some(name) = name.to_str() else {
            return Err(BundleError::PackPath {
                path: full,
                reason: "a name that is not UTF-8".into(),
            });
        };
        let rel = if rel.is_empty() {
            name.to_owned()
        } else {
            format!("{rel}/{name}")
        };
        if let Err(e) = normalize(rel.as_bytes(), limits) {
            return Err(BundleError::PackPath {
                path: full,
                reason: e.to_string(),
            });
        }
        if items.len() as u64 >= limits.max_files {
            return Err(BundleError::PackLimit {
                path: full,
                reason: format!("more than {} files and directories", limits.max_files),
            });
        }
        if kind.is_file() {
            *total = total.saturating_add(meta.len());
            if *total > limits.max_unpacked_bytes {
                return Err(too_big(&full, limits));
            }
        }
        items.push(Item {
            rel: rel.clone(),
            full: full.clone(),
            dir: kind.is_dir(),
        });
        if kind.is_dir() {
            walk(&full, &rel, limits, items, total)?;
        }
    }
    Ok(())
}

/// Reads a file the walk found, without following a symlink or blocking on a FIFO put in its
/// place since, and at most `left` bytes (it may have grown).
fn read_file(path: &Path, left: u64, limits: &Limits) -> Result<(Vec<u8>, bool), BundleError> {
    let io_err = |e: io::Error| BundleError::io(path, e);
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) => BundleError::PackSymlink {
                path: path.to_owned(),
            },
            _ => io_err(e),
        })?;
    let meta = file.metadata().map_err(io_err)?;
    if !meta.is_file() {
        return Err(BundleError::PackSpecial {
            path: path.to_owned(),
        });
    }
    let mut bytes = Vec::new();
    file.take(left.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io_err)?;
    if bytes.len() as u64 > left {
        return Err(too_big(path, limits));
    }
    Ok((bytes, meta.permissions().mode() & 0o111 != 0))
}

fn too_big(path: &Path, limits: &Limits) -> BundleError {
    BundleError::PackLimit {
        path: path.to_owned(),
        reason: format!(
            "the folder's files hold more than the {} bytes allowed",
            limits.max_unpacked_bytes
        ),
    }
}
