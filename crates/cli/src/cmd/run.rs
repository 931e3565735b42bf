//! `pitboss run`: the main job. An embedded tournament of the bundled bots in the six presets
//! (both games, all three structures), written to `results/<timestamp>-default/` with the full
//! report.

use std::path::PathBuf;

use pitboss_arena::output::timestamp;
use pitboss_tournament::{RunMode, Shard, TournamentConfig, TournamentFile};

use crate::args::RunArgs;

/// The default tournament (also in `pitboss run --help`).
pub const DEFAULT_TOURNAMENT: &str = include_str!("../default_tournament.toml");

pub fn run(args: RunArgs) -> anyhow::Result<()> {
    let file: TournamentFile = toml::from_str(DEFAULT_TOURNAMENT)?;
    let flags = TournamentFile {
        threads: args.threads,
        out: args.out,
        ..TournamentFile::default()
    };
    let cfg = TournamentConfig::from_file(file.overlay(flags), || {
        PathBuf::from("results").join(format!("{}-default", timestamp()))
    })?;
    super::outdir::prepare(&cfg.out, false, super::tournament::tournament_folder)?;
    super::play::install_interrupt_handler(super::tournament::interrupt_note(&cfg.out));
    let report = super::tournament::run_config(&cfg, Shard::default(), RunMode::Resume)?
        .expect("unsharded runs report");
    super::tournament::print_report(&report, &cfg.out);
    println!("open {}", cfg.out.join("report.html").display());
    Ok(())
}
