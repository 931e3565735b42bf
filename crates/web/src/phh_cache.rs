//! A match's hand history, read and parsed once for the pages that show its hands one at a time
//! (a viewer stepping from hand to hand reads the same file again and again).
//!
//! The file is the one the match row's `history` column names, resolved beneath the data folder
//! ([`pitboss_store::Files::resolve`] refuses anything else); it is `.zst` compressed as the
//! service keeps it. Nothing else of a match's folder is ever read here.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use pitboss_phh::ReadHand;
use pitboss_store::Match;

use crate::ctx::Ctx;
use crate::error::WebError;

/// The last few matches' parsed hands.
#[derive(Default)]
pub struct PhhCache {
    recent: Mutex<Vec<(i64, Arc<Vec<ReadHand>>)>>,
}

/// Matches kept parsed.
const KEEP: usize = 4;

impl PhhCache {
    fn get(&self, id: i64) -> Option<Arc<Vec<ReadHand>>> {
        let g = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        g.iter().find(|(m, _)| *m == id).map(|(_, h)| h.clone())
    }

    fn put(&self, id: i64, hands: Arc<Vec<ReadHand>>) {
        let mut g = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        g.retain(|(m, _)| *m != id);
        if g.len() >= KEEP {
            g.remove(0);
        }
        g.push((id, hands));
    }
}

/// The path of a finished match's history file, if it has one that exists.
pub fn history_path(ctx: &Ctx, m: &Match) -> Option<PathBuf> {
    let rel = m.outcome.as_ref().map(|o| o.history.as_str())?;
    ctx.app.files.resolve(rel).filter(|p| p.is_file())
}

/// The bytes of a history file as text (decompressed when `.zst`).
pub fn read_text(path: &std::path::Path) -> Result<String, WebError> {
    let bytes =
        std::fs::read(path).map_err(|e| WebError::Internal(format!("{}: {e}", path.display())))?;
    let bytes = if path.extension().is_some_and(|e| e == "zst") {
        zstd::decode_all(bytes.as_slice())
            .map_err(|e| WebError::Internal(format!("{}: {e}", path.display())))?
    } else {
        bytes
    };
    String::from_utf8(bytes)
        .map_err(|e| WebError::Internal(format!("{}: not UTF-8: {e}", path.display())))
}

/// The parsed hands of match `m` (404 when it kept none).
pub async fn hands(ctx: &Ctx, m: &Match) -> Result<Arc<Vec<ReadHand>>, WebError> {
    if let Some(h) = ctx.phh.get(m.id) {
        return Ok(h);
    }
    let path = history_path(ctx, m)
        .ok_or_else(|| WebError::NotFound("this match kept no hand history".into()))?;
    let hands = tokio::task::spawn_blocking(move || -> Result<Vec<ReadHand>, WebError> {
        let text = read_text(&path)?;
        pitboss_phh::parse_str(&path.display().to_string(), &text)
            .map_err(|e| WebError::Internal(format!("hand history: {e}")))
    })
    .await
    .map_err(|e| WebError::Internal(format!("reading a hand history: {e}")))??;
    let hands = Arc::new(hands);
    ctx.phh.put(m.id, hands.clone());
    Ok(hands)
}

/// Match `id` (404 when there is none).
pub async fn match_row(ctx: &Ctx, id: i64) -> Result<Match, WebError> {
    ctx.app
        .store
        .match_by_id(id)
        .await?
        .ok_or_else(|| WebError::NotFound("no match with that id".into()))
}
