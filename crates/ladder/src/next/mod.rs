//! The choice of the next pairings.
//!
//! Pairings are chosen greedily, one at a time; each pick is then counted as in flight, like the
//! `in_flight` pairings given, so the following picks see it (its expected record shrinks the
//! covariance, its versions are busier). A pick is the best candidate by, in order:
//!
//! 0. **first matches**: an active version with fewer than `min_matches_per_preset` (at least 1)
//!    matches in a preset, counting those in flight, or one not connected to the anchor there and
//!    with nothing in flight there; its opponent is the reference bot rated nearest to its
//!    expected strength (its own rating in the preset, else its predecessor's there, else its
//!    overall rating, else its predecessor's, else 0), else a rated version, else the
//!    predecessor, else any reference or version;
//! 1. **head-to-head**: a version against its predecessor (active or retired: the new version
//!    retires it) while [`compare`] says
//!    `NotYetKnown`, one match in flight per preset at a time, at most `head_to_head_cap` per
//!    preset;
//! 2. **needy** versions: provisional, or *behind* (fewer than half the average matches of the
//!    active uploads, so that a version whose interval overlaps nobody is not starved), by the
//!    expected shrink of the variance of their own rating;
//! 3. **neighbours**: the other pairs with an upload, by the expected shrink of the variance of
//!    their rating difference, weighted 1 when their overall intervals overlap and 1/4 when they
//!    do not (so a well-measured tie does not soak up the ladder);
//! 4. reference against reference (to keep the machine busy, and it tightens the anchor): the
//!    pair and preset played least first, so every pair of references takes its turn.
//!
//! In classes 0–2 the version with the fewest matches (played plus in flight) goes first, then the
//! larger expected shrink; in 3–4 the expected shrink goes first. Remaining ties go by preset order
//! and ids, so the result is deterministic.
//!
//! The expected shrink of one more record `r_a − r_b` with weight `w = 1/se²` (the mean weight of
//! the pair's records in the preset, else the preset's median record): with `x = e_a − e_b`, `q = xᵀΣx`, the variance of `r_a − r_b` falls by
//! `w q² / (1 + w q)` and that of `r_a` by `w (Σx)_a² / (1 + w q)` (a rank-one update of Σ).
//!
//! A non-reference version with `max_in_flight` matches in flight gets no more while any other
//! pairing is possible; references run in process and are not limited.

mod choose;

use std::collections::HashMap;

use crate::compare::{compare, Verdict};
use crate::rate::{rate, Ratings};
use crate::{unique_entrants, Entrant, Estimate, Pairing, Record, Settings, VersionId};

/// A version with fewer matches than this share of the average of the active uploads is behind.
const FAIR_SHARE: f64 = 0.5;
/// The variance of a difference involving a version not yet rated in the preset: "unknown", so
/// connecting it is worth more than any refinement.
const UNKNOWN_VAR: f64 = 1e12;
/// The weight of the expected shrink for a pair whose overall intervals do not overlap. Not 0:
/// two versions of equal strength overlap forever, and once their difference is known well, a
/// clear gap elsewhere is worth more than refining it again (and nobody is starved).
const FAR_WEIGHT: f64 = 0.25;
/// The `se` assumed for a match when no preset has any record yet, mbb/hand.
const DEFAULT_SE: f64 = 100.0;

/// Up to `count` pairings to play next, best first (see the module docs). Fewer when no pairing
/// is possible (fewer than two active versions).
pub fn next(
    settings: &Settings,
    entrants: &[Entrant],
    records: &[Record],
    in_flight: &[Pairing],
    count: usize,
) -> Vec<Pairing> {
    let ratings = rate(settings, entrants, records);
    let mut plan = Plan::new(settings, &unique_entrants(entrants), records, &ratings);
    for f in in_flight {
        if let (Some(i), Some(j)) = (plan.index(f.a), plan.index(f.b)) {
            if i != j {
                let p = plan.presets.iter().position(|p| *p == f.preset);
                plan.apply(p, i, j);
            }
        }
    }
    let mut out = Vec::new();
    while out.len() < count {
        let Some(c) = plan.best(true).or_else(|| plan.best(false)) else {
            break;
        };
        plan.apply(Some(c.p), c.i, c.j);
        out.push(Pairing::new(
            &plan.presets[c.p],
            plan.vers[c.i].id,
            plan.vers[c.j].id,
        ));
    }
    out
}

