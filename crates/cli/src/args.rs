//! Raw command-line arguments (clap derive). These structs do no I/O and no cross-flag checks;
//! each command turns its arguments into a validated config (`cmd::*::Config::from_args`).

use clap::{Parser, Subcommand, ValueEnum};

/// Pitboss: a poker bot arena for Deuce-to-Seven Triple Draw and Seven Card Stud Hi/Lo.
#[derive(Debug, Parser)]
#[command(name = "pitboss", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Evaluate poker holdings: one holding per line in, one JSON object per line out.
    #[command(after_long_help = EVAL_HELP, after_help = EVAL_HELP)]
    Eval(EvalArgs),
    /// Play a match between bots and write statistics (summary.csv) to an output folder.
    #[command(after_long_help = MATCH_HELP, after_help = MATCH_HELP)]
    Match(MatchArgs),
    /// PHH hand histories: verify them through the referee, or show them.
    #[command(subcommand)]
    Phh(PhhCommand),
    /// Check that a bot is fit for a tournament: handshake, then a short match in every game it
    /// claims; says what is wrong and exits 0 only when nothing is.
    #[command(after_long_help = CHECK_HELP, after_help = CHECK_HELP)]
    Check(CheckArgs),
    /// Run a tournament: a round robin of duplicate matches, resumable and shardable.
    #[command(after_long_help = TOURNAMENT_HELP, after_help = TOURNAMENT_HELP)]
    Tournament(TournamentArgs),
    /// Combine the folders of a sharded tournament into one result (identical to a single run).
    #[command(after_long_help = MERGE_HELP, after_help = MERGE_HELP)]
    Merge(MergeArgs),
    /// Write the leaderboard reports of tournament folders (also done at the end of a tournament).
    #[command(after_long_help = REPORT_HELP, after_help = REPORT_HELP)]
    Report(ReportArgs),
    /// Register a bot: check it, play it against every registered bot, update the leaderboard.
    #[command(after_long_help = SUBMIT_HELP, after_help = SUBMIT_HELP)]
    Submit(SubmitArgs),
    /// The main job: a tournament of the bundled bots in both games, with the full report.
    #[command(after_long_help = RUN_HELP, after_help = RUN_HELP)]
    Run(RunArgs),
}

const CHECK_HELP: &str = r#"BOT is a built-in name, exec:COMMAND ARGS, or a bot.toml manifest (or its folder).

Examples:
  pitboss check bots/python/simple/bot.toml
  pitboss check bots/rust-example --game stud8-fl --hands 500
  pitboss check 'exec:python3 my_bot.py' --decision-ms 200

Exit codes: 0 fit for a tournament, 1 problems found (listed), 2 bad usage."#;

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The bot to check.
    #[arg(value_name = "BOT")]
    pub bot: String,
    /// Check one game preset only [default: every game the bot claims in its hello].
    #[arg(long)]
    pub game: Option<String>,
    /// Hands per game [default: 200].
    #[arg(long, default_value_t = 200)]
    pub hands: u64,
    /// The reference opponent (a built-in bot).
    #[arg(long, default_value = "random")]
    pub against: String,
    /// Time per decision in milliseconds [default: the manifest's, else 1000].
    #[arg(long)]
    pub decision_ms: Option<u64>,
    /// Match time bank in milliseconds [default: the manifest's, else 10000].
    #[arg(long)]
    pub bank_ms: Option<u64>,
    /// Run the bot without Landlock and network namespace.
    #[arg(long)]
    pub no_sandbox: bool,
    /// Where the bot's logs and transcripts go [default: a new folder in the temp directory].
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
}

const TOURNAMENT_HELP: &str = r#"A tournament file (TOML) has the keys: name, games, bots, format ("heads-up" or "ring"),
table_size, tables, deals, batch, seed, bootstrap, threads, out, and an optional [sprt] table
(m0, m1, alpha, beta). Flags override the file. A bot is a built-in name, or NAME=SPEC.

Every pairing (or ring table) plays the same deals (common card sequences); each deal is played in
every seat rotation (duplicate). Work is cut into units of `batch` deals; each finished unit is
written to OUT/units/ at once, so an interrupted run (Ctrl-C, kill, power cut) continues with
--resume and ends with results byte-identical to an uninterrupted run.

