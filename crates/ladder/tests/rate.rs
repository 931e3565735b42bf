mod common;

use common::{play, rec, reference, settings, upload, Rng};
use pitboss_ladder::{rate, Entrant, Ratings, Record, VersionId, Z95};

fn value(r: &Ratings, id: VersionId, p: usize) -> Option<f64> {
    r.get(id)?.presets[p].rating.map(|e| e.value)
}

/// Two bots only: the difference is the inverse-variance weighted mean of the records, in either
/// orientation, and its se is 1/sqrt(Σw); the single reference sits at 0.
#[test]
fn two_bots_match_the_naive_weighted_mean() {
    let s = settings(&["x"]);
    let es = [reference(1), upload(2)];
    let recs = [
        rec("x", 2, 1, 30.0, 10.0),
        rec("x", 1, 2, -50.0, 20.0),
        rec("x", 2, 1, -5.0, 40.0),
    ];
    let w: Vec<f64> = [10.0f64, 20.0, 40.0]
        .iter()
        .map(|s| 1.0 / (s * s))
        .collect();
    let x = [30.0, 50.0, -5.0];
    let sw: f64 = w.iter().sum();
    let want = w.iter().zip(x).map(|(w, x)| w * x).sum::<f64>() / sw;
    let r = rate(&s, &es, &recs);
    let e = r.get(2).unwrap().presets[0].rating.unwrap();
    assert!((e.value - want).abs() < 1e-9, "{} vs {want}", e.value);
    assert!((e.se - 1.0 / sw.sqrt()).abs() < 1e-9);
    assert!((e.high - e.low - 2.0 * Z95 * e.se).abs() < 1e-9);
    assert_eq!(value(&r, 1, 0), Some(0.0));
    assert_eq!(r.get(2).unwrap().matches, 3);
    assert_eq!(r.get(2).unwrap().units, 3000);
    assert_eq!(r.rejected, 0);
}

fn field(
    rng: &mut Rng,
    truth: &[(VersionId, f64)],
    presets: &[&str],
    per_pair: usize,
) -> Vec<Record> {
    let mut out = Vec::new();
    for p in presets {
        for (k, &(a, ra)) in truth.iter().enumerate() {
            for &(b, rb) in &truth[k + 1..] {
                for _ in 0..per_pair {
                    let se = 20.0 + 60.0 * rng.uniform();
                    out.push(play(rng, p, a, b, ra - rb, se));
                }
            }
        }
    }
    out
}

#[test]
fn references_average_zero_and_are_not_all_zero() {
    let s = settings(&["x", "y"]);
    let es = [
        reference(1),
        reference(2),
        reference(3),
        upload(10),
        upload(11),
    ];
    let truth = [(1, -40.0), (2, 10.0), (3, 90.0), (10, 20.0), (11, -70.0)];
    let recs = field(&mut Rng(5), &truth, &["x", "y"], 2);
    let r = rate(&s, &es, &recs);
    for p in 0..2 {
        let refs: Vec<f64> = [1, 2, 3]
            .iter()
            .map(|&id| value(&r, id, p).unwrap())
            .collect();
        assert!(refs.iter().sum::<f64>().abs() < 1e-9, "{refs:?}");
        assert!(refs[2] - refs[0] > 50.0, "{refs:?}");
    }
}

/// With no reference bot the mean of all versions is 0.
#[test]
fn without_references_all_versions_average_zero() {
    let s = settings(&["x"]);
    let es = [upload(1), upload(2), upload(3)];
    let recs = field(&mut Rng(9), &[(1, 50.0), (2, 0.0), (3, -20.0)], &["x"], 3);
    let r = rate(&s, &es, &recs);
    let sum: f64 = [1, 2, 3].iter().map(|&id| value(&r, id, 0).unwrap()).sum();
    assert!(sum.abs() < 1e-9);
    assert!(value(&r, 1, 0).unwrap() > value(&r, 3, 0).unwrap());
}

