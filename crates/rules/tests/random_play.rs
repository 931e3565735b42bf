//! Random legal play: the invariants of the engine, as property tests over random setups.

use pitboss_cards::{CardSet, Deck};
use pitboss_rules::{Action, Event, Hand, Legal, Preset, Seat, TableSetup, PRESETS};
use proptest::prelude::*;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A uniformly random legal action (amounts uniform in the allowed range, biased to the ends).
fn random_action(legal: &Legal, rng: &mut ChaCha8Rng) -> Action {
    if let Some(hand) = legal.discard {
        let cards: Vec<_> = hand.iter().collect();
        let mask = rng.next_u32();
        return Action::Discard {
            cards: cards
                .iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, c)| *c)
                .collect(),
        };
    }
    let mut options = Vec::new();
    if legal.fold {
        options.push(Action::Fold);
    }
    if legal.check {
        options.push(Action::Check);
    }
    if legal.call.is_some() {
        options.push(Action::Call);
    }
    if legal.bring_in.is_some() {
        options.push(Action::BringIn);
    }
    if let Some(r) = legal.raise {
        let span = r.max_to - r.min_to;
        let to = match rng.next_u32() % 3 {
            0 => r.min_to,
            1 => r.max_to,
            _ => r.min_to + (rng.next_u64() % (span + 1)),
        };
        options.push(Action::Raise { to });
    }
    options[(rng.next_u32() as usize) % options.len()]
}

/// Plays one hand to the end, checking invariants after every action.
fn play(setup: &TableSetup, seed: u64, k: u64) -> Hand {
    play_checked(setup, seed, k, true)
}

fn play_checked(setup: &TableSetup, seed: u64, k: u64, views: bool) -> Hand {
    let table = setup.validate().expect("valid setup");
    let mut hand = Hand::start(&table, Deck::for_hand(seed, k)).expect("deal");
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ k.rotate_left(17));
    let total: u64 = setup.stacks.iter().sum();
    let mut steps = 0;
    while let Some(legal) = hand.legal() {
        steps += 1;
        assert!(steps < 500, "hand does not terminate");
        let seat = legal.seat;
        // An action outside the legal set is refused and changes nothing.
        let before = hand.events().len();
        let bad = if legal.check {
            Action::Call
        } else {
            Action::Check
        };
        if !legal.allows(&bad) {
            assert!(hand.apply(seat, bad).is_err());
            assert_eq!(hand.events().len(), before);
        }
        let other = Seat((seat.0 + 1) % hand.seat_count() as u8);
        assert!(
            hand.apply(other, Action::Fold).is_err(),
            "out of turn accepted"
        );
        let action = random_action(&legal, &mut rng);
        hand.apply(seat, action)
            .unwrap_or_else(|e| panic!("legal action {action:?} refused: {e}"));
        if views {
            check_views(&hand);
        }
    }
    if !views {
        check_views(&hand);
    }
    let outcome = hand.outcome().expect("over");
    assert_eq!(outcome.net.iter().sum::<i64>(), 0, "chips not conserved");
    let after: u64 = (0..hand.seat_count())
        .map(|s| hand.view(Seat(s as u8)).stack(Seat(s as u8)))
        .sum();
    assert_eq!(after, total);
    no_card_twice(&hand);
    hand
}

/// No card is dealt twice unless a reshuffle put it back.
fn no_card_twice(hand: &Hand) {
    let mut held = [CardSet::EMPTY; 9];
    let mut dealt_since = CardSet::EMPTY;
    for e in hand.events() {
        match *e {
            Event::Deal {
                seat,
                card: Some(c),
                ..
            } => {
                assert!(!dealt_since.contains(c), "{c} dealt twice");
                dealt_since.insert(c);
                held[seat.index()].insert(c);
            }
            Event::Community { card: c } => {
                assert!(!dealt_since.contains(c), "{c} dealt twice");
                dealt_since.insert(c);
                held[8].insert(c);
            }
            Event::Reshuffle { .. } => {
                dealt_since = held.iter().fold(CardSet::EMPTY, |a, b| a.union(*b));
            }
            Event::Discard {
                seat,
                cards: Some(c),
                ..
            } => held[seat.index()] = held[seat.index()].difference(c),
            Event::Fold { seat } => held[seat.index()] = CardSet::EMPTY,
            _ => {}
        }
    }
}

