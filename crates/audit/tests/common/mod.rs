//! Real matches of built-in bots with the action tape on.

use std::sync::atomic::{AtomicU64, Ordering};

use pitboss_arena::{run_match, BotFactory, Fault, InProcess, MatchConfig, MatchFile, Player};
use pitboss_cards::Salt;

/// The built-in bots, in process.
pub struct Builtins(pub Vec<&'static str>);

impl BotFactory for Builtins {
    fn create(&self, index: usize, seed: u64, _lane: usize) -> Result<Box<dyn Player>, Fault> {
        let bot = pitboss_bots::builtin(self.0[index], seed).expect("a built-in bot");
        Ok(Box::new(InProcess(bot)))
    }
}

static RUN: AtomicU64 = AtomicU64::new(0);

/// A duplicate heads-up match's config, salted like the service's.
pub fn config(preset: &str, hands: u64, seed: u64, luck: bool, tape: bool) -> MatchConfig {
    let out = std::env::temp_dir().join(format!(
        "pitboss-audit-{}-{}",
        std::process::id(),
        RUN.fetch_add(1, Ordering::Relaxed)
    ));
    let mut cfg = MatchConfig::from_file(
        MatchFile {
            game: Some(preset.into()),
            bots: Some(vec!["random".into(), "call".into()]),
            hands: Some(hands),
            seed: Some(seed),
            salt: Some(Salt([9; 32])),
            duplicate: Some(true),
            threads: Some(2),
            out: Some(out),
            luck_adjust: Some(luck),
            ..MatchFile::default()
        },
        |_| unreachable!(),
    )
    .expect("config");
    cfg.tape = tape;
    cfg
}

/// Plays `cfg` (random against call): the compressed tape and the statistics per bot.
#[allow(dead_code)]
pub fn play(cfg: &MatchConfig) -> (Vec<u8>, Vec<pitboss_arena::BotStats>) {
    let r = run_match(cfg, &Builtins(vec!["random", "call"]), &mut |_, _| {}).expect("match");
    let _ = std::fs::remove_dir_all(&cfg.out);
    let tape = r.tape.expect("a tape");
    (pitboss_arena::tape::compress(&tape), r.stats.bots)
}
