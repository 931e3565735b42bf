//! Ratings per preset and overall, provisional flags and ranks (see the crate docs).

use std::collections::HashMap;

use crate::fit::{fit, Obs, PresetFit};
use crate::{unique_entrants, usable, Entrant, Estimate, Record, Settings, VersionId};

/// A version in one preset.
#[derive(Clone, Debug, PartialEq)]
pub struct PresetRating {
    /// `None` when the version is not connected to the anchor by records in this preset.
    pub rating: Option<Estimate>,
    pub matches: u32,
    pub units: u64,
}

/// Everything known about one version.
#[derive(Clone, Debug, PartialEq)]
pub struct VersionRating {
    pub id: VersionId,
    pub reference: bool,
    pub active: bool,
    /// Per preset, in the order of [`Ratings::presets`].
    pub presets: Vec<PresetRating>,
    /// The mean of the per-preset ratings that exist (`None` when none does).
    pub overall: Option<Estimate>,
    pub matches: u32,
    pub units: u64,
    pub provisional: bool,
    /// 1 = best, among ranked (not provisional) active versions.
    pub rank: Option<u32>,
}

/// One preset of the ladder and how well the model fits it.
#[derive(Clone, Debug, PartialEq)]
pub struct PresetSummary {
    pub name: String,
    /// Usable records of this preset.
    pub records: usize,
    /// The weighted squared residuals of the fit; about `dof` when the additive model holds,
    /// much larger when results are not transitive or the records' `se` are too small.
    pub chi2: f64,
    pub dof: i64,
    /// The median `se` of this preset's records (what one more match is expected to measure).
    pub typical_se: Option<f64>,
}

/// The ladder's standings.
#[derive(Clone, Debug)]
pub struct Ratings {
    pub presets: Vec<PresetSummary>,
    /// In the order of the entrants given (repeated ids once).
    pub versions: Vec<VersionRating>,
    /// Records rejected as unusable (a version against itself, an unknown version, a non-finite
    /// or absurd number). Records of presets the settings do not name are ignored, not counted.
    pub rejected: usize,
    pub(crate) fits: Vec<PresetFit>,
}

impl Ratings {
    pub fn get(&self, id: VersionId) -> Option<&VersionRating> {
        self.versions.iter().find(|v| v.id == id)
    }

    /// The ranked versions, best first.
    pub fn ranking(&self) -> Vec<&VersionRating> {
        let mut r: Vec<&VersionRating> =
            self.versions.iter().filter(|v| v.rank.is_some()).collect();
        r.sort_by_key(|v| v.rank);
        r
    }

    /// The variance of `r_a − r_b` in preset number `preset`, when both are rated there.
    pub fn diff_variance(&self, preset: usize, a: VersionId, b: VersionId) -> Option<f64> {
        let f = self.fits.get(preset)?;
        let (i, j) = (f.row(a)?, f.row(b)?);
        Some((f.cov(i, i) + f.cov(j, j) - 2.0 * f.cov(i, j)).max(0.0))
    }
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    })
}

/// Rates every entrant from the records (see the crate docs for the model).
pub fn rate(settings: &Settings, entrants: &[Entrant], records: &[Record]) -> Ratings {
    let entrants = unique_entrants(entrants);
    let presets = settings.unique_presets();
    let at: HashMap<VersionId, usize> = entrants
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id, i))
        .collect();
    let preset_at: HashMap<&str, usize> = presets
        .iter()
        .enumerate()
        .map(|(i, p)| (p.as_str(), i))
        .collect();
    let mut references: Vec<VersionId> = entrants
        .iter()
        .filter(|e| e.reference)
        .map(|e| e.id)
        .collect();
    references.sort_unstable();

    let np = presets.len();
    let mut obs: Vec<Vec<Obs>> = vec![Vec::new(); np];
    let mut ses: Vec<Vec<f64>> = vec![Vec::new(); np];
    let mut matches = vec![vec![0u32; entrants.len()]; np];
    let mut units = vec![vec![0u64; entrants.len()]; np];
    let mut rejected = 0;
    for r in records {
        let Some(&p) = preset_at.get(r.preset.as_str()) else {
            continue;
        };
        let (Some(&a), Some(&b), Some((mean, w))) = (at.get(&r.a), at.get(&r.b), usable(r)) else {
            rejected += 1;
            continue;
        };
        obs[p].push(Obs {
            a: r.a,
            b: r.b,
            mean,
            w,
        });
        ses[p].push(1.0 / w.sqrt());
        for i in [a, b] {
            matches[p][i] = matches[p][i].saturating_add(1);
            units[p][i] = units[p][i].saturating_add(r.units);
        }
    }
    let fits: Vec<PresetFit> = obs.iter().map(|o| fit(o, &references)).collect();

    let mut versions: Vec<VersionRating> = entrants
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let per: Vec<PresetRating> = (0..np)
                .map(|p| PresetRating {
                    rating: fits[p]
                        .row(e.id)
                        .map(|k| Estimate::new(fits[p].value[k], fits[p].cov(k, k).sqrt())),
                    matches: matches[p][i],
                    units: units[p][i],
                })
                .collect();
            let rated: Vec<Estimate> = per.iter().filter_map(|p| p.rating).collect();
            let overall = (!rated.is_empty()).then(|| {
                let k = rated.len() as f64;
                let value = rated.iter().map(|e| e.value).sum::<f64>() / k;
                let var = rated.iter().map(|e| e.se * e.se).sum::<f64>();
                Estimate::new(value, var.sqrt() / k)
            });
            let complete = rated.len() == np
                && per
                    .iter()
                    .all(|p| p.matches >= settings.min_matches_per_preset);
            let provisional =
                !(complete && overall.is_some_and(|o| o.halfwidth() <= settings.ranked_halfwidth));
            VersionRating {
                id: e.id,
                reference: e.reference,
                active: e.active,
                matches: per.iter().fold(0u32, |s, p| s.saturating_add(p.matches)),
                units: per.iter().fold(0u64, |s, p| s.saturating_add(p.units)),
                presets: per,
                overall,
                provisional,
                rank: None,
            }
        })
        .collect();

    let mut order: Vec<usize> = (0..versions.len())
        .filter(|&i| versions[i].active && !versions[i].provisional)
        .collect();
    let value = |i: usize| versions[i].overall.map_or(f64::NEG_INFINITY, |o| o.value);
    order.sort_by(|&x, &y| {
        value(y)
            .total_cmp(&value(x))
            .then(versions[x].id.cmp(&versions[y].id))
    });
    for (k, i) in order.into_iter().enumerate() {
        versions[i].rank = Some(k as u32 + 1);
    }

    let summaries = presets
        .into_iter()
        .zip(&fits)
        .zip(ses)
        .zip(&obs)
        .map(|(((name, f), s), o)| PresetSummary {
            name,
            records: o.len(),
            chi2: f.chi2,
            dof: f.dof,
            typical_se: median(s),
        })
        .collect();
    Ratings {
        presets: summaries,
        versions,
        rejected,
        fits,
    }
}
