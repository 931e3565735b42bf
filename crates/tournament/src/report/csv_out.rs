//! `leaderboard.csv` and `crosstable.csv`. Numbers have fixed decimals so equal results give
//! byte-equal files.

use super::Report;
use crate::TournamentError;

fn csv_err(what: &str) -> impl FnOnce(csv::Error) -> TournamentError + '_ {
    move |source| TournamentError::Csv {
        what: what.to_string(),
        source,
    }
}

/// A name cell: never a formula (a valid name is unchanged; a plan edited by hand may hold
/// anything).
fn cell(name: &str) -> String {
    pitboss_arena::name::csv_cell(name).into_owned()
}

fn f3(x: f64) -> String {
    format!("{x:.3}")
}

/// `rank,bot,games,hands,mbb_per_hand,ci95_low,ci95_high,bankroll_rank,runoff_rank,rating,
/// rating_low,rating_high,faults,adj_mbb_per_hand,adj_ci95_low,adj_ci95_high` — one row per bot,
/// best first (the `adj_*` columns empty without luck adjustment).
///
/// # Errors
/// CSV errors.
pub fn leaderboard(r: &Report) -> Result<Vec<u8>, TournamentError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let e = csv_err("leaderboard.csv");
    let res = (|| -> Result<(), csv::Error> {
        w.write_record([
            "rank",
            "bot",
            "games",
            "hands",
            "mbb_per_hand",
            "ci95_low",
            "ci95_high",
            "bankroll_rank",
            "runoff_rank",
            "rating",
            "rating_low",
            "rating_high",
            "faults",
            "adj_mbb_per_hand",
            "adj_ci95_low",
            "adj_ci95_high",
        ])?;
        for b in &r.bots {
            w.write_record([
                b.rank.to_string(),
                cell(&b.bot),
                b.games.to_string(),
                b.hands.to_string(),
                f3(b.field.value),
                f3(b.field.low),
                f3(b.field.high),
                b.bankroll_rank.to_string(),
                b.runoff_rank.to_string(),
                f3(b.rating.value),
                f3(b.rating.low),
                f3(b.rating.high),
                b.faults.to_string(),
                b.adj_field.map_or(String::new(), |a| f3(a.value)),
                b.adj_field.map_or(String::new(), |a| f3(a.low)),
                b.adj_field.map_or(String::new(), |a| f3(a.high)),
            ])?;
        }
        w.flush()?;
        Ok(())
    })();
    res.map_err(e)?;
    Ok(w.into_inner().expect("flushed"))
}

/// `game,bot,opponent,hands,mbb_per_hand,ci95_low,ci95_high,significance,sprt,batches,
/// adj_mbb_per_hand,adj_ci95_low,adj_ci95_high` — one row per bot and table (both directions of
/// every pairing; the `adj_*` columns empty without luck adjustment).
///
/// # Errors
/// CSV errors.
pub fn crosstable(r: &Report) -> Result<Vec<u8>, TournamentError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let e = csv_err("crosstable.csv");
    let res = (|| -> Result<(), csv::Error> {
        w.write_record([
            "game",
            "bot",
            "opponent",
            "hands",
            "mbb_per_hand",
            "ci95_low",
            "ci95_high",
            "significance",
            "sprt",
            "batches",
            "adj_mbb_per_hand",
            "adj_ci95_low",
            "adj_ci95_high",
        ])?;
        for p in &r.pairs {
            w.write_record([
                p.game.clone(),
                cell(&p.bot),
                cell(&p.opponent),
                p.hands.to_string(),
                f3(p.mbb),
                f3(p.low),
                f3(p.high),
                p.significance.to_string(),
                p.sprt.clone(),
                p.batches.to_string(),
                p.adj.map_or(String::new(), |a| f3(a.0)),
                p.adj.map_or(String::new(), |a| f3(a.1)),
                p.adj.map_or(String::new(), |a| f3(a.2)),
            ])?;
        }
        w.flush()?;
        Ok(())
    })();
    res.map_err(e)?;
    Ok(w.into_inner().expect("flushed"))
}
