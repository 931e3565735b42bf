//! Rankings and ratings of a field of bots from table results.
//!
//! Input: for each (game, table) the per-unit results of every bot at the table, in mbb/hand.
//! From them:
//! - **total bankroll** (ACPC): a bot's mean mbb/hand over all its tables (each table and game
//!   weighs the same);
//! - **instant runoff** (ACPC): repeatedly drop the bot with the lowest total bankroll counted only
//!   over tables where every bot is still in; the last one standing ranks first;
//! - **least-squares rating**: the ratings `r` (sum zero) that best explain every table result
//!   `x_{i,T} ≈ r_i − mean_{j ∈ T, j ≠ i} r_j`; heads-up this is `r_i − r_j ≈ mean_ij` in mbb/hand;
//! - **bootstrap intervals** for bankroll and rating: duplicate units are resampled with
//!   replacement, with the *same* resampled deal positions for every table of a game (tables share
//!   their deals, so this keeps the correlation of common card sequences). Seeded: the same data
//!   and seed give the same intervals.

/// One table of one game: which bots sat there and their per-unit results (mbb/hand), indexed
/// `units[position at the table][unit]`.
#[derive(Clone, Debug, PartialEq)]
pub struct TableSample {
    pub game: usize,
    pub bots: Vec<usize>,
    pub units: Vec<Vec<f64>>,
}

impl TableSample {
    fn len(&self) -> usize {
        self.units.first().map_or(0, Vec::len)
    }

    fn means(&self) -> Vec<f64> {
        self.units
            .iter()
            .map(|u| {
                if u.is_empty() {
                    0.0
                } else {
                    u.iter().sum::<f64>() / u.len() as f64
                }
            })
            .collect()
    }
}

/// A table's mean result per bot.
#[derive(Clone, Debug, PartialEq)]
pub struct TableMean {
    pub bots: Vec<usize>,
    pub mbb: Vec<f64>,
}

/// Mean mbb/hand of each bot over its tables (NaN for a bot that played none).
pub fn bankroll(n: usize, tables: &[TableMean]) -> Vec<f64> {
    let mut sum = vec![0.0; n];
    let mut cnt = vec![0u32; n];
    for t in tables {
        for (b, x) in t.bots.iter().zip(&t.mbb) {
            sum[*b] += x;
            cnt[*b] += 1;
        }
    }
    sum.iter()
        .zip(&cnt)
        .map(|(s, c)| if *c == 0 { f64::NAN } else { s / f64::from(*c) })
        .collect()
}

/// Ranks (1 = best) of values, larger is better; ties and NaN go by list order.
pub fn ranks(values: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (values[a], values[b]);
        let x = if x.is_nan() { f64::NEG_INFINITY } else { x };
        let y = if y.is_nan() { f64::NEG_INFINITY } else { y };
        y.total_cmp(&x).then(a.cmp(&b))
    });
    let mut r = vec![0; values.len()];
    for (i, &b) in order.iter().enumerate() {
        r[b] = i + 1;
    }
    r
}

/// Instant-runoff ranks (1 = best).
pub fn instant_runoff(n: usize, tables: &[TableMean]) -> Vec<usize> {
    let mut alive = vec![true; n];
    let mut rank = vec![0; n];
    for left in (1..=n).rev() {
        let live: Vec<TableMean> = tables
            .iter()
            .filter(|t| t.bots.iter().all(|b| alive[*b]))
            .cloned()
            .collect();
        let bank = bankroll(n, &live);
        // The worst live bot: lowest bankroll; a bot with no live table counts as 0; ties: the
        // later bot in the list goes first.
        let worst = (0..n)
            .filter(|b| alive[*b])
            .min_by(|&a, &b| {
                let x = if bank[a].is_nan() { 0.0 } else { bank[a] };
                let y = if bank[b].is_nan() { 0.0 } else { bank[b] };
                x.total_cmp(&y).then(b.cmp(&a))
            })
            .expect("a bot is left");
        alive[worst] = false;
        rank[worst] = left;
    }
    rank
}

