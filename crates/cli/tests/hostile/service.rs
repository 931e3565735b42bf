//! `pitboss serve` attacked from the outside, as strangers with accounts would: uploaded bots
//! that go for the service's data folder from inside their check and their ladder matches, a bot
//! that passes its check and then cannot be built, uploads that race the hourly quota or the
//! same bundle, names that differ from another account's (or the house's) only in case.
//!
//! Each test starts its own service on loopback with a data folder in the test's tree (one
//! preset, `call` as the only reference, 20-hand checks, 200-hand matches, 2 workers), creates
//! accounts with `pitboss token create`, and talks HTTP/1.1 to it over a plain socket (bodies
//! sent in pieces when a test needs them slow). Fixtures: `fixtures/hostile/service/<bot>/`.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::harness::*;

/// A running service of one test.
struct Service {
    addr: String,
    child: Option<Child>,
    err: PathBuf,
}

impl Service {
    /// Starts `pitboss serve` on `data` (made, with a short `ladder.toml`).
    fn start(a: &Arena, data: &Path) -> Service {
        std::fs::create_dir_all(data).unwrap();
        std::fs::write(
            data.join("ladder.toml"),
            "presets = [\"27td-fl\"]\nreferences = [\"call\"]\ncheck_hands = 20\nworkers = 2\n",
        )
        .unwrap();
        let err = a.root.join("serve.stderr");
        let mut c = a.pitboss();
        c.args(["serve", "--data"])
            .arg(data)
            .args(["--listen", "127.0.0.1:0", "--hands-per-match", "200"])
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&err).unwrap());
        let child = c.spawn().expect("start pitboss serve");
        let t = Instant::now();
        let addr = loop {
            let text = std::fs::read_to_string(&err).unwrap_or_default();
            if let Some(rest) = text.split("http://").nth(1) {
                break rest.split('/').next().unwrap().to_string();
            }
            assert!(
                t.elapsed() < secs(30),
                "pitboss serve did not start: {text}"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        Service {
            addr,
            child: Some(child),
            err,
        }
    }

    fn port(&self) -> &str {
        self.addr.rsplit(':').next().unwrap()
    }

    /// The service's own output (what the operator's terminal shows).
    fn stderr(&self) -> Vec<u8> {
        std::fs::read(&self.err).unwrap_or_default()
    }

    /// Stops the service (SIGTERM, then SIGKILL after 10 s).
    fn stop(&mut self) {
        let Some(mut c) = self.child.take() else {
            return;
        };
        // SAFETY: a signal to the service this test started.
        unsafe {
            libc::kill(c.id() as i32, libc::SIGTERM);
        }
        let t = Instant::now();
        while t.elapsed() < secs(10) {
            if c.try_wait().unwrap().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = c.kill();
        let _ = c.wait();
    }

    /// One HTTP/1.1 request; the body, if any, in `pieces` with `pause` between them.
    fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, String)],
        pieces: &[&[u8]],
        pause: Duration,
    ) -> Answer {
        let mut s = TcpStream::connect(&self.addr).unwrap_or_else(|e| {
            panic!(
                "the service at {} is gone ({e}); its output:\n{}",
                self.addr,
                tail(&String::from_utf8_lossy(&self.stderr()), 3000)
            )
        });
        s.set_read_timeout(Some(secs(60))).unwrap();
        let len: usize = pieces.iter().map(|p| p.len()).sum();
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
            self.addr
        );
        for (k, v) in headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        if method == "POST" {
            head.push_str(&format!(
                "Content-Type: application/octet-stream\r\nContent-Length: {len}\r\n"
            ));
        }
        head.push_str("\r\n");
        s.write_all(head.as_bytes()).unwrap();
        for (i, p) in pieces.iter().enumerate() {
            if i > 0 {
                std::thread::sleep(pause);
            }
            // The server may answer (and close) before the whole body is sent.
            if s.write_all(p).is_err() {
                break;
            }
        }
        let mut raw = Vec::new();
        let _ = s.read_to_end(&mut raw);
        Answer::parse(&raw)
    }

    fn get(&self, path: &str) -> Answer {
        self.request("GET", path, &[], &[], Duration::ZERO)
    }

    fn get_json(&self, path: &str) -> Value {
        let a = self.get(path);
        serde_json::from_slice(&a.body).unwrap_or_else(|e| panic!("GET {path}: {e}: {}", a.text()))
    }

    fn upload(&self, token: &str, name: &str, bundle: &[u8]) -> Answer {
        self.request(
            "POST",
            &format!("/api/bots?name={name}"),
            &[("Authorization", format!("Bearer {token}"))],
            &[bundle],
            Duration::ZERO,
        )
    }

    /// The state of version `n` of bot `name` ("" while the bot is unknown).
    fn state(&self, name: &str, n: i64) -> String {
        let v = self.get_json(&format!("/api/bots/{name}"));
        v["versions"]
            .as_array()
            .and_then(|vs| vs.iter().find(|x| x["number"] == n))
            .and_then(|x| x["state"].as_str())
            .unwrap_or("")
            .to_string()
    }

    /// Waits until version `n` of `name` is checked; returns its state.
    fn checked(&self, name: &str, n: i64, limit: Duration) -> String {
        let t = Instant::now();
        loop {
            let s = self.state(name, n);
            if !matches!(s.as_str(), "" | "pending" | "checking") || t.elapsed() > limit {
                return s;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Version `n` of `name`'s build and check log as its owner gets it.
    fn owner_log(&self, token: &str, name: &str, n: i64) -> Answer {
        self.request(
            "GET",
            &format!("/api/bots/{name}/versions/{n}/log"),
            &[("Authorization", format!("Bearer {token}"))],
            &[],
            Duration::ZERO,
        )
    }

    /// The id (in the store) of version `n` of `name`.
    fn version_id(&self, name: &str, n: i64) -> i64 {
        let v = self.get_json(&format!("/api/bots/{name}"));
        v["versions"]
            .as_array()
            .and_then(|vs| vs.iter().find(|x| x["number"] == n))
            .and_then(|x| x["id"].as_i64())
            .unwrap_or_else(|| panic!("no version {n} of {name}: {v}"))
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        self.stop();
    }
}

/// An HTTP answer.
struct Answer {
    status: u16,
    head: String,
    body: Vec<u8>,
}

impl Answer {
    fn parse(raw: &[u8]) -> Answer {
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or(raw.len());
        let head = String::from_utf8_lossy(&raw[..split]).into_owned();
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let mut body = raw.get(split + 4..).unwrap_or_default().to_vec();
        if head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked")
        {
            body = dechunk(&body);
        }
        Answer { status, head, body }
    }

    fn text(&self) -> String {
        format!(
            "{}\n\n{}",
            self.head,
            String::from_utf8_lossy(&self.body[..self.body.len().min(2000)])
        )
    }
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(i) = b.windows(2).position(|w| w == b"\r\n") {
        let n = usize::from_str_radix(String::from_utf8_lossy(&b[..i]).trim(), 16).unwrap_or(0);
        if n == 0 || b.len() < i + 2 + n {
            break;
        }
        out.extend_from_slice(&b[i + 2..i + 2 + n]);
        b = &b[(i + 4 + n).min(b.len())..];
    }
    out
}

/// `pitboss token create NAME` on the data folder; the token.
fn token(a: &Arena, data: &Path, name: &str, per_hour: Option<u32>) -> String {
    std::fs::create_dir_all(data).unwrap();
    let mut c = a.pitboss();
    c.args(["token", "create", name, "--data"]).arg(data);
    if let Some(n) = per_hour {
        c.args(["--uploads-per-hour", &n.to_string()]);
    }
    let out = c.output().unwrap();
    assert!(out.status.success(), "token create: {out:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// The fixture bot `name` copied into the test's tree with `hostile.py` and `plain.py`, its
/// `bot.toml.in` (if any) filled in with `fill`.
fn bot_folder(a: &Arena, name: &str, fill: &[(&str, String)]) -> PathBuf {
    let src = fixtures().join("service").join(name);
    let dst = a.root.join("upload").join(name);
    std::fs::create_dir_all(&dst).unwrap();
    for e in std::fs::read_dir(&src).unwrap().flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        if n == "bot.toml.in" {
            let mut t = std::fs::read_to_string(e.path()).unwrap();
            for (k, v) in fill {
                t = t.replace(k, v);
            }
            std::fs::write(dst.join("bot.toml"), t).unwrap();
        } else {
            std::fs::copy(e.path(), dst.join(&n)).unwrap();
        }
    }
    for f in ["hostile.py", "plain.py"] {
        std::fs::copy(fixtures().join(f), dst.join(f)).unwrap();
    }
    dst
}

fn pack(folder: &Path) -> Vec<u8> {
    pitboss_bundle::pack(folder, &pitboss_bundle::Limits::default()).expect("pack the bot")
}

/// Every file beneath `dir`.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let Ok(t) = e.file_type() else { continue };
            if t.is_dir() {
                stack.push(e.path());
            } else {
                out.push(e.path());
            }
        }
    }
    out
}

