//! `pitboss merge DIR... --out OUT`: every shard of one tournament, checked, into one folder with
//! the reports — the same files a single machine would have written.

use pitboss_arena::output::write_atomic;
use pitboss_tournament::report::Report;
use pitboss_tournament::{load_folders, unit::unit_path, Standings};

use crate::args::MergeArgs;

pub fn run(args: MergeArgs) -> anyhow::Result<()> {
    let loaded = load_folders(&args.dirs)?;
    let standings = Standings::compute(&loaded.plan, &loaded.units, &|u| loaded.locate(u))?;
    let out = &args.out;
    if out.join("plan.json").exists() {
        let have = pitboss_tournament::shards::read_plan(out)?;
        if let Some(d) = loaded.plan.difference(&have) {
            anyhow::bail!("{} holds a different tournament ({d})", out.display());
        }
    }
    std::fs::create_dir_all(out.join("units"))?;
    let plan = serde_json::to_vec_pretty(&loaded.plan)?;
    // The plan holds the salt: the owner's alone.
    pitboss_arena::output::write_secret(&out.join("plan.json"), &plan)?;
    for u in loaded.units.values() {
        write_atomic(&unit_path(out, &u.id), &serde_json::to_vec(u)?)?;
    }
    pitboss_tournament::history::gather(&args.dirs, &loaded.plan, out)?;
    let report = Report::build(&loaded.plan, &standings);
    report.write(out)?;
    println!(
        "merged {} shard folders ({} units) into {}",
        loaded.dirs.len(),
        loaded.units.len(),
        out.display()
    );
    super::tournament::print_report(&report, out);
    Ok(())
}
