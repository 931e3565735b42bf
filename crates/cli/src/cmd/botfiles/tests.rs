//! The careful walk on small folders: what it takes, what it refuses (and that a refusal names
//! the file), the copy, and the hash of a flat folder being the one earlier versions computed.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::*;

/// A folder of its own in the temp directory, removed at the end.
struct Tmp(PathBuf);

impl Tmp {
    fn new(name: &str) -> Tmp {
        let p =
            std::env::temp_dir().join(format!("pitboss-botfiles-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(p.join("bot")).unwrap();
        std::fs::write(
            p.join("bot/bot.toml"),
            "name = \"x\"\ncommand = [\"python3\", \"bot.py\"]\n",
        )
        .unwrap();
        std::fs::write(p.join("bot/bot.py"), "print('hello')\n").unwrap();
        Tmp(p)
    }

    fn bot(&self) -> PathBuf {
        self.0.join("bot")
    }

    fn spec(&self) -> String {
        self.bot().join("bot.toml").display().to_string()
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn walk(spec: &str, limits: Limits, into: Option<&Path>) -> Result<Summary, FilesError> {
    collect(spec, &Source::of(spec), limits, into)
}

/// The hash of earlier versions: the spec, then each regular file of the folder by name.
fn old_hash(spec: &str, dir: &Path) -> String {
    let mut h = Sha256::new();
    h.update(spec.as_bytes());
    h.update([0]);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        h.update(f.file_name().unwrap().as_encoded_bytes());
        h.update([0]);
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn a_flat_folder_hashes_as_before_and_is_copied_with_its_modes() {
    let t = Tmp::new("flat");
    std::fs::write(t.bot().join("run.sh"), "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(
        t.bot().join("run.sh"),
        std::fs::Permissions::from_mode(0o4755),
    )
    .unwrap();
    std::fs::set_permissions(
        t.bot().join("bot.py"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    let s = walk(&t.spec(), Limits::default(), Some(&t.0.join("copy"))).unwrap();
    assert_eq!(s.hash, old_hash(&t.spec(), &t.bot()));
    assert_eq!(s.files, 3);
    let mode = |p: &str| std::fs::metadata(t.0.join("copy").join(p)).unwrap().mode() & 0o7777;
    assert_eq!(mode("run.sh"), 0o755, "set-uid bit dropped");
    assert_eq!(mode("bot.py"), 0o600, "no more readable than the original");
    assert_eq!(
        std::fs::read(t.0.join("copy/bot.py")).unwrap(),
        b"print('hello')\n"
    );
    // The same files give the same hash; a changed byte another one.
    assert_eq!(
        walk(&t.spec(), Limits::default(), None).unwrap().hash,
        s.hash
    );
    std::fs::write(t.bot().join("bot.py"), "print('hellO')\n").unwrap();
    assert_ne!(
        walk(&t.spec(), Limits::default(), None).unwrap().hash,
        s.hash
    );
}

#[test]
fn subfolders_are_walked_and_copied_but_not_the_build_dir() {
    let t = Tmp::new("tree");
    std::fs::create_dir_all(t.bot().join("lib/deep")).unwrap();
    std::fs::write(t.bot().join("lib/deep/x.py"), "x = 1\n").unwrap();
    std::fs::create_dir_all(t.bot().join("build")).unwrap();
    std::fs::write(t.bot().join("build/out.bin"), "built").unwrap();
    let s = walk(&t.spec(), Limits::default(), Some(&t.0.join("copy"))).unwrap();
    // Without a build command, build/ is the bot's own.
    assert_eq!(
        s.files, 7,
        "bot.toml bot.py lib lib/deep lib/deep/x.py build build/out.bin"
    );
    assert!(t.0.join("copy/lib/deep/x.py").is_file());
    assert!(t.0.join("copy/build/out.bin").is_file());
    std::fs::write(
        t.bot().join("bot.toml"),
        "name = \"x\"\ncommand = [\"python3\", \"bot.py\"]\nbuild = [\"make\"]\n",
    )
    .unwrap();
    // A symlink in what the build made is not the submission's business.
    std::os::unix::fs::symlink("/etc/shadow", t.bot().join("build/link")).unwrap();
    let s2 = walk(&t.spec(), Limits::default(), Some(&t.0.join("copy2"))).unwrap();
    assert_eq!(s2.files, 5);
    assert!(!t.0.join("copy2/build").exists());
}

#[test]
fn links_special_files_and_hard_links_are_refused_by_name() {
    let t = Tmp::new("links");
    let sub = t.bot().join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    // A link, even to a file inside.
    std::os::unix::fs::symlink("../bot.py", sub.join("inside")).unwrap();
    let e = walk(&t.spec(), Limits::default(), None).unwrap_err();
    assert!(matches!(e, FilesError::Symlink { .. }), "{e}");
    assert!(
        e.to_string().contains("\"sub/inside\"") && e.to_string().contains("../bot.py"),
        "{e}"
    );
    std::fs::remove_file(sub.join("inside")).unwrap();
    // A fifo: refused at once, never opened.
    let fifo = std::ffi::CString::new(sub.join("fifo").as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid C string.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    let e = walk(&t.spec(), Limits::default(), None).unwrap_err();
    assert!(e.to_string().contains("\"sub/fifo\" is a fifo"), "{e}");
    std::fs::remove_file(sub.join("fifo")).unwrap();
    // A socket.
    let _l = std::os::unix::net::UnixListener::bind(sub.join("sock")).unwrap();
    let e = walk(&t.spec(), Limits::default(), None).unwrap_err();
    assert!(e.to_string().contains("\"sub/sock\" is a socket"), "{e}");
    std::fs::remove_file(sub.join("sock")).unwrap();
    // A second name of a file outside.
    std::fs::write(t.0.join("outside"), "secret").unwrap();
    std::fs::hard_link(t.0.join("outside"), sub.join("hard")).unwrap();
    let e = walk(&t.spec(), Limits::default(), None).unwrap_err();
    assert!(
        e.to_string().contains("\"sub/hard\" has 2 hard links"),
        "{e}"
    );
    std::fs::remove_file(sub.join("hard")).unwrap();
    // A control character in a name is shown escaped.
    std::os::unix::fs::symlink("x", sub.join("a\u{1b}[2J")).unwrap();
    let e = walk(&t.spec(), Limits::default(), None).unwrap_err();
    assert!(e.to_string().contains("a\\u{1b}[2J"), "{e}");
    std::fs::remove_file(sub.join("a\u{1b}[2J")).unwrap();
    assert!(walk(&t.spec(), Limits::default(), None).is_ok());
    // The bot's folder itself must not be a link.
    std::os::unix::fs::symlink(t.bot(), t.0.join("alias")).unwrap();
    let spec = t.0.join("alias/bot.toml").display().to_string();
    let e = walk(&spec, Limits::default(), None).unwrap_err();
    assert!(e.to_string().contains("symbolic link"), "{e}");
    // Nor the manifest.
    std::fs::rename(t.bot().join("bot.toml"), t.bot().join("real.toml")).unwrap();
    std::os::unix::fs::symlink("real.toml", t.bot().join("bot.toml")).unwrap();
    let e = walk(&t.spec(), Limits::default(), None).unwrap_err();
    assert!(
        e.to_string().contains("\"bot.toml\" is a symbolic link"),
        "{e}"
    );
}

#[test]
fn limits_count_files_and_lengths_before_reading() {
    let t = Tmp::new("limits");
    // 64 MiB that take no disk: refused by length under a 1 MiB limit, without being read.
    let f = std::fs::File::create(t.bot().join("sparse")).unwrap();
    f.set_len(64 << 20).unwrap();
    let small = Limits {
        files: 100,
        bytes: 1 << 20,
    };
    let e = walk(&t.spec(), small, Some(&t.0.join("copy"))).unwrap_err();
    assert!(
        matches!(&e, FilesError::TooBig { file, size, .. } if file == "\"sparse\"" && *size == 64 << 20),
        "{e}"
    );
    assert!(!t.0.join("copy/sparse").exists(), "nothing of it copied");
    std::fs::remove_file(t.bot().join("sparse")).unwrap();
    for i in 0..10 {
        std::fs::write(t.bot().join(format!("f{i}")), "x").unwrap();
    }
    let few = Limits {
        files: 11,
        bytes: 1 << 20,
    };
    let e = walk(&t.spec(), few, None).unwrap_err();
    assert!(matches!(e, FilesError::TooMany { max: 11, .. }), "{e}");
    let enough = Limits {
        files: 12,
        bytes: 1 << 20,
    };
    assert_eq!(walk(&t.spec(), enough, None).unwrap().files, 12);
    // Nesting.
    let mut d = t.bot();
    for _ in 0..=MAX_DEPTH {
        d = d.join("d");
    }
    std::fs::create_dir_all(&d).unwrap();
    let e = walk(&t.spec(), Limits::default(), None).unwrap_err();
    assert!(matches!(e, FilesError::TooDeep { .. }), "{e}");
}

#[test]
fn exec_specs_read_their_script_and_become_absolute() {
    let t = Tmp::new("exec");
    let script = t.bot().join("bot.py");
    let spec = format!("exec:python3 -u {} --fast", script.display());
    assert_eq!(
        Source::of(&spec),
        Source::File {
            dir: t.bot(),
            name: "bot.py".into()
        }
    );
    let s = walk(&spec, Limits::default(), Some(&t.0.join("copy"))).unwrap();
    assert_eq!(s.files, 1);
    assert!(t.0.join("copy/bot.py").is_file());
    assert_eq!(Source::of("exec:python3 -m nosuchmodule"), Source::Nothing);
    assert_eq!(Source::of("lowball"), Source::Nothing);
    // A program by path is the file; a relative one is made absolute in the recorded spec.
    let rel = format!("exec:{} --x", script.display());
    assert!(matches!(Source::of(&rel), Source::File { .. }));
    let canon = t.bot().canonicalize().unwrap();
    // The folder by a relative path from here (no set_current_dir: tests share the process).
    let here = std::env::current_dir().unwrap();
    let mut up = PathBuf::new();
    for _ in here.components().skip(1) {
        up.push("..");
    }
    let rel_bot = up.join(canon.strip_prefix("/").unwrap());
    let rel_bot = rel_bot.display();
    let spec = format!("exec:python3 {rel_bot}/bot.py --fast");
    let abs = Source::of(&spec).absolute_spec(&spec);
    let m = format!("{rel_bot}/bot.toml");
    let manifest = Source::of(&m).absolute_spec(&m);
    let f = rel_bot.to_string();
    let folder = Source::of(&f).absolute_spec(&f);
    assert_eq!(
        abs,
        format!("exec:python3 {} --fast", canon.join("bot.py").display())
    );
    assert_eq!(manifest, canon.join("bot.toml").display().to_string());
    assert_eq!(folder, manifest);
    // A script that is a link is refused like any other.
    std::os::unix::fs::symlink("/etc/passwd", t.bot().join("l.py")).unwrap();
    let spec = format!("exec:python3 {}", t.bot().join("l.py").display());
    let e = walk(&spec, Limits::default(), None).unwrap_err();
    assert!(e.to_string().contains("\"l.py\" is a symbolic link"), "{e}");
}
