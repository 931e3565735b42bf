//! The scheduler: one task that keeps every worker slot busy — checks of new uploads first, then
//! the matches the ladder says tell the most — records every result in the database, and
//! publishes a new board after each change (at most a few times a second).
//!
//! The database is the queue: a match is a row with its seed before any worker sees it, and a
//! job's result is written before the next board is built; a kill at any moment leaves rows that
//! [`pitboss_store::Store::requeue_running`] puts back on the next start.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pitboss_ladder::Pairing;
use pitboss_store::{MatchKind, NewMatch, Store, Version, VersionState};
use pitboss_web::Board;
use pitboss_worker::{BotRef, Job, JobResult};
use tokio::sync::{mpsc, watch, Notify};

use crate::board::{self, Memory};
use crate::workers::{Finished, Workers};
use crate::{ServeConfig, ServiceError};

/// The scheduler's state.
pub struct Scheduler {
    pub store: Store,
    pub cfg: ServeConfig,
    pub workers: Arc<dyn Workers>,
    pub board: watch::Sender<Arc<Board>>,
    pub wake: Arc<Notify>,
    /// Running jobs: match id → its pairing (checks are `None`).
    running: HashMap<i64, Option<Pairing>>,
    checks: usize,
    mem: Memory,
    versions: Vec<Version>,
    generation: u64,
    dirty: bool,
    last_build: Instant,
    /// Matches in a row that an uploaded version could not be set up for (its build failed).
    strikes: HashMap<i64, u32>,
}

/// Matches in a row an uploaded version may fail to be set up for before it is taken off the
/// ladder. Without a limit, a version whose build passes its check and fails afterwards is paired
/// again at once, every time: red team, 351 failed matches in 28 s, each a build in the jail,
/// and the version provisional (so first in line) for ever.
pub const STRIKES: u32 = 3;

fn random_seed() -> i64 {
    let mut b = [0u8; 8];
    getrandom::getrandom(&mut b).expect("the operating system's random source");
    (u64::from_le_bytes(b) >> 1) as i64
}

impl Scheduler {
    pub fn new(
        store: Store,
        cfg: ServeConfig,
        workers: Arc<dyn Workers>,
        board: watch::Sender<Arc<Board>>,
        wake: Arc<Notify>,
    ) -> Scheduler {
        Scheduler {
            store,
            cfg,
            workers,
            board,
            wake,
            running: HashMap::new(),
            checks: 0,
            mem: Memory::default(),
            versions: Vec::new(),
            generation: 0,
            dirty: true,
            last_build: Instant::now(),
            strikes: HashMap::new(),
        }
    }

    fn bot_ref(&self, id: i64) -> Option<BotRef> {
        let v = self.versions.iter().find(|v| v.id == id)?;
        Some(BotRef {
            version: v.id,
            label: v.label(),
            builtin: if v.reference() {
                v.spec.clone()
            } else {
                String::new()
            },
            sha256: v.sha256.clone(),
        })
    }

