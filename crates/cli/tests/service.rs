//! `pitboss serve` as a process: killed with SIGKILL at arbitrary moments while it plays, then
//! restarted — no finished match is lost or changed, none is counted twice, and the matches cut
//! short are played again from their seed to the very result a first run gives.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pitboss_store::{Files, Match, MatchState, Store};

/// The server's process, killed when the test ends however it ends (a failing assertion must
/// not leave a server playing on).
struct Server(Child);

impl std::ops::Deref for Server {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl std::ops::DerefMut for Server {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pitboss-svc-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Starts `pitboss serve` on a free port; returns the child once it listens.
fn serve(data: &Path, extra: &[&str]) -> (Server, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args(["serve", "--data"])
        .arg(data)
        .args(["--listen", "127.0.0.1:0", "--hands-per-match", "400"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(c.stderr.take().unwrap()).lines();
    let mut said = Vec::new();
    let addr = loop {
        let l = lines
            .next()
            .unwrap_or_else(|| panic!("serve printed no address: {said:?}"))
            .unwrap();
        said.push(l.clone());
        if let Some(rest) = l.split("http://").nth(1) {
            break rest.split('/').next().unwrap().to_string();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    (Server(c), addr)
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn matches(data: &Path) -> BTreeMap<i64, Match> {
    rt().block_on(async {
        let s = Store::open_dir(data).await.unwrap();
        let mut all = BTreeMap::new();
        for m in s.recent_matches(None, 1_000_000).await.unwrap() {
            all.insert(m.id, m);
        }
        s.close().await;
        all
    })
}

fn done(all: &BTreeMap<i64, Match>) -> BTreeMap<i64, Match> {
    all.iter()
        .filter(|(_, m)| m.state == MatchState::Done)
        .map(|(k, v)| (*k, v.clone()))
        .collect()
}

fn wait_for(data: &Path, what: &str, ok: impl Fn(&BTreeMap<i64, Match>) -> bool) {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(120) {
        if data.join("pitboss.db").exists() && ok(&matches(data)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("timed out waiting for {what}");
}

#[test]
fn kill_9_loses_no_finished_match_and_counts_none_twice() {
    let data = tmp("kill");
    let mut cut_short: Vec<i64> = Vec::new();
    for round in 0..4u64 {
        let (mut child, _) = serve(&data, &[]);
        let before = done(&matches(&data)).len();
        wait_for(&data, "matches to finish", |m| done(m).len() >= before + 5);
        std::thread::sleep(Duration::from_millis(13 * round));
        let seen = done(&matches(&data));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let after = matches(&data);
        for (id, m) in &seen {
            assert_eq!(
                after.get(id),
                Some(m),
                "match {id} changed or vanished with the kill"
            );
        }
        cut_short.extend(
            after
                .values()
                .filter(|m| m.state == MatchState::Running)
                .map(|m| m.id),
        );
    }
    assert!(!cut_short.is_empty(), "some match was running at a kill");
    // Restarted: every match cut short is played again and counted once.
    let (mut child, _) = serve(&data, &[]);
    wait_for(&data, "the interrupted matches", |m| {
        cut_short
            .iter()
            .all(|id| m.get(id).is_some_and(|x| x.state == MatchState::Done))
    });
    child.kill().unwrap();
    child.wait().unwrap();
    let all = matches(&data);
    let files = Files::new(&data).unwrap();
    for m in done(&all).values() {
        let o = m.outcome.as_ref().unwrap();
        assert_eq!(o.played, 400, "match {}: every hand counted once", m.id);
        assert_eq!(o.units, 200);
        let h = files.resolve(&o.history).unwrap();
        assert!(h.is_file(), "match {}: its history {}", m.id, h.display());
    }
    // A match played again after a kill gives what one uninterrupted run of its seed gives.
    let again = cut_short
        .iter()
        .map(|id| &all[id])
        .find(|m| m.attempts >= 2)
        .expect("a re-run match");
    let versions = rt().block_on(async {
        let s = Store::open_dir(&data).await.unwrap();
        let v = s.versions().await.unwrap();
        s.close().await;
        v
    });
    let bot = |id: i64| {
        let v = versions.iter().find(|v| v.id == id).unwrap();
        pitboss_worker::BotRef {
            version: id,
            label: v.label(),
            builtin: v.spec.clone(),
            sha256: String::new(),
        }
    };
    let settings = pitboss_worker::Settings {
        secret: files.secret().unwrap(),
        files,
        sandbox: true,
        luck_adjust: true,
        threads: 2,
        check_hands: 10,
        history: false,
        history_hands: 0,
        tape: false,
    };
    let fresh = pitboss_worker::play(
        &settings,
        1_000_000 + again.id,
        &again.preset,
        again.seed,
        again.hands,
        &bot(again.a),
        &bot(again.b),
    )
    .unwrap()
    .stored;
    let kept = again.outcome.as_ref().unwrap();
    assert_eq!(
        (fresh.mean, fresh.se, &fresh.a_stats, &fresh.b_stats),
        (kept.mean, kept.se, &kept.a_stats, &kept.b_stats),
        "match {} re-run from its seed",
        again.id
    );
    let _ = std::fs::remove_dir_all(&data);
}

/// `GET path` with an optional bearer token: (status, body).
fn get(addr: &str, path: &str, token: Option<&str>) -> (u16, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\n{auth}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let status = out
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = out.split_once("\r\n\r\n").map_or("", |x| x.1).to_string();
    (status, body)
}

fn token(data: &Path, name: &str) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args(["token", "create", name, "--data"])
        .arg(data)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap().trim().to_string()
}

fn upload(addr: &str, folder: &Path, token: &str, name: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .arg("upload")
        .arg(folder)
        .args(["--server", &format!("http://{addr}"), "--name", name])
        .env("PITBOSS_TOKEN", token)
        .output()
        .unwrap()
}

fn version_state(addr: &str, bot: &str, n: usize) -> Option<String> {
    let (code, body) = get(addr, &format!("/api/bots/{bot}"), None);
    if code != 200 {
        return None;
    }
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    v["versions"]
        .as_array()?
        .iter()
        .find(|x| x["number"] == n)
        .and_then(|x| x["state"].as_str().map(str::to_string))
}

fn wait_until(what: &str, ok: impl Fn() -> bool) {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(180) {
        if ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    panic!("timed out waiting for {what}");
}

#[test]
fn an_upload_is_checked_plays_and_its_next_version_plays_it_head_to_head() {
    let data = tmp("upload");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(
        data.join("ladder.toml"),
        "presets = [\"27td-fl\", \"stud8-fl\"]\nreferences = [\"call\", \"random\"]\n\
         hands_per_match = 200\ncheck_hands = 20\nworkers = 2\n",
    )
    .unwrap();
    let (mut child, addr) = serve(&data, &[]);
    let alice = token(&data, "alice");
    let bob = token(&data, "bob");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let simple = repo.join("bots/python/simple");

    let o = upload(&addr, &simple, &alice, "simple");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    wait_until("version 1 active", || {
        version_state(&addr, "simple", 1).as_deref() == Some("active")
    });
    // Another account cannot take the name.
    let o = upload(&addr, &simple, &bob, "simple");
    assert_eq!(
        o.status.code(),
        Some(6),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("403"));

    let o = upload(&addr, &simple, &alice, "simple");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    wait_until("version 2 active, version 1 retired", || {
        version_state(&addr, "simple", 2).as_deref() == Some("active")
            && version_state(&addr, "simple", 1).as_deref() == Some("retired")
    });
    wait_until("a head-to-head match of the two versions", || {
        matches(&data)
            .values()
            .any(|m| m.state == MatchState::Done && m.kind == pitboss_store::MatchKind::Predecessor)
    });
    let (_, body) = get(&addr, "/api/bots/simple", None);
    assert!(body.contains("\"predecessor\""), "{body}");

    // A bot that cannot start fails its check, never plays, and only its owner reads the log.
    let broken = data.join("broken-src");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(
        broken.join("bot.toml"),
        "name = \"broken\"\ncommand = [\"python3\", \"bot.py\"]\n",
    )
    .unwrap();
    std::fs::write(
        broken.join("bot.py"),
        "import sys\nprint('<b>broken on purpose</b>', file=sys.stderr)\nsys.exit(3)\n",
    )
    .unwrap();
    let o = upload(&addr, &broken, &alice, "broken");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    wait_until("the broken version failed", || {
        version_state(&addr, "broken", 1).as_deref() == Some("failed")
    });
    let log = "/api/bots/broken/versions/1/log";
    let (code, body) = get(&addr, log, Some(&alice));
    assert_eq!(code, 200, "{body}");
    assert!(
        body.contains("NOT FIT") && body.contains("broken on purpose"),
        "{body}"
    );
    assert_ne!(
        get(&addr, log, Some(&bob)).0,
        200,
        "another account reads the log"
    );
    assert_ne!(get(&addr, log, None).0, 200, "anyone reads the log");
    let broken_id = rt().block_on(async {
        let s = Store::open_dir(&data).await.unwrap();
        let id = s.bot_by_name("broken").await.unwrap().unwrap().id;
        let v = s.versions().await.unwrap();
        s.close().await;
        v.iter().find(|v| v.bot == id).unwrap().id
    });
    assert!(
        matches(&data)
            .values()
            .all(|m| m.a != broken_id && m.b != broken_id),
        "a failed version played"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    let _ = std::fs::remove_dir_all(&data);
}
