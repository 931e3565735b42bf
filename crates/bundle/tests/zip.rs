//! Hostile zip archives.

mod common;

use std::os::unix::fs::PermissionsExt;

use common::*;
use pitboss_bundle::Limits;

const REG: u32 = 0o100_644;

fn refused_zip(entries: &[(&[u8], u32, &[u8])]) -> String {
    refused(&zip(entries), &Limits::default())
}

#[test]
fn zip_slip_absolute_and_backslash_paths_are_refused() {
    let msg = refused_zip(&[(b"bot.toml", REG, b""), (b"../../.bashrc", REG, b"evil")]);
    assert_eq!(msg, r#"entry "../../.bashrc": a path leaving the bundle"#);
    let msg = refused_zip(&[(b"/etc/cron.d/x", REG, b"evil")]);
    assert!(msg.contains("absolute"), "{msg}");
    let msg = refused_zip(&[(b"..\\..\\x", REG, b"evil")]);
    assert!(msg.contains("backslash"), "{msg}");
}

#[test]
fn zip_symlinks_devices_and_fifos_are_refused() {
    let msg = refused_zip(&[(b"link", 0o120_777, b"/etc/passwd")]);
    assert!(msg.starts_with(r#"entry "link": a symlink"#), "{msg}");
    let msg = refused_zip(&[(b"inside", 0o120_777, b"bot.py")]);
    assert!(msg.starts_with(r#"entry "inside": a symlink"#), "{msg}");
    for (mode, word) in [
        (0o020_666, "character device"),
        (0o060_666, "block device"),
        (0o010_644, "FIFO"),
        (0o140_755, "socket"),
    ] {
        let msg = refused_zip(&[(b"dev", mode, b"")]);
        assert!(
            msg.starts_with(r#"entry "dev": a "#) && msg.contains(word),
            "{msg}"
        );
    }
}

#[test]
fn zip_names_must_be_utf8() {
    let msg = refused_zip(&[(b"caf\xe9.py", REG, b"")]);
    assert!(msg.contains("not UTF-8"), "{msg}");
}

#[test]
fn zip_duplicates_are_refused() {
    // The writer refuses a name twice: forge it in the bytes.
    let mut archive = zip(&[(b"aa", REG, b"1"), (b"ab", REG, b"2")]);
    patch(&mut archive, b"ab", b"aa");
    let msg = refused(&archive, &Limits::default());
    assert!(msg.contains("duplicate"), "{msg}");
    let msg = refused_zip(&[(b"a/b", REG, b"1"), (b"a//b", REG, b"2")]);
    assert_eq!(msg, r#"entry "a//b": a duplicate of an earlier entry"#);
}

#[test]
fn zip_file_under_file_is_refused() {
    let msg = refused_zip(&[(b"x", REG, b"1"), (b"x/y", REG, b"2")]);
    assert!(msg.contains(r#""x" is a file"#), "{msg}");
}

#[test]
fn encrypted_entries_are_refused() {
    let mut archive = zip(&[(b"secret", REG, b"data")]);
    // Set bit 0 (encrypted) of the general purpose flags of the local and central headers.
    let local = 6;
    archive[local] |= 1;
    let central = archive.windows(4).position(|w| w == b"PK\x01\x02").unwrap() + 8;
    archive[central] |= 1;
    let msg = refused(&archive, &Limits::default());
    assert!(msg.starts_with(r#"entry "secret": encrypted"#), "{msg}");
}

#[test]
fn a_zip_with_too_many_entries_is_refused() {
    // 11 entries: counted in the central directory; 500: refused before it is even parsed.
    for n in [11, 500] {
        let names: Vec<String> = (0..n).map(|i| format!("f{i}")).collect();
        let entries: Vec<(&[u8], u32, &[u8])> = names
            .iter()
            .map(|n| (n.as_bytes(), REG, &b""[..]))
            .collect();
        let limits = Limits {
            max_files: 10,
            ..Limits::default()
        };
        let msg = refused(&zip(&entries), &limits);
        assert!(msg.contains("more than 10 files"), "{msg}");
    }
}

#[test]
fn a_good_zip_unpacks_with_modes_and_directories() {
    let archive = zip(&[
        (b"lib/", 0o040_755, b""),
        (b"lib/util.py", REG, b"x = 1\n"),
        (b"run", 0o104_755, b"#!/bin/sh\n"),
        (
            b"bot.toml",
            REG,
            b"name = \"zipped\"\ncommand = [\"./run\"]\n",
        ),
        (b"deep/er/file", REG, b""),
        (b"deep/", 0o040_700, b""),
    ]);
    let (d, unpacked) = accepted(&archive);
    assert_eq!(unpacked.files, 4);
    assert_eq!(unpacked.manifest_name.as_deref(), Some("zipped"));
    let mode = |p: &str| {
        std::fs::metadata(d.path.join(p))
            .unwrap()
            .permissions()
            .mode()
            & 0o7777
    };
    assert_eq!(mode("run"), 0o755);
    assert_eq!(mode("lib/util.py"), 0o644);
    assert_eq!(mode("deep"), 0o755);
    assert_eq!(
        std::fs::read(d.path.join("lib/util.py")).unwrap(),
        b"x = 1\n"
    );
}

#[test]
fn an_empty_zip_is_an_empty_bundle() {
    let archive = zip(&[]);
    assert!(archive.starts_with(b"PK\x05\x06"));
    let (d, unpacked) = accepted(&archive);
    assert_eq!((unpacked.files, unpacked.bytes), (0, 0));
    assert_eq!(std::fs::read_dir(&d.path).unwrap().count(), 0);
}