/// Whether `bytes` hold a control character a terminal acts on (ESC, BEL, CSI).
fn has_escapes(bytes: &[u8]) -> bool {
    bytes.iter().any(|&b| matches!(b, 0x1b | 0x07 | 0x9b))
}

/// Copies every bot log of the service's check and match folders while they exist (matches
/// remove theirs when they end): the `HOSTILE` lines found, by where they were found.
struct LogWatch {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    handle: Option<std::thread::JoinHandle<(String, String)>>,
}

impl LogWatch {
    fn start(data: &Path) -> LogWatch {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (s, data) = (stop.clone(), data.to_path_buf());
        let handle = std::thread::spawn(move || {
            let mut seen = std::collections::HashSet::new();
            let (mut check, mut matches) = (String::new(), String::new());
            while !s.load(std::sync::atomic::Ordering::Relaxed) {
                for (top, into) in [("versions", &mut check), ("matches", &mut matches)] {
                    for p in files_under(&data.join(top)) {
                        if p.extension().is_none_or(|e| e != "log") {
                            continue;
                        }
                        let Ok(t) = std::fs::read(&p) else { continue };
                        for l in String::from_utf8_lossy(&t).lines() {
                            if l.contains("HOSTILE ") && seen.insert((p.clone(), l.to_string())) {
                                into.push_str(l);
                                into.push('\n');
                            }
                        }
                    }
                }
                std::thread::sleep(Duration::from_millis(30));
            }
            (check, matches)
        });
        LogWatch {
            stop,
            handle: Some(handle),
        }
    }

