//! A manifest's build step, run in the same jail as the bot: it may read the bot's folder, its
//! `read` paths and its toolchain, write only its `build_dir` (and a private `/tmp`), reach no
//! network unless the operator passes `--build-network`, and must end within [`BUILD_TIMEOUT`].
//!
//! The jail's uid is not the owner of the bot's folder, so the referee hands the `build_dir` to
//! that uid for the build and gives it back to the folder's owner afterwards: the tree looks to
//! its owner as if they had built it themselves.

//! A manifest's build step, run in the same jail as the bot: it may read the bot's folder, its
//! `read` paths and its toolchain, write only its `build_dir` (and a private `/tmp`), reach no
//! network unless the operator passes `--build-network`, and must end within [`BUILD_TIMEOUT`].
//!
//! The build never writes a file of the host. Its `build_dir` is, in its jail, a fresh tmpfs
//! capped at [`BUILD_DIR_MB`] MiB and [`BUILD_DIR_FILES`] files and folders (the kernel refuses
//! more: the build sees `ENOSPC`); a build starts from an empty `build_dir` every time. When it
//! succeeded, the referee copies that tree out before the jail is torn down and puts it in place
//! of `build_dir` (see [`crate::build_dir`]): folders, regular files with modes masked to `0o755`
//! (no set-uid, set-gid or sticky bit) and symlinks as symlinks, nothing else (fifos, sockets and
//! devices are left out, with a warning), owned by the bot folder's owner. `build_dir` itself is
//! resolved beneath the bot's folder with no symlink followed: a manifest whose `build_dir` goes
//! through a link is refused, naming it. So nothing on the host is ever owned by a jail's uid, a
//! referee killed mid-build leaves nothing but an empty `build_dir` it created (a copy it was
//! killed in the middle of is removed by the next build of that bot), and a build that fails
//! leaves the old `build_dir` as it was.
//!
//! Toolchains: the build reads `RUSTUP_HOME` (toolchains, no secrets) and, of the referee's
//! `CARGO_HOME`, only `bin/`, `registry/` and `git/`, read-only, at their own paths, with
//! `CARGO_HOME` pointing there: no `credentials.toml`, no `config.toml`, no `env`. Cargo builds
//! with `--offline` from the crates in that cache (the referee fills it by building once); a
//! build that needs to download crates cannot store them there even with `--build-network`.
//!
//! In the reduced jail ([`Mode::Fallback`]: no namespaces) there is no tmpfs: the build writes
//! its `build_dir` on the host (Landlock allows that folder, opened without following links, and
//! nothing else; each file is capped at [`BUILD_DIR_MB`] by `RLIMIT_FSIZE`), and the same
//! sanitized copy replaces it afterwards, refused over the cap; what a failed build wrote there
//! stays, and the total it writes is not capped by the kernel, only what is kept.

use std::io::Read;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pitboss_jail::{
    features, install_root, resolve_program, Held, Jail, JailSpec, Mode, OutputDir,
};

use super::build_dir::{Cap, Target};
use super::spec::{BuildOptions, ExternalSpec, SpecError};

/// The longest a build may take.
pub const BUILD_TIMEOUT: Duration = Duration::from_secs(900);
/// The most a build may leave in its `build_dir`, MiB (the size of its tmpfs; files counted by
/// their length when copied out).
pub const BUILD_DIR_MB: u64 = 1024;
/// The most files and folders a build may leave in its `build_dir`.
pub const BUILD_DIR_FILES: u64 = 65_536;

/// The referee's `CARGO_HOME` and `RUSTUP_HOME`, where they exist.
fn toolchain_homes() -> (Option<PathBuf>, Option<PathBuf>) {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let find = |var: &str, dflt: &str| {
        std::env::var_os(var)
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(dflt)))
            .filter(|p| p.is_dir())
    };
    (find("CARGO_HOME", ".cargo"), find("RUSTUP_HOME", ".rustup"))
}

/// Whether `root` (a program's installation) is a cargo home: it is then bound as its `bin/`
/// only, never with its credentials and configuration.
fn is_cargo_home(root: &Path, cargo: Option<&PathBuf>) -> bool {
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    cargo.is_some_and(|c| same(root, c))
        || ["credentials.toml", "credentials", "config.toml", "config"]
            .iter()
            .any(|f| root.join(f).exists())
}

fn tail(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.lines().rev().take(15).collect();
    lines.into_iter().rev().collect::<Vec<_>>().join("\n")
}