    /// Loads what the database holds: reference bots made, interrupted work re-queued, every
    /// finished match read, the first board published.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn start(&mut self) -> Result<(), ServiceError> {
        for r in &self.cfg.references {
            self.store.ensure_reference(r).await?;
        }
        let (m, v) = self.store.requeue_running().await?;
        if m + v > 0 {
            tracing::info!("re-queued {m} interrupted match(es) and {v} check(s)");
        }
        let done = self.store.done_after(0).await?;
        // The rating history, replayed at up to 40 points through the matches so far.
        let step = (done.len() / 40).max(1);
        for (i, m) in done.iter().enumerate() {
            self.mem.add(m);
            if (i + 1) % step == 0 || i + 1 == done.len() {
                self.versions = self.store.versions().await?;
                let b = board::build(0, &self.cfg.ladder(), &self.versions, &self.mem);
                let ids: Vec<i64> = b.versions.keys().copied().collect();
                board::note_history_at(&b, &mut self.mem, &ids, m.finished_at.unwrap_or(0));
            }
        }
        self.versions = self.store.versions().await?;
        self.publish();
        Ok(())
    }

    fn publish(&mut self) {
        self.generation += 1;
        let b = board::build(
            self.generation,
            &self.cfg.ladder(),
            &self.versions,
            &self.mem,
        );
        self.board.send_replace(Arc::new(b));
        self.dirty = false;
        self.last_build = Instant::now();
    }

    /// Runs until the process ends. While the database is away (a restart of PostgreSQL, a
    /// full disk), results wait in memory, in order, and everything is retried with a growing
    /// pause (up to 5 s); nothing is lost unless the process dies too, and then the matches
    /// are played again from their seeds after the restart.
    ///
    /// # Errors
    /// Never for database failures (they are retried); only when the scheduler cannot go on.
    pub async fn run(mut self) -> Result<(), ServiceError> {
        let (tx, mut rx) = mpsc::unbounded_channel::<Finished>();
        let mut pending: VecDeque<Finished> = VecDeque::new();
        let mut pause = Duration::from_millis(100);
        loop {
            let mut failed = None;
            while let Some(f) = pending.pop_front() {
                if let Err(e) = self.apply(f.result.clone()).await {
                    pending.push_front(f);
                    failed = Some(e);
                    break;
                }
                if let Some(recorded) = f.recorded {
                    // The queue may now acknowledge it (nobody listening: nothing to tell).
                    let _ = recorded.send(());
                }
            }
            if failed.is_none() {
                failed = self.fill(&tx).await.err();
            }
            if let Some(e) = failed {
                if !transient(&e) {
                    return Err(e);
                }
                tracing::warn!(
                    "the database failed ({e}); {} result(s) wait; retrying in {} ms",
                    pending.len(),
                    pause.as_millis()
                );
                tokio::select! {
                    r = rx.recv() => pending.extend(r),
                    () = tokio::time::sleep(pause) => {}
                }
                pause = (pause * 2).min(Duration::from_secs(5));
                continue;
            }
            pause = Duration::from_millis(100);
            if self.dirty && self.last_build.elapsed() >= Duration::from_millis(250) {
                self.publish();
            }
            let tick = if self.dirty {
                Duration::from_millis(250)
            } else {
                Duration::from_secs(2)
            };
            tokio::select! {
                r = rx.recv() => {
                    pending.extend(r);
                    while let Ok(r) = rx.try_recv() {
                        pending.push_back(r);
                    }
                }
                () = self.wake.notified() => {}
                () = tokio::time::sleep(tick) => {}
            }
        }
    }

    fn busy(&self) -> usize {
        self.running.len()
    }

    /// Hands out work until every slot is busy: checks, then queued matches, then new ones.
    async fn fill(&mut self, tx: &mpsc::UnboundedSender<Finished>) -> Result<(), ServiceError> {
        let cap = self.workers.capacity();
        while self.busy() < cap {
            if let Some(v) = self.store.claim_pending_version().await? {
                self.versions = self.store.versions().await?;
                self.dirty = true;
                let bot = BotRef {
                    version: v.id,
                    label: v.label(),
                    builtin: String::new(),
                    sha256: v.sha256.clone(),
                };
                // Checks share the running map under negative keys (match ids are positive).
                self.checks += 1;
                self.running.insert(-v.id, None);
                self.workers.submit(
                    Job::Check {
                        bot,
                        presets: self.cfg.presets.clone(),
                    },
                    tx.clone(),
                );
                continue;
            }
            if let Some(m) = self.store.claim_match(self.workers.claimant()).await? {
                let (Some(a), Some(b)) = (self.bot_ref(m.a), self.bot_ref(m.b)) else {
                    self.store
                        .fail_match(m.id, "a version of this match is unknown")
                        .await?;
                    continue;
                };
                self.running.insert(
                    m.id,
                    Some(Pairing {
                        preset: m.preset.clone(),
                        a: m.a,
                        b: m.b,
                    }),
                );
                self.workers.submit(
                    Job::Play {
                        id: m.id,
                        preset: m.preset,
                        seed: m.seed,
                        hands: m.hands,
                        a,
                        b,
                    },
                    tx.clone(),
                );
                continue;
            }
            if !self.cfg.plan || !self.plan(cap - self.busy()).await? {
                break;
            }
        }
        Ok(())
    }

    /// Queues the next pairings of the ladder; false when there is nothing to play.
    async fn plan(&mut self, count: usize) -> Result<bool, ServiceError> {
        let in_flight: Vec<Pairing> = self.running.values().flatten().cloned().collect();
        let ents = board::entrants(&self.versions);
        let next = pitboss_ladder::next(
            &self.cfg.ladder(),
            &ents,
            &self.mem.records(),
            &in_flight,
            count,
        );
        if next.is_empty() {
            return Ok(false);
        }
        for p in next {
            let kind = if ents.iter().any(|e| {
                (e.id == p.a && e.predecessor == Some(p.b))
                    || (e.id == p.b && e.predecessor == Some(p.a))
            }) {
                MatchKind::Predecessor
            } else {
                MatchKind::Ladder
            };
            self.store
                .create_match(&NewMatch {
                    preset: p.preset,
                    kind,
                    a: p.a,
                    b: p.b,
                    seed: random_seed(),
                    hands: self.cfg.hands_per_match as i64,
                })
                .await?;
        }
        Ok(true)
    }

    async fn apply(&mut self, r: JobResult) -> Result<(), ServiceError> {
        match r {
            JobResult::Checked { version, fit, log } => {
                self.running.remove(&-version);
                self.checks = self.checks.saturating_sub(1);
                self.store.finish_check(version, fit, &log).await?;
                tracing::info!(
                    "version {version} checked: {}",
                    if fit { "fit" } else { "not fit" }
                );
                self.versions = self.store.versions().await?;
            }
            JobResult::Played { id, outcome } => {
                self.running.remove(&id);
                // From another machine: audited first (refused: failed, its worker flagged).
                // Retried after a database failure, the result may be in already: whether it
                // counted now or then, the match's row is what the board learns from.
                if crate::audit::admit(&self.store, &self.cfg, id, &outcome).await? {
                    self.store.finish_match(id, &outcome.stored).await?;
                }
                if let Some(m) = self.store.match_by_id(id).await? {
                    if m.state == pitboss_store::MatchState::Done && !self.mem.knows(m.id) {
                        self.strikes.remove(&m.a);
                        self.strikes.remove(&m.b);
                        self.mem.add(&m);
                        let b = self.board.borrow().clone();
                        board::note_history(&b, &mut self.mem, &[m.a, m.b]);
                    }
                }
            }
            JobResult::Failed {
                id,
                error,
                culprit,
                detail,
            } => {
                self.running.remove(&id);
                tracing::warn!("match {id} failed: {error}");
                self.store.fail_match(id, &error).await?;
                if let Some(v) = culprit {
                    self.strike(id, v, &detail).await?;
                }
            }
        }
        self.dirty = true;
        Ok(())
    }

    /// Counts a match that version `v` could not be set up for; at [`STRIKES`] in a row the
    /// version leaves the ladder, its owner's log saying why.
    async fn strike(&mut self, id: i64, v: i64, detail: &str) -> Result<(), ServiceError> {
        let n = self.strikes.entry(v).or_insert(0);
        *n += 1;
        if *n < STRIKES {
            return Ok(());
        }
        self.strikes.remove(&v);
        let note = format!(
            "\n== taken off the ladder: it could not be built or started for {STRIKES} matches \
             in a row (it passed its check); the last time, match {id}:\n{detail}\n"
        );
        if self.store.disqualify(v, &note).await? {
            tracing::warn!(
                "version {v} taken off the ladder: {STRIKES} matches in a row failed to set it up"
            );
        }
        self.versions = self.store.versions().await?;
        Ok(())
    }

    /// Versions the ladder plays.
    pub fn active(&self) -> usize {
        self.versions
            .iter()
            .filter(|v| v.state == VersionState::Active)
            .count()
    }
}

/// A failure worth retrying: the database's (connection lost, server restarting, pool timed
/// out, a statement refused while it shuts down).
fn transient(e: &ServiceError) -> bool {
    matches!(e, ServiceError::Store(pitboss_store::StoreError::Sql(_)))
}