    fn finish(mut self) -> (String, String) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        self.handle.take().unwrap().join().unwrap()
    }
}

const PROBE_ATTACKS: [&str; 12] = [
    "data-secret",
    "data-db",
    "data-list",
    "bundles",
    "versions-list",
    "other-version",
    "own-check-folder",
    "match-configs",
    "hands",
    "tmp-uploads",
    "web-connect",
    "write-data",
];

/// From inside its check and its ladder matches an uploaded bot reaches nothing of the service:
/// not the secret, the database, the bundles, another account's unpacked bot, the match folders
/// (salts), the histories, the uploads being unpacked, the web server; it writes nothing into
/// the data folder and leaves no process behind once the service stops. What its check leaves on
/// disk is bounded by the log the owner gets (it writes 6 MB to stderr each time it starts), and
/// the log (owner only) holds none of its output raw.
#[test]
fn service_bot_reaches_nothing_of_the_service() {
    let _g = lock();
    let a = Arena::new("svc-probe");
    let data = a.root.join("data");
    let (alice, mallory) = (
        token(&a, &data, "alice", None),
        token(&a, &data, "mallory", None),
    );
    let svc = Service::start(&a, &data);
    let watch = LogWatch::start(&data);
    let mut f = Findings::default();
    let victim = pack(&bot_folder(&a, "victim", &[]));
    let r = svc.upload(&alice, "victim", &victim);
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(svc.checked("victim", 1, secs(40)), "active");
    let probe = bot_folder(
        &a,
        "probe",
        &[
            ("@TAG@", a.tag.clone()),
            ("@DATA@", data.display().to_string()),
            ("@PORT@", svc.port().to_string()),
        ],
    );
    let r = svc.upload(&mallory, "probe", &pack(&probe));
    assert_eq!(r.status, 201, "{}", r.text());
    let state = svc.checked("probe", 1, secs(40));
    f.check(state == "active", || {
        format!(
            "the probe's check: {state} (it plays legally): {}",
            svc.owner_log(&mallory, "probe", 1).text()
        )
    });
    let probe_id = svc.version_id("probe", 1);
    // Its check folder, once the check is over: what the check left on disk.
    let left: u64 = files_under(&data.join(format!("versions/{probe_id}")))
        .iter()
        .filter(|p| !p.starts_with(data.join(format!("versions/{probe_id}/bot"))))
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    f.check(left <= 256 << 10, || {
        format!(
            "the check left {left} bytes of the bot's output on disk beside its folder \
             (versions/{probe_id}/check): a flood to stderr costs the disk up to 1 MiB a log, \
             32 MiB of transcripts, on every upload, kept for ever"
        )
    });
    // Wait for ladder matches of the probe to have started and reported.
    let t = Instant::now();
    while t.elapsed() < secs(30) {
        let v = svc.get_json("/api/bots/probe");
        if v["recent_matches"]
            .as_array()
            .is_some_and(|m| m.iter().filter(|m| m["state"] == "done").count() >= 2)
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    let log = svc.owner_log(&mallory, "probe", 1);
    f.check(log.status == 200, || {
        format!("the owner's log: {}", log.text())
    });
    f.check(log.body.len() < 80 << 10, || {
        format!("the owner's log is {} bytes", log.body.len())
    });
    f.check(!has_escapes(&log.body), || {
        "escapes in the log's JSON".into()
    });
    let mut svc = svc;
    svc.stop();
    let (check, matches) = watch.finish();
    f.no_success("check logs", &check, &PROBE_ATTACKS);
    f.no_success("match logs", &matches, &PROBE_ATTACKS);
    let left = a.survivors();
    f.check(left.is_empty(), || {
        format!("processes outlived the service (killed now): {left:?}")
    });
    let marks: Vec<PathBuf> = files_under(&data)
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("HOSTILE-MARKER"))
        .collect();
    f.check(marks.is_empty(), || format!("markers written: {marks:?}"));
    let out = svc.stderr();
    f.check(!String::from_utf8_lossy(&out).contains("]0;pwned"), || {
        "the bot's terminal escapes reached the service's output".into()
    });
    assert!(
        f.0.is_empty(),
        "{} finding(s):\n* {}\n--- check reports ---\n{}\n--- match reports ---\n{}\n--- service ---\n{}",
        f.0.len(),
        f.0.join("\n* "),
        tail(&check, 4000),
        tail(&matches, 4000),
        tail(&String::from_utf8_lossy(&out), 3000)
    );
}

