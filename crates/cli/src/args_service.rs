//! Arguments of the service's commands: `serve`, `token`, `backup`.

use std::path::PathBuf;

pub const SERVE_HELP: &str = r#"The arena as a service on this machine: a database in DIR (SQLite, nothing to install), the
reference bots on a continuous ladder in every preset, uploads checked and played in the jail,
and a live leaderboard at http://ADDR/.

Examples:
  pitboss serve --data arena                       # then open http://127.0.0.1:8080/
  pitboss token create alice --data arena          # prints alice's API token (once)
  pitboss upload bots/sdk/python --server http://127.0.0.1:8080 --token pb_...
  pitboss serve --data arena --listen 0.0.0.0:80 --workers 4

Settings of the ladder (presets, reference bots, hands per match, quotas) go in DIR/ladder.toml;
docs/SERVICE.md lists them. Stop with Ctrl-C: a restart resumes, unfinished matches are played
again from their seed."#;

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The data folder (made when missing): the database, bundles, hand histories.
    #[arg(long, value_name = "DIR", default_value = "pitboss-data")]
    pub data: PathBuf,
    /// The address to listen on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub listen: std::net::SocketAddr,
    /// A PostgreSQL database instead of DIR/pitboss.db (postgres://USER@HOST/DB).
    #[arg(long, value_name = "URL")]
    pub database: Option<String>,
    /// Jobs (matches, checks) at once [default: ladder.toml's `workers`, else one per core].
    #[arg(long)]
    pub workers: Option<usize>,
    /// Hands per ladder match [default: ladder.toml's `hands_per_match`, else 20000].
    #[arg(long)]
    pub hands_per_match: Option<u64>,
    /// Run uploaded bots without the jail (only for bots you wrote yourself).
    #[arg(long)]
    pub no_sandbox: bool,
    #[command(flatten)]
    pub queue: crate::args_queue::ServeQueueArgs,
}

pub const TOKEN_HELP: &str = r#"Examples:
  pitboss token create alice --data arena          # prints the token: give it to alice
  pitboss token create class --data arena --uploads-per-hour 100
  pitboss token list --data arena
  pitboss token revoke alice --data arena          # her token opens nothing any more

Only a hash of each token is stored: a lost token cannot be shown again; revoke it and create
another (the bots stay with the account name)."#;

#[derive(Debug, clap::Subcommand)]
pub enum TokenCommand {
    /// Create an account and print its new API token.
    Create(TokenCreateArgs),
    /// Revoke an account's token.
    Revoke(TokenNameArgs),
    /// List the accounts.
    List(DataArgs),
    /// Tokens of remote workers (`pitboss worker --token`): they may fetch any bundle.
    #[command(subcommand)]
    Worker(crate::args_queue::WorkerTokenCommand),
}

#[derive(Debug, clap::Args)]
pub struct DataArgs {
    /// The service's data folder.
    #[arg(long, value_name = "DIR", default_value = "pitboss-data")]
    pub data: PathBuf,
    /// A PostgreSQL database instead of DIR/pitboss.db.
    #[arg(long, value_name = "URL")]
    pub database: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct TokenCreateArgs {
    /// The account's name (1–64 of letters, digits, _ . + -).
    pub name: String,
    #[command(flatten)]
    pub data: DataArgs,
    /// Uploads an hour [default: ladder.toml's `uploads_per_hour`, else 20].
    #[arg(long)]
    pub uploads_per_hour: Option<i64>,
    /// The largest bundle, MiB [default: ladder.toml's `max_bundle_mb`, else 64].
    #[arg(long)]
    pub max_bundle_mb: Option<i64>,
}

#[derive(Debug, clap::Args)]
pub struct TokenNameArgs {
    pub name: String,
    #[command(flatten)]
    pub data: DataArgs,
}

pub const BACKUP_HELP: &str = r#"A consistent copy of the service's database while it runs (SQLite's VACUUM INTO); the
bundles and hand histories are plain files in DIR/bundles and DIR/hands (copy them with rsync).

Examples:
  pitboss backup --data arena                      # arena/backups/pitboss-<time>.db
  pitboss backup --data arena --to /mnt/safe/arena.db"#;

#[derive(Debug, clap::Args)]
pub struct BackupArgs {
    #[command(flatten)]
    pub data: DataArgs,
    /// Where to write the copy (never overwritten) [default: DIR/backups/pitboss-<time>.db].
    #[arg(long, value_name = "FILE")]
    pub to: Option<PathBuf>,
}
