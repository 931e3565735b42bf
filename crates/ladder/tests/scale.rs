//! A ladder of the size the service aims at stays quick to rate and schedule.

mod common;

use common::{play, reference, upload, Rng};
use pitboss_ladder::{next, rate, Entrant, Settings};

#[test]
fn two_hundred_versions_in_six_presets() {
    let s = Settings::default();
    let n = 200;
    let es: Vec<Entrant> = (0..n)
        .map(|i| if i < 4 { reference(i) } else { upload(i) })
        .collect();
    let truth: Vec<f64> = (0..n).map(|i| ((i * 37) % 200) as f64 - 100.0).collect();
    let mut rng = Rng(1);
    let mut recs = Vec::new();
    for p in &s.presets {
        for _ in 0..2000 {
            let a = rng.below(n as usize) as i64;
            let b = rng.below(n as usize) as i64;
            if a != b {
                let d = truth[a as usize] - truth[b as usize];
                recs.push(play(&mut rng, p, a, b, d, 40.0));
            }
        }
    }
    let t = std::time::Instant::now();
    let r = rate(&s, &es, &recs);
    let rated = t.elapsed();
    assert!(r.versions.iter().all(|v| v.overall.is_some()));
    let t = std::time::Instant::now();
    let ps = next(&s, &es, &recs, &[], 32);
    eprintln!("rate {rated:?}, next(32) {:?}", t.elapsed());
    assert_eq!(ps.len(), 32);
}
