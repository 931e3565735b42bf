//! Protocol 1.1: one bot process playing several tables at once ([`pitboss_arena::multi`] drives it).
//!
//! Requests of all tables go out together; replies are matched by `id` and may come in any order.
//! Each request has its own clock (from the write); faults are per table. What cannot be charged
//! to one table — the process exits, closes its stdout, writes a line too long, a reply to no
//! request, a line without an id, a flood of stale replies — stops the process: every request
//! still pending gets that fault, and the process is restarted at its next hand start under the
//! same restart limit as in version 1. Tables that were mid-hand then get "down" faults until
//! their own next hand.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pitboss_protocol::{
    ActRequest, Action, Clock, FaultKind, FromBot, HandEnd, HandStart, MatchStart, ToBot,
};

use super::lines::Batch;
use super::player::{ActOut, HandEndOut, HandStartOut, Shared, TIMEOUT_STRIKES};
use super::procs::reply_id;
use super::session::{shown, Session, Stale};
use pitboss_arena::multi::MultiProcess;
use pitboss_arena::player::Fault;

struct Pending {
    table: u32,
    /// The decision time plus the bank when the request was queued.
    limit: Duration,
    /// When the request was written, and `sent + limit`: set by [`Mux::stamp`] at the flush that
    /// writes it (until then a placeholder).
    sent: Instant,
    deadline: Instant,
}

/// The requests waiting for a reply, in the order sent (ids increase: one process's requests,
/// and the set is empty when a new process starts): at most `MAX_CONCURRENCY`. A reply is found by
/// binary search, it is out of order exactly when it is not the first, and replies mostly come in
/// order, so it is mostly taken from the front. (A hash map's SipHash showed in the referee's
/// instruction profile, and then a vector's linear searches, with 64 tables in flight.)
#[derive(Default)]
struct Pendings {
    by_id: VecDeque<(u64, Pending)>,
    /// At most the earliest deadline of the requests (`None`: none written yet). A bound, not
    /// the minimum: it is lowered when requests are written and raised only when the requests
    /// are scanned for late ones, which is needed only once it has passed.
    soonest: Option<Instant>,
}

impl Pendings {
    fn insert(&mut self, id: u64, p: Pending) {
        debug_assert!(self.by_id.back().is_none_or(|(last, _)| *last < id));
        self.by_id.push_back((id, p));
    }
    /// The request `id`, and whether an older request is still pending.
    fn remove(&mut self, id: u64) -> Option<(Pending, bool)> {
        if self.by_id.front().is_some_and(|(k, _)| *k == id) {
            return self.by_id.pop_front().map(|(_, p)| (p, false));
        }
        let i = self.by_id.binary_search_by_key(&id, |(k, _)| *k).ok()?;
        let (_, p) = self.by_id.remove(i)?;
        Some((p, i > 0))
    }
    fn drain(&mut self) -> std::collections::vec_deque::Drain<'_, (u64, Pending)> {
        self.soonest = None;
        self.by_id.drain(..)
    }
    /// Starts the clocks of the last `n` requests (those queued since the last flush: only
    /// pushes happen between two flushes; removals come with `collect`, after the flush).
    fn stamp(&mut self, n: usize, now: Instant) {
        let from = self.by_id.len().saturating_sub(n);
        for (_, p) in self.by_id.range_mut(from..) {
            p.sent = now;
            p.deadline = now + p.limit;
            self.soonest = Some(self.soonest.map_or(p.deadline, |s| s.min(p.deadline)));
        }
    }
    /// The ids of the requests whose deadline is at or before `now`, in `late`; the bound on the
    /// deadlines is then the exact earliest deadline of the others.
    fn late(&mut self, now: Instant, late: &mut Vec<u64>) {
        if self.soonest.is_none_or(|s| s > now) {
            return;
        }
        self.soonest = None;
        for (id, p) in &self.by_id {
            if p.deadline <= now {
                late.push(*id);
            } else {
                self.soonest = Some(self.soonest.map_or(p.deadline, |s| s.min(p.deadline)));
            }
        }
    }
    /// At most the earliest deadline of a pending request.
    fn soonest(&self) -> Option<Instant> {
        self.soonest.filter(|_| !self.is_empty())
    }
    fn len(&self) -> usize {
        self.by_id.len()
    }
    fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }
}

