//! Errors of the web server and how each is answered: JSON `{"error": "..."}` under `/api`, a
//! small HTML page elsewhere, with the same status. Internal failures (the database, the disk)
//! are logged and answered with a generic message: their text may name paths of the server.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// What went wrong with a request.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    TooLarge(String),
    /// The hourly upload quota is used up; a slot frees in `retry_after` seconds.
    #[error("{msg}")]
    TooMany { msg: String, retry_after: u64 },
    #[error("database: {0}")]
    Store(#[from] pitboss_store::StoreError),
    #[error("{0}")]
    Internal(String),
}

impl WebError {
    pub fn status(&self) -> StatusCode {
        match self {
            WebError::BadRequest(_) => StatusCode::BAD_REQUEST,
            WebError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            WebError::Forbidden(_) => StatusCode::FORBIDDEN,
            WebError::NotFound(_) => StatusCode::NOT_FOUND,
            WebError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            WebError::TooMany { .. } => StatusCode::TOO_MANY_REQUESTS,
            WebError::Store(_) | WebError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The message shown to the client.
    pub fn public_message(&self) -> String {
        match self {
            WebError::Store(_) | WebError::Internal(_) => {
                tracing::error!("web: {self}");
                "internal error (the server's log says more)".to_string()
            }
            e => e.to_string(),
        }
    }

    fn decorate(&self, mut r: Response) -> Response {
        let h = r.headers_mut();
        if let WebError::TooMany { retry_after, .. } = self {
            h.insert(header::RETRY_AFTER, HeaderValue::from(*retry_after));
        }
        if matches!(self, WebError::Unauthorized(_)) && !h.contains_key(header::WWW_AUTHENTICATE) {
            h.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"pitboss\""),
            );
        }
        r
    }
}

/// A [`WebError`] answered as JSON (the API).
#[derive(Debug)]
pub struct ApiError(pub WebError);

impl<E: Into<WebError>> From<E> for ApiError {
    fn from(e: E) -> ApiError {
        ApiError(e.into())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.0.public_message() });
        let r = (self.0.status(), axum::Json(body)).into_response();
        self.0.decorate(r)
    }
}

/// A [`WebError`] answered as an HTML page.
#[derive(Debug)]
pub struct PageError(pub WebError);

impl<E: Into<WebError>> From<E> for PageError {
    fn from(e: E) -> PageError {
        PageError(e.into())
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let status = self.0.status();
        let title = status.canonical_reason().unwrap_or("Error");
        let page = crate::views::layout(
            title,
            maud::html! {
                h1 { (status.as_u16()) " " (title) }
                p.error { (self.0.public_message()) }
                p { a href="/" { "Back to the leaderboard" } }
            },
        );
        let r = (status, page).into_response();
        self.0.decorate(r)
    }
}
