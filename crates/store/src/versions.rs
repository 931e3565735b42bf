//! Bots and their versions. A name belongs to the account that uploaded it first; each upload
//! of it is a new version, numbered from 1, that plays only once a worker has built and checked
//! it, and retires (keeping its history) when a newer version of the bot becomes active.

use sqlx::Row;

use crate::{now_ms, Bot, Result, Store, StoreError, Version, VersionState};

const COLS: &str = "v.id AS id, v.bot AS bot, b.name AS bot_name, b.owner AS owner, \
    v.number AS number, v.spec AS spec, v.sha256 AS sha256, v.bundle_bytes AS bundle_bytes, \
    v.state AS state, v.created_at AS created_at, v.checked_at AS checked_at";

pub(crate) fn version(r: &sqlx::any::AnyRow) -> Result<Version> {
    let state: String = r.try_get("state")?;
    Ok(Version {
        id: r.try_get("id")?,
        bot: r.try_get("bot")?,
        bot_name: r.try_get("bot_name")?,
        owner: r.try_get("owner")?,
        number: r.try_get("number")?,
        spec: r.try_get("spec")?,
        sha256: r.try_get("sha256")?,
        bundle_bytes: r.try_get("bundle_bytes")?,
        state: VersionState::parse(&state)
            .ok_or_else(|| StoreError::Invalid(format!("unknown version state {state}")))?,
        created_at: r.try_get("created_at")?,
        checked_at: r.try_get("checked_at")?,
    })
}

fn bot(r: &sqlx::any::AnyRow) -> Result<Bot> {
    Ok(Bot {
        id: r.try_get("id")?,
        name: r.try_get("name")?,
        owner: r.try_get("owner")?,
        created_at: r.try_get("created_at")?,
    })
}

/// An upload refused because the name belongs to someone else.
#[derive(Debug, thiserror::Error)]
#[error("the bot name {0} belongs to another account")]
pub struct NotYours(pub String);

impl Store {
    /// The reference bot `name` (a built-in of the house, version 1, active), created when
    /// missing.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when an uploaded bot holds the name.
    pub async fn ensure_reference(&self, name: &str) -> Result<Version> {
        let mut tx = self.pool.begin().await?;
        let now = now_ms();
        sqlx::query("INSERT INTO bots (name, owner, created_at) VALUES ($1, NULL, $2) ON CONFLICT DO NOTHING")
            .bind(name)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        let b = sqlx::query("SELECT id, name, owner, created_at FROM bots WHERE name = $1")
            .bind(name)
            .fetch_one(&mut *tx)
            .await?;
        let b = bot(&b)?;
        if b.owner.is_some() {
            return Err(StoreError::Conflict(format!(
                "the reference bot {name} cannot be added: an uploaded bot has the name"
            )));
        }
        sqlx::query(
            "INSERT INTO versions (bot, number, spec, sha256, bundle_bytes, state, created_at, checked_at) \
             VALUES ($1, 1, $2, '', 0, 'active', $3, $4) ON CONFLICT DO NOTHING",
        )
        .bind(b.id)
        .bind(name)
        .bind(now)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        let v = sqlx::query(safe!(
            "SELECT {COLS} FROM versions v JOIN bots b ON b.id = v.bot WHERE v.bot = $1 AND v.number = 1"
        ))
        .bind(b.id)
        .fetch_one(&self.pool)
        .await?;
        version(&v)
    }

