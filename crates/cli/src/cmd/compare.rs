//! `pitboss compare OLD NEW`: is NEW better than OLD? A direct heads-up match between the two,
//! duplicate and luck adjusted (the lowest-variance way to tell two bots apart), played in
//! batches; after each batch two one-sided SPRTs (the tournament's, on NEW's per-deal results in
//! mbb/hand and on their negation) decide "better by delta", "worse by delta", "less than delta
//! apart", or nothing before the hand budget runs out.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use pitboss_arena::config::MAX_SEED;
use pitboss_arena::summary::{t975, write_csv};
use pitboss_arena::{run_match, ConfigError, MatchConfig, MatchFile, MatchStats, SummaryRow};
use pitboss_external::{BotSpec, ExternalFactory, ExternalOptions, SpecError};
use pitboss_tournament::sprt::{Decision, Running, SprtConfig};

use crate::args_compare::CompareArgs;

/// A verdict other than "NEW is better", carried to the exit code (the line is printed already).
#[derive(Debug, thiserror::Error)]
pub enum Verdict {
    #[error("NEW is worse")]
    Worse,
    #[error("no difference shown")]
    NoDifference,
}

/// How the comparison ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Better,
    Worse,
    /// Both tests accepted H0: any difference is smaller than delta.
    Within,
    /// The hand budget ran out first.
    Undecided,
}

/// The two one-sided tests; a decision, once taken, stays.
struct Tests {
    sprt: SprtConfig,
    better: Decision,
    worse: Decision,
}

impl Tests {
    /// Looks at the results so far; `Some` when the comparison is over.
    fn update(&mut self, r: &Running) -> Option<Outcome> {
        let (mean, var) = (r.mean(), r.var());
        if self.better == Decision::Undecided {
            self.better = self.sprt.decide(r.n, mean, var).0;
        }
        if self.worse == Decision::Undecided {
            self.worse = self.sprt.decide(r.n, -mean, var).0;
        }
        match (self.better, self.worse) {
            (Decision::H1, _) => Some(Outcome::Better),
            (_, Decision::H1) => Some(Outcome::Worse),
            (Decision::H0, Decision::H0) => Some(Outcome::Within),
            _ => None,
        }
    }
}

/// Mean and 95% interval of the per-deal values (an infinite interval before two deals).
fn interval(r: &Running) -> (f64, f64, f64) {
    let mean = r.mean();
    if r.n < 2 {
        return (mean, f64::NEG_INFINITY, f64::INFINITY);
    }
    let half = t975(r.n - 1) * r.var().sqrt() / (r.n as f64).sqrt();
    (mean, mean - half, mean + half)
}

/// The verdict line (stdout's only line).
fn verdict_line(outcome: Outcome, r: &Running, hands: u64) -> String {
    let (mean, lo, hi) = interval(r);
    let head = match outcome {
        Outcome::Better => "NEW is better",
        Outcome::Worse => "NEW is worse",
        Outcome::Within | Outcome::Undecided => "no difference shown",
    };
    format!("{head}: {mean:+.1} mbb/hand [{lo:.1}, {hi:.1}] ({hands} hands)")
}

/// Why a spec names no usable bot, for the argument `key` (OLD or NEW).
fn spec_error(key: &'static str, e: SpecError) -> ConfigError {
    ConfigError {
        key,
        why: match e {
            SpecError::Unknown(n) => format!(
                "unknown bot `{n}` (built-in bots: {}, and best = {}; exploiters: {}; or exec:COMMAND, or a bot.toml path)",
                pitboss_bots::NAMES.join(", "),
                pitboss_bots::BEST,
                pitboss_bots::EXPLOITERS.join(", ")
            ),
            e => e.to_string(),
        },
    }
}

/// The games asked for: each preset once, `all` for the six, 27td-fl when none.
fn games(asked: &[String]) -> Result<Vec<String>, ConfigError> {
    let mut out = super::games::presets(asked, "--game")?;
    if out.is_empty() {
        out.push("27td-fl".to_string());
    }
    Ok(out)
}

