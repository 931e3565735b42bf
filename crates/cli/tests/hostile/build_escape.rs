//! Issue 23 items 4 and 8: the build step never touches a tree it does not own. Its `build_dir`
//! cannot lead out of the bot's folder (a symlinked parent or `..` is refused by `check`,
//! `submit` and `match`); what it leaves there carries no set-uid or set-gid bit, no fifo or
//! device, and nothing owned by a jail's uid; it reads no cargo credentials or configuration; it is
//! capped in size; and a referee killed mid-build leaves nothing behind.
//!
//! The bot folders of these tests belong to another user (`nobody`) when the suite runs as root,
//! so that a tree given "back to the folder's owner" is visible as such.

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::harness::*;

/// The first uid of a root referee's jails (`crates/jail`: `0x5EB0_0000` and up).
const JAIL_UIDS: u32 = 0x5EB0_0000;
/// The owner given to the bot folder when the suite runs as root.
const NOBODY: u32 = 65534;

fn root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Gives `p` and everything under it (links themselves) to `uid` (root only).
fn chown_tree(p: &Path, uid: u32) {
    std::os::unix::fs::lchown(p, Some(uid), Some(uid)).unwrap();
    if std::fs::symlink_metadata(p).unwrap().is_dir() {
        for e in std::fs::read_dir(p).unwrap() {
            chown_tree(&e.unwrap().path(), uid);
        }
    }
}

/// `manifests/build_escape.toml` as the bot's manifest, with its program and `build_dir`; the bot
/// folder is then given to `nobody` when running as root.
fn escape_manifest(a: &Arena, program: &str, build_dir: &str, args: &[String]) -> PathBuf {
    let m = a.manifest("build_escape.toml", args);
    let text = std::fs::read_to_string(&m)
        .unwrap()
        .replace("@PROGRAM@", program)
        .replace("@BUILD_DIR@", build_dir);
    std::fs::write(&m, text).unwrap();
    if root() {
        chown_tree(&a.bots, NOBODY);
    }
    m
}

fn check(a: &Arena, m: &Path, env: &[(&str, &Path)]) -> Run {
    let _ = std::fs::remove_dir_all(&a.out);
    let mut c = a.pitboss();
    c.arg("check")
        .arg(m)
        .args(["--game", "27td-fl", "--hands", "10", "--out"])
        .arg(&a.out);
    for (k, v) in env {
        c.env(k, v);
    }
    a.run(c, secs(240))
}

fn submit(a: &Arena, m: &Path) -> Run {
    std::fs::create_dir_all(&a.registry).unwrap();
    std::fs::write(
        a.registry.join("registry.toml"),
        "[settings]\nname = \"hostile\"\ngames = [\"27td-fl\"]\ndeals = 20\nbatch = 10\nseed = 1\nbootstrap = 10\n",
    )
    .unwrap();
    let mut c = a.pitboss();
    c.arg("submit")
        .arg(m)
        .args(["--name", "hostile", "--threads", "1", "--registry"])
        .arg(&a.registry);
    a.run(c, secs(240))
}

/// One file's identity: owner, group, mode (type included), length, first bytes.
type Seen = (u32, u32, u32, u64, Vec<u8>);

/// Every file under `dir`, links not followed.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Seen> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(md) = std::fs::symlink_metadata(&d) else {
            continue;
        };
        let head = if md.is_file() {
            std::fs::read(&d)
                .map(|b| b.into_iter().take(64).collect())
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        out.insert(d.clone(), (md.uid(), md.gid(), md.mode(), md.len(), head));
        if md.is_dir() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                todo.push(e.path());
            }
        }
    }
    out
}

/// What must never be found under `dir` after a build: set-uid, set-gid or sticky bits, fifos,
/// sockets, devices, files of a jail's uid.
fn forbidden(dir: &Path) -> Vec<String> {
    let mut bad = Vec::new();
    for (p, (uid, _, mode, _, _)) in snapshot(dir) {
        let kind = mode & libc::S_IFMT;
        if mode & 0o7000 != 0 && kind != libc::S_IFLNK {
            bad.push(format!("{}: mode {mode:o}", p.display()));
        }
        if ![libc::S_IFDIR, libc::S_IFREG, libc::S_IFLNK].contains(&kind) {
            bad.push(format!("{}: a special file (mode {mode:o})", p.display()));
        }
        if uid >= JAIL_UIDS {
            bad.push(format!("{}: owned by the jail uid {uid:#x}", p.display()));
        }
    }
    bad
}