Examples:
  pitboss tournament --game 27td-fl --game stud8-fl --bot lowball --bot hilo --bot random --deals 20000
  pitboss tournament tournament.toml --out results/t1
  pitboss tournament --resume results/t1
  pitboss tournament tournament.toml --out results/t1/shard-0 --shard 0/4    # then: pitboss merge
  pitboss tournament --bot lowball --bot random --deals 100000 --batch 500 --sprt 0,50

Sharding: --shard I/N runs units I, I+N, I+2N, ...; without the flag, SLURM_ARRAY_TASK_ID (minus
SLURM_ARRAY_TASK_MIN) of SLURM_ARRAY_TASK_COUNT, or JOB_COMPLETION_INDEX of PITBOSS_SHARDS,
choose the shard. Output: plan.json, units/, leaderboard.csv, crosstable.csv, leaderboard.md,
report.html (a sharded run writes the reports at `pitboss merge`)."#;

const MERGE_HELP: &str = r#"Checks that the folders hold the same plan and every shard exactly once (a missing or
duplicated shard or unit is named), copies the units into OUT and writes the reports there; the
results are byte-identical to a single-machine run.

Example:
  pitboss merge results/t1/shard-* --out results/t1/merged"#;

const REPORT_HELP: &str = r#"Writes leaderboard.csv, crosstable.csv, leaderboard.md and report.html from the unit files
of one tournament folder (or all shard folders of one tournament) into --out (default: the folder).

Examples:
  pitboss report results/t1
  pitboss report results/t1/shard-0 results/t1/shard-1 --out results/t1/report"#;

const SUBMIT_HELP: &str = r#"The registry (default bots/registry/) keeps registry.toml (the gauntlet's settings and the
entries), entries/<name>/ (a copy of the bot's manifest and its record: spec, version, hash of its
files, submission time) and tournament/ (unit results and the leaderboard). A new registry starts
with the built-in reference bots. A bot that fails the conformance check is refused with the
checker's report; a bot whose files are unchanged is not replayed; only the new bot's pairings are
played, the others' results are reused.

Examples:
  pitboss submit lowball --name lowball-2
  pitboss submit raise --name maniac --registry /srv/pitboss/registry"#;

const RUN_HELP: &str = r#"Plays the bundled bots (random, call, raise, lowball, hilo, equity, adaptive) against each other in
27td-fl and stud8-fl, duplicate heads-up round robin, and writes results/<timestamp>-default/ with
leaderboard.csv, crosstable.csv, leaderboard.md and report.html (open it in a browser).

Example:
  pitboss run
  pitboss run --out results/main --threads 2"#;

#[derive(Debug, clap::Args)]
pub struct TournamentArgs {
    /// A TOML tournament file; its keys are the long flag names.
    #[arg(value_name = "CONFIG.toml")]
    pub file: Option<std::path::PathBuf>,
    /// Continue the tournament in DIR (with CONFIG, it must be the same tournament).
    #[arg(long, value_name = "DIR")]
    pub resume: Option<std::path::PathBuf>,
    /// Run only shard I of N (0-based): units I, I+N, ...
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// A game preset (repeat for several) [default: 27td-fl].
    #[arg(long = "game", value_name = "GAME")]
    pub games: Vec<String>,
    /// A bot: a built-in name or NAME=SPEC (repeat; 2 or more).
    #[arg(long = "bot", value_name = "BOT")]
    pub bots: Vec<String>,
    /// heads-up (every pair) or ring (tables of --table-size).
    #[arg(long)]
    pub format: Option<String>,
    /// Ring: bots per table [default: 3].
    #[arg(long)]
    pub table_size: Option<usize>,
    /// Ring: this many random balanced tables instead of every subset.
    #[arg(long)]
    pub tables: Option<usize>,
    /// Duplicate deals per table and game [default: 10000].
    #[arg(long)]
    pub deals: Option<u64>,
    /// Deals per work unit [default: 1000].
    #[arg(long)]
    pub batch: Option<u64>,
    /// The tournament seed [default: 1].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Bootstrap resamples for the intervals of ratings [default: 200].
    #[arg(long)]
    pub bootstrap: Option<usize>,
    /// Early stopping per pairing: M0,M1[,ALPHA,BETA] in mbb/hand (α = β = 0.05 by default).
    #[arg(long, value_name = "M0,M1[,A,B]", allow_hyphen_values = true)]
    pub sprt: Option<String>,
    /// Worker threads [default: the number of cores].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Output folder [default: results/<timestamp>-<name>].
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The shard folders (all shards of one tournament).
    #[arg(value_name = "DIR", required = true)]
    pub dirs: Vec<std::path::PathBuf>,
    /// Where the merged tournament goes.
    #[arg(long)]
    pub out: std::path::PathBuf,
}

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// A tournament folder, or every shard folder of one tournament.
    #[arg(value_name = "DIR", required = true)]
    pub dirs: Vec<std::path::PathBuf>,
    /// Where the reports go [default: the folder, when one is given].
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct SubmitArgs {
    /// The bot: a built-in name (or, with external bots, a spec or a bot.toml).
    #[arg(value_name = "BOT")]
    pub bot: String,
    /// The name it plays under (letters, digits, _ . + -).
    #[arg(long)]
    pub name: String,
    /// The registry folder [default: bots/registry].
    #[arg(long, default_value = "bots/registry")]
    pub registry: std::path::PathBuf,
    /// Worker threads [default: the number of cores].
    #[arg(long)]
    pub threads: Option<usize>,
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Output folder [default: results/<timestamp>-default].
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Worker threads [default: the number of cores].
    #[arg(long)]
    pub threads: Option<usize>,
}

