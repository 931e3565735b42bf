//! Several tables in flight on one worker thread (protocol 1.1 `concurrency`): a block's hands
//! are dealt to `K` tables (table `j` plays hands `j, j + K, …` of the block, in order; in a phase
//! of a duplicate match, the `j`-th, `j + K`-th, … hand of the block's rotation), every
//! table has its own [`Referee`] and in-process bots, and the external bots that play several
//! tables at once are one process per bot (and lane) for all `K` tables. The loop runs each table
//! until it waits for a process, writes every process's requests in one write, waits for any
//! reply (or the earliest deadline) with `poll`, and feeds the answers back. The hands are then
//! recorded in hand order, so the files do not depend on the order in which replies came.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use pitboss_cards::{Deck, DeckKey};
use pitboss_protocol::{ActRequest, Action, FaultKind, HandEnd, HandStart, MatchStart};
use pitboss_rules::{Event, Seat, Table};

use crate::config::MatchConfig;
use crate::player::{Fault, Player};
use crate::referee::{Referee, SeatFault};
use crate::runner::{derive_seed, match_start, slot, BotFactory, Forfeited, Part, Recorder};

/// One process that plays several tables at once, seen from the worker that drives it.
pub trait MultiProcess: Send {
    /// The match start (sent once per process).
    fn match_start(&mut self, m: &MatchStart) -> Result<(), Fault>;
    /// A hand starts at `table` (a process that is down is restarted here, as in version 1).
    fn hand_start(&mut self, table: u32, h: &HandStart) -> Result<(), Fault>;
    /// Sends a decision request of `table`; the answer comes through [`MultiProcess::collect`].
    /// An error is the answer now (the process is down, or forfeited).
    fn submit(&mut self, table: u32, req: &ActRequest) -> Result<(), Fault>;
    fn hand_end(&mut self, table: u32, h: &HandEnd) -> Result<(), Fault>;
    fn forfeited(&self) -> bool;
    /// Writes what was queued.
    fn flush(&mut self);
    /// The descriptor to wait on while requests are pending.
    fn fd(&self) -> Option<i32>;
    /// The earliest deadline of a pending request.
    fn deadline(&self) -> Option<Instant>;
    /// Answers that arrived (or timed out), by table.
    fn collect(&mut self, out: &mut Vec<(u32, Result<Action, Fault>)>);
    /// The block is over (the process goes back to its pool).
    fn finish(&mut self);
    /// Whether requests to this process carry the view (false: it asked for compact messages).
    fn needs_view(&self) -> bool {
        true
    }
}

/// A shared process.
pub type SharedProcess = Arc<Mutex<dyn MultiProcess>>;

/// A seat at table `table` played by a shared process.
struct TableSeat {
    process: SharedProcess,
    table: u32,
}

impl TableSeat {
    fn with<T>(&self, f: impl FnOnce(&mut dyn MultiProcess) -> T) -> T {
        let mut g = self.process.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut *g)
    }
}

impl Player for TableSeat {
    fn match_start(&mut self, m: &MatchStart) -> Result<(), Fault> {
        if self.table == 0 {
            self.with(|p| p.match_start(m))
        } else {
            Ok(())
        }
    }
    fn hand_start(&mut self, h: &HandStart) -> Result<(), Fault> {
        let t = self.table;
        self.with(|p| p.hand_start(t, h))
    }
    fn act(&mut self, _req: &ActRequest) -> Result<Action, Fault> {
        Err(Fault::new(
            FaultKind::Forfeit,
            "a shared process is asked through the worker",
        ))
    }
    fn hand_end(&mut self, h: &HandEnd) -> Result<(), Fault> {
        let t = self.table;
        self.with(|p| p.hand_end(t, h))
    }
    fn forfeited(&self) -> bool {
        self.with(|p| p.forfeited())
    }
    fn deferred(&self) -> bool {
        true
    }
    fn needs_view(&self) -> bool {
        self.with(|p| p.needs_view())
    }
}