/// A version whose check passed and whose build then fails in every match (flaky/build.py):
/// the service stops scheduling it after a few failures instead of creating failed matches
/// without end (each one a build in the jail), and no public page or answer quotes its build
/// output — the owner's log — or the data folder's path; no escape sequence reaches a page or
/// the operator's terminal.
#[test]
fn service_unbuildable_version_is_dropped() {
    let _g = lock();
    let a = Arena::new("svc-flaky");
    let data = a.root.join("data");
    let m = token(&a, &data, "mallory", None);
    let svc = Service::start(&a, &data);
    let folder = bot_folder(&a, "flaky", &[]);
    let r = svc.upload(&m, "flaky", &pack(&folder));
    assert_eq!(r.status, 201, "{}", r.text());
    let state = svc.checked("flaky", 1, secs(40));
    assert_eq!(
        state,
        "active",
        "the check passes: {}",
        svc.owner_log(&m, "flaky", 1).text()
    );
    let id = svc.version_id("flaky", 1);
    // From now on every build fails (the folder is read-only to the bot, not to the host).
    std::fs::write(data.join(format!("versions/{id}/bot/fail-now")), "").unwrap();
    std::thread::sleep(secs(15));
    let mut f = Findings::default();
    let status = svc.get_json("/api/status");
    let failed = status["queue"]["failed"].as_i64().unwrap_or(-1);
    f.check((0..=5).contains(&failed), || {
        format!("{failed} failed matches in 15 s: the scheduler pairs the unbuildable version again and again")
    });
    let state = svc.state("flaky", 1);
    f.check(state == "failed", || {
        format!("the unbuildable version is still {state:?}")
    });
    let v = svc.get_json("/api/bots/flaky");
    let ids: Vec<i64> = v["recent_matches"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["state"] == "failed")
        .filter_map(|m| m["id"].as_i64())
        .take(3)
        .collect();
    f.check(!ids.is_empty() || failed == 0, || {
        "no failed match listed".into()
    });
    let root = data.display().to_string();
    for id in &ids {
        for path in [format!("/api/matches/{id}"), format!("/matches/{id}")] {
            let page = svc.get(&path);
            let text = String::from_utf8_lossy(&page.body).into_owned();
            f.check(!text.contains("BUILD-LOG-OF-THE-OWNER"), || {
                format!("{path} quotes the build's output (the owner's log) to everyone")
            });
            f.check(!has_escapes(&page.body), || {
                format!("{path} carries raw escape sequences")
            });
            f.check(!text.contains(&root) && !text.contains("versions/"), || {
                format!("{path} names the service's files: {}", tail(&text, 300))
            });
        }
    }
    let op = svc.get("/operator");
    f.check(!has_escapes(&op.body), || {
        "/operator carries escapes".into()
    });
    let log = svc.owner_log(&m, "flaky", 1);
    f.check(String::from_utf8_lossy(&log.body).contains("build"), || {
        format!(
            "the owner's log does not say the build failed: {}",
            log.text()
        )
    });
    let out = svc.stderr();
    f.check(!String::from_utf8_lossy(&out).contains("]0;pwned"), || {
        "the build's escape sequences reached the service's output".into()
    });
    assert!(
        f.0.is_empty(),
        "{} finding(s):\n* {}\n--- status ---\n{status}\n--- service ---\n{}",
        f.0.len(),
        f.0.join("\n* "),
        tail(&String::from_utf8_lossy(&out), 3000)
    );
}

