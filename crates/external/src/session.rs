//! One running bot process: spawned in its jail ([`pitboss_jail`]) in its own process group with
//! piped stdio and an allow-listed environment, stderr drained to a capped log, every exchange a
//! `tokio::select!` over the reply line, the process's exit and the deadline; termination closes
//! stdin, then SIGTERM → grace → SIGKILL to the whole group and the jail's cgroup, and reaps
//! everything (the jail's PID namespace dies with its init, whatever sessions the bot made).
//!
//! Everything the bot writes on stdout counts: a line that arrives before the request it claims
//! to answer is a fault, stale replies are counted against a flood limit (lines and bytes), the
//! referee's notes about them share the log's size cap, and transcripts have a byte cap of their
//! own.
//!
//! Each session owns a small current-thread Tokio runtime: the referee loop is synchronous and
//! calls `block_on` from its worker thread, so the pipes are polled on that same thread with no
//! cross-thread wake-up per message (measured: see `EXTERNAL-BENCH.md`).

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pitboss_protocol::{FaultKind, FromBot, Hello, Messages, PROTOCOL_VERSION};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, ChildStdout};

use pitboss_jail::{Jail, JailSpec};

use super::botlog::describe;
pub use super::botlog::{shown, BotLog, Tail, Transcript, TranscriptCap, SHOWN};
use super::lines::{Batch, LineError, LineReader};
use super::procs::{fd_readable, reap_group, reply_id, set_rlimits};
use super::rt::Rt;
use pitboss_arena::player::Fault;

/// The most tables one process may ask for (a larger `concurrency` is cut to this).
pub const MAX_CONCURRENCY: u32 = 64;
/// Grace between closing stdin and SIGTERM, and between SIGTERM and SIGKILL.
pub const GRACE: Duration = Duration::from_millis(500);
/// Stale replies (answers to requests already settled) tolerated while one request waits; more
/// is a flood, a fault.
pub const STALE_MAX: u32 = 64;
/// Bytes of stale replies tolerated while one request waits (64 replies of 256 bytes: a real
/// action reply is under 200); more is a flood too, however few the lines. Without it a bot could
/// pad each of its 64 stale lines to the line limit and have the referee read and record megabytes
/// per decision.
pub const STALE_BYTES_MAX: u64 = 16 * 1024;

/// Stale replies seen while one request waits.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stale {
    pub lines: u32,
    pub bytes: u64,
}

impl Stale {
    /// Counts one stale line of `len` bytes; the fault's detail when that makes a flood.
    pub fn add(&mut self, len: usize) -> Option<String> {
        self.lines += 1;
        self.bytes += len as u64 + 1;
        (self.lines > STALE_MAX || self.bytes > STALE_BYTES_MAX).then(|| {
            format!(
                "{} stale replies of {} bytes in all (at most {STALE_MAX} replies and \
                 {STALE_BYTES_MAX} bytes: a flood)",
                self.lines, self.bytes
            )
        })
    }
}

static LIVE: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

/// The start of the referee's clock for [`ProcessRecord`]s (the first time it is read).
static EPOCH: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();

/// Microseconds on the clock of [`ProcessRecord`]s (monotonic, shared by the whole referee).
pub fn clock_us() -> u64 {
    EPOCH.get_or_init(Instant::now).elapsed().as_micros() as u64
}

/// Hands `first, first + step, …` (`count` of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HandRun {
    pub first: u64,
    pub step: u64,
    pub count: u64,
}

/// The most runs of hands a [`ProcessRecord`] keeps (beyond, only the first and last hand and
/// the count grow).
pub const MAX_RUNS: usize = 1 << 16;

/// What one process of a bot did, as the referee saw it: enough to check that no two processes
/// of a bot that played the same deal were alive at the same time (`bots/processes.csv`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProcessRecord {
    pub pid: u32,
    /// On [`clock_us`]: just before the process was spawned, and once it and everything in its
    /// jail were reaped.
    pub started_us: u64,
    pub ended_us: u64,
    /// The lanes (phases) it played hands for: one, unless something is wrong.
    pub lanes: Vec<usize>,
    /// The hands it was dealt into (`hand_start`), in the order sent, as runs; complete unless
    /// `truncated`.
    pub runs: Vec<HandRun>,
    pub truncated: bool,
    pub hands: u64,
    pub first_hand: Option<u64>,
    pub last_hand: Option<u64>,
}