/// The tables of a match on one worker: the smallest concurrency of its bots, or 1 when no bot
/// is a process that plays several tables.
pub(crate) fn tables(factory: &dyn BotFactory, n: usize) -> usize {
    let k = (0..n).map(|i| factory.concurrency(i)).min().unwrap_or(1);
    if k == usize::MAX {
        1
    } else {
        k.max(1)
    }
}

struct Tab {
    referee: Referee,
    /// Players by lane.
    lanes: Vec<Vec<Box<dyn Player>>>,
    /// The hand being played (its place in the sequence, its number, its rotation), and the
    /// seat waiting for a process.
    hand: Option<(u64, u64, usize)>,
    waiting: Option<usize>,
    /// The place in the sequence of the next hand this table plays.
    next: u64,
}

/// The hands one worker plays on several tables at once, and where each is dealt from.
pub struct Hands<'a> {
    pub table: &'a Table,
    pub key: &'a DeckKey,
    /// Bots (seats) at the table.
    pub n: usize,
    /// Duplicate: hand `k` is deal `k / n` in rotation `k % n`, and each rotation is a lane with
    /// players of its own (see [`slot`]).
    pub duplicate: bool,
    /// The hand numbers: table `j` plays `start + j`, `start + j + k`, … in order.
    pub range: Range<u64>,
    /// Duplicate: only the hands of this seat rotation (`range` starts at a multiple of `n`), with
    /// one lane of players; table `j` then plays the `j`-th, `j + k`-th, … of them.
    pub rotation: Option<usize>,
}

impl Hands<'_> {
    /// Lanes of players: one per rotation when a duplicate range is played whole.
    pub fn lanes(&self) -> usize {
        if self.duplicate && self.rotation.is_none() {
            self.n
        } else {
            1
        }
    }

    /// The hands played, in order: `(first, step, count)`.
    fn sequence(&self) -> (u64, u64, u64) {
        let Range { start, end } = self.range;
        let (first, step) = match self.rotation {
            Some(r) => (start + r as u64, self.n as u64),
            None => (start, 1),
        };
        (first, step, end.saturating_sub(first).div_ceil(step))
    }

    /// How many hands are played.
    pub fn count(&self) -> u64 {
        self.sequence().2
    }
}

/// The processes of the bots that play several tables, by lane and bot; `None` for a bot played
/// in-process (one instance per table), an error for a process that could not start.
pub type Procs = Vec<Vec<Option<Result<SharedProcess, Fault>>>>;

/// One shared process per lane for every bot whose `concurrency` is finite.
pub fn procs(
    lanes: usize,
    n: usize,
    concurrency: impl Fn(usize) -> usize,
    create: impl Fn(usize, usize) -> Result<SharedProcess, Fault>,
) -> Procs {
    (0..lanes)
        .map(|lane| {
            (0..n)
                .map(|i| (concurrency(i) != usize::MAX).then(|| create(i, lane)))
                .collect()
        })
        .collect()
}

/// The players of table `j`, by lane: the table's seat on each shared process, else a player
/// from `create(lane, bot)` (a seat whose bot cannot start forfeits).
pub fn table_players(
    procs: &Procs,
    j: usize,
    mut create: impl FnMut(usize, usize) -> Result<Box<dyn Player>, Fault>,
) -> Vec<Vec<Box<dyn Player>>> {
    procs
        .iter()
        .enumerate()
        .map(|(lane, bots)| {
            bots.iter()
                .enumerate()
                .map(|(i, p)| match p {
                    Some(Ok(p)) => Box::new(TableSeat {
                        process: p.clone(),
                        table: j as u32,
                    }) as Box<dyn Player>,
                    Some(Err(f)) => Box::new(Forfeited(f.clone())) as Box<dyn Player>,
                    None => create(lane, i).unwrap_or_else(|f| Box::new(Forfeited(f))),
                })
                .collect()
        })
        .collect()
}

