//! The report's bot-centred parts: each bot's pairings read from its own side, each bot's play
//! statistics per game, and the links to the hands a tournament kept (`--history`).
//!
//! Why a view per bot: a pairing is planned with one bot first, and the crosstable, the pairing
//! chart and the SPRT speak of that first bot; a bot submitted to a registry is always the second
//! of its pairings, so its results there read with the sign flipped. Here every row is the bot's
//! own: positive mbb/hand means it won.

use super::html::esc;
use super::{HandsLink, PairRow, Report};
use pitboss_arena::stats::BotStats;
use pitboss_arena::summary::SummaryRow;
use pitboss_rules::{Preset, Variant};

/// The anchor of bot `name`'s section (by its index among the report's bots: a name may hold
/// anything an id may not).
pub fn anchor(r: &Report, name: &str) -> String {
    let i = r.bots.iter().position(|b| b.bot == name).unwrap_or(0);
    format!("bot-{i}")
}

/// A path as one shell word: unchanged when it holds only safe characters, else single-quoted.
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._~+/-".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The command that shows hand `hand` of a kept history, from the report's folder.
pub fn show_command(l: &HandsLink, hand: u64) -> String {
    format!("pitboss phh show {} --hand {hand}", shell_word(&l.path))
}

/// A link to a table's kept hands (HTML), or an empty string.
pub fn hands_cell(l: Option<&HandsLink>) -> String {
    l.map_or(String::new(), |l| {
        format!(
            "<a href=\"{}\" title=\"{}\">{} hands</a>",
            esc(&l.href),
            esc(&show_command(l, 1)),
            l.hands
        )
    })
}

fn result_word(p: &PairRow) -> &'static str {
    if super::html::mirror(p) {
        "exact mirror"
    } else {
        match p.significance {
            "win" => "won",
            "loss" => "lost",
            _ => "not significant",
        }
    }
}

/// Each bot's pairings from its own side.
pub fn own_side(r: &Report, links: &[Option<HandsLink>], out: &mut String) {
    let cfg = &r.plan.config;
    out.push_str("<h2>Each bot's pairings, from its own side</h2>\n");
    out.push_str("<p class=\"meta\">One table per bot, best first. Every number is <b>this bot's</b>: mbb/hand is what it won per hand against the opponent(s) of the row (positive: it won), whichever bot the pairing names first (the crosstable, the pairing chart and the SPRT speak of the first-named bot; a bot submitted to a registry is always the second). \
Columns: <b>game</b>; <b>opponent</b> (at ring tables, the other bots of the table joined by +); <b>hands</b> this bot played there; <b>mbb/hand</b>, thousandths of the game's unit (big blind; stud: small bet) won per hand; <b>95% interval</b> of it (Student t over duplicate deals); ");
    if cfg.luck_adjust {
        out.push_str("<b>adjusted</b>, the luck-adjusted mbb/hand and its interval; ");
    }
    out.push_str("<b>result</b>: won or lost when the interval excludes 0, else not significant (an exact mirror nets 0 on every deal); <b>SPRT</b>: the sequential test's decision about the first-named bot (H1: better by at least m1 mbb/hand, H0: not better than m0; off without --sprt); <b>kept hands</b>: with <code>--history</code>, a link to the first hands of the pairing (PHH), to read with the command in its tooltip, e.g. <code>pitboss phh show hands/FILE.phhs --hand 1</code> from the report's folder.</p>\n");
    for b in &r.bots {
        out.push_str(&format!(
            "<h3 id=\"{}\">{}. {}</h3>\n<table class=\"ownside\"><tr><th class=\"name\">game</th><th class=\"name\">opponent</th><th>hands</th><th>mbb/hand</th><th>95% interval</th>",
            anchor(r, &b.bot),
            b.rank,
            esc(&b.bot)
        ));
        if cfg.luck_adjust {
            out.push_str("<th>adjusted mbb/hand</th><th>adjusted 95% interval</th>");
        }
        out.push_str(
            "<th>result</th><th class=\"name\">SPRT</th><th class=\"name\">kept hands</th></tr>\n",
        );
        for p in r.pairs.iter().filter(|p| p.bot == b.bot) {
            out.push_str(&format!(
                "<tr><td class=\"name\">{}</td><td class=\"name\">{}</td><td>{}</td><td class=\"{}\">{:.1}</td><td>[{:.1}, {:.1}]</td>",
                esc(&p.game),
                esc(&p.opponent),
                p.hands,
                p.significance,
                p.mbb,
                p.low,
                p.high
            ));
            if let Some((v, lo, hi)) = p.adj {
                out.push_str(&format!("<td>{v:.1}</td><td>[{lo:.1}, {hi:.1}]</td>"));
            }
            out.push_str(&format!(
                "<td>{}</td><td class=\"name\">{}</td><td class=\"name\">{}</td></tr>\n",
                result_word(p),
                esc(&p.sprt),
                hands_cell(links.get(p.table).and_then(Option::as_ref))
            ));
        }
        out.push_str("</table>\n");
    }
}

