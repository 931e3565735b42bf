//! One running bot process: spawned in its own process group with piped stdio, stderr drained to
//! a capped log, every exchange a `tokio::select!` over the reply line, the process's exit and the
//! deadline; termination closes stdin, then SIGTERM → grace → SIGKILL to the whole group, and
//! reaps everything (the referee is a child subreaper, so even grandchildren are reaped).
//!
//! Each session owns a small current-thread Tokio runtime: the referee loop is synchronous and
//! calls `block_on` from its worker thread, so the pipes are polled on that same thread with no
//! cross-thread wake-up per message (measured: see `EXTERNAL-BENCH.md`).

use std::collections::BTreeSet;
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pitboss_protocol::{FaultKind, FromBot, Hello, PROTOCOL_VERSION};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, ChildStdout};

use super::lines::{LineError, LineReader};
use super::sandbox::{ChildSandbox, Plan};
use crate::player::Fault;

/// Grace between closing stdin and SIGTERM, and between SIGTERM and SIGKILL.
pub const GRACE: Duration = Duration::from_millis(500);
/// How much of an offending line is kept in the bot log and fault details.
pub const SHOWN: usize = 300;

static LIVE: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

/// Kills every live bot process group (for a Ctrl-C handler). Safe to call from any thread.
pub fn kill_all() {
    let groups: Vec<i32> = LIVE
        .lock()
        .map(|g| g.iter().copied().collect())
        .unwrap_or_default();
    for g in groups {
        // SAFETY: plain syscalls on a process group we created.
        unsafe {
            libc::kill(-g, libc::SIGKILL);
            libc::kill(-g, libc::SIGCONT);
        }
    }
}

/// Process groups of bots currently alive (for tests and diagnostics).
pub fn live_groups() -> Vec<i32> {
    LIVE.lock()
        .map(|g| g.iter().copied().collect())
        .unwrap_or_default()
}

/// Makes this process the reaper of its orphaned descendants, so a bot's grandchildren are
/// reaped by us, not left to an init that may not reap.
pub fn become_subreaper() {
    // SAFETY: prctl with integer arguments.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// A size-capped log file shared by all processes of one bot.
pub struct BotLog {
    file: Option<File>,
    written: u64,
    cap: u64,
    dropped: u64,
}

impl BotLog {
    pub fn new(path: Option<PathBuf>, cap: u64) -> BotLog {
        BotLog {
            file: path.and_then(|p| File::create(p).ok()),
            written: 0,
            cap,
            dropped: 0,
        }
    }

    pub fn write(&mut self, bytes: &[u8]) {
        let room = self.cap.saturating_sub(self.written) as usize;
        let n = bytes.len().min(room);
        if let Some(f) = self.file.as_mut() {
            let _ = f.write_all(&bytes[..n]);
        }
        self.written += n as u64;
        self.dropped += (bytes.len() - n) as u64;
    }

    /// A referee note (always written, even past the cap, but short).
    pub fn note(&mut self, s: &str) {
        if let Some(f) = self.file.as_mut() {
            let _ = writeln!(f, "[pitboss] {s}");
        }
    }

    pub fn close(&mut self) {
        if self.dropped > 0 {
            let d = self.dropped;
            self.note(&format!(
                "{d} more bytes of stderr dropped (log cap reached)"
            ));
            self.dropped = 0;
        }
    }
}

/// The last bytes of a bot's stderr, for crash reports.
#[derive(Default)]
pub struct Tail(Vec<u8>);

impl Tail {
    fn push(&mut self, b: &[u8]) {
        const KEEP: usize = 2048;
        self.0.extend_from_slice(&b[b.len().saturating_sub(KEEP)..]);
        if self.0.len() > KEEP {
            self.0.drain(..self.0.len() - KEEP);
        }
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0).trim_end().to_string()
    }
}

