//! Running a tournament (or one shard of it) into a folder: write the plan, skip the units already
//! there, play the rest on worker threads game by game (each game with its own factory, so no bot
//! process plays two games), seal each unit (settings hash, checksum) and write its file
//! atomically the moment it is done. Killing the process at any point loses at most the units in
//! flight.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

use super::config::TournamentConfig;
use super::plan::Plan;
use super::results::{sprt_step, unit_chips};
use super::shards::{read_plan, read_shard, read_units, Shard};
use super::unit::{play_unit, unit_path, EntrantFactory, GameFactories, UnitResult};
use super::TournamentError;
use crate::sprt::{Decision, Running};
use pitboss_arena::output::write_atomic;

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
                        let p = unit_path(dir, &u.id);
                        if p.exists() {
                            std::fs::remove_file(&p).map_err(TournamentError::io(&p))?;
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
    Played(usize, Box<UnitResult>),
    Skipped,
    Failed(TournamentError),
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
        let next = AtomicUsize::new(0);
        let (tx, rx) = mpsc::channel::<Done>();
        let mut played = 0u64;
        std::thread::scope(|scope| {
            for _ in 0..cfg.threads.min(todo.len()).max(1) {
                let tx = tx.clone();
                let next = &next;
                scope.spawn(move || loop {
                    let j = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&i) = todo.get(j) else { break };
                    let u = &self.plan.units[i];
                    let decided = self.state.lock().expect("no panics")[i % tables].decided_at;
                    if decided.is_some_and(|d| u.batch > d) {
                        if tx.send(Done::Skipped).is_err() {
                            break;
                        }
                        continue;
                    }
                    let mut r = play_unit(
                        cfg.seed,
                        cfg.salt.as_ref(),
                        u,
                        &self.specs[i % tables],
                        i % tables,
                        factory,
                        cfg.luck_adjust.then_some(cfg.luck_model.as_deref()),
                    );
                    r.seal(&self.settings);
                    let path = unit_path(self.dir, &u.id);
                    let bytes = serde_json::to_vec(&r).expect("serializes");
                    let msg = match write_atomic(&path, &bytes) {
                        Ok(()) => Done::Played(i, Box::new(r)),
                        Err(e) => Done::Failed(TournamentError::io(&path)(e)),
                    };
                    if tx.send(msg).is_err() {
                        break;
                    }
                });
            }
            drop(tx);
            for msg in rx {
                match msg {
                    Done::Played(i, r) => {
                        played += 1;
                        p.hands += r.deals * r.bots.len() as u64;
                        self.state.lock().expect("no panics")[i % tables].add(cfg, *r);
                    }
                    Done::Skipped => p.skipped += 1,
                    Done::Failed(e) => {
                        // Stop handing out work; finished units stay on disk for a resume.
                        next.store(usize::MAX / 2, Ordering::Relaxed);
                        failure.get_or_insert(e);
                    }
                }
                p.done += 1;
                progress(p);
            }
        });
        played
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
