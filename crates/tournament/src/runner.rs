//! Running a tournament (or one shard of it) into a folder: write the plan, skip the units already
//! there, play the rest on worker threads game by game (each game with its own factory, so no bot
//! process plays two games), seal each unit (settings hash, checksum) and write its file
//! atomically the moment it is done. Killing the process at any point loses at most the units in
//! flight.
//!
//! **Bots that run as processes play in phases** ([`pitboss_arena::phases`]). Every table of a
//! game deals the same cards and every deal is played in every seat rotation, so a bot meets
//! deal `d` at each of its tables in each rotation, with other processes; were two of them alive
//! at once, one could pass what it saw to the other through a channel the jail cannot close
//! (CPU time, caches, memory pressure) — its opponent's cards at another table or in another
//! rotation. So the units of a table with such bots are played in phases: a chunk of batches
//! (see [`chunk_start`]) in one seat rotation, by all workers, with processes of that phase only,
//! all ended when the phase is over; a phase starts only when no other phase of any of its bots
//! is open, so no two processes of one bot that serve the same deals — or that could relay for
//! one another — are ever alive at the same time. A unit is put together from its rotations when
//! its last rotation is done, into the same result as when it is played whole (at several tables
//! per process, in-process opponents that draw random numbers see their hands in another order:
//! see [`play_unit_part`]). Tables of
//! in-process bots only are played unit by unit, in plan order, meanwhile. Shards run by separate
//! referees on one machine are not kept apart: run them on separate machines, or one after the
//! other, when the field has bots that run as processes.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

use super::config::TournamentConfig;
use super::history;
use super::plan::{Plan, UnitSpec};
use super::results::{sprt_step, unit_chips};
use super::shards::{read_plan, read_shard, read_units, Shard};
use super::unit::{
    merge_parts, play_unit, play_unit_part, unit_path, EntrantFactory, GameFactories, UnitPart,
    UnitResult,
};
use super::TournamentError;
use crate::sprt::{Decision, Running};
use pitboss_arena::output::write_atomic;
use pitboss_arena::phases::{Job, Scheduler};

/// The most deals of a chunk of a table played in phases (see the module docs): fewer chunks mean
/// fewer process starts (one per worker, bot and phase), smaller ones let SPRT stop a pairing
/// sooner and lose less to an interruption (a unit is written when its last rotation is done).
pub const CHUNK_DEALS: u64 = 1 << 18;

/// The first batch of the chunk that batch `batch` belongs to. Without SPRT a chunk is
/// [`CHUNK_DEALS`] deals (in whole batches); with SPRT chunks double from one batch (1, 2, 4, …
/// batches, up to that size), so that a pairing decided early stops early.
pub fn chunk_start(cfg: &TournamentConfig, batch: u64) -> u64 {
    let cap = (CHUNK_DEALS / cfg.batch).max(1);
    if cfg.sprt.is_none() {
        return batch / cap * cap;
    }
    let (mut start, mut size) = (0u64, 1u64);
    while start + size <= batch {
        start += size;
        size = (size * 2).min(cap);
    }
    start
}

/// What to do with a folder that already holds a plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunMode {
    /// Continue only if the plan is the same (a fresh folder is fine too).
    Resume,
    /// The registry's gauntlet: the same settings with a different field are allowed; the plan is
    /// replaced and the units of bots no longer in the field are deleted. Units of pairings that
    /// remain are kept (their seeds do not depend on the rest of the field).
    Extend,
}

/// Counts reported after each unit.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunProgress {
    /// Units of this shard finished (including those found on disk).
    pub done: u64,
    /// Units of this shard in all.
    pub total: u64,
    /// Units skipped because SPRT already stopped their pairing.
    pub skipped: u64,
    /// Hands played by this process.
    pub hands: u64,
}

/// What a run did.
#[derive(Clone, Copy, Debug)]
pub struct RunSummary {
    pub played: u64,
    pub reused: u64,
    pub skipped: u64,
    pub hands: u64,
    pub elapsed: Duration,
}

/// Per-table SPRT bookkeeping: results arrive in any order, the test walks them in batch order.
#[derive(Default)]
struct TableState {
    pending: BTreeMap<u64, UnitResult>,
    next: u64,
    running: Running,
    decided_at: Option<u64>,
}

impl TableState {
    fn add(&mut self, cfg: &TournamentConfig, u: UnitResult) {
        let Some(s) = &cfg.sprt else { return };
        if self.decided_at.is_some() {
            return;
        }
        self.pending.insert(u.batch, u);
        while let Some(u) = self.pending.remove(&self.next) {
            let (d, _) = sprt_step(s, &mut self.running, &u, unit_chips(&u.game));
            if d != Decision::Undecided {
                self.decided_at = Some(self.next);
                self.pending.clear();
                return;
            }
            self.next += 1;
        }
    }
}

