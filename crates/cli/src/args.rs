//! Raw command-line arguments (clap derive). These structs do no I/O and no cross-flag checks;
//! each command turns its arguments into a validated config (`cmd::*::Config::from_args`).

use clap::{Parser, Subcommand, ValueEnum};

/// The opening of `pitboss --help`: what the program is for and the first commands of a bot
/// author, not how it is built (that is in the README and the crates' docs).
const ABOUT: &str =
    "Pitboss: a poker bot arena for Deuce-to-Seven Triple Draw and Seven Card Stud \
Hi/Lo (fixed, pot and no limit). Your bot is any program that speaks JSON lines on stdin/stdout \
(protocol.md); Pitboss deals, enforces the rules and ranks the bots.";

const MAIN_HELP: &str = r#"Start here:
  pitboss new mybot --lang python                            a bot to start from (or --lang rust)
  pitboss check mybot/bot.toml                               is my bot fit to play?
  pitboss match --bot mybot/bot.toml --bot lowball --hands 2000
  pitboss submit mybot/bot.toml --name mybot                 my bot on the leaderboard
  pitboss compare old/bot.toml new/bot.toml                  is my new version better?
  pitboss run                                                the bundled bots' tournament
  pitboss upload bots/python/simple --server https://...     my bot on a Pitboss server
  pitboss phh show results/<run>/hands.phhs --hand 1         read a hand (match --history)

Every command has examples in its own help: pitboss help COMMAND."#;

#[derive(Debug, Parser)]
#[command(name = "pitboss", version, about = ABOUT, long_about = None, after_help = MAIN_HELP)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Evaluate poker holdings: one holding per line in, one JSON object per line out.
    #[command(after_long_help = EVAL_HELP, after_help = EVAL_HELP)]
    Eval(EvalArgs),
    /// Make a new bot's folder from the SDK example (Python or Rust), named NAME everywhere.
    #[command(after_long_help = crate::args_new::NEW_HELP, after_help = crate::args_new::NEW_HELP)]
    New(crate::args_new::NewArgs),
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
    /// Is NEW better than OLD? A duplicate, luck-adjusted heads-up match in batches with a
    /// sequential test, until decided or a hand budget runs out; one verdict line.
    #[command(after_long_help = crate::args_compare::COMPARE_HELP, after_help = crate::args_compare::COMPARE_HELP)]
    Compare(crate::args_compare::CompareArgs),
    /// Register a bot: check it, play it against every registered bot, update the leaderboard.
    #[command(after_long_help = SUBMIT_HELP, after_help = SUBMIT_HELP)]
    Submit(SubmitArgs),
    /// The main job: a tournament of the bundled bots in both games and all three structures,
    /// with the full report.
    #[command(after_long_help = RUN_HELP, after_help = RUN_HELP)]
    Run(RunArgs),
    /// Upload a bot folder to a Pitboss server, which builds it, checks it and puts it on its
    /// ladder.
    #[command(after_long_help = UPLOAD_HELP, after_help = UPLOAD_HELP)]
    Upload(UploadArgs),
    /// The arena as a service: a database in DIR, a continuous ladder, uploads, a live web
    /// leaderboard with bot pages and a hand viewer.
    #[command(after_long_help = crate::args_service::SERVE_HELP, after_help = crate::args_service::SERVE_HELP)]
    Serve(crate::args_service::ServeArgs),
    /// Accounts of a service and their API tokens.
    #[command(subcommand, after_long_help = crate::args_service::TOKEN_HELP, after_help = crate::args_service::TOKEN_HELP)]
    Token(crate::args_service::TokenCommand),
    /// An online backup of a service's database.
    #[command(after_long_help = crate::args_service::BACKUP_HELP, after_help = crate::args_service::BACKUP_HELP)]
    Backup(crate::args_service::BackupArgs),
    /// A worker of a `pitboss serve --queue` server: pulls jobs from NATS JetStream, plays them
    /// in the jail, publishes the results.
    #[command(after_long_help = crate::args_queue::WORKER_HELP, after_help = crate::args_queue::WORKER_HELP)]
    Worker(crate::args_queue::WorkerArgs),
}

const UPLOAD_HELP: &str = r#"FOLDER is a bot folder with its manifest, bot.toml, at the top (or that bot.toml). It is
packed into a tar.zst — sorted, without times or owners, so the same files give the same bundle;
.git, target, __pycache__ and node_modules folders are left out; a symlink or a special file is
refused, naming it — and sent to the server (POST URL/api/bots), which answers at once; building
and checking follow there.

