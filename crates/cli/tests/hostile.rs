//! The hostile bot suite of issue 11, through the `pitboss` binary. Each test copies the attacking
//! bots of `crates/arena/tests/fixtures/hostile/` into a fresh folder in the temp directory, runs a
//! short match (or check, submit, tournament) with them, and asserts the secure outcome:
//!
//! * the command completes (within a generous bound) and the match has all its hands;
//! * no `HOSTILE <attack> SUCCEEDED` line in any bot log (or build report), and every attack the
//!   bot was meant to try reported something (so a bot that could not even start is noticed);
//! * chips are conserved (the nets in summary.csv sum to 0), faults recorded where one applies;
//! * no process of the match is left (every bot process carries the test's tag in its command
//!   line; survivors are listed, then killed), no scratch folder is left (pitboss runs with
//!   `TMPDIR` set to a folder of the test, which must be empty afterwards), no marker file written
//!   outside the bot's scratch, and the referee's memory stays bounded.
//!
//! On a referee without the jail of issue 11 most of these fail: that is what they are for. They
//! never harm the host: the fork bomb stops at 2,000, memory is touched only up to 3 GiB (and not
//! at all below 12 GiB available), sethostname sets the current name, no traffic leaves loopback,
//! detached children stop by themselves after 90 s and are killed by the test anyway.
//!
//! What the suite relies on (keep it, or change it here too): bot stderr lands in
//! `<out>/bots/*.log` (any file name); `summary.csv` has one row per bot with the columns `bot`
//! (containing the spec), `hands`, `net_chips`, `faults` and `fault_<kind>`; `match.log` says
//! "N restart(s)" per bot; the referee puts scratch and check folders under `TMPDIR` (or nowhere on
//! the host); the flags `match --game --threads --bot --hands --out --seed --duplicate
//! --decision-ms --bank-ms --freeze-idle`, `check --game --hands --out`, `submit --name --threads
//! --registry` (with a `registry.toml` of `[settings] name games deals batch seed bootstrap`) and
//! `tournament --game --bot NAME=SPEC --deals --batch --threads --out`; `/usr/bin/python3` (or
//! `python3`) runs the bots. Failing tests print every finding, then the tails of the outputs;
//! `PITBOSS_HOSTILE_KEEP=1` keeps each test's folder.

use std::collections::HashMap;
use std::io::Read;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One test at a time: they count processes and load the machine.
static SERIAL: Mutex<()> = Mutex::new(());

/// An environment variable the referee gets and no bot may see.
const CANARY_VAR: &str = "PITBOSS_HOSTILE_CANARY";

fn lock() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn fixtures() -> PathBuf {
    repo().join("crates/arena/tests/fixtures/hostile")
}

fn python() -> &'static str {
    if Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    }
}

/// A test's own tree in the temp directory:
/// `tmp/` (pitboss's TMPDIR), `out/`, `bots/hostile/` (the fixtures), `bots/other/` (another
/// bot's secret), `victim/` (where write attempts aim), `registry/`.
struct Arena {
    tag: String,
    canary: String,
    root: PathBuf,
    tmp: PathBuf,
    out: PathBuf,
    bots: PathBuf,
    other: PathBuf,
    victim: PathBuf,
    registry: PathBuf,
}

impl Arena {
    fn new(name: &str) -> Arena {
        let pid = std::process::id();
        let root = std::env::temp_dir().join(format!("pitboss-hostile-{pid}-{name}"));
        let _ = std::fs::remove_dir_all(&root);
        let a = Arena {
            tag: format!("hx-{pid}-{name}-x"),
            canary: format!("canary{pid}{}", name.len() * 7919),
            tmp: root.join("tmp"),
            out: root.join("out"),
            bots: root.join("bots/hostile"),
            other: root.join("bots/other"),
            victim: root.join("victim"),
            registry: root.join("registry"),
            root,
        };
        for d in [&a.tmp, &a.bots, &a.other, &a.victim] {
            std::fs::create_dir_all(d).unwrap();
        }
        for e in std::fs::read_dir(fixtures()).unwrap().flatten() {
            if e.path().is_file() {
                // fs::copy keeps the mode (python_probe is executable).
                std::fs::copy(e.path(), a.bots.join(e.file_name())).unwrap();
            }
        }
        std::fs::write(a.bots.join("tag.txt"), &a.tag).unwrap();
        std::fs::write(
            a.other.join("secret.txt"),
            "OTHER-BOT-SECRET: another bot's private file\n",
        )
        .unwrap();
        std::fs::write(a.other.join("bot.py"), "print('another bot')\n").unwrap();
        a
    }