/// A bot process serving several tables of one worker (and lane).
pub struct Mux {
    shared: Arc<Shared>,
    lane: usize,
    session: Option<Session>,
    /// Incremented at every new process; a table started its hand on generation `gen[table]`.
    generation: u64,
    /// By table (tables are numbered from 0, fewer than `MAX_CONCURRENCY`): a vector, not a
    /// hash map, since it is looked up at every request.
    gen: Vec<u64>,
    start: Option<MatchStart>,
    pending: Pendings,
    answers: Vec<(u32, Result<Action, Fault>)>,
    down: Option<FaultKind>,
    /// Why the first process did not start (the match start's fault).
    failed: Option<Fault>,
    forfeited: bool,
    timeouts: u32,
    /// Stale replies since the last answer (lines and bytes).
    stale: Stale,
    buf: Vec<u8>,
    lines: Batch,
    /// Requests queued but not yet written (the last entries of `pending`): their clocks start
    /// at the flush, with one clock read for the whole batch.
    unstamped: usize,
    /// The placeholder `sent` of a request until its flush (never used as a start time).
    born: Instant,
    /// Reply statistics of one `collect`, added to the shared report once per call rather than
    /// under its lock at every reply.
    tally: Tally,
}

/// Counts for the shared [`super::player::Report`], gathered over one `collect`.
#[derive(Default)]
struct Tally {
    decisions: u64,
    total_us: u64,
    max_us: u64,
    out_of_order: u64,
}

impl Mux {
    /// A pooled process of `lane`, else a new one (a process that does not start leaves the
    /// bot down until its first hand, when it is restarted as after a crash).
    pub(super) fn new(shared: Arc<Shared>, lane: usize) -> Mux {
        let (session, failed) = match shared.take_pooled(lane).map_or_else(|| shared.spawn(), Ok) {
            Ok(s) => (Some(s), None),
            Err(f) => {
                shared.record(&f);
                (None, Some(f))
            }
        };
        Mux {
            forfeited: shared.forfeited.load(Ordering::Relaxed),
            shared,
            lane,
            down: failed.as_ref().map(|f| f.kind),
            failed,
            session,
            generation: 1,
            gen: Vec::new(),
            start: None,
            pending: Pendings::default(),
            answers: Vec::new(),
            timeouts: 0,
            stale: Stale::default(),
            buf: Vec::with_capacity(4096),
            lines: Batch::default(),
            unstamped: 0,
            born: Instant::now(),
            tally: Tally::default(),
        }
    }

    /// Starts the clocks of the requests queued since the last flush at `now` (just before the
    /// write that sends them), and notes the most requests in flight: between two flushes the
    /// pending requests only grow, so their count here is the window's peak.
    fn stamp(&mut self, now: Instant) {
        if self.unstamped == 0 {
            return;
        }
        self.pending.stamp(self.unstamped, now);
        self.unstamped = 0;
        let n = self.pending.len() as u32;
        if let Ok(mut rep) = self.shared.report.lock() {
            rep.max_in_flight = rep.max_in_flight.max(n);
        }
    }

    /// Adds the tally of this `collect` to the shared report (one lock).
    fn report(&mut self) {
        let t = std::mem::take(&mut self.tally);
        if t.decisions == 0 && t.out_of_order == 0 {
            return;
        }
        if let Ok(mut rep) = self.shared.report.lock() {
            rep.decisions += t.decisions;
            rep.total_us += t.total_us;
            rep.max_us = rep.max_us.max(t.max_us);
            rep.out_of_order += t.out_of_order;
        }
    }

