//! The candidates of one pick and their order (the classes of the module docs).

use super::{Cand, Plan, FAIR_SHARE, FAR_WEIGHT, UNKNOWN_VAR};

impl Plan<'_> {
    /// The best candidate, with or without the in-flight caps.
    pub(super) fn best(&self, caps: bool) -> Option<Cand> {
        let n = self.vers.len();
        let uploads: Vec<usize> = (0..n)
            .filter(|&v| self.vers[v].active && !self.vers[v].reference)
            .collect();
        let avg = uploads
            .iter()
            .map(|&v| f64::from(self.load[v]))
            .sum::<f64>()
            / uploads.len().max(1) as f64;
        let needy: Vec<bool> = (0..n)
            .map(|v| {
                let x = &self.vers[v];
                x.active
                    && !x.reference
                    && (x.provisional || f64::from(self.load[v]) < FAIR_SHARE * avg)
            })
            .collect();
        let mut best: Option<Cand> = None;
        let mut offer = |c: Cand| {
            if best.is_none_or(|b| self.better(&c, &b)) {
                best = Some(c);
            }
        };
        for &v in &uploads {
            if !self.schedulable(v, caps) {
                continue;
            }
            let load = f64::from(self.load[v]);
            for p in 0..self.presets.len() {
                if self.needs_first(p, v) {
                    if let Some(o) = self.first_opponent(p, v, caps) {
                        offer(Cand {
                            class: 0,
                            primary: load,
                            secondary: 0.0,
                            p,
                            i: v,
                            j: o,
                        });
                    }
                }
                if let Some(u) = self.vers[v].predecessor.filter(|_| self.vers[v].undecided) {
                    let inflight = self.pair_flight(p, v, u);
                    if self.h2h_schedulable(u, caps)
                        && inflight == 0
                        && self.h2h[p][v] < self.settings.head_to_head_cap
                    {
                        offer(Cand {
                            class: 1,
                            primary: load,
                            secondary: 0.0,
                            p,
                            i: v,
                            j: u,
                        });
                    }
                }
            }
        }
        for i in 0..n {
            if !self.schedulable(i, caps) {
                continue;
            }
            for j in i + 1..n {
                if !self.schedulable(j, caps) {
                    continue;
                }
                for p in 0..self.presets.len() {
                    if let Some(c) = self.pair(p, i, j, &needy) {
                        offer(c);
                    }
                }
            }
        }
        best
    }

    fn better(&self, x: &Cand, y: &Cand) -> bool {
        let ids = |c: &Cand| {
            let (a, b) = (self.vers[c.i].id, self.vers[c.j].id);
            (c.p, a.min(b), a.max(b))
        };
        x.class
            .cmp(&y.class)
            .then(x.primary.total_cmp(&y.primary))
            .then(x.secondary.total_cmp(&y.secondary))
            .then(ids(x).cmp(&ids(y)))
            .is_lt()
    }

    fn needs_first(&self, p: usize, v: usize) -> bool {
        let min = self.settings.min_matches_per_preset.max(1);
        let f = self.flight_p[p][v];
        self.matches_p[p][v].saturating_add(f) < min || (self.rows[p][v].is_none() && f == 0)
    }

    fn rating(&self, p: usize, v: usize) -> Option<f64> {
        self.rows[p][v].map(|r| self.value[p][r])
    }

    /// The opponent of a first match of `v` in preset `p` (see the module docs).
    fn first_opponent(&self, p: usize, v: usize, caps: bool) -> Option<usize> {
        let pred = self.vers[v].predecessor;
        let expected = self
            .rating(p, v)
            .or_else(|| pred.and_then(|u| self.rating(p, u)))
            .or(self.vers[v].overall.map(|o| o.value))
            .or_else(|| pred.and_then(|u| self.vers[u].overall.map(|o| o.value)))
            .unwrap_or(0.0);
        (0..self.vers.len())
            .filter(|&o| o != v && self.schedulable(o, caps))
            .min_by(|&x, &y| {
                let key = |o: usize| {
                    let r = self.rating(p, o);
                    let tier = match (r.is_some(), self.vers[o].reference) {
                        (true, true) => 0,
                        (true, false) => 1,
                        _ if Some(o) == pred => 2,
                        (false, true) => 3,
                        (false, false) => 4,
                    };
                    (
                        tier,
                        r.map_or(0.0, |r| (r - expected).abs()),
                        self.load[o],
                        self.vers[o].id,
                    )
                };
                let (a, b) = (key(x), key(y));
                a.0.cmp(&b.0)
                    .then(a.1.total_cmp(&b.1))
                    .then(a.2.cmp(&b.2))
                    .then(a.3.cmp(&b.3))
            })
    }

    /// The candidate of classes 2–4 for `i` against `j` in preset `p`, if any.
    fn pair(&self, p: usize, i: usize, j: usize, needy: &[bool]) -> Option<Cand> {
        let (vi, vj) = (&self.vers[i], &self.vers[j]);
        let (own_i, own_j, diff) = match (self.rows[p][i], self.rows[p][j]) {
            (Some(a), Some(b)) => {
                let m = self.m(p);
                let c = &self.cov[p];
                let (saa, sbb, sab) = (c[a * m + a], c[b * m + b], c[a * m + b]);
                let q = (saa + sbb - 2.0 * sab).max(0.0);
                let w = self.weight(p, i, j);
                let d = 1.0 + w * q;
                let (si, sj) = (saa - sab, sbb - sab);
                (w * si * si / d, w * sj * sj / d, w * q * q / d)
            }
            (ri, rj) => {
                // A side not connected to the anchor: an upload gets one connecting match at a
                // time (references, cheap and the anchor itself, may connect in parallel), the same
                // pair is not started twice, and two unconnected uploads playing each other would
                // not connect either of them.
                let waiting = |v: usize, r: Option<usize>| {
                    r.is_none() && !self.vers[v].reference && self.flight_p[p][v] > 0
                };
                let both_uploads = !vi.reference && !vj.reference;
                if waiting(i, ri)
                    || waiting(j, rj)
                    || self.pair_flight(p, i, j) > 0
                    || (ri.is_none() && rj.is_none() && both_uploads)
                {
                    return None;
                }
                (UNKNOWN_VAR, UNKNOWN_VAR, UNKNOWN_VAR)
            }
        };
        let load = |v: usize| f64::from(self.load[v]);
        if needy[i] || needy[j] {
            let score = if needy[i] { own_i } else { 0.0 } + if needy[j] { own_j } else { 0.0 };
            let primary = match (needy[i], needy[j]) {
                (true, true) => load(i).min(load(j)),
                (true, false) => load(i),
                _ => load(j),
            };
            return Some(Cand {
                class: 2,
                primary,
                secondary: -score,
                p,
                i,
                j,
            });
        }
        let overlap = match (vi.overall, vj.overall) {
            (Some(x), Some(y)) => x.overlaps(&y),
            _ => true,
        };
        let class = if vi.reference && vj.reference { 4 } else { 3 };
        let weight = if overlap { 1.0 } else { FAR_WEIGHT };
        let secondary = match (vi.reference, vj.reference) {
            (true, true) => f64::INFINITY,
            (true, false) => load(j),
            (false, true) => load(i),
            (false, false) => load(i).min(load(j)),
        };
        if class == 4 {
            // References among themselves: a fair turn for every pair and preset.
            return Some(Cand {
                class,
                primary: f64::from(self.pair_played(p, i, j)),
                secondary: -diff,
                p,
                i,
                j,
            });
        }
        Some(Cand {
            class,
            primary: -diff * weight,
            secondary,
            p,
            i,
            j,
        })
    }
}
