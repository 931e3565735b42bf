//! `/bots/{name}`: a bot's versions with their states and ratings over time, the crosstable of its
//! current version against every opponent, its play statistics and faults, the verdict against
//! its predecessor, recent matches, and for its owner only the build and check logs.

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use maud::{html, Markup};
use pitboss_store::{Match, Version, VersionState};

use super::{
    bounds, fragment, head_to_head, page as html_page, percent, plus_minus, signed, version_link,
    when, Fragment,
};
use crate::board::{Board, RatingRow, OVERALL};
use crate::ctx::Ctx;
use crate::error::{PageError, WebError};

mod history;

/// Matches listed on the page.
const RECENT: i64 = 20;

/// What the page shows of one bot, read once per request.
pub(crate) struct BotData {
    pub bot: pitboss_store::Bot,
    /// Newest first, states from the database (fresher than the board).
    pub versions: Vec<Version>,
    /// The active version, else the newest.
    pub current: Option<i64>,
    pub recent: Vec<Match>,
}

/// Reads a bot's rows; 404 when there is no such bot.
pub(crate) async fn load(ctx: &Ctx, name: &str) -> Result<BotData, WebError> {
    let store = &ctx.app.store;
    let bot = store
        .bot_by_name(name)
        .await?
        .ok_or_else(|| WebError::NotFound("no bot of that name".into()))?;
    let versions = store.bot_versions(bot.id).await?;
    let current = versions
        .iter()
        .find(|v| v.state == VersionState::Active)
        .or(versions.first())
        .map(|v| v.id);
    let recent = match current {
        Some(v) => store.recent_matches(Some(v), RECENT).await?,
        None => Vec::new(),
    };
    Ok(BotData {
        bot,
        versions,
        current,
        recent,
    })
}

/// A version's overall rating: on the leaderboard while active, its last one once retired.
pub(crate) fn rating(b: &Board, id: i64) -> Option<&RatingRow> {
    b.tables
        .get(OVERALL)
        .and_then(|t| t.iter().find(|r| r.version == id))
        .or_else(|| b.retired.get(&id))
}

/// `/bots/{name}`.
pub async fn page(
    State(ctx): State<Arc<Ctx>>,
    Path(name): Path<String>,
    Query(f): Query<Fragment>,
    headers: HeaderMap,
) -> Result<Response, PageError> {
    let data = load(&ctx, &name).await?;
    let board = ctx.board();
    let live = live(&board, &data).into_string();
    if f.fragment.is_some() {
        return Ok(fragment(live));
    }
    let viewer = crate::auth::session(&ctx, &headers).await?;
    let owner = matches!((&viewer, data.bot.owner), (Some((a, _)), Some(o)) if a.id == o);
    let mut logs = Vec::new();
    if owner {
        for v in &data.versions {
            logs.push((v, ctx.app.store.version_log(v.id).await?));
        }
    }
    let body = html! {
        h1 { "Bot " (data.bot.name) }
        @if data.bot.owner.is_none() { p.muted { "A reference bot of the house." } }
        div #bot data-live="bot" { (super::trusted(&live)) }
        @if owner {
            h2 { "Build and check logs" }
            p.muted { "Only you (the bot's owner) see these." }
            @for (i, (v, log)) in logs.iter().enumerate() {
                details.log open[i == 0] {
                    summary { (v.label()) " · " (v.state.as_str()) }
                    @if log.is_empty() { p.muted { "No log yet." } }
                    @else { pre.log { (log) } }
                }
            }
        }
    };
    Ok(html_page(&data.bot.name, Some(board.generation), &[], body).into_response())
}

/// The part of the page the board changes.
fn live(b: &Board, d: &BotData) -> Markup {
    html! {
        h2 { "Versions" }
        (versions(b, d))
        @if !d.versions.is_empty() {
            h2 { "Rating over time" }
            (history::chart(b, &d.versions))
        }
        @if let Some(v) = d.current {
            h2 { "Crosstable of " (super::label(b, v)) }
            (crosstable(b, v))
            h2 { "Play statistics of " (super::label(b, v)) }
            (stats(b, v))
            h2 { "Recent matches" }
            (recent(b, v, &d.recent))
        }
    }
}

