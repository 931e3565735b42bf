//! Property-style checks over many random seat views and legal-action sets (seeded, so a failure
//! replays): every bot's answer is allowed, bots are deterministic given their seed, and the
//! simple bots and the exploiters keep their one promise each.

mod common;

use common::{allowed, match_start};
use pitboss_bots::{builtin, EXPLOITERS, NAMES};
use pitboss_cards::Card;
use pitboss_protocol::{
    ActRequest, Action, Bot, Event, LegalActions, Phase, RaiseKind, RaiseOption, SeatState,
    SeatView,
};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

const CASES: u64 = 20_000;

fn below(rng: &mut ChaCha8Rng, n: u64) -> u64 {
    rng.next_u64() % n
}

fn coin(rng: &mut ChaCha8Rng) -> bool {
    rng.next_u32() & 1 == 1
}

/// A random request: triple draw or stud, any street, a random but coherent legal-action set.
fn random_request(rng: &mut ChaCha8Rng, stud: bool) -> ActRequest {
    let mut deck: Vec<Card> = Card::all().collect();
    for i in (1..deck.len()).rev() {
        deck.swap(i, below(rng, i as u64 + 1) as usize);
    }
    let mut deal = deck.into_iter();
    let n = 2 + below(rng, if stud { 7 } else { 5 }) as usize;
    let seat = below(rng, n as u64) as u8;
    let round = below(rng, if stud { 5 } else { 4 }) as u8;
    let draw_phase = !stud && round < 3 && below(rng, 3) == 0;
    let up_count = if stud { 1 + round.min(3) as usize } else { 0 };
    let mut seats = Vec::with_capacity(n);
    for i in 0..n {
        let bet = below(rng, 40);
        seats.push(SeatState {
            stack: below(rng, 500),
            bet,
            contributed: bet + below(rng, 100),
            folded: i != usize::from(seat) && below(rng, 4) == 0,
            up: (0..up_count).map(|_| deal.next().unwrap()).collect(),
            draws: if stud {
                Vec::new()
            } else {
                (0..round).map(|_| below(rng, 6) as u8).collect()
            },
        });
    }
    let own = if stud { 2 + usize::from(round == 4) } else { 5 };
    let cards: Vec<Card> = (0..own).map(|_| deal.next().unwrap()).collect();
    let legal = if draw_phase {
        LegalActions {
            discard: Some(below(rng, 6) as u8),
            ..LegalActions::default()
        }
    } else {
        random_bet_legal(rng, stud && round == 0)
    };
    ActRequest {
        id: rng.next_u64(),
        hand: 0,
        events: vec![Event::Round { round }],
        view: SeatView {
            seat,
            round,
            phase: if draw_phase { Phase::Draw } else { Phase::Bet },
            button: 0,
            pot: below(rng, 1000),
            cards,
            board: (stud && round == 4 && coin(rng)).then(|| deal.next().unwrap()),
            seats,
        },
        legal,
        clock: Default::default(),
    }
}

fn random_bet_legal(rng: &mut ChaCha8Rng, third: bool) -> LegalActions {
    let min_to = 1 + below(rng, 50);
    let max_to = min_to + if coin(rng) { 0 } else { below(rng, 500) };
    let mut legal = LegalActions::default();
    let kind = match below(rng, 3) {
        0 if third => {
            legal.bring_in = Some(1 + below(rng, 5));
            RaiseKind::Complete
        }
        0 | 1 => {
            legal.fold = true;
            legal.call = Some(1 + below(rng, 100));
            if third && coin(rng) {
                RaiseKind::Complete
            } else {
                RaiseKind::Raise
            }
        }
        _ => {
            legal.check = true;
            legal.fold = below(rng, 4) == 0; // the referee may or may not list it
            RaiseKind::Bet
        }
    };
    if below(rng, 3) != 0 {
        legal.raise = Some(RaiseOption {
            kind,
            min_to,
            max_to,
        });
    }
    if below(rng, 50) == 0 {
        // A degenerate set: only folding (never produced by the rules, still answered legally).
        legal = LegalActions {
            fold: true,
            ..LegalActions::default()
        };
    }
    legal
}