    fn budget(&self) -> Duration {
        Duration::from_millis(self.shared.decision_ms + self.shared.bank.load(Ordering::Relaxed))
    }

    /// Stops the process after a fault that belongs to no table or leaves it unusable: every
    /// pending request gets the fault.
    fn stop(&mut self, f: &Fault) {
        self.shared.record(f);
        if let Some(s) = self.session.take() {
            s.note(&format!("fault: {f}; stopping the process"));
            s.kill();
        }
        self.down = Some(f.kind);
        self.timeouts = 0;
        self.stale = Stale::default();
        self.unstamped = 0;
        for (_, p) in self.pending.drain() {
            self.answers.push((p.table, Err(f.clone())));
        }
    }

    fn queue<T: serde::Serialize>(&mut self, msg: &T) {
        let Some(s) = self.session.as_mut() else {
            return;
        };
        self.buf.clear();
        serde_json::to_writer(&mut self.buf, msg).expect("serializes");
        self.buf.push(b'\n');
        s.queue(&self.buf);
    }

    /// Queues the line that `write` appends (newline included).
    fn queue_with(&mut self, write: impl FnOnce(&mut Vec<u8>)) {
        let Some(s) = self.session.as_mut() else {
            return;
        };
        s.queue_with(write);
    }

    fn send_start(&mut self) {
        let Some(mut m) = self.start.clone() else {
            return;
        };
        if self.session.as_ref().is_none_or(|s| s.started) {
            return;
        }
        m.bank_ms = self.shared.bank.load(Ordering::Relaxed);
        self.queue(&ToBot::MatchStart(m));
        if let Some(s) = self.session.as_mut() {
            s.started = true;
        }
    }

    /// Restarts a process that is down, or forfeits when the restarts are used up.
    fn revive(&mut self) -> Result<(), Fault> {
        if !self.shared.grant_restart() {
            self.forfeited = true;
            return Ok(());
        }
        let s = self.shared.spawn().inspect_err(|f| self.shared.record(f))?;
        self.session = Some(s);
        self.generation += 1;
        self.down = None;
        self.send_start();
        Ok(())
    }

    /// One reply line, read by `now`.
    fn settle(&mut self, line: &[u8], now: Instant) {
        let reply = pitboss_protocol::parse_reply(line);
        let id = match &reply {
            Ok(FromBot::Action(a)) => a.id,
            Ok(FromBot::Hello(_)) => {
                let f = Fault::new(
                    FaultKind::UnknownMessage,
                    format!("a hello where actions were expected: {}", shown(line)),
                );
                return self.stop(&f);
            }
            Err(_) => match reply_id(line).ok().or_else(|| loose_id(line)) {
                Some(id) => id,
                None => {
                    let f = Fault::new(
                        FaultKind::Malformed,
                        format!("a line that answers no request: {}", shown(line)),
                    );
                    return self.stop(&f);
                }
            },
        };
        let seq = self.session.as_ref().map_or(0, Session::last_id);
        let Some((p, out_of_order)) = self.pending.remove(id) else {
            if id <= seq {
                if let Some(why) = self.stale.add(line.len()) {
                    let f = Fault::new(FaultKind::Malformed, why);
                    return self.stop(&f);
                }
                if let Some(s) = &self.session {
                    s.note(&format!(
                        "late reply to request {id} discarded: {}",
                        shown(line)
                    ));
                }
                return;
            }
            let f = Fault::new(
                FaultKind::Malformed,
                format!("reply id {id} answers no request sent: {}", shown(line)),
            );
            return self.stop(&f);
        };
        let took = now.saturating_duration_since(p.sent);
        self.charge(took);
        if out_of_order {
            self.tally.out_of_order += 1;
        }
        let answer = match reply {
            Ok(FromBot::Action(a)) if a.table.is_some_and(|t| t != p.table) => Err(Fault::new(
                FaultKind::Malformed,
                format!(
                    "reply to request {id} of table {} names table {}",
                    p.table,
                    a.table.unwrap_or_default()
                ),
            )),
            Ok(FromBot::Action(a)) => {
                self.timeouts = 0;
                self.stale = Stale::default();
                let us = took.as_micros() as u64;
                self.tally.decisions += 1;
                self.tally.total_us += us;
                self.tally.max_us = self.tally.max_us.max(us);
                Ok(a.action)
            }
            Ok(FromBot::Hello(_)) => unreachable!("handled above"),
            Err(e) => Err(super::session::classify(line, &e)),
        };
        if let Err(f) = &answer {
            self.shared.record(f);
            if let Some(s) = &self.session {
                s.note(&f.to_string());
            }
        }
        self.answers.push((p.table, answer));
    }