/// Prepares `dir` for `plan`: writes `plan.json` and `shard.json`, or checks them.
fn prepare(dir: &Path, plan: &Plan, shard: Shard, mode: RunMode) -> Result<(), TournamentError> {
    let units = dir.join("units");
    std::fs::create_dir_all(&units).map_err(TournamentError::io(&units))?;
    let plan_path = dir.join("plan.json");
    let mut write_plan = true;
    if plan_path.exists() {
        let old = read_plan(dir)?;
        match plan.difference(&old) {
            None => write_plan = false,
            Some(detail) => {
                let settings = |c: &TournamentConfig| {
                    let mut v = serde_json::to_value(c).expect("serializes");
                    v.as_object_mut().map(|o| o.remove("bots"));
                    v
                };
                let same_settings = settings(&plan.config) == settings(&old.config);
                if mode != RunMode::Extend || !same_settings {
                    return Err(TournamentError::PlanMismatch {
                        dir: dir.display().to_string(),
                        detail,
                    });
                }
                // Drop the units of the old plan that the new one does not have.
                for u in &old.units {
                    if !plan.units.iter().any(|x| x.id == u.id) {
                        for p in [unit_path(dir, &u.id), history::path(dir, u)] {
                            if p.exists() {
                                std::fs::remove_file(&p).map_err(TournamentError::io(&p))?;
                            }
                        }
                    }
                }
            }
        }
    }
    let have = read_shard(dir)?;
    if plan_path.exists() && have != shard {
        return Err(TournamentError::ShardMismatch {
            dir: dir.display().to_string(),
            have: have.to_string(),
            want: shard.to_string(),
        });
    }
    if shard.count > 1 {
        let p = dir.join("shard.json");
        let text = serde_json::to_vec_pretty(&shard).expect("serializes");
        write_atomic(&p, &text).map_err(TournamentError::io(&p))?;
    }
    if write_plan {
        let text = serde_json::to_vec_pretty(plan).expect("serializes");
        // It holds the tournament's salt: the owner's alone.
        pitboss_arena::output::write_secret(&plan_path, &text)
            .map_err(TournamentError::io(&plan_path))?;
    }
    // Leftovers of units that were being written when the last run died.
    if let Ok(entries) = std::fs::read_dir(&units) {
        for e in entries.filter_map(Result::ok) {
            if e.path().extension().is_some_and(|x| x == "partial") {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    Ok(())
}

enum Done {
    /// A unit written; its hands not yet counted.
    Played(usize, Box<UnitResult>, u64),
    /// Hands of a seat rotation of a unit.
    Hands(u64),
    Skipped,
    Failed(TournamentError),
}

/// What a worker is given: a unit, whole, or one seat rotation of it (a phase of its table), and
/// the factory's lane of the phase.
#[derive(Clone, Copy)]
struct Task {
    unit: usize,
    rotation: Option<usize>,
    lane: usize,
}

/// What the workers of a run share.
struct Work<'a> {
    cfg: &'a TournamentConfig,
    dir: &'a Path,
    plan: &'a Plan,
    settings: String,
    tables: usize,
    /// The bots' specs of each table, in table order.
    specs: Vec<Vec<&'a str>>,
    state: Mutex<Vec<TableState>>,
}

impl Work<'_> {
    /// The jobs of `todo` (see the module docs): a phase of a chunk in one seat rotation for
    /// every table with a bot that runs as processes, holding those bots; a unit for the others.
    /// In plan order (batch-major), a phase at the place of its chunk's first batch.
    fn jobs(&self, todo: &[usize], factory: &dyn EntrantFactory) -> Vec<Job<Task>> {
        let mut ids: HashMap<&str, usize> = HashMap::new();
        let mut jobs: BTreeMap<(u64, usize, usize), Job<Task>> = BTreeMap::new();
        for &i in todo {
            let u = &self.plan.units[i];
            let t = i % self.tables;
            let mut holds = Vec::new();
            for s in &self.specs[t] {
                if factory.is_process(s) {
                    let next = ids.len();
                    holds.push(*ids.entry(s).or_insert(next));
                }
            }
            if holds.is_empty() {
                jobs.insert(
                    (u.batch, t, 0),
                    Job {
                        items: vec![Task {
                            unit: i,
                            rotation: None,
                            lane: 0,
                        }],
                        holds,
                    },
                );
                continue;
            }
            let first = chunk_start(self.cfg, u.batch);
            for r in 0..u.bots.len() {
                jobs.entry((first, t, r))
                    .or_insert_with(|| Job {
                        items: Vec::new(),
                        holds: holds.clone(),
                    })
                    .items
                    .push(Task {
                        unit: i,
                        rotation: Some(r),
                        lane: 0,
                    });
            }
        }
        // Every phase has a lane of its own (a unit played whole keeps the lanes of its table).
        let mut jobs: Vec<Job<Task>> = jobs.into_values().collect();
        for (lane, job) in jobs.iter_mut().enumerate() {
            for t in &mut job.items {
                if t.rotation.is_some() {
                    t.lane = lane;
                }
            }
        }
        jobs
    }

    /// Plays the units `todo` (indices into the plan) on the config's threads; returns how many
    /// were played. The first failure is kept in `failure` and stops handing out work.
    fn play(
        &self,
        todo: &[usize],
        factory: &dyn EntrantFactory,
        p: &mut RunProgress,
        progress: &mut dyn FnMut(&RunProgress),
        failure: &mut Option<TournamentError>,
    ) -> u64 {
        let (cfg, tables) = (self.cfg, self.tables);
        let sched = Scheduler::new(self.jobs(todo, factory).into_iter());
        let (tx, rx) = mpsc::channel::<Done>();
        // Rotations of units played in phases, until the last one is in; units SPRT skipped.
        let parts: Mutex<HashMap<usize, Vec<Option<UnitPart>>>> = Mutex::new(HashMap::new());
        let skipped: Mutex<HashSet<usize>> = Mutex::new(HashSet::new());
        let mut played = 0u64;
        std::thread::scope(|scope| {
            for _ in 0..cfg.threads.min(todo.len()).max(1) {
                let tx = tx.clone();
                let (sched, parts, skipped) = (&sched, &parts, &skipped);
                scope.spawn(move || {
                    let _stop = sched.stop_on_panic();
                    while let Some((job, task)) = sched.next() {
                        let msg = self.task(task, factory, parts, skipped);
                        // The last unit of a phase ends its processes before another phase of
                        // its bots starts.
                        sched.done(job, || {
                            if task.rotation.is_some() {
                                factory.end_lane(task.lane);
                            }
                        });
                        if let Some(msg) = msg {
                            if tx.send(msg).is_err() {
                                sched.stop();
                                break;
                            }
                        }
                    }
                });
            }
            drop(tx);
            for msg in rx {
                match msg {
                    Done::Played(i, r, hands) => {
                        played += 1;
                        p.hands += hands;
                        self.state.lock().expect("no panics")[i % tables].add(cfg, *r);
                    }
                    Done::Hands(hands) => {
                        p.hands += hands;
                        progress(p);
                        continue;
                    }
                    Done::Skipped => p.skipped += 1,
                    Done::Failed(e) => {
                        // Stop handing out work; finished units stay on disk for a resume.
                        sched.stop();
                        failure.get_or_insert(e);
                    }
                }
                p.done += 1;
                progress(p);
            }
        });
        played
    }

    /// Writes the history of a batch-0 unit `u` that kept hands; removes a history of its table
    /// left from an earlier run when it kept none (a history file always shows the hands of the
    /// unit file beside it).
    fn write_history(&self, u: &UnitSpec, r: &UnitResult) -> Result<(), TournamentError> {
        if u.batch != 0 {
            return Ok(());
        }
        let path = history::path(self.dir, u);
        if r.history.is_empty() {
            return match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    Err(TournamentError::io(&path)(e))
                }
                _ => Ok(()),
            };
        }
        let folder = self.dir.join(history::FOLDER);
        std::fs::create_dir_all(&folder).map_err(TournamentError::io(&folder))?;
        write_atomic(&path, &r.history).map_err(TournamentError::io(&path))
    }

    /// Plays one task: a unit (written at once), or a seat rotation of a unit (written when its
    /// last rotation is in). `None` when there is nothing to report.
    fn task(
        &self,
        task: Task,
        factory: &dyn EntrantFactory,
        parts: &Mutex<HashMap<usize, Vec<Option<UnitPart>>>>,
        skipped: &Mutex<HashSet<usize>>,
    ) -> Option<Done> {
        let cfg = self.cfg;
        let i = task.unit;
        let u = &self.plan.units[i];
        let t = i % self.tables;
        // SPRT: a unit past its pairing's decision is skipped (decided when it starts: its
        // first rotation, or the whole unit).
        if task.rotation.unwrap_or(0) == 0 {
            let decided = self.state.lock().expect("no panics")[t].decided_at;
            if decided.is_some_and(|d| u.batch > d) {
                skipped.lock().expect("no panics").insert(i);
                return Some(Done::Skipped);
            }
        } else if skipped.lock().expect("no panics").contains(&i) {
            return None;
        }
        let luck = cfg.luck_adjust.then_some(cfg.luck_model.as_deref());
        let kept = if cfg.history_of.is_empty() || u.bots.iter().any(|b| cfg.history_of.contains(b))
        {
            cfg.history_hands
        } else {
            0
        };
        let (mut r, hands) = match task.rotation {
            None => {
                let r = play_unit(
                    cfg.seed,
                    cfg.salt.as_ref(),
                    u,
                    &self.specs[t],
                    t,
                    factory,
                    luck,
                    kept,
                );
                (r, u.deals * u.bots.len() as u64)
            }
            Some(rot) => {
                let part = play_unit_part(
                    cfg.seed,
                    cfg.salt.as_ref(),
                    u,
                    &self.specs[t],
                    rot,
                    task.lane,
                    factory,
                    luck,
                    kept,
                );
                let hands = part.hands;
                let n = u.bots.len();
                let all = {
                    let mut g = parts.lock().expect("no panics");
                    let slots = g.entry(i).or_insert_with(|| (0..n).map(|_| None).collect());
                    slots[rot] = Some(part);
                    if slots.iter().any(Option::is_none) {
                        None
                    } else {
                        g.remove(&i)
                    }
                };
                let Some(all) = all else {
                    return Some(Done::Hands(hands));
                };
                (merge_parts(u, all.into_iter().flatten().collect()), hands)
            }
        };
        r.seal(&self.settings);
        // The history first: a unit file on disk vouches for its table's history beside it.
        if let Err(e) = self.write_history(u, &r) {
            return Some(Done::Failed(e));
        }
        let path = unit_path(self.dir, &u.id);
        let bytes = serde_json::to_vec(&r).expect("serializes");
        Some(match write_atomic(&path, &bytes) {
            Ok(()) => Done::Played(i, Box::new(r), hands),
            Err(e) => Done::Failed(TournamentError::io(&path)(e)),
        })
    }
}

