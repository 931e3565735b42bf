//! Fits the scale `P = a·pot + b·unit` of the luck estimator's shares per street (crate
//! `pitboss-luck`, `Scale`) by least squares on hands of the built-in bots, and prints the
//! fitted table with the standard deviation of the raw and adjusted results in and out of sample:
//! `cargo run --release -p pitboss-arena --example luck_fit [HANDS]`.
//!
//! Any scale fixed before a card keeps the estimate unbiased; the fit only decides how much of
//! the luck it removes. The fit is done on one seed and checked on another, every table weighted
//! alike (its samples divided by its raw sd).
//!
//! Environment: `LUCK_MODEL=allin:N` fits the all-in model, `stacks:N` the model that knows the
//! stacks (its entries once the betting is over are not used: `P` is the pot there), `sized:N`
//! the referee's model (as `stacks:N`, and in pot- and no-limit triple draw the size term's `γ`
//! per street and class, printed as Rust for `Scale::for_game`), else the strength model;
//! `ONLY_GAME=stud8-fl` one game; `TABLE=equity,hilo` one table of those bots instead of the
//! game's ten; `DUP=1` fits and checks duplicate units (each deal in every seat rotation, a
//! sample one bot's sum), `DUP=both` fits plain hands and duplicate units together (the default
//! stud scale) and checks plain hands; `LUCK_LIVE=L` uses the all-in model only up to L live
//! seats.

use pitboss_arena::{convert, InProcess, Player, Referee};
use pitboss_cards::DeckKey;
use pitboss_luck::{Adjuster, Model, Scale};
use pitboss_protocol::MatchStart;
use pitboss_rules::{Preset, Seat, TableSetup};

const STREETS: usize = Scale::LEN;
const SIZED: usize = 6 * pitboss_luck::sized::CLASSES;
const FEATURES: usize = 4 * STREETS + SIZED;

/// One seat's hand: the features and the net.
type Sample = ([f64; FEATURES], f64);

/// Per hand and seat: features (share deltas times pot and times unit, per street) and net.
fn samples(game: &str, bots: &[&str], hands: u64, seed: u64, dup: bool, out: &mut Vec<Sample>) {
    let preset = Preset::by_name(game).unwrap();
    let n = bots.len();
    let setup = TableSetup {
        game: preset.game,
        stacks: vec![preset.stack; n],
        button: 0,
    };
    let table = setup.validate().unwrap();
    let mut players: Vec<Box<dyn Player>> = bots
        .iter()
        .enumerate()
        .map(|(i, b)| {
            Box::new(InProcess(
                pitboss_bots::builtin(b, seed * 31 + i as u64).unwrap(),
            )) as Box<dyn Player>
        })
        .collect();
    let start = MatchStart {
        game: convert::game_info(&preset.game),
        hands,
        decision_ms: 0,
        bank_ms: 0,
    };
    for p in &mut players {
        let _ = p.match_start(&start);
    }
    let key = DeckKey::from_seed(seed);
    let mut referee = Referee::new();
    let live = std::env::var("LUCK_LIVE").map_or(8, |v| v.parse().unwrap());
    let mut adj = Adjuster::new(&preset.game, model())
        .with_scale(Scale::POT)
        .with_allin_live(live)
        .with_stacks(&vec![preset.stack; n]);
    let unit = preset.game.unit() as f64;
    // `dup`: duplicate units, as the interval factors are measured: each deal is played in every
    // seat rotation and a sample is one bot's sum over them (what duplicate play averages).
    let mut ids: Vec<usize> = (0..n).collect();
    let mut unit_sum = vec![([0.0; FEATURES], 0.0); n];
    for k in 0..hands {
        let t = table.with_button(Seat((k % n as u64) as u8));
        players.rotate_right(1);
        ids.rotate_right(1);
        let deal = if dup { k / n as u64 } else { k };
        referee.play(
            &t,
            pitboss_cards::Deck::with_key(&key, deal),
            k,
            &mut players,
        );
        let hand = referee.hand();
        adj.seed_hand(0, deal);
        let mut x = vec![[0.0; FEATURES]; n];
        adj.replay(n, hand.events(), |c| {
            let s = c.scale_index;
            for (i, (d, l)) in c.shares.iter().zip(c.low_shares).enumerate() {
                x[i][2 * s] += d * c.pot as f64;
                x[i][2 * s + 1] += d * unit;
                x[i][2 * STREETS + 2 * s] += l * c.pot as f64;
                x[i][2 * STREETS + 2 * s + 1] += l * unit;
            }
            let k = pitboss_luck::sized::CLASSES;
            for (i, f) in c.sized.iter().enumerate() {
                for (j, v) in f.iter().enumerate() {
                    x[i][4 * STREETS + k * usize::from(c.street).min(5) + j] += v;
                }
            }
        });
        if dup {
            for (i, (_, net)) in hand.net().enumerate() {
                let u = &mut unit_sum[ids[i]];
                for (a, b) in u.0.iter_mut().zip(&x[i]) {
                    *a += b;
                }
                u.1 += net as f64;
            }
            if k % n as u64 == n as u64 - 1 {
                out.extend(unit_sum.iter().copied());
                unit_sum = vec![([0.0; FEATURES], 0.0); n];
            }
            continue;
        }
        for (i, (_, net)) in hand.net().enumerate() {
            out.push((x[i], net as f64));
        }
    }
}

