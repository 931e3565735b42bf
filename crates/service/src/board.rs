//! Builds the web's [`Board`] from the versions, the finished matches and the ladder's ratings.
//! The records are kept in memory by the scheduler (read once from the database at start, then
//! appended as matches finish), so a rebuild touches no database.

use std::collections::{BTreeMap, HashMap};

use pitboss_arena::BotStats;
use pitboss_ladder::{Entrant, Record, Settings, Verdict};
use pitboss_store::{Match, Version, VersionState};
use pitboss_web::board::{
    Board, Comparison, Cross, PlayStats, RatingPoint, RatingRow, VersionView, OVERALL,
};

/// A finished match as the board needs it.
#[derive(Clone, Debug)]
pub struct Done {
    pub id: i64,
    pub record: Record,
    pub played: u64,
    pub finished_at: i64,
}

/// What the scheduler keeps between rebuilds.
#[derive(Default)]
pub struct Memory {
    pub done: Vec<Done>,
    /// Merged statistics per version.
    pub stats: HashMap<i64, BotStats>,
    pub history: BTreeMap<i64, Vec<RatingPoint>>,
    pub last_id: i64,
}

impl Memory {
    /// Adds a finished match (ignored when already known).
    pub fn add(&mut self, m: &Match) {
        let Some(o) = &m.outcome else { return };
        if self.knows(m.id) {
            return;
        }
        self.last_id = self.last_id.max(m.id);
        self.done.push(Done {
            id: m.id,
            record: Record {
                preset: m.preset.clone(),
                a: m.a,
                b: m.b,
                units: o.units.max(0) as u64,
                mean: o.mean,
                se: o.se,
            },
            played: o.played.max(0) as u64,
            finished_at: m.finished_at.unwrap_or(0),
        });
        for (v, json) in [(m.a, &o.a_stats), (m.b, &o.b_stats)] {
            if let Ok(s) = serde_json::from_str::<BotStats>(json) {
                self.stats.entry(v).or_default().merge(&s);
            }
        }
    }

    /// Whether match `id` is in already.
    pub fn knows(&self, id: i64) -> bool {
        id <= self.last_id && self.done.iter().rev().any(|d| d.id == id)
    }

    pub fn records(&self) -> Vec<Record> {
        self.done.iter().map(|d| d.record.clone()).collect()
    }
}

/// The ladder's entrants: fit versions (active or retired), each with the fit version before it.
pub fn entrants(versions: &[Version]) -> Vec<Entrant> {
    let mut last: HashMap<i64, i64> = HashMap::new();
    let mut out = Vec::new();
    for v in versions {
        if !matches!(v.state, VersionState::Active | VersionState::Retired) {
            continue;
        }
        out.push(Entrant {
            id: v.id,
            reference: v.reference(),
            active: v.state == VersionState::Active,
            predecessor: last.get(&v.bot).copied(),
        });
        last.insert(v.bot, v.id);
    }
    out
}

