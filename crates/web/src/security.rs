//! What every request and answer passes through: a token in a URL is refused before anything
//! reads it (URLs end up in logs, histories and `Referer` headers), and every answer carries the
//! headers that keep a page of ours from being framed, sniffed into something else, leaking its
//! address or running any script that is not one of our files.

use axum::extract::Request;
use axum::http::{header, HeaderName, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Scripts and styles only from our own files (none inline), images also as `data:` URLs,
/// nothing framed, forms posted only to us.
pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
    img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; \
    frame-ancestors 'none'";

/// Query parameters that look like credentials.
const SECRET_PARAMS: [&str; 5] = ["token", "access_token", "api_key", "apikey", "key"];

/// Refuses credentials in the query and adds the security headers.
pub async fn guard(req: Request, next: Next) -> Response {
    if let Some(q) = req.uri().query() {
        if has_secret_param(q) {
            let err = crate::error::WebError::BadRequest(
                "tokens are never accepted in a URL: send `Authorization: Bearer TOKEN` \
                 (the API) or log in with the form (the pages)"
                    .into(),
            );
            let mut r = if req.uri().path().starts_with("/api/") {
                crate::error::ApiError(err).into_response()
            } else {
                crate::error::PageError(err).into_response()
            };
            *r.status_mut() = StatusCode::BAD_REQUEST;
            add_headers(&mut r);
            return r;
        }
    }
    let mut r = next.run(req).await;
    add_headers(&mut r);
    r
}

fn add_headers(r: &mut Response) {
    let h = r.headers_mut();
    let set = |h: &mut axum::http::HeaderMap, k: HeaderName, v: &'static str| {
        h.insert(k, HeaderValue::from_static(v));
    };
    set(h, header::CONTENT_SECURITY_POLICY, CSP);
    set(h, header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    set(h, header::REFERRER_POLICY, "no-referrer");
    set(h, header::X_FRAME_OPTIONS, "DENY");
    if !h.contains_key(header::CACHE_CONTROL) {
        // Pages can hold a logged-in owner's log: no shared cache keeps them.
        set(h, header::CACHE_CONTROL, "no-store");
    }
}

/// Whether a query string has a parameter named like a credential (names percent-decoded and
/// compared without case, so `%74oken` and `TOKEN` count).
fn has_secret_param(query: &str) -> bool {
    query.split('&').any(|kv| {
        let k = kv.split('=').next().unwrap_or("");
        let k = percent_decode(k).to_ascii_lowercase();
        SECRET_PARAMS.contains(&k.trim())
    })
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let hex = |c: u8| (c as char).to_digit(16);
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(if b[i] == b'+' { b' ' } else { b[i] });
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_in_queries_are_recognised() {
        for q in [
            "token=x",
            "a=1&token=x",
            "TOKEN=x",
            "%74oken=x",
            "access_token",
            "key=1",
        ] {
            assert!(has_secret_param(q), "{q}");
        }
        for q in [
            "fragment=board",
            "preset=fl-27td&name=tokens",
            "a=token",
            "%zz=1",
            "%7",
        ] {
            assert!(!has_secret_param(q), "{q}");
        }
    }
}
