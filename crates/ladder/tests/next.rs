mod common;

use common::{play, rec, reference, settings, upload, Rng};
use pitboss_ladder::{next, Entrant, Pairing, Record, Settings, VersionId};

const TRUTH: [(VersionId, f64); 6] = [
    (1, -50.0),
    (2, 0.0),
    (3, 50.0),
    (10, 20.0),
    (11, -30.0),
    (12, 80.0),
];

fn ladder() -> (Settings, Vec<Entrant>, Vec<Record>) {
    let s = settings(&["x", "y"]);
    let es = TRUTH
        .iter()
        .map(|&(id, _)| if id < 10 { reference(id) } else { upload(id) })
        .collect();
    let mut rng = Rng(11);
    let mut recs = Vec::new();
    for p in ["x", "y"] {
        for (k, &(a, ra)) in TRUTH.iter().enumerate() {
            for &(b, rb) in &TRUTH[k + 1..] {
                for _ in 0..3 {
                    recs.push(play(&mut rng, p, a, b, ra - rb, 30.0));
                }
            }
        }
    }
    (s, es, recs)
}

fn involving(ps: &[Pairing], id: VersionId) -> usize {
    ps.iter().filter(|p| p.involves(id)).count()
}

#[test]
fn a_new_version_plays_first_in_every_preset_against_a_reference() {
    let (mut s, mut es, recs) = ladder();
    es.push(upload(20));
    s.max_in_flight = 10;
    let ps = next(&s, &es, &recs, &[], 6);
    assert_eq!(ps.len(), 6);
    for (k, p) in ps[..2].iter().enumerate() {
        assert!(p.involves(20), "{ps:?}");
        assert_eq!(p.preset, ["x", "y"][k]);
        // No predecessor, no rating: expected strength 0, the reference rated nearest is 2.
        assert_eq!((p.a, p.b), (2, 20), "{ps:?}");
    }
    // With the default cap it gets two slots at most while others wait.
    s.max_in_flight = 2;
    let ps = next(&s, &es, &recs, &[], 6);
    assert_eq!(involving(&ps, 20), 2, "{ps:?}");
    assert!(ps[0].involves(20) && ps[1].involves(20));
}

#[test]
fn the_first_opponent_is_a_reference_near_the_expected_strength() {
    let (s, mut es, recs) = ladder();
    // 21 follows 12 (true 80): the reference nearest to 12's rating is 3 (50).
    es.push(Entrant {
        predecessor: Some(12),
        ..upload(21)
    });
    let ps = next(&s, &es, &recs, &[], 1);
    assert_eq!((ps[0].a, ps[0].b), (3, 21), "{ps:?}");
    // Without a predecessor, its rating in x sets the expected strength in y.
    es.pop();
    es.push(upload(22));
    let mut recs2 = recs.clone();
    recs2.push(rec("x", 22, 2, -45.0, 5.0));
    let ps = next(&s, &es, &recs2, &[], 1);
    assert_eq!(ps[0], Pairing::new("y", 1, 22), "{ps:?}");
}

fn with_successor(
    h2h_mean: f64,
    h2h_se: f64,
    h2h_count: usize,
) -> (Settings, Vec<Entrant>, Vec<Record>) {
    let (s, mut es, mut recs) = ladder();
    es.push(Entrant {
        predecessor: Some(12),
        ..upload(21)
    });
    let mut rng = Rng(21);
    for p in ["x", "y"] {
        for &(b, rb) in &TRUTH[..5] {
            for _ in 0..3 {
                recs.push(play(&mut rng, p, 21, b, 85.0 - rb, 30.0));
            }
        }
        for _ in 0..h2h_count {
            recs.push(rec(p, 21, 12, h2h_mean, h2h_se));
        }
    }
    (s, es, recs)
}

#[test]
fn an_undecided_successor_plays_its_predecessor_first_one_match_per_preset_at_a_time() {
    let (s, es, recs) = with_successor(0.0, 30.0, 2);
    let ps = next(&s, &es, &recs, &[], 2);
    assert_eq!(
        ps,
        vec![Pairing::new("x", 12, 21), Pairing::new("y", 12, 21)]
    );
    let busy = [Pairing::new("x", 12, 21)];
    let ps = next(&s, &es, &recs, &busy, 1);
    assert_eq!(ps, vec![Pairing::new("y", 12, 21)]);
}

#[test]
fn a_decided_or_capped_comparison_stops_the_head_to_head() {
    for (mean, se, n) in [(60.0, 5.0, 2), (-60.0, 5.0, 2), (0.0, 5.0, 6)] {
        let (s, es, recs) = with_successor(mean, se, n);
        let ps = next(&s, &es, &recs, &[], 1);
        assert_ne!(ps[0], Pairing::new("x", 12, 21), "{mean} {n}");
    }
}

