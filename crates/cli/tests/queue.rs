//! `pitboss serve --queue` with `pitboss worker`s on real NATS JetStream (no mocks): the machine's
//! NATS at 127.0.0.1:4222 with a stream prefix of each test's own, and a private `nats-server`
//! for the test that stops it. Each run plays a fixed list of matches (`plan = false`, matches
//! inserted with fixed seeds) and its results — per match: mean, standard error, statistics —
//! must equal a fault-free run of the same matches by `pitboss serve`'s local workers.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use pitboss_store::{Match, MatchKind, MatchState, NewMatch, Store};

const NATS: &str = "nats://127.0.0.1:4222";
const SECRET: &str = "5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed";

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pitboss-q-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn prefix(name: &str) -> String {
    format!("t{}_{name}", std::process::id())
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A data folder with the fixed secret, `plan = false`, and `seeds.len()` matches of `hands`.
fn prepare(data: &Path, seeds: &[i64], hands: i64) {
    std::fs::create_dir_all(data).unwrap();
    std::fs::write(data.join("secret"), SECRET).unwrap();
    std::fs::write(
        data.join("ladder.toml"),
        "plan = false\npresets = [\"27td-fl\", \"stud8-nl\"]\nreferences = [\"call\", \"raise\"]\n\
         history_hands = 4\n",
    )
    .unwrap();
    rt().block_on(async {
        let s = Store::open_dir(data).await.unwrap();
        let a = s.ensure_reference("call").await.unwrap().id;
        let b = s.ensure_reference("raise").await.unwrap().id;
        for (i, seed) in seeds.iter().enumerate() {
            s.create_match(&NewMatch {
                preset: if i % 2 == 0 { "27td-fl" } else { "stud8-nl" }.into(),
                kind: MatchKind::Ladder,
                a,
                b,
                seed: *seed,
                hands,
            })
            .await
            .unwrap();
        }
        s.close().await;
    });
}

fn matches(data: &Path) -> BTreeMap<i64, Match> {
    rt().block_on(async {
        let s = Store::open_dir(data).await.unwrap();
        let all = s.recent_matches(None, 100_000).await.unwrap();
        s.close().await;
        all.into_iter().map(|m| (m.id, m)).collect()
    })
}

fn wait_for(data: &Path, what: &str, secs: u64, ok: impl Fn(&BTreeMap<i64, Match>) -> bool) {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(secs) {
        if ok(&matches(data)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    panic!("timed out waiting for {what}: {:#?}", matches(data));
}

fn all_done(n: usize) -> impl Fn(&BTreeMap<i64, Match>) -> bool {
    move |m| m.values().filter(|m| m.state == MatchState::Done).count() == n
}

/// What must not differ between two runs of a match: seed, preset, mean, standard error, raw
/// mean, units, hands, both bots' statistics.
type Row = (i64, String, f64, f64, f64, i64, i64, String, String);

/// Every match's [`Row`].
fn results(data: &Path) -> Vec<Row> {
    matches(data)
        .values()
        .map(|m| {
            assert_eq!(m.state, MatchState::Done, "match {}: {}", m.id, m.error);
            let o = m.outcome.clone().unwrap();
            (
                m.seed,
                m.preset.clone(),
                o.mean,
                o.se,
                o.raw_mean,
                o.units,
                o.played,
                o.a_stats,
                o.b_stats,
            )
        })
        .collect()
}

/// Counts on the store: done, and hands in all (a match counted twice would show in neither
/// the rows, which are one per match, nor — this is the check — anywhere else).
fn counts(data: &Path) -> pitboss_store::QueueCounts {
    rt().block_on(async {
        let s = Store::open_dir(data).await.unwrap();
        let c = s.counts().await.unwrap();
        s.close().await;
        c
    })
}

/// A child's stderr lines, forwarded to a channel (and the child).
fn spawn(mut c: Command) -> (Child, mpsc::Receiver<String>) {
    let mut child = c
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for l in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    (child, rx)
}

fn wait_line(rx: &mpsc::Receiver<String>, what: impl Fn(&str) -> bool, secs: u64) -> String {
    let end = Instant::now() + Duration::from_secs(secs);
    let mut seen = Vec::new();
    while Instant::now() < end {
        if let Ok(l) = rx.recv_timeout(Duration::from_millis(200)) {
            if what(&l) {
                return l;
            }
            seen.push(l);
        }
    }
    panic!("no such line; seen: {seen:#?}");
}

fn pitboss() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pitboss"))
}

/// `pitboss serve` (on the queue when `queue` is given); returns it and its address.
fn serve(data: &Path, queue: Option<(&str, &str)>, extra: &[&str]) -> (Child, String) {
    let mut c = pitboss();
    c.args(["serve", "--data"])
        .arg(data)
        .args(["--listen", "127.0.0.1:0", "--no-sandbox"])
        .args(extra);
    if let Some((url, p)) = queue {
        c.args(["--queue", url, "--stream", p]);
    }
    let (child, rx) = spawn(c);
    let l = wait_line(&rx, |l| l.contains("http://"), 60);
    let addr = l
        .split("http://")
        .nth(1)
        .unwrap()
        .split('/')
        .next()
        .unwrap();
    std::thread::spawn(move || for _ in rx {});
    (child, addr.to_string())
}

fn worker_token(data: &Path, name: &str) -> String {
    let o = pitboss()
        .args(["token", "worker", "create", name, "--data"])
        .arg(data)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap().trim().to_string()
}

fn worker(
    queue: &str,
    p: &str,
    addr: &str,
    token: &str,
    name: &str,
    extra: &[&str],
) -> (Child, mpsc::Receiver<String>) {
    let mut c = pitboss();
    c.args(["worker", "--queue", queue, "--stream", p])
        .args(["--server", &format!("http://{addr}"), "--token", token])
        .args(["--name", name, "--no-sandbox", "--cache"])
        .arg(std::env::temp_dir().join(format!("pitboss-q-{}-cache-{name}", std::process::id())))
        .args(extra);
    spawn(c)
}

/// The fault-free run: the same matches on `pitboss serve`'s local workers.
fn baseline(name: &str, seeds: &[i64], hands: i64) -> Vec<Row> {
    let data = tmp(&format!("{name}-base"));
    prepare(&data, seeds, hands);
    let (mut s, _) = serve(&data, None, &["--workers", "2"]);
    wait_for(&data, "the fault-free run", 300, all_done(seeds.len()));
    s.kill().unwrap();
    let _ = s.wait();
    results(&data)
}

struct Killed(Vec<Child>);
impl Drop for Killed {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

#[test]
fn a_worker_killed_mid_match_loses_nothing_and_counts_nothing_twice() {
    let seeds = [11, 12, 13];
    // The reference bots are quick (some 100,000 hands a second): long enough to be killed in.
    let hands = 400_000;
    let want = baseline("kill", &seeds, hands);
    let data = tmp("kill");
    prepare(&data, &seeds, hands);
    let p = prefix("kill");
    let (s, addr) = serve(&data, Some((NATS, &p)), &["--ack-wait", "2"]);
    let mut procs = Killed(vec![s]);
    let tok = worker_token(&data, "w");
    let (mut a, arx) = worker(NATS, &p, &addr, &tok, "a", &["--slots", "1"]);
    let l = wait_line(&arx, |l| l.contains("(delivery 1): running"), 60);
    let id: String = l
        .split("match ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .into();
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        matches(&data)[&id.parse::<i64>().unwrap()].state != MatchState::Done,
        "the match ended before the kill; make it longer"
    );
    a.kill().unwrap(); // SIGKILL, mid-match
    let _ = a.wait();
    let (b, brx) = worker(NATS, &p, &addr, &tok, "b", &["--slots", "2"]);
    procs.0.push(b);
    // The killed worker's job comes to the other one after the ack wait.
    wait_line(
        &brx,
        |l| l.contains(&format!("match {id} (delivery 2)")),
        120,
    );
    wait_for(&data, "every match", 300, all_done(seeds.len()));
    assert_eq!(
        results(&data),
        want,
        "the run with a kill differs from the fault-free one"
    );
    let c = counts(&data);
    assert_eq!((c.done, c.failed, c.running, c.queued), (3, 0, 0, 0));
    assert_eq!(c.hands_total, hands * seeds.len() as i64);
    // The hand viewer has each match's hands, sent along with the results.
    for id in matches(&data).keys() {
        assert!(data.join(format!("hands/{id}.phhs.zst")).is_file());
    }
}

/// A private nats-server on a free port, storing in `dir`.
fn nats_server(port: u16, dir: &Path) -> Child {
    let c = Command::new("nats-server")
        .args(["-js", "-a", "127.0.0.1", "-p", &port.to_string(), "-sd"])
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("nats-server on the PATH");
    let t = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "nats-server did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    c
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn nats_stopped_and_restarted_loses_nothing() {
    let seeds = [21, 22, 23, 24];
    let hands = 200_000;
    let want = baseline("restart", &seeds, hands);
    let data = tmp("restart");
    prepare(&data, &seeds, hands);
    let store = tmp("restart-nats");
    let port = free_port();
    let url = format!("nats://127.0.0.1:{port}");
    let mut n = nats_server(port, &store);
    let (s, addr) = serve(&data, Some((&url, "r")), &["--ack-wait", "3"]);
    let mut procs = Killed(vec![s]);
    let tok = worker_token(&data, "w");
    let (w, wrx) = worker(&url, "r", &addr, &tok, "w", &["--slots", "2"]);
    procs.0.push(w);
    wait_line(&wrx, |l| l.contains("running"), 60);
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        !all_done(seeds.len())(&matches(&data)),
        "every match ended before NATS stopped; make them longer"
    );
    // Stop NATS (SIGTERM: its own shutdown) while matches play, and start it again.
    unsafe { libc::kill(n.id() as i32, libc::SIGTERM) };
    let _ = n.wait();
    std::thread::sleep(Duration::from_secs(3));
    let n2 = nats_server(port, &store);
    procs.0.push(n2);
    wait_for(
        &data,
        "every match after the restart",
        300,
        all_done(seeds.len()),
    );
    assert_eq!(
        results(&data),
        want,
        "the run across a NATS restart differs"
    );
    let c = counts(&data);
    assert_eq!((c.done, c.failed), (4, 0));
    assert_eq!(c.hands_total, hands * seeds.len() as i64);
}

#[test]
fn a_worker_on_another_engine_refuses_and_the_job_is_parked() {
    let data = tmp("old");
    prepare(&data, &[31], 200);
    let p = prefix("old");
    let (s, addr) = serve(
        &data,
        Some((NATS, &p)),
        &["--ack-wait", "2", "--max-attempts", "2"],
    );
    let mut procs = Killed(vec![s]);
    let tok = worker_token(&data, "w");
    let (w, rx) = worker(
        NATS,
        &p,
        &addr,
        &tok,
        "old",
        &["--engine-version", "0.0.1+engine.0"],
    );
    procs.0.push(w);
    let l = wait_line(&rx, |l| l.contains("refused"), 60);
    assert!(l.contains("0.0.1+engine.0") && l.contains("engine"), "{l}");
    wait_for(&data, "the parked match's failure", 120, |m| {
        m.values().all(|m| m.state == MatchState::Failed)
    });
    let m = matches(&data).into_values().next().unwrap();
    assert!(m.error.contains("parked"), "{}", m.error);
    assert!(m.error.contains("refused by worker old"), "{}", m.error);
    assert!(m.error.contains("0.0.1+engine.0"), "{}", m.error);
    assert!(m.outcome.is_none(), "a refused job is never played");
    assert!(!data.join(format!("hands/{}.phhs.zst", m.id)).exists());
    // The operator sees why.
    let page = String::from_utf8(http_get(&addr, "/operator", None).1).unwrap();
    assert!(page.contains("parked"), "{page}");
}

#[test]
fn a_job_whose_workers_all_vanish_is_parked_after_its_attempts() {
    let data = tmp("park");
    prepare(&data, &[41], 60_000);
    let p = prefix("park");
    let (s, addr) = serve(
        &data,
        Some((NATS, &p)),
        &["--ack-wait", "1", "--max-attempts", "2"],
    );
    let _procs = Killed(vec![s]);
    let tok = worker_token(&data, "w");
    for attempt in 1..=2 {
        let (mut w, rx) = worker(NATS, &p, &addr, &tok, &format!("w{attempt}"), &[]);
        wait_line(
            &rx,
            |l| l.contains(&format!("(delivery {attempt}): running")),
            60,
        );
        w.kill().unwrap();
        let _ = w.wait();
    }
    let (mut w, rx) = worker(NATS, &p, &addr, &tok, "w3", &[]);
    let l = wait_line(&rx, |l| l.contains("parked"), 60);
    assert!(l.contains("delivered 3 times"), "{l}");
    wait_for(&data, "the parked match's failure", 60, |m| {
        m.values().all(|m| m.state == MatchState::Failed)
    });
    let m = matches(&data).into_values().next().unwrap();
    assert!(
        m.error.contains("delivered 3 times without a result"),
        "{}",
        m.error
    );
    let _ = w.kill();
    let _ = w.wait();
}

fn http_get(addr: &str, path: &str, token: Option<&str>) -> (u16, Vec<u8>) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let mut r = agent.get(&format!("http://{addr}{path}"));
    if let Some(t) = token {
        r = r.header("Authorization", format!("Bearer {t}"));
    }
    let mut res = r.call().unwrap();
    let status = res.status().as_u16();
    (status, res.body_mut().read_to_vec().unwrap())
}

#[test]
fn bundles_are_served_to_worker_tokens_only() {
    use sha2::Digest;
    let data = tmp("bundles");
    prepare(&data, &[], 2);
    let bytes = b"not really a bundle".to_vec();
    let sha = hex_of(&sha2::Sha256::digest(&bytes));
    pitboss_store::Files::new(&data)
        .unwrap()
        .put_bundle(&sha, &bytes)
        .unwrap();
    let author = rt().block_on(async {
        let s = Store::open_dir(&data).await.unwrap();
        s.create_account("alice", 10, 1 << 20).await.unwrap().1
    });
    let (s, addr) = serve(&data, None, &[]);
    let _procs = Killed(vec![s]);
    let tok = worker_token(&data, "w");
    let path = format!("/api/bundles/{sha}");
    assert_eq!(http_get(&addr, &path, None).0, 401);
    assert_eq!(
        http_get(&addr, &path, Some(&author)).0,
        401,
        "an author's token"
    );
    assert_eq!(http_get(&addr, &path, Some("pbw_forged")).0, 401);
    assert_eq!(http_get(&addr, &path, Some(&tok)), (200, bytes));
    assert_eq!(
        http_get(&addr, "/api/bundles/..%2f..%2fsecret", Some(&tok)).0,
        400
    );
    assert_eq!(
        http_get(
            &addr,
            &format!("/api/bundles/{}", "0".repeat(64)),
            Some(&tok)
        )
        .0,
        404
    );
    // Revoked: no more.
    let o = pitboss()
        .args(["token", "worker", "revoke", "w", "--data"])
        .arg(&data)
        .output()
        .unwrap();
    assert!(o.status.success());
    assert_eq!(http_get(&addr, &path, Some(&tok)).0, 401);
}

fn hex_of(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
