//! Reports of a tournament: `leaderboard.csv`, `crosstable.csv`, `leaderboard.md` and a
//! self-contained `report.html` (inline CSS and SVG charts), all computed from the standings and
//! therefore identical for identical unit results. No timings go into these files.

mod bots;
mod charts;
mod csv_out;
mod html;
mod md;

use std::path::Path;

use crate::ratings::{self, Estimate, TableSample};
use crate::sprt::Decision;
use crate::{Plan, Standings, TournamentError};
use pitboss_arena::output::write_atomic;
use pitboss_arena::runner::derive_seed;
use pitboss_arena::summary::interval;

/// One bot's line of the leaderboard.
#[derive(Clone, Debug, PartialEq)]
pub struct BotRow {
    pub rank: usize,
    pub bot: String,
    pub games: usize,
    pub hands: u64,
    /// mbb/hand against the field (total bankroll), with a bootstrap 95% interval.
    pub field: Estimate,
    pub bankroll_rank: usize,
    pub runoff_rank: usize,
    /// Least-squares rating (mbb/hand), with a bootstrap 95% interval.
    pub rating: Estimate,
    pub faults: u64,
    /// The rules' reasons for the bot's first illegal actions, over its tables in plan order
    /// (at most [`pitboss_arena::runner::ILLEGAL_NOTES`]), each preceded by the game and the
    /// opponents: what its author needs to fix it, which a count of faults does not say.
    pub illegal: Vec<String>,
    /// The luck-adjusted mbb/hand against the field (plans with `luck_adjust`).
    pub adj_field: Option<Estimate>,
}

/// One bot's result at one table of one game.
#[derive(Clone, Debug, PartialEq)]
pub struct PairRow {
    pub game: String,
    pub bot: String,
    /// The opponent (heads-up) or the other bots of the table joined by `+`.
    pub opponent: String,
    pub hands: u64,
    pub mbb: f64,
    pub low: f64,
    pub high: f64,
    /// `win`, `loss` (the 95% interval excludes 0) or `none`.
    pub significance: &'static str,
    /// The SPRT decision about the table's first bot (`off` without SPRT).
    pub sprt: String,
    pub batches: u64,
    /// Index into `Report::tables`.
    pub table: usize,
    pub position: usize,
    /// The luck-adjusted mean and 95% interval (plans with `luck_adjust`).
    pub adj: Option<(f64, f64, f64)>,
}

/// A table's kept hands (`--history`), as the report links them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandsLink {
    /// The file, relative to the report's folder: `hands/<game>~<bot>~<bot>.phhs`.
    pub path: String,
    /// The same, percent-encoded for an `href`.
    pub href: String,
    /// Hands in the file.
    pub hands: u64,
}

