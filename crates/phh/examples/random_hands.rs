//! Plays random legal hands through the engine and writes them as PHH, one `.phhs` per game and
//! structure, for `scripts/pokerkit/replay_check.py` (the Pitboss → PokerKit cross-check).
//!
//! `cargo run --release -p pitboss-phh --example random_hands -- --seed 1 --hands 2000 --out DIR`

#[path = "../tests/common/play.rs"]
mod play;

use std::fs::File;
use std::io::BufWriter;

use pitboss_phh::{code_of, phh_from_events, HandRecord, PhhsWriter};
use pitboss_rules::PRESETS;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut seed = 1u64;
    let mut hands = 2000u64;
    let mut out = String::from("results/phh-pitboss");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--seed" => seed = val()?.parse()?,
            "--hands" => hands = val()?.parse()?,
            "--out" => out = val()?,
            "-h" | "--help" => {
                println!("random_hands [--seed N] [--hands N per game] [--out DIR]");
                return Ok(());
            }
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    std::fs::create_dir_all(&out)?;
    let t0 = std::time::Instant::now();
    for (i, preset) in PRESETS.iter().enumerate() {
        let code = code_of(preset.game.variant, preset.game.structure);
        let path = format!("{out}/{}.phhs", code.replace('/', ""));
        let mut w = PhhsWriter::new(BufWriter::new(File::create(&path)?));
        let mut community = 0;
        for k in 0..hands {
            let p = play::play(seed, k, i);
            let events = p.hand.events();
            community += events
                .iter()
                .any(|e| matches!(e, pitboss_rules::Event::Community { .. }))
                as u32;
            let rec = HandRecord {
                game: &p.setup.game,
                stacks: &p.setup.stacks,
                button: p.setup.button,
                events,
                names: None,
                hand: Some(k as i64 + 1),
            };
            w.write_hand(&phh_from_events(&rec))?;
        }
        w.finish()?;
        println!("{code:6} {hands} hands -> {path} ({community} with a community card)");
    }
    eprintln!("{} hands in {:.1}s", hands * 6, t0.elapsed().as_secs_f64());
    Ok(())
}
