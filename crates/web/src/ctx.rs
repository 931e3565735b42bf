//! The handlers' state: the service's [`AppState`], the session keys, and the rendered pages of
//! the current board (a leaderboard is rendered once per board generation, however many ask).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;

use crate::auth::Keys;
use crate::phh_cache::PhhCache;
use crate::{AppState, Board};

pub(crate) struct Ctx {
    pub app: AppState,
    pub keys: Keys,
    pub phh: PhhCache,
    rendered: Mutex<HashMap<String, (u64, Bytes)>>,
}

/// Entries kept in the rendered cache before it is emptied (keys are per preset and bot, and a
/// visitor chooses them: the bound keeps a crawler from growing it without end).
const MAX_RENDERED: usize = 512;

impl Ctx {
    pub fn new(app: AppState) -> Ctx {
        let keys = Keys::from_files(&app.files);
        Ctx {
            app,
            keys,
            phh: PhhCache::default(),
            rendered: Mutex::new(HashMap::new()),
        }
    }

    /// The current board.
    pub fn board(&self) -> Arc<Board> {
        self.app.board.borrow().clone()
    }

    /// `render(board)` for the current board, computed once per generation and `key` (shared
    /// bytes: an answer copies nothing).
    pub fn cached(&self, key: &str, render: impl FnOnce(&Board) -> String) -> Bytes {
        let board = self.board();
        if let Some((g, html)) = self.lock().get(key) {
            if *g == board.generation {
                return html.clone();
            }
        }
        let html = Bytes::from(render(&board));
        let mut map = self.lock();
        if map.len() >= MAX_RENDERED {
            map.clear();
        }
        map.insert(key.to_string(), (board.generation, html.clone()));
        html
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (u64, Bytes)>> {
        // A panic while holding the lock leaves a map of finished entries: still good.
        self.rendered.lock().unwrap_or_else(|e| e.into_inner())
    }
}