/// Everything the report files show.
pub struct Report {
    pub title: String,
    pub plan: Plan,
    pub standings: Standings,
    /// Sorted by rank.
    pub bots: Vec<BotRow>,
    pub pairs: Vec<PairRow>,
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

impl Report {
    /// Computes rankings, ratings (bootstrap seeded from the tournament seed) and table rows.
    pub fn build(plan: &Plan, standings: &Standings) -> Report {
        let cfg = &plan.config;
        let n = cfg.bots.len();
        let samples: Vec<TableSample> = standings
            .tables
            .iter()
            .map(|t| TableSample {
                game: t.game,
                bots: t.bots.clone(),
                units: (0..t.bots.len()).map(|p| t.mbb_units(p)).collect(),
            })
            .collect();
        let raw = ratings::rate(n, &samples, cfg.bootstrap, derive_seed(cfg.seed, 0xb007, 0));
        // With luck adjustment the ranks and ratings come from the adjusted values (unbiased for
        // the same quantities, narrower); the raw bankroll columns stay raw.
        let adjusted = cfg.luck_adjust.then(|| {
            let samples: Vec<TableSample> = standings
                .tables
                .iter()
                .map(|t| TableSample {
                    game: t.game,
                    bots: t.bots.clone(),
                    units: (0..t.bots.len())
                        .map(|p| {
                            t.adj_mbb_units(p)
                                .expect("adjusted plans adjust every unit")
                        })
                        .collect(),
                })
                .collect();
            ratings::rate(n, &samples, cfg.bootstrap, derive_seed(cfg.seed, 0xb007, 0))
        });
        let r = adjusted.as_ref().unwrap_or(&raw);
        let mut hands = vec![0u64; n];
        let mut faults = vec![0u64; n];
        let mut games = vec![std::collections::BTreeSet::new(); n];
        let mut illegal = vec![Vec::new(); n];
        for t in &standings.tables {
            for (p, &b) in t.bots.iter().enumerate() {
                hands[b] += t.stats[p].hands;
                faults[b] += t.stats[p].fault_total();
                games[b].insert(t.game);
                let room = pitboss_arena::runner::ILLEGAL_NOTES.saturating_sub(illegal[b].len());
                let against = t
                    .bots
                    .iter()
                    .enumerate()
                    .filter(|&(q, _)| q != p)
                    .map(|(_, &o)| cfg.bots[o].name.as_str())
                    .collect::<Vec<_>>()
                    .join(" + ");
                illegal[b].extend(
                    t.illegal
                        .get(p)
                        .into_iter()
                        .flatten()
                        .take(room)
                        .map(|line| format!("{} against {against}, {line}", cfg.games[t.game])),
                );
            }
        }
        let rating_values: Vec<f64> = r.rating.iter().map(|e| e.value).collect();
        let rank = ratings::ranks(&rating_values);
        let mut bots: Vec<BotRow> = (0..n)
            .map(|b| BotRow {
                rank: rank[b],
                bot: cfg.bots[b].name.clone(),
                games: games[b].len(),
                hands: hands[b],
                field: raw.bankroll[b],
                bankroll_rank: r.bankroll_rank[b],
                runoff_rank: r.runoff_rank[b],
                rating: r.rating[b],
                faults: faults[b],
                illegal: std::mem::take(&mut illegal[b]),
                adj_field: adjusted.as_ref().map(|a| a.bankroll[b]),
            })
            .collect();
        bots.sort_by_key(|b| b.rank);
        let mut pairs = Vec::new();
        for (ti, t) in standings.tables.iter().enumerate() {
            let k = t.bots.len();
            let scale = 1000.0 / k as f64 / t.unit_chips as f64;
            for p in 0..k {
                let s = &t.stats[p];
                let (mean, _, lo, hi) = interval(s.units, s.unit_net, s.unit_sq);
                let (mbb, low, high) =
                    (round3(mean * scale), round3(lo * scale), round3(hi * scale));
                let adj = cfg.luck_adjust.then(|| {
                    let (m, _, lo, hi) = interval(s.units, s.adj_unit_net, s.adj_unit_sq);
                    let sc = scale / 1000.0;
                    (round3(m * sc), round3(lo * sc), round3(hi * sc))
                });
                let opponent = t
                    .bots
                    .iter()
                    .filter(|&&o| o != t.bots[p])
                    .map(|&o| cfg.bots[o].name.as_str())
                    .collect::<Vec<_>>()
                    .join("+");
                let sprt = match (&cfg.sprt, t.decision) {
                    (None, _) => "off".to_string(),
                    (Some(_), Decision::Undecided) => "undecided".to_string(),
                    (Some(_), d) => format!("{} for {}", d.name(), cfg.bots[t.bots[0]].name),
                };
                pairs.push(PairRow {
                    game: cfg.games[t.game].clone(),
                    bot: cfg.bots[t.bots[p]].name.clone(),
                    opponent,
                    hands: s.hands,
                    mbb,
                    low,
                    high,
                    significance: if low > 0.0 {
                        "win"
                    } else if high < 0.0 {
                        "loss"
                    } else {
                        "none"
                    },
                    sprt,
                    batches: t.batches,
                    table: ti,
                    position: p,
                    adj,
                });
            }
        }
        Report {
            title: cfg.name.clone(),
            plan: plan.clone(),
            standings: standings.clone(),
            bots,
            pairs,
        }
    }

