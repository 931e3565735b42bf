//! The referee's side of an external bot: [`ExternalPlayer`] implements [`Player`] over a
//! [`Session`], keeps time (decision limit + match time bank), restarts a crashed bot for the
//! next hand up to the restart limit and then forfeits; [`ExternalFactory`] creates players for
//! every kind of bot spec.
//!
//! Processes outlive blocks of hands: when the runner finishes a block, a healthy process goes
//! back to the pool of its lane and the next block on any worker takes it. Duplicate matches and
//! tournaments are played in phases (a chunk of deals in one seat rotation), each phase a lane of
//! its own: a process never plays two rotations of the same deal (it would know its opponent's
//! cards from its own in the other rotation), and when the runner ends a phase
//! ([`BotFactory::end_lane`]) every process of its lane is ended — the idle ones at once, and a
//! lane that is over never takes a process back — before the next phase of the bot starts, so no
//! process that saw a deal is alive while another plays it from another seat. A match with `T`
//! threads runs at most `T` processes per bot and lane. Which process plays which hands depends
//! on thread timing, so results with external bots are reproducible only with one thread.
//!
//! Every process is recorded ([`ProcessRecord`]: its pid, when it started and ended, the lanes
//! and hands it served), and the records are written to `bots/processes.csv` when the factory
//! shuts down, so that the separation can be checked from the referee's own record.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pitboss_protocol::{
    ActRequest, Action, Bot, Clock, FaultKind, FromBot, HandEnd, HandStart, MatchEnd, MatchStart,
    ToBot,
};
use serde::Serialize;

use super::launch;
use super::session::{is_fatal, BotLog, Launch, Session, TranscriptCap};
pub use super::session::{HandRun, Ledger, ProcessRecord};
use super::spec::{self, BotSpec, ExternalSpec, Limits, SpecError};
use pitboss_arena::player::{Fault, InProcess, Player};
use pitboss_arena::runner::BotFactory;

/// Built-in bots by name (injected by the binary, which depends on the bots crate).
pub type BuiltinFn = fn(&str, u64) -> Option<Box<dyn Bot>>;

/// Match-wide settings for external bots (flags and match-file keys).
#[derive(Clone, Debug)]
pub struct ExternalOptions {
    /// Overrides of the manifests' limits (decision_ms, bank_ms, restarts, ...).
    pub limits: Limits,
    pub sandbox: bool,
    pub freeze_idle: bool,
    pub transcript: bool,
    /// One transcript budget for every external bot of these options (`check`: the whole check
    /// of its one bot, over all its games); `None`: each bot gets [`TRANSCRIPT_CAP`] of its own.
    pub transcript_share: Option<Arc<TranscriptCap>>,
    /// The match's output folder (bot logs go to `bots/`, transcripts to `transcripts/`).
    pub out: PathBuf,
    /// How manifests' build steps run.
    pub build: spec::BuildOptions,
    /// Whether a bot may read outside its own folder through a path found only when its
    /// processes are prepared (after the build): a program in its folder that is a link to an
    /// installation elsewhere. `pitboss check` and `submit` refuse it unless the operator passes
    /// `--allow-read-outside`; a match allows it with a warning, like a manifest's `read` path.
    pub allow_read_outside: bool,
}

impl Default for ExternalOptions {
    /// Jailed, builds included: the safe choice needs no flag.
    fn default() -> ExternalOptions {
        ExternalOptions {
            limits: Limits::default(),
            sandbox: true,
            freeze_idle: false,
            transcript: false,
            transcript_share: None,
            out: PathBuf::new(),
            build: spec::BuildOptions::default(),
            allow_read_outside: true,
        }
    }
}

impl ExternalOptions {
    /// The external-bot settings of a match.
    pub fn from_config(cfg: &pitboss_arena::MatchConfig) -> ExternalOptions {
        ExternalOptions {
            limits: Limits {
                decision_ms: cfg.decision_ms,
                bank_ms: cfg.bank_ms,
                restarts: cfg.restarts,
                ..Limits::default()
            },
            sandbox: cfg.sandbox,
            freeze_idle: cfg.freeze_idle,
            transcript: cfg.transcript,
            transcript_share: None,
            out: cfg.out.clone(),
            build: spec::BuildOptions {
                sandbox: cfg.sandbox,
                network: cfg.build_network,
            },
            allow_read_outside: true,
        }
    }
}

/// Stderr kept per bot in its log file.
pub const LOG_CAP: u64 = 1 << 20;

