//! A small random-legal player for tests and the `random_hands` example: random presets, 2-6 (triple
//! draw) or 2-8 (stud) players, short stacks so that all-ins and side pots occur, and some
//! eight-handed stud hands without folds so that seventh street needs the community card.

use pitboss_cards::Deck;
use pitboss_rules::{Action, Chips, Event, Hand, Legal, Structure, TableSetup, Variant, PRESETS};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One played hand: its setup and the finished engine hand.
pub struct Played {
    pub setup: TableSetup,
    pub hand: Hand,
}

fn below(rng: &mut ChaCha8Rng, n: u64) -> u64 {
    rng.next_u64() % n.max(1)
}

fn chance(rng: &mut ChaCha8Rng, p: f64) -> bool {
    (rng.next_u32() as f64) < p * (u32::MAX as f64)
}

/// A random setup for preset `preset` (index into `PRESETS`).
pub fn random_setup(rng: &mut ChaCha8Rng, preset: usize) -> TableSetup {
    let p = PRESETS[preset];
    let game = p.game;
    let seats = game.variant.seats();
    let n = if game.variant == Variant::StudHiLo && chance(rng, 0.25) {
        8
    } else {
        *seats.start() + below(rng, (*seats.end() - *seats.start() + 1) as u64) as usize
    };
    let unit = game.unit();
    let stacks: Vec<Chips> = (0..n)
        .map(|_| {
            let r = below(rng, 100);
            // At least the forced bets: a short big blind or bring-in is docs/RULES.md difference 5.
            let forced = game.stakes.ante + game.stakes.big_blind.max(game.stakes.bring_in) + 1;
            if r < 6 {
                forced + below(rng, unit)
            } else if r < 40 {
                unit + below(rng, 6 * unit)
            } else {
                10 * unit + below(rng, 50 * unit)
            }
        })
        .collect();
    TableSetup {
        game,
        stacks,
        button: below(rng, n as u64) as usize,
    }
}

/// A random legal action; `folds` = whether this hand lets players fold.
/// `raise_ok` is false in fixed limit after a short all-in raise this round: PokerKit counts it
/// toward the cap (docs/RULES.md difference 7), so the generator does not raise again.
pub fn random_action(legal: &Legal, rng: &mut ChaCha8Rng, folds: bool, raise_ok: bool) -> Action {
    if let Some(hand) = legal.discard {
        let k = [0, 0, 1, 1, 1, 2, 2, 3, 3, 4, 5][below(rng, 11) as usize];
        let mut cards: Vec<_> = hand.iter().collect();
        // shuffle then take k
        for i in (1..cards.len()).rev() {
            let j = below(rng, i as u64 + 1) as usize;
            cards.swap(i, j);
        }
        return Action::Discard {
            cards: cards.into_iter().take(k).collect(),
        };
    }
    if legal.bring_in.is_some() && (legal.raise.is_none() || chance(rng, 0.7)) {
        return Action::BringIn;
    }
    if let Some(r) = legal.raise.filter(|_| raise_ok) {
        if chance(rng, 0.28) {
            let to = match below(rng, 3) {
                0 => r.min_to,
                1 => r.max_to,
                _ => r.min_to + below(rng, r.max_to - r.min_to + 1),
            };
            return Action::Raise { to };
        }
    }
    if legal.call.is_some() && folds && legal.fold && chance(rng, 0.2) {
        return Action::Fold;
    }
    if legal.check {
        return Action::Check;
    }
    if legal.call.is_some() {
        return Action::Call;
    }
    if let Some(r) = legal.raise {
        return Action::Raise { to: r.min_to };
    }
    Action::Fold
}

/// Plays hand `k` of a run with `seed` in preset `preset` to the end.
pub fn play(seed: u64, k: u64, preset: usize) -> Played {
    let mut rng = ChaCha8Rng::seed_from_u64(
        seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ k ^ ((preset as u64) << 56),
    );
    let setup = random_setup(&mut rng, preset);
    let table = setup.validate().expect("valid random setup");
    // Eight-handed stud never folds: with folded cards and a short stub on seventh street
    // docs/RULES.md deals a community card where PokerKit reshuffles (difference 3).
    let folds = setup.stacks.len() < 8;
    let mut hand = Hand::start(&table, Deck::for_hand(seed ^ preset as u64, k)).expect("deal");
    while let Some(legal) = hand.legal() {
        let raise_ok =
            !(setup.game.structure == Structure::FixedLimit && short_all_in_this_round(&hand));
        let a = random_action(&legal, &mut rng, folds, raise_ok);
        hand.apply(legal.seat, a).expect("a legal action applies");
    }
    Played { setup, hand }
}

/// Whether an all-in raise (possibly short) happened in the current betting round.
fn short_all_in_this_round(hand: &Hand) -> bool {
    hand.events()
        .iter()
        .rev()
        .take_while(|e| !matches!(e, Event::Round { .. }))
        .any(|e| matches!(e, Event::Raise { all_in: true, .. }))
}
