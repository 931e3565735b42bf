//! Raw arguments of `pitboss compare` (clap derive), kept apart from `args.rs`.

pub const COMPARE_HELP: &str = r#"Is NEW better than OLD? The two bots play each other heads-up, duplicate (every deal in
both seats) and luck adjusted, in batches; after each batch a sequential test (SPRT) on NEW's
result in mbb/hand asks two questions: is NEW better by --delta or more (H0: diff <= 0 against
H1: diff >= delta), and is it worse by --delta or more (the same, mirrored). Play stops when one of
them says yes, when both say no (a difference smaller than delta), or when --max-hands are played.
A direct duplicate match between the two is used rather than each against a common reference:
the cards' luck cancels out between them, so it needs the fewest hands. With several games
(--game repeated, or --game all) the batches take turns through the games and the test pools them.

OLD and NEW are built-in names, exec:COMMAND ARGS, or bot.toml manifests (or their folders), as
for `pitboss match --bot`. External bots run in the jail unless --no-sandbox.

Progress goes to stderr; stdout gets exactly one verdict line:
  NEW is better: +X mbb/hand [lo, hi] (N hands)
  NEW is worse: -X mbb/hand [lo, hi] (N hands)
  no difference shown: X mbb/hand [lo, hi] (N hands)
X is NEW's luck-adjusted win against OLD and [lo, hi] its 95% interval. "No difference shown"
means smaller than delta (when the test decided so) or not decided within --max-hands (stderr
says which).

Examples:
  pitboss compare my-bot-v1/bot.toml my-bot-v2/bot.toml
  pitboss compare lowball my-bot --game all --max-hands 400000
  pitboss compare old/bot.toml new/bot.toml --delta 50 --out results/v2-vs-v1

With --out, the folder keeps OUT/verdict.txt, and per game OUT/<game>/summary.csv (as a match's,
every batch of that game summed) and the external bots' logs in OUT/bots/.

Exit codes: 0 NEW is better, 7 NEW is worse, 8 no difference shown, 1 failure, 2 bad usage
(e.g. a spec that names no bot)."#;

#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// The earlier version of the bot.
    #[arg(value_name = "OLD")]
    pub old: String,
    /// The version that should be better.
    #[arg(value_name = "NEW")]
    pub new: String,
    /// Game preset; repeat the flag for several, or `all` for all six [default: 27td-fl].
    #[arg(long = "game", value_name = "GAME")]
    pub games: Vec<String>,
    /// The smallest difference worth detecting, in mbb/hand.
    #[arg(long, default_value_t = 20.0, allow_hyphen_values = true)]
    pub delta: f64,
    /// The chance of calling NEW better (or worse) when it is not.
    #[arg(long, default_value_t = 0.05, allow_hyphen_values = true)]
    pub alpha: f64,
    /// The chance of missing a difference of --delta [default: 0.05, like --alpha].
    #[arg(
        long,
        default_value_t = 0.05,
        hide_default_value = true,
        allow_hyphen_values = true
    )]
    pub beta: f64,
    /// The hand budget: stop undecided after this many hands (all games together).
    #[arg(long, default_value_t = 200_000, value_parser = crate::args::positive, allow_hyphen_values = true)]
    pub max_hands: u64,
    /// Hands per batch (the test is looked at after each).
    #[arg(long, default_value_t = 2048, value_parser = crate::args::positive, allow_hyphen_values = true)]
    pub batch: u64,
    /// The seed of the first batch, at most 2^63 - 1 (the next batches count on from it)
    /// [default: a random one, printed].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Worker threads [default: the number of cores].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Keep the results here (verdict.txt, <game>/summary.csv, bots/) [default: nothing kept].
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Empty a non-empty --out folder first (everything in it is deleted).
    #[arg(long)]
    pub force: bool,
    /// External bots: time per decision in milliseconds [default: manifest, else 1000].
    #[arg(long)]
    pub decision_ms: Option<u64>,
    /// External bots: time bank in milliseconds for the whole comparison [default: manifest, else
    /// 10000].
    #[arg(long)]
    pub bank_ms: Option<u64>,
    /// External bots: restarts after a crash before the bot forfeits, for the whole comparison
    /// [default: manifest, else 3].
    #[arg(long)]
    pub restarts: Option<u32>,
    /// External bots: run outside the jail, with the referee's rights (trusted bots only).
    #[arg(long)]
    pub no_sandbox: bool,
    /// External bots: give manifests' build steps the host's network.
    #[arg(long)]
    pub build_network: bool,
}
