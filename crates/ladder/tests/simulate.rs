//! A ladder loop against a fake match generator: uploads arrive and retire, matches take a few
//! steps each, and every step the free slots are filled by `next`.

mod common;

use std::collections::HashMap;

use common::{play, reference, settings, upload, Rng};
use pitboss_ladder::{compare, next, rate, Entrant, Pairing, Record, VersionId};

const PRESETS: [&str; 3] = ["x", "y", "z"];
const SLOTS: usize = 6;
const STEPS: usize = 700;

/// (id, true rating, arrives at step, predecessor)
const UPLOADS: [(VersionId, f64, usize, Option<VersionId>); 8] = [
    (10, -90.0, 0, None),
    (11, -20.0, 0, None),
    (12, 30.0, 0, None),
    (13, 150.0, 0, None),
    (14, 60.0, 100, None),
    (15, 0.0, 130, None),
    (16, 95.0, 160, Some(12)),
    (17, -40.0, 190, None),
];
const RETIRE: (VersionId, usize) = (11, 300);

fn truth(id: VersionId) -> f64 {
    match id {
        1 => -60.0,
        2 => 0.0,
        3 => 60.0,
        _ => UPLOADS.iter().find(|u| u.0 == id).expect("known id").1,
    }
}

struct Sim {
    entrants: Vec<Entrant>,
    records: Vec<Record>,
    /// Pairing and the step it finishes.
    flight: Vec<(Pairing, usize)>,
    /// Matches started per version from `window_from` on.
    started: HashMap<VersionId, u32>,
    window_from: usize,
}

#[test]
fn a_simulated_ladder_is_fair_ranks_everybody_and_finds_the_order() {
    let mut s = settings(&PRESETS);
    s.ranked_halfwidth = 25.0;
    let mut rng = Rng(77);
    let mut sim = Sim {
        entrants: vec![reference(1), reference(2), reference(3)],
        records: Vec::new(),
        flight: Vec::new(),
        started: HashMap::new(),
        window_from: 350,
    };
    let mut ranked_late_upload_at = None;
    for step in 0..STEPS {
        for &(id, _, at, pred) in &UPLOADS {
            if at == step {
                sim.entrants.push(Entrant {
                    predecessor: pred,
                    ..upload(id)
                });
            }
        }
        if step == RETIRE.1 {
            sim.entrants
                .iter_mut()
                .find(|e| e.id == RETIRE.0)
                .unwrap()
                .active = false;
        }
        // Finished matches become records.
        let (done, running): (Vec<_>, Vec<_>) =
            sim.flight.drain(..).partition(|(_, end)| *end <= step);
        sim.flight = running;
        for (p, _) in done {
            let se = 30.0 + 30.0 * rng.uniform();
            sim.records.push(play(
                &mut rng,
                &p.preset,
                p.a,
                p.b,
                truth(p.a) - truth(p.b),
                se,
            ));
        }
        let busy: Vec<Pairing> = sim.flight.iter().map(|(p, _)| p.clone()).collect();
        let picks = next(&s, &sim.entrants, &sim.records, &busy, SLOTS - busy.len());
        assert_eq!(
            picks.len(),
            SLOTS - busy.len(),
            "step {step}: the machine idles"
        );
        for p in picks {
            assert!(p.a < p.b, "step {step}: {p:?}");
            for id in [p.a, p.b] {
                let e = sim
                    .entrants
                    .iter()
                    .find(|e| e.id == id)
                    .expect("an entrant");
                let successor_h2h = sim
                    .entrants
                    .iter()
                    .any(|s| s.active && s.predecessor == Some(id) && p.involves(s.id));
                assert!(
                    e.active || successor_h2h,
                    "step {step}: retired {id} scheduled outside its successor's head-to-head"
                );
            }
            if step >= sim.window_from {
                for id in [p.a, p.b] {
                    *sim.started.entry(id).or_insert(0) += 1;
                }
            }
            let end = step + 1 + rng.below(3);
            sim.flight.push((p, end));
        }
        // With three references free to play, no upload ever holds a third slot.
        for &(id, ..) in &UPLOADS {
            let n = sim.flight.iter().filter(|(p, _)| p.involves(id)).count();
            assert!(n <= 2, "step {step}: {id} has {n} matches in flight");
        }
        if ranked_late_upload_at.is_none() {
            let r = rate(&s, &sim.entrants, &sim.records);
            if r.get(17).is_some_and(|v| v.rank.is_some()) {
                ranked_late_upload_at = Some(step);
            }
        }
    }

    let r = rate(&s, &sim.entrants, &sim.records);
    let active: Vec<VersionId> = UPLOADS
        .iter()
        .map(|u| u.0)
        .filter(|&id| id != RETIRE.0)
        .collect();
    // Everybody active is ranked in the end; the late upload became ranked well before the end.
    for &id in &active {
        let v = r.get(id).unwrap();
        assert!(
            !v.provisional && v.rank.is_some(),
            "{id} still provisional: {v:?}"
        );
    }
    let at = ranked_late_upload_at.expect("17 became ranked");
    assert!(at < 190 + 200, "17 ranked only at step {at}");
    // Fair shares over the second half: everybody gets at least half the average.
    let shares: Vec<u32> = active
        .iter()
        .map(|id| sim.started.get(id).copied().unwrap_or(0))
        .collect();
    let avg = f64::from(shares.iter().sum::<u32>()) / shares.len() as f64;
    for (id, n) in active.iter().zip(&shares) {
        assert!(
            f64::from(*n) >= 0.5 * avg,
            "{id} started {n} matches, average {avg}: {shares:?}"
        );
    }
    assert_eq!(
        sim.started.get(&RETIRE.0),
        None,
        "the retired version played"
    );
    // The ranking follows the truth (distinct by 30 mbb/hand or more).
    let order: Vec<VersionId> = r
        .ranking()
        .iter()
        .map(|v| v.id)
        .filter(|id| *id >= 10)
        .collect();
    let mut want = active.clone();
    want.sort_by(|a, b| truth(*b).total_cmp(&truth(*a)));
    assert_eq!(order, want);
    // The successor was compared with its predecessor head-to-head.
    let c = compare(&s, 16, 12, &sim.records);
    assert!(c.matches >= 1, "{c:?}");
}