/// Files under `dir` whose content holds `needle`.
fn holding(dir: &Path, needle: &str) -> Vec<String> {
    snapshot(dir)
        .into_iter()
        .filter(|(p, (_, _, mode, _, _))| {
            mode & libc::S_IFMT == libc::S_IFREG
                && std::fs::read(p)
                    .map(|b| String::from_utf8_lossy(&b).contains(needle))
                    .unwrap_or(false)
        })
        .map(|(p, _)| p.display().to_string())
        .collect()
}

/// `.pitboss-build-*` folders next to the bot's build_dir.
fn fresh_left(a: &Arena) -> Vec<String> {
    std::fs::read_dir(&a.bots)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".pitboss-build-"))
        .collect()
}

#[test]
fn a_build_dir_through_a_symlink_or_dotdot_is_refused() {
    let _g = lock();
    let a = Arena::new("bd-link");
    // The victim: root-only in root mode (the bot's owner is nobody); in the other mode it stands
    // for the referee user's home.
    let tree = a.victim.join("tree");
    std::fs::create_dir_all(tree.join("sub")).unwrap();
    std::fs::write(tree.join("secret.txt"), "VICTIM-SECRET\n").unwrap();
    std::fs::set_permissions(tree.join("secret.txt"), PermissionsExt::from_mode(0o600)).unwrap();
    std::fs::write(tree.join("sub/file"), "victim file\n").unwrap();
    std::fs::set_permissions(&a.victim, PermissionsExt::from_mode(0o700)).unwrap();
    std::os::unix::fs::symlink(&a.victim, a.bots.join("x")).unwrap();
    let before = snapshot(&a.victim);
    let mut f = Findings::default();
    let mut last = None;
    for (case, build_dir) in [
        ("a new folder through a symlink", "x/pwn"),
        ("an existing tree through a symlink", "x/tree"),
        ("a path with ..", "../../victim/dots"),
    ] {
        let args = vec!["mode=write".to_string(), format!("out={build_dir}")];
        let m = escape_manifest(&a, python(), build_dir, &args);
        let runs = [
            ("check", check(&a, &m, &[])),
            ("match", {
                let _ = std::fs::remove_dir_all(&a.out);
                a.run_match(
                    &[m.display().to_string(), "call".into()],
                    10,
                    &[],
                    secs(240),
                )
            }),
            ("submit", submit(&a, &m)),
        ];
        for (cmd, run) in runs {
            f.check(run.status.is_some_and(|s| !s.success()), || {
                format!("{case}: {cmd} accepted build_dir = {build_dir:?}")
            });
            f.check(run.text.contains("build_dir"), || {
                format!("{case}: {cmd} did not say build_dir is refused")
            });
            let after = snapshot(&a.victim);
            f.check(after == before, || {
                let changed: Vec<String> = after
                    .iter()
                    .filter(|(p, s)| before.get(*p) != Some(s))
                    .map(|(p, s)| format!("{} (uid {}, mode {:o})", p.display(), s.0, s.2))
                    .collect();
                format!("{case}: {cmd} changed the victim folder: {changed:?}")
            });
            f.clean(&a, &run);
            last = Some(run);
        }
        let registered = std::fs::read_to_string(a.registry.join("registry.toml"))
            .unwrap_or_default()
            .contains("[[entries]]");
        f.check(!registered, || format!("{case}: submit registered the bot"));
    }
    f.assert(&last.unwrap());
}

