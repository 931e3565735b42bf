//! Reads the web server needs beyond the service's own: an account by id (a login cookie names
//! the account, not its token, and a revoked account's cookie must stop opening anything), and
//! the versions of one bot (its page shows states fresher than the last board).

use sqlx::Row;

use crate::{Account, Result, Store};

impl Store {
    /// The live account with this id (`None`: unknown or revoked).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn account_by_id(&self, id: i64) -> Result<Option<Account>> {
        let r = sqlx::query(
            "SELECT id, name, created_at, revoked_at, uploads_per_hour, max_bundle_bytes \
             FROM tokens WHERE id = $1 AND revoked_at IS NULL",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        r.map(|r| -> Result<Account> {
            Ok(Account {
                id: r.try_get("id")?,
                name: r.try_get("name")?,
                created_at: r.try_get("created_at")?,
                revoked_at: r.try_get("revoked_at")?,
                uploads_per_hour: r.try_get("uploads_per_hour")?,
                max_bundle_bytes: r.try_get("max_bundle_bytes")?,
            })
        })
        .transpose()
    }
}

impl Store {
    /// The versions of bot `bot`, newest first.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn bot_versions(&self, bot: i64) -> Result<Vec<crate::Version>> {
        let rows = sqlx::query(
            "SELECT v.id AS id, v.bot AS bot, b.name AS bot_name, b.owner AS owner, \
             v.number AS number, v.spec AS spec, v.sha256 AS sha256, \
             v.bundle_bytes AS bundle_bytes, v.state AS state, v.created_at AS created_at, \
             v.checked_at AS checked_at \
             FROM versions v JOIN bots b ON b.id = v.bot WHERE v.bot = $1 ORDER BY v.number DESC",
        )
        .bind(bot)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(crate::versions::version).collect()
    }
}