The token is --token TOKEN or, better, the environment variable PITBOSS_TOKEN: a variable keeps it
out of your shell history and out of the process list other users can read. It is never printed.

Examples:
  read -rs PITBOSS_TOKEN && export PITBOSS_TOKEN     # paste the token, not echoed
  pitboss upload bots/python/simple --server https://pitboss.example.org
  pitboss upload my-bot --server http://localhost:8080 --name my-bot-2

Exit codes: 0 uploaded, 1 failure (server unreachable, folder not packable), 2 bad usage
(no token, a bad URL), 6 refused by the server (its reason is printed; for HTTP 429, when to retry)."#;

#[derive(Debug, clap::Args)]
pub struct UploadArgs {
    /// The bot's folder (holding bot.toml), or its bot.toml.
    #[arg(value_name = "FOLDER")]
    pub folder: std::path::PathBuf,
    /// The server's address, e.g. https://pitboss.example.org.
    #[arg(long, value_name = "URL")]
    pub server: String,
    /// Your upload token [default: $PITBOSS_TOKEN, which is safer than this flag].
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    /// The name to upload the bot under [default: the manifest's `name`].
    #[arg(long)]
    pub name: Option<String>,
}

const CHECK_HELP: &str = r#"BOT is a built-in name, exec:COMMAND ARGS, or a bot.toml manifest (or its folder).

Examples:
  pitboss check bots/python/simple/bot.toml
  pitboss check bots/rust-example --allow-read-outside --game stud8-fl --hands 500
  pitboss check 'exec:python3 my_bot.py' --decision-ms 200

The bot's logs and transcripts go to a folder in the temp directory: removed when the bot is fit
(unless --keep or --out), kept when it is not (the verdict names it).

Exit codes: 0 fit for a tournament, 1 problems found (listed), 2 bad usage."#;

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The bot to check.
    #[arg(value_name = "BOT")]
    pub bot: String,
    /// Check one game preset only [default: every structure (fixed, pot and no limit) of every
    /// game the bot claims in its hello].
    #[arg(long)]
    pub game: Option<String>,
    /// Hands per game and structure.
    #[arg(long, default_value_t = 200, value_parser = positive, allow_hyphen_values = true)]
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
    /// Run the bot (and its build step) outside the jail, with the referee's rights.
    #[arg(long)]
    pub no_sandbox: bool,
    /// Accept a manifest whose `read` paths, `workdir` or program lie outside its own folder.
    #[arg(long)]
    pub allow_read_outside: bool,
    /// Give the manifest's build step the host's network (e.g. to download dependencies).
    #[arg(long)]
    pub build_network: bool,
    /// Where the bot's logs and transcripts go, kept [default: a new folder in the temp
    /// directory, removed when the bot is fit unless --keep].
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Keep the logs and transcripts of a fit bot too (the last line says where).
    #[arg(long)]
    pub keep: bool,
}

const TOURNAMENT_HELP: &str = r#"A tournament file (TOML) has the keys: name, games, bots, format ("heads-up" or "ring"),
table_size, tables, deals, batch, seed, bootstrap, threads, out, and an optional [sprt] table
(m0, m1, alpha, beta). Flags override the file. A bot is a built-in name, or NAME=SPEC.