    /// Time over the decision limit comes out of the bank.
    fn charge(&self, took: Duration) {
        let over = (took.as_millis() as u64).saturating_sub(self.shared.decision_ms);
        if over > 0 {
            let _ = self
                .shared
                .bank
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| {
                    Some(b.saturating_sub(over))
                });
        }
    }
}

/// The `id` of a line that is JSON with an integer `id` but not a valid reply.
fn loose_id(line: &[u8]) -> Option<u64> {
    serde_json::from_slice::<serde_json::Value>(line)
        .ok()?
        .get("id")?
        .as_u64()
}

impl MultiProcess for Mux {
    fn match_start(&mut self, m: &MatchStart) -> Result<(), Fault> {
        let mut m = m.clone();
        m.decision_ms = self.shared.decision_ms;
        self.shared.hands.store(m.hands, Ordering::Relaxed);
        self.start = Some(m);
        if let Some(f) = self.failed.take() {
            return Err(f);
        }
        self.send_start();
        Ok(())
    }

    fn hand_start(&mut self, table: u32, h: &HandStart) -> Result<(), Fault> {
        if self.forfeited() {
            return Ok(());
        }
        if self.down.is_some() && self.pending.is_empty() {
            self.revive()?;
            if self.forfeited {
                return Ok(());
            }
        }
        if self.down.is_some() {
            return Ok(());
        }
        let t = table as usize;
        if self.gen.len() <= t {
            self.gen.resize(t + 1, 0);
        }
        self.gen[t] = self.generation;
        let lane = self.lane;
        if let Some(s) = self.session.as_mut() {
            s.serve(lane, h.hand);
        }
        self.queue_with(|buf| {
            HandStartOut {
                table: Some(table),
                h,
            }
            .write(buf)
        });
        Ok(())
    }