struct Ver {
    id: VersionId,
    reference: bool,
    active: bool,
    predecessor: Option<usize>,
    provisional: bool,
    overall: Option<Estimate>,
    /// The head-to-head comparison with the predecessor is undecided.
    undecided: bool,
}

#[derive(Clone, Copy)]
struct Cand {
    class: u8,
    primary: f64,
    secondary: f64,
    p: usize,
    i: usize,
    j: usize,
}

struct Plan<'a> {
    settings: &'a Settings,
    presets: Vec<String>,
    vers: Vec<Ver>,
    /// `[preset][version]` → row of the preset's covariance.
    rows: Vec<Vec<Option<usize>>>,
    value: Vec<Vec<f64>>,
    cov: Vec<Vec<f64>>,
    /// The typical weight of one more record, per preset.
    w: Vec<f64>,
    matches_p: Vec<Vec<u32>>,
    h2h: Vec<Vec<u32>>,
    flight_p: Vec<Vec<u32>>,
    flight: Vec<u32>,
    load: Vec<u32>,
    pairs: HashMap<(usize, usize, usize), u32>,
    /// Per (preset, lower, higher index): the pair's records and the sum of their weights
    /// `1/se²`. A pair's own records say what one more match of it will measure: the preset's
    /// typical weight would overrate a pair whose results are far noisier than the median
    /// (measured: the ladder of the reference bots then played `call` against `lowball` in pot
    /// limit in 1,410 of 1,417 matches).
    pair_records: HashMap<(usize, usize, usize), (u32, f64)>,
}

