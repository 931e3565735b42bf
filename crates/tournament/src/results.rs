//! From unit files to standings: units are taken table by table in batch order (the canonical
//! order, whatever order they were played or merged in), SPRT is applied at batch boundaries, and
//! units after a decision are ignored — so an interrupted, resumed, sharded or merged tournament
//! gives exactly the numbers of an uninterrupted one.

use std::collections::BTreeMap;

use pitboss_rules::Preset;

use super::plan::{Plan, UnitSpec};
use super::unit::UnitResult;
use super::TournamentError;
use crate::sprt::{Decision, Running, SprtConfig};
use pitboss_arena::stats::BotStats;

/// One table of one game, over the units that count.
#[derive(Clone, Debug, PartialEq)]
pub struct TableResult {
    pub game: usize,
    /// Indices into the config's bots, in table order.
    pub bots: Vec<usize>,
    pub stats: Vec<BotStats>,
    /// `net[position][deal]` in chips over the deal's rotations.
    pub net: Vec<Vec<i64>>,
    /// The luck-adjusted `net` in thousandths of a chip (empty without `luck_adjust`).
    pub adj: Vec<Vec<i64>>,
    /// Batches counted (fewer than planned when SPRT stopped the pairing).
    pub batches: u64,
    pub decision: Decision,
    pub llr: f64,
    /// The chips of the game's unit (big blind or small bet).
    pub unit_chips: u64,
    /// `illegal[position]`: the rules' reasons for that bot's first illegal actions at the
    /// table, in batch order (at most [`pitboss_arena::runner::ILLEGAL_NOTES`]).
    pub illegal: Vec<Vec<String>>,
}

impl TableResult {
    /// Position `pos`'s per-deal results in mbb/hand.
    pub fn mbb_units(&self, pos: usize) -> Vec<f64> {
        let k = self.bots.len() as f64;
        let scale = 1000.0 / k / self.unit_chips as f64;
        self.net[pos].iter().map(|&x| x as f64 * scale).collect()
    }

    /// Position `pos`'s luck-adjusted per-deal results in mbb/hand, if the plan adjusts.
    pub fn adj_mbb_units(&self, pos: usize) -> Option<Vec<f64>> {
        let k = self.bots.len() as f64;
        let scale = 1.0 / k / self.unit_chips as f64;
        let v = self.adj.get(pos)?;
        Some(v.iter().map(|&x| x as f64 * scale).collect())
    }
}

/// A deal's value for SPRT: the first bot's net in mbb/hand, luck-adjusted when the unit has
/// adjusted results (plans with `luck_adjust`).
pub fn sprt_values(u: &UnitResult, unit_chips: u64) -> impl Iterator<Item = f64> + '_ {
    let scale = 1000.0 / u.bots.len() as f64 / unit_chips as f64;
    let (values, scale) = match u.adj.first() {
        Some(adj) => (adj, scale / 1000.0),
        None => (&u.net[0], scale),
    };
    values.iter().map(move |&x| x as f64 * scale)
}

/// Feeds one unit to a running SPRT and returns the decision after it.
pub fn sprt_step(
    cfg: &SprtConfig,
    running: &mut Running,
    u: &UnitResult,
    unit_chips: u64,
) -> (Decision, f64) {
    for x in sprt_values(u, unit_chips) {
        running.push(x);
    }
    cfg.decide(running.n, running.mean(), running.var())
}

/// The chips of a preset's unit.
pub fn unit_chips(game: &str) -> u64 {
    Preset::by_name(game).expect("validated game").game.unit()
}

/// Every table's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Standings {
    pub tables: Vec<TableResult>,
}

impl Standings {
    /// Computes the standings from unit results keyed by id. `locate` names, for a missing unit,
    /// its shard and the folder expected to hold it.
    ///
    /// # Errors
    /// [`TournamentError::MissingUnit`] for the first unit that counts but is absent (the message
    /// also counts the others).
    pub fn compute(
        plan: &Plan,
        units: &BTreeMap<String, UnitResult>,
        locate: &dyn Fn(&UnitSpec) -> (String, String),
    ) -> Result<Standings, TournamentError> {
        let cfg = &plan.config;
        let mut missing: Vec<&UnitSpec> = Vec::new();
        let mut tables = Vec::new();
        for (t, spec) in plan.tables().into_iter().enumerate() {
            let k = spec.bots.len();
            let chips = unit_chips(&cfg.games[spec.game]);
            let mut r = TableResult {
                game: spec.game,
                bots: spec.bots.clone(),
                stats: vec![BotStats::default(); k],
                net: vec![Vec::new(); k],
                adj: vec![Vec::new(); if cfg.luck_adjust { k } else { 0 }],
                batches: 0,
                decision: Decision::Undecided,
                llr: 0.0,
                unit_chips: chips,
                illegal: vec![Vec::new(); k],
            };
            let mut running = Running::default();
            for b in 0..plan.batches() {
                let us = plan.unit(t, b);
                let Some(u) = units.get(&us.id) else {
                    missing.push(us);
                    continue;
                };
                for (p, notes) in u.illegal.iter().enumerate().take(k) {
                    let keep = &mut r.illegal[p];
                    let room = pitboss_arena::runner::ILLEGAL_NOTES.saturating_sub(keep.len());
                    keep.extend(notes.iter().take(room).cloned());
                }
                for p in 0..k {
                    r.stats[p].merge(&u.stats[p]);
                    r.net[p].extend_from_slice(&u.net[p]);
                    if let (Some(a), Some(ua)) = (r.adj.get_mut(p), u.adj.get(p)) {
                        a.extend_from_slice(ua);
                    }
                }
                r.batches += 1;
                if let Some(s) = &cfg.sprt {
                    let (d, llr) = sprt_step(s, &mut running, u, chips);
                    r.llr = llr;
                    if d != Decision::Undecided {
                        r.decision = d;
                        break;
                    }
                }
            }
            tables.push(r);
        }
        if let Some(first) = missing.first() {
            let (shard, dir) = locate(first);
            let more = if missing.len() > 1 {
                format!(" ({} units missing in all)", missing.len())
            } else {
                String::new()
            };
            return Err(TournamentError::MissingUnit {
                id: first.id.clone(),
                shard,
                dir,
                more,
            });
        }
        Ok(Standings { tables })
    }
}
