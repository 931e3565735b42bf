//! Accounts and their API tokens. A token is 32 random bytes shown once (`pb_` + hex); the
//! database keeps only its SHA-256, so a copy of the database (a backup, a leaked file) gives no
//! way in. Lookups are by hash, which is also what makes them constant in what they reveal.

use sha2::{Digest, Sha256};
use sqlx::Row;

use crate::{now_ms, Account, Result, Store, StoreError};

/// A new random token.
///
/// # Panics
/// When the operating system's random source fails (nothing safe can be made without it).
pub fn new_token() -> String {
    let mut b = [0u8; 32];
    getrandom::getrandom(&mut b).expect("the operating system's random source");
    format!("pb_{}", hex::encode(b))
}

/// The hash a token is stored as.
pub fn hash_token(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

fn account(r: &sqlx::any::AnyRow) -> Result<Account> {
    Ok(Account {
        id: r.try_get("id")?,
        name: r.try_get("name")?,
        created_at: r.try_get("created_at")?,
        revoked_at: r.try_get("revoked_at")?,
        uploads_per_hour: r.try_get("uploads_per_hour")?,
        max_bundle_bytes: r.try_get("max_bundle_bytes")?,
    })
}

const COLS: &str = "id, name, created_at, revoked_at, uploads_per_hour, max_bundle_bytes";

impl Store {
    /// A new account `name` with its quotas; returns the token (the only time it exists in
    /// clear).
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the name is taken.
    pub async fn create_account(
        &self,
        name: &str,
        uploads_per_hour: i64,
        max_bundle_bytes: i64,
    ) -> Result<(Account, String)> {
        let token = new_token();
        let r = sqlx::query(safe!(
            "INSERT INTO tokens (name, hash, created_at, uploads_per_hour, max_bundle_bytes) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING {COLS}"
        ))
        .bind(name)
        .bind(hash_token(&token))
        .bind(now_ms())
        .bind(uploads_per_hour)
        .bind(max_bundle_bytes)
        .fetch_optional(&self.pool)
        .await?;
        match r {
            Some(r) => Ok((account(&r)?, token)),
            None => Err(StoreError::Conflict(format!(
                "an account named {name} exists (revoke it, or choose another name)"
            ))),
        }
    }

    /// The live account a token belongs to (`None`: unknown or revoked).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn account_by_token(&self, token: &str) -> Result<Option<Account>> {
        let r = sqlx::query(safe!(
            "SELECT {COLS} FROM tokens WHERE hash = $1 AND revoked_at IS NULL"
        ))
        .bind(hash_token(token))
        .fetch_optional(&self.pool)
        .await?;
        r.as_ref().map(account).transpose()
    }

    /// Every account, revoked ones too, by name.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn accounts(&self) -> Result<Vec<Account>> {
        let rows = sqlx::query(safe!("SELECT {COLS} FROM tokens ORDER BY name"))
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(account).collect()
    }

    /// Revokes the account's token: it opens nothing from now on; its bots keep playing.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] when no live account has that name.
    pub async fn revoke_account(&self, name: &str) -> Result<()> {
        let done =
            sqlx::query("UPDATE tokens SET revoked_at = $1 WHERE name = $2 AND revoked_at IS NULL")
                .bind(now_ms())
                .bind(name)
                .execute(&self.pool)
                .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!(
                "no live account named {name}"
            )));
        }
        Ok(())
    }

    /// Records an upload attempt for the hourly quota.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn record_upload(&self, account: i64, bytes: i64) -> Result<()> {
        sqlx::query("INSERT INTO uploads (token, at, bytes) VALUES ($1, $2, $3)")
            .bind(account)
            .bind(now_ms())
            .bind(bytes)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Takes one of the account's `limit` upload slots since `since` (ms), atomically: the
    /// attempt is recorded only while fewer than `limit` are, in one statement (SQLite runs one
    /// writer at a time; PostgreSQL first locks the account's row). Counting first and
    /// recording after the body arrived let uploads sent at once all pass one count (red team:
    /// 7 of 8 accepted on a quota of 2). Returns `None` when the slot is taken, else the time of
    /// the oldest upload in the window (for `Retry-After`).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn reserve_upload(
        &self,
        account: i64,
        since: i64,
        limit: i64,
    ) -> Result<Option<Option<i64>>> {
        let mut tx = self.pool.begin().await?;
        if self.backend() == crate::Backend::Postgres {
            sqlx::query("SELECT id FROM tokens WHERE id = $1 FOR UPDATE")
                .bind(account)
                .execute(&mut *tx)
                .await?;
        }
        let done = sqlx::query(
            "INSERT INTO uploads (token, at, bytes) SELECT $1, $2, 0 \
             WHERE (SELECT COUNT(*) FROM uploads WHERE token = $1 AND at >= $3) < $4",
        )
        .bind(account)
        .bind(now_ms())
        .bind(since)
        .bind(limit)
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() == 1 {
            tx.commit().await?;
            return Ok(None);
        }
        let first: Option<i64> =
            sqlx::query("SELECT MIN(at) AS first FROM uploads WHERE token = $1 AND at >= $2")
                .bind(account)
                .bind(since)
                .fetch_one(&mut *tx)
                .await?
                .try_get("first")?;
        tx.commit().await?;
        Ok(Some(first))
    }

    /// Uploads of the account since `since` (ms) and the time of the oldest of them, from which
    /// the caller tells when the quota frees a slot (`Retry-After`).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn uploads_since(&self, account: i64, since: i64) -> Result<(i64, Option<i64>)> {
        let r = sqlx::query(
            "SELECT COUNT(*) AS n, MIN(at) AS first FROM uploads WHERE token = $1 AND at >= $2",
        )
        .bind(account)
        .bind(since)
        .fetch_one(&self.pool)
        .await?;
        Ok((r.try_get("n")?, r.try_get("first")?))
    }
}
