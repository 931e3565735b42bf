//! Hands per second of whole matches (referee + in-process bots + statistics), heads-up 2-7 TD
//! fixed limit, random vs random, on 1 and 2 threads, with unsalted decks (in-process matches)
//! and salted ones (any external bot), alternated three times (best of each kept, so that load
//! from other jobs hits both alike), and the ratio of the two from the same run:
//! `cargo bench -p pitboss-arena --bench referee`.

#[path = "../tests/common/mod.rs"]
mod common;

use pitboss_arena::{run_match, MatchConfig, MatchFile};
use pitboss_cards::Salt;

fn rate(game: &str, hands: u64, threads: usize, salt: Option<Salt>) -> f64 {
    let out = std::env::temp_dir().join(format!("pitboss-bench-{}", std::process::id()));
    let cfg = MatchConfig::from_file(
        MatchFile {
            game: Some(game.to_string()),
            bots: Some(vec!["random".into(), "random".into()]),
            hands: Some(hands),
            seed: Some(1),
            salt,
            threads: Some(threads),
            out: Some(out.clone()),
            ..MatchFile::default()
        },
        |_| unreachable!(),
    )
    .expect("config");
    let r = run_match(
        &cfg,
        &common::Factory(vec!["random", "random"]),
        &mut |_, _| {},
    )
    .expect("match");
    let _ = std::fs::remove_dir_all(out);
    r.hands as f64 / r.elapsed.as_secs_f64()
}

fn main() {
    let hands: u64 = std::env::var("HANDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000_000);
    let game = std::env::var("GAME").unwrap_or_else(|_| "27td-fl".into());
    for threads in [1, 2] {
        let mut best = [0f64; 2];
        for _ in 0..3 {
            for (i, salt) in [None, Some(Salt([7; 32]))].into_iter().enumerate() {
                best[i] = best[i].max(rate(&game, hands, threads, salt));
            }
        }
        println!(
            "{game} heads-up random vs random, {threads} thread(s): unsalted {:>9.0} hands/s, \
             salted {:>9.0} hands/s, salted / unsalted {:.3}",
            best[0],
            best[1],
            best[1] / best[0]
        );
    }
}