Every pairing (or ring table) plays the same deals (common card sequences); each deal is played in
every seat rotation (duplicate). Work is cut into units of `batch` deals; each finished unit is
written to OUT/units/ at once, so an interrupted run (Ctrl-C, kill, power cut) continues with
--resume and ends with results byte-identical to an uninterrupted run (with in-process bots; external
bots' time banks start full again on resume). plan.json and every unit file carry checksums: resume
and merge refuse edited, swapped or foreign files, naming them. Games are played one after another,
external bots in fresh processes for each game (their logs in OUT/games/<game>/bots/).

Examples:
  pitboss tournament --game 27td-fl --game stud8-fl --bot lowball --bot hilo --bot random --deals 20000
  pitboss tournament tournament.toml --out results/t1
  pitboss tournament --resume results/t1
  pitboss tournament tournament.toml --out results/t1/shard-0 --shard 0/4    # then: pitboss merge
  pitboss tournament --bot lowball --bot random --deals 100000 --batch 500 --sprt 0,50
  pitboss tournament --bot lowball --bot hilo --deals 20000 --history --out results/t2
      then: pitboss phh show results/t2/hands/27td-fl~lowball~hilo.phhs --hand 1

Sharding: --shard I/N runs units I, I+N, I+2N, ...; without the flag, SLURM_ARRAY_TASK_ID (minus
SLURM_ARRAY_TASK_MIN) of SLURM_ARRAY_TASK_COUNT, or JOB_COMPLETION_INDEX of PITBOSS_SHARDS,
choose the shard. Output: plan.json, units/, leaderboard.csv, crosstable.csv, leaderboard.md,
report.html (a sharded run writes the reports at `pitboss merge`); with --history, hands/: the
first 500 hands (--history-hands N) of each pairing played by this run, one PHH file per pairing
(200-500 bytes a hand), linked from report.html; `pitboss merge` copies them too."#;

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

const SUBMIT_HELP: &str = r#"The registry is --registry DIR, else $PITBOSS_REGISTRY, else the per-user data folder
($XDG_DATA_HOME/pitboss/registry, by default ~/.local/share/pitboss/registry); creating a new one
is announced. It keeps registry.toml (the gauntlet's settings and the
entries), entries/<name>/ (a copy of the bot's manifest and its record: spec, version, hash of its
files, submission time) and tournament/ (unit results and the leaderboard). A new registry starts
with the built-in reference bots. A bot that fails the conformance check is refused with the
checker's report; a bot whose files are unchanged is not replayed; only the new bot's pairings are
played, the others' results are reused. The gauntlet plays every game and structure (the six
presets, 2,000 duplicate deals each) unless the registry was made with --game.

A name that belongs to a reference bot, or to a bot submitted from another spec, is refused
unless --replace is given.

Examples:
  pitboss submit bots/python/simple/bot.toml --name mybot
  pitboss submit lowball --name lowball-2
  pitboss submit raise --name maniac --registry /srv/pitboss/registry
  pitboss submit mybot/bot.toml --name mybot --game 27td-nl --registry nl-only"#;

const RUN_HELP: &str = r#"Plays the bundled bots (random, call, raise, lowball, hilo, equity, adaptive, cfr) against each other in
the six presets (27td-fl, 27td-pl, 27td-nl, stud8-fl, stud8-pl, stud8-nl), duplicate heads-up round robin, and writes results/<timestamp>-default/ with
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
    #[arg(long, value_parser = positive, allow_hyphen_values = true)]
    pub deals: Option<u64>,
    /// Deals per work unit [default: 1000].
    #[arg(long, value_parser = positive, allow_hyphen_values = true)]
    pub batch: Option<u64>,
    /// The tournament seed, at most 2^63 - 1 [default: a random one, recorded in plan.json].
    /// With an external bot the decks also depend on a secret random salt kept in plan.json.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Bootstrap resamples for the intervals of ratings [default: 200].
    #[arg(long)]
    pub bootstrap: Option<usize>,
    /// Early stopping per pairing: M0,M1[,ALPHA,BETA] in mbb/hand (α = β = 0.05 by default).
    #[arg(long, value_name = "M0,M1[,A,B]", allow_hyphen_values = true)]
    pub sprt: Option<String>,
    /// Luck-adjusted results (unbiased; narrower intervals): adj_* columns in leaderboard.csv and
    /// crosstable.csv, and SPRT and ratings on the adjusted values; recorded in plan.json.
    #[arg(long)]
    pub luck_adjust: bool,
    /// Worker threads [default: the number of cores].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Output folder [default: results/<timestamp>-<name>]; a non-empty folder that holds
    /// another tournament (or something else) is refused.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Empty a non-empty --out folder first (everything in it is deleted).
    #[arg(long)]
    pub force: bool,
    /// Keep the first hands of each pairing as PHH histories, hands/<game>~<bot>~<bot>.phhs
    /// (--history-hands of them, 500 by default: about 200 KB a pairing), linked from
    /// report.html; read one with `pitboss phh show FILE --hand N`.
    #[arg(long)]
    pub history: bool,
    /// With --history: how many hands of each pairing to keep, at most one work unit's (--batch
    /// deals × the table size) [default: 500].
    #[arg(long, value_name = "N", value_parser = positive, allow_hyphen_values = true, requires = "history")]
    pub history_hands: Option<u64>,
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
    /// The registry folder [default: $PITBOSS_REGISTRY, else the per-user data folder,
    /// ~/.local/share/pitboss/registry].
    #[arg(long, value_name = "DIR")]
    pub registry: Option<std::path::PathBuf>,
    /// The games of a new registry: a preset (27td-fl, 27td-pl, 27td-nl, stud8-fl, stud8-pl,
    /// stud8-nl) or `all`; repeat the flag for several [default: all six]. An existing registry
    /// keeps the games it was made with.
    #[arg(long = "game", value_name = "GAME")]
    pub games: Vec<String>,
    /// Replace a bot of that name registered from another spec (a reference bot or another
    /// submitter's bot); without it such a name is refused.
    #[arg(long)]
    pub replace: bool,
    /// Worker threads [default: the number of cores].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Accept a manifest whose `read` paths, `workdir` or program lie outside its own folder.
    #[arg(long)]
    pub allow_read_outside: bool,
    /// The most files and folders the bot's folder may hold (its build_dir not counted).
    #[arg(long, value_name = "N", default_value_t = crate::cmd::botfiles::MAX_FILES)]
    pub max_files: u64,
    /// The most its files may weigh in all, MiB, each counted by its length (a sparse file too).
    #[arg(long, value_name = "MIB", default_value_t = crate::cmd::botfiles::MAX_BYTES >> 20)]
    pub max_size_mb: u64,
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

