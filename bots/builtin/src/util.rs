//! Helpers shared by the bots: reading a [`SeatView`], the passive answer, clipping raise sizes.
//!
//! Everything here is allocation-free; only a discard's `Vec` is ever allocated, by the caller.

use pitboss_cards::{Card, CardSet};
use pitboss_protocol::{ActRequest, Action, Chips, Event, LegalActions, SeatState, SeatView};

/// This seat's state.
#[inline]
pub fn me(view: &SeatView) -> &SeatState {
    &view.seats[usize::from(view.seat)]
}

/// The highest bet of this round (the level to match).
#[inline]
pub fn level(view: &SeatView) -> Chips {
    view.seats.iter().map(|s| s.bet).max().unwrap_or(0)
}

/// Chips owed to match the current level.
#[inline]
pub fn owed(view: &SeatView) -> Chips {
    level(view).saturating_sub(me(view).bet)
}

/// A raise-to total of "the current level plus `num/den` of the pot after the call", the usual
/// way to size a bet in pot and no limit.
#[inline]
pub fn pot_fraction_to(view: &SeatView, num: Chips, den: Chips) -> Chips {
    let lvl = level(view);
    let after_call = view.pot.saturating_add(owed(view));
    lvl.saturating_add(after_call.saturating_mul(num) / den.max(1))
}

/// `to` clipped into the legal raise range, or `None` when raising is not allowed.
#[inline]
pub fn raise_to(legal: &LegalActions, to: Chips) -> Option<Action> {
    legal.raise.map(|r| Action::Raise {
        to: to.clamp(r.min_to, r.max_to.max(r.min_to)),
    })
}

/// The smallest full raise (or bet, or completion), when allowed.
#[inline]
pub fn min_raise(legal: &LegalActions) -> Option<Action> {
    legal.raise.map(|r| Action::Raise {
        to: r.min_to.min(r.max_to),
    })
}

/// The calling station's answer: stand pat in a draw, check when free, else call, else post the
/// bring-in. Folds only when folding is the one thing allowed; raises only when it is the one
/// thing allowed besides folding (never happens under the rules, but keeps the answer legal).
pub fn passive(legal: &LegalActions) -> Action {
    if legal.discard.is_some() {
        Action::Discard { cards: Vec::new() }
    } else if legal.check {
        Action::Check
    } else if legal.call.is_some() {
        Action::Call
    } else if legal.bring_in.is_some() {
        Action::BringIn
    } else if let Some(a) = min_raise(legal) {
        a
    } else {
        Action::Fold
    }
}

/// Check if free, else fold (when folding is allowed), else the passive answer.
pub fn check_or_fold(legal: &LegalActions) -> Action {
    if legal.check {
        Action::Check
    } else if legal.fold {
        Action::Fold
    } else {
        passive(legal)
    }
}

/// Raise with `to` (clipped) if allowed, else the passive answer.
pub fn aggressive(legal: &LegalActions, to: Chips) -> Action {
    raise_to(legal, to).unwrap_or_else(|| passive(legal))
}

/// Every card this seat can use: its down cards, its up cards and the stud community card.
pub fn own_cards(view: &SeatView) -> CardSet {
    let mut set: CardSet = view.cards.iter().collect();
    for c in &me(view).up {
        set.insert(*c);
    }
    if let Some(b) = view.board {
        set.insert(b);
    }
    set
}

/// Seats still in the hand other than this one.
pub fn opponents(view: &SeatView) -> impl Iterator<Item = (usize, &SeatState)> {
    let seat = usize::from(view.seat);
    view.seats
        .iter()
        .enumerate()
        .filter(move |(i, s)| *i != seat && !s.folded)
}

/// A discard action of the given cards of `view.cards`, selected by a bit mask over their order.
pub fn discard_mask(cards: &[Card], mask: u32) -> Action {
    let mut out = Vec::with_capacity(mask.count_ones() as usize);
    out.extend(
        cards
            .iter()
            .enumerate()
            .filter(|(i, _)| mask & (1 << i) != 0)
            .map(|(_, c)| *c),
    );
    Action::Discard { cards: out }
}

/// Counts the aggressive actions of the current betting round from the events a bot receives
/// (they arrive piecemeal, so the count is carried between requests). Reset at each hand start.
#[derive(Clone, Copy, Debug, Default)]
pub struct RoundTracker {
    /// Bets, raises and completions so far this round (blinds and bring-ins not counted).
    pub raises: u8,
}

