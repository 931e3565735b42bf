//! `pitboss serve`: one process that is the whole service on one machine — the store (SQLite in
//! the data folder), the scheduler of the continuous ladder, local workers that check uploads and
//! play matches in the jail, and the web server (pages, live updates, JSON API, uploads).
//!
//! The parts meet only through narrow interfaces: the [`pitboss_store::Store`] (SQLite or
//! PostgreSQL by URL), [`workers::Workers`] (local threads, or a queue to other machines),
//! the board snapshot the web server reads (`tokio::sync::watch`), and a `Notify` that wakes the
//! scheduler when an upload arrives.

pub mod audit;
pub mod board;
pub mod config;
pub mod scheduler;
pub mod workers;

use std::sync::Arc;

pub use config::ServeConfig;
use pitboss_store::{Files, Store};
use pitboss_web::{AppState, Board, WebSettings};

/// A failure of the service.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error("{what}: {why}")]
    Config { what: String, why: String },
    #[error(transparent)]
    Store(#[from] pitboss_store::StoreError),
    #[error("listening on {addr}: {source}")]
    Listen {
        addr: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the web server: {0}")]
    Serve(std::io::Error),
    #[error("the audit of match {id} stopped: {why}")]
    Audit { id: i64, why: String },
}

/// Opens the store of `cfg`: `DATA/pitboss.db`, or the database URL given.
///
/// # Errors
/// When the database cannot be opened or migrated.
pub async fn open_store(cfg: &ServeConfig) -> Result<Store, ServiceError> {
    Ok(match &cfg.database {
        Some(url) => Store::open(url).await?,
        None => Store::open_dir(&cfg.data).await?,
    })
}

/// The worker settings of `cfg`.
///
/// # Errors
/// When the data folder's files or secret cannot be made.
pub fn worker_settings(cfg: &ServeConfig) -> Result<pitboss_worker::Settings, ServiceError> {
    let files = Files::new(&cfg.data)?;
    Ok(pitboss_worker::Settings {
        secret: files.secret()?,
        files,
        sandbox: cfg.sandbox,
        luck_adjust: cfg.luck_adjust,
        threads: cfg.threads_per_match,
        check_hands: cfg.check_hands,
        history: cfg.history_hands > 0,
        history_hands: cfg.history_hands,
        // The server's own threads: nothing to audit (a remote worker records it).
        tape: false,
        scratch: false,
    })
}

/// Serves until interrupted (Ctrl-C or SIGTERM). `ready` is called with the address listened on
/// once the web server accepts connections.
///
/// # Errors
/// When the store, the files or the listening address cannot be had.
pub async fn serve(
    cfg: ServeConfig,
    ready: impl FnOnce(std::net::SocketAddr),
) -> Result<(), ServiceError> {
    let store = open_store(&cfg).await?;
    let ws = worker_settings(&cfg)?;
    let workers: Arc<dyn workers::Workers> = Arc::new(workers::LocalWorkers::new(ws, cfg.workers));
    serve_with(cfg, store, workers, ready).await
}

/// [`serve`] with the store and the workers given: `pitboss serve --queue` hands its jobs to
/// workers on other machines (the crate `pitboss-queue`) and plays nothing itself.
///
/// # Errors
/// When the files or the listening address cannot be had.
pub async fn serve_with(
    cfg: ServeConfig,
    store: Store,
    workers: Arc<dyn workers::Workers>,
    ready: impl FnOnce(std::net::SocketAddr),
) -> Result<(), ServiceError> {
    let files = Files::new(&cfg.data)?;
    // Worker tokens of a data folder from before they were kept in the database.
    let imported = store.import_worker_tokens(&cfg.data).await?;
    if imported != pitboss_store::Imported::default() {
        tracing::info!(
            "{} worker token(s) moved from {} into the database ({} left out: a name it has, or \
             not a NAME SHA256 line); the file is now {}",
            imported.imported,
            cfg.data.join(pitboss_store::WORKER_TOKENS_FILE).display(),
            imported.skipped,
            pitboss_store::WORKER_TOKENS_IMPORTED
        );
    }
    let (tx, rx) = tokio::sync::watch::channel(Arc::new(Board::default()));
    let wake = Arc::new(tokio::sync::Notify::new());
    let mut sched = scheduler::Scheduler::new(
        store.clone(),
        cfg.clone(),
        workers.clone(),
        tx,
        wake.clone(),
    );
    sched.start().await?;
    let state = AppState {
        store: store.clone(),
        files,
        board: rx,
        wake,
        settings: WebSettings {
            uploads_per_hour: cfg.uploads_per_hour,
            max_bundle_bytes: cfg.max_bundle_bytes,
            presets: cfg.presets.clone(),
        },
    };
    let app = pitboss_web::router(state);
    let listener = tokio::net::TcpListener::bind(cfg.listen)
        .await
        .map_err(|source| ServiceError::Listen {
            addr: cfg.listen.to_string(),
            source,
        })?;
    let addr = listener.local_addr().map_err(ServiceError::Serve)?;
    tracing::info!("{}", workers.describe());
    ready(addr);
    let sched = tokio::spawn(sched.run());
    let server = axum::serve(listener, app).with_graceful_shutdown(shutdown());
    tokio::select! {
        r = server => r.map_err(ServiceError::Serve)?,
        r = sched => {
            match r {
                Ok(Err(e)) => return Err(e),
                Ok(Ok(())) => {}
                Err(e) => tracing::error!("the scheduler stopped: {e}"),
            }
        }
    }
    store.close().await;
    Ok(())
}

async fn shutdown() {
    let ctrl_c = tokio::signal::ctrl_c();
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("a SIGTERM handler");
    tokio::select! {
        _ = ctrl_c => {}
        _ = term.recv() => {}
    }
}
