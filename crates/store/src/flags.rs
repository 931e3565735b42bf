//! Workers flagged by the audit: a result that did not replay is refused, and the worker that sent
//! it is noted here for the operator's page (`/operator`, `/api/status`).

use sqlx::Row;

use crate::{now_ms, Result, Store};

/// One refused result.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct WorkerFlag {
    pub id: i64,
    pub worker: String,
    pub match_id: i64,
    pub reason: String,
    pub at: i64,
}

impl Store {
    /// Flags `worker` for the result of match `match_id` the audit refused.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn flag_worker(&self, worker: &str, match_id: i64, reason: &str) -> Result<()> {
        sqlx::query(
            "INSERT INTO worker_flags (worker, match_id, reason, at) VALUES ($1, $2, $3, $4)",
        )
        .bind(worker)
        .bind(match_id)
        .bind(reason)
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The latest `limit` flags, newest first.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn worker_flags(&self, limit: i64) -> Result<Vec<WorkerFlag>> {
        let rows = sqlx::query(
            "SELECT id, worker, match_id, reason, at FROM worker_flags ORDER BY id DESC LIMIT $1",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(WorkerFlag {
                    id: r.try_get("id")?,
                    worker: r.try_get("worker")?,
                    match_id: r.try_get("match_id")?,
                    reason: r.try_get("reason")?,
                    at: r.try_get("at")?,
                })
            })
            .collect()
    }
}