/// Least-squares ratings with sum zero (see the module docs).
pub fn least_squares(n: usize, tables: &[TableMean]) -> Vec<f64> {
    // Normal equations AᵀA r = Aᵀx, plus 11ᵀ to pin the sum (1 is in A's null space).
    let mut m = vec![vec![0.0; n]; n];
    let mut rhs = vec![0.0; n];
    for t in tables {
        let k = t.bots.len();
        if k < 2 {
            continue;
        }
        let other = 1.0 / (k - 1) as f64;
        for (pos, &i) in t.bots.iter().enumerate() {
            // Row: +1 at i, −1/(k−1) at every other bot of the table.
            let row: Vec<(usize, f64)> = t
                .bots
                .iter()
                .map(|&j| (j, if j == i { 1.0 } else { -other }))
                .collect();
            for &(a, va) in &row {
                rhs[a] += va * t.mbb[pos];
                for &(b, vb) in &row {
                    m[a][b] += va * vb;
                }
            }
        }
    }
    for (i, row) in m.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v += 1.0 + if i == j { 1e-9 } else { 0.0 };
        }
    }
    solve(m, rhs)
}

/// Gaussian elimination with partial pivoting.
fn solve(mut m: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for c in 0..n {
        let p = (c..n)
            .max_by(|&x, &y| m[x][c].abs().total_cmp(&m[y][c].abs()))
            .expect("non-empty");
        m.swap(c, p);
        b.swap(c, p);
        let d = m[c][c];
        if d.abs() < 1e-300 {
            continue;
        }
        let (top, rest) = m.split_at_mut(c + 1);
        let pivot = &top[c];
        for (i, row) in rest.iter_mut().enumerate() {
            let f = row[c] / d;
            if f != 0.0 {
                for (x, p) in row[c..].iter_mut().zip(&pivot[c..]) {
                    *x -= f * p;
                }
                b[c + 1 + i] -= f * b[c];
            }
        }
    }
    let mut x = vec![0.0; n];
    for c in (0..n).rev() {
        let s: f64 = (c + 1..n).map(|k| m[c][k] * x[k]).sum();
        x[c] = if m[c][c].abs() < 1e-300 {
            0.0
        } else {
            (b[c] - s) / m[c][c]
        };
    }
    x
}

/// A point estimate with a 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

/// Everything [`rate`] computes, per bot.
#[derive(Clone, Debug, PartialEq)]
pub struct Ratings {
    pub bankroll: Vec<Estimate>,
    pub bankroll_rank: Vec<usize>,
    pub runoff_rank: Vec<usize>,
    pub rating: Vec<Estimate>,
}