/// The hourly quota holds against uploads sent at once: eight slow uploads (headers first, the
/// body a second later) of an account allowed two an hour get at most two accepted.
#[test]
fn service_upload_quota_cannot_be_raced() {
    let _g = lock();
    let a = Arena::new("svc-quota");
    let data = a.root.join("data");
    let eve = token(&a, &data, "eve", Some(2));
    let svc = std::sync::Arc::new(Service::start(&a, &data));
    let bundle = pack(&bot_folder(&a, "victim", &[]));
    let (first, rest) = bundle.split_at(bundle.len() / 2);
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let (svc, eve) = (svc.clone(), eve.clone());
            let (first, rest) = (first.to_vec(), rest.to_vec());
            std::thread::spawn(move || {
                svc.request(
                    "POST",
                    &format!("/api/bots?name=race{i}"),
                    &[("Authorization", format!("Bearer {eve}"))],
                    &[&first, &rest],
                    secs(1),
                )
            })
        })
        .collect();
    let answers: Vec<Answer> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let codes: Vec<u16> = answers.iter().map(|a| a.status).collect();
    let accepted = codes.iter().filter(|&&c| c == 201).count();
    let bots = (0..8)
        .filter(|i| !svc.state(&format!("race{i}"), 1).is_empty())
        .count();
    assert!(
        accepted <= 2 && bots <= 2,
        "an account allowed 2 uploads an hour got {accepted} accepted ({bots} bots made) \
         by sending 8 at once: {codes:?}"
    );
    assert!(
        codes.iter().all(|&c| c == 201 || c == 429),
        "every upload is accepted or refused with 429: {codes:?}"
    );
}

/// The same bundle uploaded at once (by several accounts, or one) is stored once and whole:
/// every upload accepted, none failing with 500 on the shared file.
#[test]
fn service_same_bundle_uploaded_at_once_is_stored_whole() {
    let _g = lock();
    let a = Arena::new("svc-same");
    let data = a.root.join("data");
    let tokens: Vec<String> = (0..2)
        .map(|i| token(&a, &data, &format!("acct{i}"), None))
        .collect();
    let svc = std::sync::Arc::new(Service::start(&a, &data));
    let bundle = pack(&bot_folder(&a, "victim", &[]));
    let threads: Vec<_> = (0..16)
        .map(|i| {
            let (svc, t, b) = (svc.clone(), tokens[i % 2].clone(), bundle.clone());
            std::thread::spawn(move || {
                // All but the last byte, then the last byte a second later: the bodies end
                // together, and the server stores them together.
                let (head, last) = b.split_at(b.len() - 1);
                svc.request(
                    "POST",
                    &format!("/api/bots?name=same{i}"),
                    &[("Authorization", format!("Bearer {t}"))],
                    &[head, last],
                    secs(1),
                )
            })
        })
        .collect();
    let answers: Vec<Answer> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let bad: Vec<String> = answers
        .iter()
        .filter(|a| a.status != 201)
        .map(Answer::text)
        .collect();
    assert!(
        bad.is_empty(),
        "uploads of one bundle at once failed: {bad:#?}"
    );
    let stored = files_under(&data.join("bundles"));
    assert_eq!(stored.len(), 1, "{stored:?}");
    assert_eq!(std::fs::read(&stored[0]).unwrap(), bundle);
    assert_eq!(svc.checked("same0", 1, secs(60)), "active");
}

