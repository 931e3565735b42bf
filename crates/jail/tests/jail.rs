//! The jail from the inside: each test runs a small shell or Python program in a jail and checks
//! what it could see and do. Where the machine cannot give the full jail (no root, no user
//! namespaces) the tests that need a layer say so and check the reduced jail's promise instead.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use pitboss_jail::{features, install_root, resolve_program, Jail, JailSpec, Limits, Mode};

/// Whether the full jail is in force. As root it must be: a test that needs it fails (rather than
/// being skipped) when the jail fell back.
fn full() -> bool {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        assert_eq!(features().mode, Mode::Root, "{}", features().describe());
    }
    features().mode != Mode::Fallback
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pitboss-jail-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `argv` in a jail with `spec` (read paths for the program's installation added).
fn jailed(argv: &[&str], mut spec: JailSpec) -> Output {
    let prog = resolve_program(argv[0], Path::new("/")).expect("program on PATH");
    spec.read.extend(install_root(&prog));
    spec.read.push(prog.clone());
    if spec.workdir.as_os_str().is_empty() {
        spec.workdir = "/".into();
    }
    let mut jail = Jail::prepare(&spec).expect("jail");
    let mut cmd = Command::new(&prog);
    cmd.args(&argv[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    jail.install(&mut cmd);
    cmd.env("PATH", "/usr/local/bin:/usr/bin:/bin");
    let out = cmd.output().expect("spawn");
    jail.cleanup();
    out
}

fn sh(script: &str) -> Output {
    jailed(&["sh", "-c", script], JailSpec::default())
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn features_are_reported() {
    let f = features();
    let d = f.describe();
    assert!(d.starts_with("jail"), "{d}");
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        assert_eq!(f.mode, Mode::Root, "{d}");
    }
}

#[test]
fn a_jailed_process_is_not_root_and_sees_only_its_view() {
    if !full() {
        eprintln!("skipped: {}", features().describe());
        return;
    }
    let out = sh(
        "id -u; hostname; awk '{print \"host-uid=\" $2}' /proc/self/uid_map; \
         ls -a /; echo procs=$(ls /proc | grep -c '^[0-9]'); \
                  cat /proc/1/cmdline 2>/dev/null && echo init-visible; \
                  cat /proc/self/status | grep CapEff; ls /root 2>&1; ls /tmp | wc -l",
    );
    let o = text(&out.stdout);
    assert!(out.status.success(), "{o}\n{}", text(&out.stderr));
    let lines: Vec<&str> = o.lines().filter(|l| !l.starts_with("host-uid=")).collect();
    // As root the bot gets a uid of its own; without root it is uid 0 of a user namespace that
    // maps to the referee's own unprivileged uid. Either way: never root on the host.
    let host_uid = o
        .lines()
        .find_map(|l| l.strip_prefix("host-uid="))
        .expect("uid map");
    if features().mode == Mode::Root {
        assert_ne!(lines[0], "0", "uid: {o}");
        assert_eq!(
            host_uid, "0",
            "a uid of its own in the initial namespace: {o}"
        );
    } else {
        assert_ne!(host_uid, "0", "{o}");
    }
    assert_eq!(lines[1], "pitboss-jail");
    for hidden in [
        "home", "root", "sys", "work", "boot", "run", "var", "srv", "mnt",
    ] {
        assert!(!lines.contains(&hidden), "/{hidden} is visible:\n{o}");
    }
    assert!(o.contains("CapEff:\t0000000000000000"), "{o}");
    assert!(
        !o.contains("init-visible"),
        "the init (a fork of the referee) is visible: {o}"
    );
    // sh, ls|grep (and the pipeline's subshells): far fewer than the host's processes.
    let procs: usize = lines
        .iter()
        .find_map(|l| l.strip_prefix("procs=").and_then(|n| n.parse().ok()))
        .expect("process count");
    assert!(procs < 10, "{procs} processes visible:\n{o}");
}

#[test]
fn the_environment_is_scrubbed() {
    std::env::set_var("PITBOSS_TEST_SECRET", "hidden");
    let out = sh("env");
    let o = text(&out.stdout);
    assert!(!o.contains("PITBOSS_TEST_SECRET"), "{o}");
    for l in o.lines() {
        let k = l.split('=').next().unwrap_or("");
        assert!(
            [
                "PATH",
                "HOME",
                "TMPDIR",
                "PITBOSS_SCRATCH",
                "PWD",
                "SHLVL",
                "_",
                "OLDPWD"
            ]
            .contains(&k),
            "unexpected variable {l}"
        );
    }
}

#[test]
fn sockets_and_privileged_calls_are_refused() {
    if !full() {
        return;
    }
    let script = r#"
import ctypes, os, socket, errno
libc = ctypes.CDLL(None, use_errno=True)
def res(name, f):
    try:
        r = f()
        print(name, "ALLOWED", r)
    except OSError as e:
        print(name, "refused", e.errno)
res("tcp", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM))
res("unix", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
res("pair", lambda: len(socket.socketpair()))
def call(name, *args):
    r = libc.syscall(*args)
    print(name, "ALLOWED" if r >= 0 else "refused", ctypes.get_errno())
call("ptrace", 101, 16, os.getppid(), 0, 0)
call("bpf", 321, 0, 0, 0)
call("keyctl", 250, 0, 0, 0)
call("unshare", 272, 0x20000)
call("sethostname", 170, b"x", 1)
call("mount", 165, b"none", b"/tmp", b"tmpfs", 0, 0)
res("setuid0", lambda: os.setuid(0))
res("mknod", lambda: os.mknod("/tmp/n", 0o600 | 0o020000, os.makedev(1, 3)))
"#;
    let out = jailed(&["python3", "-c", script], JailSpec::default());
    let o = text(&out.stdout);
    assert!(out.status.success(), "{o}\n{}", text(&out.stderr));
    for l in o.lines() {
        let name = l.split(' ').next().unwrap();
        if name == "pair" {
            assert!(l.contains("ALLOWED"), "{l}");
        } else if name == "setuid0" && features().mode == Mode::UserNs {
            // Uid 0 of the user namespace already (the referee's uid outside): a no-op.
        } else {
            assert!(l.contains("refused"), "{l}\n{o}");
        }
    }
    assert_eq!(o.lines().count(), 11, "{o}");
}

/// Every kernel object keyed by an inode that two jails bind (a lock, a lease, a watch, the page
/// cache's residency) is a channel between them: all are refused, on a shared system file and on
/// a file of the jail's own, and so are x32 system-call numbers (answered by the filter with EPERM; a kernel without
/// x32 would say ENOSYS, which is what main said before the filter checked the x32 bit).
#[test]
fn locks_watches_and_x32_numbers_are_refused() {
    if !full() {
        return;
    }
    let script = r#"
import ctypes, fcntl, os, struct, errno
libc = ctypes.CDLL(None, use_errno=True)
def res(name, f):
    try:
        f()
        print(name, "ALLOWED")
    except OSError as e:
        print(name, "refused", e.errno)
shared = os.open("/etc/passwd", os.O_RDONLY)
own = os.open("/tmp/own", os.O_RDWR | os.O_CREAT, 0o600)
lk = struct.pack("hhqqi", fcntl.F_RDLCK, 0, 7, 1, 0)
for fd, where in ((shared, "shared"), (own, "own")):
    res("setlk-" + where, lambda: fcntl.fcntl(fd, fcntl.F_SETLK, lk))
    res("getlk-" + where, lambda: fcntl.fcntl(fd, fcntl.F_GETLK, lk))
    res("ofd-setlk-" + where, lambda: fcntl.fcntl(fd, 37, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 7, 1, 0)))
    res("ofd-getlk-" + where, lambda: fcntl.fcntl(fd, 36, lk))
    res("flock-" + where, lambda: fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB))
    res("lease-" + where, lambda: fcntl.fcntl(fd, 1024, fcntl.F_RDLCK))
    res("getlease-" + where, lambda: fcntl.fcntl(fd, 1025))
d = os.open("/tmp", os.O_RDONLY)
res("dnotify", lambda: fcntl.fcntl(d, 1026, 0x1))
def call(name, *args):
    r = libc.syscall(*args)
    print(name, "ALLOWED" if r >= 0 else "refused", ctypes.get_errno())
call("inotify_init1", 294, 0)
call("inotify_init", 253)
call("fanotify_init", 300, 0, 0)
call("fadvise-dontneed", 221, shared, 0, 0, 4)
call("cachestat", 451, shared, 0, 0, 0)
import mmap
m = mmap.mmap(shared, 0, prot=mmap.PROT_READ)
res("madvise-pageout", lambda: m.madvise(21))
res("madvise-cold", lambda: m.madvise(20))
libc.mmap.restype = ctypes.c_void_p
addr = libc.mmap(None, 4096, 1, 1, shared, 0)
vec = ctypes.create_string_buffer(1)
r = libc.mincore(ctypes.c_void_p(addr), 4096, vec)
print("mincore", "ALLOWED" if r == 0 else "refused", ctypes.get_errno())
res("preadv2-nowait", lambda: os.preadv(shared, [bytearray(16)], 0, 8))
call("x32-socket", 0x40000000 | 41, 2, 1, 0)
call("x32-getpid", 0x40000000 | 39)
"#;
    let out = jailed(&["python3", "-c", script], JailSpec::default());
    let o = text(&out.stdout);
    assert!(out.status.success(), "{o}\n{}", text(&out.stderr));
    for l in o.lines() {
        assert!(l.contains("refused"), "{l}\n{o}");
        if l.starts_with("x32") {
            assert!(
                l.ends_with(&format!(" {}", libc::EPERM)),
                "the filter, not the kernel: {l}"
            );
        }
    }
    assert_eq!(o.lines().count(), 26, "{o}");
}

#[test]
fn files_outside_the_view_do_not_exist_and_the_view_is_read_only() {
    if !full() {
        return;
    }
    let d = tmp("view");
    let mine = d.join("mine");
    let other = d.join("other");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(mine.join("a.txt"), "mine\n").unwrap();
    std::fs::write(other.join("secret.txt"), "secret").unwrap();
    let script = format!(
        "cat {m}/a.txt; cat {o}/secret.txt 2>/dev/null || echo no-other; \
         touch {m}/b 2>/dev/null || echo ro-folder; touch /tmp/x && echo tmp-ok; \
         touch /usr/x 2>/dev/null || echo ro-usr; cat /etc/shadow 2>/dev/null || echo no-shadow",
        m = mine.display(),
        o = other.display()
    );
    let spec = JailSpec {
        workdir: mine.clone(),
        ..JailSpec::default()
    };
    let out = jailed(&["sh", "-c", &script], spec);
    let o = text(&out.stdout);
    assert_eq!(
        o.lines().collect::<Vec<_>>(),
        [
            "mine",
            "no-other",
            "ro-folder",
            "tmp-ok",
            "ro-usr",
            "no-shadow"
        ],
        "{o}\n{}",
        text(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_write_folder_is_writable() {
    if !full() {
        return;
    }
    let d = tmp("write");
    let out = d.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let spec = JailSpec {
        workdir: d.clone(),
        read: vec![d.clone()],
        write: vec![out.clone()],
        ..JailSpec::default()
    };
    // (`pitboss` hands a build folder to the jail's uid; here the folder is simply open to all.)
    std::fs::set_permissions(&out, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    let r = jailed(
        &[
            "sh",
            "-c",
            &format!("echo built > {}/artifact", out.display()),
        ],
        spec,
    );
    assert!(r.status.success(), "{}", text(&r.stderr));
    assert_eq!(
        std::fs::read_to_string(out.join("artifact")).unwrap(),
        "built\n"
    );
    let _ = std::fs::remove_dir_all(&d);
}

fn host_processes_with(marker: &str) -> Vec<i32> {
    let mut v = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        if let Ok(c) = std::fs::read(e.path().join("cmdline")) {
            if String::from_utf8_lossy(&c).contains(marker) {
                v.push(pid);
            }
        }
    }
    v
}

#[test]
fn a_setsid_child_dies_with_the_jail() {
    if !full() {
        return;
    }
    // The jailed shell starts a detached sleeper in a new session and exits at once.
    let out = sh("setsid sleep 3217 </dev/null >/dev/null 2>&1 & echo started");
    assert!(text(&out.stdout).contains("started"));
    std::thread::sleep(Duration::from_millis(200));
    let left = host_processes_with("sleep\u{0}3217");
    assert!(left.is_empty(), "survivors: {left:?}");
}

#[test]
fn the_process_tree_is_limited() {
    // With a cgroup (root) the limits hold for the tree; without (a referee without root) the
    // rlimits that replace them: processes per jail user namespace, address space per process.
    if !full() {
        return;
    }
    let spec = JailSpec {
        limits: Limits {
            pids: 20,
            memory_mb: 128,
            ..Limits::default()
        },
        ..JailSpec::default()
    };
    let forks = r#"
import os, time
n = 0
for i in range(60):
    try:
        if os.fork() == 0:
            time.sleep(2)
            os._exit(0)
        n += 1
    except OSError:
        break
print(n)
"#;
    let out = jailed(&["python3", "-c", forks], spec.clone());
    let o = text(&out.stdout);
    let n: usize = o.trim().parse().unwrap_or(999);
    assert!(
        n < 20,
        "{n} forks in a jail limited to 20 processes: {o} {}",
        text(&out.stderr)
    );
    let hog = jailed(
        &[
            "python3",
            "-c",
            "x = bytearray(600 * 1024 * 1024); print('survived')",
        ],
        spec,
    );
    assert!(
        !text(&hog.stdout).contains("survived"),
        "a 600 MB allocation passed a 128 MB limit"
    );
}

/// A referee that dies by SIGKILL takes its jails with it: this test re-runs itself as a child
/// "referee" that starts a jailed sleeper and is then killed.
#[test]
fn jails_die_with_the_referee() {
    if std::env::var_os("PITBOSS_JAIL_TEST_REFEREE").is_some() {
        let mut jail = Jail::prepare(&JailSpec {
            workdir: "/".into(),
            ..JailSpec::default()
        })
        .unwrap();
        let mut cmd = Command::new("/bin/sleep");
        cmd.arg("3301");
        jail.install(&mut cmd);
        let mut child = cmd.spawn().unwrap();
        println!("READY");
        // Killed by the test long before the sleeper ends.
        let _ = child.wait();
        return;
    }
    if !full() {
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let mut referee = Command::new(exe)
        .args(["--exact", "jails_die_with_the_referee", "--nocapture"])
        .env("PITBOSS_JAIL_TEST_REFEREE", "1")
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(20);
    while host_processes_with("sleep\u{0}3301").is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !host_processes_with("sleep\u{0}3301").is_empty(),
        "never started"
    );
    referee.kill().unwrap();
    referee.wait().unwrap();
    let until = Instant::now() + Duration::from_secs(10);
    while !host_processes_with("sleep\u{0}3301").is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(host_processes_with("sleep\u{0}3301").is_empty());
}

/// Paths of the bot's folder are resolved beneath it with no link: a `read` path or a working
/// folder that is (or passes through) a symbolic link is refused when the jail is prepared, with
/// an error naming it, whatever the link points at; protected folders (output folders,
/// registries) are refused from inside and from above.
#[test]
fn paths_of_the_bot_folder_follow_no_link_and_protected_folders_are_never_bound() {
    if !full() {
        return;
    }
    let root = tmp("paths");
    let bot = root.join("bot");
    let secret = root.join("secret");
    std::fs::create_dir_all(bot.join("real")).unwrap();
    std::fs::create_dir_all(&secret).unwrap();
    std::fs::write(secret.join("salt"), "s3cret").unwrap();
    std::os::unix::fs::symlink(&secret, bot.join("p0")).unwrap();
    std::os::unix::fs::symlink(&secret, bot.join("dir")).unwrap();
    let spec = |read: Vec<PathBuf>, workdir: PathBuf| JailSpec {
        workdir,
        base: Some(bot.clone()),
        read,
        ..JailSpec::default()
    };
    let err = |s: JailSpec| match Jail::prepare(&s) {
        Ok(_) => panic!("prepared: {:?}", s.read),
        Err(e) => e.to_string(),
    };
    // A link as the read path, a link on the way, a link as the working folder.
    let e = err(spec(vec![bot.join("p0")], bot.clone()));
    assert!(e.contains("p0") && e.contains("symbolic link"), "{e}");
    let e = err(spec(vec![bot.join("dir/salt")], bot.clone()));
    assert!(e.contains("dir/salt") && e.contains("symbolic link"), "{e}");
    let e = err(spec(vec![], bot.join("p0")));
    assert!(e.contains("p0"), "{e}");
    // A real folder inside is fine, and a missing optional one is simply not there.
    Jail::prepare(&spec(
        vec![bot.join("real"), bot.join("missing")],
        bot.clone(),
    ))
    .unwrap();
    // Protected: the folder itself, something inside, a folder holding it.
    pitboss_jail::protect(&secret);
    for p in [secret.clone(), secret.join("salt"), root.clone()] {
        let e = err(spec(vec![p.clone()], bot.clone()));
        assert!(e.contains("never bound"), "{}: {e}", p.display());
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// Another run's output folder or registry, which this referee never registered, is found by
/// what it holds (a `config.toml` or `plan.json` with a salt): refused from inside and from above.
#[test]
fn folders_holding_a_salt_are_never_bound_even_unregistered() {
    if !full() {
        return;
    }
    let root = tmp("salted");
    let reg = root.join("registry");
    std::fs::create_dir_all(reg.join("tournament/units")).unwrap();
    std::fs::write(
        reg.join("tournament/plan.json"),
        "{\n  \"salt\": \"00ff\",\n  \"units\": []\n}\n",
    )
    .unwrap();
    std::fs::create_dir_all(reg.join("entries/x")).unwrap();
    let out = root.join("out");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(
        out.join("config.toml"),
        "game = \"27td-fl\"\nsalt = \"00ff\"\n",
    )
    .unwrap();
    let plain = root.join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    for p in [
        reg.clone(),
        reg.join("tournament"),
        reg.join("tournament/units"),
        out.clone(),
        out.join("config.toml"),
        root.clone(),
    ] {
        let spec = JailSpec {
            workdir: "/".into(),
            read: vec![p.clone()],
            ..JailSpec::default()
        };
        match Jail::prepare(&spec) {
            Ok(_) => panic!("{} was bound", p.display()),
            Err(e) => assert!(e.to_string().contains("salt"), "{}: {e}", p.display()),
        }
    }
    // A registry's copies of bots and an ordinary folder are fine.
    for p in [reg.join("entries/x"), plain] {
        let spec = JailSpec {
            workdir: "/".into(),
            read: vec![p.clone()],
            ..JailSpec::default()
        };
        Jail::prepare(&spec).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    }
    let _ = std::fs::remove_dir_all(&root);
}
