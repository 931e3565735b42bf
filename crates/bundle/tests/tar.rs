//! Hostile tar archives: every one refused with the entry named, and nothing left behind.

mod common;

use std::os::unix::fs::PermissionsExt;

use common::*;
use pitboss_bundle::{unpack, Limits};
use tar::EntryType;

fn refused_tar(entries: &[TarEntry<'_>]) -> String {
    refused(&tar(entries), &Limits::default())
}

#[test]
fn a_path_leaving_the_bundle_is_refused() {
    let msg = refused_tar(&[file("bot.toml", b"name = \"x\"\n"), file("../x", b"evil")]);
    assert_eq!(msg, r#"entry "../x": a path leaving the bundle"#);
    let msg = refused_tar(&[file("a/../../x", b"evil")]);
    assert!(msg.contains("leaving the bundle"), "{msg}");
}

#[test]
fn absolute_paths_and_backslashes_are_refused() {
    let msg = refused_tar(&[file("/tmp/pitboss-evil", b"evil")]);
    assert_eq!(msg, r#"entry "/tmp/pitboss-evil": an absolute path"#);
    let msg = refused_tar(&[file("..\\x", b"evil")]);
    assert!(msg.contains("backslash"), "{msg}");
}

#[test]
fn symlinks_out_and_in_are_refused() {
    let mut out = entry(b"escape", EntryType::Symlink);
    out.link = b"/etc";
    let msg = refused_tar(&[out, file("escape/passwd", b"evil")]);
    assert!(msg.starts_with(r#"entry "escape": a symlink"#), "{msg}");
    assert!(msg.contains("jail refuses symlinks"), "{msg}");

    let mut inside = entry(b"alias.py", EntryType::Symlink);
    inside.link = b"bot.py";
    let msg = refused_tar(&[file("bot.py", b"print()"), inside]);
    assert!(msg.starts_with(r#"entry "alias.py": a symlink"#), "{msg}");
}

#[test]
fn hard_links_are_refused() {
    let mut link = entry(b"copy", EntryType::Link);
    link.link = b"/etc/shadow";
    let msg = refused_tar(&[link]);
    assert!(msg.starts_with(r#"entry "copy": a hard link"#), "{msg}");
}

#[test]
fn devices_fifos_and_sparse_files_are_refused() {
    for (kind, word) in [
        (EntryType::Char, "character device"),
        (EntryType::Block, "block device"),
        (EntryType::Fifo, "FIFO"),
        (EntryType::new(b'Z'), "type 'Z'"),
    ] {
        let msg = refused_tar(&[file("bot.toml", b""), entry(b"dev", kind)]);
        assert!(msg.starts_with(r#"entry "dev": a "#), "{msg}");
        assert!(msg.contains(word), "{word}: {msg}");
    }
    // A GNU sparse header the tar crate cannot even parse: refused as unreadable.
    let msg = refused_tar(&[file("bot.toml", b""), entry(b"holes", EntryType::GNUSparse)]);
    assert!(
        msg.contains("unreadable") || msg.contains("sparse"),
        "{msg}"
    );
}

#[test]
fn non_utf8_nul_and_control_names_are_refused() {
    let msg = refused_tar(&[file("ok", b""), entry(b"bad\xff\xfe", EntryType::Regular)]);
    assert!(msg.contains("not UTF-8"), "{msg}");
    // Quoted with escapes: the name cannot drive a terminal.
    let msg = refused_tar(&[entry(b"bell\x07\x1b[2J", EntryType::Regular)]);
    assert!(
        msg.contains("control character") && msg.contains("\\u{7}"),
        "{msg}"
    );
}

#[test]
fn too_long_and_too_deep_paths_are_refused() {
    let limits = Limits {
        max_path_bytes: 20,
        max_depth: 3,
        ..Limits::default()
    };
    let msg = refused(&tar(&[file("abcdefghijklmnopqrstu", b"")]), &limits);
    assert!(msg.contains("21 bytes, more than the 20"), "{msg}");
    let msg = refused(&tar(&[file("a/b/c/d", b"")]), &limits);
    assert!(msg.contains("4 levels deep"), "{msg}");
    // The default: 255 bytes. A GNU long name (the tar crate writes one) of 300 bytes.
    let long = "x/".repeat(20) + &"y".repeat(260);
    let mut b = tar::Builder::new(Vec::new());
    let mut h = tar::Header::new_gnu();
    h.set_size(0);
    h.set_mode(0o644);
    b.append_data(&mut h, &long, &b""[..]).unwrap();
    let msg = refused(&b.into_inner().unwrap(), &Limits::default());
    assert!(msg.contains("300 bytes, more than the 255"), "{msg}");
}

#[test]
fn duplicates_are_refused_even_spelt_differently() {
    let msg = refused_tar(&[file("bot.py", b"a"), file("./bot.py", b"b")]);
    assert_eq!(msg, r#"entry "./bot.py": a duplicate of an earlier entry"#);
    let msg = refused_tar(&[
        entry(b"d/", EntryType::Directory),
        entry(b"d", EntryType::Directory),
    ]);
    assert!(msg.contains("duplicate"), "{msg}");
    let msg = refused_tar(&[entry(b"d/", EntryType::Directory), file("d", b"")]);
    assert!(msg.contains("duplicate"), "{msg}");
}

#[test]
fn a_file_beneath_a_file_is_refused() {
    let msg = refused_tar(&[file("lib", b"x"), file("lib/mod.py", b"y")]);
    assert_eq!(
        msg,
        r#"entry "lib/mod.py": "lib" is a file, not a directory"#
    );
}

#[test]
fn too_many_files_are_refused() {
    let names: Vec<String> = (0..11).map(|i| format!("f{i}")).collect();
    let entries: Vec<_> = names.iter().map(|n| file(n, b"")).collect();
    let limits = Limits {
        max_files: 10,
        ..Limits::default()
    };
    let msg = refused(&tar(&entries), &limits);
    assert_eq!(msg, r#"entry "f10": more than 10 files and directories"#);
    // Implicit parents count too: one file in 10 nested folders.
    let msg = refused(&tar(&[file("a/b/c/d/e/f/g/h/i/j/k", b"")]), &limits);
    assert!(msg.contains("more than 10"), "{msg}");
}

#[test]
fn an_oversized_archive_is_refused_before_reading() {
    let archive = tar(&[file("big", &[7u8; 5000])]);
    let limits = Limits {
        max_archive_bytes: 4096,
        ..Limits::default()
    };
    let msg = refused(&archive, &limits);
    assert!(msg.contains("more than the 4096 allowed"), "{msg}");
}

#[test]
fn unknown_formats_are_refused() {
    let msg = refused(b"#!/bin/sh\nrm -rf /\n", &Limits::default());
    assert!(msg.contains("not a bundle"), "{msg}");
}

#[test]
fn an_existing_destination_is_never_written_into_nor_removed() {
    let d = dest();
    std::fs::create_dir(&d.path).unwrap();
    std::fs::write(d.path.join("mine"), b"keep").unwrap();
    let err = unpack(&tar(&[file("bot.py", b"")]), &d.path, &Limits::default()).unwrap_err();
    assert!(err.to_string().contains("already exists"), "{err}");
    assert_eq!(std::fs::read(d.path.join("mine")).unwrap(), b"keep");
    assert!(!d.path.join("bot.py").exists());
}

#[test]
fn modes_are_0644_or_0755_never_setuid() {
    let mut suid = file("run.sh", b"#!/bin/sh\n");
    suid.mode = 0o4755;
    let mut sgid = file("data", b"");
    sgid.mode = 0o2640;
    let mut world = file("open", b"");
    world.mode = 0o7777;
    let archive = tar(&[
        entry(b"./", EntryType::Directory),
        suid,
        sgid,
        world,
        file("bot.toml", b"name = \"modes\"\n"),
    ]);
    let (d, unpacked) = accepted(&archive);
    let mode = |p: &str| {
        std::fs::metadata(d.path.join(p))
            .unwrap()
            .permissions()
            .mode()
            & 0o7777
    };
    assert_eq!(mode("run.sh"), 0o755);
    assert_eq!(mode("data"), 0o644);
    assert_eq!(mode("open"), 0o755);
    assert_eq!(mode(""), 0o700);
    assert_eq!(unpacked.files, 4);
    assert_eq!(unpacked.manifest_name.as_deref(), Some("modes"));
}

#[test]
fn a_broken_manifest_is_refused_and_a_nested_one_ignored() {
    let msg = refused_tar(&[file("bot.toml", b"name = [\n")]);
    assert!(msg.starts_with("bot.toml: not valid TOML"), "{msg}");
    let msg = refused_tar(&[file("bot.toml", b"name = 3\n")]);
    assert!(msg.contains("`name` is not a string"), "{msg}");
    let (_d, unpacked) = accepted(&tar(&[file("sub/bot.toml", b"name = \"inner\"\n")]));
    assert_eq!(unpacked.manifest_name, None);
}

#[test]
fn directories_with_declared_data_cannot_make_us_read_without_end() {
    // A directory entry declaring 64 MiB of data that the reader would skip: over the metadata
    // budget, refused without decompressing it all.
    let dir = entry(b"d/", EntryType::Directory);
    let mut b = tar::Builder::new(Vec::new());
    let zeros = vec![0u8; 64 << 20];
    b.append(&tar_header(&dir, zeros.len() as u64), zeros.as_slice())
        .unwrap();
    b.append(&tar_header(&file("x", b""), 0), &b""[..]).unwrap();
    let msg = refused(&zstd(&b.into_inner().unwrap()), &Limits::default());
    assert!(
        msg.contains(r#"after entry "d/": more than 1048576 bytes"#),
        "{msg}"
    );
}

#[test]
fn gzip_and_zstd_tars_unpack_alike() {
    let plain = tar(&[
        file("bot.toml", b"name = \"z\"\n"),
        file("src/main.py", b"print(1)\n"),
    ]);
    for archive in [gzip(&plain), zstd(&plain), plain.clone()] {
        let (d, unpacked) = accepted(&archive);
        assert_eq!(
            std::fs::read(d.path.join("src/main.py")).unwrap(),
            b"print(1)\n"
        );
        assert_eq!((unpacked.files, unpacked.bytes), (2, 20));
    }
}

/// A pax record `LEN key=value\n`, LEN counting itself.
fn pax_record(key: &str, value: &[u8]) -> Vec<u8> {
    let body = [b" ", key.as_bytes(), b"=", value, b"\n"].concat();
    let mut len = body.len() + 1;
    while len.to_string().len() + body.len() != len {
        len += 1;
    }
    [len.to_string().as_bytes(), &body].concat()
}

#[test]
fn a_pax_path_is_checked_like_any_path() {
    // The ustar name is harmless; the pax record that overrides it is not.
    let record = pax_record("path", b"../../evil");
    let mut b = tar::Builder::new(Vec::new());
    let pax = entry(b"PaxHeaders/benign", EntryType::XHeader);
    b.append(&tar_header(&pax, record.len() as u64), record.as_slice())
        .unwrap();
    let benign = file("benign", b"x");
    b.append(&tar_header(&benign, 1), &b"x"[..]).unwrap();
    let msg = refused(&b.into_inner().unwrap(), &Limits::default());
    assert_eq!(msg, r#"entry "../../evil": a path leaving the bundle"#);
}

#[test]
fn a_huge_pax_header_is_not_buffered() {
    let record = pax_record("comment", &vec![b'a'; 4 << 20]);
    let mut b = tar::Builder::new(Vec::new());
    b.append(&tar_header(&file("first", b""), 0), &b""[..])
        .unwrap();
    let pax = entry(b"PaxHeaders/x", EntryType::XHeader);
    b.append(&tar_header(&pax, record.len() as u64), record.as_slice())
        .unwrap();
    b.append(&tar_header(&file("x", b""), 0), &b""[..]).unwrap();
    let msg = refused(&gzip(&b.into_inner().unwrap()), &Limits::default());
    assert!(
        msg.starts_with(r#"after entry "first": more than"#),
        "{msg}"
    );
}

#[test]
fn a_truncated_archive_is_refused() {
    let archive = tar(&[
        file("bot.toml", b"name = \"t\"\n"),
        file("bot.py", &[b'#'; 3000]),
    ]);
    // Cut in the middle of bot.py's data: 512 (header) + 512 (bot.toml) + 512 (header) + 1000.
    let cut = gzip(&archive[..2536]);
    let msg = refused(&cut, &Limits::default());
    assert_eq!(
        msg,
        r#"entry "bot.py": unreadable: truncated: 1000 of its 3000 bytes"#
    );
}
