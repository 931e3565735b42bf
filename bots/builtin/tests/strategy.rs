//! Hand-built situations with one clear answer for the heuristic bots.

mod common;

use common::{cards, draw_legal, facing_bet, match_start, td_request};
use pitboss_bots::builtin;
use pitboss_cards::Card;
use pitboss_protocol::{
    ActRequest, Action, Bot, Event, LegalActions, RaiseKind, RaiseOption, SeatState, SeatView,
};

fn lowball(seed: u64) -> Box<dyn Bot> {
    let mut bot = builtin("lowball", seed).unwrap();
    bot.match_start(&match_start("triple-draw", "fixed-limit"));
    bot
}

fn hilo(seed: u64) -> Box<dyn Bot> {
    let mut bot = builtin("hilo", seed).unwrap();
    bot.match_start(&match_start("stud-hi-lo", "fixed-limit"));
    bot
}

/// The cards `lowball` throws from `hand` at its draw number `mine.len()`.
fn lowball_discards(hand: &str, mine: &[u8], theirs: &[u8]) -> Vec<Card> {
    let req = td_request(hand, mine, theirs, draw_legal());
    let mut out = Vec::new();
    for seed in 0..8 {
        match lowball(seed).act(&req) {
            Action::Discard { mut cards } => {
                cards.sort();
                if seed > 0 {
                    assert_eq!(cards, out, "the draw does not depend on the seed");
                }
                out = cards;
            }
            other => panic!("expected a discard, got {other:?}"),
        }
    }
    out
}

#[test]
fn lowball_throws_the_king_from_a_seven_draw() {
    assert_eq!(lowball_discards("7h 5d 4c 3s Kh", &[], &[]), cards("Kh"));
}

#[test]
fn lowball_throws_one_deuce_of_a_pair() {
    let thrown = lowball_discards("2c 2d 5h 7s 8c", &[], &[]);
    assert_eq!(thrown.len(), 1, "{thrown:?}");
    assert!(thrown[0] == cards("2c")[0] || thrown[0] == cards("2d")[0]);
}

#[test]
fn lowball_stands_pat_on_an_eight_late() {
    assert!(lowball_discards("8c 6d 4h 3s 2c", &[2, 1], &[1, 1]).is_empty());
    // Even against an opponent who stood pat.
    assert!(lowball_discards("8c 6d 4h 3s 2c", &[2, 1], &[1, 0]).is_empty());
}

#[test]
fn lowball_breaks_a_made_straight_and_a_flush() {
    assert_eq!(lowball_discards("2c 3d 4h 5s 6c", &[], &[]).len(), 1);
    assert_eq!(lowball_discards("8h 6h 4h 3h 2h", &[], &[]).len(), 1);
}

#[test]
fn lowball_breaks_a_rough_nine_early_but_keeps_it_last() {
    assert_eq!(lowball_discards("9c 7d 5h 3s 2c", &[], &[]), cards("9c"));
    assert!(lowball_discards("9c 7d 5h 3s 2c", &[1, 1], &[2, 2]).is_empty());
}

#[test]
fn lowball_draws_five_to_nothing() {
    assert_eq!(lowball_discards("Kc Qd Jh 9s As", &[], &[]).len(), 5);
}

#[test]
fn lowball_raises_a_made_seven_and_folds_a_pair_at_the_end() {
    let legal = facing_bet(4, 8);
    let nut = td_request("7c 5d 4h 3s 2c", &[1, 1, 0], &[1, 1, 1], legal);
    assert_eq!(lowball(1).act(&nut), Action::Raise { to: 8 });
    let pair = td_request("9c 9d 4h 3s 2c", &[1, 1, 1], &[1, 1, 0], legal);
    assert_eq!(lowball(1).act(&pair), Action::Fold);
    // A free check is never folded.
    let check = LegalActions {
        check: true,
        ..LegalActions::default()
    };
    let pair = td_request("9c 9d 4h 3s 2c", &[1, 1, 1], &[1, 1, 0], check);
    assert_eq!(lowball(1).act(&pair), Action::Check);
}

#[test]
fn lowball_folds_a_three_card_draw_to_a_pat_hand_late() {
    let req = td_request("Kc Qd 4h 3s 2c", &[3, 2], &[1, 0], facing_bet(4, 8));
    for seed in 0..8 {
        assert_eq!(lowball(seed).act(&req), Action::Fold, "seed {seed}");
    }
}