fn assert_same(a: &Ratings, b: &Ratings, ids: &[VersionId], tol: f64) {
    for &id in ids {
        let (x, y) = (a.get(id).unwrap(), b.get(id).unwrap());
        for (p, q) in x.presets.iter().zip(&y.presets) {
            let (p, q) = (p.rating.unwrap(), q.rating.unwrap());
            assert!(
                (p.value - q.value).abs() <= tol && (p.se - q.se).abs() <= tol,
                "{id}: {p:?} {q:?}"
            );
        }
    }
}

#[test]
fn an_unconnected_new_version_changes_nothing_and_has_no_rating() {
    let s = settings(&["x", "y"]);
    let truth = [(1, -10.0), (2, 10.0), (10, 30.0), (11, 0.0)];
    let es: Vec<Entrant> = vec![reference(1), reference(2), upload(10), upload(11)];
    let recs = field(&mut Rng(3), &truth, &["x", "y"], 1);
    let before = rate(&s, &es, &recs);
    let mut es2 = es.clone();
    es2.extend([upload(20), upload(21)]);
    let mut recs2 = recs.clone();
    // 20 and 21 only played each other: connected together, not to the anchor.
    recs2.push(rec("x", 20, 21, 15.0, 10.0));
    let after = rate(&s, &es2, &recs2);
    assert_same(&before, &after, &[1, 2, 10, 11], 0.0);
    for id in [20, 21] {
        let v = after.get(id).unwrap();
        assert!(v.presets.iter().all(|p| p.rating.is_none()));
        assert!(v.overall.is_none() && v.provisional && v.rank.is_none());
    }
    assert_eq!(after.get(20).unwrap().presets[0].matches, 1);
}

/// A version joined by a single record is a leaf of the graph: it is fitted exactly and the
/// others do not move (the anchor is why: with "mean of all = 0" they would).
#[test]
fn a_leaf_version_moves_nobody() {
    let s = settings(&["x"]);
    let es = vec![reference(1), reference(2), upload(10)];
    let recs = field(&mut Rng(4), &[(1, -10.0), (2, 10.0), (10, 25.0)], &["x"], 2);
    let before = rate(&s, &es, &recs);
    let mut es2 = es.clone();
    es2.push(upload(30));
    let mut recs2 = recs.clone();
    recs2.push(rec("x", 30, 2, 40.0, 25.0));
    let after = rate(&s, &es2, &recs2);
    assert_same(&before, &after, &[1, 2, 10], 1e-9);
    let v30 = value(&after, 30, 0).unwrap();
    assert!((v30 - (value(&after, 2, 0).unwrap() + 40.0)).abs() < 1e-9);
}

