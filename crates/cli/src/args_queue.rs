//! Arguments of the service on a queue: `pitboss worker`, `pitboss serve --queue …` and
//! `pitboss token worker …`.

use std::path::PathBuf;

pub const WORKER_HELP: &str = r#"A worker of a `pitboss serve --queue` server, on this machine or any other that reaches NATS:
pulls match and check jobs from the server's JetStream stream, fetches the bundles it needs from
the server by hash (with a worker token) into its cache, builds and checks each version once,
plays in the jail, and publishes the results. Start as many as you like; kill any of them at any
moment: its job is played again by another after the ack wait.

Examples:
  pitboss token worker create w1 --data arena      # on the server: prints a worker token
  pitboss worker --queue nats://10.0.0.5:4222 --server http://10.0.0.5:8080 --token pbw_... --slots 8

docs/DEPLOY.md ("Workers on NATS JetStream") says what happens on each fault."#;

/// Where the queue is: shared by `serve` and `worker`.
#[derive(Debug, Clone, clap::Args)]
pub struct QueueArgs {
    /// The stream prefix: streams PREFIX_JOBS, PREFIX_RESULTS, PREFIX_PARKED (the server's and
    /// its workers' must be the same; another prefix is another service on the same NATS).
    #[arg(long, value_name = "PREFIX", default_value = "pitboss")]
    pub stream: String,
}

#[derive(Debug, clap::Args)]
pub struct WorkerArgs {
    /// The NATS server with JetStream (nats://HOST:PORT).
    #[arg(long, value_name = "URL")]
    pub queue: String,
    #[command(flatten)]
    pub q: QueueArgs,
    /// The Pitboss server's base URL (bundles are fetched from it).
    #[arg(long, value_name = "URL")]
    pub server: String,
    /// A worker token of that server (`pitboss token worker create`); or PITBOSS_WORKER_TOKEN.
    #[arg(
        long,
        value_name = "TOKEN",
        env = "PITBOSS_WORKER_TOKEN",
        hide_env_values = true
    )]
    pub token: String,
    /// Where bundles are kept and versions built.
    #[arg(long, value_name = "DIR", default_value = "pitboss-worker-cache")]
    pub cache: PathBuf,
    /// Jobs at once [default: one per core].
    #[arg(long)]
    pub slots: Option<usize>,
    /// The worker's name in results and on the operator page [default: HOST-PID].
    #[arg(long)]
    pub name: Option<String>,
    /// Run uploaded bots without the jail (only for bots you wrote yourself).
    #[arg(long)]
    pub no_sandbox: bool,
    /// Always send a match's action tape zstd-compressed: ~40% fewer bytes through NATS for
    /// 1–2% more of this worker's CPU (without it, a tape that fits in the result's message
    /// travels raw).
    #[arg(long)]
    pub compress_tape: bool,
    /// Claim another engine version (tests of a worker on an old binary).
    #[arg(long, hide = true)]
    pub engine_version: Option<String>,
}

/// `pitboss serve`'s queue flags.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeQueueArgs {
    /// Hand jobs to `pitboss worker`s through this NATS JetStream server (nats://HOST:PORT);
    /// the server then plays nothing itself.
    #[arg(long, value_name = "URL")]
    pub queue: Option<String>,
    #[command(flatten)]
    pub q: QueueArgs,
    /// Seconds a delivered job may go without an acknowledgement before another worker gets it.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    pub ack_wait: u64,
    /// Deliveries of a job that may play it; the next one parks it and fails its match.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub max_attempts: i64,
}

#[derive(Debug, clap::Subcommand)]
pub enum WorkerTokenCommand {
    /// Create a worker token (printed once) named NAME.
    Create(WorkerTokenArgs),
    /// Revoke the worker token NAME.
    Revoke(WorkerTokenArgs),
    /// List the worker tokens' names.
    List(crate::args_service::DataArgs),
}

#[derive(Debug, clap::Args)]
pub struct WorkerTokenArgs {
    pub name: String,
    /// The service's data folder (its database, unless --database), as `pitboss serve` is given.
    #[command(flatten)]
    pub data: crate::args_service::DataArgs,
}
