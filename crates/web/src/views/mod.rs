//! The HTML pages. Every value is interpolated by maud, which escapes it: names, logs, errors and
//! PHH player names are text on every page whatever they hold.

pub mod board;
pub mod bot;
pub mod forms;
pub mod matches;
pub mod operator;
pub mod viewer;

use axum::response::{Html, IntoResponse, Response};
use maud::{html, Markup, PreEscaped, DOCTYPE};
use serde::Deserialize;

use crate::board::Board;
use crate::error::{PageError, WebError};

/// `?fragment=NAME`: only the live part of a page (see `assets/live.js`).
#[derive(Debug, Default, Deserialize)]
pub struct Fragment {
    pub fragment: Option<String>,
}

/// A whole page around `body`.
pub fn layout(title: &str, body: Markup) -> Html<String> {
    page(title, None, &[], body)
}

/// A whole page: `generation` marks a page with live parts (it loads the live script), `css`
/// names extra style sheets of ours.
pub fn page(title: &str, generation: Option<u64>, css: &[&str], body: Markup) -> Html<String> {
    let m = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · Pitboss" }
                // No icon to fetch (a 404 per page otherwise).
                link rel="icon" href="data:,";
                link rel="stylesheet" href="/assets/style.css";
                @for c in css { link rel="stylesheet" href=(c); }
            }
            body data-generation=[generation] {
                header.top {
                    a.brand href="/" { "Pitboss" }
                    nav {
                        a href="/" { "Leaderboard" }
                        a href="/operator" { "Operator" }
                        a href="/upload" { "Upload" }
                        a href="/login" { "Log in" }
                    }
                }
                main { (body) }
                @if generation.is_some() { script src="/assets/live.js" defer {} }
            }
        }
    };
    Html(m.into_string())
}

/// An HTML fragment (the answer to `?fragment=`).
pub fn fragment(html: impl Into<axum::body::Bytes>) -> Response {
    Html(html.into()).into_response()
}

/// The fallback: 404.
pub async fn not_found() -> PageError {
    WebError::NotFound("no such page".into()).into()
}

/// A path segment with everything but unreserved characters percent-encoded (names in links).
pub fn seg(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A version's label, or `#id` when the board does not know it.
pub fn label(board: &Board, id: i64) -> String {
    board
        .versions
        .get(&id)
        .map_or_else(|| format!("#{id}"), |v| v.label.clone())
}

/// A link to a version's bot page, showing the version's label.
pub fn version_link(board: &Board, id: i64) -> Markup {
    match board.versions.get(&id) {
        Some(v) => html! { a href={ "/bots/" (seg(&v.bot)) } { (v.label) } },
        None => html! { span.muted { "#" (id) } },
    }
}

/// A rating: `+12.3`, or a dash when unknown.
pub fn signed(x: Option<f64>) -> String {
    match x {
        Some(x) if x.is_finite() => format!("{x:+.1}"),
        _ => "–".into(),
    }
}

/// A 95% interval as `± half-width`.
pub fn plus_minus(low: Option<f64>, high: Option<f64>) -> String {
    match (low, high) {
        (Some(l), Some(h)) if l.is_finite() && h.is_finite() => format!("± {:.1}", (h - l) / 2.0),
        _ => "–".into(),
    }
}

/// `[low, high]`.
pub fn bounds(low: f64, high: f64) -> String {
    format!("[{low:+.1}, {high:+.1}]")
}

pub fn percent(x: f64) -> String {
    if x.is_finite() {
        format!("{:.1}%", x * 100.0)
    } else {
        "–".into()
    }
}

/// Unix ms as `YYYY-MM-DD HH:MM:SS UTC`.
pub fn when(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Raw HTML that is already escaped (a cached fragment).
pub fn trusted(html: &str) -> PreEscaped<&str> {
    PreEscaped(html)
}

/// `a`'s result against `o` in `preset` (`None`: pooled), from whichever side the board holds it.
pub fn head_to_head(
    b: &Board,
    a: i64,
    o: i64,
    preset: Option<&str>,
) -> Option<crate::board::Cross> {
    let same = |c: &&crate::board::Cross| c.preset.as_deref() == preset;
    if let Some(c) = b.cross.iter().filter(same).find(|c| c.a == a && c.b == o) {
        return Some(c.clone());
    }
    b.cross
        .iter()
        .filter(same)
        .find(|c| c.a == o && c.b == a)
        .map(|c| crate::board::Cross {
            a,
            b: o,
            preset: c.preset.clone(),
            mean: -c.mean,
            low: -c.high,
            high: -c.low,
            matches: c.matches,
            hands: c.hands,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_segments() {
        assert_eq!(when(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(when(1_709_251_199_000), "2024-02-29 23:59:59 UTC");
        assert_eq!(seg("a.b-c_d"), "a.b-c_d");
        assert_eq!(seg("<x>/.."), "%3Cx%3E%2F..");
    }

    #[test]
    fn numbers() {
        assert_eq!(signed(Some(3.0)), "+3.0");
        assert_eq!(signed(None), "–");
        assert_eq!(plus_minus(Some(-1.0), Some(3.0)), "± 2.0");
        assert_eq!(percent(0.25), "25.0%");
    }
}