/// The value model: `LUCK_MODEL=allin:SAMPLES` for the all-in model, else the strength model.
fn model() -> Model {
    match std::env::var("LUCK_MODEL") {
        Ok(m) if m.starts_with("allin:") => Model::AllIn(m[6..].parse().expect("allin:SAMPLES")),
        Ok(m) if m.starts_with("stacks:") => Model::Stacks(m[7..].parse().expect("stacks:SAMPLES")),
        Ok(m) if m.starts_with("sized:") => Model::Sized(m[6..].parse().expect("sized:SAMPLES")),
        _ => Model::Strength,
    }
}

/// Least squares `y ≈ Σ β_j x_j` (the features have mean zero, so no intercept).
fn fit(data: &[Sample]) -> [f64; FEATURES] {
    let mut a = [[0.0; FEATURES + 1]; FEATURES];
    for (x, y) in data {
        for i in 0..FEATURES {
            for j in 0..FEATURES {
                a[i][j] += x[i] * x[j];
            }
            a[i][FEATURES] += x[i] * y;
        }
    }
    // A small ridge keeps features that never occur (no sixth street in triple draw) at zero.
    for (i, row) in a.iter_mut().enumerate() {
        row[i] += 1e-6 * data.len() as f64;
    }
    for c in 0..FEATURES {
        let p = (c..FEATURES)
            .max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))
            .unwrap();
        a.swap(c, p);
        let pivot = a[c];
        for (r, row) in a.iter_mut().enumerate() {
            if r != c && pivot[c] != 0.0 {
                let f = row[c] / pivot[c];
                for (x, p) in row.iter_mut().zip(pivot).skip(c) {
                    *x -= f * p;
                }
            }
        }
    }
    let mut beta = [0.0; FEATURES];
    for i in 0..FEATURES {
        beta[i] = if a[i][i] == 0.0 {
            0.0
        } else {
            a[i][FEATURES] / a[i][i]
        };
    }
    beta
}

fn sd_after(data: &[Sample], beta: &[f64; FEATURES]) -> (f64, f64) {
    let n = data.len() as f64;
    let sd = |f: &dyn Fn(&Sample) -> f64| {
        let m = data.iter().map(f).sum::<f64>() / n;
        (data.iter().map(|d| (f(d) - m).powi(2)).sum::<f64>() / n).sqrt()
    };
    let raw = sd(&|d| d.1);
    let adj = sd(&|d| d.1 - d.0.iter().zip(beta).map(|(x, b)| x * b).sum::<f64>());
    (raw, adj)
}