#[test]
fn set_id_bits_fifos_and_devices_never_leave_the_build() {
    let _g = lock();
    let a = Arena::new("bd-setid");
    let args = vec!["mode=setid".to_string(), "out=build".to_string()];
    let m = escape_manifest(&a, python(), "build", &args);
    let run = check(&a, &m, &[]);
    let mut f = Findings::default();
    f.check(run.status.is_some_and(|s| s.success()), || {
        "check of the set-id build failed".into()
    });
    let report = std::fs::read_to_string(a.bots.join("build/report.txt")).unwrap_or_default();
    f.no_success(
        "build report",
        &report,
        &[
            "build-setuid-interpreter",
            "build-setgid-file",
            "build-setgid-folder",
            "build-sticky-folder",
            "build-create-setuid",
            "build-openat2-setuid",
            "build-fifo",
            "build-device",
        ],
    );
    let bad = forbidden(&a.bots);
    f.check(bad.is_empty(), || {
        format!("the build left in the bot's folder: {bad:?}")
    });
    f.check(a.bots.join("build/py").is_file(), || {
        "the build's output was not copied out (no build/py)".into()
    });
    f.check(a.bots.join("build/link").is_symlink(), || {
        "a symlink of the build was not kept as a symlink".into()
    });
    if root() {
        let foreign: Vec<String> = snapshot(&a.bots.join("build"))
            .into_iter()
            .filter(|(_, s)| s.0 != NOBODY || s.1 != NOBODY)
            .map(|(p, s)| format!("{} ({}:{})", p.display(), s.0, s.1))
            .collect();
        f.check(foreign.is_empty(), || {
            format!("build output not given to the bot folder's owner: {foreign:?}")
        });
    }
    f.check(fresh_left(&a).is_empty(), || {
        format!("copies left: {:?}", fresh_left(&a))
    });
    f.clean(&a, &run);
    f.assert(&run);
}

#[test]
fn the_build_reads_no_cargo_credentials() {
    let _g = lock();
    let a = Arena::new("bd-creds");
    // A CARGO_HOME for the referee, with a tool in bin/ (the build's program: its installation
    // would be bound whole), credentials and a configuration, and a registry cache.
    let home = a.root.join("cargo-home");
    std::fs::create_dir_all(home.join("bin")).unwrap();
    std::fs::create_dir_all(home.join("registry/cache")).unwrap();
    let creds = home.join("credentials.toml");
    std::fs::write(
        &creds,
        format!("[registry]\ntoken = \"SECRET-CREDENTIALS-{}\"\n", a.tag),
    )
    .unwrap();
    std::fs::set_permissions(&creds, PermissionsExt::from_mode(0o600)).unwrap();
    std::fs::write(
        home.join("config.toml"),
        format!("[http]\nproxy = \"SECRET-CONFIG-{}\"\n", a.tag),
    )
    .unwrap();
    std::fs::write(
        home.join("registry/cache/marker.txt"),
        "REGISTRY-CACHE-OK\n",
    )
    .unwrap();
    let tool = home.join("bin/pitboss-tool");
    std::fs::write(&tool, format!("#!/bin/sh\nexec {} \"$@\"\n", python())).unwrap();
    std::fs::set_permissions(&tool, PermissionsExt::from_mode(0o755)).unwrap();
    let args = vec![
        "mode=creds".to_string(),
        format!("cargo={}", home.display()),
        "out=build".to_string(),
    ];
    let m = escape_manifest(&a, &tool.display().to_string(), "build", &args);
    let run = check(&a, &m, &[("CARGO_HOME", &home)]);
    let mut f = Findings::default();
    f.check(run.status.is_some_and(|s| s.success()), || {
        "check of the credentials build failed".into()
    });
    let report = std::fs::read_to_string(a.bots.join("build/report.txt")).unwrap_or_default();
    f.no_success(
        "build report",
        &report,
        &[
            "creds-info",
            "build-read-cargo-credentials",
            "build-write-registry-cache",
        ],
    );
    // The cache is meant to be readable: cargo --offline builds from it.
    f.check(report.contains("REGISTRY-CACHE-OK"), || {
        "the registry cache was not readable from the build".into()
    });
    for dir in [&a.bots, &a.out] {
        let leaked = holding(dir, "SECRET-");
        f.check(leaked.is_empty(), || {
            format!("credentials or configuration copied to {leaked:?}")
        });
    }
    f.check(!run.logs().contains("SECRET-"), || {
        "credentials or configuration in the bot logs".into()
    });
    f.clean(&a, &run);
    f.assert(&run);
}

