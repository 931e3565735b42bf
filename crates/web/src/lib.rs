//! The web face of the service: server-rendered pages (leaderboards, bots, matches, the hand
//! viewer, the operator's page) that update live through server-sent events, the upload form,
//! and the JSON API under `/api`, all served by [`router`].
//!
//! The web server only *reads* the derived [`Board`] snapshot and the [`Store`]; the one thing it
//! writes is an upload (a bundle file and a pending version), after which it wakes the scheduler
//! through [`AppState::wake`]. Everything else the service does (checks, matches, ratings)
//! happens elsewhere, possibly on other machines.

pub mod board;

use std::sync::Arc;

pub use board::Board;
use pitboss_store::{Files, Store};

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
pub fn router(_s: AppState) -> axum::Router {
    axum::Router::new()
}
