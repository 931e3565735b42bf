//! The weighted least-squares fit of one preset (see the crate docs for the model).

use crate::solve::{cholesky, inverse, solve};
use crate::VersionId;

/// One usable record: `a` won `mean` against `b`, weight `w = 1/se²`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Obs {
    pub a: VersionId,
    pub b: VersionId,
    pub mean: f64,
    pub w: f64,
}

/// The fit of one preset: the versions connected to the anchor, their ratings and covariance.
#[derive(Clone, Debug, Default)]
pub(crate) struct PresetFit {
    /// The rated versions, ascending; row `i` of `value` and `cov` is `ids[i]`.
    pub ids: Vec<VersionId>,
    pub value: Vec<f64>,
    /// The covariance of the anchored ratings, `m × m` row-major.
    pub cov: Vec<f64>,
    /// Σ w·(mean − (r_a − r_b))² over the records of the rated versions.
    pub chi2: f64,
    /// Records used minus free parameters (m − 1).
    pub dof: i64,
}

impl PresetFit {
    pub fn row(&self, id: VersionId) -> Option<usize> {
        self.ids.binary_search(&id).ok()
    }

    pub fn m(&self) -> usize {
        self.ids.len()
    }

    pub fn cov(&self, i: usize, j: usize) -> f64 {
        self.cov[i * self.m() + j]
    }
}

/// The records oriented lower id first and sorted, so that every sum is taken in the same order
/// whatever the order of the records: the fit is then bit-for-bit independent of it. (With weights
/// spanning many orders of magnitude, rounding in a different order moves ratings by ~1e-8.)
fn canonical(obs: &[Obs]) -> Vec<Obs> {
    let mut out: Vec<Obs> = obs
        .iter()
        .map(|o| {
            if o.a <= o.b {
                *o
            } else {
                Obs {
                    a: o.b,
                    b: o.a,
                    mean: -o.mean,
                    w: o.w,
                }
            }
        })
        .collect();
    out.sort_by(|x, y| {
        (x.a, x.b)
            .cmp(&(y.a, y.b))
            .then(x.mean.total_cmp(&y.mean))
            .then(x.w.total_cmp(&y.w))
    });
    out
}