/// Everything needed to start one process of a bot.
#[derive(Clone)]
pub struct Launch {
    pub command: Vec<String>,
    pub dir: PathBuf,
    pub memory_mb: Option<u64>,
    pub cpu_seconds: Option<u64>,
    /// Paths the bot may read, and its scratch directory (`None`: no sandbox).
    pub sandbox: Option<(Vec<PathBuf>, PathBuf)>,
    pub startup: Duration,
    pub freeze_idle: bool,
    pub transcript: Option<PathBuf>,
    pub log: Arc<Mutex<BotLog>>,
}

/// A line for logs: at most [`SHOWN`] bytes, lossily decoded.
pub fn shown(line: &[u8]) -> String {
    let cut = &line[..line.len().min(SHOWN)];
    let mut s = String::from_utf8_lossy(cut).into_owned();
    if line.len() > SHOWN {
        s.push_str(&format!("… ({} bytes)", line.len()));
    }
    s
}

fn describe(st: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (st.code(), st.signal()) {
        (Some(c), _) => format!("exited with status {c}"),
        (_, Some(s)) => format!("killed by signal {s}"),
        _ => format!("{st}"),
    }
}

/// The I/O half of a session (borrowed disjointly from its runtime).
struct Io {
    child: Child,
    pgid: i32,
    stdin: Option<ChildStdin>,
    reader: LineReader<ChildStdout>,
    exited: Option<ExitStatus>,
    tail: Arc<Mutex<Tail>>,
    log: Arc<Mutex<BotLog>>,
    transcript: Option<std::io::BufWriter<File>>,
    born: Instant,
    freeze_idle: bool,
    frozen: bool,
    stderr_task: Option<tokio::task::JoinHandle<()>>,
    /// Notifications not yet written: they go out with the next request, in one write.
    pending: Vec<u8>,
}

/// Notifications are held back until the next request or this many bytes.
const COALESCE: usize = 32 * 1024;

/// What came back.
enum Got {
    Line,
    Read(LineError),
    Exit(std::io::Result<ExitStatus>),
    Deadline,
}

/// Whether a fault leaves the process unusable (it is then killed and restarted next hand).
pub fn is_fatal(kind: FaultKind) -> bool {
    matches!(
        kind,
        FaultKind::Crash | FaultKind::ClosedStdout | FaultKind::LineTooLong | FaultKind::Handshake
    )
}

impl Io {
    fn signal(&self, sig: i32) {
        // SAFETY: a signal to the bot's own process group.
        unsafe {
            libc::kill(-self.pgid, sig);
        }
    }

    fn record(&mut self, dir: char, bytes: &[u8]) {
        if let Some(t) = self.transcript.as_mut() {
            let us = self.born.elapsed().as_micros();
            let _ = write!(t, "{us} {dir} ");
            let _ = t.write_all(&bytes[..bytes.len().min(64 * 1024)]);
            if !bytes.ends_with(b"\n") {
                let _ = t.write_all(b"\n");
            }
        }
    }

    /// After an exit: lets the stderr drain finish (it ends when the pipe closes), so that a crash
    /// report carries the last words of the bot.
    async fn drain_stderr(&mut self) {
        if let Some(t) = self.stderr_task.take() {
            let _ = tokio::time::timeout(Duration::from_millis(300), t).await;
        }
    }

    fn crash_fault(&self, what: &str) -> Fault {
        let status = self
            .exited
            .map_or_else(String::new, |s| format!(" ({})", describe(s)));
        let tail = self.tail.lock().map(|t| t.text()).unwrap_or_default();
        let tail = if tail.is_empty() {
            String::new()
        } else {
            let t: Vec<&str> = tail.lines().rev().take(5).collect();
            let t: Vec<&str> = t.into_iter().rev().collect();
            format!("; stderr tail: {}", t.join(" | "))
        };
        Fault::new(FaultKind::Crash, format!("{what}{status}{tail}"))
    }

