//! A version against its predecessor, from their head-to-head records only.
//!
//! Per preset, the inverse-variance weighted mean of the new version's results; pooled, the same
//! over every preset of the ladder. Only direct matches count (not the ratings): the question "is
//! the new version better than the old one" should not depend on how either fares against third
//! bots, which a non-transitive pair would get wrong.
//!
//! The verdict looks at the 95% interval *as of now*. The scheduler keeps playing the pair while it
//! is undecided, so the verdict is looked at repeatedly and a true tie is declared Better or Worse
//! somewhat more often than 5% of the time; the per-preset cap on head-to-head matches bounds the
//! number of looks.

use crate::{usable, Estimate, Record, Settings, VersionId};

/// What the head-to-head records say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The 95% interval of new − old is above 0.
    Better,
    /// ... below 0.
    Worse,
    /// It contains 0, or there is no record.
    NotYetKnown,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Better => "better",
            Verdict::Worse => "worse",
            Verdict::NotYetKnown => "not yet known",
        }
    }

    fn of(e: Option<Estimate>) -> Verdict {
        match e {
            Some(e) if e.low > 0.0 => Verdict::Better,
            Some(e) if e.high < 0.0 => Verdict::Worse,
            _ => Verdict::NotYetKnown,
        }
    }
}

/// The comparison in one preset.
#[derive(Clone, Debug, PartialEq)]
pub struct PresetComparison {
    pub preset: String,
    /// The new version's mean result against the old, mbb/hand (`None`: no record).
    pub estimate: Option<Estimate>,
    pub matches: u32,
    pub units: u64,
    pub verdict: Verdict,
}

/// The comparison over all presets, and per preset.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// Inverse-variance pooled over the presets (`None`: no record).
    pub estimate: Option<Estimate>,
    pub matches: u32,
    pub units: u64,
    pub verdict: Verdict,
    /// In the order of the settings' presets (repeats once).
    pub presets: Vec<PresetComparison>,
}

/// Sums for an inverse-variance weighted mean.
#[derive(Clone, Copy, Default)]
struct Pool {
    w: f64,
    wx: f64,
    matches: u32,
    units: u64,
}

impl Pool {
    fn add(&mut self, x: f64, w: f64, units: u64) {
        self.w += w;
        self.wx += w * x;
        self.matches = self.matches.saturating_add(1);
        self.units = self.units.saturating_add(units);
    }

    fn estimate(&self) -> Option<Estimate> {
        (self.w > 0.0).then(|| Estimate::new(self.wx / self.w, 1.0 / self.w.sqrt()))
    }
}

/// Compares `new` with `old` from their direct records (either order of `a` and `b`).
pub fn compare(
    settings: &Settings,
    new: VersionId,
    old: VersionId,
    records: &[Record],
) -> Comparison {
    let presets = settings.unique_presets();
    // (preset, new's result, weight, units), sorted so that the sums do not depend on the order
    // of the records.
    let mut rows: Vec<(usize, f64, f64, u64)> = Vec::new();
    for r in records {
        let sign = match (r.a, r.b) {
            (a, b) if a == new && b == old => 1.0,
            (a, b) if a == old && b == new => -1.0,
            _ => continue,
        };
        let Some(p) = presets.iter().position(|p| *p == r.preset) else {
            continue;
        };
        if let Some((mean, w)) = usable(r) {
            rows.push((p, sign * mean, w, r.units));
        }
    }
    rows.sort_by(|x, y| {
        x.0.cmp(&y.0)
            .then(x.1.total_cmp(&y.1))
            .then(x.2.total_cmp(&y.2))
            .then(x.3.cmp(&y.3))
    });
    let mut per = vec![Pool::default(); presets.len()];
    for (p, x, w, units) in rows {
        per[p].add(x, w, units);
    }
    let mut all = Pool::default();
    for p in &per {
        all.w += p.w;
        all.wx += p.wx;
        all.matches = all.matches.saturating_add(p.matches);
        all.units = all.units.saturating_add(p.units);
    }
    let estimate = all.estimate();
    Comparison {
        estimate,
        matches: all.matches,
        units: all.units,
        verdict: Verdict::of(estimate),
        presets: presets
            .into_iter()
            .zip(per)
            .map(|(preset, p)| PresetComparison {
                preset,
                estimate: p.estimate(),
                matches: p.matches,
                units: p.units,
                verdict: Verdict::of(p.estimate()),
            })
            .collect(),
    }
}
