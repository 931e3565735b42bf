//! Runs one of the bench's queries many times, for profilers and cycle counters on a shared
//! machine: `perf stat -e cycles:u cargo run --release -p pitboss-equity --example query_loop --
//! stud_river 10000` counts only this process's cycles (wall-clock benches suffer from neighbours).
//!
//! `query_loop QUERY N ROUNDS` times instead: after one query (which builds the tables), ROUNDS
//! rounds of N queries each, and prints the least wall-clock time per query of a round. Short
//! rounds and the least of many find the moments the neighbours left the core alone, and the
//! start-up (tables built in a few milliseconds) is not counted.

use std::hint::black_box;
use std::time::Instant;

use pitboss_cards::{parse_cards, CardSet};
use pitboss_equity::draw::{self, DrawOpponent, DrawSpot};
use pitboss_equity::stud::{self, StudOpponent, StudSpot};
use pitboss_equity::Config;

fn set(text: &str) -> CardSet {
    parse_cards(text).unwrap().iter().collect()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let which = args.next().unwrap_or_else(|| "stud_river".into());
    let n: u32 = args.next().map_or(1000, |s| s.parse().expect("a count"));
    let mc = Config {
        samples: 1000,
        exact_limit: 0,
        seed: 1,
    };
    let keep_cfg = Config { samples: 200, ..mc };
    let river = StudSpot {
        hero: set("As 2d 5h 7c 9s Kd Kh"),
        board: None,
        opponents: vec![StudOpponent {
            up: set("3c 4c Qd Js"),
            hidden: 3,
        }],
        dead: set("Td 8h 6s"),
    };
    let third = StudSpot {
        hero: set("As 2d 5h"),
        board: None,
        opponents: vec![StudOpponent {
            up: set("Kc"),
            hidden: 2,
        }],
        dead: set("Td 8h 6s"),
    };
    let draw_spot = |left: u8| DrawSpot {
        hand: set("2c 3d 4h 7s Kc"),
        draws_left: left,
        opponents: vec![DrawOpponent::unknown(
            if left == 3 { None } else { Some(1) },
            left,
        )],
        dead: CardSet::EMPTY,
        ace_five_straight: false,
    };
    let (d1, d3) = (draw_spot(1), draw_spot(3));
    let rounds: Option<u32> = args.next().map(|s| s.parse().expect("a round count"));
    let query = || -> f64 {
        match which.as_str() {
            "stud_river" => {
                stud::equity(black_box(&river), &Config::default(), None)
                    .unwrap()
                    .share
            }
            "stud_mc" => stud::equity(black_box(&third), &mc, None).unwrap().share,
            "draw_mc_1" => {
                draw::equity(black_box(&d1), set("2c 3d 4h 7s"), &mc)
                    .unwrap()
                    .share
            }
            "draw_mc_3" => {
                draw::equity(black_box(&d3), set("2c 3d 4h 7s"), &mc)
                    .unwrap()
                    .share
            }
            "keep_1" => {
                draw::best_keep(black_box(&d1), &keep_cfg)
                    .unwrap()
                    .equity
                    .share
            }
            "keep_3" => {
                draw::best_keep(black_box(&d3), &keep_cfg)
                    .unwrap()
                    .equity
                    .share
            }
            other => panic!("unknown query {other}"),
        }
    };
    if let Some(rounds) = rounds {
        black_box(query());
        let mut best = f64::INFINITY;
        for _ in 0..rounds {
            let t = Instant::now();
            for _ in 0..n {
                black_box(query());
            }
            best = best.min(t.elapsed().as_secs_f64() / f64::from(n));
        }
        println!(
            "{which}: {:.1} us per query (least of {rounds} rounds of {n})",
            best * 1e6
        );
        return;
    }
    let mut acc = 0.0;
    for _ in 0..n {
        acc += query();
    }
    println!("{which} x{n}: mean share {:.4}", acc / f64::from(n));
}
