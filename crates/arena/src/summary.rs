//! From sums to the numbers people read: means, confidence intervals and poker statistics, the
//! `summary.csv` of docs/CONTRACTS.md (contract 3) and the leaderboard table printed after a match.

use std::io::Write;

use pitboss_protocol::FaultKind;
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::stats::BotStats;

/// One row of `summary.csv`. The first ten columns are the contract of docs/CONTRACTS.md; `ci95_*` and
/// `std_dev` are in mbb/hand, over hands or (duplicate) over duplicate units.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SummaryRow {
    pub bot: String,
    pub hands: u64,
    pub net_chips: i64,
    pub mean_per_hand: f64,
    /// The chips of one game unit (big blind, or stud small bet).
    pub unit: u64,
    pub mbb_per_hand: f64,
    pub ci95_low: f64,
    pub ci95_high: f64,
    pub std_dev: f64,
    pub faults: u64,
    /// Samples behind the interval: hands, or duplicate units.
    pub units: u64,
    pub vpip_pct: f64,
    pub first_round_raise_pct: f64,
    pub aggression: f64,
    pub wtsd_pct: f64,
    pub wsd_pct: f64,
    pub avg_cards_drawn: f64,
    pub scoop_pct: f64,
    pub low_wins: u64,
    #[serde(skip)]
    pub fault_kinds: [u64; FaultKind::ALL.len()],
    /// The luck-adjusted mean and 95% interval (crate `pitboss-luck`), mbb/hand; `None` when the
    /// match did not adjust. Unbiased for the same quantity as `mbb_per_hand`.
    pub adj_mbb_per_hand: Option<f64>,
    pub adj_ci95_low: Option<f64>,
    pub adj_ci95_high: Option<f64>,
    /// The adjusted standard deviation, mbb per hand or per duplicate unit, like `std_dev`.
    pub adj_std_dev: Option<f64>,
}

fn pct(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        100.0 * a as f64 / b as f64
    }
}

/// The 97.5% quantile of Student's t with `df` degrees of freedom (1.96 in the limit).
pub fn t975(df: u64) -> f64 {
    if df == 0 {
        return f64::NAN;
    }
    StudentsT::new(0.0, 1.0, df as f64)
        .map(|t| t.inverse_cdf(0.975))
        .unwrap_or(1.959964)
}

/// Mean, standard deviation and 95% interval of per-unit values given by their sums.
pub fn interval(n: u64, sum: i128, sum_sq: i128) -> (f64, f64, f64, f64) {
    if n == 0 {
        return (0.0, 0.0, 0.0, 0.0);
    }
    let nf = n as f64;
    let mean = sum as f64 / nf;
    let var = if n > 1 {
        // Exact integer numerator: n*Σx² - (Σx)², then one division.
        let num = (n as i128) * sum_sq - sum * sum;
        (num as f64 / (nf * (nf - 1.0))).max(0.0)
    } else {
        0.0
    };
    let sd = var.sqrt();
    let half = if n > 1 {
        t975(n - 1) * sd / nf.sqrt()
    } else {
        f64::INFINITY
    };
    (mean, sd, mean - half, mean + half)
}

impl SummaryRow {
    /// `hands_per_unit` is 1, or the number of seat rotations of a duplicate unit.
    pub fn new(bot: &str, s: &BotStats, unit: u64, hands_per_unit: u64) -> SummaryRow {
        let (_, sd_u, lo_u, hi_u) = interval(s.units, s.unit_net, s.unit_sq);
        let to_mbb = |x: f64| x / hands_per_unit as f64 / unit as f64 * 1000.0;
        let round = |x: f64| (x * 1000.0).round() / 1000.0;
        SummaryRow {
            bot: bot.to_string(),
            hands: s.hands,
            net_chips: s.net as i64,
            mean_per_hand: round(if s.hands > 0 {
                s.net as f64 / s.hands as f64
            } else {
                0.0
            }),
            unit,
            mbb_per_hand: round(if s.hands > 0 {
                s.net as f64 / s.hands as f64 / unit as f64 * 1000.0
            } else {
                0.0
            }),
            ci95_low: round(to_mbb(lo_u)),
            ci95_high: round(to_mbb(hi_u)),
            std_dev: round(to_mbb(sd_u)),
            faults: s.fault_total(),
            units: s.units,
            vpip_pct: round(pct(s.vpip, s.hands)),
            first_round_raise_pct: round(pct(s.first_round_raise, s.hands)),
            aggression: round(if s.calls == 0 {
                s.bets_raises as f64
            } else {
                s.bets_raises as f64 / s.calls as f64
            }),
            wtsd_pct: round(pct(s.showdowns, s.hands)),
            wsd_pct: round(pct(s.showdowns_won, s.showdowns)),
            avg_cards_drawn: round(if s.draws == 0 {
                0.0
            } else {
                s.cards_drawn as f64 / s.draws as f64
            }),
            scoop_pct: round(pct(s.scoops, s.showdowns)),
            low_wins: s.low_wins,
            fault_kinds: s.faults,
            adj_mbb_per_hand: None,
            adj_ci95_low: None,
            adj_ci95_high: None,
            adj_std_dev: None,
        }
        .with_adjusted(s, unit, hands_per_unit)
    }