impl ProcessRecord {
    /// The process is dealt into hand `hand` for `lane`.
    pub fn serve(&mut self, lane: usize, hand: u64) {
        if !self.lanes.contains(&lane) {
            self.lanes.push(lane);
        }
        self.hands += 1;
        self.first_hand = Some(self.first_hand.map_or(hand, |f| f.min(hand)));
        self.last_hand = Some(self.last_hand.map_or(hand, |l| l.max(hand)));
        let full = self.runs.len() >= MAX_RUNS;
        match self.runs.last_mut() {
            Some(r) if r.count == 1 && hand > r.first => {
                r.step = hand - r.first;
                r.count = 2;
            }
            Some(r) if r.count > 1 && hand == r.first + r.step * r.count => r.count += 1,
            _ if full => self.truncated = true,
            _ => self.runs.push(HandRun {
                first: hand,
                step: 1,
                count: 1,
            }),
        }
    }

    /// Every hand of the runs.
    pub fn hand_numbers(&self) -> impl Iterator<Item = u64> + '_ {
        self.runs
            .iter()
            .flat_map(|r| (0..r.count).map(move |i| r.first + i * r.step))
    }
}

/// Where the records of a bot's processes go when they end.
pub type Ledger = Arc<Mutex<Vec<ProcessRecord>>>;

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

/// Everything needed to start one process of a bot.
#[derive(Clone)]
pub struct Launch {
    pub command: Vec<String>,
    pub dir: PathBuf,
    /// The jail (`None`: `--no-sandbox`, the referee's rights, only rlimits).
    pub jail: Option<JailSpec>,
    /// Per-process limits without a jail.
    pub memory_mb: Option<u64>,
    pub cpu_seconds: Option<u64>,
    /// The whole environment of the bot (an allow-list; nothing is inherited).
    pub env: Vec<(String, String)>,
    pub startup: Duration,
    pub freeze_idle: bool,
    pub transcript: Option<PathBuf>,
    /// The byte budget of the bot's transcripts (with `transcript`).
    pub transcript_cap: Option<Arc<TranscriptCap>>,
    pub log: Arc<Mutex<BotLog>>,
    /// Where the process's record goes when it ends.
    pub ledger: Option<Ledger>,
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
    transcript: Option<Transcript>,
    freeze_idle: bool,
    frozen: bool,
    stderr_task: Option<tokio::task::JoinHandle<()>>,
    /// Notifications not yet written: they go out with the next request, in one write.
    pending: Vec<u8>,
    /// The bot's stdout, for a non-blocking look before each request.
    stdout_fd: i32,
    jail: Option<Jail>,
}