    /// The kept hands of each table (index into `standings.tables`) found in `dir`'s `hands/`
    /// folder (see [`crate::history`]).
    pub fn hands_links(&self, dir: &Path) -> Vec<Option<HandsLink>> {
        crate::history::first_units(&self.plan)
            .map(|u| {
                let file = crate::history::path(dir, u);
                let text = std::fs::read(&file).ok()?;
                let hands = text
                    .split(|&b| b == b'\n')
                    .filter(|l| l.first() == Some(&b'['))
                    .count() as u64;
                let name = file.file_name()?.to_string_lossy().into_owned();
                Some(HandsLink {
                    path: format!("{}/{name}", crate::history::FOLDER),
                    href: crate::history::href(u),
                    hands,
                })
            })
            .collect()
    }

    /// The kept hands of bot `name`'s tables, from its own side: (game, opponent, link).
    pub fn hands_of(&self, dir: &Path, name: &str) -> Vec<(String, String, HandsLink)> {
        let links = self.hands_links(dir);
        self.pairs
            .iter()
            .filter(|p| p.bot == name)
            .filter_map(|p| {
                let l = links.get(p.table)?.clone()?;
                Some((p.game.clone(), p.opponent.clone(), l))
            })
            .collect()
    }

    /// Writes the four report files into `dir`; `report.html` links the hands kept in
    /// `dir/hands/` (gather those of shard folders first: [`crate::history::gather`]).
    ///
    /// # Errors
    /// I/O errors naming the file.
    pub fn write(&self, dir: &Path) -> Result<(), TournamentError> {
        std::fs::create_dir_all(dir).map_err(TournamentError::io(dir))?;
        let links = self.hands_links(dir);
        let files: [(&str, Vec<u8>); 4] = [
            ("leaderboard.csv", csv_out::leaderboard(self)?),
            ("crosstable.csv", csv_out::crosstable(self)?),
            ("leaderboard.md", md::leaderboard(self).into_bytes()),
            ("report.html", html::page(self, &links).into_bytes()),
        ];
        for (name, bytes) in files {
            let p = dir.join(name);
            write_atomic(&p, &bytes).map_err(TournamentError::io(&p))?;
        }
        Ok(())
    }

    /// The leaderboard as a plain-text table for the terminal.
    pub fn text_table(&self) -> String {
        let mut s = format!(
            "{:<4} {:<20} {:>10} {:>26} {:>5} {:>5} {:>26} {:>6}\n",
            "rank",
            "bot",
            "hands",
            "mbb/hand vs field [95%]",
            "bank",
            "irv",
            "rating [95%]",
            "faults"
        );
        for b in &self.bots {
            s.push_str(&format!(
                "{:<4} {:<20} {:>10} {:>26} {:>5} {:>5} {:>26} {:>6}\n",
                b.rank,
                pitboss_arena::name::one_line(&b.bot),
                b.hands,
                format!(
                    "{:.1} [{:.1}, {:.1}]",
                    b.field.value, b.field.low, b.field.high
                ),
                b.bankroll_rank,
                b.runoff_rank,
                format!(
                    "{:.1} [{:.1}, {:.1}]",
                    b.rating.value, b.rating.low, b.rating.high
                ),
                b.faults
            ));
            if let Some(a) = b.adj_field {
                s.pop();
                s.push_str(&format!(
                    " {:>26}\n",
                    format!("{:.1} [{:.1}, {:.1}]", a.value, a.low, a.high)
                ));
            }
        }
        if self.plan.config.luck_adjust {
            s.push_str(
                "ranked by the luck-adjusted results (last column: adjusted mbb/hand vs field \
                 [95%]; the raw ones are the third)\n",
            );
        }
        s.push_str(LEGEND);
        s
    }
}

/// What each column of [`Report::text_table`] is, printed under it: a column nobody explains is
/// a column nobody reads right.
const LEGEND: &str = "columns: mbb/hand vs field = milli-big-blinds won per hand against the \
other bots, with its 95% interval; bank = rank by that total bankroll; irv = rank by instant \
runoff (the worst bot by bankroll dropped, the rest recomputed, as the computer poker \
competitions rank); rating = least-squares strength from the pairings, mbb/hand, bootstrap 95% \
interval; faults = protocol faults of the bot (timeouts, illegal or malformed replies, crashes)\n";
