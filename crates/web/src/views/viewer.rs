//! `/matches/{id}/hands/{n}`: the hand viewer. The page carries the hand's frames as JSON in a
//! `<script type="application/json">` element (data, not code: the Content-Security-Policy holds;
//! every `<` is escaped so no player name can end the element) and loads the viewer's script and
//! style from `/assets`. The frames show each seat's cards as that seat saw them and everything
//! at the end: the hand is over when anyone can ask for it.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use maud::{html, PreEscaped};
use pitboss_phh::frames::{frames, to_script_json, Viewer};

use super::page as html_page;
use crate::ctx::Ctx;
use crate::error::{PageError, WebError};
use crate::phh_cache::{hands, match_row};

/// The frames of hand `n` (1-based) of match `id`.
pub async fn hand_frames(ctx: &Ctx, id: i64, n: usize) -> Result<(Viewer, usize), WebError> {
    let m = match_row(ctx, id).await?;
    let all = hands(ctx, &m).await?;
    let read = n
        .checked_sub(1)
        .and_then(|k| all.get(k))
        .ok_or_else(|| WebError::NotFound(format!("the match has {} hands", all.len())))?;
    let replayed = pitboss_phh::replay(read)
        .map_err(|e| WebError::Internal(format!("replaying hand {n} of match {id}: {e}")))?;
    Ok((frames(&replayed), all.len()))
}

/// `/matches/{id}/hands/{n}`.
pub async fn page(
    State(ctx): State<Arc<Ctx>>,
    Path((id, n)): Path<(i64, usize)>,
) -> Result<Response, PageError> {
    let (viewer, count) = hand_frames(&ctx, id, n).await?;
    let json = to_script_json(&viewer);
    let body = html! {
        h1 { "Match #" (id) " · hand " (n) " of " (count) }
        p.hand-nav {
            a href={ "/matches/" (id) } { "Back to the match" }
            @if n > 1 { " · " a #prev-hand href={ "/matches/" (id) "/hands/" (n - 1) } { "previous hand" } }
            @if n < count { " · " a #next-hand href={ "/matches/" (id) "/hands/" (n + 1) } { "next hand" } }
            " · " a href={ "/api/matches/" (id) "/hands/" (n) } { "frames (JSON)" }
        }
        div #viewer {}
        script type="application/json" id="hand-data" { (PreEscaped(json)) }
        script src="/assets/viewer.js" defer {}
    };
    Ok(html_page(
        &format!("Match #{id}, hand {n}"),
        None,
        &["/assets/viewer.css"],
        body,
    )
    .into_response())
}
