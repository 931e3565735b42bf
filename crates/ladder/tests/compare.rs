mod common;

use common::{rec, settings};
use pitboss_ladder::{compare, Verdict};

#[test]
fn a_clear_edge_is_decided_either_way_round() {
    let s = settings(&["x", "y"]);
    let better = [rec("x", 10, 5, 50.0, 10.0), rec("y", 5, 10, -40.0, 10.0)];
    let c = compare(&s, 10, 5, &better);
    assert_eq!(c.verdict, Verdict::Better);
    let e = c.estimate.unwrap();
    assert!((e.value - 45.0).abs() < 1e-9 && e.low > 0.0);
    assert_eq!((c.matches, c.units), (2, 2000));
    assert_eq!(c.presets[0].verdict, Verdict::Better);
    assert_eq!(c.presets[1].estimate.unwrap().value, 40.0);
    // The same records seen from the old version.
    let c = compare(&s, 5, 10, &better);
    assert_eq!(c.verdict, Verdict::Worse);
    assert!((c.estimate.unwrap().value + 45.0).abs() < 1e-9);
}

#[test]
fn an_unclear_edge_is_not_yet_known() {
    let s = settings(&["x", "y"]);
    let c = compare(&s, 10, 5, &[rec("x", 10, 5, 15.0, 10.0)]);
    assert_eq!(c.verdict, Verdict::NotYetKnown);
    assert_eq!(c.presets[1].estimate, None);
    assert_eq!(c.presets[1].verdict, Verdict::NotYetKnown);
    let none = compare(&s, 10, 5, &[]);
    assert_eq!(
        (none.estimate, none.verdict, none.matches),
        (None, Verdict::NotYetKnown, 0)
    );
    assert_eq!(compare(&s, 5, 5, &[rec("x", 5, 5, 9.0, 1.0)]).matches, 0);
}

/// Pooling is inverse-variance weighted over presets: a precise preset outweighs a noisy one, and
/// per-preset verdicts can differ from the pooled one.
#[test]
fn presets_pool_by_inverse_variance() {
    let s = settings(&["x", "y"]);
    let recs = [
        rec("x", 10, 5, 30.0, 5.0),
        rec("y", 10, 5, -30.0, 20.0),
        // Not head-to-head, another preset, unusable: all ignored.
        rec("x", 10, 7, -500.0, 1.0),
        rec("z", 10, 5, -500.0, 1.0),
        rec("x", 10, 5, f64::NAN, 1.0),
        rec("x", 10, 5, 1.0, f64::INFINITY),
    ];
    let c = compare(&s, 10, 5, &recs);
    let (w1, w2) = (1.0 / 25.0, 1.0 / 400.0);
    let want = (w1 * 30.0 - w2 * 30.0) / (w1 + w2);
    let e = c.estimate.unwrap();
    assert!((e.value - want).abs() < 1e-9, "{e:?}");
    assert!((e.se - 1.0 / (w1 + w2).sqrt()).abs() < 1e-12);
    assert_eq!(c.verdict, Verdict::Better);
    assert_eq!(c.presets[1].verdict, Verdict::NotYetKnown);
    assert_eq!(c.matches, 2);
    let mut rev = recs.to_vec();
    rev.reverse();
    assert_eq!(compare(&s, 10, 5, &rev), c);
}