/// Union-find root with path halving.
fn root(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// Fits one preset. `references` are the ids of the reference bots (any order); when there are
/// none, the largest component is anchored on the mean of all its versions.
pub(crate) fn fit(obs: &[Obs], references: &[VersionId]) -> PresetFit {
    let obs = canonical(obs);
    let obs = &obs[..];
    let mut nodes: Vec<VersionId> = obs.iter().flat_map(|o| [o.a, o.b]).collect();
    nodes.sort_unstable();
    nodes.dedup();
    let at = |id: VersionId| nodes.binary_search(&id).expect("a node of the records");
    let mut parent: Vec<usize> = (0..nodes.len()).collect();
    for o in obs {
        let (x, y) = (root(&mut parent, at(o.a)), root(&mut parent, at(o.b)));
        if x != y {
            parent[x.max(y)] = x.min(y);
        }
    }
    let comp: Vec<usize> = (0..nodes.len()).map(|i| root(&mut parent, i)).collect();
    let is_ref = |id: &VersionId| references.contains(id);

    // The anchor component: the most references; without references, the most versions. Ties go
    // to the component holding the smallest id (a root is its component's smallest index).
    let pick = |score: &dyn Fn(usize) -> usize| -> Option<usize> {
        let mut best: Option<(usize, usize)> = None;
        for (i, &c) in comp.iter().enumerate() {
            if c != i {
                continue;
            }
            let s = score(c);
            if s > 0 && best.is_none_or(|(_, bs)| s > bs) {
                best = Some((c, s));
            }
        }
        best.map(|(c, _)| c)
    };
    let count = |c: usize, only_refs: bool| {
        (0..nodes.len())
            .filter(|&i| comp[i] == c && (!only_refs || is_ref(&nodes[i])))
            .count()
    };
    let any_ref = !references.is_empty();
    let Some(anchor_comp) = pick(&|c| count(c, any_ref)) else {
        return PresetFit::default();
    };
    let members: Vec<usize> = (0..nodes.len())
        .filter(|&i| comp[i] == anchor_comp)
        .collect();
    let ids: Vec<VersionId> = members.iter().map(|&i| nodes[i]).collect();
    let local = |id: VersionId| ids.binary_search(&id).ok();
    let anchors: Vec<usize> = (0..ids.len())
        .filter(|&i| !any_ref || is_ref(&ids[i]))
        .collect();
    fit_component(obs, ids.clone(), &anchors, local).unwrap_or_default()
}

/// Fits a connected component; `None` when its matrix is numerically singular.
fn fit_component(
    obs: &[Obs],
    ids: Vec<VersionId>,
    anchors: &[usize],
    local: impl Fn(VersionId) -> Option<usize>,
) -> Option<PresetFit> {
    let m = ids.len();
    let mut lap = vec![0.0; m * m];
    let mut rhs = vec![0.0; m];
    let mut used = Vec::new();
    for o in obs {
        let (Some(a), Some(b)) = (local(o.a), local(o.b)) else {
            continue;
        };
        lap[a * m + a] += o.w;
        lap[b * m + b] += o.w;
        lap[a * m + b] -= o.w;
        lap[b * m + a] -= o.w;
        rhs[a] += o.w * o.mean;
        rhs[b] -= o.w * o.mean;
        used.push((a, b, o.mean, o.w));
    }
    // Pin the first anchor at 0: the remaining rows form a positive definite matrix.
    let k = anchors[0];
    let keep: Vec<usize> = (0..m).filter(|&i| i != k).collect();
    let n = m - 1;
    let mut red = vec![0.0; n * n];
    for (ri, &i) in keep.iter().enumerate() {
        for (rj, &j) in keep.iter().enumerate() {
            red[ri * n + rj] = lap[i * m + j];
        }
    }
    cholesky(&mut red, n).ok()?;
    let mut x: Vec<f64> = keep.iter().map(|&i| rhs[i]).collect();
    solve(&red, n, &mut x);
    let inv = inverse(&red, n);
    let mut r0 = vec![0.0; m];
    let mut c0 = vec![0.0; m * m];
    for (ri, &i) in keep.iter().enumerate() {
        r0[i] = x[ri];
        for (rj, &j) in keep.iter().enumerate() {
            c0[i * m + j] = inv[ri * n + rj];
        }
    }
    // Shift to the anchor (the mean of `anchors` is 0): r = P r0 with P = I − 1cᵀ, and the
    // covariance P C0 Pᵀ, i.e. C0_ij − g_i − g_j + h with g = C0 c, h = cᵀ C0 c.
    let c = 1.0 / anchors.len() as f64;
    let shift = c * anchors.iter().map(|&i| r0[i]).sum::<f64>();
    let value: Vec<f64> = r0.iter().map(|v| v - shift).collect();
    let g: Vec<f64> = (0..m)
        .map(|i| c * anchors.iter().map(|&j| c0[i * m + j]).sum::<f64>())
        .collect();
    let h = c * anchors.iter().map(|&j| g[j]).sum::<f64>();
    let mut cov = vec![0.0; m * m];
    for i in 0..m {
        for j in 0..m {
            cov[i * m + j] = c0[i * m + j] - g[i] - g[j] + h;
        }
        // Rounding must not make a variance negative.
        cov[i * m + i] = cov[i * m + i].max(0.0);
    }
    let chi2 = used
        .iter()
        .map(|&(a, b, mean, w)| {
            let e = mean - (value[a] - value[b]);
            w * e * e
        })
        .sum();
    let dof = used.len() as i64 - n as i64;
    if value.iter().chain(&cov).any(|v| !v.is_finite()) {
        return None;
    }
    Some(PresetFit {
        ids,
        value,
        cov,
        chi2,
        dof,
    })
}