const MATCH_HELP: &str = r#"Every flag can also be given in a TOML match file (keys: game, bots, hands, seed, salt,
duplicate, threads, out, history, stack, decision_ms, bank_ms, restarts, sandbox,
freeze_idle, transcript, [stakes], [options]); flags override the file.

Examples:
  pitboss match --game 27td-fl --bot lowball --bot random --hands 1000000
  pitboss match --game stud8-fl --bot hilo --bot call --bot random --hands 200000 --duplicate
  pitboss match match.toml --threads 2 --out results/my-run --history

Bots: built-in names random, call, raise, lowball, hilo, equity, adaptive, cfr (also called best: the
strongest built-in; it plays as adaptive at full tables; cfr-eq: cfr
without its opponent model; lbr: a local best response to cfr-eq, lbr-3 in the last betting round
of triple draw only, lbr-01 in the first two, lbr-4 on seventh street of stud), and the exploiters
x-raise, x-raise1st,
x-fold, x-early1, x-early2, x-early3, x-open1, x-open2, x-switch, x-small, x-mid, x-big (see
bots/README.md);
exec:COMMAND ARGS for any program speaking protocol.md; or a bot.toml manifest (e.g.
bots/python/simple/bot.toml).
External bots (and their build steps) run in the jail unless --no-sandbox: namespaces of their own
(no network, their own uid and process tree), seccomp, Landlock, resource limits; `pitboss check`
prints the layers in force on this machine, protocol.md section 9 describes them. Their stderr goes to
<out>/bots/, transcripts (--transcript) to <out>/transcripts/, what was enforced to <out>/match.log.
With external bots, results are reproducible only with --threads 1.
Bots are named in the tables by their manifest `name` (exec: bots by their program's name), made
unique as NAME, NAME-2, ...; config.toml keeps the specs.
A bot that forfeits, or faults on more than 1% of its decisions, gets a WARNING line at the end
with the first reasons (all of them in <out>/match.log); --strict makes that exit code 5.
Output folder (default results/<timestamp>-<game>/): summary.csv, config.toml, and with --history
hands.csv and hands.phhs (or hands.phhs.zst with --zstd), whose sizes are printed. Progress goes to stderr when it is a terminal; RUST_LOG=debug shows the referee's logs."#;

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
    #[arg(long, value_parser = positive, allow_hyphen_values = true)]
    pub hands: Option<u64>,
    /// The match seed, at most 2^63 - 1 [default: a random one, printed and recorded in
    /// config.toml]. With an external bot the decks also depend on a secret random salt kept in
    /// config.toml: `pitboss match OUT/config.toml` repeats the run, the seed alone does not.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Replay every deal in every seat rotation and compute statistics over duplicate units.
    #[arg(long)]
    pub duplicate: bool,
    /// Worker threads [default: the number of cores].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Output folder [default: results/<timestamp>-<game>]; a non-empty folder that holds
    /// another run (or something else) is refused.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Empty a non-empty --out folder first (everything in it is deleted).
    #[arg(long)]
    pub force: bool,
    /// Also write every hand: hands.csv (one row per hand and seat) and hands.phhs (PHH).
    #[arg(long)]
    pub history: bool,
    /// With --history: write the PHH histories zstd-compressed, as hands.phhs.zst (about a
    /// tenth of the size; `pitboss phh verify` and `show` read it as it is).
    #[arg(long)]
    pub zstd: bool,
    /// Exit with status 5 when a bot forfeits or faults on more than 1% of its decisions.
    #[arg(long)]
    pub strict: bool,
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
    /// External bots: run outside the jail, with the referee's rights (trusted bots only).
    #[arg(long)]
    pub no_sandbox: bool,
    /// External bots: give manifests' build steps the host's network.
    #[arg(long)]
    pub build_network: bool,
    /// External bots: SIGSTOP each bot while it is not its turn.
    #[arg(long)]
    pub freeze_idle: bool,
    /// External bots: write every line exchanged, timestamped, to <out>/transcripts/.
    #[arg(long)]
    pub transcript: bool,
    /// Luck-adjusted results: the referee removes the luck of the cards from each hand with
    /// unbiased control variates (adj_* columns of summary.csv, adj_net of hands.csv) [default:
    /// on when an external bot plays (it costs 5-50 µs a hand), off for in-process bots only].
    #[arg(long, conflicts_with = "no_luck_adjust")]
    pub luck_adjust: bool,
    /// Do not compute luck-adjusted results (saves some microseconds per hand).
    #[arg(long)]
    pub no_luck_adjust: bool,
}

