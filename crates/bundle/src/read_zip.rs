//! Reading zip archives into a [`Sink`]. The `zip` crate parses the central directory and
//! decompresses; everything else — names, types, sizes — is checked here or by the sink.

use std::io::Cursor;

use crate::path::{display, normalize};
use crate::sink::Sink;
use crate::{BundleError, Format};

// File types in the high bits of a Unix mode (zip "external attributes" >> 16).
const S_IFMT: u32 = 0o170_000;
const S_IFSOCK: u32 = 0o140_000;
const S_IFLNK: u32 = 0o120_000;
const S_IFREG: u32 = 0o100_000;
const S_IFBLK: u32 = 0o060_000;
const S_IFDIR: u32 = 0o040_000;
const S_IFCHR: u32 = 0o020_000;
const S_IFIFO: u32 = 0o010_000;

/// Where the zip's own bookkeeping is named in messages.
const DIRECTORY: &str = "(the zip's central directory)";

/// Unpacks a zip archive.
pub(crate) fn read(archive: &[u8], sink: &mut Sink<'_>) -> Result<(), BundleError> {
    let limits = sink.limits();
    let corrupt = |e: zip::result::ZipError| BundleError::Corrupt {
        format: Format::Zip,
        reason: e.to_string(),
    };
    // The zip crate holds every central directory record in memory (a few hundred bytes each,
    // from 46 bytes of archive): bound them before it parses them. Their signature counted
    // anywhere in the archive is an upper bound; the factor leaves room for stored files that
    // happen to hold it.
    let records = count(archive, b"PK\x01\x02");
    if records > limits.max_files.saturating_mul(4).saturating_add(64) {
        return Err(BundleError::TooManyFiles {
            entry: DIRECTORY.into(),
            max: limits.max_files,
        });
    }
    let mut zip = zip::ZipArchive::new(Cursor::new(archive)).map_err(corrupt)?;
    if zip.len() as u64 > limits.max_files {
        return Err(BundleError::TooManyFiles {
            entry: DIRECTORY.into(),
            max: limits.max_files,
        });
    }
    if zip.has_duplicate_names() {
        return Err(BundleError::Duplicate {
            entry: DIRECTORY.into(),
        });
    }
    for index in 0..zip.len() {
        let (raw, mode, dir_name, encrypted) = {
            let file = zip.by_index_raw(index).map_err(corrupt)?;
            let raw = file.name_raw().to_vec();
            (raw, file.unix_mode(), file.is_dir(), file.encrypted())
        };
        let name = display(&raw);
        if encrypted {
            return Err(BundleError::Encrypted { entry: name });
        }
        let special = |kind: &str| BundleError::Special {
            entry: name.clone(),
            kind: kind.to_owned(),
        };
        let is_dir = match mode.map(|m| m & S_IFMT).filter(|&t| t != 0) {
            None | Some(S_IFREG) => dir_name,
            Some(S_IFDIR) => true,
            Some(S_IFLNK) => {
                return Err(BundleError::Link {
                    entry: name,
                    kind: "symlink",
                })
            }
            Some(S_IFCHR) => return Err(special("character device")),
            Some(S_IFBLK) => return Err(special("block device")),
            Some(S_IFIFO) => return Err(special("FIFO")),
            Some(S_IFSOCK) => return Err(special("socket")),
            Some(t) => return Err(special(&format!("file of type {t:o}"))),
        };
        let path = normalize(&raw, limits)?;
        if is_dir {
            sink.dir(&name, path)?;
            continue;
        }
        let exec = mode.is_some_and(|m| m & 0o111 != 0);
        let mut file = zip
            .by_index(index)
            .map_err(|e| BundleError::EntryUnreadable {
                entry: name.clone(),
                reason: e.to_string(),
            })?;
        // The zip reader checks the CRC and the declared size at the end of the data itself.
        sink.file(&name, path, exec, &mut file)?;
    }
    Ok(())
}

/// Occurrences of `needle` in `hay` (non-overlapping; the needle does not overlap itself).
fn count(hay: &[u8], needle: &[u8]) -> u64 {
    hay.windows(needle.len()).filter(|w| *w == needle).count() as u64
}