    fn submit(&mut self, table: u32, req: &ActRequest) -> Result<(), Fault> {
        if let Some(kind) = self.down {
            return Err(Fault::new(kind, "the bot is down until the next hand"));
        }
        if self.gen.get(table as usize) != Some(&self.generation) {
            return Err(Fault::new(
                FaultKind::Crash,
                "the process was restarted during this hand: down until the next hand",
            ));
        }
        let bank = self.shared.bank.load(Ordering::Relaxed);
        let Some(s) = self.session.as_mut() else {
            return Err(Fault::new(FaultKind::Forfeit, "no process"));
        };
        let id = s.next_id();
        let out = ActOut {
            id,
            table: Some(table),
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
        s.queue_with(|buf| out.write(buf));
        self.pending.insert(
            id,
            Pending {
                table,
                limit: Duration::from_millis(self.shared.decision_ms + bank),
                sent: self.born,
                deadline: self.born,
            },
        );
        self.unstamped += 1;
        Ok(())
    }

    fn hand_end(&mut self, table: u32, h: &HandEnd) -> Result<(), Fault> {
        if self.down.is_some()
            || self.forfeited
            || self.gen.get(table as usize) != Some(&self.generation)
        {
            return Ok(());
        }
        if !self.pending.is_empty() {
            if let Ok(mut rep) = self.shared.report.lock() {
                rep.ended_while_waiting += 1;
            }
        }
        let terse = self.session.as_ref().is_some_and(|s| s.terse);
        self.queue_with(|buf| {
            HandEndOut {
                table: Some(table),
                h,
                terse,
            }
            .write(buf)
        });
        Ok(())
    }

    fn forfeited(&self) -> bool {
        self.forfeited || self.shared.forfeited.load(Ordering::Relaxed)
    }

    fn needs_view(&self) -> bool {
        self.session.as_ref().is_none_or(|s| !s.compact)
    }

    fn flush(&mut self) {
        let budget = self.budget();
        let Some(s) = self.session.as_ref() else {
            return;
        };
        if !s.has_queued() {
            return;
        }
        // One clock read for the batch: every request in it starts its clock at this write.
        let now = Instant::now();
        self.stamp(now);
        if let Some(s) = self.session.as_mut() {
            if let Err(f) = s.flush(now, budget) {
                self.stop(&f);
            }
        }
    }

    fn fd(&self) -> Option<i32> {
        self.session.as_ref().map(Session::stdout_fd)
    }

    fn deadline(&self) -> Option<Instant> {
        if !self.answers.is_empty() || self.session.as_ref().is_some_and(Session::has_line) {
            return Some(Instant::now());
        }
        // A bound that may be early: `collect` then finds nothing late and tightens it.
        self.pending.soonest()
    }

    fn collect(&mut self, out: &mut Vec<(u32, Result<Action, Fault>)>) {
        let mut now = None;
        if let Some(s) = self.session.as_mut() {
            let mut lines = std::mem::take(&mut self.lines);
            lines.clear();
            // What has arrived, now: a partial line is not waited for (its end comes later).
            let read = s.read_ready(&mut lines, Duration::ZERO);
            // One clock read for the batch: its replies all arrived by now.
            let t = *now.insert(Instant::now());
            // A request queued without a flush (the driver flushes before it waits) starts here.
            self.stamp(t);
            for i in 0..lines.len() {
                if self.session.is_none() {
                    break;
                }
                self.settle(lines.get(i), t);
            }
            self.lines = lines;
            if let Err(f) = read {
                self.stop(&f);
            }
        }
        let now = now.unwrap_or_else(Instant::now);
        self.stamp(now);
        let mut late = Vec::new();
        self.pending.late(now, &mut late);
        for id in late {
            let Some((p, _)) = self.pending.remove(id) else {
                continue;
            };
            self.charge(now.saturating_duration_since(p.sent));
            let f = Fault::new(
                FaultKind::Timeout,
                format!(
                    "no reply to request {id} (table {}) within {} ms",
                    p.table,
                    p.limit.as_millis()
                ),
            );
            self.shared.record(&f);
            if let Some(s) = &self.session {
                s.note(&f.to_string());
            }
            self.answers.push((p.table, Err(f)));
            self.timeouts += 1;
        }
        if self.timeouts >= TIMEOUT_STRIKES {
            let f = Fault::new(
                FaultKind::Timeout,
                format!("{TIMEOUT_STRIKES} timeouts in a row"),
            );
            self.stop(&f);
        }
        if self.pending.is_empty() {
            if let Some(s) = self.session.as_mut() {
                s.idle();
            }
        }
        self.report();
        out.append(&mut self.answers);
    }

    fn finish(&mut self) {
        if !self.pending.is_empty() {
            let f = Fault::new(FaultKind::Crash, "requests pending at the end of a block");
            self.stop(&f);
        }
        if let Some(s) = self.session.take() {
            self.shared.put_pooled(self.lane, s);
        }
    }
}

impl Drop for Mux {
    fn drop(&mut self) {
        if let Some(s) = self.session.take() {
            s.kill();
        }
    }
}