#[derive(Debug, Subcommand)]
pub enum PhhCommand {
    /// Replay every hand of .phh/.phhs files through the referee.
    #[command(after_long_help = PHH_VERIFY_HELP, after_help = PHH_VERIFY_HELP)]
    Verify(PhhVerifyArgs),
    /// Render hands for a person: seats, cards, actions with pots, draws, showdown, winners.
    #[command(after_long_help = PHH_SHOW_HELP, after_help = PHH_SHOW_HELP)]
    Show(PhhShowArgs),
}

const PHH_SHOW_HELP: &str = r#"Numbering: hands and seats count from 1, as in hands.csv. Hand N of a
match (the `hand` column of hands.csv) is `--hand N`; seat S (its `seat` column) is shown as
`seat S`, in seat order. PHH's own p1, p2, ... (the players in PokerKit's order: in triple draw
from the left of the button) are named once, beside their seat, at the top of the hand.

Examples:
  pitboss phh show results/<run>/hands.phhs --hand 42          hand 42 of hands.csv, in full
  pitboss phh show results/<run>/hands.phhs | less             every hand of the match, in order
  pitboss phh show results/<run>/hands.phhs.zst --compact | grep 'seat 2 raises'"#;

const PHH_VERIFY_HELP: &str = r#"Every action must be legal for the referee and, where a hand gives
`finishing_stacks`, the referee's must equal them. Prints `N hands verified` and exits 0, or names
the first bad hand (file, hand, action index in `actions` and its text) and the reason; when the
situation is one of the known differences with PokerKit 0.7.7 (docs/RULES.md in the Pitboss
repository), the reason says so.

Dealing: the file dictates the cards. Any physically possible dealing is accepted (no card in two
places at once), so a dealer that reshuffles differently (PokerKit gives a drawer back their own
discards, deals seventh-street cards from reshuffled folded cards) verifies, with a note per hand
that breaks the house convention. --strict-dealing rejects those hands instead. Files ending in
.zst are decompressed (zstd) on the fly.
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

    /// Reject hands whose dealing breaks the house convention (reshuffles as docs/RULES.md has
    /// them) instead of noting it.
    #[arg(long)]
    pub strict_dealing: bool,

    /// .phh or .phhs files.
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<String>,
}

#[derive(Debug, clap::Args)]
pub struct PhhShowArgs {
    /// Show only hand N: the number in hands.csv's `hand` column and the file's `[N]` (from 1);
    /// without it, every hand of the file in order.
    #[arg(long, value_name = "N", value_parser = positive_usize, allow_hyphen_values = true)]
    pub hand: Option<usize>,

    /// One line per action, antes and blinds included (`[7] seat 1 raises to 200`), no pots or
    /// headings: for long files and grep.
    #[arg(long)]
    pub compact: bool,

    /// A .phh, .phhs or .phhs.zst file.
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
    /// no-pair hand, as docs/RULES.md chooses).
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

/// A count of 1 or more. A parser of our own so that `--hands -5` says what is wrong with the
/// value instead of clap's tip about `-- -5`.
pub(crate) fn positive(s: &str) -> Result<u64, String> {
    match s.trim().parse::<i128>() {
        Ok(n) if n >= 1 && n <= i128::from(u64::MAX) => Ok(n as u64),
        Ok(n) if n < 1 => Err(format!(
            "{n} is not allowed: use a whole number of 1 or more"
        )),
        _ => Err(format!("`{s}` is not a whole number of 1 or more")),
    }
}

fn positive_usize(s: &str) -> Result<usize, String> {
    positive(s).and_then(|n| usize::try_from(n).map_err(|_| format!("{n} is too large")))
}
