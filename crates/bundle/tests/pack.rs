//! `pack`: round trips, determinism, and what it refuses or skips.

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::*;
use pitboss_bundle::{detect, pack, sha256_hex, Format, Limits};

/// Every file under `dir` (relative path, bytes, exec bit), sorted.
fn files(dir: &Path) -> Vec<(String, Vec<u8>, bool)> {
    let mut out = Vec::new();
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>, bool)>) {
        for e in fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let meta = fs::symlink_metadata(&p).unwrap();
            if meta.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_str().unwrap().to_owned();
                out.push((
                    rel,
                    fs::read(&p).unwrap(),
                    meta.permissions().mode() & 0o111 != 0,
                ));
            }
        }
    }
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// A copy of the example bot (so the tests can change it).
fn copy_of_simple_bot(to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(simple_bot()).unwrap() {
        let p = e.unwrap().path();
        fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
    }
}

#[test]
fn the_example_bot_round_trips() {
    let archive = pack(&simple_bot(), &Limits::default()).unwrap();
    assert_eq!(detect(&archive), Some(Format::TarZst));
    let (d, unpacked) = accepted(&archive);
    let original = files(&simple_bot());
    assert_eq!(files(&d.path), original);
    assert!(original.iter().any(|(p, _, _)| p == "bot.toml"));
    assert_eq!(unpacked.files, original.len() as u64);
    assert_eq!(unpacked.manifest_name.as_deref(), Some("python-simple"));
}

#[test]
fn pack_is_deterministic() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    copy_of_simple_bot(&a);
    // Different times and permissions beyond the exec bit do not change the bytes.
    std::thread::sleep(std::time::Duration::from_millis(20));
    copy_of_simple_bot(&b);
    fs::set_permissions(b.join("bot.py"), fs::Permissions::from_mode(0o600)).unwrap();
    let first = pack(&a, &Limits::default()).unwrap();
    assert_eq!(first, pack(&a, &Limits::default()).unwrap());
    assert_eq!(
        sha256_hex(&first),
        sha256_hex(&pack(&b, &Limits::default()).unwrap())
    );
    // A changed byte or exec bit does.
    fs::set_permissions(b.join("bot.py"), fs::Permissions::from_mode(0o700)).unwrap();
    let exec = pack(&b, &Limits::default()).unwrap();
    assert_ne!(sha256_hex(&first), sha256_hex(&exec));
    let (d, _) = accepted(&exec);
    assert_eq!(
        fs::metadata(d.path.join("bot.py"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o755
    );
    fs::write(a.join("bot.py"), b"changed").unwrap();
    assert_ne!(first, pack(&a, &Limits::default()).unwrap());
    assert_eq!(
        sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}

#[test]
fn build_output_and_caches_are_skipped_nothing_else() {
    let tmp = tempfile::tempdir().unwrap();
    let bot = tmp.path().join("bot");
    copy_of_simple_bot(&bot);
    for dir in [
        ".git",
        "target/release",
        "__pycache__",
        "src/node_modules/x",
    ] {
        fs::create_dir_all(bot.join(dir)).unwrap();
        fs::write(bot.join(dir).join("junk"), b"junk").unwrap();
    }
    fs::write(bot.join("src/target"), b"a file named target is kept").unwrap();
    fs::write(bot.join(".hidden"), b"kept").unwrap();
    fs::create_dir(bot.join("empty")).unwrap();
    let (d, _) = accepted(&pack(&bot, &Limits::default()).unwrap());
    let names: Vec<String> = files(&d.path).into_iter().map(|f| f.0).collect();
    assert!(names.contains(&"src/target".to_owned()) && names.contains(&".hidden".to_owned()));
    assert!(!names.iter().any(|n| n.contains("junk")), "{names:?}");
    assert!(d.path.join("empty").is_dir());
}

#[test]
fn symlinks_and_fifos_are_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let bot = tmp.path().join("bot");
    copy_of_simple_bot(&bot);
    std::os::unix::fs::symlink("/etc/passwd", bot.join("passwd")).unwrap();
    let err = pack(&bot, &Limits::default()).unwrap_err().to_string();
    assert!(err.contains("passwd: a symlink"), "{err}");
    fs::remove_file(bot.join("passwd")).unwrap();
    // A symlinked directory called like a skipped one is not skipped silently either.
    std::os::unix::fs::symlink("/", bot.join("target")).unwrap();
    let err = pack(&bot, &Limits::default()).unwrap_err().to_string();
    assert!(err.contains("target: a symlink"), "{err}");
    fs::remove_file(bot.join("target")).unwrap();
    let fifo = std::ffi::CString::new(bot.join("pipe").to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let err = pack(&bot, &Limits::default()).unwrap_err().to_string();
    assert!(err.contains("pipe: not a regular file"), "{err}");
}

#[test]
fn pack_applies_the_limits_and_path_rules() {
    let tmp = tempfile::tempdir().unwrap();
    let bot = tmp.path().join("bot");
    copy_of_simple_bot(&bot);
    let small = Limits {
        max_unpacked_bytes: 1000,
        ..Limits::default()
    };
    let err = pack(&bot, &small).unwrap_err().to_string();
    assert!(err.contains("more than the 1000 bytes"), "{err}");
    let few = Limits {
        max_files: 2,
        ..Limits::default()
    };
    assert!(pack(&bot, &few)
        .unwrap_err()
        .to_string()
        .contains("more than 2 files"));
    fs::write(bot.join("a\\b"), b"").unwrap();
    let err = pack(&bot, &Limits::default()).unwrap_err().to_string();
    assert!(
        err.contains("cannot be packed") && err.contains("backslash"),
        "{err}"
    );
}
