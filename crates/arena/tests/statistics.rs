//! Statistical checks with the reference bots. Fixed seeds make them deterministic: they cannot
//! flake, and their tolerances are wide enough that a correct implementation passes by a margin.

use pitboss_arena::{run_match, BotFactory, Fault, InProcess, MatchConfig, MatchFile, Player};

struct Builtins(Vec<String>);

impl BotFactory for Builtins {
    fn create(&self, index: usize, seed: u64, _lane: usize) -> Result<Box<dyn Player>, Fault> {
        Ok(Box::new(InProcess(
            pitboss_bots::builtin(&self.0[index], seed).expect("known bot"),
        )))
    }
}

fn play(
    game: &str,
    bots: &[&str],
    hands: u64,
    seed: u64,
    duplicate: bool,
) -> Vec<pitboss_arena::SummaryRow> {
    let out =
        std::env::temp_dir().join(format!("pitboss-stat-{}-{game}-{seed}", std::process::id()));
    let cfg = MatchConfig::from_file(
        MatchFile {
            game: Some(game.into()),
            bots: Some(bots.iter().map(|s| s.to_string()).collect()),
            hands: Some(hands),
            seed: Some(seed),
            duplicate: Some(duplicate),
            threads: Some(2),
            out: Some(out.clone()),
            ..MatchFile::default()
        },
        |_| unreachable!(),
    )
    .expect("config");
    let names = bots.iter().map(|s| s.to_string()).collect();
    let r = run_match(&cfg, &Builtins(names), &mut |_, _| {}).expect("match");
    let _ = std::fs::remove_dir_all(out);
    r.rows
}

/// `call` vs `call` has true mean 0 by symmetry (every bot plays every position equally often), so
/// its 95% interval must cover 0 in about 95% of independent matches.
#[test]
fn call_vs_call_interval_covers_zero_about_95_percent_of_the_time() {
    let trials = 200;
    let mut covered = 0;
    for seed in 0..trials {
        let rows = play("27td-fl", &["call", "call"], 2000, 1000 + seed, false);
        let r = &rows[0];
        if r.ci95_low <= 0.0 && 0.0 <= r.ci95_high {
            covered += 1;
        }
    }
    let rate = f64::from(covered) / trials as f64;
    eprintln!("call vs call: 95% interval covered 0 in {covered} of {trials} matches");
    // Binomial(200, 0.95) has sd 0.015: [0.88, 0.995] is more than four sd either way.
    assert!((0.88..=0.995).contains(&rate), "coverage {rate}");
}

#[test]
fn lowball_beats_random_at_triple_draw_significantly() {
    for game in ["27td-fl", "27td-nl"] {
        let rows = play(game, &["lowball", "random"], 20_000, 7, true);
        assert!(rows[0].ci95_low > 0.0, "{game}: {:?}", rows[0]);
    }
}

#[test]
fn hilo_beats_random_at_stud_significantly() {
    for game in ["stud8-fl", "stud8-pl"] {
        let rows = play(game, &["hilo", "random"], 20_000, 7, true);
        assert!(rows[0].ci95_low > 0.0, "{game}: {:?}", rows[0]);
    }
}
