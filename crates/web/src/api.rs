//! The JSON API (documented in `docs/API.md`). Reads are open; an upload and a version's log take
//! `Authorization: Bearer TOKEN` and nothing else (no cookie is ever looked at here, so no other
//! site can make a browser call the API as its user). Errors are `{"error": "..."}`.
//!
//! What is never in an answer: a match's seed (the answers are built field by field, not from
//! the store's rows), a token, a log to anyone but the bot's owner.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::board::{Board, RatingRow, OVERALL};
use crate::ctx::Ctx;
use crate::error::{ApiError, WebError};
use crate::phh_cache::{history_path, match_row};
use crate::upload;

#[derive(Deserialize)]
pub struct PresetQuery {
    preset: Option<String>,
}

fn rows(b: &Board, rows: &[RatingRow]) -> Value {
    Value::Array(
        rows.iter()
            .map(|r| {
                let v = b.versions.get(&r.version);
                json!({
                    "rank": r.rank,
                    "bot": v.map(|v| v.bot.as_str()),
                    "label": v.map(|v| v.label.as_str()),
                    "version": r.version,
                    "rating": r.rating,
                    "low": r.low,
                    "high": r.high,
                    "matches": r.matches,
                    "hands": r.hands,
                    "provisional": r.provisional,
                })
            })
            .collect(),
    )
}

fn json_text(text: axum::body::Bytes) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], text).into_response()
}

/// `GET /api/leaderboard[?preset=P]`: one table, or (without `preset`) every table.
pub async fn leaderboard(
    State(ctx): State<Arc<Ctx>>,
    Query(q): Query<PresetQuery>,
) -> Result<Response, ApiError> {
    let board = ctx.board();
    match q.preset {
        Some(p) => {
            if !board.tables.contains_key(&p) && !board.presets.contains(&p) {
                return Err(WebError::NotFound("no such preset on the ladder".into()).into());
            }
            let text = ctx.cached(&format!("api:leaderboard:{p}"), |b| {
                let t = b.tables.get(&p).map(Vec::as_slice).unwrap_or(&[]);
                json!({
                    "generation": b.generation,
                    "updated_at": b.updated_at,
                    "preset": p,
                    "rows": rows(b, t),
                })
                .to_string()
            });
            Ok(json_text(text))
        }
        None => {
            let text = ctx.cached("api:leaderboard", |b| {
                let mut tables = serde_json::Map::new();
                for (name, t) in &b.tables {
                    tables.insert(name.clone(), rows(b, t));
                }
                json!({
                    "generation": b.generation,
                    "updated_at": b.updated_at,
                    "overall": OVERALL,
                    "presets": b.presets,
                    "matches": b.matches,
                    "hands": b.hands,
                    "tables": tables,
                })
                .to_string()
            });
            Ok(json_text(text))
        }
    }
}

/// `GET /api/bots/{name}`.
pub async fn bot(
    State(ctx): State<Arc<Ctx>>,
    Path(name): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let d = crate::views::bot::load(&ctx, &name).await?;
    let b = ctx.board();
    let versions: Vec<Value> = d
        .versions
        .iter()
        .map(|v| {
            json!({
                "id": v.id,
                "label": v.label(),
                "number": v.number,
                "state": v.state.as_str(),
                "created_at": v.created_at,
                "checked_at": v.checked_at,
                "rating": crate::views::bot::rating(&b, v.id),
                "predecessor": b.comparisons.get(&v.id),
                "stats": b.stats.get(&v.id),
                "history": b.history.get(&v.id),
            })
        })
        .collect();
    let cross: Vec<_> = match d.current {
        Some(v) => b.cross.iter().filter(|c| c.a == v || c.b == v).collect(),
        None => Vec::new(),
    };
    let recent: Vec<Value> = d.recent.iter().map(|m| match_json(&ctx, &b, m)).collect();
    Ok(Json(json!({
        "bot": d.bot.name,
        "reference": d.bot.owner.is_none(),
        "current": d.current,
        "versions": versions,
        "crosstable": cross,
        "recent_matches": recent,
    })))
}