/// The match of one batch: OLD in seat 1, NEW in seat 2, duplicate, luck adjusted.
fn batch_config(
    args: &CompareArgs,
    game: &str,
    hands: u64,
    seed: Option<u64>,
    salt: Option<pitboss_cards::Salt>,
    out: &Path,
) -> Result<MatchConfig, ConfigError> {
    let file = MatchFile {
        game: Some(game.to_string()),
        bots: Some(vec![args.old.clone(), args.new.clone()]),
        hands: Some(hands),
        seed,
        salt,
        duplicate: Some(true),
        threads: args.threads,
        out: Some(out.to_path_buf()),
        decision_ms: args.decision_ms,
        bank_ms: args.bank_ms,
        restarts: args.restarts,
        sandbox: Some(!args.no_sandbox),
        build_network: Some(args.build_network),
        luck_adjust: Some(true),
        luck_model: Some(pitboss_luck::MODEL_NAME.to_string()),
        ..MatchFile::default()
    };
    MatchConfig::from_file(file, |_| out.to_path_buf())
}

/// The folder the batches are played in: `--out` (kept), or a temp folder removed on drop.
struct Work {
    path: PathBuf,
    keep: bool,
}

impl Drop for Work {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

fn temp_folder() -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    std::env::temp_dir().join(format!("pitboss-compare-{}-{nanos}", std::process::id()))
}

pub fn run(args: CompareArgs) -> anyhow::Result<()> {
    // Each spec on its own first, so that an error names the argument.
    let is_builtin = |s: &str| pitboss_bots::builtin(s, 1).is_some();
    BotSpec::parse(&args.old, &is_builtin).map_err(|e| spec_error("OLD", e))?;
    BotSpec::parse(&args.new, &is_builtin).map_err(|e| spec_error("NEW", e))?;
    let games = games(&args.games)?;
    let sprt = SprtConfig {
        m0: 0.0,
        m1: args.delta,
        alpha: args.alpha,
        beta: args.beta,
    };
    if !(args.delta > 0.0 && args.delta.is_finite()) {
        return Err(ConfigError {
            key: "--delta",
            why: format!("{} must be a number of mbb/hand above 0", args.delta),
        }
        .into());
    }
    if let Some(why) = sprt.problem() {
        return Err(ConfigError {
            key: "--alpha / --beta",
            why,
        }
        .into());
    }
    // Whole duplicate deals: an even number of hands.
    let batch = args.batch.max(2).div_ceil(2) * 2;

    let work = match &args.out {
        Some(o) => {
            super::outdir::prepare(o, args.force, |_| false)?;
            Work {
                path: o.clone(),
                keep: true,
            }
        }
        None => Work {
            path: temp_folder(),
            keep: false,
        },
    };
    std::fs::create_dir_all(&work.path)
        .with_context(|| format!("creating {}", work.path.display()))?;
    let first = batch_config(&args, &games[0], batch, args.seed, None, &work.path)?;
    let base_seed = first.seed;
    let factory = ExternalFactory::new(
        &first.bots,
        pitboss_bots::builtin,
        &ExternalOptions::from_config(&first),
    )
    .map_err(|e| spec_error("OLD / NEW", e))?;
    let (kept, tmp) = (work.keep, work.path.clone());
    super::play::install_interrupt_handler(move || {
        if kept {
            format!("not decided; the bots' logs are in {}", tmp.display())
        } else {
            let _ = std::fs::remove_dir_all(&tmp);
            "not decided".to_string()
        }
    });
    let salt = if factory.has_external() {
        let line = factory.sandbox_description();
        if first.sandbox && !pitboss_external::jail::features().complete() {
            eprintln!("pitboss: warning: the jail is weaker than the full one here: {line}");
        } else {
            eprintln!("pitboss: {line}");
        }
        // A secret deck key: no bot can derive a deck from the seed.
        Some(pitboss_cards::Salt::random().context("drawing the deck salt")?)
    } else {
        None
    };
    let name = |s: &str| pitboss_arena::name::one_line(s).into_owned();
    eprintln!(
        "pitboss: compare OLD {} with NEW {}: {}; delta {} mbb/hand, alpha {}, beta {}, at most {} hands in batches of {batch}, seed {base_seed}",
        name(&args.old),
        name(&args.new),
        games.join(", "),
        args.delta,
        args.alpha,
        args.beta,
        args.max_hands
    );

    let mut tests = Tests {
        sprt,
        better: Decision::Undecided,
        worse: Decision::Undecided,
    };
    let mut running = Running::default();
    let mut per_game: Vec<MatchStats> = games.iter().map(|_| MatchStats::new(2)).collect();
    let mut hands = 0u64;
    let terminal = std::io::stderr().is_terminal();
    let mut i = 0u64;
    let outcome = loop {
        if hands >= args.max_hands {
            break Outcome::Undecided;
        }
        let g = (i % games.len() as u64) as usize;
        let h = batch.min((args.max_hands - hands).div_ceil(2) * 2);
        let seed = base_seed.wrapping_add(i) & MAX_SEED;
        let cfg = batch_config(
            &args,
            &games[g],
            h,
            Some(seed),
            salt,
            &work.path.join(&games[g]),
        )?;
        let result = run_match(&cfg, &factory, &mut |_, _| {})?;
        let new = &result.stats.bots[1];
        anyhow::ensure!(
            new.adj_hands == new.hands && new.hands > 0,
            "the match of batch {} gave no luck-adjusted results",
            i + 1
        );
        // Thousandths of a chip per deal (both seats) → mbb/hand: / 2 hands / the game's unit.
        let scale = 1.0 / 2.0 / cfg.game().unit() as f64;
        running.n += new.units;
        running.sum += new.adj_unit_net as f64 * scale;
        running.sum_sq += new.adj_unit_sq as f64 * scale * scale;
        hands += new.hands;
        per_game[g].merge(&result.stats);
        let done = tests.update(&running);
        let (mean, lo, hi) = interval(&running);
        let line = format!(
            "pitboss: {hands}/{} hands (last batch {}): NEW {mean:+.1} mbb/hand [{lo:.1}, {hi:.1}]",
            args.max_hands, games[g]
        );
        if terminal {
            eprint!("\r{line}\x1b[K");
        } else {
            eprintln!("{line}");
        }
        if let Some(o) = done {
            break o;
        }
        i += 1;
    };
    if terminal {
        eprintln!();
    }
    eprintln!(
        "pitboss: {}",
        match outcome {
            Outcome::Better => format!("the test found NEW better by {} mbb/hand or more", args.delta),
            Outcome::Worse => format!("the test found NEW worse by {} mbb/hand or more", args.delta),
            Outcome::Within => format!(
                "the test found any difference smaller than {} mbb/hand",
                args.delta
            ),
            Outcome::Undecided => format!(
                "the budget of {} hands ran out before the test decided (--max-hands, or a larger --delta)",
                args.max_hands
            ),
        }
    );
    warn_faults(&factory, &per_game, &first);
    let verdict = verdict_line(outcome, &running, hands);
    if work.keep {
        write_results(&work.path, &games, &per_game, &first, &verdict)?;
    }
    drop(factory);
    println!("{verdict}");
    std::io::stdout().flush().ok();
    match outcome {
        Outcome::Better => Ok(()),
        Outcome::Worse => Err(Verdict::Worse.into()),
        Outcome::Within | Outcome::Undecided => Err(Verdict::NoDifference.into()),
    }
}