/// Transcript bytes kept per bot and match (all its processes; `--transcript`, and `check`, which
/// always writes them, for the whole check): past it the transcript says so and stops.
pub const TRANSCRIPT_CAP: u64 = 32 << 20;

/// What one external bot did during the match (for `pitboss check` and the match log).
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The name in the bot's hello (at most 64 characters).
    pub name: String,
    /// The bot's log file (`None`: it could not be created, and a warning says why), and the
    /// pattern of its transcripts' files (`<out>/transcripts/<label>-*.txt`, one per process).
    pub log: Option<PathBuf>,
    pub transcripts: Option<PathBuf>,
    /// Whether the transcripts reached [`TRANSCRIPT_CAP`] (and were cut).
    pub transcripts_cut: bool,
    pub games: Vec<String>,
    pub decisions: u64,
    pub total_us: u64,
    pub max_us: u64,
    /// Processes started (first starts and restarts).
    pub spawns: u32,
    pub restarts: u32,
    pub forfeited: bool,
    /// The first few faults seen by the driver, with details.
    pub faults: Vec<Fault>,
    /// What the operator should know about this bot's jail (reads outside its folder, limits
    /// of its manifest cut to the maxima).
    pub warnings: Vec<String>,
    /// Protocol 1.1: the concurrency and message style of the bot's hello.
    pub concurrency: Option<u32>,
    pub compact: bool,
    /// Protocol 1.2 terse messages (then `compact` too).
    pub terse: bool,
    /// Protocol 1.1, several tables in flight: the most requests pending at once on a process,
    /// replies that came before the reply to an older pending request, and hands that ended
    /// while another table of the process waited for a reply.
    pub max_in_flight: u32,
    pub out_of_order: u64,
    pub ended_while_waiting: u64,
}

/// The most idle processes one bot keeps between blocks and units. A tournament keeps a bot's
/// processes apart per table and seat rotation (every table of a game deals the same cards), so
/// without a bound a large field would keep hundreds of idle processes; beyond it a process is
/// ended and a later block starts a fresh one.
const MAX_IDLE: usize = 32;

/// Idle processes of a bot, by lane, and the lanes whose phase is over.
#[derive(Default)]
struct Pool {
    idle: HashMap<usize, Vec<Session>>,
    /// The process started to learn the bot's concurrency, not yet given to a lane: it has
    /// played nothing, so the first lane to ask takes it; it is ended when a phase ends first.
    fresh: Option<Session>,
    over: HashSet<usize>,
    /// Lanes that asked for a process (whose end must forget the bot's cached pages).
    used: HashSet<usize>,
}

impl Pool {
    fn idle_count(&self) -> usize {
        self.idle.values().map(Vec::len).sum::<usize>() + usize::from(self.fresh.is_some())
    }
}

/// Ends sessions politely, each on a thread of its own (a bot that ignores its `match_end`
/// costs its grace periods once, not once per process).
fn close_all(sessions: Vec<Session>, goodbye: &[u8]) {
    match sessions.len() {
        0 => {}
        1 => sessions.into_iter().for_each(|s| s.close(goodbye)),
        _ => std::thread::scope(|scope| {
            for s in sessions {
                scope.spawn(move || s.close(goodbye));
            }
        }),
    }
}

/// One external bot of a match, shared by its players on all workers.
pub struct Shared {
    pub spec: ExternalSpec,
    pub label: String,
    pub decision_ms: u64,
    pub restarts_max: u32,
    launch: Launch,
    transcripts: Option<PathBuf>,
    transcript_cap: Arc<TranscriptCap>,
    pub(super) bank: AtomicU64,
    restarts: AtomicU32,
    spawns: AtomicU32,
    pub(super) forfeited: AtomicBool,
    pub(super) hands: AtomicU64,
    /// Idle processes, by lane (at most [`MAX_IDLE`] in all).
    pool: Mutex<Pool>,
    pub(super) report: Mutex<Report>,
    /// Protocol 1.1: the concurrency of the bot's first process (started to learn it, then
    /// pooled), and the fault if it did not start (the first player gets it instead of starting
    /// another process).
    probe: std::sync::OnceLock<usize>,
    probe_fault: Mutex<Option<Fault>>,
    log: Arc<Mutex<BotLog>>,
    scratch: Option<PathBuf>,
    /// The records of the bot's processes that have ended.
    ledger: Ledger,
    /// The bot's own files ([`launch::Prepared::own`]).
    own: Vec<PathBuf>,
}