/// Runs `name` (seeded) over `CASES` random requests of both games, told or not told the game.
fn answers(name: &str, seed: u64) -> Vec<(ActRequest, Action)> {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed ^ seed);
    let mut out = Vec::with_capacity(CASES as usize);
    for (k, variant) in [None, Some("triple-draw"), Some("stud-hi-lo")]
        .into_iter()
        .enumerate()
    {
        let mut bot = builtin(name, seed).expect("known bot");
        if let Some(v) = variant {
            bot.match_start(&match_start(v, "no-limit"));
        }
        for i in 0..CASES / 3 {
            let stud = match variant {
                Some(v) => v == "stud-hi-lo",
                None => (i + k as u64) & 1 == 0,
            };
            let req = random_request(&mut rng, stud);
            let action = bot.act(&req);
            out.push((req, action));
        }
    }
    out
}

#[test]
fn every_bot_answers_legally() {
    for name in NAMES.iter().chain(EXPLOITERS) {
        for (req, action) in answers(name, 7) {
            if let Err(e) = allowed(&action, &req.legal, &req.view.cards) {
                panic!("{name}: {e}\nview: {:?}", req.view);
            }
        }
    }
}

#[test]
fn every_bot_is_deterministic_given_its_seed() {
    for name in NAMES.iter().chain(EXPLOITERS) {
        let a: Vec<Action> = answers(name, 11).into_iter().map(|(_, a)| a).collect();
        let b: Vec<Action> = answers(name, 11).into_iter().map(|(_, a)| a).collect();
        assert_eq!(a, b, "{name} differs between two runs with the same seed");
    }
}

#[test]
fn random_depends_on_its_seed_and_uses_every_action_type() {
    let a = answers("random", 1);
    let b = answers("random", 2);
    assert_ne!(
        a.iter().map(|(_, x)| x).collect::<Vec<_>>(),
        b.iter().map(|(_, x)| x).collect::<Vec<_>>()
    );
    let mut seen = [false; 6];
    let mut sizes = std::collections::BTreeSet::new();
    for (req, action) in &a {
        seen[match action {
            Action::Fold => 0,
            Action::Check => 1,
            Action::Call => 2,
            Action::Raise { to } => {
                let r = req.legal.raise.unwrap();
                sizes.insert((*to == r.min_to, *to == r.max_to));
                3
            }
            Action::BringIn => 4,
            Action::Discard { .. } => 5,
        }] = true;
    }
    assert_eq!(
        seen, [true; 6],
        "fold, check, call, raise, bring-in, discard"
    );
    assert!(sizes.len() >= 3, "raise sizes vary: {sizes:?}");
}

#[test]
fn call_never_folds_or_raises_when_it_can_stay_in() {
    for (req, action) in answers("call", 3) {
        let l = &req.legal;
        let stay = l.check || l.call.is_some() || l.bring_in.is_some();
        match action {
            Action::Fold => assert!(!stay, "call folded with {l:?}"),
            Action::Raise { .. } => assert!(!stay, "call raised with {l:?}"),
            Action::Discard { .. } => {}
            Action::Check | Action::Call | Action::BringIn => {}
        }
    }
}

#[test]
fn raise_raises_the_minimum_whenever_allowed() {
    for (req, action) in answers("raise", 5) {
        let last_round = req.view.round >= 3 && req.legal.discard.is_none();
        if last_round && matches!(action, Action::Check | Action::Fold) {
            // The last round with junk: it gives up (checks, or folds when it cannot check).
            assert!(action == Action::Check || !req.legal.check, "{action:?}");
            continue;
        }
        match (req.legal.raise, &action) {
            (Some(r), Action::Raise { to }) => assert_eq!(*to, r.min_to),
            (Some(_), other) if req.legal.discard.is_none() => {
                panic!("raise answered {other:?} to {:?}", req.legal)
            }
            (None, Action::Fold) => assert!(!req.legal.check && req.legal.call.is_none()),
            _ => {}
        }
    }
}

#[test]
fn unknown_names_are_refused_and_known_ones_built() {
    assert!(builtin("nobody", 0).is_none());
    for name in NAMES.iter().chain(EXPLOITERS) {
        let mut bot: Box<dyn Bot> = builtin(name, 0).unwrap();
        let req = ActRequest {
            legal: LegalActions {
                check: true,
                ..LegalActions::default()
            },
            view: SeatView {
                cards: common::cards("2c3d4h5s7c"),
                seats: vec![SeatState::default(), SeatState::default()],
                ..SeatView::default()
            },
            ..ActRequest::default()
        };
        let action = bot.act(&req);
        assert!(
            allowed(&action, &req.legal, &req.view.cards).is_ok(),
            "{name}: {action:?}"
        );
    }
}

