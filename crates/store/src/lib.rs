//! Storage of the service: one SQL database is the one source of truth (tokens, bots, versions,
//! matches with their seeds and results), and beside it, in the data folder, the files too large
//! for a row (bundles by SHA-256, hand histories per match).
//!
//! Why one [`Store`] over sqlx's `Any` driver rather than a trait with two implementations: the
//! queries are plain SQL that SQLite and PostgreSQL both speak (`$1` parameters, `RETURNING`),
//! so the embedded database of `pitboss serve --data DIR` and the shared PostgreSQL of a
//! service on many machines are the same code chosen by URL, with one migration folder per
//! dialect (`migrations/sqlite`, `migrations/postgres`) for the few words that differ.
//!
//! Nothing lost, nothing counted twice: a match is a row with its seed before it is played
//! ([`Store::create_match`]); its result is written in one transaction that also moves it from
//! `running` to `done`, and only from `running` ([`Store::finish_match`]), so a result that
//! arrives twice counts once; on start, [`Store::requeue_running`] puts back every match and
//! check a killed server left half done, to be played again from its seed.

/// `sqlx::query` of a string made with `format!`: only ever constant column lists and, for the
/// backup, a path with its quotes doubled; every value from outside is a bound parameter.
macro_rules! safe {
    ($($t:tt)*) => {
        sqlx::AssertSqlSafe(format!($($t)*))
    };
}

mod files;
mod flags;
mod matches;
mod model;
mod notes;
mod tokens;
mod versions;
mod web_reads;
mod worker_tokens;

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use sqlx::any::AnyPoolOptions;
use sqlx::AnyPool;

pub use files::{Files, HISTORY_DIR};
pub use flags::WorkerFlag;
pub use model::*;
pub use tokens::{hash_token, new_token};
pub use worker_tokens::{Imported, WorkerToken, WORKER_TOKENS_FILE, WORKER_TOKENS_IMPORTED};

/// A failure of the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database {url}: {source}")]
    Open {
        url: String,
        #[source]
        source: sqlx::Error,
    },
    #[error("database migration: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("database: {0}")]
    Sql(#[from] sqlx::Error),
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Invalid(String),
    #[error("not found: {0}")]
    NotFound(String),
    #[error("{0}")]
    Conflict(String),
}

impl StoreError {
    pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
        move |source| StoreError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}

pub type Result<T> = std::result::Result<T, StoreError>;

/// Which SQL dialect the store speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// The database and the data folder.
#[derive(Clone)]
pub struct Store {
    pub(crate) pool: AnyPool,
    backend: Backend,
    url: String,
}

/// The database file of a data folder.
pub const DB_FILE: &str = "pitboss.db";

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

impl Store {
    /// The embedded database of a data folder (`DIR/pitboss.db`, created when missing, WAL mode).
    ///
    /// # Errors
    /// When the folder or the database cannot be opened or migrated.
    pub async fn open_dir(dir: &Path) -> Result<Store> {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        if !dir.exists() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(StoreError::io(dir))?;
        }
        let db: PathBuf = dir.join(DB_FILE);
        // The database holds hashed tokens and every match's seed: its user's alone (SQLite
        // gives its WAL and shared-memory files the database file's mode).
        if !db.exists() {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&db)
                .map_err(StoreError::io(&db))?;
        }
        std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o600))
            .map_err(StoreError::io(&db))?;
        let url = format!("sqlite://{}?mode=rwc", db.display());
        Store::open(&url).await
    }

    /// A database by URL: `sqlite://PATH?mode=rwc` or `postgres://…`; migrated to the current
    /// schema.
    ///
    /// # Errors
    /// When the database cannot be reached or migrated.
    pub async fn open(url: &str) -> Result<Store> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Backend::Postgres
        } else {
            return Err(StoreError::Invalid(format!(
                "database URL {url}: only sqlite:// and postgres:// are supported"
            )));
        };
        let shown = redact(url);
        let opts = AnyPoolOptions::new()
            .max_connections(if backend == Backend::Sqlite { 8 } else { 16 })
            .acquire_timeout(Duration::from_secs(30));
        let opts = if backend == Backend::Sqlite {
            opts.after_connect(|conn, _| {
                Box::pin(async move {
                    // WAL: readers never wait for the writer; FULL: a finished match survives a
                    // power cut, not only a killed process; the timeout queues writers instead
                    // of failing them.
                    for p in [
                        "PRAGMA journal_mode = WAL",
                        "PRAGMA synchronous = FULL",
                        "PRAGMA busy_timeout = 10000",
                        "PRAGMA foreign_keys = ON",
                    ] {
                        sqlx::query(p).execute(&mut *conn).await?;
                    }
                    Ok(())
                })
            })
        } else {
            opts
        };
        let pool = opts.connect(url).await.map_err(|source| StoreError::Open {
            url: shown.clone(),
            source,
        })?;
        match backend {
            Backend::Sqlite => sqlx::migrate!("migrations/sqlite").run(&pool).await?,
            Backend::Postgres => sqlx::migrate!("migrations/postgres").run(&pool).await?,
        }
        Ok(Store {
            pool,
            backend,
            url: shown,
        })
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The URL, with any password removed.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// An online backup: SQLite writes a consistent copy of the database to `dest` while the
    /// service runs (`VACUUM INTO`); PostgreSQL has `pg_dump` for that.
    ///
    /// # Errors
    /// When `dest` exists or cannot be written, or on PostgreSQL.
    pub async fn backup(&self, dest: &Path) -> Result<()> {
        if self.backend != Backend::Sqlite {
            return Err(StoreError::Invalid(
                "online backup of a PostgreSQL store: use pg_dump".into(),
            ));
        }
        if dest.exists() {
            return Err(StoreError::Conflict(format!(
                "{} exists; a backup never overwrites a file",
                dest.display()
            )));
        }
        let d = dest
            .to_str()
            .ok_or_else(|| StoreError::Invalid(format!("{}: not a UTF-8 path", dest.display())))?;
        sqlx::query(safe!("VACUUM INTO '{}'", d.replace('\'', "''")))
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Closes the pool (waits for connections to be returned).
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// `postgres://user:secret@host/db` → `postgres://user:***@host/db`.
fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    match rest.split_once('@') {
        Some((auth, host)) if auth.contains(':') => {
            let user = auth.split(':').next().unwrap_or("");
            format!("{scheme}://{user}:***@{host}")
        }
        _ => url.to_string(),
    }
}

impl FromStr for Backend {
    type Err = StoreError;
    fn from_str(s: &str) -> Result<Backend> {
        match s {
            "sqlite" => Ok(Backend::Sqlite),
            "postgres" => Ok(Backend::Postgres),
            _ => Err(StoreError::Invalid(format!("unknown backend {s}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn passwords_are_redacted() {
        assert_eq!(
            super::redact("postgres://u:pw@h/db"),
            "postgres://u:***@h/db"
        );
        assert_eq!(super::redact("sqlite:///x/y.db"), "sqlite:///x/y.db");
    }
}