impl Shared {
    /// Tables one process plays at once: 1 for a version 1 bot (learnt from the hello of a first
    /// process, which then waits for the first lane that needs a process).
    fn concurrency(&self) -> usize {
        *self.probe.get_or_init(|| match self.spawn() {
            Ok(s) => {
                let c = s.concurrency.unwrap_or(1) as usize;
                match self.pool.lock() {
                    Ok(mut p) => p.fresh = Some(s),
                    Err(_) => s.close(&self.goodbye()),
                }
                c
            }
            Err(f) => {
                self.record(&f);
                if let Ok(mut p) = self.probe_fault.lock() {
                    *p = Some(f);
                }
                1
            }
        })
    }

    /// An idle process of `lane` (or the one that has played nothing yet), if any.
    pub(super) fn take_pooled(&self, lane: usize) -> Option<Session> {
        let mut p = self.pool.lock().ok()?;
        if p.over.contains(&lane) {
            return None;
        }
        p.used.insert(lane);
        match p.idle.get_mut(&lane).and_then(Vec::pop) {
            Some(s) => Some(s),
            None => p.fresh.take(),
        }
    }

    fn take_probe_fault(&self) -> Option<Fault> {
        self.probe_fault.lock().ok().and_then(|mut p| p.take())
    }

    /// Puts a healthy process back into the pool of its lane, or ends it (with a `match_end`)
    /// when its lane is over or the bot already has [`MAX_IDLE`] idle processes.
    pub(super) fn put_pooled(&self, lane: usize, s: Session) {
        let extra = match self.pool.lock() {
            Ok(mut p) if !p.over.contains(&lane) && p.idle_count() < MAX_IDLE => {
                p.idle.entry(lane).or_default().push(s);
                None
            }
            _ => Some(s),
        };
        if let Some(s) = extra {
            s.close(&self.goodbye());
        }
    }

    /// The phase of `lane` is over: its idle processes (and one that has played nothing yet,
    /// which was alive during that phase) are ended now, and none is pooled there again. When
    /// the bot played in it, the cached pages of its own files are then forgotten and its
    /// scratch folder (reduced jail) emptied: none of its processes is alive, since the runner
    /// opens one phase of a bot at a time.
    fn end_lane(&self, lane: usize) {
        let (ended, used) = match self.pool.lock() {
            Ok(mut p) => {
                p.over.insert(lane);
                let mut v = p.idle.remove(&lane).unwrap_or_default();
                v.extend(p.fresh.take());
                let used = p.used.remove(&lane);
                (v, used)
            }
            Err(_) => (Vec::new(), false),
        };
        close_all(ended, &self.goodbye());
        if used {
            let f = launch::forget(&self.own);
            if !f.unreadable.is_empty() {
                let what = format!(
                    "between two phases, {} folder(s) or file(s) of the bot could not be read to \
                     forget their cached pages (e.g. {}): a process of the next phase may time \
                     what the last one read there",
                    f.unreadable.len(),
                    f.unreadable[0].display()
                );
                tracing::warn!(bot = %self.label, "{what}");
                if let Ok(mut l) = self.launch.log.lock() {
                    l.note(&format!("warning: {what}"));
                }
            }
            if let Some(d) = &self.scratch {
                // The reduced jail's scratch folder outlives processes, unlike the full jail's
                // private /tmp: emptied, so that nothing written in one phase is read in the next.
                let _ = std::fs::remove_dir_all(d);
                let _ = std::fs::create_dir_all(d);
            }
        }
    }

    /// The `match_end` line a process gets when it is ended in good order.
    fn goodbye(&self) -> Vec<u8> {
        let end = ToBot::MatchEnd(MatchEnd {
            hands: self.hands.load(Ordering::Relaxed),
        });
        let mut line = serde_json::to_vec(&end).expect("serializes");
        line.push(b'\n');
        line
    }