/// Known true ratings, noisy records, many replications: the estimates are unbiased with z-scores
/// of unit spread, and the 95% intervals cover the truth about 95% of the time.
#[test]
fn intervals_cover_the_truth_about_95_percent_of_the_time() {
    let s = settings(&["x", "y"]);
    // The references' true ratings average 0, like the anchor.
    let truth = [
        (1, -30.0),
        (2, 0.0),
        (3, 30.0),
        (10, 45.0),
        (11, -60.0),
        (12, 5.0),
        (13, 120.0),
    ];
    let es: Vec<Entrant> = truth
        .iter()
        .map(|&(id, _)| if id < 10 { reference(id) } else { upload(id) })
        .collect();
    let mut rng = Rng(2024);
    let (mut covered, mut total, mut overall_covered) = (0u32, 0u32, 0u32);
    let (mut zsum, mut zsq) = (0.0, 0.0);
    let reps = 400;
    for _ in 0..reps {
        // A sparse random schedule: each pair plays 0–2 times per preset, plus a chain through all
        // versions so that everybody is connected.
        let mut recs = Vec::new();
        for p in ["x", "y"] {
            for (k, &(a, ra)) in truth.iter().enumerate() {
                for &(b, rb) in &truth[k + 1..] {
                    for _ in 0..rng.below(3) {
                        let se = 15.0 + 50.0 * rng.uniform();
                        recs.push(play(&mut rng, p, a, b, ra - rb, se));
                    }
                }
                if let Some(&(b, rb)) = truth.get(k + 1) {
                    recs.push(play(&mut rng, p, a, b, ra - rb, 40.0));
                }
            }
        }
        let r = rate(&s, &es, &recs);
        for &(id, t) in &truth {
            let v = r.get(id).unwrap();
            for pr in &v.presets {
                let e = pr.rating.unwrap();
                total += 1;
                covered += u32::from(e.low <= t && t <= e.high);
                if e.se > 0.0 {
                    let z = (e.value - t) / e.se;
                    zsum += z;
                    zsq += z * z;
                }
            }
            let o = v.overall.unwrap();
            overall_covered += u32::from(o.low <= t && t <= o.high);
        }
    }
    let rate_ = f64::from(covered) / f64::from(total);
    let overall = f64::from(overall_covered) / f64::from(reps * truth.len() as u32);
    assert!(
        (0.92..=0.98).contains(&rate_),
        "per-preset coverage {rate_}"
    );
    assert!(
        (0.92..=0.98).contains(&overall),
        "overall coverage {overall}"
    );
    let n = f64::from(total);
    let mean_z = zsum / n;
    let sd_z = (zsq / n - mean_z * mean_z).sqrt();
    assert!(mean_z.abs() < 0.1, "bias {mean_z}");
    assert!((0.9..1.1).contains(&sd_z), "z spread {sd_z}");
}

#[test]
fn provisional_ranked_and_ranks() {
    let mut s = settings(&["x", "y"]);
    s.ranked_halfwidth = 30.0;
    let mut es = vec![reference(1), upload(10), upload(11), upload(12), upload(13)];
    es[4].active = false; // 13 retired
    let truth = [(1, 0.0), (10, 50.0), (11, -50.0), (13, 100.0)];
    let mut recs = field(&mut Rng(8), &truth, &["x", "y"], 4);
    // 12 plays only preset x: rated there, missing y, so provisional however precise.
    recs.push(rec("x", 12, 1, 10.0, 1.0));
    let r = rate(&s, &es, &recs);
    let v12 = r.get(12).unwrap();
    assert!(v12.provisional && v12.rank.is_none());
    assert!(v12.presets[1].rating.is_none());
    assert!((v12.overall.unwrap().value - v12.presets[0].rating.unwrap().value).abs() < 1e-12);
    assert!(
        r.get(13).unwrap().rank.is_none(),
        "a retired version is not ranked"
    );
    assert!(!r.get(13).unwrap().provisional);
    let ranking: Vec<VersionId> = r.ranking().iter().map(|v| v.id).collect();
    assert_eq!(ranking, vec![10, 1, 11]);
    // A tight half-width makes every upload provisional; the lone reference is the anchor itself
    // (se 0) and stays ranked.
    s.ranked_halfwidth = 0.5;
    let ids: Vec<VersionId> = rate(&s, &es, &recs)
        .ranking()
        .iter()
        .map(|v| v.id)
        .collect();
    assert_eq!(ids, vec![1]);
    // So does a minimum of matches per preset nobody reached.
    s.ranked_halfwidth = 30.0;
    s.min_matches_per_preset = 1000;
    assert!(rate(&s, &es, &recs).ranking().is_empty());
}

