//! Hands per second of the bare engine with random legal decisions (no referee, no bots):
//! `cargo bench -p pitboss-rules --bench hands`. Prints one line per configuration.

use std::time::Instant;

use pitboss_cards::Deck;
use pitboss_rules::{Action, Hand, Legal, Preset, TableSetup};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A cheap random legal action: no allocation.
fn pick(legal: &Legal, rng: &mut ChaCha8Rng) -> Action {
    let r = rng.next_u32();
    if let Some(hand) = legal.discard {
        let mut cards = hand;
        for (i, c) in hand.iter().enumerate() {
            if r & (1 << i) == 0 {
                cards.remove(c);
            }
        }
        return Action::Discard { cards };
    }
    if let Some(raise) = legal.raise {
        if r.is_multiple_of(4) {
            let to = if r & 16 == 0 {
                raise.min_to
            } else {
                raise.max_to
            };
            return Action::Raise { to };
        }
    }
    if legal.bring_in.is_some() {
        return Action::BringIn;
    }
    if legal.check {
        return Action::Check;
    }
    if legal.fold && r % 8 == 1 {
        return Action::Fold;
    }
    Action::Call
}

fn run(preset: &str, players: usize, hands: u64) {
    let p = Preset::by_name(preset).expect("preset");
    let setup = TableSetup {
        game: p.game,
        stacks: vec![p.stack; players],
        button: 0,
    };
    let table = setup.validate().expect("valid");
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut decisions = 0u64;
    let mut checksum = 0i64;
    let t = Instant::now();
    for k in 0..hands {
        let mut hand = Hand::start(&table, Deck::for_hand(7, k)).expect("deal");
        while let Some(legal) = hand.legal() {
            let a = pick(&legal, &mut rng);
            hand.apply(legal.seat, a).expect("legal");
            decisions += 1;
        }
        checksum += hand.net().next().map(|(_, v)| v).unwrap_or(0);
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{preset:9} {players} players: {:>10.0} hands/s  {:>5.2} µs/hand  {:>4.1} decisions/hand  (checksum {checksum})",
        hands as f64 / secs,
        secs * 1e6 / hands as f64,
        decisions as f64 / hands as f64
    );
}

fn main() {
    let hands: u64 = std::env::var("HANDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    if let Ok(only) = std::env::var("PRESET") {
        let players = std::env::var("PLAYERS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(2);
        run(&only, players, hands);
        return;
    }
    for preset in ["27td-fl", "27td-pl", "27td-nl"] {
        run(preset, 2, hands);
        run(preset, 6, hands / 2);
    }
    for preset in ["stud8-fl", "stud8-pl", "stud8-nl"] {
        run(preset, 2, hands);
        run(preset, 8, hands / 4);
    }
}