#[test]
fn a_version_with_two_matches_in_flight_waits_while_others_can_play() {
    let (s, mut es, recs) = ladder();
    es.push(upload(20));
    let busy = [Pairing::new("x", 1, 20), Pairing::new("y", 2, 20)];
    let ps = next(&s, &es, &recs, &busy, 5);
    assert_eq!(ps.len(), 5);
    assert_eq!(involving(&ps, 20), 0, "{ps:?}");
    let ps = next(&s, &es, &recs, &busy[..1], 5);
    assert_eq!(involving(&ps, 20), 1, "{ps:?}");
    // Across one call too: nobody gets more than two.
    let ps = next(&s, &es, &recs, &[], 20);
    for id in [10, 11, 12, 20] {
        assert!(involving(&ps, id) <= 2, "{id}: {ps:?}");
    }
}

#[test]
fn one_upload_and_references_keep_the_machine_busy() {
    let (s, es, recs) = ladder();
    let few: Vec<Entrant> = es
        .iter()
        .filter(|e| [1, 2, 10].contains(&e.id))
        .copied()
        .collect();
    let ps = next(&s, &few, &recs, &[], 8);
    assert_eq!(ps.len(), 8);
    assert_eq!(involving(&ps, 10), 2, "{ps:?}");
    assert!(ps
        .iter()
        .filter(|p| !p.involves(10))
        .all(|p| (p.a, p.b) == (1, 2)));
    // One reference and one upload: nothing else waits, so the cap gives way.
    let two: Vec<Entrant> = es
        .iter()
        .filter(|e| [1, 10].contains(&e.id))
        .copied()
        .collect();
    let ps = next(&s, &two, &recs, &[], 4);
    assert_eq!(ps.len(), 4);
    assert!(ps.iter().all(|p| (p.a, p.b) == (1, 10)));
    // A fresh ladder: the upload's first matches, and the references connect among themselves.
    let ps = next(&s, &few, &[], &[], 8);
    assert_eq!(
        ps,
        vec![
            Pairing::new("x", 1, 10),
            Pairing::new("y", 2, 10),
            Pairing::new("x", 1, 2),
            Pairing::new("y", 1, 2)
        ]
    );
}

#[test]
fn nobody_plays_alone_or_retired_and_nothing_without_two_versions() {
    let (s, mut es, mut recs) = ladder();
    es[3].active = false; // 10 retired
    es[0].active = false; // reference 1 retired
    recs.push(rec("x", 12, 12, 0.0, 1.0));
    let busy = [Pairing::new("x", 12, 12), Pairing::new("nope", 77, 12)];
    let ps = next(&s, &es, &recs, &busy, 30);
    assert_eq!(ps.len(), 30);
    for p in &ps {
        assert!(p.a < p.b, "{p:?}");
        assert!(!p.involves(1) && !p.involves(10), "{p:?}");
        assert!(p.preset == "x" || p.preset == "y");
    }
    assert!(next(&s, &es[..1], &recs, &[], 5).is_empty());
    assert!(next(&s, &[], &[], &[], 5).is_empty());
    assert!(next(&s, &es, &recs, &[], 0).is_empty());
    assert_eq!(
        next(&s, &es, &recs, &busy, 7),
        next(&s, &es, &recs, &busy, 7)
    );
}

#[test]
fn a_retired_predecessor_still_plays_its_successor_head_to_head_and_nothing_else() {
    // The service retires a version the moment its successor becomes active.
    let (s, mut es, recs) = with_successor(0.0, 30.0, 2);
    es.iter_mut().find(|e| e.id == 12).unwrap().active = false;
    let ps = next(&s, &es, &recs, &[], 2);
    assert_eq!(
        ps,
        vec![Pairing::new("x", 12, 21), Pairing::new("y", 12, 21)]
    );
    let ps = next(&s, &es, &recs, &[], 30);
    for p in &ps {
        assert!(!p.involves(12) || p.involves(21), "{p:?}");
    }
    // Decided: the retired version plays no more.
    let (s, mut es, recs) = with_successor(80.0, 5.0, 2);
    es.iter_mut().find(|e| e.id == 12).unwrap().active = false;
    assert!(next(&s, &es, &recs, &[], 30)
        .iter()
        .all(|p| !p.involves(12)));
}

#[test]
fn references_among_themselves_take_fair_turns_however_noisy_a_pair() {
    // Measured before: a pair far noisier than the median soaked up the whole ladder.
    let s = settings(&["x", "y"]);
    let es = vec![reference(1), reference(2), reference(3)];
    let mut recs = Vec::new();
    for p in ["x", "y"] {
        for (a, b) in [(1, 2), (1, 3), (2, 3)] {
            let se = if (p, a, b) == ("x", 1, 2) {
                1000.0
            } else {
                10.0
            };
            for _ in 0..2 {
                recs.push(rec(p, a, b, 5.0, se));
            }
        }
    }
    let ps = next(&s, &es, &recs, &[], 12);
    assert_eq!(ps.len(), 12);
    for p in ["x", "y"] {
        for (a, b) in [(1, 2), (1, 3), (2, 3)] {
            let n = ps
                .iter()
                .filter(|q| q.preset == p && q.a == a && q.b == b)
                .count();
            assert_eq!(n, 2, "{p} {a}-{b}: {ps:?}");
        }
    }
}