    /// Fills the `adj_*` fields when every hand of `s` has a luck-adjusted result.
    fn with_adjusted(mut self, s: &BotStats, unit: u64, hands_per_unit: u64) -> SummaryRow {
        if s.hands == 0 || s.adj_hands != s.hands {
            return self;
        }
        // The sums are in thousandths of a chip: thousandths of a chip per unit are mbb of a
        // one-chip unit, so only the division by the unit and the hands per unit remains.
        let (_, sd, lo, hi) = interval(s.units, s.adj_unit_net, s.adj_unit_sq);
        let to_mbb = |x: f64| x / hands_per_unit as f64 / unit as f64;
        let round = |x: f64| (x * 1000.0).round() / 1000.0;
        self.adj_mbb_per_hand = Some(round(s.adj_net as f64 / s.hands as f64 / unit as f64));
        self.adj_ci95_low = Some(round(to_mbb(lo)));
        self.adj_ci95_high = Some(round(to_mbb(hi)));
        self.adj_std_dev = Some(round(to_mbb(sd)));
        self
    }
}

/// Writes `summary.csv`: the contract columns, the poker statistics, then one column per fault
/// kind (`fault_timeout`, `fault_crash`, ...).
///
/// # Errors
/// I/O or CSV errors from the writer.
pub fn write_csv<W: Write>(w: W, rows: &[SummaryRow]) -> Result<(), csv::Error> {
    let mut out = csv::Writer::from_writer(w);
    let mut header: Vec<String> = [
        "bot",
        "hands",
        "net_chips",
        "mean_per_hand",
        "unit",
        "mbb_per_hand",
        "ci95_low",
        "ci95_high",
        "std_dev",
        "faults",
        "units",
        "vpip_pct",
        "first_round_raise_pct",
        "aggression",
        "wtsd_pct",
        "wsd_pct",
        "avg_cards_drawn",
        "scoop_pct",
        "low_wins",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    header.extend(FaultKind::ALL.iter().map(|k| format!("fault_{}", k.name())));
    header.extend(
        [
            "adj_mbb_per_hand",
            "adj_ci95_low",
            "adj_ci95_high",
            "adj_std_dev",
        ]
        .map(String::from),
    );
    out.write_record(&header)?;
    for r in rows {
        let mut rec = vec![
            // A name never starts a formula; checked again here (defence in depth: a valid
            // name is unchanged, so the contract's bytes are too).
            crate::name::csv_cell(&r.bot).into_owned(),
            r.hands.to_string(),
            r.net_chips.to_string(),
            format!("{:.3}", r.mean_per_hand),
            r.unit.to_string(),
            format!("{:.3}", r.mbb_per_hand),
            format!("{:.3}", r.ci95_low),
            format!("{:.3}", r.ci95_high),
            format!("{:.3}", r.std_dev),
            r.faults.to_string(),
            r.units.to_string(),
            format!("{:.3}", r.vpip_pct),
            format!("{:.3}", r.first_round_raise_pct),
            format!("{:.3}", r.aggression),
            format!("{:.3}", r.wtsd_pct),
            format!("{:.3}", r.wsd_pct),
            format!("{:.3}", r.avg_cards_drawn),
            format!("{:.3}", r.scoop_pct),
            r.low_wins.to_string(),
        ];
        rec.extend(r.fault_kinds.iter().map(|f| f.to_string()));
        let opt = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v:.3}"));
        rec.extend([
            opt(r.adj_mbb_per_hand),
            opt(r.adj_ci95_low),
            opt(r.adj_ci95_high),
            opt(r.adj_std_dev),
        ]);
        out.write_record(&rec)?;
    }
    out.flush()?;
    Ok(())
}

/// The leaderboard as a plain-text table, best mbb/hand first (raw results rank; the luck-adjusted
/// mean and interval follow when the match computed them).
pub fn table(rows: &[SummaryRow]) -> String {
    let mut sorted: Vec<&SummaryRow> = rows.iter().collect();
    sorted.sort_by(|a, b| b.mbb_per_hand.total_cmp(&a.mbb_per_hand));
    let adjusted = rows.iter().all(|r| r.adj_mbb_per_hand.is_some());
    let mut s = format!(
        "{:<4} {:<24} {:>10} {:>14} {:>12} {:>25} {:>7}",
        "rank", "bot", "hands", "net chips", "mbb/hand", "95% interval", "faults"
    );
    if adjusted {
        s.push_str(&format!(
            " {:>12} {:>25}",
            "adj mbb/hand", "adj 95% interval"
        ));
    }
    s.push('\n');
    for (i, r) in sorted.iter().enumerate() {
        s.push_str(&format!(
            "{:<4} {:<24} {:>10} {:>14} {:>12.1} {:>25} {:>7}",
            i + 1,
            crate::name::one_line(&r.bot),
            r.hands,
            r.net_chips,
            r.mbb_per_hand,
            format!("[{:.1}, {:.1}]", r.ci95_low, r.ci95_high),
            r.faults
        ));
        if let (true, Some(m), Some(lo), Some(hi)) = (
            adjusted,
            r.adj_mbb_per_hand,
            r.adj_ci95_low,
            r.adj_ci95_high,
        ) {
            s.push_str(&format!(" {m:>12.1} {:>25}", format!("[{lo:.1}, {hi:.1}]")));
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_of_known_sample() {
        // 1, 2, 3, 4: mean 2.5, sd 1.29099, t(3) = 3.18245
        let (m, sd, lo, hi) = interval(4, 10, 30);
        assert!((m - 2.5).abs() < 1e-12);
        assert!((sd - 1.290994).abs() < 1e-6);
        assert!((hi - m - 3.182446 * sd / 2.0).abs() < 1e-5);
        assert!((m - lo - (hi - m)).abs() < 1e-12);
    }
}
