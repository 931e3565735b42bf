//! `pitboss token worker create|revoke|list`: worker tokens are rows of the service's database,
//! reached with `--data DIR` (its SQLite) or `--database URL` (PostgreSQL); a data folder's old
//! `worker-tokens` file is moved into the database once, by the command or by `pitboss serve`
//! when it starts.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

fn pitboss() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pitboss"))
}

#[path = "common/tmp.rs"]
mod tmp;
use tmp::Tmp;

/// A temporary folder removed however the test ends.
fn tmp(name: &str) -> Tmp {
    Tmp::new(name)
}

/// `pitboss token worker ARGS… --data DIR [EXTRA…]`: its stdout, or a panic with its stderr.
fn token(args: &[&str], data: &Path, extra: &[&str]) -> String {
    let o = pitboss()
        .args(["token", "worker"])
        .args(args)
        .arg("--data")
        .arg(data)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

fn sha256_hex(s: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Create, list, revoke on a store; `extra` chooses it beside `--data`.
fn lifecycle(data: &Path, extra: &[&str]) {
    let tok = token(&["create", "w1"], data, extra).trim().to_string();
    assert!(tok.starts_with("pbw_"), "{tok}");
    token(&["create", "w2"], data, extra);
    assert_eq!(token(&["list"], data, extra), "w1\nw2\n");
    let again = pitboss()
        .args(["token", "worker", "create", "w1", "--data"])
        .arg(data)
        .args(extra)
        .output()
        .unwrap();
    assert!(!again.status.success(), "a taken name");
    token(&["revoke", "w1"], data, extra);
    assert_eq!(token(&["list"], data, extra), "w2\n");
    let gone = pitboss()
        .args(["token", "worker", "revoke", "w1", "--data"])
        .arg(data)
        .args(extra)
        .output()
        .unwrap();
    assert!(!gone.status.success(), "revoked twice");
}

#[test]
fn worker_tokens_live_in_the_data_folders_database() {
    let d = tmp("sqlite");
    lifecycle(&d.0, &[]);
    assert!(d.0.join("pitboss.db").exists());
    assert!(!d.0.join("worker-tokens").exists(), "no file any more");
}

/// `psql` on the machine's PostgreSQL (`PITBOSS_TEST_POSTGRES`, else the `test` database on
/// 127.0.0.1:5432): whether the statement ran.
fn psql(admin_url: &str, sql: &str) -> bool {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("bin/psql"))
        .filter(|p| p.exists())
        .collect();
    found.sort();
    let bin = found.pop().unwrap_or_else(|| PathBuf::from("psql"));
    Command::new(bin)
        .args([admin_url, "-q", "-v", "ON_ERROR_STOP=1", "-c", sql])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Drops the test's database however the test ends.
struct Database<'a>(&'a str, String);
impl Drop for Database<'_> {
    fn drop(&mut self) {
        psql(
            self.0,
            &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.1),
        );
    }
}

#[test]
fn worker_tokens_live_in_postgres_with_database() {
    let admin_url = std::env::var("PITBOSS_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
    if !psql(&admin_url, "SELECT 1") {
        eprintln!("no PostgreSQL at {admin_url}: skipped");
        return;
    }
    let db = format!("pitboss_wt_test_{}", std::process::id());
    psql(&admin_url, &format!("DROP DATABASE IF EXISTS {db}"));
    assert!(psql(&admin_url, &format!("CREATE DATABASE {db}")));
    let _db = Database(&admin_url, db.clone());
    let url = format!("{}/{db}", admin_url.rsplit_once('/').unwrap().0);
    let d = tmp("postgres");
    lifecycle(&d.0, &["--database", &url]);
    // In PostgreSQL, not in the data folder's SQLite.
    assert_eq!(token(&["list"], &d.0, &[]), "");
    assert_eq!(token(&["list"], &d.0, &["--database", &url]), "w2\n");
}

/// The old file of a data folder: `NAME SHA256` lines.
fn old_file(data: &Path, lines: &[(&str, &str)]) {
    let text: String = lines
        .iter()
        .map(|(n, t)| format!("{n} {}\n", sha256_hex(t)))
        .collect();
    std::fs::write(data.join("worker-tokens"), text).unwrap();
}

#[test]
fn an_old_worker_tokens_file_is_imported_once_by_the_command() {
    let d = tmp("import-cli");
    old_file(&d.0, &[("legacy", "pbw_legacy"), ("other", "pbw_other")]);
    assert_eq!(token(&["list"], &d.0, &[]), "legacy\nother\n");
    assert!(!d.0.join("worker-tokens").exists());
    assert!(d.0.join("worker-tokens.imported").exists());
    token(&["revoke", "other"], &d.0, &[]);
    // Read once: the renamed file does not bring `other` back.
    assert_eq!(token(&["list"], &d.0, &[]), "legacy\n");
}

/// The server, killed however the test ends.
struct Server(Child);
impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `GET path` with a bearer token: the status code.
fn status(addr: &str, path: &str, token: &str) -> u16 {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut r = String::new();
    s.read_to_string(&mut r).unwrap();
    r.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn an_old_worker_tokens_file_is_imported_when_the_server_starts() {
    let d = tmp("import-serve");
    old_file(&d.0, &[("legacy", "pbw_legacy")]);
    // One reference bot and one slot: nothing to pair, the server only serves.
    std::fs::write(d.0.join("ladder.toml"), "references = [\"call\"]\n").unwrap();
    let mut c = pitboss()
        .args(["serve", "--data"])
        .arg(&d.0)
        .args(["--listen", "127.0.0.1:0", "--workers", "1", "--no-sandbox"])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let err = c.stderr.take().unwrap();
    let server = Server(c);
    let mut addr = None;
    for l in BufReader::new(err).lines() {
        let l = l.unwrap();
        if let Some(rest) = l.split("http://").nth(1) {
            addr = Some(rest.split('/').next().unwrap().to_string());
            break;
        }
    }
    let addr = addr.expect("the server said where it listens");
    assert!(!d.0.join("worker-tokens").exists());
    assert!(d.0.join("worker-tokens.imported").exists());
    // The imported token opens the bundle download (404: no such bundle), a forged one does not.
    let path = format!("/api/bundles/{}", "0".repeat(64));
    assert_eq!(status(&addr, &path, "pbw_legacy"), 404);
    assert_eq!(status(&addr, &path, "pbw_forged"), 401);
    drop(server);
    assert_eq!(token(&["list"], &d.0, &[]), "legacy\n");
}
