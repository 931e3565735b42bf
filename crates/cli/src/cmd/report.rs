//! `pitboss report DIR... [--out OUT]`: the leaderboard reports of a tournament folder (or of all
//! shard folders of one tournament) from its unit files.

use crate::args::ReportArgs;

pub fn run(args: ReportArgs) -> anyhow::Result<()> {
    let out = match (&args.out, args.dirs.as_slice()) {
        (Some(o), _) => o.clone(),
        (None, [one]) => one.clone(),
        (None, _) => anyhow::bail!("--out: several folders given; say where the reports go"),
    };
    let report = super::tournament::report_folders(&args.dirs, &out)?;
    super::tournament::print_report(&report, &out);
    Ok(())
}