/// Runs shard `shard` of the tournament `cfg` into `dir` with `cfg.threads` workers, reporting
/// after every unit. The games are played one after another, each with its own factory from
/// `factories` (dropped before the next game starts).
///
/// # Errors
/// A folder holding another tournament or shard, unreadable or refused unit files, bots that
/// cannot be started, write failures.
pub fn run(
    cfg: &TournamentConfig,
    dir: &Path,
    shard: Shard,
    mode: RunMode,
    factories: &dyn GameFactories,
    progress: &mut dyn FnMut(&RunProgress),
) -> Result<RunSummary, TournamentError> {
    let start = Instant::now();
    let plan = Plan::new(cfg);
    prepare(dir, &plan, shard, mode)?;
    let tables = plan.tables().len();
    let mut state: Vec<TableState> = (0..tables).map(|_| TableState::default()).collect();
    let mut existing = std::collections::BTreeSet::new();
    let mut found: Vec<(usize, UnitResult)> = Vec::new();
    let index: BTreeMap<&str, usize> = plan
        .units
        .iter()
        .enumerate()
        .map(|(i, u)| (u.id.as_str(), i))
        .collect();
    for u in read_units(dir, &plan)? {
        let i = index[u.id.as_str()];
        existing.insert(i);
        found.push((i, u));
    }
    found.sort_by_key(|(i, _)| *i);
    for (i, u) in found {
        state[i % tables].add(cfg, u);
    }
    let mine: Vec<usize> = (0..plan.units.len()).filter(|&i| shard.owns(i)).collect();
    let todo: Vec<usize> = mine
        .iter()
        .copied()
        .filter(|i| !existing.contains(i))
        .collect();
    let mut p = RunProgress {
        done: (mine.len() - todo.len()) as u64,
        total: mine.len() as u64,
        skipped: 0,
        hands: 0,
    };
    progress(&p);
    let specs: Vec<Vec<&str>> = plan
        .units
        .iter()
        .take(tables)
        .map(|u| {
            u.bots
                .iter()
                .map(|n| {
                    let i = cfg.bot_index(n).expect("plan names are config names");
                    cfg.bots[i].spec.as_str()
                })
                .collect()
        })
        .collect();
    let work = Work {
        cfg,
        dir,
        plan: &plan,
        settings: plan.settings_hash(),
        tables,
        specs,
        state: Mutex::new(state),
    };
    let mut played = 0u64;
    let mut failure = None;
    for game in &cfg.games {
        let of_game: Vec<usize> = todo
            .iter()
            .copied()
            .filter(|&i| plan.units[i].game == *game)
            .collect();
        if of_game.is_empty() {
            continue;
        }
        let factory = factories.for_game(game)?;
        played += work.play(&of_game, &*factory, &mut p, progress, &mut failure);
        drop(factory);
        if failure.is_some() {
            break;
        }
    }
    if let Some(e) = failure {
        return Err(e);
    }
    Ok(RunSummary {
        played,
        reused: (mine.len() - todo.len()) as u64,
        skipped: p.skipped,
        hands: p.hands,
        elapsed: start.elapsed(),
    })
}