fn versions(b: &Board, d: &BotData) -> Markup {
    html! {
        table.versions {
            thead { tr {
                th { "Version" } th { "State" } th { "Uploaded" } th.num { "Rating" }
                th.num { "95%" } th.num { "Rank" } th { "Against its predecessor" }
            } }
            tbody { @for v in &d.versions {
                @let r = rating(b, v.id);
                tr data-version=(v.id) {
                    td { (v.label()) }
                    td class={ "state-" (v.state.as_str()) } { (v.state.as_str()) }
                    td { (when(v.created_at)) }
                    td.num { (signed(r.and_then(|r| r.rating))) }
                    td.num { (plus_minus(r.and_then(|r| r.low), r.and_then(|r| r.high))) }
                    td.num {
                        @match r {
                            Some(RatingRow { rank: Some(k), .. }) => { (k) }
                            Some(RatingRow { provisional: true, .. }) => {
                                span.badge.provisional { "provisional" }
                            }
                            _ => { "–" }
                        }
                    }
                    td {
                        @if let Some(c) = b.comparisons.get(&v.id) {
                            span class={ "verdict verdict-" (c.verdict.replace(' ', "-")) } {
                                (c.verdict)
                            }
                            " than " (version_link(b, c.old)) ": " (signed(Some(c.mean)))
                            " " (bounds(c.low, c.high)) " mbb/hand, " (c.matches) " matches"
                        } @else { span.muted { "–" } }
                    }
                }
            } }
        }
    }
}

fn crosstable(b: &Board, v: i64) -> Markup {
    let mut opponents: Vec<i64> = b
        .cross
        .iter()
        .filter_map(|c| match (c.a == v, c.b == v) {
            (true, false) => Some(c.b),
            (false, true) => Some(c.a),
            _ => None,
        })
        .collect();
    opponents.sort_unstable();
    opponents.dedup();
    let mut cols: Vec<Option<&str>> = vec![None];
    cols.extend(b.presets.iter().map(|p| Some(p.as_str())));
    html! {
        @if opponents.is_empty() {
            p.muted { "No matches finished yet." }
        } @else {
            p.muted { "Result against each opponent, mbb/hand (luck-adjusted), 95% interval, matches." }
            table.crosstable {
                thead { tr {
                    th { "Opponent" }
                    @for c in &cols { th.num { (c.unwrap_or("All presets")) } }
                } }
                tbody { @for o in &opponents { tr data-opponent=(o) {
                    td { (version_link(b, *o)) }
                    @for c in &cols {
                        @if let Some(x) = head_to_head(b, v, *o, *c) {
                            td.num title=(bounds(x.low, x.high)) {
                                (signed(Some(x.mean))) " " (plus_minus(Some(x.low), Some(x.high)))
                                " " span.muted { "(" (x.matches) ")" }
                            }
                        } @else { td.num.muted { "–" } }
                    }
                } } }
            }
        }
    }
}

fn stats(b: &Board, v: i64) -> Markup {
    let Some(s) = b.stats.get(&v) else {
        return html! { p.muted { "No hands played yet." } };
    };
    html! {
        dl.facts.stats {
            dt { "Hands" } dd { (s.hands) }
            dt { "VPIP" } dd { (percent(s.vpip)) }
            dt { "Aggression" } dd { (format!("{:.2}", s.aggression)) }
            dt { "Went to showdown" } dd { (percent(s.went_to_showdown)) }
            dt { "Won at showdown" } dd { (percent(s.won_at_showdown)) }
            dt { "Fold to a bet" } dd { (percent(s.fold_to_bet)) }
        }
        h2 { "Faults" }
        @if s.faults.is_empty() { p.muted { "None." } }
        @else {
            table.faults {
                thead { tr { th { "Reason" } th.num { "Count" } } }
                tbody { @for (kind, n) in &s.faults { tr { td { (kind) } td.num { (n) } } } }
            }
        }
    }
}

fn recent(b: &Board, v: i64, ms: &[Match]) -> Markup {
    html! {
        @if ms.is_empty() { p.muted { "No matches yet." } }
        @else {
            table.matches {
                thead { tr {
                    th { "Match" } th { "Preset" } th { "Opponent" } th { "State" }
                    th.num { "Result (mbb/hand)" } th.num { "Hands" } th { "Finished" }
                } }
                tbody { @for m in ms {
                    @let sign = if m.a == v { 1.0 } else { -1.0 };
                    @let opp = if m.a == v { m.b } else { m.a };
                    tr {
                        td { a href={ "/matches/" (m.id) } { "#" (m.id) } }
                        td { (m.preset) }
                        td { (version_link(b, opp)) }
                        td { (m.state.as_str()) }
                        td.num {
                            @if let Some(o) = &m.outcome {
                                (signed(Some(sign * o.mean))) " ± " (format!("{:.1}", 1.96 * o.se))
                            } @else { "–" }
                        }
                        td.num { @if let Some(o) = &m.outcome { (o.played) } @else { "–" } }
                        td { @if let Some(t) = m.finished_at { (when(t)) } }
                    }
                } }
            }
        }
    }
}
