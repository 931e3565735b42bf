//! A build's output folder ([`OutputDir`]): a fresh tmpfs at the folder's path in the jail,
//! capped by the kernel, read back through [`Jail::poll_output`] after every process of the jail
//! is gone, while the host's folder stays untouched.

use std::io::Read;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pitboss_jail::{features, Held, Jail, JailSpec, Mode, OutputDir};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pitboss-jail-output-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `script` under `sh` in a jail whose output folder is `dir/out`; returns the exit
/// status, stderr, and the output folder as handed over.
fn run(dir: &Path, script: &str, mb: u64) -> (bool, String, Option<OwnedFd>) {
    let spec = JailSpec {
        workdir: dir.to_path_buf(),
        read: vec![dir.to_path_buf()],
        output: Some(OutputDir {
            path: dir.join("out"),
            mb,
            files: 64,
        }),
        ..JailSpec::default()
    };
    let mut jail = Jail::prepare(&spec).expect("jail");
    let mut cmd = Command::new("/bin/sh");
    cmd.args(["-c", script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    jail.install(&mut cmd);
    cmd.env("PATH", "/usr/bin:/bin");
    let mut child = cmd.spawn().expect("spawn");
    let mut out = None;
    let t = Instant::now();
    let status = loop {
        if let Some(Held::Ended(r)) = jail.poll_output(child.id()) {
            out = Some(r.expect("the output folder"));
        }
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the jail never ended"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    jail.cleanup();
    (status.success(), err, out)
}

fn read_at(dir: &OwnedFd, name: &str) -> String {
    let p = format!("/proc/self/fd/{}/{name}", dir.as_raw_fd());
    std::fs::read_to_string(p).unwrap_or_else(|e| format!("<{e}>"))
}

#[test]
fn the_output_folder_is_a_fresh_tmpfs_read_back_after_the_jail_ended() {
    if features().mode == Mode::Fallback {
        eprintln!(
            "skipped: no mount namespace here ({})",
            features().describe()
        );
        return;
    }
    let d = tmp("fresh");
    std::fs::create_dir_all(d.join("out")).unwrap();
    std::fs::write(d.join("out/old"), "host file").unwrap();
    let (ok, err, out) = run(
        &d,
        "test -e out/old && echo old-visible >&2; echo built > out/result; \
         (sleep 30 &) ; touch out/a && mkdir out/sub && echo deep > out/sub/f",
        16,
    );
    assert!(ok, "{err}");
    assert!(
        !err.contains("old-visible"),
        "the tmpfs was not fresh: {err}"
    );
    let out = out.expect("handed over");
    // The jail is gone (its background sleeper too), its tmpfs is still readable.
    assert_eq!(read_at(&out, "result"), "built\n");
    assert_eq!(read_at(&out, "sub/f"), "deep\n");
    // The host's folder never saw a write.
    let host: Vec<_> = std::fs::read_dir(d.join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(host, ["old"], "{host:?}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn the_output_folder_is_capped_by_the_kernel() {
    if features().mode == Mode::Fallback {
        eprintln!(
            "skipped: no mount namespace here ({})",
            features().describe()
        );
        return;
    }
    let d = tmp("cap");
    std::fs::create_dir_all(d.join("out")).unwrap();
    let (ok, err, out) = run(
        &d,
        "dd if=/dev/zero of=out/big bs=1M count=8 2>/dev/null || echo size-refused >&2; \
         i=0; while [ $i -lt 100 ]; do touch out/f$i 2>/dev/null || { echo files-refused >&2; break; }; \
         i=$((i+1)); done; exit 0",
        4,
    );
    assert!(ok, "{err}");
    assert!(err.contains("size-refused"), "8 MiB fit in 4: {err}");
    assert!(err.contains("files-refused"), "100 files fit in 64: {err}");
    assert!(out.is_some());
    assert_eq!(std::fs::read_dir(d.join("out")).unwrap().count(), 0);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_symlinked_output_folder_is_not_handed_over() {
    if features().mode == Mode::Fallback {
        eprintln!(
            "skipped: no mount namespace here ({})",
            features().describe()
        );
        return;
    }
    let d = tmp("link");
    let elsewhere = tmp("link-target");
    std::os::unix::fs::symlink(&elsewhere, d.join("out")).unwrap();
    let spec = JailSpec {
        workdir: d.clone(),
        read: vec![d.clone()],
        output: Some(OutputDir {
            path: d.join("out"),
            mb: 4,
            files: 64,
        }),
        ..JailSpec::default()
    };
    let mut jail = Jail::prepare(&spec).expect("jail");
    let mut cmd = Command::new("/bin/true");
    cmd.stdin(Stdio::null()).stderr(Stdio::null());
    jail.install(&mut cmd);
    let mut child = cmd.spawn().expect("spawn");
    let t = Instant::now();
    let mut handed = None;
    while child.try_wait().unwrap().is_none() {
        if let Some(Held::Ended(r)) = jail.poll_output(child.id()) {
            handed = Some(r);
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the jail never ended"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    jail.cleanup();
    if let Some(r) = handed {
        assert!(r.is_err(), "a folder through a symlink was handed over");
    }
    let _ = std::fs::remove_dir_all(&d);
    let _ = std::fs::remove_dir_all(&elsewhere);
}