    /// Writes `msg` (one line, newline included); with `expect = Some(id)` waits for the reply
    /// with that id until `deadline`. Returns the elapsed time from the write to the reply.
    async fn exchange(
        &mut self,
        msg: &[u8],
        expect: Option<u64>,
        budget: Duration,
    ) -> Result<Option<(FromBot, Duration)>, Fault> {
        let start = Instant::now();
        let deadline = tokio::time::Instant::now() + budget;
        self.record('>', msg);
        self.pending.extend_from_slice(msg);
        if expect.is_none() && self.pending.len() < COALESCE {
            return Ok(None);
        }
        if self.frozen {
            self.signal(libc::SIGCONT);
            self.frozen = false;
        }
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(self.crash_fault("input already closed"));
        };
        let wrote = tokio::select! {
            r = stdin.write_all(&self.pending) => Some(r),
            _ = tokio::time::sleep_until(deadline) => None,
        };
        self.pending.clear();
        match wrote {
            Some(Ok(())) => {}
            Some(Err(_)) => {
                if self.exited.is_none() {
                    if let Ok(Ok(st)) =
                        tokio::time::timeout(Duration::from_millis(200), self.child.wait()).await
                    {
                        self.exited = Some(st);
                    }
                }
                self.drain_stderr().await;
                return Err(self.crash_fault("the bot stopped reading its input"));
            }
            None => {
                return Err(Fault::new(
                    FaultKind::Timeout,
                    "the bot does not read its input",
                ))
            }
        }
        let Some(id) = expect else {
            self.freeze();
            return Ok(None);
        };
        loop {
            let got = tokio::select! {
                biased;
                r = self.reader.next_line() => match r { Ok(()) => Got::Line, Err(e) => Got::Read(e) },
                st = self.child.wait(), if self.exited.is_none() => Got::Exit(st),
                _ = tokio::time::sleep_until(deadline) => Got::Deadline,
            };
            match got {
                Got::Line => {
                    let line = self.reader.line().to_vec();
                    self.record('<', &line);
                    match serde_json::from_slice::<FromBot>(&line) {
                        Ok(reply) => {
                            let rid = match &reply {
                                FromBot::Hello(h) => h.id,
                                FromBot::Action(a) => a.id,
                            };
                            if rid == id {
                                self.freeze();
                                return Ok(Some((reply, start.elapsed())));
                            }
                            if rid < id {
                                self.note(&format!(
                                    "late reply to request {rid} discarded: {}",
                                    shown(&line)
                                ));
                                continue;
                            }
                            let f = Fault::new(
                                FaultKind::Malformed,
                                format!(
                                    "reply id {rid} answers no request (expected {id}): {}",
                                    shown(&line)
                                ),
                            );
                            self.note(&f.to_string());
                            return Err(f);
                        }
                        Err(e) => {
                            let f = classify(&line, &e);
                            self.note(&f.to_string());
                            return Err(f);
                        }
                    }
                }
                Got::Read(LineError::TooLong) => {
                    let f = Fault::new(
                        FaultKind::LineTooLong,
                        format!(
                            "a line longer than {} bytes (starts: {})",
                            pitboss_protocol::MAX_LINE,
                            shown(self.reader.head())
                        ),
                    );
                    self.note(&f.detail);
                    return Err(f);
                }
                Got::Read(LineError::Eof) => {
                    if self.exited.is_none() {
                        if let Ok(Ok(st)) =
                            tokio::time::timeout(Duration::from_millis(200), self.child.wait())
                                .await
                        {
                            self.exited = Some(st);
                        }
                    }
                    if self.exited.is_some() {
                        self.drain_stderr().await;
                        return Err(self.crash_fault("the bot exited"));
                    }
                    return Err(Fault::new(
                        FaultKind::ClosedStdout,
                        "the bot closed its stdout but is still running",
                    ));
                }
                Got::Read(LineError::Io(e)) => {
                    return Err(self.crash_fault(&format!("reading its output: {e}")))
                }
                Got::Exit(st) => {
                    self.exited = st.ok();
                    self.drain_stderr().await;
                    return Err(self.crash_fault("the bot exited"));
                }
                Got::Deadline => {
                    return Err(Fault::new(
                        FaultKind::Timeout,
                        format!("no reply within {} ms", budget.as_millis()),
                    ))
                }
            }
        }
    }

    fn freeze(&mut self) {
        if self.freeze_idle && !self.frozen {
            self.signal(libc::SIGSTOP);
            self.frozen = true;
        }
    }

    fn note(&self, s: &str) {
        if let Ok(mut l) = self.log.lock() {
            l.note(s);
        }
    }

    /// Closes stdin, waits, escalates, reaps.
    async fn terminate(&mut self, goodbye: Option<&[u8]>) {
        if self.frozen {
            self.signal(libc::SIGCONT);
            self.frozen = false;
        }
        if let (Some(msg), Some(stdin)) = (goodbye, self.stdin.as_mut()) {
            self.pending.extend_from_slice(msg);
            let _ =
                tokio::time::timeout(Duration::from_millis(100), stdin.write_all(&self.pending))
                    .await;
            self.record('>', msg);
        }
        self.stdin = None;
        if self.exited.is_none() && goodbye.is_some() {
            if let Ok(Ok(st)) = tokio::time::timeout(GRACE, self.child.wait()).await {
                self.exited = Some(st);
            }
        }
        if self.exited.is_none() {
            self.signal(libc::SIGTERM);
            if let Ok(Ok(st)) = tokio::time::timeout(GRACE, self.child.wait()).await {
                self.exited = Some(st);
            }
        }
        // Always: whatever else is left in the group (forked children) goes too.
        self.signal(libc::SIGKILL);
        if self.exited.is_none() {
            self.exited = self.child.wait().await.ok();
        }
        if let Some(t) = self.stderr_task.take() {
            let _ = tokio::time::timeout(Duration::from_millis(200), t).await;
        }
        if let Some(t) = self.transcript.as_mut() {
            let _ = t.flush();
        }
    }
}