/// SplitMix64, for the bootstrap.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// Rankings, ratings and bootstrap intervals (`replicates` resamples seeded by `seed`; 0 gives
/// intervals equal to the point estimates).
pub fn rate(n: usize, samples: &[TableSample], replicates: usize, seed: u64) -> Ratings {
    let means: Vec<TableMean> = samples
        .iter()
        .map(|s| TableMean {
            bots: s.bots.clone(),
            mbb: s.means(),
        })
        .collect();
    let bank = bankroll(n, &means);
    let rating = least_squares(n, &means);
    let games = samples.iter().map(|s| s.game + 1).max().unwrap_or(0);
    let mut boot_bank = vec![Vec::with_capacity(replicates); n];
    let mut boot_rating = vec![Vec::with_capacity(replicates); n];
    let mut rng = Mix(seed);
    let mut draws: Vec<Vec<u64>> = vec![Vec::new(); games];
    for _ in 0..replicates {
        for (g, d) in draws.iter_mut().enumerate() {
            let len = samples
                .iter()
                .filter(|s| s.game == g)
                .map(TableSample::len)
                .max()
                .unwrap_or(0);
            d.clear();
            d.extend((0..len).map(|_| rng.next()));
        }
        let rep: Vec<TableMean> = samples
            .iter()
            .map(|s| {
                let len = s.len();
                let d = &draws[s.game];
                let mbb = s
                    .units
                    .iter()
                    .map(|u| {
                        if len == 0 {
                            return 0.0;
                        }
                        let sum: f64 = d[..len]
                            .iter()
                            .map(|r| u[((u128::from(*r) * len as u128) >> 64) as usize])
                            .sum();
                        sum / len as f64
                    })
                    .collect();
                TableMean {
                    bots: s.bots.clone(),
                    mbb,
                }
            })
            .collect();
        for (b, v) in bankroll(n, &rep).into_iter().enumerate() {
            boot_bank[b].push(v);
        }
        for (b, v) in least_squares(n, &rep).into_iter().enumerate() {
            boot_rating[b].push(v);
        }
    }
    let est = |value: f64, mut boot: Vec<f64>| {
        boot.retain(|x| !x.is_nan());
        boot.sort_by(f64::total_cmp);
        if boot.is_empty() {
            return Estimate {
                value,
                low: value,
                high: value,
            };
        }
        Estimate {
            value,
            low: percentile(&boot, 0.025),
            high: percentile(&boot, 0.975),
        }
    };
    Ratings {
        bankroll_rank: ranks(&bank),
        runoff_rank: instant_runoff(n, &means),
        bankroll: bank
            .iter()
            .zip(boot_bank)
            .map(|(v, b)| est(*v, b))
            .collect(),
        rating: rating
            .iter()
            .zip(boot_rating)
            .map(|(v, b)| est(*v, b))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hu(i: usize, j: usize, x: f64) -> TableMean {
        TableMean {
            bots: vec![i, j],
            mbb: vec![x, -x],
        }
    }

    #[test]
    fn least_squares_recovers_exact_differences() {
        let r = [30.0, 10.0, -15.0, -25.0];
        let mut t = Vec::new();
        for i in 0..4 {
            for j in i + 1..4 {
                t.push(hu(i, j, r[i] - r[j]));
            }
        }
        let got = least_squares(4, &t);
        for (a, b) in got.iter().zip(r) {
            assert!((a - b).abs() < 1e-6, "{got:?}");
        }
    }

    #[test]
    fn ring_tables_recover_ratings() {
        let r = [20.0, 5.0, -5.0, -20.0];
        let mut t = Vec::new();
        for s in [[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]] {
            let mbb = s
                .iter()
                .map(|&i| r[i] - s.iter().filter(|&&j| j != i).map(|&j| r[j]).sum::<f64>() / 2.0)
                .collect();
            t.push(TableMean {
                bots: s.to_vec(),
                mbb,
            });
        }
        let got = least_squares(4, &t);
        for (a, b) in got.iter().zip(r) {
            assert!((a - b).abs() < 1e-6, "{got:?}");
        }
    }

    #[test]
    fn instant_runoff_differs_from_bankroll_on_a_feeder() {
        // Bot 2 farms bot 3 but loses to 0 and 1; bot 0 beats 1 narrowly.
        let t = vec![
            hu(0, 1, 10.0),
            hu(0, 2, 20.0),
            hu(1, 2, 20.0),
            hu(0, 3, 10.0),
            hu(1, 3, 10.0),
            hu(2, 3, 500.0),
        ];
        let bank = bankroll(4, &t);
        assert_eq!(ranks(&bank), vec![2, 3, 1, 4]);
        assert_eq!(instant_runoff(4, &t), vec![1, 2, 3, 4]);
    }

    /// A synthetic field with known strengths: heads-up unit results are the rating difference
    /// plus heavy noise; the ranking is right and the bootstrap intervals cover the truth.
    #[test]
    fn synthetic_field_is_ranked_with_covering_intervals() {
        let truth = [60.0, 25.0, 0.0, -30.0, -55.0];
        let n = truth.len();
        let mut rng = Mix(7);
        let mut normal = move || {
            let u = ((rng.next() >> 11) as f64 / (1u64 << 53) as f64).max(1e-300);
            let v = (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
            (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
        };
        let mut covered = 0;
        let mut total = 0;
        for round in 0..10 {
            let mut samples = Vec::new();
            for i in 0..n {
                for j in i + 1..n {
                    let d = truth[i] - truth[j];
                    let a: Vec<f64> = (0..2000).map(|_| d + 400.0 * normal()).collect();
                    let b = a.iter().map(|x| -x).collect();
                    samples.push(TableSample {
                        game: 0,
                        bots: vec![i, j],
                        units: vec![a, b],
                    });
                }
            }
            let r = rate(n, &samples, 200, round);
            assert_eq!(r.bankroll_rank, vec![1, 2, 3, 4, 5], "round {round}");
            assert_eq!(r.runoff_rank, vec![1, 2, 3, 4, 5], "round {round}");
            for (e, t) in r.rating.iter().zip(truth) {
                assert!(e.low < e.value && e.value < e.high);
                total += 1;
                covered += u32::from(e.low <= t && t <= e.high);
            }
        }
        // 50 intervals at 95%: expect about 47.5; fail if clearly below.
        assert!(covered >= 42, "{covered}/{total} intervals cover");
    }

    #[test]
    fn the_bootstrap_is_deterministic() {
        let s = vec![TableSample {
            game: 0,
            bots: vec![0, 1],
            units: vec![vec![1.0, 5.0, -3.0, 8.0], vec![-1.0, -5.0, 3.0, -8.0]],
        }];
        assert_eq!(rate(2, &s, 50, 3), rate(2, &s, 50, 3));
        assert_ne!(rate(2, &s, 50, 3), rate(2, &s, 50, 4));
    }
}
