//! The bots play real hands through the rules engine (the one authority on legality): every
//! answer must be accepted, and the heuristics must beat `random` in their own game.
//!
//! The conversion from engine view to wire view here is a test stand-in for the arena's (events
//! are not forwarded; the bots cope with an empty event list).

mod common;

use pitboss_bots::{builtin, Bot, EXPLOITERS, NAMES};
use pitboss_cards::{CardSet, Deck};
use pitboss_protocol as wire;
use pitboss_rules::{Action, Hand, Phase, Preset, RaiseKind, Seat, Structure, TableSetup, Variant};

fn game_info(p: &Preset) -> wire::MatchStart {
    let g = &p.game;
    let mut m = common::match_start(
        match g.variant {
            Variant::TripleDraw => "triple-draw",
            Variant::StudHiLo => "stud-hi-lo",
        },
        match g.structure {
            Structure::FixedLimit => "fixed-limit",
            Structure::PotLimit => "pot-limit",
            Structure::NoLimit => "no-limit",
        },
    );
    m.game.small_bet = g.stakes.small_bet;
    m.game.big_bet = g.stakes.big_bet;
    m.game.bring_in = g.stakes.bring_in;
    m
}

fn request(hand: &Hand<Deck>, seat: Seat) -> wire::ActRequest {
    let v = hand.view(seat);
    let legal = v.legal().expect("seat to act");
    let n = v.seat_count();
    wire::ActRequest {
        view: wire::SeatView {
            seat: seat.0,
            round: v.round(),
            phase: match v.phase() {
                Phase::Draw(_) => wire::Phase::Draw,
                _ => wire::Phase::Bet,
            },
            button: v.button().0,
            pot: v.pot(),
            cards: v.own_down_cards().to_vec(),
            board: v.community(),
            seats: (0..n as u8)
                .map(|s| wire::SeatState {
                    stack: v.stack(Seat(s)),
                    bet: v.bet(Seat(s)),
                    contributed: v.contributed(Seat(s)),
                    folded: v.folded(Seat(s)),
                    up: v.up_cards(Seat(s)).to_vec(),
                    draws: v.draw_counts(Seat(s)).to_vec(),
                })
                .collect(),
        },
        legal: wire::LegalActions {
            fold: legal.fold,
            check: legal.check,
            call: legal.call,
            raise: legal.raise.map(|r| wire::RaiseOption {
                kind: match r.kind {
                    RaiseKind::Bet => wire::RaiseKind::Bet,
                    RaiseKind::Raise => wire::RaiseKind::Raise,
                    RaiseKind::Complete => wire::RaiseKind::Complete,
                },
                min_to: r.min_to,
                max_to: r.max_to,
            }),
            bring_in: legal.bring_in,
            discard: legal.discard.map(|h| h.len() as u8),
        },
        ..wire::ActRequest::default()
    }
}

fn to_engine(a: wire::Action) -> Action {
    match a {
        wire::Action::Fold => Action::Fold,
        wire::Action::Check => Action::Check,
        wire::Action::Call => Action::Call,
        wire::Action::Raise { to } => Action::Raise { to },
        wire::Action::BringIn => Action::BringIn,
        wire::Action::Discard { cards } => Action::Discard {
            cards: cards.iter().collect::<CardSet>(),
        },
    }
}

/// Plays `hands` hands of `preset` among `names` (seats rotated each hand); the net per name.
fn play(preset: &str, names: &[&str], hands: u64, seed: u64) -> Vec<i64> {
    let p = Preset::by_name(preset).unwrap();
    let n = names.len();
    let mut bots: Vec<Box<dyn Bot>> = names
        .iter()
        .enumerate()
        .map(|(i, name)| builtin(name, seed ^ i as u64).unwrap())
        .collect();
    for b in &mut bots {
        b.match_start(&game_info(&p));
    }
    let table = TableSetup {
        game: p.game,
        stacks: vec![p.stack; n],
        button: 0,
    }
    .validate()
    .unwrap();
    let mut net = vec![0i64; n];
    for k in 0..hands {
        let who = |seat: Seat| (usize::from(seat.0) + k as usize) % n;
        let mut hand = Hand::start(&table, Deck::for_hand(seed, k)).unwrap();
        while let Some(legal) = hand.legal() {
            let req = request(&hand, legal.seat);
            let name = names[who(legal.seat)];
            let answer = bots[who(legal.seat)].act(&req);
            let action = to_engine(answer.clone());
            if let Err(e) = hand.apply(legal.seat, action) {
                panic!("{name} ({preset}) answered {answer:?}: {e}\n{req:?}");
            }
        }
        for (s, chips) in hand.outcome().unwrap().net.iter().enumerate() {
            net[who(Seat(s as u8))] += chips;
        }
    }
    net
}

#[test]
fn every_bot_plays_every_game_legally() {
    for p in pitboss_rules::PRESETS {
        // A full table: triple draw seats six, so the first bot sits out there.
        let full = match p.game.variant {
            Variant::TripleDraw => &NAMES[NAMES.len() - 6..],
            Variant::StudHiLo => NAMES,
        };
        play(p.name, full, 300, 1);
        for a in NAMES {
            for b in NAMES {
                play(p.name, &[a, b], 40, 2);
            }
        }
    }
}

#[test]
fn every_exploiter_plays_every_game_legally() {
    for p in pitboss_rules::PRESETS {
        let seats = match p.game.variant {
            Variant::TripleDraw => 6,
            Variant::StudHiLo => 8,
        };
        play(p.name, &EXPLOITERS[..seats.min(EXPLOITERS.len())], 300, 1);
        for x in EXPLOITERS {
            for b in NAMES.iter().chain(EXPLOITERS) {
                play(p.name, &[x, b], 40, 2);
            }
        }
    }
}

#[test]
fn lowball_beats_the_simple_bots_at_triple_draw() {
    for preset in ["27td-fl", "27td-nl"] {
        for other in ["random", "call", "raise"] {
            let net = play(preset, &["lowball", other], 4000, 3);
            assert!(net[0] > 0, "{preset}: lowball vs {other}: {net:?}");
        }
    }
}

#[test]
fn hilo_beats_the_simple_bots_at_stud() {
    for preset in ["stud8-fl", "stud8-nl"] {
        for other in ["random", "call", "raise"] {
            let net = play(preset, &["hilo", other], 4000, 4);
            assert!(net[0] > 0, "{preset}: hilo vs {other}: {net:?}");
        }
    }
}