const MATCH_HELP: &str = r#"Every flag can also be given in a TOML match file (keys: game, bots, hands, seed,
duplicate, threads, out, history, stack, decision_ms, bank_ms, restarts, sandbox,
freeze_idle, transcript, [stakes], [options]); flags override the file.

Examples:
  pitboss match --game 27td-fl --bot lowball --bot random --hands 1000000
  pitboss match --game stud8-fl --bot hilo --bot call --bot random --hands 200000 --duplicate
  pitboss match match.toml --threads 2 --out results/my-run --history

Bots: built-in names random, call, raise, lowball, hilo, equity, adaptive (see bots/README.md); exec:COMMAND ARGS
for any program speaking protocol.md; or a bot.toml manifest (e.g. bots/python/simple/bot.toml).
External bots run sandboxed (Landlock, no network) unless --no-sandbox; their stderr goes to
<out>/bots/, transcripts (--transcript) to <out>/transcripts/, what was enforced to <out>/match.log.
With external bots, results are reproducible only with --threads 1.
Output folder (default results/<timestamp>-<game>/): summary.csv, config.toml, and with --history
hands.csv. Progress goes to stderr when it is a terminal; RUST_LOG=debug shows the referee's logs."#;

#[derive(Debug, clap::Args)]
pub struct MatchArgs {
    /// A TOML match file; its keys are the long flag names.
    #[arg(value_name = "MATCH.toml")]
    pub file: Option<std::path::PathBuf>,
    /// Game preset: 27td-fl, 27td-pl, 27td-nl, stud8-fl, stud8-pl, stud8-nl [default: 27td-fl].
    #[arg(long)]
    pub game: Option<String>,
    /// A bot per seat, in seat order (repeat the flag; 2 or more).
    #[arg(long = "bot", value_name = "BOT")]
    pub bots: Vec<String>,
    /// Hands to play [default: 10000].
    #[arg(long)]
    pub hands: Option<u64>,
    /// The match seed: the same seed gives the same hands and files [default: 1].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Replay every deal in every seat rotation and compute statistics over duplicate units.
    #[arg(long)]
    pub duplicate: bool,
    /// Worker threads [default: the number of cores].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Output folder [default: results/<timestamp>-<game>].
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Also write every hand: hands.csv (one row per hand and seat).
    #[arg(long)]
    pub history: bool,
    /// Every seat's starting stack in chips [default: the preset's].
    #[arg(long)]
    pub stack: Option<u64>,
    /// External bots: time per decision in milliseconds [default: manifest, else 1000].
    #[arg(long)]
    pub decision_ms: Option<u64>,
    /// External bots: match time bank in milliseconds [default: manifest, else 10000].
    #[arg(long)]
    pub bank_ms: Option<u64>,
    /// External bots: restarts after a crash before the bot forfeits [default: manifest, else 3].
    #[arg(long)]
    pub restarts: Option<u32>,
    /// External bots: no Landlock confinement and no network namespace.
    #[arg(long)]
    pub no_sandbox: bool,
    /// External bots: SIGSTOP each bot while it is not its turn.
    #[arg(long)]
    pub freeze_idle: bool,
    /// External bots: write every line exchanged, timestamped, to <out>/transcripts/.
    #[arg(long)]
    pub transcript: bool,
}