/// A hand played to its end.
pub struct Outcome {
    pub events: Vec<Event>,
    pub net: Vec<(Seat, i64)>,
    pub faults: Vec<SeatFault>,
}

/// Plays `hands` on `tables.len()` tables at once (`tables[j]`: table `j`'s players by lane, from
/// [`table_players`]), and gives every hand to `record` in hand order. Returns the faults of the
/// match start, by bot (a shared process's once).
pub fn play_tables(
    hands: &Hands,
    procs: &Procs,
    tables: Vec<Vec<Vec<Box<dyn Player>>>>,
    start: &MatchStart,
    record: &mut dyn FnMut(u64, &Outcome),
) -> Vec<(usize, FaultKind)> {
    let mut start_faults = Vec::new();
    let n = hands.n;
    let k = tables.len().max(1);
    let (first, step, count) = hands.sequence();
    let per_rotation = hands.duplicate && hands.rotation.is_none();
    let mut tabs: Vec<Tab> = tables
        .into_iter()
        .enumerate()
        .map(|(j, lanes)| Tab {
            referee: Referee::new(),
            lanes,
            hand: None,
            waiting: None,
            next: j as u64,
        })
        .collect();
    for (j, tab) in tabs.iter_mut().enumerate() {
        for players in &mut tab.lanes {
            for (i, p) in players.iter_mut().enumerate() {
                if let Err(f) = p.match_start(start) {
                    if j == 0 || !p.deferred() {
                        start_faults.push((i, f.kind));
                    }
                }
            }
        }
    }
    let all: Vec<SharedProcess> = procs
        .iter()
        .flatten()
        .filter_map(|p| p.as_ref().and_then(|p| p.as_ref().ok()).cloned())
        .collect();
    let mut outcomes: BTreeMap<u64, Outcome> = BTreeMap::new();
    let mut recorded = 0u64;
    let mut answers = Vec::new();
    loop {
        for (j, tab) in tabs.iter_mut().enumerate() {
            if tab.waiting.is_some() {
                continue;
            }
            loop {
                let (i, _, rot) = match tab.hand {
                    Some(h) => h,
                    None => {
                        if tab.next >= count {
                            break;
                        }
                        let i = tab.next;
                        let hk = first + i * step;
                        tab.next += k as u64;
                        let s = slot(hk, n, hands.duplicate);
                        let t = hands.table.with_button(Seat(s.button as u8));
                        let players = &mut tab.lanes[if per_rotation { s.rotation } else { 0 }];
                        players.rotate_right(s.rotation);
                        tab.referee
                            .begin(&t, Deck::with_key(hands.key, s.deal), hk, players);
                        tab.hand = Some((i, hk, s.rotation));
                        (i, hk, s.rotation)
                    }
                };
                let lane = if per_rotation { rot } else { 0 };
                let players = &mut tab.lanes[lane];
                match tab.referee.step(players) {
                    Some(seat) => {
                        let bot = (seat + n - rot) % n;
                        let req = tab.referee.request(seat);
                        let submitted = match &procs[lane][bot] {
                            Some(Ok(p)) => lock(p).submit(j as u32, req),
                            _ => Err(Fault::new(FaultKind::Forfeit, "no process")),
                        };
                        match submitted {
                            Ok(()) => {
                                tab.waiting = Some(seat);
                                break;
                            }
                            Err(f) => tab.referee.answer(seat, Err(f)),
                        }
                    }
                    None => {
                        players.rotate_left(rot);
                        let hand = tab.referee.hand();
                        outcomes.insert(
                            i,
                            Outcome {
                                events: hand.events().to_vec(),
                                net: hand.net().collect(),
                                faults: tab.referee.faults.clone(),
                            },
                        );
                        tab.hand = None;
                    }
                }
            }
        }
        while let Some(o) = outcomes.remove(&recorded) {
            record(first + recorded * step, &o);
            recorded += 1;
        }
        if tabs.iter().all(|t| t.waiting.is_none()) {
            break;
        }
        for p in &all {
            lock(p).flush();
        }
        wait(&all);
        answers.clear();
        for p in &all {
            lock(p).collect(&mut answers);
        }
        for (j, a) in answers.drain(..) {
            if let Some(tab) = tabs.get_mut(j as usize) {
                if let Some(seat) = tab.waiting.take() {
                    tab.referee.answer(seat, a);
                }
            }
        }
    }
    debug_assert_eq!(recorded, count, "every hand recorded");
    for tab in &mut tabs {
        for p in tab.lanes.iter_mut().flatten() {
            if !p.deferred() {
                p.finish();
            }
        }
    }
    for p in &all {
        lock(p).finish();
    }
    start_faults
}