/// The play statistics of every bot, one table per game, every column explained under it.
pub fn play_statistics(r: &Report, out: &mut String) {
    let cfg = &r.plan.config;
    out.push_str("<h2>Play statistics</h2>\n");
    for (g, game) in cfg.games.iter().enumerate() {
        let preset = Preset::by_name(game).ok();
        let unit = preset.map_or(1, |p| p.game.unit());
        let stud = preset.is_some_and(|p| p.game.variant == Variant::StudHiLo);
        out.push_str(&format!("<h3>{}</h3>\n<table class=\"playstats\"><tr><th class=\"name\">bot</th><th>hands</th><th>VPIP %</th><th>first-round raise %</th><th>aggression</th><th>fold to a bet %</th><th>showdown %</th><th>won at showdown %</th><th>{}</th></tr>\n",
            esc(game),
            if stud { "scoop %" } else { "cards per draw" }));
        for b in &r.bots {
            let mut s = BotStats::default();
            for t in r.standings.tables.iter().filter(|t| t.game == g) {
                for (p, &i) in t.bots.iter().enumerate() {
                    if cfg.bots[i].name == b.bot {
                        s.merge(&t.stats[p]);
                    }
                }
            }
            if s.hands == 0 {
                continue;
            }
            let row = SummaryRow::new(&b.bot, &s, unit, 1);
            let fold = if s.faced_bets == 0 {
                0.0
            } else {
                100.0 * s.folds_to_bet as f64 / s.faced_bets as f64
            };
            out.push_str(&format!(
                "<tr><td class=\"name\"><a href=\"#{}\">{}</a></td><td>{}</td><td>{:.1}</td><td>{:.1}</td><td>{:.2}</td><td>{fold:.1}</td><td>{:.1}</td><td>{:.1}</td><td>{}</td></tr>\n",
                anchor(r, &b.bot),
                esc(&b.bot),
                s.hands,
                row.vpip_pct,
                row.first_round_raise_pct,
                row.aggression,
                row.wtsd_pct,
                row.wsd_pct,
                if stud {
                    format!("{:.1}", row.scoop_pct)
                } else {
                    format!("{:.2}", row.avg_cards_drawn)
                }
            ));
        }
        out.push_str("</table>\n");
    }
    out.push_str("<p class=\"meta\">Over every hand each bot played in the game, all pairings together (the columns of summary.csv after <code>pitboss match</code>). \
<b>hands</b>: hands played. \
<b>VPIP %</b>: voluntarily put chips in the pot: hands in which the bot called or raised in the first betting round (blinds, antes and the bring-in do not count). \
<b>first-round raise %</b>: hands in which it bet or raised in the first betting round. \
<b>aggression</b>: its bets and raises divided by its calls, over all rounds (above 1: it raises more than it calls; the count of bets and raises when it never called). \
<b>fold to a bet %</b>: of its decisions facing another seat's bet or raise (blinds and bring-ins aside), the share it folded. \
<b>showdown %</b>: hands it took to showdown (showed or mucked at the end). \
<b>won at showdown %</b>: of those showdowns, the share where it won chips. \
<b>cards per draw</b> (draw games): cards it discarded per draw, on average. \
<b>scoop %</b> (stud hi-lo): of its showdowns, the share where it took the whole pot.</p>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_are_quoted_when_needed() {
        assert_eq!(
            shell_word("hands/27td-fl~a~b.phhs"),
            "hands/27td-fl~a~b.phhs"
        );
        assert_eq!(shell_word("hands/a b.phhs"), "'hands/a b.phhs'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
    }
}
