//! Evaluations per second, per core, for each rule on pre-generated random holdings.
//!
//! Run with `cargo bench -p pitboss-cards --bench eval`. The holdings are dealt from seeded decks
//! before timing so that only the evaluator is measured; the throughput line criterion prints
//! (`elem/s`) is the figure quoted in the README.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pitboss_cards::{eval, CardSet, Deck};

/// Holdings per batch: large enough to defeat branch-predictor memorisation, small enough
/// (512 KiB) to stay in L2 alongside the tables.
const BATCH: usize = 1 << 16;

fn holdings(cards: usize, seed: u64) -> Vec<CardSet> {
    (0..BATCH as u64)
        .map(|k| {
            let mut deck = Deck::for_hand(seed, k);
            (0..cards).map(|_| deck.deal().expect("52 cards")).collect()
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let seven = holdings(7, 1);
    let five = holdings(5, 2);
    let mut g = c.benchmark_group("eval");
    g.throughput(Throughput::Elements(BATCH as u64));
    g.bench_function("high_7", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for h in &seven {
                acc = acc.wrapping_add(eval::high(black_box(*h)).get());
            }
            acc
        })
    });
    g.bench_function("deuce_to_seven_5", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for h in &five {
                acc = acc.wrapping_add(eval::deuce_to_seven(black_box(*h), false).get());
            }
            acc
        })
    });
    g.bench_function("ace_to_five_8_7", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for h in &seven {
                acc = acc.wrapping_add(eval::ace_to_five_8(black_box(*h)).map_or(0, |v| v.get()));
            }
            acc
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2))
        .sample_size(20);
    targets = bench
}
criterion_main!(benches);
