//! Matches: created with their seed before they are played, claimed by a worker, finished in one
//! transaction that counts the result only if the match was still running (a result delivered
//! twice, or after a restart re-queued the match, counts once).

use sqlx::Row;

use crate::{
    now_ms, Match, MatchKind, MatchState, NewMatch, Outcome, QueueCounts, Result, Store, StoreError,
};

const COLS: &str = "id, preset, kind, a, b, seed, hands, state, attempts, worker, created_at, \
    started_at, finished_at, error, units, played, mean, se, raw_mean, elapsed_ms, a_stats, \
    b_stats, history, delivery";

fn row(r: &sqlx::any::AnyRow) -> Result<Match> {
    let state: String = r.try_get("state")?;
    let kind: String = r.try_get("kind")?;
    let state = MatchState::parse(&state)
        .ok_or_else(|| StoreError::Invalid(format!("unknown match state {state}")))?;
    let outcome = if state == MatchState::Done {
        Some(Outcome {
            units: r.try_get("units")?,
            played: r.try_get("played")?,
            mean: r.try_get("mean")?,
            se: r.try_get("se")?,
            raw_mean: r.try_get("raw_mean")?,
            elapsed_ms: r.try_get("elapsed_ms")?,
            a_stats: r.try_get("a_stats")?,
            b_stats: r.try_get("b_stats")?,
            history: r.try_get("history")?,
        })
    } else {
        None
    };
    Ok(Match {
        id: r.try_get("id")?,
        preset: r.try_get("preset")?,
        kind: MatchKind::parse(&kind)
            .ok_or_else(|| StoreError::Invalid(format!("unknown match kind {kind}")))?,
        a: r.try_get("a")?,
        b: r.try_get("b")?,
        seed: r.try_get("seed")?,
        hands: r.try_get("hands")?,
        state,
        attempts: r.try_get("attempts")?,
        worker: r.try_get("worker")?,
        created_at: r.try_get("created_at")?,
        started_at: r.try_get("started_at")?,
        finished_at: r.try_get("finished_at")?,
        error: r.try_get("error")?,
        delivery: r.try_get("delivery")?,
        outcome,
    })
}