/// A WARNING on stderr for a bot that forfeited or faulted on more than 1% of its decisions: its
/// losses may be its faults, not its play.
fn warn_faults(factory: &ExternalFactory, per_game: &[MatchStats], cfg: &MatchConfig) {
    for (i, r) in factory.reports().into_iter().enumerate() {
        let Some(r) = r else { continue };
        let faults: u64 = per_game.iter().map(|s| s.bots[i].fault_total()).sum();
        let asked = r.decisions.max(faults);
        if r.forfeited || faults * 100 > asked {
            eprintln!(
                "pitboss: WARNING: {} (`{}`) {} ({faults} fault(s), {} decision(s) answered in time)",
                if i == 0 { "OLD" } else { "NEW" },
                pitboss_arena::name::one_line(cfg.name(i)),
                if r.forfeited {
                    "FORFEITED"
                } else {
                    "faulted on more than 1% of its decisions"
                },
                r.decisions
            );
        }
    }
}

/// `--out`: each game's summary.csv (every batch of that game summed) and verdict.txt.
fn write_results(
    out: &Path,
    games: &[String],
    per_game: &[MatchStats],
    cfg: &MatchConfig,
    verdict: &str,
) -> anyhow::Result<()> {
    for (game, stats) in games.iter().zip(per_game) {
        if stats.bots[0].hands == 0 {
            continue;
        }
        let unit = pitboss_rules::Preset::by_name(game)
            .expect("validated game")
            .game
            .unit();
        let rows: Vec<SummaryRow> = stats
            .bots
            .iter()
            .enumerate()
            .map(|(i, s)| SummaryRow::new(cfg.name(i), s, unit, 2))
            .collect();
        let path = out.join(game).join("summary.csv");
        let f =
            std::fs::File::create(&path).with_context(|| format!("writing {}", path.display()))?;
        write_csv(f, &rows).with_context(|| format!("writing {}", path.display()))?;
    }
    let path = out.join("verdict.txt");
    std::fs::write(&path, format!("{verdict}\n"))
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}