/// A match as the API shows it: never its seed.
fn match_json(ctx: &Ctx, b: &Board, m: &pitboss_store::Match) -> Value {
    let side = |id: i64| {
        let v = b.versions.get(&id);
        json!({ "version": id, "bot": v.map(|v| &v.bot), "label": v.map(|v| &v.label) })
    };
    let result = m.outcome.as_ref().map(|o| {
        json!({
            "mean": o.mean,
            "se": o.se,
            "low": o.mean - 1.96 * o.se,
            "high": o.mean + 1.96 * o.se,
            "raw_mean": o.raw_mean,
            "units": o.units,
            "played": o.played,
            "elapsed_ms": o.elapsed_ms,
        })
    });
    let history = history_path(ctx, m).map(|_| format!("/matches/{}/hands.phhs", m.id));
    json!({
        "id": m.id,
        "preset": m.preset,
        "kind": m.kind.as_str(),
        "a": side(m.a),
        "b": side(m.b),
        "hands": m.hands,
        "state": m.state.as_str(),
        "created_at": m.created_at,
        "started_at": m.started_at,
        "finished_at": m.finished_at,
        "error": m.error,
        "result": result,
        "history": history,
        "url": format!("/matches/{}", m.id),
    })
}

/// `GET /api/matches/{id}`.
pub async fn match_(
    State(ctx): State<Arc<Ctx>>,
    Path(id): Path<i64>,
) -> Result<Json<Value>, ApiError> {
    let m = match_row(&ctx, id).await?;
    Ok(Json(match_json(&ctx, &ctx.board(), &m)))
}

/// `GET /api/matches/{id}/hands/{n}`: the viewer's frames of hand `n` (1-based).
pub async fn hand(
    State(ctx): State<Arc<Ctx>>,
    Path((id, n)): Path<(i64, usize)>,
) -> Result<Json<pitboss_phh::frames::Viewer>, ApiError> {
    let (v, _) = crate::views::viewer::hand_frames(&ctx, id, n).await?;
    Ok(Json(v))
}

/// `GET /api/status`.
pub async fn status(State(ctx): State<Arc<Ctx>>) -> Result<Json<Value>, ApiError> {
    let c = ctx.app.store.counts().await?;
    let b = ctx.board();
    let workers: Vec<Value> = ctx
        .app
        .store
        .in_flight()
        .await?
        .iter()
        .filter(|m| m.state == pitboss_store::MatchState::Running)
        .map(|m| {
            json!({
                "worker": m.worker,
                "match": m.id,
                "preset": m.preset,
                "a": m.a,
                "b": m.b,
                "started_at": m.started_at,
                "delivery": m.delivery,
            })
        })
        .collect();
    let flags = ctx
        .app
        .store
        .worker_flags(crate::views::operator::FLAGS_SHOWN)
        .await?;
    Ok(Json(json!({
        "generation": b.generation,
        "queue": c,
        "hands_per_second": c.hands_last_minute as f64 / 60.0,
        "running": workers,
        "worker_flags": flags,
    })))
}

#[derive(Deserialize)]
pub struct UploadQuery {
    name: Option<String>,
}

/// `POST /api/bots[?name=NAME]`: the body is the archive.
pub async fn upload(
    State(ctx): State<Arc<Ctx>>,
    Query(q): Query<UploadQuery>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let account = crate::auth::bearer(&ctx, &headers).await?;
    upload::check_quota(&ctx, &account).await?;
    let limit = upload::limit(&ctx, &account);
    let length = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok());
    let bytes = upload::read_body(body, length, limit).await?;
    let c = upload::accept(&ctx, &account, q.name, bytes).await?;
    Ok((
        StatusCode::CREATED,
        [(header::LOCATION, c.url.clone())],
        Json(json!(c)),
    )
        .into_response())
}

/// `GET /api/bots/{name}/versions/{n}/log`: the build and check log, for the bot's owner only.
pub async fn log(
    State(ctx): State<Arc<Ctx>>,
    Path((name, n)): Path<(String, i64)>,
    headers: HeaderMap,
) -> Result<Json<Value>, ApiError> {
    let account = crate::auth::bearer(&ctx, &headers).await?;
    let store = &ctx.app.store;
    let bot = store
        .bot_by_name(&name)
        .await?
        .ok_or_else(|| WebError::NotFound("no bot of that name".into()))?;
    if bot.owner != Some(account.id) {
        return Err(WebError::Forbidden("only the bot's owner sees its logs".into()).into());
    }
    let v = store
        .bot_versions(bot.id)
        .await?
        .into_iter()
        .find(|v| v.number == n)
        .ok_or_else(|| WebError::NotFound("no such version".into()))?;
    let log = store.version_log(v.id).await?;
    Ok(Json(json!({
        "bot": bot.name,
        "version": v.number,
        "state": v.state.as_str(),
        "log": log,
    })))
}
