//! `report.html`: one self-contained page (inline CSS, inline SVG, no scripts, no network).

use super::charts::{self, Bar, Curve};
use super::{bots, HandsLink, Report};
use crate::Format;

/// Escapes text for HTML (control characters written as `\u{..}`: a bot name or a title read
/// from a plan edited by hand may hold anything).
pub fn esc(s: &str) -> String {
    pitboss_arena::name::one_line(s)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const CSS: &str = r#"
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 2em auto; max-width: 1000px; color: #222; padding: 0 1em; }
h1 { margin-bottom: 0.2em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #ddd; }
p.meta { color: #555; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 14px; display: block; max-width: 100%; overflow-x: auto; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: right; white-space: nowrap; }
td.name { white-space: normal; }
th { background: #f2f2f2; } td.name, th.name { text-align: left; }
td.win { background: #c8ecd0; } td.loss { background: #f5c6c6; } td.none { background: #f4f4f4; color: #555; }
td.self { background: #fff; color: #bbb; text-align: center; }
.legend span { display: inline-block; padding: 2px 8px; margin-right: 8px; border: 1px solid #ccc; }
.chart svg { max-width: 100%; height: auto; border: 1px solid #eee; }
p.error { color: #a00; }
th.rankby { background: #dfe9f7; border-bottom: 3px solid #1f5fbf; } td.rankby { font-weight: bold; background: #eef3fb; }
table.leaderboard caption { caption-side: top; text-align: left; color: #333; padding-bottom: 4px; }
td.mirror { background: #fff8dc; color: #555; }
p.chartlegend span { display: inline-block; margin-right: 14px; white-space: nowrap; }
p.chartlegend i { display: inline-block; width: 22px; height: 4px; margin-right: 5px; vertical-align: middle; }
"#;

/// Whether a pairing's bots mirror each other exactly: every duplicate deal nets zero, so the
/// interval is a point at 0 and no test can ever decide it.
pub(super) fn mirror(p: &super::PairRow) -> bool {
    p.hands > 0 && p.mbb == 0.0 && p.low == 0.0 && p.high == 0.0
}

/// Cumulative winnings per bot, in game units, with a 95% band, at every batch boundary.
fn curves(r: &Report) -> Vec<Curve> {
    let cfg = &r.plan.config;
    let n = cfg.bots.len();
    let batch = cfg.batch as usize;
    let rounds = r
        .standings
        .tables
        .iter()
        .map(|t| t.batches)
        .max()
        .unwrap_or(0) as usize;
    // Per table and position: per-deal variance in game units².
    let mut out: Vec<Curve> = cfg
        .bots
        .iter()
        .map(|_| Curve {
            points: vec![(0.0, 0.0, 0.0)],
        })
        .collect();
    let mut acc = vec![(0.0f64, 0.0f64, 0.0f64); n]; // hands, units, variance
    let vars: Vec<Vec<f64>> = r
        .standings
        .tables
        .iter()
        .map(|t| {
            t.net
                .iter()
                .map(|v| {
                    let u = t.unit_chips as f64;
                    let m = v.len() as f64;
                    if m < 2.0 {
                        return 0.0;
                    }
                    let mean = v.iter().map(|&x| x as f64 / u).sum::<f64>() / m;
                    v.iter()
                        .map(|&x| (x as f64 / u - mean).powi(2))
                        .sum::<f64>()
                        / (m - 1.0)
                })
                .collect()
        })
        .collect();
    for b in 0..rounds {
        for (ti, t) in r.standings.tables.iter().enumerate() {
            let k = t.bots.len() as f64;
            for (p, &bot) in t.bots.iter().enumerate() {
                let v = &t.net[p];
                let (s, e) = ((b * batch).min(v.len()), ((b + 1) * batch).min(v.len()));
                if s == e {
                    continue;
                }
                let won: i64 = v[s..e].iter().sum();
                acc[bot].0 += (e - s) as f64 * k;
                acc[bot].1 += won as f64 / t.unit_chips as f64;
                acc[bot].2 += (e - s) as f64 * vars[ti][p];
            }
        }
        for (bot, c) in out.iter_mut().enumerate() {
            let (h, u, v) = acc[bot];
            if c.points.last().is_some_and(|p| p.0 < h) {
                c.points.push((h, u, 1.96 * v.sqrt()));
            }
        }
    }
    out
}

/// The luck-adjusted line of a crosstable cell, if the tournament adjusts.
fn adj_line(adj: Option<(f64, f64, f64)>) -> String {
    adj.map_or(String::new(), |(v, lo, hi)| {
        format!("<br><small>adj {v:.1} [{lo:.1}, {hi:.1}]</small>")
    })
}

fn crosstable(r: &Report, links: &[Option<HandsLink>], out: &mut String) {
    let cfg = &r.plan.config;
    let link = |p: &super::PairRow| links.get(p.table).and_then(Option::as_ref);
    let any_link = links.iter().any(Option::is_some);
    out.push_str("<p class=\"legend\"><span style=\"background:#c8ecd0\">row bot wins (95% interval above 0)</span><span style=\"background:#f5c6c6\">row bot loses</span><span style=\"background:#f4f4f4\">not significant</span><span style=\"background:#fff8dc\">exact mirror: the two bots play every duplicate deal identically (each nets 0)</span></p>\n");
    for (g, game) in cfg.games.iter().enumerate() {
        out.push_str(&format!("<h3>{}</h3>\n", esc(game)));
        if cfg.format == Format::HeadsUp {
            out.push_str(
                "<table class=\"crosstable\"><tr><th class=\"name\">mbb/hand of row vs column</th>",
            );
            for b in &r.bots {
                out.push_str(&format!("<th>{}</th>", esc(&b.bot)));
            }
            out.push_str("</tr>\n");
            for row in &r.bots {
                out.push_str(&format!("<tr><td class=\"name\">{}</td>", esc(&row.bot)));
                for col in &r.bots {
                    let cell = r
                        .pairs
                        .iter()
                        .find(|p| p.game == *game && p.bot == row.bot && p.opponent == col.bot);
                    let kept = cell.and_then(&link).map_or(String::new(), |l| {
                        format!("<br><small>{}</small>", bots::hands_cell(Some(l)))
                    });
                    match cell {
                        Some(p) if mirror(p) => out.push_str(&format!(
                            "<td class=\"mirror\" title=\"{} hands; every duplicate deal nets 0\">0<br><small>exact mirror</small>{kept}</td>",
                            p.hands
                        )),
                        Some(p) => out.push_str(&format!(
                            "<td class=\"{}\" title=\"{} hands, SPRT: {}\">{:.1}<br><small>[{:.1}, {:.1}]</small>{}{kept}</td>",
                            p.significance, p.hands, esc(&p.sprt), p.mbb, p.low, p.high, adj_line(p.adj)
                        )),
                        None => out.push_str("<td class=\"self\">—</td>"),
                    }
                }
                out.push_str("</tr>\n");
            }
            out.push_str("</table>\n");
        } else {
            out.push_str("<table class=\"crosstable\"><tr><th class=\"name\">bot</th><th class=\"name\">table mates</th><th>hands</th><th>mbb/hand</th><th>95% interval</th>");
            if cfg.luck_adjust {
                out.push_str("<th>adjusted mbb/hand</th><th>adjusted 95% interval</th>");
            }
            if any_link {
                out.push_str("<th class=\"name\">kept hands</th>");
            }
            out.push_str("</tr>\n");
            for p in r
                .pairs
                .iter()
                .filter(|p| r.standings.tables[p.table].game == g)
            {
                out.push_str(&format!(
                    "<tr><td class=\"name\">{}</td><td class=\"name\">{}</td><td>{}</td><td class=\"{}\">{:.1}</td><td>[{:.1}, {:.1}]</td>",
                    esc(&p.bot), esc(&p.opponent), p.hands, p.significance, p.mbb, p.low, p.high
                ));
                if let Some((v, lo, hi)) = p.adj {
                    out.push_str(&format!("<td>{v:.1}</td><td>[{lo:.1}, {hi:.1}]</td>"));
                }
                if any_link {
                    out.push_str(&format!(
                        "<td class=\"name\">{}</td>",
                        bots::hands_cell(link(p))
                    ));
                }
                out.push_str("</tr>\n");
            }
            out.push_str("</table>\n");
        }
    }
}

/// The legend of the cumulative chart, under it (a legend inside the plot hid the first hands of
/// every curve): each bot's colour, and what the lines and bands are.
fn cumulative_legend(r: &Report) -> String {
    let mut s = String::from("<p class=\"legend chartlegend\">");
    for (i, b) in r.plan.config.bots.iter().enumerate() {
        s.push_str(&format!(
            "<span><i style=\"background:{}\"></i>{}</span>",
            charts::css_color(i),
            esc(&b.name)
        ));
    }
    s.push_str("</p>\n<p class=\"meta\">What the chart shows: one line per bot, its winnings so far (y axis, in game units: big blinds; stud: small bets) against the hands it has played so far (x axis), over the whole tournament, every game and pairing together, in the order the duplicate deals were dealt; the shaded band with dashed edges around a line is its 95% band (±1.96 standard deviations of the sum so far, from the per-deal variance at each table). A band narrower than the line means the luck left after duplicate dealing is small at this scale. A bot that plays more pairings plays more hands: its line goes further right.</p>\n");
    s
}

/// The whole page; `links`: the kept hands of each table (see [`Report::hands_links`]).
pub fn page(r: &Report, links: &[Option<HandsLink>]) -> String {
    let cfg = &r.plan.config;
    let mut s = String::with_capacity(1 << 16);
    s.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    s.push_str(&format!(
        "<title>{} — Pitboss leaderboard</title>\n",
        esc(&r.title)
    ));
    s.push_str(&format!("<style>{CSS}</style></head><body>\n"));
    s.push_str(&format!("<h1>{}</h1>\n", esc(&r.title)));
    let hands: u64 = r.bots.iter().map(|b| b.hands).sum::<u64>() / cfg.table_size as u64;
    s.push_str(&format!(
        "<p class=\"meta\">Games: {}. {} bots, {}, {} duplicate deals per table and game (every deal in every seat rotation, the same deals at every table), seed {}. {} hands counted.{}</p>\n",
        esc(&cfg.games.join(", ")),
        cfg.bots.len(),
        match cfg.format {
            Format::HeadsUp => "heads-up round robin".to_string(),
            Format::Ring => format!("ring tables of {}", cfg.table_size),
        },
        cfg.deals,
        cfg.seed,
        hands,
        cfg.sprt.map_or(String::new(), |p| format!(
            " SPRT per pairing: H0 mean ≤ {} vs H1 mean ≥ {} mbb/hand, α = {}, β = {}.",
            p.m0, p.m1, p.alpha, p.beta
        ))
    ));
    let (basis, adj_heads) = if cfg.luck_adjust {
        (
            " on the <b>luck-adjusted</b> results (both raw and adjusted mbb/hand are shown; the rating, the ranks and the SPRT use the adjusted ones, which estimate the same edge with a narrower interval)",
            "<th>adjusted mbb/hand vs field</th><th>adjusted 95% interval</th>",
        )
    } else {
        (" on the raw results", "")
    };
    s.push_str(&format!("<h2>Leaderboard</h2>\n<table class=\"leaderboard\"><caption>Ranked by <b>rating</b> (the highlighted column){basis}: least squares on every table's result, so bots that did not all meet each other are still ranked fairly. The bankroll and runoff ranks are the ACPC's, for comparison.</caption><tr><th>rank</th><th class=\"name\">bot</th><th>games</th><th>hands</th><th>mbb/hand vs field</th><th>mbb/hand 95% interval</th>{adj_heads}<th>bankroll rank</th><th>runoff rank</th><th class=\"rankby\">rating (ranks)</th><th>rating 95% interval</th><th>faults</th></tr>\n"));
    for b in &r.bots {
        let class = if b.field.low > 0.0 {
            "win"
        } else if b.field.high < 0.0 {
            "loss"
        } else {
            "none"
        };
        let adj = b.adj_field.map_or(String::new(), |a| {
            format!(
                "<td>{:.1}</td><td>[{:.1}, {:.1}]</td>",
                a.value, a.low, a.high
            )
        });
        s.push_str(&format!(
            "<tr><td>{}</td><td class=\"name\"><a href=\"#{}\">{}</a></td><td>{}</td><td>{}</td><td class=\"{class}\">{:.1}</td><td>[{:.1}, {:.1}]</td>{adj}<td>{}</td><td>{}</td><td class=\"rankby\">{:.1}</td><td>[{:.1}, {:.1}]</td><td>{}</td></tr>\n",
            b.rank, bots::anchor(r, &b.bot), esc(&b.bot), b.games, b.hands, b.field.value, b.field.low, b.field.high,
            b.bankroll_rank, b.runoff_rank, b.rating.value, b.rating.low, b.rating.high, b.faults
        ));
    }
    s.push_str("</table>\n");
    s.push_str(&format!(
        "<p class=\"meta\">mbb/hand = thousandths of the game's unit (big blind; stud: small bet) per hand. \
        Rank: least-squares rating (r<sub>i</sub> − r<sub>j</sub> ≈ mean<sub>ij</sub>, ratings sum to 0). \
        Bankroll rank: ACPC total bankroll; runoff rank: ACPC instant runoff. \
        Intervals of the field mean and rating: bootstrap over duplicate deals ({} resamples, the same resampled deals at every table of a game).</p>\n",
        cfg.bootstrap
    ));
    if r.bots.iter().any(|b| !b.illegal.is_empty()) {
        s.push_str("<h2>Illegal actions</h2>\n<p class=\"meta\">The first of each bot, with the rules' reasons; each was penalised as protocol.md says and counted in faults.</p>\n<ul class=\"illegal\">\n");
        for b in r.bots.iter().filter(|b| !b.illegal.is_empty()) {
            for line in &b.illegal {
                s.push_str(&format!("<li><b>{}</b>: {}</li>\n", esc(&b.bot), esc(line)));
            }
        }
        s.push_str("</ul>\n");
    }
    s.push_str("<h2>Cumulative winnings</h2>\n<div class=\"chart\">\n");
    s.push_str(&charts::cumulative(&curves(r)));
    s.push_str("</div>\n");
    s.push_str(&cumulative_legend(r));
    s.push_str("<h2>Crosstable</h2>\n");
    crosstable(r, links, &mut s);
    bots::own_side(r, links, &mut s);
    bots::play_statistics(r, &mut s);
    s.push_str("<h2>Pairings</h2>\n<div class=\"chart\">\n");
    let bars: Vec<Bar> = r
        .pairs
        .iter()
        .filter(|p| p.position == 0)
        .map(|p| Bar {
            label: pitboss_arena::name::one_line(&format!(
                "{} {} vs {}{}",
                p.game,
                p.bot,
                p.opponent,
                if mirror(p) { " (exact mirror)" } else { "" }
            ))
            .into_owned(),
            mean: p.mbb,
            low: p.low,
            high: p.high,
        })
        .collect();
    s.push_str(&charts::intervals(&bars));
    s.push_str("</div>\n<p class=\"meta\">Generated by pitboss.</p>\n</body></html>\n");
    s
}