    /// Takes one restart from the match's allowance; `false` (and the bot forfeits) when none is
    /// left.
    pub(super) fn grant_restart(&self) -> bool {
        let max = self.restarts_max;
        let granted = self
            .restarts
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |r| {
                (r < max).then_some(r + 1)
            })
            .is_ok();
        if !granted {
            self.forfeited.store(true, Ordering::Relaxed);
            if let Ok(mut l) = self.log.lock() {
                l.note(&format!(
                    "{max} restarts used: the bot forfeits the rest of the match"
                ));
            }
        }
        granted
    }

    pub(super) fn spawn(&self) -> Result<Session, Fault> {
        let k = self.spawns.fetch_add(1, Ordering::Relaxed);
        let mut l = self.launch.clone();
        l.transcript = self
            .transcripts
            .as_ref()
            .map(|d| d.join(format!("{}-{}.txt", self.label, k + 1)));
        l.transcript_cap = Some(self.transcript_cap.clone());
        let s = Session::start(&l)?;
        if let Ok(mut r) = self.report.lock() {
            r.name.clone_from(&s.name);
            r.games.clone_from(&s.games);
            r.concurrency = s.concurrency;
            r.compact = s.compact;
            r.terse = s.terse;
        }
        Ok(s)
    }

    pub(super) fn record(&self, f: &Fault) {
        if let Ok(mut r) = self.report.lock() {
            if r.faults.len() < 20 {
                r.faults.push(f.clone());
            }
        }
    }

    /// The report so far.
    pub fn report(&self) -> Report {
        let mut r = self.report.lock().map(|r| r.clone()).unwrap_or_default();
        r.restarts = self.restarts.load(Ordering::Relaxed);
        r.spawns = self.spawns.load(Ordering::Relaxed);
        r.forfeited = self.forfeited.load(Ordering::Relaxed);
        r.transcripts_cut = self.transcripts.is_some() && self.transcript_cap.reached();
        r
    }

    fn shutdown(&self) {
        let sessions: Vec<Session> = self
            .pool
            .lock()
            .map(|mut p| {
                let p = std::mem::take(&mut *p);
                p.idle.into_values().flatten().chain(p.fresh).collect()
            })
            .unwrap_or_default();
        close_all(sessions, &self.goodbye());
        if let Ok(mut l) = self.log.lock() {
            l.close();
        }
        if let Some(d) = &self.scratch {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// The lines as sent are written by hand ([`pitboss_protocol::encode`], the same bytes as the
/// derived serialisation, at a fraction of its cost).
pub(super) use pitboss_protocol::encode::{
    ActLine as ActOut, HandEndLine as HandEndOut, HandStartLine as HandStartOut,
};

/// An external bot in one seat of one worker.
pub struct ExternalPlayer {
    shared: Arc<Shared>,
    lane: usize,
    /// Timeouts in a row: a bot that stops answering (or reading) is restarted after
    /// [`TIMEOUT_STRIKES`] of them instead of costing every later decision its full limit.
    timeouts: u32,
    session: Option<Session>,
    start: Option<MatchStart>,
    pending: Option<Fault>,
    /// Why the bot is down until the next hand (it is restarted then).
    down: Option<FaultKind>,
    forfeited: bool,
    buf: Vec<u8>,
}

/// Timeouts in a row after which a process is stopped and restarted for the next hand.
pub const TIMEOUT_STRIKES: u32 = 3;

impl ExternalPlayer {
    fn new(shared: Arc<Shared>, lane: usize) -> ExternalPlayer {
        let pooled = shared.take_pooled(lane);
        let probe_fault = if pooled.is_none() {
            shared.take_probe_fault()
        } else {
            None
        };
        let mut p = ExternalPlayer {
            forfeited: shared.forfeited.load(Ordering::Relaxed),
            shared,
            lane,
            timeouts: 0,
            session: None,
            start: None,
            pending: None,
            down: None,
            buf: Vec::with_capacity(4096),
        };
        if p.forfeited {
            return p;
        }
        let started = match (pooled, probe_fault) {
            (Some(s), _) => Ok(s),
            (None, Some(f)) => Err(f),
            (None, None) => p.shared.spawn().inspect_err(|f| p.shared.record(f)),
        };
        match started {
            Ok(s) => p.session = Some(s),
            Err(f) => {
                p.down = Some(f.kind);
                p.pending = Some(f);
            }
        }
        p
    }

    fn on_fault(&mut self, f: &Fault) {
        self.shared.record(f);
        if f.kind == FaultKind::Timeout {
            self.timeouts += 1;
        }
        if is_fatal(f.kind) || self.timeouts >= TIMEOUT_STRIKES {
            self.timeouts = 0;
            if let Some(s) = self.session.take() {
                s.note(&format!("fault: {f}; stopping the process"));
                s.kill();
            }
            self.down = Some(f.kind);
        }
    }

    fn send<T: Serialize>(&mut self, msg: &T) -> Result<(), Fault> {
        self.send_with(|buf| {
            serde_json::to_writer(&mut *buf, msg).expect("serializes");
            buf.push(b'\n');
        })
    }

    /// Sends the line that `write` appends (newline included) to an empty buffer.
    fn send_with(&mut self, write: impl FnOnce(&mut Vec<u8>)) -> Result<(), Fault> {
        let budget = self.budget();
        let Some(s) = self.session.as_mut() else {
            return Ok(());
        };
        self.buf.clear();
        write(&mut self.buf);
        let r = s.exchange(&self.buf, None, budget).map(|_| ());
        if let Err(f) = &r {
            self.on_fault(f);
        }
        r
    }

    fn budget(&self) -> Duration {
        Duration::from_millis(self.shared.decision_ms + self.shared.bank.load(Ordering::Relaxed))
    }

    fn send_start(&mut self) -> Result<(), Fault> {
        let Some(mut m) = self.start.clone() else {
            return Ok(());
        };
        if self.session.as_ref().is_none_or(|s| s.started) {
            return Ok(());
        }
        m.bank_ms = self.shared.bank.load(Ordering::Relaxed);
        self.send(&ToBot::MatchStart(m))?;
        if let Some(s) = self.session.as_mut() {
            s.started = true;
        }
        Ok(())
    }

    /// Restarts a bot that is down, or forfeits when the restarts are used up.
    fn revive(&mut self) -> Result<(), Fault> {
        if !self.shared.grant_restart() {
            self.forfeited = true;
            return Ok(());
        }
        match self.shared.spawn() {
            Ok(s) => {
                self.session = Some(s);
                self.down = None;
                self.send_start()
            }
            Err(f) => {
                self.shared.record(&f);
                Err(f)
            }
        }
    }
}

impl Player for ExternalPlayer {
    fn match_start(&mut self, m: &MatchStart) -> Result<(), Fault> {
        let mut m = m.clone();
        m.decision_ms = self.shared.decision_ms;
        self.shared.hands.store(m.hands, Ordering::Relaxed);
        self.start = Some(m);
        if let Some(f) = self.pending.take() {
            return Err(f);
        }
        self.send_start()
    }

    fn hand_start(&mut self, h: &HandStart) -> Result<(), Fault> {
        if self.forfeited() {
            return Ok(());
        }
        if self.down.is_some() {
            self.revive()?;
            if self.forfeited {
                return Ok(());
            }
        }
        let table = self.session.as_ref().and_then(|s| s.concurrency.map(|_| 0));
        if let Some(s) = self.session.as_mut() {
            s.serve(self.lane, h.hand);
        }
        self.send_with(|buf| HandStartOut { table, h }.write(buf))
    }

    fn act(&mut self, req: &ActRequest) -> Result<Action, Fault> {
        if let Some(kind) = self.down {
            return Err(Fault::new(kind, "the bot is down until the next hand"));
        }
        let Some(s) = self.session.as_mut() else {
            return Err(Fault::new(FaultKind::Forfeit, "no process"));
        };
        let bank = self.shared.bank.load(Ordering::Relaxed);
        let id = s.next_id();
        let out = ActOut {
            id,
            table: s.concurrency.map(|_| 0),
            hand: req.hand,
            events: &req.events,
            view: (!s.compact).then_some(&req.view),
            legal: &req.legal,
            clock: Clock {
                decision_ms: self.shared.decision_ms,
                bank_ms: bank,
            },
            terse: s.terse,
        };
        self.buf.clear();
        out.write(&mut self.buf);
        let budget = Duration::from_millis(self.shared.decision_ms + bank);
        let started = std::time::Instant::now();
        let r = s.exchange(&self.buf, Some(id), budget);
        let elapsed = started.elapsed();
        let over = (elapsed.as_millis() as u64).saturating_sub(self.shared.decision_ms);
        if over > 0 {
            let _ = self
                .shared
                .bank
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| {
                    Some(b.saturating_sub(over))
                });
        }
        match r {
            Ok(Some((FromBot::Action(a), _))) if a.table.is_some_and(|t| t != 0) => {
                let f = Fault::new(
                    FaultKind::Malformed,
                    format!("reply for table {:?} to a request of table 0", a.table),
                );
                self.on_fault(&f);
                Err(f)
            }
            Ok(Some((FromBot::Action(a), took))) => {
                self.timeouts = 0;
                if let Ok(mut rep) = self.shared.report.lock() {
                    let us = took.as_micros() as u64;
                    rep.decisions += 1;
                    rep.total_us += us;
                    rep.max_us = rep.max_us.max(us);
                }
                Ok(a.action)
            }
            Ok(_) => {
                let f = Fault::new(
                    FaultKind::UnknownMessage,
                    "a hello where an action was expected",
                );
                self.on_fault(&f);
                Err(f)
            }
            Err(f) => {
                self.on_fault(&f);
                Err(f)
            }
        }
    }

    fn hand_end(&mut self, h: &HandEnd) -> Result<(), Fault> {
        if self.down.is_some() || self.forfeited {
            return Ok(());
        }
        let table = self.session.as_ref().and_then(|s| s.concurrency.map(|_| 0));
        let terse = self.session.as_ref().is_some_and(|s| s.terse);
        self.send_with(|buf| HandEndOut { table, h, terse }.write(buf))
    }

    fn forfeited(&self) -> bool {
        self.forfeited || self.shared.forfeited.load(Ordering::Relaxed)
    }

    fn needs_view(&self) -> bool {
        self.session.as_ref().is_none_or(|s| !s.compact)
    }

    fn finish(&mut self) {
        if let Some(s) = self.session.take() {
            self.shared.put_pooled(self.lane, s);
        }
    }
}

impl Drop for ExternalPlayer {
    fn drop(&mut self) {
        if let Some(s) = self.session.take() {
            s.kill();
        }
    }
}

fn log_error_free(log: &Mutex<BotLog>) -> bool {
    log.lock().is_ok_and(|l| l.error().is_none())
}

/// What the jail enforces (or that it is off), in one line.
pub fn jail_description(enabled: bool) -> String {
    if enabled {
        pitboss_jail::features().describe()
    } else {
        "jail: OFF (--no-sandbox): bots run with the referee's rights and see its files".into()
    }
}

enum Entry {
    Builtin(String),
    External(Arc<Shared>),
}

/// A spec that passed every check, before anything of it is written to the output folder.
enum Ready {
    Builtin(String),
    External(Box<(ExternalSpec, String, Arc<Mutex<BotLog>>, launch::Prepared)>),
}

/// Creates players for every kind of spec: built-in bots in-process, external bots as processes.
pub struct ExternalFactory {
    entries: Vec<Entry>,
    builtin: BuiltinFn,
    sandbox: bool,
    /// `bots/processes.csv` of the output folder, when a bot runs as processes.
    ledger_path: Option<PathBuf>,
}

impl ExternalFactory {
    /// Parses and prepares every spec (building external bots that have a build command).
    ///
    /// # Errors
    /// [`SpecError`] for a spec that cannot be used.
    pub fn new(
        specs: &[String],
        builtin: BuiltinFn,
        opts: &ExternalOptions,
    ) -> Result<ExternalFactory, SpecError> {
        let is_builtin = |s: &str| builtin(s, 1).is_some();
        let parsed: Vec<BotSpec> = specs
            .iter()
            .map(|s| BotSpec::parse(s, &is_builtin))
            .collect::<Result<_, _>>()?;
        Self::from_specs(parsed, builtin, opts)
    }

    /// Like [`Self::new`] with parsed specs.
    ///
    /// # Errors
    /// [`SpecError`] for a spec that cannot be used.
    pub fn from_specs(
        specs: Vec<BotSpec>,
        builtin: BuiltinFn,
        opts: &ExternalOptions,
    ) -> Result<ExternalFactory, SpecError> {
        let mut entries = Vec::new();
        let any_external = specs.iter().any(|s| matches!(s, BotSpec::External(_)));
        if any_external {
            super::session::become_subreaper();
        }
        let mkdir = |p: &PathBuf| {
            std::fs::create_dir_all(p).map_err(|source| SpecError::Read {
                path: p.display().to_string(),
                source,
            })
        };
        // First every spec is built and checked, writing nothing into the output folder: a spec
        // refused there (an output folder the bot could read, say) must not leave a bot's log
        // behind, which would make the same `--out` "not empty" when the user fixes the spec.
        let mut ready = Vec::new();
        for (i, s) in specs.into_iter().enumerate() {
            match s {
                BotSpec::Builtin(n) => ready.push(Ready::Builtin(n)),
                BotSpec::External(e) => {
                    super::build::build(&e, &opts.build)?;
                    // The label names the bot's files: its name is of the set of
                    // `pitboss_arena::name` already (checked or sanitized when the spec was
                    // read); sanitized again here so that every bot gets its log whatever a
                    // caller put in `name`.
                    let label = format!("{}-{}", i + 1, pitboss_arena::name::sanitize(&e.name));
                    // No file yet: the log is opened below, once every spec has passed.
                    let log = Arc::new(Mutex::new(BotLog::new(None, LOG_CAP)));
                    let prep = launch::prepare(
                        &e,
                        &label,
                        opts.limits,
                        opts.sandbox,
                        opts.allow_read_outside,
                        &opts.out,
                        log.clone(),
                    )?;
                    ready.push(Ready::External(Box::new((e, label, log, prep))));
                }
            }
        }
        for r in ready {
            let e = match r {
                Ready::Builtin(n) => Entry::Builtin(n),
                Ready::External(b) => {
                    let (e, label, log, mut prep) = *b;
                    let logs = opts.out.join("bots");
                    mkdir(&logs)?;
                    let transcripts = opts.transcript.then(|| opts.out.join("transcripts"));
                    if let Some(t) = &transcripts {
                        mkdir(t)?;
                    }
                    let log_path = logs.join(format!("{label}.log"));
                    if let Ok(mut l) = log.lock() {
                        *l = BotLog::new(Some(log_path.clone()), LOG_CAP);
                    }
                    let log_error = log.lock().ok().and_then(|l| l.error().map(String::from));
                    if let Some(why) = log_error {
                        prep.warnings
                            .push(format!("no log file: {why} (its stderr is dropped)"));
                    }
                    for w in &prep.warnings {
                        tracing::warn!(bot = %e.name, "{w}");
                        if let Ok(mut l) = log.lock() {
                            l.note(&format!("warning: {w}"));
                        }
                    }
                    let mut launch: Launch = prep.launch;
                    launch.freeze_idle = opts.freeze_idle;
                    let ledger = Ledger::default();
                    launch.ledger = Some(ledger.clone());
                    if let Ok(mut l) = log.lock() {
                        l.note(&jail_description(opts.sandbox));
                    }
                    let lim = prep.limits;
                    let transcript_files = transcripts
                        .as_ref()
                        .map(|d| d.join(format!("{label}-*.txt")));
                    Entry::External(Arc::new(Shared {
                        label,
                        decision_ms: lim.decision_ms.unwrap_or(spec::DEFAULT_DECISION_MS),
                        restarts_max: lim.restarts.unwrap_or(spec::DEFAULT_RESTARTS),
                        bank: AtomicU64::new(lim.bank_ms.unwrap_or(spec::DEFAULT_BANK_MS)),
                        spec: e,
                        launch,
                        transcript_cap: opts
                            .transcript_share
                            .clone()
                            .unwrap_or_else(|| TranscriptCap::new(TRANSCRIPT_CAP)),
                        transcripts,
                        restarts: AtomicU32::new(0),
                        spawns: AtomicU32::new(0),
                        forfeited: AtomicBool::new(false),
                        hands: AtomicU64::new(0),
                        pool: Mutex::new(Pool::default()),
                        probe: std::sync::OnceLock::new(),
                        probe_fault: Mutex::new(None),
                        report: Mutex::new(Report {
                            warnings: prep.warnings,
                            log: log_error_free(&log).then_some(log_path),
                            transcripts: transcript_files,
                            ..Report::default()
                        }),
                        log,
                        scratch: prep.scratch,
                        ledger,
                        own: prep.own,
                    }))
                }
            };
            entries.push(e);
        }
        Ok(ExternalFactory {
            entries,
            builtin,
            sandbox: opts.sandbox,
            ledger_path: any_external.then(|| opts.out.join("bots").join("processes.csv")),
        })
    }

    /// Whether any bot runs as a process.
    pub fn has_external(&self) -> bool {
        self.entries.iter().any(|e| matches!(e, Entry::External(_)))
    }

    /// Whether bot `index` runs as processes.
    pub fn is_external(&self, index: usize) -> bool {
        matches!(self.entries.get(index), Some(Entry::External(_)))
    }

    /// The records of the processes that have ended, with the index of their bot, in order of
    /// their end.
    pub fn ledger(&self) -> Vec<(usize, ProcessRecord)> {
        let mut all = Vec::new();
        for (i, e) in self.entries.iter().enumerate() {
            if let Entry::External(s) = e {
                if let Ok(l) = s.ledger.lock() {
                    all.extend(l.iter().map(|r| (i, r.clone())));
                }
            }
        }
        all.sort_by_key(|(_, r)| r.ended_us);
        all
    }

    /// `bots/processes.csv`: one line per process — bot (its log's label), pid, start and end on
    /// the referee's clock (µs), lanes, hands dealt into (count, first, last) and the hands as
    /// runs `first+step*count` (`…` at the end when cut). Hands are numbered from 1, as in
    /// `hands.csv` (the protocol's `hand` plus one).
    fn write_ledger(&self) {
        let Some(path) = &self.ledger_path else {
            return;
        };
        let mut text =
            String::from("bot,pid,started_us,ended_us,lanes,hands,first_hand,last_hand,runs\n");
        for (i, r) in self.ledger() {
            let Entry::External(s) = &self.entries[i] else {
                continue;
            };
            let lanes: Vec<String> = r.lanes.iter().map(ToString::to_string).collect();
            let runs: Vec<String> = r
                .runs
                .iter()
                .map(|h| format!("{}+{}*{}", h.first + 1, h.step, h.count))
                .collect();
            let opt = |x: Option<u64>| x.map_or_else(String::new, |v| (v + 1).to_string());
            text.push_str(&format!(
                "{},{},{},{},{},{},{},{},{}{}\n",
                s.label,
                r.pid,
                r.started_us,
                r.ended_us,
                lanes.join(" "),
                r.hands,
                opt(r.first_hand),
                opt(r.last_hand),
                runs.join(" "),
                if r.truncated { " …" } else { "" }
            ));
        }
        let _ = pitboss_arena::output::write_atomic(path, text.as_bytes());
    }

    /// What the jail enforces, in one line.
    pub fn sandbox_description(&self) -> String {
        jail_description(self.sandbox)
    }

    /// Reports of the external bots, by index in the match's bot list.
    pub fn reports(&self) -> Vec<Option<Report>> {
        self.entries
            .iter()
            .map(|e| match e {
                Entry::External(s) => Some(s.report()),
                Entry::Builtin(_) => None,
            })
            .collect()
    }

    /// Sends the match end to every process, then stops them, and writes `bots/processes.csv`.
    /// Also done on drop.
    pub fn shutdown(&self) {
        for e in &self.entries {
            if let Entry::External(s) = e {
                s.shutdown();
            }
        }
        self.write_ledger();
    }
}

impl Drop for ExternalFactory {
    fn drop(&mut self) {
        self.shutdown();
    }
}

impl BotFactory for ExternalFactory {
    fn create(&self, index: usize, seed: u64, lane: usize) -> Result<Box<dyn Player>, Fault> {
        match &self.entries[index] {
            Entry::Builtin(name) => (self.builtin)(name, seed)
                .map(|b| Box::new(InProcess(b)) as Box<dyn Player>)
                .ok_or_else(|| Fault::new(FaultKind::Handshake, format!("no built-in bot {name}"))),
            Entry::External(s) => Ok(Box::new(ExternalPlayer::new(s.clone(), lane))),
        }
    }

    fn concurrency(&self, index: usize) -> usize {
        match &self.entries[index] {
            Entry::Builtin(_) => usize::MAX,
            Entry::External(s) => s.concurrency(),
        }
    }

    fn has_processes(&self) -> bool {
        self.has_external()
    }

    fn end_lane(&self, lane: usize) {
        let shared: Vec<&Arc<Shared>> = self
            .entries
            .iter()
            .filter_map(|e| match e {
                Entry::External(s) => Some(s),
                Entry::Builtin(_) => None,
            })
            .collect();
        // Every bot's processes at once (each closes its own in parallel too).
        std::thread::scope(|scope| {
            for s in shared {
                scope.spawn(move || s.end_lane(lane));
            }
        });
    }

    fn create_multi(
        &self,
        index: usize,
        lane: usize,
    ) -> Result<pitboss_arena::multi::SharedProcess, Fault> {
        match &self.entries[index] {
            Entry::Builtin(name) => Err(Fault::new(
                FaultKind::Handshake,
                format!("{name} is played in-process"),
            )),
            Entry::External(s) => {
                if let Some(f) = s.take_probe_fault() {
                    return Err(f);
                }
                Ok(Arc::new(Mutex::new(super::multi::Mux::new(
                    s.clone(),
                    lane,
                ))))
            }
        }
    }
}
