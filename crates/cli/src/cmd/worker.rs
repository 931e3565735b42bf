//! `pitboss worker`, `pitboss serve --queue` and `pitboss token worker`: thin over the crate
//! `pitboss-queue`.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use pitboss_queue::worker::WorkerConfig;
use pitboss_queue::{NatsWorkers, QueueSettings};
use pitboss_service::ServeConfig;
use pitboss_store::Store;

use crate::args_queue::{ServeQueueArgs, WorkerArgs, WorkerTokenCommand};
use crate::args_service::DataArgs;

/// Jobs in the queue at once when neither `--workers` nor ladder.toml says: enough that many
/// workers' slots never wait for the scheduler.
const DEFAULT_IN_FLIGHT: usize = 64;

pub fn run(a: WorkerArgs) -> anyhow::Result<()> {
    let q = QueueSettings::new(&a.queue, &a.q.stream);
    let mut cfg = WorkerConfig::new(q, &a.server, &a.token, a.cache.clone());
    cfg.slots = a
        .slots
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    anyhow::ensure!(
        (1..=256).contains(&cfg.slots),
        "--slots {}: 1 to 256",
        cfg.slots
    );
    if let Some(n) = a.name {
        cfg.name = n;
    } else {
        let host = std::fs::read_to_string("/etc/hostname").unwrap_or_default();
        cfg.name = format!("{}-{}", host.trim(), std::process::id());
    }
    cfg.sandbox = !a.no_sandbox;
    cfg.compress_tape = a.compress_tape;
    if let Some(e) = a.engine_version {
        cfg.engine = e;
    }
    if cfg.sandbox {
        pitboss_external::become_subreaper();
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    rt.block_on(pitboss_queue::worker::run(cfg))?;
    Ok(())
}

pub async fn serve_on_queue(
    cfg: ServeConfig,
    qa: &ServeQueueArgs,
    url: &str,
    workers: Option<usize>,
    ready: impl FnOnce(std::net::SocketAddr),
) -> anyhow::Result<()> {
    let mut q = QueueSettings::new(url, &qa.q.stream);
    q.ack_wait = Duration::from_secs(qa.ack_wait);
    q.max_attempts = qa.max_attempts;
    q.validate()?;
    let store = pitboss_service::open_store(&cfg).await?;
    let in_flight = workers.unwrap_or(DEFAULT_IN_FLIGHT);
    let nats = NatsWorkers::start(q, &cfg, store.clone(), in_flight).await?;
    pitboss_service::serve_with(cfg, store, Arc::new(nats), ready).await?;
    Ok(())
}

/// The store of `d`, with the worker tokens of an old `DIR/worker-tokens` file moved in first
/// (as `pitboss serve` does when it starts), so that they are listed and revoked here too.
async fn token_store(d: &DataArgs) -> anyhow::Result<Store> {
    let s = super::serve::store(d).await?;
    let n = s.import_worker_tokens(&d.data).await?;
    if n.imported + n.skipped > 0 {
        eprintln!(
            "pitboss: {} worker token(s) moved from {} into the database ({} left out); the file is now {}",
            n.imported,
            d.data.join(pitboss_store::WORKER_TOKENS_FILE).display(),
            n.skipped,
            pitboss_store::WORKER_TOKENS_IMPORTED
        );
    }
    Ok(s)
}

pub async fn token(cmd: WorkerTokenCommand) -> anyhow::Result<()> {
    match cmd {
        WorkerTokenCommand::Create(a) => {
            let tok = token_store(&a.data)
                .await?
                .create_worker_token(&a.name)
                .await?;
            eprintln!(
                "pitboss: worker token {} created (it may fetch every bundle); shown only now:",
                a.name
            );
            println!("{tok}");
        }
        WorkerTokenCommand::Revoke(a) => {
            anyhow::ensure!(
                token_store(&a.data)
                    .await?
                    .revoke_worker_token(&a.name)
                    .await?,
                "no worker token named {}",
                a.name
            );
            eprintln!("pitboss: the worker token {} is revoked", a.name);
        }
        WorkerTokenCommand::List(d) => {
            for t in token_store(&d).await?.worker_tokens().await? {
                println!("{}", t.name);
            }
        }
    }
    Ok(())
}