fn pct(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

fn play_stats(s: &BotStats) -> PlayStats {
    let faults = pitboss_protocol::FaultKind::ALL
        .iter()
        .map(|k| k.name())
        .zip(s.faults.iter())
        .filter(|(_, n)| **n > 0)
        .map(|(k, n)| (k.to_string(), *n))
        .collect();
    PlayStats {
        hands: s.hands,
        vpip: pct(s.vpip, s.hands),
        aggression: if s.calls == 0 {
            s.bets_raises as f64
        } else {
            s.bets_raises as f64 / s.calls as f64
        },
        went_to_showdown: pct(s.showdowns, s.hands),
        won_at_showdown: pct(s.showdowns_won, s.showdowns),
        fold_to_bet: pct(s.folds_to_bet, s.faced_bets),
        faults,
    }
}

/// Inverse-variance pooling of `(mean, se)` pairs: (mean, se).
fn pool(xs: &[(f64, f64, u64)]) -> (f64, f64) {
    let (mut w, mut wx) = (0.0, 0.0);
    for &(m, se, _) in xs {
        let se = se.max(pitboss_ladder::MIN_SE);
        w += 1.0 / (se * se);
        wx += m / (se * se);
    }
    if w == 0.0 {
        (0.0, 0.0)
    } else {
        (wx / w, 1.0 / w.sqrt())
    }
}

/// A crosstable cell: (version, opponent, preset or all).
type PairKey = (i64, i64, Option<String>);

/// Builds the board.
pub fn build(generation: u64, settings: &Settings, versions: &[Version], mem: &Memory) -> Board {
    let records = mem.records();
    let ents = entrants(versions);
    let ratings = pitboss_ladder::rate(settings, &ents, &records);
    let mut board = Board {
        generation,
        updated_at: pitboss_store::now_ms(),
        presets: settings.presets.clone(),
        matches: mem.done.len() as u64,
        hands: mem.done.iter().map(|d| d.played).sum(),
        ..Board::default()
    };
    for v in versions {
        board.versions.insert(
            v.id,
            VersionView {
                id: v.id,
                label: v.label(),
                bot: v.bot_name.clone(),
                number: v.number,
                state: v.state.as_str().to_string(),
                reference: v.reference(),
                owner: v.owner,
                created_at: v.created_at,
            },
        );
    }
    let row = |id: i64,
               e: Option<pitboss_ladder::Estimate>,
               matches: u32,
               units: u64,
               prov: bool,
               rank: Option<usize>| RatingRow {
        version: id,
        rating: e.map(|e| e.value),
        low: e.map(|e| e.low),
        high: e.map(|e| e.high),
        matches: u64::from(matches),
        hands: units * 2,
        provisional: prov,
        rank,
    };
    // Overall.
    let mut overall: Vec<RatingRow> = Vec::new();
    for v in &ratings.versions {
        let r = row(
            v.id,
            v.overall,
            v.matches,
            v.units,
            v.provisional,
            v.rank.map(|r| r as usize),
        );
        if v.active {
            overall.push(r);
        } else {
            board.retired.insert(v.id, r);
        }
    }
    sort_rows(&mut overall);
    board.tables.insert(OVERALL.to_string(), overall);
    for (p, name) in settings.presets.iter().enumerate() {
        let mut rows: Vec<RatingRow> = ratings
            .versions
            .iter()
            .filter(|v| v.active)
            .filter_map(|v| {
                let pr = v.presets.get(p)?;
                Some(row(
                    v.id,
                    pr.rating,
                    pr.matches,
                    pr.units,
                    v.provisional,
                    None,
                ))
            })
            .collect();
        rows.sort_by(|a, b| {
            b.rating
                .unwrap_or(f64::NEG_INFINITY)
                .total_cmp(&a.rating.unwrap_or(f64::NEG_INFINITY))
                .then(a.version.cmp(&b.version))
        });
        let mut rank = 0;
        for r in &mut rows {
            if r.rating.is_some() && !r.provisional {
                rank += 1;
                r.rank = Some(rank);
            }
        }
        board.tables.insert(name.clone(), rows);
    }
    // The crosstable, both ways, per preset and pooled.
    let mut pairs: BTreeMap<PairKey, Vec<(f64, f64, u64)>> = BTreeMap::new();
    for d in &mem.done {
        let r = &d.record;
        for (a, b, m) in [(r.a, r.b, r.mean), (r.b, r.a, -r.mean)] {
            pairs
                .entry((a, b, Some(r.preset.clone())))
                .or_default()
                .push((m, r.se, d.played));
            pairs
                .entry((a, b, None))
                .or_default()
                .push((m, r.se, d.played));
        }
    }
    for ((a, b, preset), xs) in pairs {
        let (mean, se) = pool(&xs);
        board.cross.push(Cross {
            a,
            b,
            preset,
            mean,
            low: mean - pitboss_ladder::Z95 * se,
            high: mean + pitboss_ladder::Z95 * se,
            matches: xs.len() as u64,
            hands: xs.iter().map(|x| x.2).sum(),
        });
    }
    for e in &ents {
        if let Some(old) = e.predecessor {
            let c = pitboss_ladder::compare(settings, e.id, old, &records);
            let (mean, low, high) = c
                .estimate
                .map_or((0.0, 0.0, 0.0), |e| (e.value, e.low, e.high));
            board.comparisons.insert(
                e.id,
                Comparison {
                    new: e.id,
                    old,
                    mean,
                    low,
                    high,
                    matches: u64::from(c.matches),
                    verdict: match c.verdict {
                        Verdict::Better => "better",
                        Verdict::Worse => "worse",
                        Verdict::NotYetKnown => "not yet known",
                    }
                    .to_string(),
                },
            );
        }
    }
    for (v, s) in &mem.stats {
        board.stats.insert(*v, play_stats(s));
    }
    board.history = mem.history.clone();
    board
}

fn sort_rows(rows: &mut [RatingRow]) {
    rows.sort_by(|a, b| match (a.rank, b.rank) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => b
            .rating
            .unwrap_or(f64::NEG_INFINITY)
            .total_cmp(&a.rating.unwrap_or(f64::NEG_INFINITY))
            .then(a.version.cmp(&b.version)),
    });
}

/// Appends the current overall rating of `ids` to their history (after a match they played).
pub fn note_history(board: &Board, mem: &mut Memory, ids: &[i64]) {
    note_history_at(board, mem, ids, pitboss_store::now_ms());
}

/// [`note_history`] at time `at` (Unix ms).
pub fn note_history_at(board: &Board, mem: &mut Memory, ids: &[i64], at: i64) {
    for id in ids {
        let row = board
            .tables
            .get(OVERALL)
            .and_then(|t| t.iter().find(|r| r.version == *id));
        if let Some(RatingRow {
            rating: Some(r),
            low: Some(l),
            high: Some(h),
            ..
        }) = row
        {
            let h_list = mem.history.entry(*id).or_default();
            // At most one point a second per version, and a bounded list.
            if h_list.last().is_some_and(|p| at - p.at < 1000) {
                h_list.pop();
            }
            h_list.push(RatingPoint {
                at,
                rating: *r,
                low: *l,
                high: *h,
            });
            if h_list.len() > 500 {
                h_list.remove(0);
            }
        }
    }
}
