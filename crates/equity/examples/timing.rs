//! Rough per-call timings of the equity engine (criterion's bench is the reference figure):
//! `cargo run --release -p pitboss-equity --example timing`.
use std::time::Instant;

use pitboss_cards::{eval, parse_cards, CardSet, Deck};
use pitboss_equity::stud::{self, StudOpponent, StudSpot};
use pitboss_equity::Config;

fn set(text: &str) -> CardSet {
    parse_cards(text).unwrap().iter().collect()
}

fn main() {
    let hands: Vec<CardSet> = (0..100_000u64)
        .map(|k| {
            let mut d = Deck::for_hand(1, k);
            (0..7).map(|_| d.deal().unwrap()).collect()
        })
        .collect();
    let _ = eval::high(hands[0]);
    let t = Instant::now();
    let mut acc = 0u32;
    for h in &hands {
        acc = acc.wrapping_add(eval::high(*h).get());
    }
    println!(
        "high: {:?} per eval ({acc})",
        t.elapsed() / hands.len() as u32
    );
    let river = StudSpot {
        hero: set("As 2d 5h 7c 9s Kd Kh"),
        board: None,
        opponents: vec![StudOpponent {
            up: set("3c 4c Qd Js"),
            hidden: 3,
        }],
        dead: set("Td 8h 6s"),
    };
    let t = Instant::now();
    for _ in 0..1000 {
        stud::equity(&river, &Config::default(), None).unwrap();
    }
    println!("river exact: {:?}", t.elapsed() / 1000);
}
