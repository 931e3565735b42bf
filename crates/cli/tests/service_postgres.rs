//! `pitboss serve --database postgres://…` on a private PostgreSQL server of the test's own
//! (initdb into a temporary folder, a free port): the server plays on while PostgreSQL is stopped
//! and started again (results wait and are written when it is back), then survives a SIGKILL —
//! no finished match lost or changed, none counted twice, no match failed.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pitboss_store::{Match, MatchState, Store};

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
    let d = std::env::temp_dir().join(format!("pitboss-pg-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// The PostgreSQL programs (Debian keeps them in /usr/lib/postgresql/VERSION/bin).
fn pg_bin(prog: &str) -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL's programs in /usr/lib/postgresql (apt-get install postgresql)")
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("bin").join(prog))
        .filter(|p| p.exists())
        .collect();
    found.sort();
    found.pop().unwrap_or_else(|| panic!("{prog} not found"))
}

fn is_root() -> bool {
    // SAFETY: getuid has no preconditions.
    unsafe { libc::getuid() == 0 }
}

/// Runs a PostgreSQL program as the `postgres` user when we are root (initdb refuses root).
fn pg(prog: &str, args: &[&str]) -> std::process::Output {
    let mut c = if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(pg_bin(prog));
        c
    } else {
        Command::new(pg_bin(prog))
    };
    c.args(args).output().unwrap()
}

struct Postgres {
    dir: PathBuf,
    port: u16,
}

impl Postgres {
    fn new(name: &str) -> Postgres {
        let dir = tmp(name);
        std::fs::create_dir_all(&dir).unwrap();
        if is_root() {
            assert!(Command::new("chown")
                .args(["postgres:postgres"])
                .arg(&dir)
                .status()
                .unwrap()
                .success());
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let data = dir.join("data");
        let o = pg(
            "initdb",
            &[
                "-D",
                data.to_str().unwrap(),
                "-A",
                "trust",
                "-U",
                "postgres",
            ],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let p = Postgres { dir, port };
        p.start();
        p
    }

    fn start(&self) {
        let data = self.dir.join("data");
        let opts = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1",
            self.port,
            self.dir.display()
        );
        let log = self.dir.join("log");
        let o = pg(
            "pg_ctl",
            &[
                "-D",
                data.to_str().unwrap(),
                "-o",
                &opts,
                "-l",
                log.to_str().unwrap(),
                "-w",
                "start",
            ],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }

    fn stop(&self) {
        let data = self.dir.join("data");
        let o = pg(
            "pg_ctl",
            &[
                "-D",
                data.to_str().unwrap(),
                "-m",
                "immediate",
                "-w",
                "stop",
            ],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }

    fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let data = self.dir.join("data");
        let _ = pg(
            "pg_ctl",
            &[
                "-D",
                data.to_str().unwrap(),
                "-m",
                "immediate",
                "-w",
                "stop",
            ],
        );
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn serve(data: &Path, url: &str) -> Server {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args(["serve", "--data"])
        .arg(data)
        .args([
            "--database",
            url,
            "--listen",
            "127.0.0.1:0",
            "--hands-per-match",
            "400",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(c.stderr.take().unwrap()).lines();
    let mut said = Vec::new();
    loop {
        let l = lines
            .next()
            .unwrap_or_else(|| panic!("serve printed no address: {said:?}"))
            .unwrap();
        if l.contains("http://") {
            break;
        }
        said.push(l);
    }
    std::thread::spawn(move || for _ in lines {});
    Server(c)
}

fn matches(url: &str) -> Option<BTreeMap<i64, Match>> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let s = Store::open(url).await.ok()?;
        let all = s.recent_matches(None, 1_000_000).await.ok()?;
        s.close().await;
        Some(all.into_iter().map(|m| (m.id, m)).collect())
    })
}

fn done(all: &BTreeMap<i64, Match>) -> BTreeMap<i64, Match> {
    all.iter()
        .filter(|(_, m)| m.state == MatchState::Done)
        .map(|(k, v)| (*k, v.clone()))
        .collect()
}

fn wait_for(url: &str, what: &str, ok: impl Fn(&BTreeMap<i64, Match>) -> bool) {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(120) {
        if matches(url).is_some_and(|m| ok(&m)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("timed out waiting for {what}");
}

#[test]
fn postgres_restarted_under_a_playing_server_and_a_sigkill_lose_nothing() {
    let pgs = Postgres::new("db");
    let url = pgs.url();
    let data = tmp("data");
    let mut child = serve(&data, &url);
    wait_for(&url, "matches to finish", |m| done(m).len() >= 5);
    let before = done(&matches(&url).unwrap());
    pgs.stop();
    // The server plays on; its results wait for the database.
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the server died with PostgreSQL"
    );
    pgs.start();
    wait_for(&url, "matches after the restart", |m| {
        done(m).len() >= before.len() + 5
    });
    let after = matches(&url).unwrap();
    for (id, m) in &before {
        assert_eq!(after.get(id), Some(m), "match {id} changed or vanished");
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let cut: Vec<i64> = matches(&url)
        .unwrap()
        .values()
        .filter(|m| m.state == MatchState::Running)
        .map(|m| m.id)
        .collect();
    let mut child = serve(&data, &url);
    wait_for(&url, "the interrupted matches", |m| {
        cut.iter()
            .all(|id| m.get(id).is_some_and(|x| x.state == MatchState::Done))
    });
    child.kill().unwrap();
    child.wait().unwrap();
    let all = matches(&url).unwrap();
    assert!(
        all.values().all(|m| m.state != MatchState::Failed),
        "a match failed: {:?}",
        all.values().find(|m| m.state == MatchState::Failed)
    );
    for m in done(&all).values() {
        assert_eq!(m.outcome.as_ref().unwrap().played, 400, "match {}", m.id);
    }
    let _ = std::fs::remove_dir_all(&data);
}