/// Plays block `b` of a match on `k` tables at once; with `rotation`, only the hands of that seat
/// rotation (a phase of a duplicate match), with the processes of the phase's `lane`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn play_block(
    cfg: &MatchConfig,
    factory: &dyn BotFactory,
    table: &Table,
    b: u64,
    bsize: u64,
    k: usize,
    rotation: Option<usize>,
    lane: usize,
) -> Part {
    let n = cfg.bots.len();
    let key: DeckKey = cfg.deck_key();
    let mut rec = Recorder::new(cfg, table, rotation.is_some());
    let first = b * bsize;
    let last = ((b + 1) * bsize).min(cfg.hands);
    let hands = Hands {
        table,
        key: &key,
        n,
        duplicate: cfg.duplicate,
        range: first..last,
        rotation,
    };
    let lanes = hands.lanes();
    let k = k.min(hands.count() as usize).max(1);
    // The factory's lane: the phase's, else the rotation's.
    let pool = |l: usize| rotation.map_or(l, |_| lane);
    // In-process players are seeded as when the block is played whole (lane = rotation).
    let rot = |l: usize| rotation.unwrap_or(l);
    let procs = procs(
        lanes,
        n,
        |i| factory.concurrency(i),
        |i, l| factory.create_multi(i, pool(l)),
    );
    let seed_lanes = if cfg.duplicate { n } else { 1 };
    let tables = (0..k)
        .map(|j| {
            table_players(&procs, j, |l, i| {
                let seed = derive_seed(cfg.seed, b, ((j * seed_lanes + rot(l)) * n + i) as u64);
                factory.create(i, seed, pool(l))
            })
        })
        .collect();
    let start = match_start(cfg, table);
    let faults = play_tables(&hands, &procs, tables, &start, &mut |hk, o| {
        rec.record(hk, &o.events, &o.net, &o.faults)
    });
    for (i, kind) in faults {
        rec.stats.bots[i].add_fault(kind);
    }
    rec.part(b, rotation)
}

fn lock(p: &SharedProcess) -> std::sync::MutexGuard<'_, dyn MultiProcess + 'static> {
    p.lock().unwrap_or_else(|e| e.into_inner())
}

/// Waits until a process has written something or the earliest deadline has passed.
fn wait(all: &[SharedProcess]) {
    let mut fds = Vec::with_capacity(all.len());
    let mut deadline: Option<Instant> = None;
    for p in all {
        let g = p.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(d) = g.deadline() {
            deadline = Some(deadline.map_or(d, |e| e.min(d)));
            if let Some(fd) = g.fd() {
                fds.push(libc::pollfd {
                    fd,
                    events: libc::POLLIN,
                    revents: 0,
                });
            }
        }
    }
    let Some(deadline) = deadline else { return };
    // Rounded up, so that a deadline less than a millisecond away is not a busy loop.
    let ms = deadline
        .saturating_duration_since(Instant::now())
        .as_micros()
        .div_ceil(1000)
        .min(i32::MAX as u128) as i32;
    if fds.is_empty() {
        std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
        return;
    }
    // SAFETY: poll on descriptors owned by live sessions, with a bounded timeout.
    unsafe {
        libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms);
    }
}
