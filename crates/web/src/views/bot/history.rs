//! A bot's ratings over time as an inline SVG: one line per version with its 95% band, zero (the
//! reference bots' mean) dashed. Drawn with presentation attributes only (no `style`), so the
//! strict Content-Security-Policy holds.

use maud::{html, Markup};
use pitboss_store::Version;

use crate::board::{Board, RatingPoint};

const W: f64 = 640.0;
const H: f64 = 200.0;
const PAD: f64 = 30.0;
const COLOURS: [&str; 6] = [
    "#1f5fbf", "#b42318", "#1a7f37", "#9a6700", "#6e40c9", "#0e7490",
];

pub fn chart(b: &Board, versions: &[Version]) -> Markup {
    let lines: Vec<(&Version, &[RatingPoint])> = versions
        .iter()
        .rev()
        .filter_map(|v| b.history.get(&v.id).map(|h| (v, h.as_slice())))
        .filter(|(_, h)| !h.is_empty())
        .collect();
    if lines.is_empty() {
        return html! { p.muted { "No ratings yet." } };
    }
    let pts = lines.iter().flat_map(|(_, h)| h.iter());
    let (mut t0, mut t1, mut lo, mut hi) = (i64::MAX, i64::MIN, 0.0f64, 0.0f64);
    for p in pts {
        t0 = t0.min(p.at);
        t1 = t1.max(p.at);
        for y in [p.low, p.high, p.rating] {
            if y.is_finite() {
                lo = lo.min(y);
                hi = hi.max(y);
            }
        }
    }
    let span_t = (t1 - t0).max(1) as f64;
    let span_y = (hi - lo).max(1.0);
    let x = |t: i64| PAD + (t - t0) as f64 / span_t * (W - 2.0 * PAD);
    let y = |v: f64| H - PAD - (v.clamp(lo, hi) - lo) / span_y * (H - 2.0 * PAD);
    let pair = |t: i64, v: f64| format!("{:.1},{:.1}", x(t), y(v));
    html! {
        svg.history width=(W) height=(H) viewBox={ "0 0 " (W) " " (H) } role="img"
            aria-label="Rating over time, mbb/hand" {
            line x1=(PAD) x2=(W - PAD) y1=(y(0.0)) y2=(y(0.0)) stroke="#9aa3b2"
                stroke-dasharray="4 4" {}
            @if hi > span_y * 0.08 { text x="2" y=(y(hi) + 4.0) fill="#5b6475" { (format!("{hi:+.0}")) } }
            @if lo < -span_y * 0.08 { text x="2" y=(y(lo) + 4.0) fill="#5b6475" { (format!("{lo:+.0}")) } }
            text x="2" y=(y(0.0) + 4.0) fill="#5b6475" { "0" }
            @for (i, (v, h)) in lines.iter().enumerate() {
                @let c = COLOURS[i % COLOURS.len()];
                @let band: Vec<String> = h.iter().map(|p| pair(p.at, p.high))
                    .chain(h.iter().rev().map(|p| pair(p.at, p.low))).collect();
                @let line: Vec<String> = h.iter().map(|p| pair(p.at, p.rating)).collect();
                polygon points=(band.join(" ")) fill=(c) fill-opacity="0.12" stroke="none" {}
                polyline points=(line.join(" ")) fill="none" stroke=(c) stroke-width="2" {}
                @for p in h.iter() {
                    circle cx=(format!("{:.1}", x(p.at))) cy=(format!("{:.1}", y(p.rating))) r="2.5" fill=(c) {
                        title { (v.label()) " " (format!("{:+.1}", p.rating)) " mbb/hand" }
                    }
                }
                text x=(W - PAD - 90.0) y=(PAD + 12.0 * i as f64) fill=(c) { (v.label()) }
            }
        }
    }
}