/// Third street heads-up: seat 0 holds `down` and shows `up`; seat 1 brought in and completed.
fn facing_completion(down: &str, up: &str) -> ActRequest {
    let seat = |up: &str, bet| SeatState {
        stack: 100,
        bet,
        contributed: bet + 1,
        up: cards(up),
        ..SeatState::default()
    };
    ActRequest {
        events: vec![
            Event::Round { round: 0 },
            Event::BringIn {
                seat: 1,
                amount: 1,
                all_in: false,
            },
            Event::Raise {
                seat: 2,
                kind: RaiseKind::Complete,
                to: 4,
                all_in: false,
            },
        ],
        view: SeatView {
            seat: 0,
            pot: 8,
            cards: cards(down),
            seats: vec![seat(up, 0), seat("2c", 1), seat("Qs", 4)],
            ..SeatView::default()
        },
        legal: LegalActions {
            fold: true,
            call: Some(4),
            raise: Some(RaiseOption {
                kind: RaiseKind::Raise,
                min_to: 8,
                max_to: 8,
            }),
            ..LegalActions::default()
        },
        ..ActRequest::default()
    }
}

#[test]
fn hilo_folds_junk_to_a_completion() {
    for (down, up) in [("Kd 9c", "4h"), ("Jc 6d", "Ts"), ("9s 3d", "Qh")] {
        for seed in 0..8 {
            let action = hilo(seed).act(&facing_completion(down, up));
            assert_eq!(action, Action::Fold, "{down} {up}, seed {seed}");
        }
    }
}

#[test]
fn hilo_plays_three_low_cards_and_high_pairs() {
    for (down, up) in [
        ("Ad 2c", "3h"),
        ("Kd Kc", "5h"),
        ("4s 6d", "7c"),
        ("Ah 7h", "Ac"),
    ] {
        for seed in 0..8 {
            let action = hilo(seed).act(&facing_completion(down, up));
            assert!(
                matches!(action, Action::Call | Action::Raise { .. }),
                "{down} {up}, seed {seed}: {action:?}"
            );
        }
    }
    // A-2-3 is strong enough to raise.
    assert_eq!(
        hilo(0).act(&facing_completion("Ad 2c", "3h")),
        Action::Raise { to: 8 }
    );
}

#[test]
fn hilo_posts_the_bring_in_with_junk() {
    let mut req = facing_completion("Kd 9c", "2d");
    req.legal = LegalActions {
        bring_in: Some(1),
        raise: Some(RaiseOption {
            kind: RaiseKind::Complete,
            min_to: 4,
            max_to: 4,
        }),
        ..LegalActions::default()
    };
    assert_eq!(hilo(0).act(&req), Action::BringIn);
}

#[test]
fn hilo_bets_a_made_low_with_a_high_draw_on_fifth_street() {
    // A-2-3-4-5: the wheel, the best low and a straight for high.
    let mut req = facing_completion("Ad 2c", "3h");
    req.events = vec![Event::Round { round: 2 }];
    req.view.round = 2;
    req.view.seats[0].up = cards("3h 4s 5d");
    req.view.seats[1].up = cards("2c Ks Kh");
    req.view.seats[2].folded = true;
    for s in &mut req.view.seats {
        s.bet = 0;
    }
    req.legal = LegalActions {
        check: true,
        raise: Some(RaiseOption {
            kind: RaiseKind::Bet,
            min_to: 4,
            max_to: 4,
        }),
        ..LegalActions::default()
    };
    assert_eq!(hilo(0).act(&req), Action::Raise { to: 4 });
}

#[test]
fn heuristics_are_no_calling_stations_in_the_other_game() {
    // lowball given stud folds junk to a completion; hilo given triple draw draws by the
    // standard rule and folds a pat pair of kings to a bet after the last draw.
    let mut lb = builtin("lowball", 0).unwrap();
    lb.match_start(&match_start("stud-hi-lo", "fixed-limit"));
    assert_eq!(lb.act(&facing_completion("Kd 9c", "Qh")), Action::Fold);
    assert_eq!(lb.act(&facing_completion("2d 3c", "4h")), Action::Call);
    let mut hl = builtin("hilo", 0).unwrap();
    hl.match_start(&match_start("triple-draw", "fixed-limit"));
    let req = td_request("Kc Kd Kh 3s 2c", &[], &[], draw_legal());
    let Action::Discard { cards } = hl.act(&req) else {
        panic!("a discard")
    };
    assert_eq!(cards.len(), 3, "keeps the deuce and the trey: {cards:?}");
    let req = td_request("Kc Kd Kh 3s 2c", &[3, 3, 3], &[0, 0, 0], facing_bet(4, 8));
    assert_eq!(hl.act(&req), Action::Fold);
}