/// Lines read from a process in one go (protocol 1.1).
const READ_BATCH: usize = 1024;

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
            t.record(dir, bytes);
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
        self.thaw();
        // One count of stale replies for the request, before it is written and while it waits.
        let mut stale = Stale::default();
        if let Some(id) = expect {
            self.drain_unsolicited(id, &mut stale).await?;
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
            match self.settle(got, id, budget, &mut stale).await {
                Some(Ok(reply)) => {
                    self.freeze();
                    return Ok(Some((reply, start.elapsed())));
                }
                Some(Err(f)) => return Err(f),
                None => continue,
            }
        }
    }

    /// Writes the queued lines by `deadline`.
    async fn write_pending(&mut self, deadline: Instant) -> Result<(), Fault> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(self.crash_fault("input already closed"));
        };
        // `timeout_at` with a deadline from the caller's clock read: `timeout` would read the
        // clock again.
        let deadline = tokio::time::Instant::from_std(deadline);
        let wrote = tokio::time::timeout_at(deadline, stdin.write_all(&self.pending)).await;
        self.pending.clear();
        match wrote {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) => {
                if self.exited.is_none() {
                    if let Ok(Ok(st)) =
                        tokio::time::timeout(Duration::from_millis(200), self.child.wait()).await
                    {
                        self.exited = Some(st);
                    }
                }
                self.drain_stderr().await;
                Err(self.crash_fault("the bot stopped reading its input"))
            }
            Err(_) => Err(Fault::new(
                FaultKind::Timeout,
                "the bot does not read its input",
            )),
        }
    }

    /// Reads the complete lines available now, at most [`READ_BATCH`] (a flood waits for the next
    /// call, and memory stays bounded).
    async fn read_ready(&mut self, out: &mut Batch, budget: Duration) -> Result<(), Fault> {
        while out.len() < READ_BATCH {
            let got = if let Some(got) = self.reader.buffered_line() {
                // A whole line was buffered: taken without reading, so no timer (a timer reads
                // the clock).
                Ok(got)
            } else if fd_readable(self.stdout_fd) {
                // The timer is needed even with a zero budget: waiting on it turns the runtime's
                // I/O driver, which is what marks the pipe readable again after a short read (a
                // single poll of the read instead never saw a reply arrive).
                tokio::time::timeout(budget, self.reader.next_line())
                    .await
                    .map_err(|_| ())
            } else {
                break;
            };
            let got = match got {
                Err(()) => return Ok(()),
                Ok(Ok(())) => {
                    let line = self.reader.line();
                    out.push(line);
                    if self.transcript.is_some() {
                        let line = line.to_vec();
                        self.record('<', &line);
                    }
                    continue;
                }
                Ok(Err(e)) => Got::Read(e),
            };
            let mut stale = Stale::default();
            if let Some(Err(f)) = self.settle(got, 0, budget, &mut stale).await {
                return Err(f);
            }
        }
        Ok(())
    }

    /// Before a request goes out: every line the bot has already written is read now. None of
    /// them can answer the coming request (the bot has not seen it): an id at or past `next` is
    /// a reply to a request not yet sent — a fault; older ids are stale and counted.
    async fn drain_unsolicited(&mut self, next: u64, stale: &mut Stale) -> Result<(), Fault> {
        while self.reader.has_line() || fd_readable(self.stdout_fd) {
            let got = match self.reader.next_line().await {
                Ok(()) => Got::Line,
                Err(e) => Got::Read(e),
            };
            if let Got::Line = got {
                let line = self.reader.line().to_vec();
                if let Ok(rid) = reply_id(&line) {
                    if rid >= next {
                        self.record('<', &line);
                        let f = Fault::new(
                            FaultKind::Malformed,
                            format!(
                                "reply id {rid} arrived before request {rid} was sent: {}",
                                shown(&line)
                            ),
                        );
                        self.note(&f.detail);
                        return Err(f);
                    }
                }
            }
            let budget = Duration::ZERO;
            if let Some(Err(f)) = self.settle(got, next, budget, stale).await {
                return Err(f);
            }
        }
        Ok(())
    }

    /// What one wake-up of the reply loop means for request `id`: `Some(Ok)` its reply,
    /// `Some(Err)` a fault, `None` keep waiting (a stale line was discarded).
    async fn settle(
        &mut self,
        got: Got,
        id: u64,
        budget: Duration,
        stale: &mut Stale,
    ) -> Option<Result<FromBot, Fault>> {
        match got {
            Got::Line => {
                let line = self.reader.line().to_vec();
                self.record('<', &line);
                match pitboss_protocol::parse_reply(&line) {
                    Ok(reply) => {
                        let rid = match &reply {
                            FromBot::Hello(h) => h.id,
                            FromBot::Action(a) => a.id,
                        };
                        if rid == id {
                            return Some(Ok(reply));
                        }
                        if rid < id {
                            if let Some(why) = stale.add(line.len()) {
                                let f = Fault::new(
                                    FaultKind::Malformed,
                                    format!("{why} while request {id} waited"),
                                );
                                self.note(&f.detail);
                                return Some(Err(f));
                            }
                            self.note(&format!(
                                "late reply to request {rid} discarded: {}",
                                shown(&line)
                            ));
                            return None;
                        }
                        let f = Fault::new(
                            FaultKind::Malformed,
                            format!(
                                "reply id {rid} answers no request (expected {id}): {}",
                                shown(&line)
                            ),
                        );
                        self.note(&f.to_string());
                        Some(Err(f))
                    }
                    Err(e) => {
                        let f = classify(&line, &e);
                        self.note(&f.to_string());
                        Some(Err(f))
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
                Some(Err(f))
            }
            Got::Read(LineError::Eof) => {
                if self.exited.is_none() {
                    if let Ok(Ok(st)) =
                        tokio::time::timeout(Duration::from_millis(200), self.child.wait()).await
                    {
                        self.exited = Some(st);
                    }
                }
                if self.exited.is_some() {
                    self.drain_stderr().await;
                    return Some(Err(self.crash_fault("the bot exited")));
                }
                Some(Err(Fault::new(
                    FaultKind::ClosedStdout,
                    "the bot closed its stdout but is still running",
                )))
            }
            Got::Read(LineError::Io(e)) => {
                Some(Err(self.crash_fault(&format!("reading its output: {e}"))))
            }
            Got::Exit(st) => {
                self.exited = st.ok();
                self.drain_stderr().await;
                Some(Err(self.crash_fault("the bot exited")))
            }
            Got::Deadline => Some(Err(Fault::new(
                FaultKind::Timeout,
                format!("no reply within {} ms", budget.as_millis()),
            ))),
        }
    }

    /// Stops the bot between requests: through the jail's cgroup freezer (every process of the
    /// tree, whatever group it made), else SIGSTOP to the process group.
    fn freeze(&mut self) {
        if self.freeze_idle && !self.frozen {
            if !self.jail.as_ref().is_some_and(|j| j.freeze(true)) {
                self.signal(libc::SIGSTOP);
            }
            self.frozen = true;
        }
    }

    fn thaw(&mut self) {
        if self.frozen {
            if !self.jail.as_ref().is_some_and(|j| j.freeze(false)) {
                self.signal(libc::SIGCONT);
            }
            self.frozen = false;
        }
    }

    fn note(&self, s: &str) {
        if let Ok(mut l) = self.log.lock() {
            l.note(s);
        }
    }

    /// Closes stdin, waits, escalates, reaps.
    async fn terminate(&mut self, goodbye: Option<&[u8]>) {
        self.thaw();
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
        // Always: whatever else is left in the group or the jail's cgroup goes too.
        self.signal(libc::SIGKILL);
        if let Some(j) = &self.jail {
            j.kill_all();
        }
        if self.exited.is_none() {
            self.exited = self.child.wait().await.ok();
        }
        if let Some(t) = self.stderr_task.take() {
            let _ = tokio::time::timeout(Duration::from_millis(200), t).await;
        }
        if let Some(t) = self.transcript.as_mut() {
            t.flush();
        }
    }
}

/// A bad line: not JSON or not a message of this protocol (malformed), or a message type this
/// protocol does not have (unknown message).
pub(super) fn classify(line: &[u8], e: &serde_json::Error) -> Fault {
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

/// A live bot process.
pub struct Session {
    rt: Rt,
    io: Io,
    seq: u64,
    /// Name and games from the bot's hello.
    pub name: String,
    pub games: Vec<String>,
    /// Protocol 1.1: the tables the process plays at once (`None`: a version 1 bot, no `table`
    /// ids in its messages).
    pub concurrency: Option<u32>,
    /// Protocol 1.1: `act` requests without the view.
    pub compact: bool,
    /// Protocol 1.2: compact, with events and legal actions as token strings.
    pub terse: bool,
    /// Whether the match start has been sent to this process.
    pub started: bool,
    pub pid: u32,
    closed: bool,
    record: ProcessRecord,
    ledger: Option<Ledger>,
}

impl Session {
    /// Starts the process and runs the handshake.
    ///
    /// # Errors
    /// A [`FaultKind::Handshake`] fault saying what went wrong.
    pub fn start(l: &Launch) -> Result<Session, Fault> {
        let started_us = clock_us();
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
        let mut jail = match &l.jail {
            Some(spec) => Some(Jail::prepare(spec).map_err(|e| hs(format!("jail: {e}")))?),
            None => None,
        };
        match jail.as_mut() {
            Some(j) => j.install(cmd.as_std_mut()),
            None => {
                cmd.env_clear();
                let mem = l.memory_mb.map(|m| m.saturating_mul(1 << 20));
                let cpu = l.cpu_seconds;
                // SAFETY: the closure only makes async-signal-safe system calls (setrlimit).
                unsafe {
                    cmd.pre_exec(move || set_rlimits(mem, cpu));
                }
            }
        }
        cmd.envs(l.env.iter().map(|(k, v)| (k, v)));
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
        let stdout_fd = {
            use std::os::fd::AsRawFd;
            stdout.as_raw_fd()
        };
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
        let transcript = match (&l.transcript, &l.transcript_cap) {
            (Some(p), Some(cap)) => Transcript::create(p, cap.clone()),
            _ => None,
        };
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
                freeze_idle: l.freeze_idle,
                frozen: false,
                stderr_task: Some(stderr_task),
                pending: Vec::with_capacity(COALESCE),
                stdout_fd,
                jail,
            },
            seq: 0,
            name: String::new(),
            games: Vec::new(),
            concurrency: None,
            compact: false,
            terse: false,
            started: false,
            pid,
            closed: false,
            record: ProcessRecord {
                pid,
                started_us,
                ..ProcessRecord::default()
            },
            ledger: l.ledger.clone(),
        };
        let id = s.next_id();
        let hello = pitboss_protocol::ToBot::Hello(Hello {
            id,
            protocol: PROTOCOL_VERSION,
            minor: 2,
            referee: format!("pitboss {}", env!("CARGO_PKG_VERSION")),
        });
        let mut line = serde_json::to_vec(&hello).expect("serializes");
        line.push(b'\n');
        let reply = s.exchange(&line, Some(id), l.startup);
        let result = match reply {
            Ok(Some((FromBot::Hello(h), _)))
                if h.protocol == PROTOCOL_VERSION && h.concurrency == Some(0) =>
            {
                Err(hs("`concurrency` must be at least 1".into()))
            }
            Ok(Some((FromBot::Hello(h), _))) if h.protocol == PROTOCOL_VERSION => {
                // Informational (`check` shows it): kept short.
                s.name = h.name.chars().take(pitboss_arena::name::MAX_LEN).collect();
                s.games = h.games;
                s.concurrency = h.concurrency.map(|c| c.min(MAX_CONCURRENCY));
                s.compact = matches!(h.messages, Some(Messages::Compact | Messages::Terse));
                s.terse = h.messages == Some(Messages::Terse);
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

    /// The id of the last request sent.
    pub fn last_id(&self) -> u64 {
        self.seq
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

    /// Protocol 1.1: queues a line (a request or a notification) for the next [`Self::flush`].
    pub fn queue(&mut self, line: &[u8]) {
        self.io.record('>', line);
        self.io.pending.extend_from_slice(line);
    }

    /// Protocol 1.1: queues the line that `write` appends (newline included), written straight
    /// into the queue (no copy through a scratch buffer).
    pub fn queue_with(&mut self, write: impl FnOnce(&mut Vec<u8>)) {
        let from = self.io.pending.len();
        write(&mut self.io.pending);
        if self.io.transcript.is_some() {
            let line = self.io.pending[from..].to_vec();
            self.io.record('>', &line);
        }
    }

    /// Protocol 1.1: writes the queued lines in one write, within `budget` from `now` (the
    /// caller's clock read, which also starts the clocks of the requests written).
    ///
    /// # Errors
    /// A crash (the bot stopped reading and exited) or a timeout (it does not read its input).
    pub fn flush(&mut self, now: Instant, budget: Duration) -> Result<(), Fault> {
        if self.io.pending.is_empty() {
            return Ok(());
        }
        self.io.thaw();
        self.rt.block_on(self.io.write_pending(now + budget))
    }

    /// Protocol 1.1: whether lines are queued for the next [`Self::flush`].
    pub fn has_queued(&self) -> bool {
        !self.io.pending.is_empty()
    }

    /// Protocol 1.1: the complete lines the bot has written so far (at most 1,024), without
    /// waiting for more (a partial line waits at most `budget` for its end). Lines are appended
    /// to `out`.
    ///
    /// # Errors
    /// The process fault that ends the session: an exit, a closed stdout, a line too long.
    pub fn read_ready(&mut self, out: &mut Batch, budget: Duration) -> Result<(), Fault> {
        self.rt.block_on(self.io.read_ready(out, budget))
    }

    /// Whether a whole line is already read and waits in the buffer (`poll` does not see it).
    pub fn has_line(&self) -> bool {
        self.io.reader.has_line()
    }

    /// The bot's stdout, to wait for it with `poll`.
    pub fn stdout_fd(&self) -> i32 {
        self.io.stdout_fd
    }

    /// Stops the process between requests (`freeze_idle`).
    pub fn idle(&mut self) {
        self.io.freeze();
    }

    /// A referee note in the bot's log.
    pub fn note(&self, s: &str) {
        self.io.note(s);
    }

    /// The process is dealt into hand `hand` for `lane` (its [`ProcessRecord`]).
    pub fn serve(&mut self, lane: usize, hand: u64) {
        self.record.serve(lane, hand);
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
        if let Some(mut j) = self.io.jail.take() {
            j.cleanup();
        }
        if let Ok(mut g) = LIVE.lock() {
            g.remove(&self.io.pgid);
        }
        let st = self.io.exited.map_or_else(|| "unknown".into(), describe);
        self.io.note(&format!("process {} ended: {st}", self.pid));
        self.record.ended_us = clock_us();
        if let Some(l) = &self.ledger {
            if let Ok(mut l) = l.lock() {
                l.push(std::mem::take(&mut self.record));
            }
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if !self.closed {
            // Dropped without close (a panic, or a player dropped by the runner): no grace.
            self.io.signal(libc::SIGCONT);
            self.io.signal(libc::SIGKILL);
            if let Some(j) = &self.io.jail {
                j.kill_all();
            }
            let _ = self.rt.block_on(self.io.child.wait());
            self.finish();
        }
    }
}
