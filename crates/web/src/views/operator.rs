//! `/operator`: the queue (matches and checks), hands per second, which worker plays what (on a
//! queue: the worker that started the job's latest delivery, and that delivery's number), and
//! the workers whose results the audit refused.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use maud::{html, Markup};
use pitboss_store::{MatchState, QueueCounts, WorkerFlag};

use super::{fragment, page as html_page, version_link, when, Fragment};
use crate::board::Board;
use crate::ctx::Ctx;
use crate::error::PageError;

/// `/operator`.
pub async fn page(
    State(ctx): State<Arc<Ctx>>,
    Query(f): Query<Fragment>,
) -> Result<Response, PageError> {
    let counts = ctx.app.store.counts().await?;
    let flying = ctx.app.store.in_flight().await?;
    let flags = ctx.app.store.worker_flags(FLAGS_SHOWN).await?;
    // Failures with their reasons (a parked job of a queue, a match that could not be played).
    let failed: Vec<pitboss_store::Match> = ctx
        .app
        .store
        .recent_matches(None, 500)
        .await?
        .into_iter()
        .filter(|m| m.state == MatchState::Failed)
        .take(20)
        .collect();
    let board = ctx.board();
    let live = live(&board, &counts, &flying, &flags, &failed).into_string();
    if f.fragment.is_some() {
        return Ok(fragment(live));
    }
    let body = html! {
        h1 { "Operator" }
        div #operator data-live="operator" { (super::trusted(&live)) }
    };
    Ok(html_page("Operator", Some(board.generation), &[], body).into_response())
}

/// The latest refused results shown (and served by `/api/status`).
pub const FLAGS_SHOWN: i64 = 20;

fn live(
    b: &Board,
    c: &QueueCounts,
    flying: &[pitboss_store::Match],
    flags: &[WorkerFlag],
    failed: &[pitboss_store::Match],
) -> Markup {
    let mut workers: BTreeMap<&str, Vec<&pitboss_store::Match>> = BTreeMap::new();
    for m in flying.iter().filter(|m| m.state == MatchState::Running) {
        workers.entry(m.worker.as_str()).or_default().push(m);
    }
    html! {
        h2 { "Queue" }
        dl.facts.counts {
            dt { "Matches queued" } dd #queued { (c.queued) }
            dt { "Matches running" } dd #running { (c.running) }
            dt { "Matches done" } dd #done { (c.done) }
            dt { "Matches failed" } dd #failed { (c.failed) }
            dt { "Versions waiting for their check" } dd { (c.pending_versions) }
            dt { "Versions being checked" } dd { (c.checking_versions) }
            dt { "Hands per second (last minute)" }
            dd #hands-per-second { (format!("{:.1}", c.hands_last_minute as f64 / 60.0)) }
            dt { "Hands in all" } dd { (c.hands_total) }
            dt { "Board" } dd { "generation " (b.generation) }
        }
        h2 { "Workers" }
        @if workers.is_empty() { p.muted { "No match is being played." } }
        @else {
            table.workers {
                thead { tr { th { "Worker" } th { "Match" } th { "Bots" } th { "Preset" } th { "Since" } th { "Delivery" } th { "Note" } } }
                tbody { @for (w, ms) in &workers { @for m in ms { tr {
                    // A queue's job no worker has started yet has no worker.
                    td.worker { @if w.is_empty() { span.muted { "waiting for a worker" } } @else { (w) } }
                    td { a href={ "/matches/" (m.id) } { "#" (m.id) } }
                    td { (version_link(b, m.a)) " vs " (version_link(b, m.b)) }
                    td { (m.preset) }
                    td { @if let Some(t) = m.started_at { (when(t)) } }
                    td.delivery { @if m.delivery > 0 { (m.delivery) } @else { "–" } }
                    td.error { (m.error) }
                } } } }
            }
        }
        @if !failed.is_empty() {
            h2 { "Recent failures" }
            table.failures {
                thead { tr { th { "Match" } th { "Bots" } th { "Preset" } th { "Why" } } }
                tbody { @for m in failed { tr {
                    td { a href={ "/matches/" (m.id) } { "#" (m.id) } }
                    td { (version_link(b, m.a)) " vs " (version_link(b, m.b)) }
                    td { (m.preset) }
                    td.error { (m.error) }
                } } }
            }
        }
        h2 { "Flagged workers" }
        @if flags.is_empty() { p.muted { "No result has been refused by the audit." } }
        @else {
            table.flags {
                thead { tr { th { "Worker" } th { "Match" } th { "Why the result was refused" } th { "When" } } }
                tbody { @for f in flags { tr {
                    td { (f.worker) }
                    td { a href={ "/matches/" (f.match_id) } { "#" (f.match_id) } }
                    td { (f.reason) }
                    td { (when(f.at)) }
                } } }
            }
        }
    }
}