#[test]
fn hostile_records_are_rejected_and_change_nothing() {
    let s = settings(&["x"]);
    let es = [reference(1), upload(2), upload(3)];
    let good = vec![rec("x", 2, 1, 30.0, 10.0), rec("x", 3, 2, -10.0, 15.0)];
    let clean = rate(&s, &es, &good);
    let mut bad = good.clone();
    bad.extend([
        rec("x", 2, 2, 500.0, 1.0),
        rec("x", 2, 1, f64::NAN, 1.0),
        rec("x", 2, 1, 5.0, f64::INFINITY),
        rec("x", 2, 1, 5.0, -1.0),
        rec("x", 2, 1, 1e300, 1.0),
        rec("x", 2, 99, 5.0, 1.0),
    ]);
    bad.push(rec("other-preset", 2, 1, 5.0, 1.0));
    let r = rate(&s, &es, &bad);
    assert_eq!(r.rejected, 6);
    assert_same(&clean, &r, &[1, 2, 3], 0.0);
    // se = 0 (mirror bots) is floored, not infinite.
    let r = rate(
        &s,
        &es,
        &[rec("x", 2, 1, 0.0, 0.0), rec("x", 3, 1, 7.0, 0.0)],
    );
    for id in [1, 2, 3] {
        let e = r.get(id).unwrap().presets[0].rating.unwrap();
        assert!(e.value.is_finite() && e.se.is_finite() && e.low <= e.high);
    }
    assert!((r.get(3).unwrap().presets[0].rating.unwrap().value - 7.0).abs() < 1e-9);
}

#[test]
fn repeated_entrants_and_presets_count_once() {
    let mut s = settings(&["x", "x"]);
    s.ranked_halfwidth = f64::NAN;
    let es = [reference(1), upload(2), upload(2)];
    let r = rate(&s, &es, &[rec("x", 2, 1, 30.0, 10.0)]);
    assert_eq!(r.versions.len(), 2);
    assert_eq!(r.presets.len(), 1);
    assert_eq!(r.get(2).unwrap().matches, 1);
    assert!(r.ranking().is_empty(), "NaN half-width ranks nobody");
    assert!(rate(&s, &[], &[]).versions.is_empty());
}

/// Without a link between the two groups of references, the group with more of them carries the
/// anchor and the other has no rating.
#[test]
fn the_larger_reference_group_carries_the_anchor() {
    let s = settings(&["x"]);
    let es: Vec<Entrant> = (1..=5).map(reference).collect();
    let recs = [
        rec("x", 1, 2, 10.0, 5.0),
        rec("x", 2, 3, 10.0, 5.0),
        rec("x", 4, 5, 1.0, 1.0),
        rec("x", 4, 6, 1.0, 1.0),
    ];
    let r = rate(&s, &es, &recs);
    assert_eq!(r.rejected, 1, "6 is unknown");
    let v: Vec<Option<f64>> = (1..=5).map(|id| value(&r, id, 0)).collect();
    assert!(
        (v[0].unwrap() - 10.0).abs() < 1e-9 && v[1].unwrap().abs() < 1e-9,
        "{v:?}"
    );
    assert!((v[2].unwrap() + 10.0).abs() < 1e-9, "{v:?}");
    assert_eq!((v[3], v[4]), (None, None));
}

/// Under the model chi² is about its degrees of freedom; a non-transitive cycle blows it up.
#[test]
fn chi2_flags_a_non_transitive_field() {
    let s = settings(&["x"]);
    let es = [reference(1), upload(2), upload(3)];
    let fair = field(&mut Rng(1), &[(1, 0.0), (2, 10.0), (3, -10.0)], &["x"], 30);
    let r = rate(&s, &es, &fair);
    let p = &r.presets[0];
    assert_eq!(p.dof, 90 - 2);
    assert!(p.chi2 < 2.0 * p.dof as f64, "{p:?}");
    let cycle: Vec<_> = (0..30)
        .flat_map(|_| {
            [
                rec("x", 1, 2, 100.0, 10.0),
                rec("x", 2, 3, 100.0, 10.0),
                rec("x", 3, 1, 100.0, 10.0),
            ]
        })
        .collect();
    let p = &rate(&s, &es, &cycle).presets[0];
    assert!(p.chi2 > 10.0 * p.dof as f64, "{p:?}");
}