fn main() {
    let hands: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let td_big: &[&[&str]] = &[
        &["equity", "lowball"],
        &["adaptive", "lowball"],
        &["equity", "adaptive"],
        &["cfr", "equity"],
        &["lowball", "raise"],
        &["call", "raise"],
        &["equity", "adaptive", "lowball", "raise", "call", "random"],
    ];
    let games: [(&str, &[&[&str]]); 4] = [
        (
            "27td-fl",
            &[
                &["lowball", "raise"],
                &["equity", "lowball"],
                &["call", "raise"],
                &["lowball", "lowball"],
                &["equity", "adaptive", "lowball", "raise", "call", "random"],
            ],
        ),
        (
            "stud8-fl",
            &[
                &["hilo", "raise"],
                &["equity", "hilo"],
                &["adaptive", "hilo"],
                &["equity", "raise"],
                &["call", "raise"],
                &["hilo", "hilo"],
                &["equity", "call"],
                &["adaptive", "equity"],
                &["equity", "hilo", "raise", "call"],
                &[
                    "equity", "adaptive", "hilo", "raise", "call", "random", "hilo", "call",
                ],
            ],
        ),
        ("27td-pl", td_big),
        ("27td-nl", td_big),
    ];
    let only = std::env::var("ONLY_GAME").ok();
    for (game, tables) in games {
        if only.as_deref().is_some_and(|g| g != game) {
            continue;
        }
        let (mut train, mut test) = (Vec::new(), Vec::new());
        // `TABLE=equity,hilo;adaptive,hilo` fits those tables instead of the game's; `CHECK=…`
        // (same form) tables only checked, held out of the fit.
        let parse = |var: &str| -> Option<Vec<Vec<String>>> {
            std::env::var(var).ok().map(|t| {
                t.split(';')
                    .map(|b| b.split(',').map(str::to_string).collect())
                    .collect()
            })
        };
        let (custom, check) = (parse("TABLE"), parse("CHECK").unwrap_or_default());
        let custom_refs: Option<Vec<Vec<&str>>> = custom.as_ref().map(|v| {
            v.iter()
                .map(|b| b.iter().map(String::as_str).collect())
                .collect()
        });
        let check_refs: Vec<Vec<&str>> = check
            .iter()
            .map(|b| b.iter().map(String::as_str).collect())
            .collect();
        let owned: Vec<&[&str]>;
        let tables: &[&[&str]] = match &custom_refs {
            Some(v) => {
                owned = v.iter().map(Vec::as_slice).collect();
                &owned
            }
            None => tables,
        };
        // Each table's hands are divided by the table's raw sd, so that every table weighs the
        // same in the fit (else the tables with the biggest pots decide every entry).
        let mut tests = Vec::new();
        // `DUP=1`: fit and check on duplicate units; `DUP=both`: fit on plain hands and duplicate
        // units alike (each normalised), check on plain hands.
        let mode = std::env::var("DUP").unwrap_or_default();
        for bots in tables {
            let fits: &[bool] = match mode.as_str() {
                "" => &[false],
                "both" => &[false, true],
                _ => &[true],
            };
            for &dup in fits {
                let mut tr = Vec::new();
                samples(game, bots, hands, 1, dup, &mut tr);
                let w = 1.0 / sd_after(&tr, &[0.0; FEATURES]).0;
                train.extend(tr.into_iter().map(|(x, y)| (x.map(|v| v * w), y * w)));
            }
            let mut te = Vec::new();
            samples(game, bots, hands, 2, mode == "1", &mut te);
            tests.push((bots.join("-"), te));
        }
        for bots in &check_refs {
            let mut te = Vec::new();
            samples(game, bots, hands, 2, mode == "1", &mut te);
            tests.push((format!("{} (held out)", bots.join("-")), te));
        }
        let beta = fit(&train);
        let pot_only = {
            let mut b = [0.0; FEATURES];
            for s in 0..STREETS {
                b[2 * s] = 1.0;
            }
            b
        };
        for (name, te) in &tests {
            let (raw, adj) = sd_after(te, &beta);
            let (_, adj_pot) = sd_after(te, &pot_only);
            println!(
                "{game} {name}: held-out sd per hand: raw {raw:.1}, P = pot {adj_pot:.1}, \
                 fitted {adj:.1} (factor {:.2})",
                raw / adj
            );
            test.extend(te.iter().copied());
        }
        let (raw, adj) = sd_after(&test, &beta);
        let (_, adj_pot) = sd_after(&test, &pot_only);
        println!(
            "{game}: held-out sd per hand: raw {raw:.1}, P = pot {adj_pot:.1}, fitted {adj:.1}"
        );
        let pairs: Vec<String> = (0..2 * STREETS)
            .map(|s| format!("({:.3}, {:.3})", beta[2 * s], beta[2 * s + 1]))
            .collect();
        let per = STREETS / 6;
        for (k, row) in pairs.chunks(6).enumerate() {
            let what = if k < per { "P" } else { "Q" };
            println!(
                "  {what} entries {}..{}: {}",
                6 * (k % per),
                6 * (k % per) + 6,
                row.join(", ")
            );
        }
        let k = pitboss_luck::sized::CLASSES;
        let rows: Vec<String> = (0..6)
            .map(|s| {
                let g: Vec<String> = (0..k)
                    .map(|j| format!("{:.4}", beta[4 * STREETS + k * s + j]))
                    .collect();
                format!("[{}]", g.join(", "))
            })
            .collect();
        println!("  size term γ by street: [{}]", rows.join(", "));
    }
}