impl Store {
    /// A queued match (its seed recorded before anyone plays it).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn create_match(&self, m: &NewMatch) -> Result<i64> {
        let r = sqlx::query(
            "INSERT INTO matches (preset, kind, a, b, seed, hands, state, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, 'queued', $7) RETURNING id",
        )
        .bind(&m.preset)
        .bind(m.kind.as_str())
        .bind(m.a)
        .bind(m.b)
        .bind(m.seed)
        .bind(m.hands)
        .bind(now_ms())
        .fetch_one(&self.pool)
        .await?;
        Ok(r.try_get("id")?)
    }

    /// Takes the oldest queued match for `worker` (queued → running).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn claim_match(&self, worker: &str) -> Result<Option<Match>> {
        let r = sqlx::query(
            "UPDATE matches SET state = 'running', attempts = attempts + 1, worker = $1, \
             delivery = 0, started_at = $2 WHERE id = (SELECT id FROM matches WHERE state = 'queued' \
             ORDER BY id LIMIT 1) AND state = 'queued' RETURNING id",
        )
        .bind(worker)
        .bind(now_ms())
        .fetch_optional(&self.pool)
        .await?;
        match r {
            Some(r) => self.match_by_id(r.try_get("id")?).await,
            None => Ok(None),
        }
    }

    /// Records the result of a match (running or queued → done) and says whether it counted:
    /// `false` when the match was finished already (done or failed). A queued match takes it too:
    /// with workers on a queue, a result played before a server restart may arrive after the
    /// restart re-queued its match; it is the result of the same seed, and counts once.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn finish_match(&self, id: i64, o: &Outcome) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE matches SET state = 'done', finished_at = $1, units = $2, played = $3, \
             mean = $4, se = $5, raw_mean = $6, elapsed_ms = $7, a_stats = $8, b_stats = $9, \
             history = $10, error = '' WHERE id = $11 AND state IN ('running', 'queued')",
        )
        .bind(now_ms())
        .bind(o.units)
        .bind(o.played)
        .bind(o.mean)
        .bind(o.se)
        .bind(o.raw_mean)
        .bind(o.elapsed_ms)
        .bind(&o.a_stats)
        .bind(&o.b_stats)
        .bind(&o.history)
        .bind(id)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Worker `worker` started delivery `delivery` of running match `id`'s job (a worker on a
    /// queue says so when it starts): the match is shown as its, since now. An older delivery's
    /// word arriving late changes nothing; `false` when nothing changed (the match is not
    /// running, or a later delivery started already).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn match_started(&self, id: i64, worker: &str, delivery: i64) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE matches SET worker = $1, delivery = $2, started_at = $3 \
             WHERE id = $4 AND state = 'running' AND delivery <= $2",
        )
        .bind(worker)
        .bind(delivery)
        .bind(now_ms())
        .bind(id)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// A running match could not be played (`error` says why; it never counts).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn fail_match(&self, id: i64, error: &str) -> Result<()> {
        sqlx::query(
            "UPDATE matches SET state = 'failed', finished_at = $1, error = $2 \
             WHERE id = $3 AND state = 'running'",
        )
        .bind(now_ms())
        .bind(error)
        .bind(id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// After a crash or a kill: every running match back to the queue (it is played again from
    /// its seed) and every version being checked back to pending. Returns (matches, versions).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn requeue_running(&self) -> Result<(u64, u64)> {
        let m = sqlx::query(
            "UPDATE matches SET state = 'queued', worker = '', delivery = 0 \
                 WHERE state = 'running'",
        )
        .execute(&self.pool)
        .await?;
        let v = sqlx::query("UPDATE versions SET state = 'pending' WHERE state = 'checking'")
            .execute(&self.pool)
            .await?;
        Ok((m.rows_affected(), v.rows_affected()))
    }

    /// Match `id`.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn match_by_id(&self, id: i64) -> Result<Option<Match>> {
        let r = sqlx::query(safe!("SELECT {COLS} FROM matches WHERE id = $1"))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        r.as_ref().map(row).transpose()
    }

    /// Finished matches with an id above `after`, by id (the ladder reads them incrementally).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn done_after(&self, after: i64) -> Result<Vec<Match>> {
        let rows = sqlx::query(safe!(
            "SELECT {COLS} FROM matches WHERE state = 'done' AND id > $1 ORDER BY id"
        ))
        .bind(after)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(row).collect()
    }

    /// Queued and running matches.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn in_flight(&self) -> Result<Vec<Match>> {
        let rows = sqlx::query(safe!(
            "SELECT {COLS} FROM matches WHERE state IN ('queued', 'running') ORDER BY id"
        ))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(row).collect()
    }

    /// The latest matches (any state), newest first; of one version when `version` is given.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn recent_matches(&self, version: Option<i64>, limit: i64) -> Result<Vec<Match>> {
        let rows = match version {
            Some(v) => {
                sqlx::query(safe!(
                    "SELECT {COLS} FROM matches WHERE a = $1 OR b = $2 ORDER BY id DESC LIMIT $3"
                ))
                .bind(v)
                .bind(v)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?
            }
            None => {
                sqlx::query(safe!(
                    "SELECT {COLS} FROM matches ORDER BY id DESC LIMIT $1"
                ))
                .bind(limit)
                .fetch_all(&self.pool)
                .await?
            }
        };
        rows.iter().map(row).collect()
    }

    /// Counts for the operator's page.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn counts(&self) -> Result<QueueCounts> {
        let mut c = QueueCounts::default();
        for r in sqlx::query("SELECT state, COUNT(*) AS n, CAST(COALESCE(SUM(played), 0) AS BIGINT) AS h FROM matches GROUP BY state")
            .fetch_all(&self.pool)
            .await?
        {
            let s: String = r.try_get("state")?;
            let n: i64 = r.try_get("n")?;
            match s.as_str() {
                "queued" => c.queued = n,
                "running" => c.running = n,
                "done" => {
                    c.done = n;
                    c.hands_total = r.try_get("h")?;
                }
                "failed" => c.failed = n,
                _ => {}
            }
        }
        for r in sqlx::query("SELECT state, COUNT(*) AS n FROM versions WHERE state IN ('pending', 'checking') GROUP BY state")
            .fetch_all(&self.pool)
            .await?
        {
            let s: String = r.try_get("state")?;
            let n: i64 = r.try_get("n")?;
            if s == "pending" {
                c.pending_versions = n;
            } else {
                c.checking_versions = n;
            }
        }
        c.hands_last_minute = sqlx::query(
            "SELECT CAST(COALESCE(SUM(played), 0) AS BIGINT) AS h FROM matches WHERE state = 'done' AND finished_at >= $1",
        )
        .bind(now_ms() - 60_000)
        .fetch_one(&self.pool)
        .await?
        .try_get("h")?;
        Ok(c)
    }
}