/// A name that differs from another account's bot, or from a reference bot, only in case is
/// that bot's name: refused with 403 (on a leaderboard `CALL` would pass for the house's `call`,
/// `Victim` for alice's `victim`); the owner's own upload under another case is a new version
/// of the same bot.
#[test]
fn service_names_differing_in_case_are_the_same_name() {
    let _g = lock();
    let a = Arena::new("svc-case");
    let data = a.root.join("data");
    let (alice, mallory) = (
        token(&a, &data, "alice", None),
        token(&a, &data, "mallory", None),
    );
    let svc = Service::start(&a, &data);
    let bundle = pack(&bot_folder(&a, "victim", &[]));
    let r = svc.upload(&alice, "victim", &bundle);
    assert_eq!(r.status, 201, "{}", r.text());
    let mut f = Findings::default();
    for name in ["Victim", "VICTIM", "Call", "CALL", "cAlL"] {
        let r = svc.upload(&mallory, name, &bundle);
        f.check(r.status == 403, || {
            format!(
                "mallory uploaded {name:?} (another's name but for case): {}",
                r.text()
            )
        });
    }
    let r = svc.upload(&alice, "VICTIM", &bundle);
    f.check(r.status == 201, || {
        format!("alice's own name in capitals: {}", r.text())
    });
    let v = svc.get_json("/api/bots/victim");
    let n = v["versions"].as_array().map_or(0, Vec::len);
    f.check(n == 2, || {
        format!("alice's upload as VICTIM is not a second version of victim: {v}")
    });
    let board = svc.get_json("/api/leaderboard");
    let text = board.to_string();
    f.check(
        !text.contains("\"CALL\"") && !text.contains("\"Call\""),
        || format!("a look-alike of a reference bot on the leaderboard: {text}"),
    );
    assert!(
        f.0.is_empty(),
        "{} finding(s):\n* {}",
        f.0.len(),
        f.0.join("\n* ")
    );
}

/// A version that plays its check, then crashes at every decision past hand 30 of every match
/// (crasher.py): its matches finish (the seat forfeits after its restarts, the result counts),
/// none fails or hangs, and its rating says what it is — last, not a hole in the ladder.
#[test]
fn service_version_crashing_in_matches_forfeits_them() {
    let _g = lock();
    let a = Arena::new("svc-crash");
    let data = a.root.join("data");
    let m = token(&a, &data, "mallory", None);
    let svc = Service::start(&a, &data);
    let r = svc.upload(&m, "crasher", &pack(&bot_folder(&a, "crasher", &[])));
    assert_eq!(r.status, 201, "{}", r.text());
    let state = svc.checked("crasher", 1, secs(40));
    assert_eq!(
        state,
        "active",
        "{}",
        svc.owner_log(&m, "crasher", 1).text()
    );
    let t = Instant::now();
    let mut v = Value::Null;
    while t.elapsed() < secs(40) {
        v = svc.get_json("/api/bots/crasher");
        let done = v["recent_matches"]
            .as_array()
            .map_or(0, |m| m.iter().filter(|m| m["state"] == "done").count());
        // The board (statistics, ratings) is rebuilt a moment after a match's row is done.
        if done >= 2 && !v["versions"][0]["stats"].is_null() {
            break;
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    let mut f = Findings::default();
    let matches = v["recent_matches"].as_array().cloned().unwrap_or_default();
    let done: Vec<&Value> = matches.iter().filter(|m| m["state"] == "done").collect();
    f.check(done.len() >= 2, || {
        format!("fewer than 2 matches done: {v}")
    });
    f.check(matches.iter().all(|m| m["state"] != "failed"), || {
        format!("a match of the crashing version failed instead of counting: {v}")
    });
    for d in &done {
        f.check(d["result"]["played"] == 200, || {
            format!("match {} did not play every hand: {d}", d["id"])
        });
    }
    let stats = &v["versions"][0]["stats"];
    let faults = stats["faults"].to_string();
    f.check(
        faults.contains("crash") && faults.contains("forfeit"),
        || format!("the crashes and forfeits are not in its statistics: {stats}"),
    );
    let status = svc.get_json("/api/status");
    f.check(status["queue"]["failed"] == 0, || {
        format!("failed matches: {status}")
    });
    assert!(
        f.0.is_empty(),
        "{} finding(s):\n* {}",
        f.0.len(),
        f.0.join("\n* ")
    );
}
