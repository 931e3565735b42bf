//! Notes on a match that is still in flight: with workers on a queue, a worker may refuse a job
//! (another engine version) or a job may wait for its redelivery; the operator sees why on the
//! match's row before the match is finished or failed.

use crate::{Result, Store};

impl Store {
    /// Sets the error text of a queued or running match (its state does not change; a finished
    /// match keeps its own).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn note_match_error(&self, id: i64, note: &str) -> Result<()> {
        sqlx::query(
            "UPDATE matches SET error = $1 WHERE id = $2 AND state IN ('queued', 'running')",
        )
        .bind(note)
        .bind(id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
