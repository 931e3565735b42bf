//! Tokens of remote workers (`pitboss worker --token`): they may download any bundle by its hash,
//! which no bot author's token may (a bundle is its author's code). Kept apart from accounts, in
//! their own table: a name and the SHA-256 of the token (never the token), so a server on
//! PostgreSQL keeps them wherever it runs next. Revoking one deletes its row.
//!
//! Before they were in the database they were a file of the data folder (`worker-tokens`, one
//! `NAME SHA256-OF-TOKEN` a line); [`Store::import_worker_tokens`] moves such a file's lines in
//! once, at start-up, and renames the file so that it is not read again.

use std::path::Path;

use sqlx::Row;

use crate::{hash_token, new_token, now_ms, Result, Store, StoreError};

/// The file a data folder kept worker tokens in before they moved to the database.
pub const WORKER_TOKENS_FILE: &str = "worker-tokens";

/// What [`WORKER_TOKENS_FILE`] is renamed to once its lines are in the database.
pub const WORKER_TOKENS_IMPORTED: &str = "worker-tokens.imported";

/// A worker token as listed (its hash stays in the database).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct WorkerToken {
    pub name: String,
    pub created_at: i64,
}

/// What an import of the old file did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Imported {
    /// Lines now in the database.
    pub imported: usize,
    /// Lines left out: a name the database has already, or a line that is not `NAME HASH` with
    /// a valid name and a SHA-256 in lowercase hex.
    pub skipped: usize,
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'+'))
}

fn is_sha256(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

impl Store {
    /// A new worker token named `name` (returned once; only its hash is kept).
    ///
    /// # Errors
    /// A bad or taken name, or a database failure.
    pub async fn create_worker_token(&self, name: &str) -> Result<String> {
        if !valid_name(name) {
            return Err(StoreError::Invalid(format!(
                "worker name {name:?}: 1 to 64 of ASCII letters, digits, _ . + -"
            )));
        }
        let tok = format!("pbw_{}", new_token().trim_start_matches("pb_"));
        let done = sqlx::query(
            "INSERT INTO worker_tokens (name, hash, created_at) VALUES ($1, $2, $3) \
             ON CONFLICT DO NOTHING",
        )
        .bind(name)
        .bind(hash_token(&tok))
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::Conflict(format!(
                "a worker token named {name} exists (revoke it first)"
            )));
        }
        Ok(tok)
    }

    /// Removes the worker token `name`; false when there was none.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn revoke_worker_token(&self, name: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM worker_tokens WHERE name = $1")
            .bind(name)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// The name of the worker whose token this is, if any (looked up by hash).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn worker_by_token(&self, token: &str) -> Result<Option<String>> {
        if token.is_empty() {
            return Ok(None);
        }
        let r = sqlx::query("SELECT name FROM worker_tokens WHERE hash = $1")
            .bind(hash_token(token))
            .fetch_optional(&self.pool)
            .await?;
        Ok(r.map(|r| r.try_get("name")).transpose()?)
    }

    /// Every worker token, by name.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn worker_tokens(&self) -> Result<Vec<WorkerToken>> {
        let rows = sqlx::query("SELECT name, created_at FROM worker_tokens ORDER BY name")
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|r| {
                Ok(WorkerToken {
                    name: r.try_get("name")?,
                    created_at: r.try_get("created_at")?,
                })
            })
            .collect()
    }

    /// Moves the worker tokens of the data folder `dir`'s old file ([`WORKER_TOKENS_FILE`]) into
    /// the database, then renames the file [`WORKER_TOKENS_IMPORTED`]: done once, on the first
    /// start after an upgrade. A name the database has already keeps the database's token.
    /// Interrupted before the rename, it is done again on the next start and imports nothing
    /// twice. No file: nothing to do.
    ///
    /// # Errors
    /// When the file cannot be read or renamed, or on a database failure.
    pub async fn import_worker_tokens(&self, dir: &Path) -> Result<Imported> {
        let path = dir.join(WORKER_TOKENS_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Imported::default()),
            Err(e) => return Err(StoreError::io(&path)(e)),
        };
        let mut n = Imported::default();
        let created_at = now_ms();
        for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
            let Some((name, hash)) = line.split_once(' ') else {
                n.skipped += 1;
                continue;
            };
            let hash = hash.trim();
            if !valid_name(name) || !is_sha256(hash) {
                n.skipped += 1;
                continue;
            }
            let done = sqlx::query(
                "INSERT INTO worker_tokens (name, hash, created_at) VALUES ($1, $2, $3) \
                 ON CONFLICT DO NOTHING",
            )
            .bind(name)
            .bind(hash)
            .bind(created_at)
            .execute(&self.pool)
            .await?;
            if done.rows_affected() == 1 {
                n.imported += 1;
            } else {
                n.skipped += 1;
            }
        }
        let to = dir.join(WORKER_TOKENS_IMPORTED);
        std::fs::rename(&path, &to).map_err(StoreError::io(&to))?;
        Ok(n)
    }
}
