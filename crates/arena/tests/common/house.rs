//! The house's built-in bots (`pitboss-bots`) in a duplicate match, for the tests of `cfr`.

use pitboss_arena::{
    run_match, BotFactory, Fault, InProcess, MatchConfig, MatchFile, MatchResult, Player,
};

/// The built-in bots by name.
pub struct Builtins(pub Vec<&'static str>);

impl BotFactory for Builtins {
    fn create(&self, index: usize, seed: u64, _lane: usize) -> Result<Box<dyn Player>, Fault> {
        let bot = pitboss_bots::builtin(self.0[index], seed).expect("a built-in bot");
        Ok(Box::new(InProcess(bot)))
    }
}

/// A duplicate match of built-in `bots` in `game` from `seed` (`luck`: the luck adjustment, `None`
/// the default), its folder removed afterwards.
pub fn play(
    game: &str,
    bots: &[&'static str],
    hands: u64,
    seed: u64,
    luck: Option<bool>,
    threads: usize,
) -> MatchResult {
    let out = std::env::temp_dir().join(format!(
        "pitboss-test-{}-house-{game}-{}",
        std::process::id(),
        bots.join("-")
    ));
    let cfg = MatchConfig::from_file(
        MatchFile {
            game: Some(game.into()),
            bots: Some(bots.iter().map(|s| s.to_string()).collect()),
            hands: Some(hands),
            seed: Some(seed),
            duplicate: Some(true),
            luck_adjust: luck,
            threads: Some(threads),
            out: Some(out.clone()),
            ..MatchFile::default()
        },
        |_| unreachable!(),
    )
    .expect("valid config");
    let r = run_match(&cfg, &Builtins(bots.to_vec()), &mut |_, _| {});
    let _ = std::fs::remove_dir_all(&out);
    r.expect("match")
}

/// The first bot's luck-adjusted mbb/hand and the half-width of its 95% interval, in a duplicate
/// match of `bots` from seed 1 on two threads.
#[allow(dead_code)] // Not every test file that includes this module compares results.
pub fn luck_adjusted(game: &str, bots: [&'static str; 2], hands: u64) -> (f64, f64) {
    let r = play(game, &bots, hands, 1, Some(true), 2);
    let row = &r.rows[0];
    let mean = row.adj_mbb_per_hand.expect("luck-adjusted");
    (mean, (row.adj_ci95_high.expect("an interval") - mean).abs())
}