/// No view holds another player's down card or discard before it is shown.
fn check_views(hand: &Hand) {
    let n = hand.seat_count();
    // Every card each seat ever held face down or threw, from the full record.
    let mut private = vec![CardSet::EMPTY; n];
    let mut shown = CardSet::EMPTY;
    let mut public = CardSet::EMPTY;
    for e in hand.events() {
        match *e {
            Event::Deal {
                seat,
                card: Some(c),
                up: false,
            } => {
                private[seat.index()].insert(c);
            }
            Event::Deal {
                card: Some(c),
                up: true,
                ..
            }
            | Event::Community { card: c } => {
                public.insert(c);
            }
            Event::Show { cards, .. } => shown = shown.union(cards),
            _ => {}
        }
    }
    for viewer in 0..n {
        let view = hand.view(Seat(viewer as u8));
        let visible = view.visible_cards();
        for (other, cards) in private.iter().enumerate() {
            if other == viewer {
                continue;
            }
            // A card that is public now (a reshuffled card dealt face up, or shown) may be seen.
            let leaked = visible
                .intersection(*cards)
                .difference(shown)
                .difference(public)
                .difference(private[viewer]);
            assert!(
                leaked.is_empty(),
                "seat {viewer} sees {leaked} of seat {other}"
            );
        }
    }
}

fn setup_strategy() -> impl Strategy<Value = (usize, Vec<u64>, usize, u64)> {
    (0..PRESETS.len(), 2usize..=8, any::<u64>()).prop_flat_map(|(p, n, seed)| {
        let preset = PRESETS[p];
        let max = *preset.game.variant.seats().end();
        let n = n.min(max);
        let unit = preset.game.unit();
        (
            Just(p),
            prop::collection::vec(
                prop_oneof![
                    1..=unit * 3,
                    unit * 3..=preset.stack * 2,
                    Just(preset.stack)
                ],
                n,
            ),
            0..n,
            Just(seed),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn random_legal_play_keeps_every_invariant((p, stacks, button, seed) in setup_strategy()) {
        let preset: Preset = PRESETS[p];
        let setup = TableSetup { game: preset.game, stacks, button };
        for k in 0..4 {
            play(&setup, seed, k);
        }
    }
}

#[test]
fn six_handed_triple_draw_reshuffles_happen() {
    let preset = Preset::by_name("27td-fl").unwrap();
    let setup = TableSetup {
        game: preset.game,
        stacks: vec![preset.stack; 6],
        button: 0,
    };
    let mut reshuffles = 0;
    for k in 0..2000 {
        let hand = play(&setup, 99, k);
        reshuffles += hand
            .events()
            .iter()
            .filter(|e| matches!(e, Event::Reshuffle { .. }))
            .count();
    }
    assert!(
        reshuffles > 0,
        "random 6-handed play should run out of cards sometimes"
    );
}

/// The soak run: a million random hands per betting structure of each game (release mode, about a
/// minute): `cargo test --release -p pitboss-rules --test random_play -- --ignored soak`.
/// `SOAK_HANDS` overrides the count per structure.
#[test]
#[ignore = "soak run: a million hands per structure; run in release (see README)"]
fn soak() {
    let per: u64 = std::env::var("SOAK_HANDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    for preset in PRESETS {
        let max = *preset.game.variant.seats().end();
        let mut rng = ChaCha8Rng::seed_from_u64(2026);
        for k in 0..per {
            let n = 2 + (rng.next_u32() as usize) % (max - 1);
            let unit = preset.game.unit();
            let stacks = (0..n)
                .map(|_| match rng.next_u32() % 4 {
                    0 => 1 + rng.next_u64() % (unit * 3),
                    1 => unit * 3 + rng.next_u64() % (preset.stack * 2),
                    _ => preset.stack,
                })
                .collect();
            let setup = TableSetup {
                game: preset.game,
                stacks,
                button: k as usize % n,
            };
            play_checked(&setup, 77, k, false);
        }
        eprintln!("soak: {per} hands of {} passed", preset.name);
    }
}