#[test]
fn a_build_over_its_cap_fails_and_leaves_nothing() {
    let _g = lock();
    let a = Arena::new("bd-cap");
    let mut f = Findings::default();
    let mut last = None;
    for mode in ["fill", "sparse"] {
        let args = vec![format!("mode={mode}"), "out=build".to_string()];
        let m = escape_manifest(&a, python(), "build", &args);
        let run = check(&a, &m, &[]);
        f.check(run.status.is_some_and(|s| !s.success()), || {
            format!("{mode}: check accepted a build over the cap")
        });
        f.check(run.text.contains("1024 MiB"), || {
            format!("{mode}: the refusal does not name the cap (1024 MiB)")
        });
        let build = a.bots.join("build");
        let left: Vec<PathBuf> = std::fs::read_dir(&build)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .collect();
        f.check(left.is_empty(), || {
            format!("{mode}: left in build_dir: {left:?}")
        });
        f.check(!build.exists(), || {
            format!("{mode}: the build_dir the referee made for the build is still there")
        });
        f.check(fresh_left(&a).is_empty(), || {
            format!("{mode}: copies left: {:?}", fresh_left(&a))
        });
        let used: u64 = snapshot(&a.root)
            .keys()
            .filter_map(|p| std::fs::symlink_metadata(p).ok())
            .map(|m| m.blocks() * 512)
            .sum();
        f.check(used < 64 << 20, || {
            format!("{mode}: {} MiB on disk in the test's folder", used >> 20)
        });
        f.clean(&a, &run);
        last = Some(run);
    }
    f.assert(&last.unwrap());
}

#[test]
fn a_referee_killed_mid_build_leaves_nothing() {
    let _g = lock();
    let a = Arena::new("bd-kill");
    let args = vec!["mode=sleep".to_string(), "out=build".to_string()];
    let m = escape_manifest(&a, python(), "build", &args);
    let mut c = a.pitboss();
    c.arg("check")
        .arg(&m)
        .args(["--game", "27td-fl", "--hands", "10", "--out"])
        .arg(&a.out)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut child = c.spawn().unwrap();
    let start = Instant::now();
    let mut f = Findings::default();
    while !tagged(&a.tag).iter().any(|(_, c)| c.contains("mode=sleep")) {
        if child.try_wait().unwrap().is_some() || start.elapsed() > secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            a.survivors();
            panic!("the build never started");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // Time to write its file.
    std::thread::sleep(Duration::from_millis(1500));
    child.kill().unwrap();
    child.wait().unwrap();
    let left = a.survivors();
    f.check(left.is_empty(), || {
        format!("build processes outlived their referee: {left:?}")
    });
    let tmp = a.tmp_left();
    f.check(tmp.is_empty(), || format!("left in TMPDIR: {tmp:?}"));
    let bad = forbidden(&a.root);
    f.check(bad.is_empty(), || {
        format!("left after the referee died: {bad:?}")
    });
    let partial = a.bots.join("build/partial.txt");
    f.check(!partial.exists(), || {
        "the killed build's file reached the bot's folder".into()
    });
    // The next build removes what a copy cut short would have left (by a referee that is gone:
    // no such pid), and works.
    let stale = a.bots.join(".pitboss-build-999999999-0");
    std::fs::create_dir_all(stale.join("sub")).unwrap();
    std::fs::write(stale.join("sub/f"), "x").unwrap();
    let args = vec!["mode=write".to_string(), "out=build".to_string()];
    let m = escape_manifest(&a, python(), "build", &args);
    let run = check(&a, &m, &[]);
    f.check(run.status.is_some_and(|s| s.success()), || {
        "the next check failed".into()
    });
    f.check(fresh_left(&a).is_empty(), || {
        format!("stale copies not removed: {:?}", fresh_left(&a))
    });
    f.check(
        a.bots
            .join(format!("build/BUILD-ESCAPE-MARKER-{}", a.tag))
            .is_file(),
        || "the next build's output is missing".into(),
    );
    f.clean(&a, &run);
    f.assert(&run);
}