impl<'a> Plan<'a> {
    fn new(settings: &'a Settings, es: &[Entrant], records: &[Record], r: &Ratings) -> Self {
        let at: HashMap<VersionId, usize> = es.iter().enumerate().map(|(i, e)| (e.id, i)).collect();
        let np = r.presets.len();
        let presets: Vec<String> = r.presets.iter().map(|p| p.name.clone()).collect();
        let fallback = r
            .presets
            .iter()
            .filter_map(|p| p.typical_se)
            .fold(None, |m: Option<f64>, s| Some(m.map_or(s, |m| m.max(s))));
        let mut h2h = vec![vec![0u32; es.len()]; np];
        let vers = es
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let v = &r.versions[i];
                let predecessor = e
                    .predecessor
                    .and_then(|p| at.get(&p).copied())
                    // A retired predecessor still plays its active successor head to head:
                    // the successor's page says whether it is better.
                    .filter(|&p| p != i && e.active);
                let mut undecided = false;
                if let Some(p) = predecessor {
                    let own: Vec<Record> = records
                        .iter()
                        .filter(|x| {
                            (x.a == e.id && x.b == es[p].id) || (x.a == es[p].id && x.b == e.id)
                        })
                        .cloned()
                        .collect();
                    let c = compare(settings, e.id, es[p].id, &own);
                    undecided = c.verdict == Verdict::NotYetKnown;
                    for (k, pc) in c.presets.iter().enumerate() {
                        h2h[k][i] = pc.matches;
                    }
                }
                Ver {
                    id: e.id,
                    reference: e.reference,
                    active: e.active,
                    predecessor,
                    provisional: v.provisional,
                    overall: v.overall,
                    undecided,
                }
            })
            .collect();
        let preset_at: HashMap<&str, usize> = presets
            .iter()
            .enumerate()
            .map(|(k, p)| (p.as_str(), k))
            .collect();
        let mut pair_records: HashMap<(usize, usize, usize), (u32, f64)> = HashMap::new();
        for x in records {
            if let (Some(&p), Some(&i), Some(&j)) =
                (preset_at.get(x.preset.as_str()), at.get(&x.a), at.get(&x.b))
            {
                if i != j && x.se.is_finite() {
                    let se = x.se.max(crate::MIN_SE);
                    let e = pair_records
                        .entry((p, i.min(j), i.max(j)))
                        .or_insert((0, 0.0));
                    e.0 += 1;
                    e.1 += 1.0 / (se * se);
                }
            }
        }
        Plan {
            settings,
            vers,
            rows: (0..np)
                .map(|p| es.iter().map(|e| r.fits[p].row(e.id)).collect())
                .collect(),
            value: r.fits.iter().map(|f| f.value.clone()).collect(),
            cov: r.fits.iter().map(|f| f.cov.clone()).collect(),
            w: r.presets
                .iter()
                .map(|p| {
                    let se = p
                        .typical_se
                        .or(fallback)
                        .unwrap_or(DEFAULT_SE)
                        .max(crate::MIN_SE);
                    1.0 / (se * se)
                })
                .collect(),
            matches_p: (0..np)
                .map(|p| r.versions.iter().map(|v| v.presets[p].matches).collect())
                .collect(),
            h2h,
            flight_p: vec![vec![0; es.len()]; np],
            flight: vec![0; es.len()],
            load: r.versions.iter().map(|v| v.matches).collect(),
            pairs: HashMap::new(),
            pair_records,
            presets,
        }
    }

    /// The weight `1/se²` one more match of `i` and `j` in preset `p` is expected to have: the
    /// mean of the pair's records, else the preset's typical one.
    fn weight(&self, p: usize, i: usize, j: usize) -> f64 {
        match self.pair_records.get(&(p, i.min(j), i.max(j))) {
            Some(&(n, sum)) if n > 0 => sum / f64::from(n),
            _ => self.w[p],
        }
    }

    /// Finished and in-flight matches of `i` and `j` in preset `p`.
    fn pair_played(&self, p: usize, i: usize, j: usize) -> u32 {
        self.pair_records
            .get(&(p, i.min(j), i.max(j)))
            .map_or(0, |e| e.0)
            .saturating_add(self.pair_flight(p, i, j))
    }

    fn index(&self, id: VersionId) -> Option<usize> {
        self.vers.iter().position(|v| v.id == id)
    }

    fn m(&self, p: usize) -> usize {
        self.value[p].len()
    }

    fn pair_flight(&self, p: usize, i: usize, j: usize) -> u32 {
        self.pairs
            .get(&(p, i.min(j), i.max(j)))
            .copied()
            .unwrap_or(0)
    }

    /// Counts a match of `i` and `j` in preset `p` (`None`: a preset the ladder does not rate) as
    /// in flight, and shrinks the covariance by its expected record.
    fn apply(&mut self, p: Option<usize>, i: usize, j: usize) {
        for v in [i, j] {
            self.flight[v] = self.flight[v].saturating_add(1);
            self.load[v] = self.load[v].saturating_add(1);
        }
        let Some(p) = p else { return };
        for v in [i, j] {
            self.flight_p[p][v] = self.flight_p[p][v].saturating_add(1);
        }
        *self.pairs.entry((p, i.min(j), i.max(j))).or_insert(0) += 1;
        if let (Some(a), Some(b)) = (self.rows[p][i], self.rows[p][j]) {
            let m = self.m(p);
            let w = self.weight(p, i, j);
            let cov = &mut self.cov[p];
            let sx: Vec<f64> = (0..m).map(|k| cov[k * m + a] - cov[k * m + b]).collect();
            let q = (sx[a] - sx[b]).max(0.0);
            let f = w / (1.0 + w * q);
            for k in 0..m {
                for l in 0..m {
                    cov[k * m + l] -= f * sx[k] * sx[l];
                }
                cov[k * m + k] = cov[k * m + k].max(0.0);
            }
        }
    }

    fn capped(&self, v: usize) -> bool {
        !self.vers[v].reference && self.flight[v] >= self.settings.max_in_flight.max(1)
    }

    fn schedulable(&self, v: usize, caps: bool) -> bool {
        self.vers[v].active && !(caps && self.capped(v))
    }

    /// Whether `v` may play a head-to-head match against its successor: retired or not (a new
    /// version retires the one it replaces, which keeps playing it until their comparison is
    /// decided or capped).
    fn h2h_schedulable(&self, v: usize, caps: bool) -> bool {
        !(caps && self.capped(v))
    }
}
