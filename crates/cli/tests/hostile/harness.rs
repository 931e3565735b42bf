//! The hostile suite's harness: a test's own tree of folders, running pitboss on it, and the
//! findings (every attack that worked, every process or file left behind).

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One test at a time: they count processes and load the machine.
pub(crate) static SERIAL: Mutex<()> = Mutex::new(());

/// An environment variable the referee gets and no bot may see.
pub(crate) const CANARY_VAR: &str = "PITBOSS_HOSTILE_CANARY";

pub(crate) fn lock() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// The repository (its fixtures): `PITBOSS_HOSTILE_REPO` when set — the suite run as an ordinary
/// user (scripts/hostile_nonroot.sh) gets a copy it can read — else this crate's repository.
pub(crate) fn repo() -> PathBuf {
    if let Some(r) = std::env::var_os("PITBOSS_HOSTILE_REPO") {
        return PathBuf::from(r);
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The `pitboss` binary under test (`PITBOSS_HOSTILE_BIN` overrides, as for [`repo`]).
pub(crate) fn pitboss_bin() -> PathBuf {
    std::env::var_os("PITBOSS_HOSTILE_BIN").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_pitboss")),
        PathBuf::from,
    )
}

/// A scratch folder outside the temp directory (`PITBOSS_HOSTILE_TARGET_TMP` overrides).
pub(crate) fn target_tmp() -> PathBuf {
    std::env::var_os("PITBOSS_HOSTILE_TARGET_TMP")
        .map_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")), PathBuf::from)
}

pub(crate) fn fixtures() -> PathBuf {
    repo().join("crates/external/tests/fixtures/hostile")
}

pub(crate) fn python() -> &'static str {
    if Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    }
}

/// A test's own tree in the temp directory:
/// `tmp/` (pitboss's TMPDIR), `out/`, `bots/hostile/` (the fixtures), `bots/other/` (another
/// bot's secret), `victim/` (where write attempts aim), `registry/`.
pub(crate) struct Arena {
    pub(crate) tag: String,
    pub(crate) canary: String,
    pub(crate) root: PathBuf,
    pub(crate) tmp: PathBuf,
    pub(crate) out: PathBuf,
    pub(crate) bots: PathBuf,
    pub(crate) other: PathBuf,
    pub(crate) victim: PathBuf,
    pub(crate) registry: PathBuf,
}

impl Arena {
    pub(crate) fn new(name: &str) -> Arena {
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
    pub(crate) fn exec(&self, script: &str, args: &[String]) -> String {
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
    pub(crate) fn manifest(&self, name: &str, args: &[String]) -> PathBuf {
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
    pub(crate) fn args(&self) -> Vec<String> {
        vec![
            format!("out={}", self.out.display()),
            format!("other={}", self.other.display()),
            format!("victim={}", self.victim.display()),
            format!("repo={}", repo().display()),
            format!("canary={}", self.canary),
        ]
    }

    pub(crate) fn pitboss(&self) -> Command {
        let mut c = Command::new(pitboss_bin());
        c.current_dir(&self.root)
            .env("TMPDIR", &self.tmp)
            .env(CANARY_VAR, &self.canary)
            .stdin(Stdio::null());
        c
    }

    /// `pitboss match` with these bots and flags.
    pub(crate) fn run_match(
        &self,
        bots: &[String],
        hands: u64,
        flags: &[&str],
        limit: Duration,
    ) -> Run {
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
    pub(crate) fn run(&self, mut c: Command, limit: Duration) -> Run {
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
    pub(crate) fn survivors(&self) -> Vec<String> {
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
    pub(crate) fn tmp_left(&self) -> Vec<String> {
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
    pub(crate) fn markers(&self) -> Vec<String> {
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
    pub(crate) fn collusion_files(&self) -> Vec<String> {
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
    pub(crate) fn build_report(&self) -> String {
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

pub(crate) struct Run {
    /// None: killed at the time limit.
    pub(crate) status: Option<ExitStatus>,
    pub(crate) elapsed: Duration,
    pub(crate) text: String,
    pub(crate) hwm_kib: u64,
    pub(crate) out: PathBuf,
}

impl Run {
    /// Every bot log of the match.
    /// Every bot log: `<out>/bots/` of a match, `<out>/games/<game>/bots/` of a tournament.
    pub(crate) fn logs(&self) -> String {
        let mut s = String::new();
        let mut dirs = vec![self.out.join("bots")];
        if let Ok(games) = std::fs::read_dir(self.out.join("games")) {
            dirs.extend(games.flatten().map(|g| g.path().join("bots")));
        }
        for rd in dirs.iter().filter_map(|d| std::fs::read_dir(d).ok()) {
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

    pub(crate) fn summary(&self) -> Vec<HashMap<String, String>> {
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
    pub(crate) fn stat(&self, who: &str, col: &str) -> i64 {
        self.summary()
            .iter()
            .find(|r| r.get("bot").is_some_and(|b| b.contains(who)))
            .and_then(|r| r.get(col)?.parse().ok())
            .unwrap_or(0)
    }

    pub(crate) fn context(&self) -> String {
        format!(
            "status {:?} after {:.1?}\n--- pitboss output ---\n{}\n--- bot logs ---\n{}",
            self.status,
            self.elapsed,
            tail(&self.text, 4000),
            tail(&self.logs(), 12000)
        )
    }
}

pub(crate) fn tail(s: &str, n: usize) -> &str {
    let mut i = s.len().saturating_sub(n);
    while !s.is_char_boundary(i) {
        i += 1;
    }
    &s[i..]
}

pub(crate) fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    s.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
}

/// Processes (not zombies) whose command line contains `tag`, this one excluded.
pub(crate) fn tagged(tag: &str) -> Vec<(i32, String)> {
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
pub(crate) fn reports(text: &str) -> Vec<(String, String, String)> {
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
pub(crate) struct Findings(pub(crate) Vec<String>);

impl Findings {
    pub(crate) fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        if !ok {
            self.0.push(what());
        }
    }

    /// No attack succeeded; every attack in `expected` reported.
    pub(crate) fn no_success(&mut self, what: &str, text: &str, expected: &[&str]) {
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
    pub(crate) fn of_match(&mut self, a: &Arena, run: &Run, hands: u64, expected: &[&str]) {
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
    pub(crate) fn clean(&mut self, a: &Arena, run: &Run) {
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

    pub(crate) fn assert(self, run: &Run) {
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
pub(crate) fn assert_match(a: &Arena, run: &Run, hands: u64, expected: &[&str]) {
    let mut f = Findings::default();
    f.of_match(a, run, hands, expected);
    f.assert(run);
}

pub(crate) fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}
