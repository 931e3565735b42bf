//! The static files, compiled into the binary (no build step, nothing from another host): the
//! style sheet, the live-update script, and the hand viewer's script and style.

use axum::extract::Path;
use axum::http::header;
use axum::response::{IntoResponse, Response};

use crate::error::PageError;
use crate::error::WebError;

const STYLE: &str = include_str!("../assets/style.css");
const LIVE: &str = include_str!("../assets/live.js");
const VIEWER_JS: &str = include_str!("../assets/viewer.js");
const VIEWER_CSS: &str = include_str!("../assets/viewer.css");

/// `/assets/{file}`.
pub async fn serve(Path(file): Path<String>) -> Result<Response, PageError> {
    let (body, kind) = match file.as_str() {
        "style.css" => (STYLE, "text/css; charset=utf-8"),
        "live.js" => (LIVE, "text/javascript; charset=utf-8"),
        "viewer.js" => (VIEWER_JS, "text/javascript; charset=utf-8"),
        "viewer.css" => (VIEWER_CSS, "text/css; charset=utf-8"),
        _ => return Err(WebError::NotFound("no such asset".into()).into()),
    };
    Ok((
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "public, max-age=300"),
        ],
        body,
    )
        .into_response())
}
