//! `leaderboard.md`: the leaderboard and the pairings as Markdown tables.

use super::Report;
use pitboss_arena::name::markdown as md;

/// The Markdown report.
pub fn leaderboard(r: &Report) -> String {
    let cfg = &r.plan.config;
    let mut s = format!("# {}\n\n", md(&r.title));
    s.push_str(&format!(
        "Games: {}. Format: {}. {} duplicate deals per table and game (each in every seat rotation), seed {}{}.\n\n",
        cfg.games.join(", "),
        match cfg.format {
            crate::Format::HeadsUp => "heads-up round robin".to_string(),
            crate::Format::Ring => format!("ring tables of {}", cfg.table_size),
        },
        cfg.deals,
        cfg.seed,
        cfg.sprt.map_or(String::new(), |s| format!(
            ", SPRT m0 = {} m1 = {} mbb/hand, α = {}, β = {}",
            s.m0, s.m1, s.alpha, s.beta
        ))
    ));
    s.push_str("| rank | bot | games | hands | mbb/hand vs field [95% CI] | bankroll rank | runoff rank | rating [95% CI] | faults |\n");
    s.push_str("|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for b in &r.bots {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {:.1} [{:.1}, {:.1}] | {} | {} | {:.1} [{:.1}, {:.1}] | {} |\n",
            b.rank,
            md(&b.bot),
            b.games,
            b.hands,
            b.field.value,
            b.field.low,
            b.field.high,
            b.bankroll_rank,
            b.runoff_rank,
            b.rating.value,
            b.rating.low,
            b.rating.high,
            b.faults
        ));
    }
    if r.bots.iter().any(|b| !b.illegal.is_empty()) {
        s.push_str(
            "\nIllegal actions (the first of each bot, with the rules' reasons; each was penalised \
             as protocol.md says and counted in faults):\n\n",
        );
        for b in r.bots.iter().filter(|b| !b.illegal.is_empty()) {
            for line in &b.illegal {
                s.push_str(&format!("- {}: {}\n", md(&b.bot), md(line)));
            }
        }
    }
    if cfg.luck_adjust {
        s.push_str(
            "\nRanked by the luck-adjusted results (`--luck-adjust`: ratings, ranks and SPRT use \
             them; the mbb/hand column above is raw). Luck-adjusted mbb/hand vs field [95% CI]:\n\n",
        );
        s.push_str("| bot | adjusted mbb/hand vs field [95% CI] |\n|---|---:|\n");
        for b in &r.bots {
            if let Some(a) = b.adj_field {
                s.push_str(&format!(
                    "| {} | {:.1} [{:.1}, {:.1}] |\n",
                    md(&b.bot),
                    a.value,
                    a.low,
                    a.high
                ));
            }
        }
    }
    s.push_str("\nIntervals of the field mean and the rating: bootstrap over duplicate deals (the same resampled deals at every table of a game), ");
    s.push_str(&format!(
        "{} resamples. Pairing intervals: Student t over duplicate deals.\n\n",
        cfg.bootstrap
    ));
    s.push_str("## Pairings\n\n| game | bot | opponent | hands | mbb/hand [95% CI] | significant | SPRT |\n|---|---|---|---:|---:|---|---|\n");
    for p in r
        .pairs
        .iter()
        .filter(|p| p.position == 0 || cfg.table_size > 2)
    {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {:.1} [{:.1}, {:.1}] | {} | {} |\n",
            p.game,
            md(&p.bot),
            md(&p.opponent),
            p.hands,
            p.mbb,
            p.low,
            p.high,
            p.significance,
            md(&p.sprt)
        ));
    }
    s.push_str("\n## Each bot's pairings, from its own side\n\nEvery row is the first column's bot's own result (positive: it won), whichever bot the pairing names first.\n\n| bot | game | opponent | hands | mbb/hand [95% CI] | result |\n|---|---|---|---:|---:|---|\n");
    for b in &r.bots {
        for p in r.pairs.iter().filter(|p| p.bot == b.bot) {
            s.push_str(&format!(
                "| {} | {} | {} | {} | {:.1} [{:.1}, {:.1}] | {} |\n",
                md(&p.bot),
                p.game,
                md(&p.opponent),
                p.hands,
                p.mbb,
                p.low,
                p.high,
                match p.significance {
                    "win" => "won",
                    "loss" => "lost",
                    _ => "not significant",
                }
            ));
        }
    }
    if cfg.luck_adjust {
        s.push_str("\n## Pairings, luck-adjusted\n\n| game | bot | opponent | adjusted mbb/hand [95% CI] |\n|---|---|---|---:|\n");
        for p in r
            .pairs
            .iter()
            .filter(|p| p.position == 0 || cfg.table_size > 2)
        {
            if let Some((m, lo, hi)) = p.adj {
                s.push_str(&format!(
                    "| {} | {} | {} | {m:.1} [{lo:.1}, {hi:.1}] |\n",
                    p.game,
                    md(&p.bot),
                    md(&p.opponent)
                ));
            }
        }
    }
    s
}
