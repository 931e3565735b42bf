//! Reading tar streams (plain, or decompressed on the fly from gzip or zstd) into a [`Sink`].
//!
//! A file's bytes are counted by the sink as it writes them. What the tar reader consumes
//! between two files — headers, GNU long names, pax records (which the `tar` crate buffers
//! whole), the skipped data of entries that are not files, padding — is metered here: at most
//! [`META_BUDGET`] bytes each time, so no header can make us decompress or buffer without end.

use std::cell::Cell;
use std::io::{self, Read};
use std::rc::Rc;

use tar::EntryType;

use crate::path::{display, normalize};
use crate::sink::Sink;
use crate::{BundleError, Format};

/// Bytes of tar stream allowed from the end of one file's data to the start of the next's. A
/// header is 512 bytes and a long name or pax record a few hundred more: 1 MiB is plenty for an
/// honest archive and small enough to buffer.
pub(crate) const META_BUDGET: u64 = 1 << 20;

/// The largest zstd window accepted (2^24 = 16 MiB of decoder memory): `pack` and `zstd -19`
/// stay below it; only `--ultra` or `--long` levels go above, and a hostile frame asking for
/// 2 GiB of window is refused instead of allocated.
const ZSTD_WINDOW_LOG_MAX: u32 = 24;

/// The budget shared between the metered reader (inside the tar reader) and the loop.
#[derive(Default)]
struct Meter {
    left: Cell<u64>,
    exhausted: Cell<bool>,
}

struct Metered<R> {
    inner: R,
    meter: Rc<Meter>,
}

impl<R: Read> Read for Metered<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.meter.left.get();
        if left == 0 && !buf.is_empty() {
            self.meter.exhausted.set(true);
            return Err(io::Error::other("tar metadata budget exhausted"));
        }
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        self.meter.left.set(left - n as u64);
        Ok(n)
    }
}

/// Unpacks a zstd-compressed tar stream.
pub(crate) fn zstd(archive: &[u8], sink: &mut Sink<'_>) -> Result<(), BundleError> {
    let corrupt = |e: io::Error| BundleError::Corrupt {
        format: Format::TarZst,
        reason: e.to_string(),
    };
    let mut decoder = zstd::stream::read::Decoder::with_buffer(archive).map_err(corrupt)?;
    decoder
        .window_log_max(ZSTD_WINDOW_LOG_MAX)
        .map_err(corrupt)?;
    read(decoder, Format::TarZst, sink)
}

/// Unpacks a tar stream (already decompressed by `stream` if it was compressed).
pub(crate) fn read<R: Read>(
    stream: R,
    format: Format,
    sink: &mut Sink<'_>,
) -> Result<(), BundleError> {
    let meter = Rc::new(Meter::default());
    let mut archive = tar::Archive::new(Metered {
        inner: stream,
        meter: Rc::clone(&meter),
    });
    let corrupt = |e: io::Error| BundleError::Corrupt {
        format,
        reason: e.to_string(),
    };
    let mut entries = archive.entries().map_err(corrupt)?;
    let limits = sink.limits();
    let mut last = String::from("(the start of the archive)");
    loop {
        meter.left.set(META_BUDGET);
        let mut entry = match entries.next() {
            None => return Ok(()),
            Some(Ok(entry)) => entry,
            Some(Err(_)) if meter.exhausted.get() => {
                return Err(BundleError::MetadataTooLarge {
                    after: last,
                    max: META_BUDGET,
                })
            }
            Some(Err(e)) => return Err(corrupt(e)),
        };
        // The file's own bytes are counted by the sink as they are written.
        meter.left.set(u64::MAX);
        let raw = entry.path_bytes().into_owned();
        let name = display(&raw);
        let kind = entry.header().entry_type();
        let refuse_special = |kind: &str| BundleError::Special {
            entry: name.clone(),
            kind: kind.to_owned(),
        };
        match kind {
            EntryType::Regular => {
                let mode = entry.header().mode().map_err(corrupt)?;
                let path = normalize(&raw, limits)?;
                let written = sink.file(&name, path, mode & 0o111 != 0, &mut entry)?;
                // The tar reader ends a file's data quietly at the end of the stream: a
                // truncated upload would pass as a shorter file.
                if written != entry.size() {
                    return Err(BundleError::EntryUnreadable {
                        entry: name,
                        reason: format!("truncated: {written} of its {} bytes", entry.size()),
                    });
                }
            }
            EntryType::Directory => {
                let path = normalize(&raw, limits)?;
                sink.dir(&name, path)?;
            }
            // Metadata for the whole archive (`git archive` writes the commit there): no file.
            EntryType::XGlobalHeader => {}
            EntryType::Symlink => {
                return Err(BundleError::Link {
                    entry: name,
                    kind: "symlink",
                })
            }
            EntryType::Link => {
                return Err(BundleError::Link {
                    entry: name,
                    kind: "hard link",
                })
            }
            EntryType::Char => return Err(refuse_special("character device")),
            EntryType::Block => return Err(refuse_special("block device")),
            EntryType::Fifo => return Err(refuse_special("FIFO")),
            EntryType::GNUSparse => return Err(refuse_special("sparse file")),
            EntryType::Continuous => return Err(refuse_special("contiguous file")),
            other => {
                return Err(refuse_special(&format!(
                    "tar entry of type {:?}",
                    char::from(other.as_byte())
                )))
            }
        }
        last = name;
    }
}
