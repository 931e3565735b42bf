//! A manifest's build step, run in the same jail as the bot: it may read the bot's folder, its
//! `read` paths and its toolchain, write only its `build_dir` (and a private `/tmp`), reach no
//! network unless the operator passes `--build-network`, and must end within [`BUILD_TIMEOUT`].
//!
//! The jail's uid is not the owner of the bot's folder, so the referee hands the `build_dir` to
//! that uid for the build and gives it back to the folder's owner afterwards: the tree looks to
//! its owner as if they had built it themselves.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pitboss_jail::{install_root, resolve_program, Jail, JailSpec};

use super::spec::{BuildOptions, ExternalSpec, SpecError};

/// The longest a build may take.
pub const BUILD_TIMEOUT: Duration = Duration::from_secs(900);

/// Toolchain homes a build needs to read (Rust's, when the referee's user has them).
fn toolchains() -> Vec<(String, PathBuf)> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut v = Vec::new();
    for (var, dflt) in [("CARGO_HOME", ".cargo"), ("RUSTUP_HOME", ".rustup")] {
        let p = std::env::var_os(var)
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(dflt)));
        if let Some(p) = p.filter(|p| p.is_dir()) {
            v.push((var.to_string(), p));
        }
    }
    v
}

/// Gives every file under `dir` to `uid:gid` (symlinks themselves, not their targets).
fn chown_tree(dir: &Path, uid: u32, gid: u32) -> std::io::Result<()> {
    std::os::unix::fs::lchown(dir, Some(uid), Some(gid))?;
    if std::fs::symlink_metadata(dir)?.is_dir() {
        for e in std::fs::read_dir(dir)? {
            chown_tree(&e?.path(), uid, gid)?;
        }
    }
    Ok(())
}

fn tail(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.lines().rev().take(15).collect();
    lines.into_iter().rev().collect::<Vec<_>>().join("\n")
}

/// Runs the manifest's build command (if any) in the manifest's folder — in the jail, like the
/// bot: it reads what the bot may read plus its toolchain, writes only its `build_dir` (and a
/// private `/tmp`), and has no network unless the operator allows it.
///
/// # Errors
/// [`SpecError::Build`] with the command's stderr tail.
pub fn build(spec: &ExternalSpec, opts: &BuildOptions) -> Result<(), SpecError> {
    let Some(cmd) = &spec.build else {
        return Ok(());
    };
    let fail = |why: String| SpecError::Build {
        path: spec
            .manifest
            .as_ref()
            .map_or_else(String::new, |p| p.display().to_string()),
        command: cmd.clone(),
        why,
    };
    if cmd.is_empty() {
        return Err(fail("empty build command".into()));
    }
    let dir = spec.base().unwrap_or_else(|| spec.dir.clone());
    run(spec, cmd, &dir, opts).map_err(fail)
}

/// Runs `cmd` in `dir` for the bot `e`.
///
/// # Errors
/// What failed, with the tail of the build's output.
fn run(e: &ExternalSpec, cmd: &[String], dir: &Path, opts: &BuildOptions) -> Result<(), String> {
    let program =
        resolve_program(&cmd[0], dir).ok_or_else(|| format!("program {:?} not found", cmd[0]))?;
    std::fs::create_dir_all(&e.build_dir)
        .map_err(|err| format!("{}: {err}", e.build_dir.display()))?;
    let mut command = Command::new(&program);
    command
        .args(&cmd[1..])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut jail = None;
    let mut owner = None;
    if opts.sandbox {
        let tools = toolchains();
        let mut read = vec![dir.to_path_buf(), e.dir.clone(), program.clone()];
        read.extend(install_root(&program));
        read.extend(e.read.iter().cloned());
        read.extend(tools.iter().map(|(_, p)| p.clone()));
        let spec = JailSpec {
            workdir: dir.to_path_buf(),
            base: Some(dir.to_path_buf()),
            read,
            write: vec![e.build_dir.clone()],
            network: opts.network,
            limits: pitboss_jail::Limits {
                memory_mb: 4096,
                address_space_mb: None,
                pids: 512,
                cpu_seconds: None,
                cpu_percent: 200,
                scratch_mb: 1024,
                open_files: 4096,
            },
        };
        let mut j = Jail::prepare(&spec).map_err(|err| format!("jail: {err}"))?;
        if let Some(uid) = j.uid() {
            use std::os::unix::fs::MetadataExt;
            let md = std::fs::metadata(dir).map_err(|err| err.to_string())?;
            owner = Some((md.uid(), md.gid()));
            chown_tree(&e.build_dir, uid, uid)
                .map_err(|err| format!("handing {} to the build: {err}", e.build_dir.display()))?;
        }
        j.install(&mut command);
        for (k, v) in &tools {
            command.env(k, v);
        }
        jail = Some(j);
    } else {
        command.env_clear();
    }
    command
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("LANG", "C.UTF-8");
    let result = wait_output(&mut command, jail.as_ref());
    if let Some(mut j) = jail {
        j.cleanup();
    }
    if let Some((uid, gid)) = owner {
        chown_tree(&e.build_dir, uid, gid)
            .map_err(|err| format!("giving {} back to its owner: {err}", e.build_dir.display()))?;
    }
    result
}

fn wait_output(command: &mut Command, jail: Option<&Jail>) -> Result<(), String> {
    let mut child = command.spawn().map_err(|e| e.to_string())?;
    let drain = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut r) = r {
                let _ = r.by_ref().take(1 << 20).read_to_end(&mut buf);
                let _ = std::io::copy(&mut r, &mut std::io::sink());
            }
            buf
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let until = Instant::now() + BUILD_TIMEOUT;
    let status = loop {
        if let Some(st) = child.try_wait().map_err(|e| e.to_string())? {
            break Some(st);
        }
        if Instant::now() > until {
            // SAFETY: SIGKILL to the build's own process group.
            unsafe {
                libc::kill(-(child.id() as i32), libc::SIGKILL);
            }
            if let Some(j) = jail {
                j.kill_all();
            }
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = out.join().unwrap_or_default();
    let err = err.join().unwrap_or_default();
    match status {
        Some(st) if st.success() => Ok(()),
        Some(st) => Err(format!("{st}\n{}\n{}", tail(&out), tail(&err))),
        None => Err(format!(
            "no result within {} s\n{}",
            BUILD_TIMEOUT.as_secs(),
            tail(&err)
        )),
    }
}
