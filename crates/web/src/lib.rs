//! The web face of the service: server-rendered pages (leaderboards, bots, matches, the hand
//! viewer, the operator's page) that update live through server-sent events, the upload form,
//! and the JSON API under `/api`, all served by [`router`].
//!
//! The web server only *reads* the derived [`Board`] snapshot and the [`Store`]; the one thing it
//! writes is an upload (a bundle file and a pending version), after which it wakes the scheduler
//! through [`AppState::wake`]. Everything else the service does (checks, matches, ratings)
//! happens elsewhere, possibly on other machines.
//!
//! Security, in one place (issue #24, item 7): every string is interpolated through maud, which
//! escapes it; POST forms carry a CSRF token derived from the session and the login cookie is
//! `HttpOnly; SameSite=Strict`; the JSON API takes `Authorization: Bearer` only (never a cookie,
//! so no other site can ride it); a token in a URL's query is refused before any handler runs;
//! nothing logs requests; the match seed and the match folders are never read here; every
//! answer carries a strict Content-Security-Policy (scripts and styles are files of this
//! server, none inline).

mod api;
mod assets;
mod auth;
pub mod board;
mod bundles;
mod ctx;
mod error;
mod live;
mod phh_cache;
mod security;
mod upload;
mod views;

use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
pub use board::Board;
use pitboss_store::{Files, Store};

pub use error::WebError;

/// Limits and settings of the web server.
#[derive(Clone, Debug)]
pub struct WebSettings {
    /// Uploads an hour per account (default for new accounts; the account's own value rules).
    pub uploads_per_hour: i64,
    /// The largest bundle accepted, bytes.
    pub max_bundle_bytes: i64,
    /// The ladder's presets.
    pub presets: Vec<String>,
}

/// What the handlers share.
#[derive(Clone)]
pub struct AppState {
    pub store: Store,
    pub files: Files,
    /// The latest board (the service replaces it after every change).
    pub board: tokio::sync::watch::Receiver<Arc<Board>>,
    /// Wakes the scheduler (a new upload waits for its check).
    pub wake: Arc<tokio::sync::Notify>,
    pub settings: WebSettings,
}

/// Every page, the event stream, the assets and the JSON API.
pub fn router(state: AppState) -> axum::Router {
    let ctx = Arc::new(ctx::Ctx::new(state));
    // Uploads read their body themselves, counting bytes against the account's limit; the form
    // has a little room over the bundle for its other fields and the multipart framing.
    let upload_room = usize::try_from(ctx.app.settings.max_bundle_bytes.max(0))
        .unwrap_or(usize::MAX)
        .saturating_add(64 << 10);
    axum::Router::new()
        .route("/", get(views::board::home))
        .route("/presets/{preset}", get(views::board::preset))
        .route("/bots/{name}", get(views::bot::page))
        .route("/matches/{id}", get(views::matches::page))
        .route(
            "/matches/{id}/hands.phhs",
            get(views::matches::download_plain),
        )
        .route(
            "/matches/{id}/hands.phhs.zst",
            get(views::matches::download_zst),
        )
        .route("/matches/{id}/hands/{n}", get(views::viewer::page))
        .route("/operator", get(views::operator::page))
        .route(
            "/login",
            get(views::forms::login_page).post(views::forms::login),
        )
        .route("/logout", post(views::forms::logout))
        .route(
            "/upload",
            get(views::forms::upload_page)
                .post(views::forms::upload)
                .layer(DefaultBodyLimit::max(upload_room)),
        )
        .route("/events", get(live::events))
        .route("/assets/{file}", get(assets::serve))
        .route("/api/leaderboard", get(api::leaderboard))
        .route(
            "/api/bots",
            post(api::upload).layer(DefaultBodyLimit::disable()),
        )
        .route("/api/bots/{name}", get(api::bot))
        .route("/api/bots/{name}/versions/{n}/log", get(api::log))
        .route("/api/matches/{id}", get(api::match_))
        .route("/api/matches/{id}/hands/{n}", get(api::hand))
        .route("/api/status", get(api::status))
        .route("/api/bundles/{sha256}", get(bundles::get))
        .fallback(views::not_found)
        .layer(axum::middleware::from_fn(security::guard))
        .with_state(ctx)
}