    /// The bot named `name`, whatever the case of its letters: names that differ only in case
    /// are one name (else a stranger's `CALL` passes for the house's `call` on a leaderboard,
    /// `Victim` for someone's `victim`). The oldest such bot when an older database holds two.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn bot_by_name(&self, name: &str) -> Result<Option<Bot>> {
        let r = sqlx::query(
            "SELECT id, name, owner, created_at FROM bots WHERE lower(name) = lower($1) \
             ORDER BY id LIMIT 1",
        )
        .bind(name)
        .fetch_optional(&self.pool)
        .await?;
        r.as_ref().map(bot).transpose()
    }

    /// A new version of bot `name` uploaded by `account` (the bot is created, owned by the
    /// account, on its first upload), pending its check.
    ///
    /// # Errors
    /// `Ok(Err(NotYours))` when another account (or the house) owns the name.
    pub async fn new_version(
        &self,
        account: i64,
        name: &str,
        sha256: &str,
        bytes: i64,
    ) -> Result<std::result::Result<Version, NotYours>> {
        let mut tx = self.pool.begin().await?;
        let now = now_ms();
        // A name is taken whatever its case (see `bot_by_name`): the existing bot is found, or
        // the name is new.
        sqlx::query(
            "INSERT INTO bots (name, owner, created_at) SELECT $1, $2, $3 \
             WHERE NOT EXISTS (SELECT 1 FROM bots WHERE lower(name) = lower($1)) \
             ON CONFLICT DO NOTHING",
        )
        .bind(name)
        .bind(account)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        let b = sqlx::query(
            "SELECT id, name, owner, created_at FROM bots WHERE lower(name) = lower($1) \
             ORDER BY id LIMIT 1",
        )
        .bind(name)
        .fetch_one(&mut *tx)
        .await?;
        let b = bot(&b)?;
        if b.owner != Some(account) {
            return Ok(Err(NotYours(name.to_string())));
        }
        let next: i64 =
            sqlx::query("SELECT COALESCE(MAX(number), 0) + 1 AS n FROM versions WHERE bot = $1")
                .bind(b.id)
                .fetch_one(&mut *tx)
                .await?
                .try_get("n")?;
        let id: i64 = sqlx::query(
            "INSERT INTO versions (bot, number, spec, sha256, bundle_bytes, state, created_at) \
             VALUES ($1, $2, '', $3, $4, 'pending', $5) RETURNING id",
        )
        .bind(b.id)
        .bind(next)
        .bind(sha256)
        .bind(bytes)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?
        .try_get("id")?;
        tx.commit().await?;
        Ok(Ok(self.version(id).await?.expect("just inserted")))
    }

    /// Version `id`.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn version(&self, id: i64) -> Result<Option<Version>> {
        let r = sqlx::query(safe!(
            "SELECT {COLS} FROM versions v JOIN bots b ON b.id = v.bot WHERE v.id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        r.as_ref().map(version).transpose()
    }

    /// Every version (of every bot), by id.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn versions(&self) -> Result<Vec<Version>> {
        let rows = sqlx::query(safe!(
            "SELECT {COLS} FROM versions v JOIN bots b ON b.id = v.bot ORDER BY v.id"
        ))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(version).collect()
    }

    /// The build and check log of a version (its owner's eyes only: the caller checks).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn version_log(&self, id: i64) -> Result<String> {
        let r = sqlx::query("SELECT log FROM versions WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(match r {
            Some(r) => r.try_get("log")?,
            None => String::new(),
        })
    }

    /// Takes the oldest pending version for a check (pending → checking); `None` when none
    /// waits.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn claim_pending_version(&self) -> Result<Option<Version>> {
        let r = sqlx::query(
            "UPDATE versions SET state = 'checking' WHERE id = \
             (SELECT id FROM versions WHERE state = 'pending' ORDER BY id LIMIT 1) \
             AND state = 'pending' RETURNING id",
        )
        .fetch_optional(&self.pool)
        .await?;
        match r {
            Some(r) => self.version(r.try_get("id")?).await,
            None => Ok(None),
        }
    }

    /// Takes a version off the ladder for good (state `failed`, `note` appended to its owner's
    /// log) and fails its queued matches: it passed its check but can no longer be set up for
    /// a match (its build fails). Only an active or retired version moves (a retired one still
    /// plays its successor). Returns whether it moved.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn disqualify(&self, id: i64, note: &str) -> Result<bool> {
        let mut tx = self.pool.begin().await?;
        let done = sqlx::query(
            "UPDATE versions SET state = 'failed', log = COALESCE(log, '') || $1 \
             WHERE id = $2 AND state IN ('active', 'retired')",
        )
        .bind(note)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "UPDATE matches SET state = 'failed', finished_at = $1, \
             error = 'not played: a version of this match was taken off the ladder' \
             WHERE state = 'queued' AND (a = $2 OR b = $2)",
        )
        .bind(now_ms())
        .bind(id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(done.rows_affected() == 1)
    }

    /// The check of version `id` is over: active when `fit` (the bot's previous active version
    /// retires, in the same transaction), failed otherwise; `log` is kept for the owner. Only a
    /// version being checked moves. Returns the predecessor the new version replaced, if any.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn finish_check(&self, id: i64, fit: bool, log: &str) -> Result<Option<i64>> {
        let mut tx = self.pool.begin().await?;
        let now = now_ms();
        let Some(r) =
            sqlx::query("SELECT bot, number FROM versions WHERE id = $1 AND state = 'checking'")
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?
        else {
            return Ok(None);
        };
        let (bot, number): (i64, i64) = (r.try_get("bot")?, r.try_get("number")?);
        let mut predecessor = None;
        if fit {
            let prev = sqlx::query(
                "SELECT id FROM versions WHERE bot = $1 AND number < $2 AND state IN ('active', 'retired') \
                 ORDER BY number DESC LIMIT 1",
            )
            .bind(bot)
            .bind(number)
            .fetch_optional(&mut *tx)
            .await?;
            if let Some(p) = prev {
                predecessor = Some(p.try_get::<i64, _>("id")?);
            }
            sqlx::query(
                "UPDATE versions SET state = 'retired' WHERE bot = $1 AND state = 'active' AND number < $2",
            )
            .bind(bot)
            .bind(number)
            .execute(&mut *tx)
            .await?;
        }
        // Checked after a newer version of the bot was already active (two checks at once):
        // fit, but retired at once, so that a bot never has two active versions.
        let newer: i64 = sqlx::query(
            "SELECT COUNT(*) AS n FROM versions WHERE bot = $1 AND state = 'active' AND number > $2",
        )
        .bind(bot)
        .bind(number)
        .fetch_one(&mut *tx)
        .await?
        .try_get("n")?;
        let state = match (fit, newer > 0) {
            (false, _) => "failed",
            (true, false) => "active",
            (true, true) => "retired",
        };
        sqlx::query("UPDATE versions SET state = $1, log = $2, checked_at = $3 WHERE id = $4")
            .bind(state)
            .bind(log)
            .bind(now)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(predecessor)
    }
}
