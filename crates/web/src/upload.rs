//! An upload, shared by `POST /api/bots` and the form: the account's hourly quota (429 with
//! `Retry-After`), the size (413, counted while the body arrives, never buffered past the
//! limit), the archive unpacked into a fresh folder under `tmp/` to validate it and read its
//! manifest's name (400 for anything `pitboss_bundle` refuses; the folder is removed whatever
//! happens), the name's rules and owner (400, 403), then the bundle stored by its SHA-256 and a
//! pending version recorded; the scheduler is woken to check it.
//!
//! Every attempt that gets past the size check counts against the quota, refused or not:
//! unpacking costs the server, so a stranger's token cannot make it unpack without end.

use axum::body::Body;
use futures_util::StreamExt;
use pitboss_store::{now_ms, Account};

use crate::ctx::Ctx;
use crate::error::WebError;

const HOUR_MS: i64 = 3_600_000;

/// What an accepted upload made.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Created {
    pub bot: String,
    /// The version's number (1 for the bot's first upload).
    pub version: i64,
    pub state: &'static str,
    pub url: String,
}

/// The largest bundle `account` may upload: the server's limit or the account's, the smaller.
pub fn limit(ctx: &Ctx, account: &Account) -> u64 {
    let l = ctx
        .app
        .settings
        .max_bundle_bytes
        .min(account.max_bundle_bytes);
    u64::try_from(l).unwrap_or(0)
}

/// 429 when the account's uploads of the last hour fill its quota.
///
/// # Errors
/// [`WebError::TooMany`] with the seconds until the oldest upload of the hour leaves it.
pub async fn check_quota(ctx: &Ctx, account: &Account) -> Result<(), WebError> {
    let now = now_ms();
    // The slot is taken here, atomically, before the body is read: counting here and recording
    // after the body arrived let uploads sent at once all pass one count (red team: 7 of 8
    // accepted on a quota of 2). Every attempt that gets this far counts, refused or not.
    let Some(first) = ctx
        .app
        .store
        .reserve_upload(account.id, now - HOUR_MS, account.uploads_per_hour)
        .await?
    else {
        return Ok(());
    };
    let wait_ms = first.map_or(HOUR_MS, |f| f + HOUR_MS - now);
    let secs = u64::try_from((wait_ms + 999) / 1000).unwrap_or(1).max(1);
    Err(WebError::TooMany {
        msg: format!(
            "the quota of {} uploads an hour is used up: try again in {secs} s",
            account.uploads_per_hour
        ),
        retry_after: secs,
    })
}

fn too_large(limit: u64) -> WebError {
    WebError::TooLarge(format!(
        "the bundle is larger than the limit of {limit} bytes"
    ))
}

/// Appends `chunk` to `buf` unless that passes `limit`.
///
/// # Errors
/// 413 once the bytes pass the limit.
pub fn push_limited(buf: &mut Vec<u8>, chunk: &[u8], limit: u64) -> Result<(), WebError> {
    if (buf.len() + chunk.len()) as u64 > limit {
        return Err(too_large(limit));
    }
    buf.extend_from_slice(chunk);
    Ok(())
}

/// The request's body, refused (413) as soon as it passes `limit` bytes, or at once when its
/// `Content-Length` says it will.
///
/// # Errors
/// 413 past the limit; 400 when the body breaks off.
pub async fn read_body(
    body: Body,
    content_length: Option<u64>,
    limit: u64,
) -> Result<Vec<u8>, WebError> {
    if content_length.is_some_and(|n| n > limit) {
        return Err(too_large(limit));
    }
    let mut buf = Vec::with_capacity(content_length.unwrap_or(0).min(limit) as usize);
    let mut stream = body.into_data_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| WebError::BadRequest(format!("reading the body: {e}")))?;
        push_limited(&mut buf, &chunk, limit)?;
    }
    Ok(buf)
}

/// Checks an explicit name: the arena's rules for names, and not another account's bot.
async fn check_name(ctx: &Ctx, account: &Account, name: &str) -> Result<(), WebError> {
    if let Some(why) = pitboss_arena::name::problem(name) {
        return Err(WebError::BadRequest(format!("bot name {why}")));
    }
    match ctx.app.store.bot_by_name(name).await? {
        Some(b) if b.owner != Some(account.id) => Err(not_yours(name)),
        _ => Ok(()),
    }
}

fn not_yours(name: &str) -> WebError {
    WebError::Forbidden(format!(
        "the bot name {name} belongs to another account (or is a reference bot): choose another"
    ))
}

/// Validates and records an upload of `bytes` by `account` (quota and size already checked).
///
/// # Errors
/// 400 for a bad archive or name, 403 for another account's name, 500 on a server failure.
pub async fn accept(
    ctx: &Ctx,
    account: &Account,
    name: Option<String>,
    bytes: Vec<u8>,
) -> Result<Created, WebError> {
    let store = &ctx.app.store;
    let name = name.map(|n| n.trim().to_string()).filter(|n| !n.is_empty());
    if let Some(n) = &name {
        check_name(ctx, account, n).await?;
    }
    if bytes.is_empty() {
        return Err(WebError::BadRequest(
            "the body is empty: send the archive".into(),
        ));
    }
    if pitboss_bundle::detect(&bytes).is_none() {
        return Err(WebError::BadRequest(
            "not a tar, tar.gz, tar.zst or zip archive".into(),
        ));
    }
    let limits = pitboss_bundle::Limits {
        max_archive_bytes: limit(ctx, account),
        ..pitboss_bundle::Limits::default()
    };
    let dest = ctx
        .app
        .files
        .root()
        .join("tmp")
        .join(format!("upload-{}", crate::auth::random_hex(12)));
    let (bytes, unpacked) = tokio::task::spawn_blocking(move || {
        let r = pitboss_bundle::unpack(&bytes, &dest, &limits);
        // Only validation and the manifest's name were wanted: the worker unpacks its own copy.
        let _ = std::fs::remove_dir_all(&dest);
        (bytes, r)
    })
    .await
    .map_err(|e| WebError::Internal(format!("unpacking: {e}")))?;
    let unpacked = unpacked.map_err(|e| WebError::BadRequest(format!("bundle refused: {e}")))?;
    let name = match name {
        Some(n) => n,
        None => {
            let n = unpacked.manifest_name.ok_or_else(|| {
                WebError::BadRequest(
                    "no name: give one (`?name=NAME`) or a `name` in the bundle's bot.toml".into(),
                )
            })?;
            check_name(ctx, account, &n).await?;
            n
        }
    };
    let sha = pitboss_bundle::sha256_hex(&bytes);
    let size = bytes.len() as i64;
    let files = ctx.app.files.clone();
    let sha2 = sha.clone();
    tokio::task::spawn_blocking(move || files.put_bundle(&sha2, &bytes))
        .await
        .map_err(|e| WebError::Internal(format!("storing the bundle: {e}")))??;
    let version = store
        .new_version(account.id, &name, &sha, size)
        .await?
        .map_err(|_| not_yours(&name))?;
    ctx.app.wake.notify_one();
    Ok(Created {
        url: format!("/bots/{}", crate::views::seg(&name)),
        bot: name,
        version: version.number,
        state: "pending",
    })
}
