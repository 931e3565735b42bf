//! Helpers of the tests that use the forms and the page lists.

use axum::body::Body;
use axum::http::{header, Request, StatusCode};

use super::*;

/// The hidden `csrf` field of a form.
pub fn csrf_of(html: &str) -> String {
    let i = html.find("name=\"csrf\" value=\"").expect("a csrf field") + 19;
    html[i..i + 64].to_string()
}

/// `name=value` of a Set-Cookie header named `name`.
pub fn set_cookie(a: &Answer, name: &str) -> Option<String> {
    a.headers
        .get_all(header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with(&format!("{name}=")))
        .map(|v| v.split(';').next().unwrap().to_string())
}

pub fn form(uri: &str, cookie: &str, body: String) -> Request<Body> {
    Request::post(uri)
        .header(header::COOKIE, cookie)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(body))
        .unwrap()
}

/// Logs in with `token` through the form; the session cookie (`pb_session=...`).
pub async fn log_in(w: &World, token: &str) -> String {
    let page = get(&w.app, "/login").await;
    let pre = set_cookie(&page, "pb_pre").expect("a pre-session cookie");
    let csrf = csrf_of(&page.body);
    let a = send(
        &w.app,
        form("/login", &pre, format!("csrf={csrf}&token={token}")),
    )
    .await;
    assert_eq!(a.status, StatusCode::SEE_OTHER, "{}", a.body);
    let full = a
        .headers
        .get_all(header::SET_COOKIE)
        .iter()
        .find(|v| v.to_str().unwrap().starts_with("pb_session="))
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        full.contains("HttpOnly") && full.contains("SameSite=Strict") && full.contains("Path=/"),
        "{full}"
    );
    set_cookie(&a, "pb_session").unwrap()
}

pub fn pages(w: &World) -> Vec<String> {
    let m = w.match_id;
    vec![
        "/".into(),
        "/?fragment=board".into(),
        format!("/presets/{}", PRESETS[0]),
        format!("/presets/{}?fragment=board", PRESETS[1]),
        "/bots/alicebot".into(),
        "/bots/alicebot?fragment=bot".into(),
        "/bots/%3Cscript%3Ealert(1)%3C%2Fscript%3E".into(),
        format!("/matches/{m}"),
        format!("/matches/{}", m + 1),
        format!("/matches/{m}/hands/1"),
        format!("/matches/{m}/hands/2"),
        "/operator".into(),
        "/login".into(),
        "/nowhere".into(),
    ]
}

pub fn apis(w: &World) -> Vec<String> {
    let m = w.match_id;
    vec![
        "/api/leaderboard".into(),
        format!("/api/leaderboard?preset={}", PRESETS[0]),
        "/api/bots/alicebot".into(),
        "/api/bots/%3Cscript%3Ealert(1)%3C%2Fscript%3E".into(),
        format!("/api/matches/{m}"),
        format!("/api/matches/{}", m + 1),
        format!("/api/matches/{m}/hands/1"),
        format!("/api/matches/{m}/hands/2"),
        "/api/status".into(),
    ]
}

/// A multipart form body as the upload page sends it.
pub fn multipart(csrf: Option<&str>, name: Option<&str>, bundle: &[u8]) -> (String, Vec<u8>) {
    let b = "----pitbossboundary";
    let mut out = Vec::new();
    let mut field = |n: &str, v: &[u8], file: bool| {
        let disp = if file {
            "; filename=\"bot.tar.gz\"\r\nContent-Type: application/gzip".to_string()
        } else {
            String::new()
        };
        out.extend(
            format!("--{b}\r\nContent-Disposition: form-data; name=\"{n}\"{disp}\r\n\r\n")
                .as_bytes(),
        );
        out.extend(v);
        out.extend(b"\r\n");
    };
    if let Some(c) = csrf {
        field("csrf", c.as_bytes(), false);
    }
    if let Some(n) = name {
        field("name", n.as_bytes(), false);
    }
    field("bundle", bundle, true);
    out.extend(format!("--{b}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={b}"), out)
}