impl RoundTracker {
    pub fn update(&mut self, events: &[Event]) {
        for e in events {
            match e {
                Event::Round { .. } => self.raises = 0,
                Event::Raise { .. } => self.raises = self.raises.saturating_add(1),
                _ => {}
            }
        }
    }
}

/// Whether the hand is stud: told by the match, else guessed from the view (triple draw always
/// holds exactly five face-down cards and never has up cards or a bring-in).
pub fn is_stud(variant: Option<bool>, req: &ActRequest) -> bool {
    variant.unwrap_or_else(|| {
        req.view.cards.len() != 5 || req.legal.bring_in.is_some() || !me(&req.view).up.is_empty()
    })
}

/// The betting rule of the heuristic bots, on a 0-100 `strength`:
/// raise at `raise_at` or more (and, when `bluff` is set, from ten below it: the seeded mix),
/// sizing two thirds of the pot in pot and no limit; check when free; call at `call_at` or more
/// (in pot and no limit, `big_bet`, raised by the price above 20%: the share of the pot after the
/// call that the call costs); call a cheap price (15% or less) fifteen points below `call_at`;
/// otherwise fold.
pub fn bet_by_strength(
    req: &ActRequest,
    strength: i32,
    raise_at: i32,
    call_at: i32,
    bluff: bool,
    big_bet: bool,
) -> Action {
    let legal = &req.legal;
    let view = &req.view;
    if strength >= raise_at || (bluff && strength >= raise_at - 10) {
        if let Some(a) = raise_to(legal, pot_fraction_to(view, 2, 3)) {
            return a;
        }
    }
    if legal.check || legal.bring_in.is_some() {
        return passive(legal);
    }
    let owed = legal.call.unwrap_or(0);
    let price = (owed.saturating_mul(100) / view.pot.saturating_add(owed).max(1)) as i32;
    let call_at = if big_bet {
        call_at + (price - 20).max(0)
    } else {
        call_at
    };
    if strength >= call_at || (price <= 15 && strength >= call_at - 15) {
        passive(legal)
    } else {
        check_or_fold(legal)
    }
}

/// Whether the structure is pot or no limit: told by the match, else guessed from a raise range
/// wider than one amount (fixed limit allows exactly one).
pub fn is_big_bet(structure: Option<bool>, legal: &LegalActions) -> bool {
    structure.unwrap_or_else(|| legal.raise.is_some_and(|r| r.min_to < r.max_to))
}

/// What both heuristic bots keep: their seeded generator, the game once the match start says it
/// (`None` until then), and this round's bets and raises.
pub struct Context {
    pub rng: rand_chacha::ChaCha8Rng,
    pub stud: Option<bool>,
    pub big_bet: Option<bool>,
    pub track: RoundTracker,
}

impl Context {
    pub fn new(seed: u64) -> Context {
        use rand_chacha::rand_core::SeedableRng;
        Context {
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(seed),
            stud: None,
            big_bet: None,
            track: RoundTracker::default(),
        }
    }

    pub fn match_start(&mut self, m: &pitboss_protocol::MatchStart) {
        self.stud = Some(m.game.variant == "stud-hi-lo");
        self.big_bet = Some(m.game.structure != "fixed-limit");
    }

    pub fn hand_start(&mut self) {
        self.track = RoundTracker::default();
    }
}

/// The answer when a bot cannot read its view: stand pat, check if free, post the bring-in,
/// else fold.
pub fn passive_or_fold(legal: &LegalActions) -> Action {
    if legal.discard.is_some() || legal.check || legal.bring_in.is_some() {
        return passive(legal);
    }
    check_or_fold(legal)
}

/// A discard of every card of `cards` not in `keep`, at most `max` of them (the highest first).
pub fn discard_keeping(cards: &[Card], keep: CardSet, max: u8) -> Action {
    let mut throw: Vec<Card> = cards
        .iter()
        .copied()
        .filter(|c| !keep.contains(*c))
        .collect();
    throw.sort_by_key(|c| std::cmp::Reverse(c.rank().index()));
    throw.truncate(usize::from(max));
    Action::Discard { cards: throw }
}
