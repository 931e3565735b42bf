//! The equity engine's speed targets, one core: stud heads-up exact river equity (≤ 20 µs),
//! 1,000-sample Monte Carlo in either game (≤ 50 µs), a triple-draw best keep (≤ 200 µs).
//!
//! Run with `cargo bench -p pitboss-equity`; docs/PERFORMANCE.md has the figures, and
//! `examples/query_loop.rs` runs the same queries under a profiler or a CPU-time counter.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use pitboss_cards::{parse_cards, CardSet};
use pitboss_equity::draw::{self, DrawOpponent, DrawSpot};
use pitboss_equity::stud::{self, StudOpponent, StudSpot};
use pitboss_equity::Config;

fn set(text: &str) -> CardSet {
    parse_cards(text).unwrap().iter().collect()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("equity");
    let river = StudSpot {
        hero: set("As 2d 5h 7c 9s Kd Kh"),
        board: None,
        opponents: vec![StudOpponent {
            up: set("3c 4c Qd Js"),
            hidden: 3,
        }],
        dead: set("Td 8h 6s"),
    };
    g.bench_function("stud_river_exact_heads_up", |b| {
        b.iter(|| stud::equity(black_box(&river), &Config::default(), None).unwrap())
    });
    let third = StudSpot {
        hero: set("As 2d 5h"),
        board: None,
        opponents: vec![StudOpponent {
            up: set("Kc"),
            hidden: 2,
        }],
        dead: set("Td 8h 6s"),
    };
    let mc = Config {
        samples: 1000,
        exact_limit: 0,
        seed: 1,
    };
    g.bench_function("stud_third_street_mc_1000_heads_up", |b| {
        b.iter(|| stud::equity(black_box(&third), &mc, None).unwrap())
    });
    for left in [1u8, 3] {
        let spot = DrawSpot {
            hand: set("2c 3d 4h 7s Kc"),
            draws_left: left,
            opponents: vec![DrawOpponent::unknown(
                if left == 3 { None } else { Some(1) },
                left,
            )],
            dead: CardSet::EMPTY,
            ace_five_straight: false,
        };
        g.bench_function(format!("draw_mc_1000_heads_up_{left}_draws_left"), |b| {
            b.iter(|| draw::equity(black_box(&spot), set("2c 3d 4h 7s"), &mc).unwrap())
        });
        let keep_cfg = Config {
            samples: 200,
            exact_limit: 0,
            seed: 1,
        };
        g.bench_function(
            format!("draw_best_keep_200x_heads_up_{left}_draws_left"),
            |b| b.iter(|| draw::best_keep(black_box(&spot), &keep_cfg).unwrap()),
        );
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