#[derive(Debug, Subcommand)]
pub enum PhhCommand {
    /// Replay every hand of .phh/.phhs files through the referee.
    #[command(after_long_help = PHH_VERIFY_HELP, after_help = PHH_VERIFY_HELP)]
    Verify(PhhVerifyArgs),
    /// Render hands for a person: seats, cards, actions with pots, draws, showdown, winners.
    Show(PhhShowArgs),
}

const PHH_VERIFY_HELP: &str = r#"Every action must be legal for the referee and, where a hand gives
`finishing_stacks`, the referee's must equal them. Prints `N hands verified` and exits 0, or names
the first bad hand (file, hand, action index in `actions` and its text) and the reason; when the
situation is one of RULES.md's known differences with PokerKit 0.7.7, the reason says so.
Variant codes: F2L3D, F7S/8 (PHH), P2L3D, N2L3D, P7S/8, N7S/8 (Pitboss, registered in PokerKit by
scripts/pokerkit/phhlib.py). `??` cards are replayed with stand-ins (see crates/phh/README.md).

With --expect-annotations, hands written by scripts/pokerkit/gen_hands.py are checked against
their `_pitboss_expect` labels and a cross-check summary is printed.

Exit codes: 0 all verified, 1 failure (I/O), 2 bad usage, 3 malformed file (TOML, field, unknown
variant, unparsable action), 4 a hand is not verified (or a cross-check disagreement)."#;

#[derive(Debug, clap::Args)]
pub struct PhhVerifyArgs {
    /// Check `_pitboss_expect` labels (verify/reject/settle) instead of requiring every hand to verify.
    #[arg(long)]
    pub expect_annotations: bool,

    /// .phh or .phhs files.
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<String>,
}

#[derive(Debug, clap::Args)]
pub struct PhhShowArgs {
    /// Show only the N-th hand of the file (1-based, in file order).
    #[arg(long, value_name = "N")]
    pub hand: Option<usize>,

    /// A .phh or .phhs file.
    #[arg(value_name = "FILE")]
    pub file: String,
}

const EVAL_HELP: &str = r#"Output, one JSON object per holding:
  {"cards":"2c 3d 4h 5s 7c","best":"7c 5s 4h 3d 2c","class":"high card","value":16436719}
`value` orders holdings under the rule: larger is better, equal is a tie (values of different
rules or options are not comparable). For ace-to-five-8 a holding without a qualifying low gives
"best":null, "class":"no qualifying low", "value":null.

Input: cards as rank (2-9 T J Q K A) and suit (c d h s), with or without spaces or commas
(`2c3d4h5s7c`, `2c 3d 4h 5s 7c`). Blank lines are skipped (they still count for line numbers).
high and ace-to-five-8 take 5 to 7 cards, deuce-to-seven exactly 5. The first bad holding (unknown
card, duplicate card, wrong count) stops the run with a message naming its line, after the lines
before it are printed; the exit code is then 3.

Examples:
  echo 2c3d4h5s7c | pitboss eval --rule deuce-to-seven
  pitboss eval --rule high 'As Ks Qs Js Ts 2c 2d' '9c 9d 9h 2s 2c'
  pitboss eval --rule ace-to-five-8 'Ac 2d 3h 4s 5c Kd Kh'
  pitboss eval --rule deuce-to-seven --ace-five-straight Ac2d3h4s5c
  pitboss eval --rule high < holdings.txt > values.jsonl

Exit codes: 0 success, 1 failure (I/O), 2 bad usage, 3 bad holding."#;

#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// The ranking to apply.
    #[arg(long, value_enum)]
    pub rule: RuleArg,

    /// Deuce-to-seven table option: A-2-3-4-5 is a five-high straight (default: an ace-high
    /// no-pair hand, as RULES.md chooses).
    #[arg(long)]
    pub ace_five_straight: bool,

    /// Holdings to evaluate; when none are given, holdings are read from stdin, one per line.
    #[arg(value_name = "HOLDING")]
    pub holdings: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RuleArg {
    /// Best five of 5 to 7 cards, ace high (and low in A-2-3-4-5): the stud high half.
    High,
    /// Exactly 5 cards, the worst high hand wins, aces high: triple draw.
    DeuceToSeven,
    /// Best five distinct ranks 8 or lower from 5 to 7 cards, ace low: the stud low half.
    #[value(name = "ace-to-five-8")]
    AceToFive8,
}