/// A bad line: not JSON or not a message of this protocol (malformed), or a message type this
/// protocol does not have (unknown message).
fn classify(line: &[u8], e: &serde_json::Error) -> Fault {
    let unknown = serde_json::from_slice::<serde_json::Value>(line)
        .ok()
        .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(String::from))
        .filter(|t| t != "hello" && t != "action");
    match unknown {
        Some(t) => Fault::new(
            FaultKind::UnknownMessage,
            format!("unknown message type {t:?}: {}", shown(line)),
        ),
        None => Fault::new(FaultKind::Malformed, format!("{e}: {}", shown(line))),
    }
}

/// Reaps leftover members of a killed group that were reparented to us.
fn reap_group(pgid: i32) {
    // SIGKILL cannot be caught; only a process stuck in the kernel takes long to go.
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let mut st = 0;
        // SAFETY: waitpid on a process group we created and killed.
        let r = unsafe { libc::waitpid(-pgid, &mut st, libc::WNOHANG) };
        if r < 0 {
            break; // ECHILD: nothing of that group is our child any more
        }
        if r == 0 {
            if Instant::now() > until {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

/// The runtime a session's I/O runs on: its own current-thread runtime (the default: the pipes
/// are polled by the referee's worker thread inside `block_on`), or, with
/// `PITBOSS_SHARED_RUNTIME=1`, one multi-thread runtime shared by all sessions (its worker polls
/// the pipes and wakes the referee thread) — kept for the comparison in `EXTERNAL-BENCH.md`.
enum Rt {
    Own(tokio::runtime::Runtime),
    Shared(tokio::runtime::Handle),
}

impl Rt {
    fn new() -> std::io::Result<Rt> {
        static SHARED: std::sync::OnceLock<Option<tokio::runtime::Runtime>> =
            std::sync::OnceLock::new();
        let shared = SHARED.get_or_init(|| {
            (std::env::var_os("PITBOSS_SHARED_RUNTIME").is_some_and(|v| v == "1"))
                .then(|| {
                    tokio::runtime::Builder::new_multi_thread()
                        .worker_threads(1)
                        .enable_all()
                        .build()
                        .ok()
                })
                .flatten()
        });
        Ok(match shared {
            Some(rt) => Rt::Shared(rt.handle().clone()),
            None => Rt::Own(
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()?,
            ),
        })
    }

    fn handle(&self) -> tokio::runtime::Handle {
        match self {
            Rt::Own(r) => r.handle().clone(),
            Rt::Shared(h) => h.clone(),
        }
    }

    fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        match self {
            Rt::Own(r) => r.block_on(f),
            Rt::Shared(h) => h.block_on(f),
        }
    }
}

/// A live bot process.
pub struct Session {
    rt: Rt,
    io: Io,
    seq: u64,
    /// Name and games from the bot's hello.
    pub name: String,
    pub games: Vec<String>,
    /// Whether the match start has been sent to this process.
    pub started: bool,
    pub pid: u32,
    closed: bool,
}

impl Session {
    /// Starts the process and runs the handshake.
    ///
    /// # Errors
    /// A [`FaultKind::Handshake`] fault saying what went wrong.
    pub fn start(l: &Launch) -> Result<Session, Fault> {
        let hs = |why: String| Fault::new(FaultKind::Handshake, why);
        let rt = Rt::new().map_err(|e| hs(format!("runtime: {e}")))?;
        let (prog, args) = l
            .command
            .split_first()
            .ok_or_else(|| hs("empty command".into()))?;
        let mut cmd = tokio::process::Command::new(prog);
        cmd.args(args)
            .current_dir(&l.dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(false);
        let mut child_sandbox: Option<ChildSandbox> = None;
        if let Some((read, scratch)) = &l.sandbox {
            let plan = Plan::new(read, scratch).map_err(|e| hs(e.to_string()))?;
            child_sandbox = Some(plan.into_child());
            cmd.env("TMPDIR", scratch).env("PITBOSS_SCRATCH", scratch);
        }
        let mem = l.memory_mb.map(|m| m.saturating_mul(1 << 20));
        let cpu = l.cpu_seconds;
        // SAFETY: the closure only makes async-signal-safe system calls (setrlimit, unshare,
        // prctl, landlock_restrict_self) on data prepared before fork.
        unsafe {
            cmd.pre_exec(move || {
                if let Some(m) = mem {
                    let r = libc::rlimit {
                        rlim_cur: m,
                        rlim_max: m,
                    };
                    if libc::setrlimit(libc::RLIMIT_AS, &r) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                if let Some(c) = cpu {
                    let r = libc::rlimit {
                        rlim_cur: c,
                        rlim_max: c + 1,
                    };
                    if libc::setrlimit(libc::RLIMIT_CPU, &r) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                if let Some(s) = child_sandbox.as_mut() {
                    s.apply()?;
                }
                Ok(())
            });
        }
        let handle = rt.handle();
        let _guard = handle.enter();
        let mut child = cmd
            .spawn()
            .map_err(|e| hs(format!("cannot start {:?}: {e}", l.command)))?;
        let pid = child.id().unwrap_or(0);
        let pgid = pid as i32;
        if let Ok(mut g) = LIVE.lock() {
            g.insert(pgid);
        }
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped");
        let stderr = child.stderr.take().expect("piped");
        let tail = Arc::new(Mutex::new(Tail::default()));
        if let Ok(mut lg) = l.log.lock() {
            lg.note(&format!("process {pid} started: {:?}", l.command));
        }
        let stderr_task = {
            let (tail, log) = (tail.clone(), l.log.clone());
            handle.spawn(async move {
                let mut stderr = stderr;
                let mut buf = vec![0u8; 16 * 1024];
                while let Ok(n) = stderr.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    if let Ok(mut t) = tail.lock() {
                        t.push(&buf[..n]);
                    }
                    if let Ok(mut lg) = log.lock() {
                        lg.write(&buf[..n]);
                    }
                }
            })
        };
        let transcript = l
            .transcript
            .as_ref()
            .and_then(|p| File::create(p).ok())
            .map(std::io::BufWriter::new);
        drop(_guard);
        let mut s = Session {
            rt,
            io: Io {
                child,
                pgid,
                stdin,
                reader: LineReader::new(stdout),
                exited: None,
                tail,
                log: l.log.clone(),
                transcript,
                born: Instant::now(),
                freeze_idle: l.freeze_idle,
                frozen: false,
                stderr_task: Some(stderr_task),
                pending: Vec::with_capacity(COALESCE),
            },
            seq: 0,
            name: String::new(),
            games: Vec::new(),
            started: false,
            pid,
            closed: false,
        };
        let id = s.next_id();
        let hello = pitboss_protocol::ToBot::Hello(Hello {
            id,
            protocol: PROTOCOL_VERSION,
            referee: format!("pitboss {}", env!("CARGO_PKG_VERSION")),
        });
        let mut line = serde_json::to_vec(&hello).expect("serializes");
        line.push(b'\n');
        let reply = s.exchange(&line, Some(id), l.startup);
        let result = match reply {
            Ok(Some((FromBot::Hello(h), _))) if h.protocol == PROTOCOL_VERSION => {
                s.name = h.name;
                s.games = h.games;
                Ok(())
            }
            Ok(Some((FromBot::Hello(h), _))) => Err(hs(format!(
                "the bot speaks protocol {}, the referee {PROTOCOL_VERSION}",
                h.protocol
            ))),
            Ok(_) => Err(hs("the first reply must be a hello".into())),
            Err(f) => Err(hs(format!("no valid hello: {}", f))),
        };
        match result {
            Ok(()) => Ok(s),
            Err(f) => {
                s.io.note(&f.detail);
                s.kill();
                Err(f)
            }
        }
    }

    /// The id for the next request (increasing over the life of the process).
    pub fn next_id(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Sends one line and, with `expect`, waits for the reply with that id.
    ///
    /// # Errors
    /// The fault; see [`is_fatal`] for those that leave the process unusable.
    pub fn exchange(
        &mut self,
        line: &[u8],
        expect: Option<u64>,
        budget: Duration,
    ) -> Result<Option<(FromBot, Duration)>, Fault> {
        self.rt.block_on(self.io.exchange(line, expect, budget))
    }

    /// A referee note in the bot's log.
    pub fn note(&self, s: &str) {
        self.io.note(s);
    }

    /// Ends the process politely: `goodbye` (the match end), close stdin, grace, SIGTERM, grace,
    /// SIGKILL, reap.
    pub fn close(mut self, goodbye: &[u8]) {
        self.rt.block_on(self.io.terminate(Some(goodbye)));
        self.finish();
    }

    /// Ends the process now (SIGTERM, grace, SIGKILL), e.g. after a fatal fault.
    pub fn kill(mut self) {
        self.rt.block_on(self.io.terminate(None));
        self.finish();
    }

    fn finish(&mut self) {
        if self.closed {
            return;
        }
        self.closed = true;
        reap_group(self.io.pgid);
        if let Ok(mut g) = LIVE.lock() {
            g.remove(&self.io.pgid);
        }
        let st = self.io.exited.map_or_else(|| "unknown".into(), describe);
        self.io.note(&format!("process {} ended: {st}", self.pid));
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if !self.closed {
            // Dropped without close (a panic, or a player dropped by the runner): no grace.
            self.io.signal(libc::SIGCONT);
            self.io.signal(libc::SIGKILL);
            let _ = self.rt.block_on(self.io.child.wait());
            self.finish();
        }
    }
}
