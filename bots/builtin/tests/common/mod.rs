//! Builders shared by the bot tests: hand-made requests and the legality check.

#![allow(dead_code)]

use pitboss_cards::{parse_cards, Card};
use pitboss_protocol::{
    ActRequest, Action, GameInfo, LegalActions, MatchStart, Phase, RaiseKind, RaiseOption,
    SeatState, SeatView,
};

pub fn cards(text: &str) -> Vec<Card> {
    parse_cards(text).expect("test cards parse")
}

pub fn match_start(variant: &str, structure: &str) -> MatchStart {
    MatchStart {
        game: GameInfo {
            variant: variant.into(),
            structure: structure.into(),
            ante: 1,
            small_blind: 1,
            big_blind: 2,
            bring_in: 1,
            small_bet: 2,
            big_bet: 4,
            cap: 4,
            heads_up_uncapped: false,
            ace_five_straight: false,
            reveal: "auto".into(),
        },
        hands: 1,
        decision_ms: 1000,
        bank_ms: 0,
    }
}

/// A heads-up triple-draw request: seat 0 holds `hand` and has drawn `mine`; seat 1 has drawn
/// `theirs`.
pub fn td_request(hand: &str, mine: &[u8], theirs: &[u8], legal: LegalActions) -> ActRequest {
    let seat = |draws: &[u8]| SeatState {
        stack: 100,
        draws: draws.to_vec(),
        ..SeatState::default()
    };
    ActRequest {
        view: SeatView {
            seat: 0,
            round: mine.len() as u8,
            phase: if legal.discard.is_some() {
                Phase::Draw
            } else {
                Phase::Bet
            },
            pot: 8,
            cards: cards(hand),
            seats: vec![seat(mine), seat(theirs)],
            ..SeatView::default()
        },
        legal,
        ..ActRequest::default()
    }
}

pub fn draw_legal() -> LegalActions {
    LegalActions {
        discard: Some(5),
        ..LegalActions::default()
    }
}

/// Facing a bet of `owed` chips, with a full raise to `min_to` allowed.
pub fn facing_bet(owed: u64, min_to: u64) -> LegalActions {
    LegalActions {
        fold: true,
        call: Some(owed),
        raise: Some(RaiseOption {
            kind: RaiseKind::Raise,
            min_to,
            max_to: min_to,
        }),
        ..LegalActions::default()
    }
}

/// Whether `action` is one `legal` allows for a seat holding `held` face down.
pub fn allowed(action: &Action, legal: &LegalActions, held: &[Card]) -> Result<(), String> {
    let ok = match action {
        Action::Fold => legal.fold,
        Action::Check => legal.check,
        Action::Call => legal.call.is_some(),
        Action::BringIn => legal.bring_in.is_some(),
        Action::Raise { to } => legal
            .raise
            .is_some_and(|r| r.min_to <= *to && *to <= r.max_to),
        Action::Discard { cards } => legal.discard.is_some_and(|max| {
            cards.len() <= usize::from(max)
                && cards.iter().all(|c| held.contains(c))
                && cards
                    .iter()
                    .enumerate()
                    .all(|(i, c)| !cards[..i].contains(c))
        }),
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{action:?} not allowed by {legal:?}"))
    }
}