/// Whether staying in (check, call or bring-in) was allowed.
fn could_stay(legal: &LegalActions) -> bool {
    legal.check || legal.call.is_some() || legal.bring_in.is_some()
}

/// The maniac's promise on one answer: the minimum raise whenever one is allowed (outside a draw),
/// and never a fold while staying in is possible.
fn maniac_answer(name: &str, req: &ActRequest, action: &Action) {
    if req.legal.discard.is_some() {
        return;
    }
    match (req.legal.raise, action) {
        (Some(r), Action::Raise { to }) => assert_eq!(*to, r.min_to, "{name}"),
        (Some(_), other) => panic!("{name} answered {other:?} to {:?}", req.legal),
        (None, Action::Fold) => assert!(!could_stay(&req.legal), "{name} folded"),
        (None, _) => {}
    }
}

#[test]
fn x_raise_raises_the_minimum_whenever_allowed_and_never_folds() {
    for (req, action) in answers("x-raise", 5) {
        maniac_answer("x-raise", &req, &action);
    }
}

#[test]
fn x_raise1st_and_x_open_raise_at_their_first_chance() {
    // Every sweep request opens a round (its events start with one), so each is a first chance.
    for name in ["x-raise1st", "x-open1", "x-open2"] {
        let rounds = match name {
            "x-open1" => 1,
            "x-open2" => 2,
            _ => u8::MAX,
        };
        for (req, action) in answers(name, 6) {
            if req.view.round < rounds {
                maniac_answer(name, &req, &action);
            }
        }
    }
}

#[test]
fn x_early_is_a_maniac_in_its_first_rounds() {
    for (name, rounds) in [("x-early1", 1), ("x-early2", 2), ("x-early3", 3)] {
        let mut early = 0;
        for (req, action) in answers(name, 8) {
            if req.view.round < rounds {
                early += 1;
                maniac_answer(name, &req, &action);
            }
        }
        assert!(early > 1000, "{name}: {early} early requests");
    }
}

/// Feeds the same random requests accepted by `keep` to two fresh bots told the same game and
/// seeded alike; their answers must be equal, and `keep` must accept a good share of them.
fn answers_like(name: &str, other: &str, keep: impl Fn(&ActRequest) -> bool) {
    for variant in ["triple-draw", "stud-hi-lo"] {
        for structure in ["fixed-limit", "no-limit"] {
            let mut rng = ChaCha8Rng::seed_from_u64(0xe9);
            let mut a = builtin(name, 21).unwrap();
            let mut b = builtin(other, 21).unwrap();
            a.match_start(&match_start(variant, structure));
            b.match_start(&match_start(variant, structure));
            let mut kept = 0;
            for _ in 0..3000 {
                let req = random_request(&mut rng, variant == "stud-hi-lo");
                if !keep(&req) {
                    continue;
                }
                kept += 1;
                assert_eq!(a.act(&req), b.act(&req), "{name} vs {other}: {:?}", req);
            }
            assert!(kept > 500, "{name}: only {kept} requests kept");
        }
    }
}

#[test]
fn x_early_and_x_open_play_like_equity_after_their_first_rounds() {
    for (name, rounds) in [
        ("x-early1", 1),
        ("x-early2", 2),
        ("x-early3", 3),
        ("x-open1", 1),
        ("x-open2", 2),
    ] {
        answers_like(name, "equity", |r| {
            r.view.round >= rounds || r.legal.discard.is_some()
        });
    }
}

#[test]
fn x_fold_plays_like_equity_until_it_faces_a_bet_and_then_folds() {
    // The sweep's requests carry no bet events: `x-fold` must answer exactly as `equity`.
    answers_like("x-fold", "equity", |_| true);
    // The same requests after an opponent's raise: a fold whenever there is something to call.
    let mut folds = 0;
    for (mut req, _) in answers("equity", 9) {
        let Some(other) = (0..req.view.seats.len() as u8).find(|s| *s != req.view.seat) else {
            continue;
        };
        req.events.push(Event::Raise {
            seat: other,
            kind: RaiseKind::Raise,
            to: 10,
            all_in: false,
        });
        let mut bot = builtin("x-fold", 9).unwrap();
        let action = bot.act(&req);
        if req.legal.discard.is_none() && req.legal.call.is_some() && !req.legal.check {
            assert_eq!(action, Action::Fold, "{:?}", req.legal);
            folds += 1;
        }
    }
    assert!(folds > 1000, "{folds} folds");
}