    /// `exec:` spec of a fixture with the tag and key=value arguments.
    fn exec(&self, script: &str, args: &[String]) -> String {
        let mut s = format!(
            "exec:{} {} {}",
            python(),
            self.bots.join(script).display(),
            self.tag
        );
        for a in args {
            s.push(' ');
            s.push_str(a);
        }
        s
    }

    /// Writes `manifests/<name>.toml` as `bots/hostile/bot.toml`, placeholders filled in.
    fn manifest(&self, name: &str, args: &[String]) -> PathBuf {
        let text = std::fs::read_to_string(fixtures().join("manifests").join(name)).unwrap();
        let quoted: Vec<String> = args.iter().map(|a| format!("{a:?}")).collect();
        let text = if quoted.is_empty() {
            text.replace(", \"@ARGS@\"", "")
        } else {
            text.replace("\"@ARGS@\"", &quoted.join(", "))
        };
        let text = text
            .replace("@TAG@", &self.tag)
            .replace("@DIR@", &self.bots.display().to_string());
        let p = self.bots.join("bot.toml");
        std::fs::write(&p, text).unwrap();
        p
    }

    /// Arguments most attackers understand.
    fn args(&self) -> Vec<String> {
        vec![
            format!("out={}", self.out.display()),
            format!("other={}", self.other.display()),
            format!("victim={}", self.victim.display()),
            format!("repo={}", repo().display()),
            format!("canary={}", self.canary),
        ]
    }

    fn pitboss(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_pitboss"));
        c.current_dir(&self.root)
            .env("TMPDIR", &self.tmp)
            .env(CANARY_VAR, &self.canary)
            .stdin(Stdio::null());
        c
    }

    /// `pitboss match` with these bots and flags.
    fn run_match(&self, bots: &[String], hands: u64, flags: &[&str], limit: Duration) -> Run {
        let mut c = self.pitboss();
        c.args(["match", "--game", "27td-fl", "--threads", "1"]);
        for b in bots {
            c.arg("--bot").arg(b);
        }
        c.arg("--hands").arg(hands.to_string());
        c.arg("--out").arg(&self.out);
        c.args(flags);
        self.run(c, limit)
    }