/// Runs the manifest's build command (if any) in the manifest's folder — in the jail, like the
/// bot: it reads what the bot may read plus its toolchain, writes only its `build_dir` (a fresh
/// tmpfs, copied out when the build succeeded), and has no network unless the operator allows it.
///
/// # Errors
/// [`SpecError::Build`] with the command's stderr tail, or why `build_dir` cannot be used.
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
    let rel = e.build_dir.strip_prefix(dir).map_err(|_| {
        format!(
            "build_dir {}: not beneath the bot's folder {}",
            e.build_dir.display(),
            dir.display()
        )
    })?;
    let target = Target::open(dir, rel)?;
    let cap = Cap {
        bytes: BUILD_DIR_MB << 20,
        files: BUILD_DIR_FILES,
    };
    let mode = opts.sandbox.then(|| features().mode);
    let mut command = Command::new(&program);
    command
        .args(&cmd[1..])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut jail = None;
    // Kept open until the build ended: the path Landlock allows in the reduced jail.
    let mut fallback_dir: Option<OwnedFd> = None;
    if let Some(mode) = mode {
        let (cargo, rustup) = toolchain_homes();
        let mut read = vec![dir.to_path_buf(), e.dir.clone(), program.clone()];
        match install_root(&program) {
            Some(r) if is_cargo_home(&r, cargo.as_ref()) => read.push(r.join("bin")),
            r => read.extend(r),
        }
        read.extend(e.read.iter().cloned());
        read.extend(rustup.iter().cloned());
        if let Some(c) = &cargo {
            read.extend(["bin", "registry", "git"].iter().map(|s| c.join(s)));
        }
        let (write, output) = if mode == Mode::Fallback {
            let d = target
                .dir()
                .map_err(|err| format!("build_dir {}: {err}", rel.display()))?;
            let p = PathBuf::from(format!("/proc/self/fd/{}", d.as_raw_fd()));
            fallback_dir = Some(d);
            (vec![p], None)
        } else {
            let out = OutputDir {
                path: e.build_dir.clone(),
                mb: BUILD_DIR_MB,
                files: BUILD_DIR_FILES,
            };
            (Vec::new(), Some(out))
        };
        let spec = JailSpec {
            workdir: dir.to_path_buf(),
            base: Some(dir.to_path_buf()),
            read,
            write,
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
            output,
        };
        let mut j = Jail::prepare(&spec).map_err(|err| format!("jail: {err}"))?;
        j.install(&mut command);
        if mode == Mode::Fallback {
            let fsize = BUILD_DIR_MB << 20;
            // SAFETY: one setrlimit in the forked child.
            unsafe {
                command.pre_exec(move || {
                    let r = libc::rlimit {
                        rlim_cur: fsize,
                        rlim_max: fsize,
                    };
                    if libc::setrlimit(libc::RLIMIT_FSIZE, &r) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        if let Some(c) = &cargo {
            command.env("CARGO_HOME", c);
        }
        if let Some(r) = &rustup {
            command.env("RUSTUP_HOME", r);
        }
        jail = Some(j);
    } else {
        command.env_clear();
    }
    command
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("LANG", "C.UTF-8");
    let (result, output) = wait_output(&mut command, jail.as_mut());
    if let Some(mut j) = jail {
        j.cleanup();
    }
    let full = |out: &Option<OwnedFd>| {
        out.as_ref().is_some_and(is_full).then(|| {
            format!(
                "build_dir {} is full: a build may leave at most {BUILD_DIR_MB} MiB in \
                 {BUILD_DIR_FILES} files and folders",
                rel.display()
            )
        })
    };
    let src = match (result, mode) {
        (Err(why), _) => {
            target.discard();
            return Err(match full(&output) {
                Some(f) => format!("{f}\n{why}"),
                None => why,
            });
        }
        // No jail: the build wrote its folder itself, with the referee's rights.
        (Ok(()), None) => return Ok(()),
        (Ok(()), Some(Mode::Fallback)) => fallback_dir
            .take()
            .ok_or_else(|| "the build's folder is gone".to_string())?,
        (Ok(()), Some(_)) => output.ok_or_else(|| {
            target.discard();
            "the build's jail ended without handing over its build_dir".to_string()
        })?,
    };
    match target.replace_with(&src, cap) {
        Ok(notes) => {
            for n in notes {
                tracing::warn!(bot = %e.name, "build_dir {}: {n}", rel.display());
            }
            Ok(())
        }
        Err(why) => {
            target.discard();
            Err(why)
        }
    }
}

/// Whether the tmpfs `fd` has no room left (blocks or inodes).
fn is_full(fd: &OwnedFd) -> bool {
    // SAFETY: fstatfs into a zeroed struct.
    unsafe {
        let mut s: libc::statfs = std::mem::zeroed();
        libc::fstatfs(fd.as_raw_fd(), &mut s) == 0 && (s.f_bavail == 0 || s.f_ffree == 0)
    }
}

/// Runs `command` and waits for it (killed past [`BUILD_TIMEOUT`]), reading at most 1 MiB of
/// each output stream. With a jail holding an output folder, also that folder, opened when the
/// build ended.
fn wait_output(
    command: &mut Command,
    mut jail: Option<&mut Jail>,
) -> (Result<(), String>, Option<OwnedFd>) {
    let mut child = match command.spawn() {
        Ok(c) => c,
        Err(e) => return (Err(e.to_string()), None),
    };
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
    let mut output = None;
    let mut trouble = None;
    let status = loop {
        if let Some(j) = jail.as_deref_mut() {
            if let Some(Held::Ended(r)) = j.poll_output(child.id()) {
                match r {
                    Ok(fd) => output = Some(fd),
                    Err(e) => trouble = Some(format!("build_dir: {e}")),
                }
            }
        }
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) => {}
            Err(e) => {
                trouble = Some(e.to_string());
                break None;
            }
        }
        if Instant::now() > until {
            // SAFETY: SIGKILL to the build's own process group.
            unsafe {
                libc::kill(-(child.id() as i32), libc::SIGKILL);
            }
            if let Some(j) = jail.as_deref() {
                j.kill_all();
            }
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = out.join().unwrap_or_default();
    let err = err.join().unwrap_or_default();
    let result = match (status, trouble) {
        (_, Some(t)) => Err(format!("{t}\n{}", tail(&err))),
        (Some(st), None) if st.success() => Ok(()),
        (Some(st), None) => Err(format!("{st}\n{}\n{}", tail(&out), tail(&err))),
        (None, None) => Err(format!(
            "no result within {} s\n{}",
            BUILD_TIMEOUT.as_secs(),
            tail(&err)
        )),
    };
    (result, output)
}
