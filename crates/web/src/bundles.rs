//! `GET /api/bundles/{sha256}`: a bundle's bytes for a remote worker (`pitboss worker`), which
//! fetches by hash the versions it must build and play. Only a **worker token** opens it (made by
//! `pitboss token worker create`; an author's token never does: a bundle is its author's code).
//! The worker checks the SHA-256 of what arrives; the server only serves what it stored under it.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};

use crate::ctx::Ctx;
use crate::error::{ApiError, WebError};

fn is_sha256(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// `GET /api/bundles/{sha256}` with `Authorization: Bearer WORKER-TOKEN`.
pub async fn get(
    State(ctx): State<Arc<Ctx>>,
    Path(sha): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .unwrap_or("");
    if ctx.app.store.worker_by_token(token).await?.is_none() {
        return Err(WebError::Unauthorized("a worker token is needed".into()).into());
    }
    if !is_sha256(&sha) {
        return Err(WebError::BadRequest("a SHA-256 in lowercase hex".into()).into());
    }
    let path = ctx.app.files.bundle(&sha);
    let bytes = match tokio::fs::read(&path).await {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(WebError::NotFound(format!("no bundle {sha}")).into())
        }
        Err(e) => return Err(WebError::Internal(format!("{}: {e}", path.display())).into()),
    };
    let mut r = bytes.into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    Ok(r)
}