    /// Runs a command with a time limit (killed past it), output to files, watching the
    /// referee's memory high-water mark.
    fn run(&self, mut c: Command, limit: Duration) -> Run {
        let (o, e) = (
            self.root.join("pitboss.stdout"),
            self.root.join("pitboss.stderr"),
        );
        c.stdout(std::fs::File::create(&o).unwrap())
            .stderr(std::fs::File::create(&e).unwrap());
        let start = Instant::now();
        let mut child = c.spawn().expect("start pitboss");
        let mut hwm_kib = 0;
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break Some(s);
            }
            if start.elapsed() > limit {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            hwm_kib = hwm_kib.max(vm_hwm_kib(child.id()).unwrap_or(0));
            std::thread::sleep(Duration::from_millis(50));
        };
        let elapsed = start.elapsed();
        eprintln!("{:?} took {elapsed:.1?}", c.get_args().next());
        let text = std::fs::read_to_string(&o).unwrap_or_default()
            + &std::fs::read_to_string(&e).unwrap_or_default();
        Run {
            status,
            elapsed,
            text,
            hwm_kib,
            out: self.out.clone(),
        }
    }

    /// Processes still carrying the tag, after up to 5 s of grace; they are killed.
    fn survivors(&self) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let left = tagged(&self.tag);
            if left.is_empty() || Instant::now() > deadline {
                for (pid, _) in &left {
                    // SAFETY: a signal to a process of this test (it carries the test's tag).
                    unsafe {
                        libc::kill(*pid, libc::SIGKILL);
                    }
                }
                return left.into_iter().map(|(p, c)| format!("{p}: {c}")).collect();
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// What is left in pitboss's TMPDIR (scratch folders, check folders).
    fn tmp_left(&self) -> Vec<String> {
        std::fs::read_dir(&self.tmp)
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Files that name the tag outside the places a bot may write, host-wide spots included
    /// (they are removed).
    fn markers(&self) -> Vec<String> {
        let mut found = Vec::new();
        let mut dirs = vec![
            self.victim.clone(),
            self.out.clone(),
            self.bots.clone(),
            self.root.join("bots"),
            self.registry.clone(),
            self.root.clone(),
            PathBuf::from("/tmp"),
            PathBuf::from("/dev/shm"),
            std::env::temp_dir(),
        ];
        dirs.dedup();
        for d in dirs {
            let Ok(rd) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in rd.flatten() {
                let n = e.file_name().to_string_lossy().into_owned();
                if n.contains(&self.tag) && n.contains("MARKER") {
                    found.push(e.path().display().to_string());
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
        found
    }

    /// Collusion leftovers on the host (removed).
    fn collusion_files(&self) -> Vec<String> {
        let mut found = Vec::new();
        for d in ["/tmp", "/dev/shm"] {
            let Ok(rd) = std::fs::read_dir(d) else {
                continue;
            };
            for e in rd.flatten() {
                let n = e.file_name().to_string_lossy().into_owned();
                if n.starts_with(&format!("pitboss-collude-{}", self.tag))
                    || n.starts_with(&format!("pitboss-hostile-{}", self.tag))
                {
                    found.push(e.path().display().to_string());
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
        found
    }

    /// The build step's findings: in its `build_dir` (the only place a build may write), or
    /// — on a referee that let the build write anywhere — in the bot's folder.
    fn build_report(&self) -> String {
        std::fs::read_to_string(self.bots.join("build/build-report.txt"))
            .or_else(|_| std::fs::read_to_string(self.bots.join("build-report.txt")))
            .unwrap_or_default()
    }
}

/// The test's tree goes when the test ends, failed or not (PITBOSS_HOSTILE_KEEP=1 keeps it).
impl Drop for Arena {
    fn drop(&mut self) {
        if std::env::var_os("PITBOSS_HOSTILE_KEEP").is_none() {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }
}

struct Run {
    /// None: killed at the time limit.
    status: Option<ExitStatus>,
    elapsed: Duration,
    text: String,
    hwm_kib: u64,
    out: PathBuf,
}

impl Run {
    /// Every bot log of the match.
    fn logs(&self) -> String {
        let mut s = String::new();
        if let Ok(rd) = std::fs::read_dir(self.out.join("bots")) {
            let mut paths: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
            paths.sort();
            for p in paths {
                s.push_str(&format!("==> {} <==\n", p.display()));
                let mut f = std::fs::File::open(&p).unwrap();
                let mut buf = Vec::new();
                f.read_to_end(&mut buf).unwrap();
                s.push_str(&String::from_utf8_lossy(&buf));
            }
        }
        s
    }

    fn summary(&self) -> Vec<HashMap<String, String>> {
        let text = std::fs::read_to_string(self.out.join("summary.csv")).unwrap_or_default();
        let mut lines = text.lines();
        let Some(head) = lines.next() else {
            return Vec::new();
        };
        let head: Vec<&str> = head.split(',').collect();
        lines
            .map(|l| {
                head.iter()
                    .zip(l.split(','))
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect()
            })
            .collect()
    }

    /// A number from summary.csv for the bot whose name contains `who` (0 when missing: the
    /// match's own checks report a missing summary).
    fn stat(&self, who: &str, col: &str) -> i64 {
        self.summary()
            .iter()
            .find(|r| r.get("bot").is_some_and(|b| b.contains(who)))
            .and_then(|r| r.get(col)?.parse().ok())
            .unwrap_or(0)
    }

    fn context(&self) -> String {
        format!(
            "status {:?} after {:.1?}\n--- pitboss output ---\n{}\n--- bot logs ---\n{}",
            self.status,
            self.elapsed,
            tail(&self.text, 4000),
            tail(&self.logs(), 12000)
        )
    }
}

fn tail(s: &str, n: usize) -> &str {
    let mut i = s.len().saturating_sub(n);
    while !s.is_char_boundary(i) {
        i += 1;
    }
    &s[i..]
}

fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    s.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
}

/// Processes (not zombies) whose command line contains `tag`, this one excluded.
fn tagged(tag: &str) -> Vec<(i32, String)> {
    let me = std::process::id() as i32;
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return out;
    };
    for e in rd.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(raw) = std::fs::read(e.path().join("cmdline")) else {
            continue;
        };
        let c = String::from_utf8_lossy(&raw).replace('\0', " ");
        if c.contains(tag) {
            out.push((pid, c.chars().take(160).collect()));
        }
    }
    out
}

/// Report lines `HOSTILE <attack> <status> <detail>` in a text.
fn reports(text: &str) -> Vec<(String, String, String)> {
    text.lines()
        .filter_map(|l| {
            let i = l.find("HOSTILE ")?;
            let mut w = l[i + 8..].splitn(3, ' ');
            Some((
                w.next()?.to_string(),
                w.next()?.to_string(),
                w.next().unwrap_or("").to_string(),
            ))
        })
        .collect()
}

/// Everything that went wrong in one test, reported together (so one run lists every attack
/// that worked, not just the first).
#[derive(Default)]
struct Findings(Vec<String>);

impl Findings {
    fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        if !ok {
            self.0.push(what());
        }
    }

    /// No attack succeeded; every attack in `expected` reported.
    fn no_success(&mut self, what: &str, text: &str, expected: &[&str]) {
        let r = reports(text);
        let mut won: Vec<String> = Vec::new();
        for (a, s, d) in &r {
            if s == "SUCCEEDED" && !won.iter().any(|w| w.starts_with(&format!("{a}:"))) {
                won.push(format!("{a}: {d}"));
            }
        }
        for w in won {
            self.0.push(format!("{what}: attack SUCCEEDED: {w}"));
        }
        for a in expected {
            self.check(r.iter().any(|(n, _, _)| n == a), || {
                format!("{what}: attack {a} never reported (did the bot run?)")
            });
        }
    }

    /// The invariants of a match run: it completes with every hand, chips are conserved, no
    /// attack succeeded, nothing is left.
    fn of_match(&mut self, a: &Arena, run: &Run, hands: u64, expected: &[&str]) {
        self.check(run.status.is_some_and(|s| s.success()), || {
            format!("the match did not complete: {:?}", run.status)
        });
        let rows = run.summary();
        self.check(rows.len() >= 2, || "no summary.csv".into());
        let mut net = 0i64;
        for r in &rows {
            self.check(r["hands"] == hands.to_string(), || {
                format!("{} played {} hands, not {hands}", r["bot"], r["hands"])
            });
            net += r["net_chips"].parse::<i64>().unwrap_or(0);
        }
        self.check(net == 0, || {
            format!("chips not conserved: nets sum to {net}")
        });
        self.no_success("bot logs", &run.logs(), expected);
        self.clean(a, run);
    }

    /// No process, scratch folder or marker left; the referee's memory bounded.
    fn clean(&mut self, a: &Arena, run: &Run) {
        let left = a.survivors();
        self.check(left.is_empty(), || {
            format!("processes outlived the match (killed now): {left:?}")
        });
        let tmp = a.tmp_left();
        self.check(tmp.is_empty(), || {
            format!("left in the temp directory: {tmp:?}")
        });
        let m = a.markers();
        self.check(m.is_empty(), || {
            format!("files written outside the scratch (removed now): {m:?}")
        });
        self.check(run.hwm_kib < 512 * 1024, || {
            format!("referee memory VmHWM {} KiB", run.hwm_kib)
        });
    }

    fn assert(self, run: &Run) {
        assert!(
            self.0.is_empty(),
            "{} finding(s):\n* {}\n{}",
            self.0.len(),
            self.0.join("\n* "),
            run.context()
        );
    }
}

/// The common invariants of a match run, asserted.
fn assert_match(a: &Arena, run: &Run, hands: u64, expected: &[&str]) {
    let mut f = Findings::default();
    f.of_match(a, run, hands, expected);
    f.assert(run);
}

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

#[test]
fn privileges_are_dropped() {
    let _g = lock();
    let a = Arena::new("priv");
    let bot = a.exec("privileges.py", &[]);
    let run = a.run_match(&[bot, "call".into()], 10, &[], secs(60));
    assert_match(
        &a,
        &run,
        10,
        &[
            "uid-root",
            "cap-effective",
            "setuid-0",
            "sethostname",
            "mknod",
            "bpf-map-create",
            "ptrace",
            "referee-mem",
            "mount",
            "keyctl",
            "keyctl-add-key",
            "unshare-user",
            "unshare-mount",
            "perf-event-open",
        ],
    );
}

#[test]
fn proc_and_environment_leak_nothing() {
    let _g = lock();
    let a = Arena::new("snoop");
    let seed = "918273645";
    let mut args = a.args();
    args.push(format!("seed={seed}"));
    let bot = |role: &str| {
        let mut v = args.clone();
        v.push(format!("role={role}"));
        a.exec("snoop.py", &v)
    };
    let run = a.run_match(
        &[bot("A"), bot("B")],
        10,
        &["--seed", seed, "--decision-ms", "5000"],
        secs(60),
    );
    assert_match(
        &a,
        &run,
        10,
        &[
            "env-canary",
            "env-extra",
            "referee-environ",
            "referee-cmdline",
            "referee-maps",
            "referee-fds",
            "proc-list",
            "peer-environ",
            "peer-maps",
            "peer-scratch-stat",
            "tmp-list",
        ],
    );
}

#[test]
fn files_outside_the_bot_folder_are_out_of_reach() {
    let _g = lock();
    let a = Arena::new("files");
    let bot = a.exec("files.py", &a.args());
    let run = a.run_match(&[bot, "call".into()], 10, &[], secs(60));
    assert_match(
        &a,
        &run,
        10,
        &[
            "read-etc-shadow",
            "list-root-home",
            "read-other-bot",
            "read-repo-bots",
            "read-output",
            "referee-cwd",
            "write-victim",
            "write-own-folder",
            "write-tmp",
            "write-dev-shm",
        ],
    );
}

#[test]
fn no_network_and_no_unix_sockets() {
    use std::os::linux::net::SocketAddrExt;
    let _g = lock();
    let a = Arena::new("net");
    let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    tcp.set_nonblocking(true).unwrap();
    let unix_path = a.root.join("host.sock");
    let unix = UnixListener::bind(&unix_path).unwrap();
    unix.set_nonblocking(true).unwrap();
    let abstract_name = format!("pitboss-hostile-host-{}", a.tag);
    let addr = std::os::unix::net::SocketAddr::from_abstract_name(&abstract_name).unwrap();
    let abs = UnixListener::bind_addr(&addr).unwrap();
    abs.set_nonblocking(true).unwrap();
    let mut args = a.args();
    args.push(format!("port={}", tcp.local_addr().unwrap().port()));
    args.push(format!("unix={}", unix_path.display()));
    args.push(format!("abstract={abstract_name}"));
    let bot = a.exec("net.py", &args);
    let run = a.run_match(&[bot, "call".into()], 10, &[], secs(60));
    let mut f = Findings::default();
    f.check(tcp.accept().is_err(), || "a bot reached 127.0.0.1".into());
    f.check(unix.accept().is_err(), || {
        "a bot reached a host socket".into()
    });
    f.check(abs.accept().is_err(), || {
        "a bot reached an abstract socket".into()
    });
    let leftovers = a.collusion_files();
    f.check(leftovers.is_empty(), || {
        format!("sockets left on the host: {leftovers:?}")
    });
    f.of_match(
        &a,
        &run,
        10,
        &[
            "tcp-loopback",
            "socket-tcp",
            "socket-udp",
            "socket-tcp6",
            "socket-netlink",
            "socket-raw",
            "socket-unix",
            "unix-bind-scratch",
            "unix-bind-tmp",
            "unix-connect-host",
            "unix-connect-wellknown",
            "abstract-bind",
            "abstract-connect-host",
        ],
    );
    f.assert(&run);
}

#[test]
fn colluders_learn_nothing_from_each_other() {
    let _g = lock();
    let a = Arena::new("collude");
    let bot = |role: &str| a.exec("colluder.py", &[format!("role={role}")]);
    let run = a.run_match(
        &[bot("A"), bot("B")],
        30,
        &["--decision-ms", "5000"],
        secs(90),
    );
    let mut f = Findings::default();
    let leftovers = a.collusion_files();
    f.check(leftovers.is_empty(), || {
        format!("collusion files left on the host: {leftovers:?}")
    });
    f.of_match(
        &a,
        &run,
        30,
        &[
            "collude-file-tmp",
            "collude-file-dev-shm",
            "collude-unix-tmp",
            "collude-abstract",
            "collude-sysv-shm",
            "collude-signal",
        ],
    );
    f.assert(&run);
}

#[test]
fn the_deck_cannot_be_predicted() {
    let _g = lock();
    // Default seed (guessable: 0..1000), then a seed only the referee's command line shows.
    let mut all = Findings::default();
    let mut runs = Vec::new();
    for (name, flags) in [
        ("deck-default", vec![]),
        ("deck-cmdline", vec!["--seed", "123456789"]),
    ] {
        let a = Arena::new(name);
        let bot = a.exec("deck_predictor.py", &[]);
        let run = a.run_match(&[bot, "call".into()], 30, &flags, secs(90));
        let mut f = Findings::default();
        f.of_match(&a, &run, 30, &["deck-prediction"]);
        for x in &mut f.0 {
            *x = format!("{name}: {x}");
        }
        all.0.extend(f.0);
        runs.push(run);
    }
    all.assert(runs.last().unwrap());
}

#[test]
fn duplicate_never_replays_a_deal_to_the_same_process() {
    let _g = lock();
    let a = Arena::new("dup");
    let bot = a.exec("duplicate_memory.py", &[]);
    let run = a.run_match(&[bot, "call".into()], 40, &["--duplicate"], secs(90));
    assert_match(&a, &run, 40, &["duplicate-memory"]);
}

#[test]
fn detached_children_die_with_the_match() {
    let _g = lock();
    let a = Arena::new("escape");
    let bot = a.exec("escape.py", &[]);
    let run = a.run_match(&[bot, "call".into()], 20, &["--freeze-idle"], secs(60));
    assert_match(&a, &run, 20, &["setsid-spinner"]);
}

/// Starts a long match with the stubborn bot, waits until it runs, then signals the referee.
fn kill_referee_mid_match(name: &str, sig: i32) -> Vec<String> {
    let a = Arena::new(name);
    let bot = a.exec("stubborn.py", &[]);
    let mut c = a.pitboss();
    c.args(["match", "--game", "27td-fl", "--threads", "1", "--bot"])
        .arg(&bot)
        .args(["--bot", "call", "--hands", "100000000", "--out"])
        .arg(&a.out)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut child = c.spawn().unwrap();
    let start = Instant::now();
    let probe = Run {
        status: None,
        elapsed: Duration::ZERO,
        text: String::new(),
        hwm_kib: 0,
        out: a.out.clone(),
    };
    let mut f = Vec::new();
    loop {
        if probe.logs().contains("HOSTILE stubborn") {
            break;
        }
        if child.try_wait().unwrap().is_some() || start.elapsed() > secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            a.survivors();
            panic!("{name}: the bot never started:\n{}", probe.logs());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: a signal to our own child.
    unsafe {
        libc::kill(child.id() as i32, sig);
    }
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed() > secs(30) {
            f.push(format!("{name}: the referee ignored the signal for 30 s"));
            let _ = child.kill();
            let _ = child.wait();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let left = a.survivors();
    if !left.is_empty() {
        f.push(format!(
            "{name}: bot processes outlived their referee: {left:?}"
        ));
    }
    let tmp = a.tmp_left();
    if !tmp.is_empty() {
        f.push(format!(
            "{name}: scratch left after the referee died: {tmp:?}"
        ));
    }
    f
}

#[test]
fn a_stubborn_bot_dies_with_the_match_and_with_its_referee() {
    let _g = lock();
    let a = Arena::new("stubborn");
    let bot = a.exec("stubborn.py", &[]);
    let run = a.run_match(&[bot, "call".into()], 10, &[], secs(60));
    let mut f = Findings::default();
    f.of_match(&a, &run, 10, &["stubborn"]);
    for (name, sig) in [
        ("referee-term", libc::SIGTERM),
        ("referee-hup", libc::SIGHUP),
        ("referee-kill", libc::SIGKILL),
    ] {
        f.0.extend(kill_referee_mid_match(name, sig));
    }
    f.assert(&run);
}

#[test]
fn a_fork_bomb_is_contained() {
    let _g = lock();
    let a = Arena::new("forkbomb");
    let bot = a.exec("forkbomb.py", &[]);
    let run = a.run_match(
        &[bot, "call".into()],
        10,
        &["--decision-ms", "60000"],
        secs(120),
    );
    // A jail may also kill the bot for it (a crash fault): no report then.
    assert_match(&a, &run, 10, &[]);
}

/// The alloc bot in one mode: being killed for it is a fine outcome (a crash fault, no report).
fn alloc(mode: &str) {
    let a = Arena::new(&format!("alloc-{mode}"));
    let bot = a.exec("alloc.py", &[format!("mode={mode}")]);
    let run = a.run_match(
        &[bot, "call".into()],
        10,
        &["--decision-ms", "60000"],
        secs(120),
    );
    assert_match(&a, &run, 10, &[]);
}

#[test]
fn memory_is_limited_per_process() {
    let _g = lock();
    alloc("single");
}

/// Issue 11 accepts per-process limits where the machine has no cgroup v2 (and `match` must say
/// so): the whole-tree limit is only required with cgroup v2.
#[test]
fn memory_is_limited_for_the_whole_tree() {
    let _g = lock();
    if !Path::new("/sys/fs/cgroup/cgroup.controllers").exists() {
        eprintln!("skipped: no cgroup v2 here, whole-tree memory limits are not required");
        return;
    }
    alloc("tree");
}

#[test]
fn a_stale_reply_flood_stays_within_the_log_cap_and_draws_faults() {
    let _g = lock();
    let a = Arena::new("flood");
    let bot = a.exec("stale_flood.py", &[]);
    let run = a.run_match(
        &[bot, "call".into()],
        30,
        &["--decision-ms", "5000"],
        secs(90),
    );
    let mut f = Findings::default();
    let mut total = 0;
    if let Ok(rd) = std::fs::read_dir(a.out.join("bots")) {
        for e in rd.flatten() {
            let len = e.metadata().unwrap().len();
            total += len;
            f.check(len < 2 << 20, || {
                format!("log {} is {len} bytes (cap 1 MiB)", e.path().display())
            });
        }
    }
    f.check(total < 4 << 20, || format!("bot logs total {total} bytes"));
    f.check(run.stat("stale_flood", "faults") > 0, || {
        "stale replies drew no fault".into()
    });
    f.of_match(&a, &run, 30, &["stale-flood"]);
    // The context prints the log's tail only.
    f.assert(&run);
}

#[test]
fn a_bot_that_stops_reading_is_given_up_promptly() {
    let _g = lock();
    let a = Arena::new("deaf");
    let bot = a.exec("deaf.py", &[]);
    let run = a.run_match(
        &[bot, "call".into()],
        50,
        &["--decision-ms", "50", "--bank-ms", "0"],
        secs(90),
    );
    let mut f = Findings::default();
    f.check(run.elapsed < secs(45), || {
        format!("50 hands with a deaf bot took {:.1?}", run.elapsed)
    });
    let log = std::fs::read_to_string(a.out.join("match.log")).unwrap_or_default();
    let restarted = !log.contains(" 0 restart(s)") && log.contains("restart(s)");
    let forfeits = run.stat("deaf", "fault_forfeit");
    f.check(restarted || forfeits > 0, || {
        format!(
            "the deaf bot was neither restarted nor forfeited after {} timeouts",
            run.stat("deaf", "fault_timeout")
        )
    });
    f.of_match(&a, &run, 50, &["deaf"]);
    f.assert(&run);
}

#[test]
fn replies_sent_before_their_request_are_faults() {
    let _g = lock();
    let a = Arena::new("early");
    let bot = a.exec("early_reply.py", &[]);
    let run = a.run_match(
        &[bot, "call".into()],
        20,
        &["--decision-ms", "5000"],
        secs(60),
    );
    let mut f = Findings::default();
    f.check(run.stat("early_reply", "faults") > 0, || {
        "replies to requests not yet sent drew no fault (they were taken as answers)".into()
    });
    f.check(run.stat("early_reply", "fault_illegal") == 0, || {
        "the guessed action was legal: the fault must be for its timing, not illegal".into()
    });
    f.of_match(&a, &run, 20, &["early-reply"]);
    f.assert(&run);
}

#[test]
fn manifest_limits_are_capped_by_the_operator() {
    let _g = lock();
    let a = Arena::new("huge");
    let m = a.manifest("huge_limits.toml", &[]);
    let run = a.run_match(&[m.display().to_string(), "call".into()], 10, &[], secs(45));
    let mut f = Findings::default();
    f.check(run.status.is_some(), || {
        format!(
            "a manifest's decision_ms of 10^12 hung the match (killed after {:.1?})",
            run.elapsed
        )
    });
    if run.status.is_some() {
        f.check(run.stat("hostile-huge-limits", "fault_timeout") > 0, || {
            "the stalled decision is no timeout fault".into()
        });
    }
    f.of_match(&a, &run, 10, &["huge-limits"]);
    f.assert(&run);
}

#[test]
fn the_build_step_is_jailed() {
    let _g = lock();
    let a = Arena::new("build");
    let m = a.manifest("build.toml", &a.args());
    let expected = [
        "build-info",
        "build-read-other-bot",
        "build-read-etc-shadow",
        "build-write-parent",
    ];
    let mut f = Findings::default();
    // check: builds, then plays.
    let mut c = a.pitboss();
    c.arg("check")
        .arg(&m)
        .args(["--game", "27td-fl", "--hands", "10", "--out"])
        .arg(&a.out);
    let run = a.run(c, secs(120));
    f.no_success("check: build report", &a.build_report(), &expected);
    f.no_success("check: bot logs", &run.logs(), &[]);
    f.clean(&a, &run);
    // match: builds again.
    let _ = std::fs::remove_file(a.bots.join("build-report.txt"));
    let _ = std::fs::remove_file(a.bots.join("build/build-report.txt"));
    let _ = std::fs::remove_dir_all(&a.out);
    let run = a.run_match(
        &[m.display().to_string(), "call".into()],
        10,
        &[],
        secs(120),
    );
    f.no_success("match: build report", &a.build_report(), &expected);
    f.of_match(&a, &run, 10, &[]);
    // submit: builds next to a registry it must not touch.
    let _ = std::fs::remove_file(a.bots.join("build-report.txt"));
    let _ = std::fs::remove_file(a.bots.join("build/build-report.txt"));
    std::fs::create_dir_all(&a.registry).unwrap();
    // A small gauntlet: one game, few deals.
    std::fs::write(
        a.registry.join("registry.toml"),
        "[settings]\nname = \"hostile\"\ngames = [\"27td-fl\"]\ndeals = 20\nbatch = 10\nseed = 1\nbootstrap = 10\n",
    )
    .unwrap();
    // Two registered bots, so the registry holds unit files the build could tamper with.
    for b in ["call", "random"] {
        let mut c = a.pitboss();
        c.args(["submit", b, "--name", b, "--threads", "1", "--registry"])
            .arg(&a.registry);
        // The first one is registered but has nobody to play yet (the command says so).
        a.run(c, secs(120));
    }
    let mut c = a.pitboss();
    c.arg("submit")
        .arg(&m)
        .args(["--name", "hostile", "--threads", "1", "--registry"])
        .arg(&a.registry);
    let run = a.run(c, secs(300));
    f.no_success("submit: build report", &a.build_report(), &["build-info"]);
    f.clean(&a, &run);
    f.assert(&run);
}

#[test]
fn the_interpreter_probe_is_jailed() {
    let _g = lock();
    let a = Arena::new("probe");
    let m = a.manifest("probe.toml", &a.args());
    let run = a.run_match(&[m.display().to_string(), "call".into()], 10, &[], secs(60));
    let mut f = Findings::default();
    f.no_success("probe report", &a.build_report(), &[]);
    f.of_match(&a, &run, 10, &["read-other-bot", "read-etc-shadow"]);
    f.assert(&run);
}

#[test]
fn check_and_submit_refuse_manifests_that_reach_outside_their_folder() {
    let _g = lock();
    for (name, manifest, word) in [
        ("readroot", "read_root.toml", "read"),
        ("workdir", "workdir_escape.toml", "workdir"),
    ] {
        let a = Arena::new(name);
        let m = a.manifest(manifest, &a.args());
        // The output folder away from the temp directory (which the workdir of ../../.. may
        // reach), so a refusal is for the manifest itself.
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("hostile-{}", a.tag));
        let _ = std::fs::remove_dir_all(&out);
        let mut f = Findings::default();
        let mut c = a.pitboss();
        c.arg("check")
            .arg(&m)
            .args(["--game", "27td-fl", "--hands", "10", "--out"])
            .arg(&out);
        let run = a.run(c, secs(60));
        f.check(run.status.is_some_and(|s| !s.success()), || {
            format!("check did not refuse {manifest}")
        });
        f.check(run.text.contains(word), || {
            format!("check did not say why ({word:?})")
        });
        let _ = std::fs::remove_dir_all(&out);
        std::fs::create_dir_all(&a.registry).unwrap();
        let mut c = a.pitboss();
        c.arg("submit")
            .arg(&m)
            .args(["--name", "hostile", "--threads", "1", "--registry"])
            .arg(&a.registry);
        let run2 = a.run(c, secs(120));
        f.check(run2.status.is_some_and(|s| !s.success()), || {
            format!("submit did not refuse {manifest}")
        });
        let registered = std::fs::read_to_string(a.registry.join("registry.toml"))
            .unwrap_or_default()
            .contains("hostile");
        f.check(!registered, || format!("submit registered {manifest}"));
        a.markers();
        a.survivors();
        f.assert(&run);
    }
}

#[test]
fn every_game_of_a_tournament_is_announced() {
    let _g = lock();
    let a = Arena::new("games");
    let bot = format!("switch={}", a.exec("game_switch.py", &[]));
    let mut c = a.pitboss();
    c.args(["tournament", "--game", "27td-fl", "--game", "stud8-fl"])
        .args(["--bot", &bot, "--bot", "call"])
        .args(["--deals", "20", "--batch", "10", "--threads", "1", "--out"])
        .arg(&a.out);
    let run = a.run(c, secs(120));
    let mut f = Findings::default();
    f.check(run.status.is_some_and(|s| s.success()), || {
        "the tournament did not complete".into()
    });
    f.no_success("bot logs", &run.logs(), &["game-switch"]);
    f.clean(&a, &run);
    f.assert(&run);
}
