//! `/events`: server-sent events that push the board's generation whenever the service replaces
//! the board (and once on connecting), as `event: board`, `data: GENERATION`. Pages re-fetch
//! their live fragments on it (`assets/live.js`). A burst of boards coalesces into the latest:
//! the watch channel keeps only that.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::{Stream, StreamExt};
use tokio_stream::wrappers::WatchStream;

use crate::ctx::Ctx;

/// `/events`.
pub async fn events(
    State(ctx): State<Arc<Ctx>>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let stream = WatchStream::new(ctx.app.board.clone()).map(|b| {
        Ok(Event::default()
            .event("board")
            .data(b.generation.to_string()))
    });
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}
