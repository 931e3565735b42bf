//! Builders of hostile archives and the check that a refusal leaves nothing behind.
#![allow(dead_code)] // each test file uses part of it

use std::io::{Cursor, Write};
use std::path::{Path, PathBuf};

use pitboss_bundle::{unpack, BundleError, Limits, Unpacked};
use tar::{EntryType, Header};

/// A temporary folder and a destination inside it that does not exist yet.
pub struct Dest {
    pub tmp: tempfile::TempDir,
    pub path: PathBuf,
}

pub fn dest() -> Dest {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("bundle");
    Dest { tmp, path }
}

/// Unpacks, expecting a refusal; checks that the destination is gone and returns the message.
pub fn refused(archive: &[u8], limits: &Limits) -> String {
    let d = dest();
    let err: BundleError = unpack(archive, &d.path, limits).expect_err("the bundle was accepted");
    assert!(
        !d.path.exists(),
        "a refusal left {} behind ({err})",
        d.path.display()
    );
    err.to_string()
}

/// Unpacks, expecting success.
pub fn accepted(archive: &[u8]) -> (Dest, Unpacked) {
    let d = dest();
    let unpacked = unpack(archive, &d.path, &Limits::default()).expect("the bundle was refused");
    (d, unpacked)
}

/// One tar entry with a raw name (the `tar` crate's own setters refuse `..` and friends) put
/// straight into the header bytes.
pub struct TarEntry<'a> {
    pub name: &'a [u8],
    pub kind: EntryType,
    pub mode: u32,
    pub data: &'a [u8],
    pub link: &'a [u8],
}

pub fn file<'a>(name: &'a str, data: &'a [u8]) -> TarEntry<'a> {
    TarEntry {
        name: name.as_bytes(),
        kind: EntryType::Regular,
        mode: 0o644,
        data,
        link: b"",
    }
}

pub fn entry(name: &[u8], kind: EntryType) -> TarEntry<'_> {
    TarEntry {
        name,
        kind,
        mode: 0o644,
        data: b"",
        link: b"",
    }
}

pub fn tar_header(e: &TarEntry<'_>, size: u64) -> Header {
    let mut h = Header::new_gnu();
    let old = h.as_old_mut();
    assert!(
        e.name.len() <= 100 && e.link.len() <= 100,
        "names of at most 100 bytes here"
    );
    old.name[..e.name.len()].copy_from_slice(e.name);
    old.linkname[..e.link.len()].copy_from_slice(e.link);
    h.set_entry_type(e.kind);
    h.set_mode(e.mode);
    h.set_size(size);
    h.set_mtime(0);
    h.set_cksum();
    h
}

/// A plain tar of the entries, in order.
pub fn tar(entries: &[TarEntry<'_>]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for e in entries {
        b.append(&tar_header(e, e.data.len() as u64), e.data)
            .unwrap();
    }
    b.into_inner().unwrap()
}

pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

pub fn zstd(bytes: &[u8]) -> Vec<u8> {
    zstd::encode_all(bytes, 3).unwrap()
}

/// A zip of (name, unix mode with its file type, data) entries, deflated.
pub fn zip(entries: &[(&[u8], u32, &[u8])]) -> Vec<u8> {
    let mut z = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, mode, data) in entries {
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .external_attributes(mode << 16)
            .name(name);
        z.start_file_with_options(options).unwrap();
        z.write_all(data).unwrap();
    }
    z.finish().unwrap().into_inner()
}

/// Replaces every occurrence of `from` by `to` (same length): to forge what writers refuse.
pub fn patch(bytes: &mut [u8], from: &[u8], to: &[u8]) {
    assert_eq!(from.len(), to.len());
    let mut found = 0;
    for i in 0..=bytes.len() - from.len() {
        if &bytes[i..i + from.len()] == from {
            bytes[i..i + from.len()].copy_from_slice(to);
            found += 1;
        }
    }
    assert!(found > 0, "nothing to patch");
}

/// The folder of the Python example bot.
pub fn simple_bot() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bots/python/simple")
}
