//! `/matches/{id}`: a match's result with its interval, both bots, the preset and the first hands
//! (links to the viewer), and the download of its hand history. The seed is never shown: with
//! the service's secret it would deal the match's cards again.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use maud::{html, Markup};
use pitboss_phh::ReadHand;
use pitboss_store::Match;

use super::{bounds, layout, signed, version_link, when};
use crate::board::Board;
use crate::ctx::Ctx;
use crate::error::{PageError, WebError};
use crate::phh_cache::{hands, history_path, match_row, read_text};

/// Hands listed on the match page.
pub const LISTED: usize = 50;

/// `/matches/{id}`.
pub async fn page(State(ctx): State<Arc<Ctx>>, Path(id): Path<i64>) -> Result<Response, PageError> {
    let m = match_row(&ctx, id).await?;
    let board = ctx.board();
    let list = match history_path(&ctx, &m) {
        Some(_) => Some(hands(&ctx, &m).await?),
        None => None,
    };
    let body = html! {
        h1 { "Match #" (m.id) }
        (facts(&board, &m))
        h2 { "Hands" }
        @match &list {
            Some(h) => {
                p {
                    "Download the hand history (PHH): "
                    a href={ "/matches/" (m.id) "/hands.phhs" } download { "hands.phhs" }
                    " · "
                    a href={ "/matches/" (m.id) "/hands.phhs.zst" } download { "hands.phhs.zst" }
                }
                (hand_list(m.id, h))
            }
            None => { p.muted { "No hand history (yet)." } }
        }
    };
    Ok(layout(&format!("Match #{}", m.id), body).into_response())
}

fn facts(b: &Board, m: &Match) -> Markup {
    html! {
        dl.facts.match {
            dt { "Bots" } dd { (version_link(b, m.a)) " vs " (version_link(b, m.b)) }
            dt { "Preset" } dd { a href={ "/presets/" (super::seg(&m.preset)) } { (m.preset) } }
            dt { "Kind" } dd { (m.kind.as_str()) }
            dt { "State" } dd #state { (m.state.as_str()) }
            dt { "Hands" } dd { (m.hands) }
            dt { "Created" } dd { (when(m.created_at)) }
            @if let Some(t) = m.finished_at { dt { "Finished" } dd { (when(t)) } }
            @if let Some(o) = &m.outcome {
                @let (lo, hi) = (o.mean - 1.96 * o.se, o.mean + 1.96 * o.se);
                dt { "Result" }
                dd #result {
                    (super::label(b, m.a)) " " (signed(Some(o.mean))) " mbb/hand, 95% "
                    (bounds(lo, hi)) " (luck-adjusted; " (signed(Some(o.raw_mean)))
                    " without the adjustment)"
                }
                dt { "Played" } dd { (o.played) " hands in " (o.units) " duplicate units, "
                    (format!("{:.1}", o.elapsed_ms as f64 / 1000.0)) " s" }
            }
            @if !m.error.is_empty() { dt { "Error" } dd.error { (m.error) } }
        }
    }
}

fn net(h: &ReadHand) -> Vec<(String, i64)> {
    let names = h.hand.players.clone().unwrap_or_default();
    let fin = h.hand.finishing_stacks.clone().unwrap_or_default();
    h.hand
        .starting_stacks
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let name = names
                .get(i)
                .cloned()
                .unwrap_or_else(|| format!("p{}", i + 1));
            let end = fin.get(i).copied().unwrap_or(*s);
            (name, end as i64 - *s as i64)
        })
        .collect()
}

fn hand_list(id: i64, hands: &[ReadHand]) -> Markup {
    html! {
        p.muted { (hands.len()) " hands kept; the first " (LISTED.min(hands.len())) ":" }
        table.hands {
            thead { tr { th.num { "Hand" } th { "Game" } th { "Result (chips)" } } }
            tbody { @for (k, h) in hands.iter().take(LISTED).enumerate() { tr {
                td.num { a href={ "/matches/" (id) "/hands/" (k + 1) } { (k + 1) } }
                td { (h.hand.variant) }
                td { @for (i, (name, d)) in net(h).iter().enumerate() {
                    @if i > 0 { ", " } (name) " " (format!("{d:+}"))
                } }
            } } }
        }
    }
}

/// `/matches/{id}/hands.phhs`: the history as text.
pub async fn download_plain(
    State(ctx): State<Arc<Ctx>>,
    Path(id): Path<i64>,
) -> Result<Response, PageError> {
    let m = match_row(&ctx, id).await?;
    let path = history_path(&ctx, &m)
        .ok_or_else(|| WebError::NotFound("this match kept no hand history".into()))?;
    let text = tokio::task::spawn_blocking(move || read_text(&path))
        .await
        .map_err(|e| WebError::Internal(e.to_string()))??;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "text/plain; charset=utf-8".to_string(),
            ),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"match-{id}.phhs\""),
            ),
        ],
        text,
    )
        .into_response())
}

/// `/matches/{id}/hands.phhs.zst`: the history as kept (compressed when the service keeps it so).
pub async fn download_zst(
    State(ctx): State<Arc<Ctx>>,
    Path(id): Path<i64>,
) -> Result<Response, PageError> {
    let m = match_row(&ctx, id).await?;
    let path = history_path(&ctx, &m)
        .ok_or_else(|| WebError::NotFound("this match kept no hand history".into()))?;
    let compressed = path.extension().is_some_and(|e| e == "zst");
    let bytes = tokio::fs::read(&path)
        .await
        .map_err(|e| WebError::Internal(format!("{}: {e}", path.display())))?;
    let bytes = if compressed {
        bytes
    } else {
        zstd::encode_all(bytes.as_slice(), 3).map_err(|e| WebError::Internal(e.to_string()))?
    };
    Ok((
        [
            (header::CONTENT_TYPE, "application/zstd".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"match-{id}.phhs.zst\""),
            ),
        ],
        bytes,
    )
        .into_response())
}
