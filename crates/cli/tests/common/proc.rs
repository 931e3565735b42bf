//! Child processes: killed when the test ends however it ends (a failing assertion must not
//! leave a server or a worker playing on), their stderr read line by line.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A child process, SIGKILLed and reaped when dropped.
pub struct Killed(pub Child);

impl std::ops::Deref for Killed {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl std::ops::DerefMut for Killed {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Killed {
    /// SIGKILL now, and wait for its end.
    pub fn kill_now(&mut self) {
        self.0.kill().unwrap();
        let _ = self.0.wait();
    }
}

/// The `pitboss` binary of this build.
pub fn pitboss() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pitboss"))
}

/// Starts `c`; its stderr lines go to the returned channel (read on even when the receiver is
/// dropped, so the child never blocks on a full pipe).
pub fn spawn(mut c: Command) -> (Killed, mpsc::Receiver<String>) {
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
    (Killed(child), rx)
}

/// The first line that `what` accepts, within `secs` seconds; panics with the lines seen.
pub fn wait_line(rx: &mpsc::Receiver<String>, what: impl Fn(&str) -> bool, secs: u64) -> String {
    let end = Instant::now() + Duration::from_secs(secs);
    let mut seen = Vec::new();
    while Instant::now() < end {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(l) if what(&l) => return l,
            Ok(l) => seen.push(l),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                panic!("the process ended; it said: {seen:#?}")
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
    }
    panic!("no such line within {secs} s; seen: {seen:#?}");
}

/// `pitboss serve --data DATA --listen 127.0.0.1:0 EXTRA…` once it listens: the process and its
/// address (`127.0.0.1:PORT`).
pub fn serve(data: &Path, extra: &[&str]) -> (Killed, String) {
    let mut c = pitboss();
    c.args(["serve", "--data"])
        .arg(data)
        .args(["--listen", "127.0.0.1:0"])
        .args(extra);
    let (child, rx) = spawn(c);
    let l = wait_line(&rx, |l| l.contains("http://"), 60);
    let addr = l
        .split("http://")
        .nth(1)
        .unwrap()
        .split('/')
        .next()
        .unwrap();
    (child, addr.to_string())
}

/// `pitboss worker` of the server at `addr` on the queue `url` with stream prefix `prefix`,
/// caching in `cache`; its stderr lines.
pub fn worker(
    url: &str,
    prefix: &str,
    addr: &str,
    token: &str,
    name: &str,
    cache: &Path,
    extra: &[&str],
) -> (Killed, mpsc::Receiver<String>) {
    let mut c = pitboss();
    c.args(["worker", "--queue", url, "--stream", prefix])
        .args(["--server", &format!("http://{addr}"), "--token", token])
        .args(["--name", name, "--no-sandbox", "--cache"])
        .arg(cache)
        .args(extra);
    spawn(c)
}

/// A worker token (`pitboss token worker create NAME --data DATA EXTRA…`).
pub fn worker_token(data: &Path, name: &str, extra: &[&str]) -> String {
    let o = pitboss()
        .args(["token", "worker", "create", name, "--data"])
        .arg(data)
        .args(extra)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap().trim().to_string()
}

/// `GET path` with an optional bearer token: (status, body).
pub fn http_get(addr: &str, path: &str, token: Option<&str>) -> (u16, Vec<u8>) {
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

/// [`http_get`] with the body as text.
pub fn get_text(addr: &str, path: &str, token: Option<&str>) -> (u16, String) {
    let (s, b) = http_get(addr, path, token);
    (s, String::from_utf8(b).unwrap())
}
