//! The leaderboards: `/` (overall and one table per preset) and `/presets/{preset}` (one preset
//! with its crosstable). Rendered from the board snapshot only, never the database, and once per
//! board generation (the cache in [`Ctx`]): the leaderboard must answer in milliseconds under
//! load while matches play.

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Response};
use maud::{html, Markup};

use super::{fragment, page, plus_minus, seg, signed, trusted, version_link, Fragment};
use crate::board::{Board, RatingRow, OVERALL};
use crate::ctx::Ctx;
use crate::error::{PageError, WebError};

/// `/`.
pub async fn home(State(ctx): State<Arc<Ctx>>, Query(f): Query<Fragment>) -> Response {
    if f.fragment.is_some() {
        return fragment(ctx.cached("home#board", home_live));
    }
    let html = ctx.cached("home", |b| {
        let live = home_live(b);
        page(
            "Leaderboard",
            Some(b.generation),
            &[],
            html! {
                h1 { "Leaderboard" }
                div #board data-live="board" { (trusted(&live)) }
            },
        )
        .0
    });
    axum::response::Html(html).into_response()
}

fn home_live(b: &Board) -> String {
    html! {
        p.muted #summary {
            (b.matches) " matches and " (b.hands) " hands played"
            @if b.updated_at > 0 { " · updated " (super::when(b.updated_at)) }
            " · board " span #generation { (b.generation) }
        }
        h2 { "Overall" }
        (table(b, OVERALL))
        @for p in &b.presets {
            h2 { a href={ "/presets/" (seg(p)) } { (p) } }
            (table(b, p))
        }
    }
    .into_string()
}

/// `/presets/{preset}`.
pub async fn preset(
    State(ctx): State<Arc<Ctx>>,
    Path(preset): Path<String>,
    Query(f): Query<Fragment>,
) -> Result<Response, PageError> {
    let board = ctx.board();
    if !board.presets.contains(&preset) && !board.tables.contains_key(&preset) {
        return Err(WebError::NotFound("no such preset on the ladder".into()).into());
    }
    let live_key = format!("preset#{preset}");
    if f.fragment.is_some() {
        return Ok(fragment(ctx.cached(&live_key, |b| preset_live(b, &preset))));
    }
    let html = ctx.cached(&format!("preset:{preset}"), |b| {
        let live = preset_live(b, &preset);
        page(
            &preset,
            Some(b.generation),
            &[],
            html! {
                h1 { "Preset " (preset) }
                p { a href="/" { "All presets" } }
                div #board data-live="board" { (trusted(&live)) }
            },
        )
        .0
    });
    Ok(axum::response::Html(html).into_response())
}

fn preset_live(b: &Board, preset: &str) -> String {
    let rows = b.tables.get(preset).map(Vec::as_slice).unwrap_or(&[]);
    html! {
        p.muted { "board " span #generation { (b.generation) } }
        (table(b, preset))
        h2 { "Crosstable" }
        p.muted { "Row's result against the column, mbb/hand (luck-adjusted), with matches played." }
        (matrix(b, preset, rows))
    }
    .into_string()
}

/// One leaderboard.
pub fn table(b: &Board, name: &str) -> Markup {
    let rows = b.tables.get(name).map(Vec::as_slice).unwrap_or(&[]);
    html! {
        @if rows.is_empty() {
            p.muted { "No ratings yet: the first matches are being played." }
        } @else {
            table.leaderboard data-table=(name) {
                thead { tr {
                    th.num { "Rank" } th { "Bot" } th.num { "Rating (mbb/hand)" }
                    th.num { "95%" } th.num { "Matches" } th.num { "Hands" } th {}
                } }
                tbody { @for r in rows { (row(b, r)) } }
            }
        }
    }
}

fn row(b: &Board, r: &RatingRow) -> Markup {
    html! {
        tr.provisional[r.provisional] data-version=(r.version) {
            td.num { @if let Some(k) = r.rank { (k) } @else { "–" } }
            td { (version_link(b, r.version)) }
            td.num { (signed(r.rating)) }
            td.num { (plus_minus(r.low, r.high)) }
            td.num { (r.matches) }
            td.num { (r.hands) }
            td { @if r.provisional { span.badge.provisional { "provisional" } } }
        }
    }
}

/// The crosstable of one preset among the versions of its table.
fn matrix(b: &Board, preset: &str, rows: &[RatingRow]) -> Markup {
    let ids: Vec<i64> = rows.iter().map(|r| r.version).collect();
    let cell = |a: i64, o: i64| super::head_to_head(b, a, o, Some(preset));
    html! {
        @if ids.len() < 2 {
            p.muted { "Not enough bots yet." }
        } @else {
            table.crosstable {
                thead { tr { th {} @for o in &ids { th.num { (version_link(b, *o)) } } } }
                tbody { @for a in &ids { tr {
                    th { (version_link(b, *a)) }
                    @for o in &ids {
                        @if a == o { td.num.muted { "·" } }
                        @else if let Some(c) = cell(*a, *o) {
                            td.num title=(super::bounds(c.low, c.high)) {
                                (signed(Some(c.mean))) " " span.muted { "(" (c.matches) ")" }
                            }
                        } @else { td.num.muted { "–" } }
                    }
                } } }
            }
        }
    }
}
