//! Builds the strategy file of the house bot `cfr`: Monte Carlo CFR on the abstract game, from a
//! seed, so that the same command gives the same file byte for byte.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context};
use clap::Parser;
use pitboss_cfr::mccfr::Trainer;
use pitboss_cfr::strategy::Strategy;
use pitboss_cfr::tree::{Betting, Tree, STUD_FL, STUD_NL, STUD_PL, TD_FL, TD_NL, TD_PL};

/// Trains a heads-up strategy by external-sampling Monte Carlo CFR and writes its strategy file.
///
/// Examples:
///   pitboss-cfr-train --out bots/builtin/strategy/27td-fl.cfr.zst
///   pitboss-cfr-train --game 27td-nl --out bots/builtin/strategy/27td-nl.cfr.zst
///   pitboss-cfr-train --iterations 2000000 --seed 7 --out /tmp/quick.cfr
///   pitboss-cfr-train --game 27td-pl --draws opponent --out bots/builtin/strategy/27td-pl.cfr.zst
///   pitboss-cfr-train --game stud8-fl --out bots/builtin/strategy/stud8-fl.cfr.zst
///   pitboss-cfr-train --game stud8-nl --iterations 60000000 --out bots/builtin/strategy/stud8-nl.cfr.zst
#[derive(Parser)]
#[command(version, verbatim_doc_comment)]
struct Args {
    /// The game: heads-up triple draw, 27td-fl, 27td-pl or 27td-nl, or stud hi/lo, stud8-fl,
    /// stud8-pl or stud8-nl (whose abstraction ignores --draws).
    #[arg(long, default_value = "27td-fl")]
    game: String,
    /// Deals to train on (each walks the tree once per player).
    #[arg(long, default_value_t = 40_000_000)]
    iterations: u64,
    /// The seed of every card the training deals.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// What each player sees of the draws: `both` players' last draw counts (abstraction 2), or
    /// the `opponent`'s alone (abstraction 1, what the shipped pot- and no-limit strategies were
    /// trained on).
    #[arg(long, default_value = "both", value_parser = ["both", "opponent"])]
    draws: String,
    /// Where to write the strategy file (zstd-compressed when it ends in `.zst`, as the bot
    /// embeds it).
    #[arg(long)]
    out: PathBuf,
}

fn main() -> anyhow::Result<()> {
    let a = Args::parse();
    let betting: Betting = match a.game.as_str() {
        "27td-fl" => TD_FL,
        "27td-pl" => TD_PL,
        "27td-nl" => TD_NL,
        "stud8-fl" => STUD_FL,
        "stud8-pl" => STUD_PL,
        "stud8-nl" => STUD_NL,
        g => bail!(
            "--game {g}: the games with an abstraction are 27td-fl, 27td-pl, 27td-nl, stud8-fl, stud8-pl and stud8-nl"
        ),
    };
    if a.iterations == 0 {
        bail!("--iterations must be at least 1");
    }
    let tree = Tree::new(betting);
    let draws = match a.draws.as_str() {
        "opponent" => pitboss_cfr::td::OPP_DRAWS,
        _ => pitboss_cfr::td::BOTH_DRAWS,
    };
    let mut t = Trainer::with_draws(tree, a.seed, draws);
    eprintln!(
        "{}: {} decision nodes, {} information sets; {} iterations from seed {}",
        a.game,
        t.tree.nodes.len(),
        t.infosets(),
        a.iterations,
        a.seed
    );
    let start = Instant::now();
    let step = (a.iterations / 20).max(1);
    while t.iterations < a.iterations {
        t.run(step.min(a.iterations - t.iterations));
        let s = start.elapsed().as_secs_f64();
        eprint!(
            "\r{:>5.1}%  {} iterations  {:.0} s  {:.0} per second",
            100.0 * t.iterations as f64 / a.iterations as f64,
            t.iterations,
            s,
            t.iterations as f64 / s
        );
        std::io::stderr().flush().ok();
    }
    eprintln!();
    let mut bytes = Strategy::from_trainer(&a.game, a.seed, &t).to_bytes();
    if a.out.extension().is_some_and(|e| e == "zst") {
        bytes = pitboss_cfr::strategy::compress(&bytes);
    }
    if let Some(dir) = a.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("{}", dir.display()))?;
    }
    std::fs::write(&a.out, &bytes).with_context(|| format!("--out {}", a.out.display()))?;
    eprintln!("wrote {} ({} bytes)", a.out.display(), bytes.len());
    Ok(())
}
