//! The replayer: a PHH hand is rebuilt as a Pitboss table, its dealt cards are dictated to the
//! engine, and every player action goes through `Hand::apply`, the only authority on legality.
//!
//! Cards. The engine checks that no dealt card is live twice and that a triple-draw replacement is
//! not a discard of the player being served or of a player not yet served. Nothing else about the
//! dealer is assumed: a file whose dealer burnt cards, or reshuffled differently, replays as long
//! as those checks pass. Cards are fed lazily: the deals that follow a player action in the file
//! are queued just before that action is applied (the engine deals them as its consequence), so a
//! deal the engine does not expect is reported at the deal's own action index.
//!
//! Unknown cards (`??`). Each `??` gets a stand-in: first a card the same player shows later in
//! the file (`pN sm`) that no deal names, else an unseen placeholder (a card named nowhere in the
//! file). A `??` in a discard throws one of the player's stand-ins. Placeholders keep the replay
//! legal; they can decide a showdown only if an unknown card is never revealed, and such a hand's
//! settlement is then not meaningful (the count is reported in [`Replayed::placeholders`]).
//!
//! Show and muck lines are informational: a shown card must be one the player holds. The engine
//! decides showing and mucking itself (docs/RULES.md auto-muck).
//!
//! Known differences. When a hand is rejected or its stacks differ, the situation is examined
//! and, if it is one of docs/RULES.md's "Known differences from PokerKit 0.7.7", the reason says so
//! ("known difference N with PokerKit 0.7.7: ...").

mod differences;

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use pitboss_cards::{Card, CardSet};
use pitboss_rules::{
    Action, ApplyError, CardSource, Chips, DealError, Event, Game, Hand, IllegalAction, Reason,
    Recipient, Seat, Table, TableSetup, Variant, MAX_SEATS,
};

use crate::error::{Location, PhhError};
use crate::model::{game_from_fields, PhhHand, Players};
use crate::read::{parse_action, PhhAction, ReadHand, Slot};

/// The action a rejection points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionRef {
    /// 1-based index in the `actions` array.
    pub index: usize,
    pub text: String,
}

/// Why a hand does not verify.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    /// The offending action; `None` for the end of the hand (unfinished, or stacks differ).
    pub action: Option<ActionRef>,
    pub reason: String,
    /// The known difference with PokerKit 0.7.7 the situation matches: 1-7 as docs/RULES.md lists them,
    /// 8 and 9 found by the cross-check (see the README).
    pub known: Option<u8>,
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.action {
            Some(a) => write!(f, "action {} `{}`: {}", a.index, a.text, self.reason),
            None => f.write_str(&self.reason),
        }
    }
}

/// The result of verifying one hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Verified,
    Rejected(Rejection),
}

/// A replayed hand: the table it was played on, the engine's record and the verdict.
#[derive(Clone, Debug)]
pub struct Replayed {
    pub at: Location,
    pub phh: PhhHand,
    pub table: Table,
    pub players: Players,
    /// The engine's events as far as the replay got.
    pub events: Vec<Event>,
    /// The engine's finishing stacks in PHH player order, when the hand finished.
    pub finishing_stacks: Option<Vec<Chips>>,
    /// `??` cards replaced by placeholders nobody reveals.
    pub placeholders: usize,
    /// Cards the file deals that the house convention would not have dealt (its dealer
    /// reshuffled differently); empty with `strict_dealing`, which rejects such hands.
    pub dealing_notes: Vec<String>,
    pub verdict: Verdict,
}

// ----- the card feed -----

#[derive(Debug, Default)]
struct FeedState {
    seats: [VecDeque<(Card, usize)>; MAX_SEATS],
    board: VecDeque<(Card, usize)>,
    /// The action index of the card dealt last.
    last: Option<(Card, usize)>,
    /// What the engine asked for when the feed had nothing.
    missing: Option<Recipient>,
    /// Accept any physically possible dealing (not `--strict-dealing`).
    physical: bool,
}

impl FeedState {
    fn first_pending(&self) -> Option<usize> {
        self.seats
            .iter()
            .chain(std::iter::once(&self.board))
            .filter_map(|q| q.front().map(|x| x.1))
            .min()
    }
}

/// Cards dictated by the file, queued per recipient just before they are needed.
#[derive(Clone, Debug, Default)]
struct Feed(Rc<RefCell<FeedState>>);

impl CardSource for Feed {
    fn deal(&mut self, to: Recipient) -> Option<Card> {
        let mut st = self.0.borrow_mut();
        let got = match to {
            Recipient::Seat(s) => st.seats[s.index()].pop_front(),
            Recipient::Board => st.board.pop_front(),
        };
        match got {
            Some(x) => {
                st.last = Some(x);
                Some(x.0)
            }
            None => {
                st.missing = Some(to);
                None
            }
        }
    }

    fn reshuffle(&mut self, _cards: CardSet) {}

    fn physical_only(&self) -> bool {
        self.0.borrow().physical
    }

    /// The file deals hole cards next, and no community card.
    fn seventh_street_hole_cards(&self) -> bool {
        let st = self.0.borrow();
        st.board.is_empty() && st.seats.iter().any(|q| !q.is_empty())
    }
}

// ----- resolving the file -----

/// An action with every `??` replaced by a concrete card.
#[derive(Clone, Debug)]
enum Step {
    DealHole { player: usize, cards: Vec<Card> },
    DealBoard { cards: Vec<Card> },
    Draw { player: usize, cards: Vec<Card> },
    Bet { player: usize, action: PhhAction },
    Show { player: usize, cards: Vec<Card> },
    Nothing,
}

fn resolve(at: &Location, actions: &[String], n: usize) -> Result<(Vec<Step>, usize), PhhError> {
    let parsed: Vec<PhhAction> = actions
        .iter()
        .enumerate()
        .map(|(i, text)| {
            parse_action(text, n).map_err(|why| PhhError::Action {
                at: at.clone(),
                index: i + 1,
                text: text.clone(),
                why,
            })
        })
        .collect::<Result<_, _>>()?;
    // Every card the file names, and per player the cards shown but never dealt by name.
    let mut named = CardSet::EMPTY;
    let mut dealt_named = CardSet::EMPTY;
    let mut last_shown: Vec<Vec<Card>> = vec![Vec::new(); n];
    let known = |v: &[Slot]| -> Vec<Card> {
        v.iter()
            .filter_map(|s| match s {
                Slot::Known(c) => Some(*c),
                Slot::Unknown => None,
            })
            .collect()
    };
    for a in &parsed {
        match a {
            PhhAction::DealHole { cards, .. } | PhhAction::DealBoard { cards } => {
                for c in known(cards) {
                    named.insert(c);
                    dealt_named.insert(c);
                }
            }
            PhhAction::Draw { cards, .. } => known(cards).into_iter().for_each(|c| {
                named.insert(c);
            }),
            PhhAction::Show {
                player,
                cards: Some(cards),
            } => {
                let k = known(cards);
                k.iter().for_each(|c| {
                    named.insert(*c);
                });
                last_shown[*player] = k;
            }
            _ => {}
        }
    }
    let mut revealed: Vec<VecDeque<Card>> = last_shown
        .iter()
        .map(|v| {
            v.iter()
                .copied()
                .filter(|c| !dealt_named.contains(*c))
                .collect()
        })
        .collect();
    let mut pool = Card::all().filter(|c| !named.contains(*c));
    let mut stand_ins: Vec<Vec<Card>> = vec![Vec::new(); n];
    let mut placeholders = 0;
    let mut steps = Vec::with_capacity(parsed.len());
    for (i, a) in parsed.into_iter().enumerate() {
        let err = |why: &str| PhhError::Action {
            at: at.clone(),
            index: i + 1,
            text: actions[i].clone(),
            why: why.to_string(),
        };
        let mut fresh = |player: Option<usize>| -> Result<Card, PhhError> {
            if let Some(p) = player {
                if let Some(c) = revealed[p].pop_front() {
                    stand_ins[p].push(c);
                    return Ok(c);
                }
            }
            placeholders += 1;
            let c = pool
                .next()
                .ok_or_else(|| err("more unknown cards than the deck can stand in for"))?;
            if let Some(p) = player {
                stand_ins[p].push(c);
            }
            Ok(c)
        };
        steps.push(match a {
            PhhAction::DealHole { player, cards } => {
                let mut out = Vec::with_capacity(cards.len());
                for s in cards {
                    out.push(match s {
                        Slot::Known(c) => c,
                        Slot::Unknown => fresh(Some(player))?,
                    });
                }
                Step::DealHole { player, cards: out }
            }
            PhhAction::DealBoard { cards } => {
                let mut out = Vec::with_capacity(cards.len());
                for s in cards {
                    out.push(match s {
                        Slot::Known(c) => c,
                        Slot::Unknown => fresh(None)?,
                    });
                }
                Step::DealBoard { cards: out }
            }
            PhhAction::Draw { player, cards } => {
                let mut out = Vec::with_capacity(cards.len());
                for s in cards {
                    out.push(match s {
                        Slot::Known(c) => c,
                        Slot::Unknown => stand_ins[player].pop().ok_or_else(|| {
                            err("discards an unknown card, but the player holds no unknown card")
                        })?,
                    });
                }
                Step::Draw { player, cards: out }
            }
            PhhAction::Show { player, cards } => Step::Show {
                player,
                cards: cards.map(|c| known(&c)).unwrap_or_default(),
            },
            PhhAction::Nothing => Step::Nothing,
            a @ (PhhAction::BringIn { player }
            | PhhAction::Fold { player }
            | PhhAction::CheckCall { player }
            | PhhAction::RaiseTo { player, .. }) => Step::Bet { player, action: a },
        });
    }
    Ok((steps, placeholders))
}

// ----- replay -----

struct Run<'a> {
    phh: &'a PhhHand,
    game: Game,
    players: Players,
    feed: Feed,
    steps: Vec<Step>,
    /// This draw's discards by seat (declared, maybe not yet served).
    draw_discards: [CardSet; MAX_SEATS],
    held: Vec<CardSet>,
}

impl Run<'_> {
    fn seat(&self, player: usize) -> Seat {
        Seat(self.players.seat_of[player])
    }

    fn pname(&self, seat: Seat) -> String {
        format!("p{}", self.players.player_of(seat.0) + 1)
    }

    fn at(&self, i: usize) -> Option<ActionRef> {
        Some(ActionRef {
            index: i + 1,
            text: self.phh.actions[i].clone(),
        })
    }

    /// Queues the deals that follow step `i` (skipping show lines) up to the next player action.
    fn queue_deals_after(&self, i: usize) {
        self.queue_deals_from(i + 1);
    }

    /// Queues the deals from step `from` on, up to the next player action.
    fn queue_deals_from(&self, from: usize) {
        let mut st = self.feed.0.borrow_mut();
        for (j, step) in self.steps.iter().enumerate().skip(from) {
            match step {
                Step::DealHole { player, cards } => {
                    let s = self.players.seat_of[*player];
                    st.seats[usize::from(s)].extend(cards.iter().map(|c| (*c, j)));
                }
                Step::DealBoard { cards } => st.board.extend(cards.iter().map(|c| (*c, j))),
                Step::Show { .. } | Step::Nothing => {}
                Step::Draw { .. } | Step::Bet { .. } => break,
            }
        }
    }

    fn clear_feed(&self) {
        let physical = self.feed.0.borrow().physical;
        *self.feed.0.borrow_mut() = FeedState {
            physical,
            ..FeedState::default()
        };
    }

    /// The engine's `seat N` (its `Display`, numbered from 1) in a text, as the file's `pK`.
    fn seats_as_players(&self, text: &str) -> String {
        let mut t = text.to_string();
        for s in (0..self.players.seat_of.len()).rev() {
            let seat = Seat(s as u8);
            t = t.replace(&seat.to_string(), &self.pname(seat));
        }
        t
    }
}

/// Replays and verifies one hand read from a file.
///
/// # Errors
/// [`PhhError`] when the hand is malformed: a missing or mistyped field, an unknown variant, a
/// setup the engine refuses, an action line that cannot be parsed. An illegal action is not an
/// error but a [`Verdict::Rejected`].
pub fn replay(read: &ReadHand) -> Result<Replayed, PhhError> {
    replay_with(read, false)
}

/// [`replay`], choosing how dealing is checked: by default any physically possible dealing is
/// accepted (no card in two places at once) and the cards the house would not have dealt are
/// listed in [`Replayed::dealing_notes`]; with `strict_dealing` such a hand is rejected, as the
/// house convention (docs/RULES.md) has it.
///
/// # Errors
/// As [`replay`].
pub fn replay_with(read: &ReadHand, strict_dealing: bool) -> Result<Replayed, PhhError> {
    let at = &read.at;
    let phh = &read.hand;
    let game = game_from_fields(phh).map_err(|p| {
        if p.field == "variant" {
            PhhError::UnknownVariant {
                at: at.clone(),
                code: phh.variant.clone(),
            }
        } else {
            PhhError::Field {
                at: at.clone(),
                field: p.field.to_string(),
                why: p.why,
            }
        }
    })?;
    let n = phh.starting_stacks.len();
    if !game.variant.seats().contains(&n) {
        return Err(PhhError::Field {
            at: at.clone(),
            field: "starting_stacks".into(),
            why: format!(
                "{n} players; {} takes {} to {}",
                phh.variant,
                game.variant.seats().start(),
                game.variant.seats().end()
            ),
        });
    }
    if let Some(f) = &phh.finishing_stacks {
        if f.len() != n {
            return Err(PhhError::Field {
                at: at.clone(),
                field: "finishing_stacks".into(),
                why: format!("{} entries for {n} players", f.len()),
            });
        }
    }
    let players = Players::from_file(game.variant, n, phh.seats.as_deref());
    let mut stacks = vec![0; n];
    for (k, &s) in players.seat_of.iter().enumerate() {
        stacks[usize::from(s)] = phh.starting_stacks[k];
    }
    let table = TableSetup {
        game,
        stacks,
        button: players.button,
    }
    .validate()
    .map_err(|e| PhhError::Field {
        at: at.clone(),
        field: match &e {
            pitboss_rules::SetupError::Field { field, .. } => field.to_string(),
            pitboss_rules::SetupError::UnknownPreset(_) => "variant".into(),
        },
        why: e.to_string(),
    })?;
    let (steps, placeholders) = resolve(at, &phh.actions, n)?;
    let mut run = Run {
        phh,
        game,
        players: players.clone(),
        feed: Feed(Rc::new(RefCell::new(FeedState {
            physical: !strict_dealing,
            ..FeedState::default()
        }))),
        steps,
        draw_discards: [CardSet::EMPTY; MAX_SEATS],
        held: vec![CardSet::EMPTY; n],
    };
    let mut out = Replayed {
        at: at.clone(),
        phh: phh.clone(),
        table,
        players,
        events: Vec::new(),
        finishing_stacks: None,
        placeholders,
        dealing_notes: Vec::new(),
        verdict: Verdict::Verified,
    };
    let first_bet = run
        .steps
        .iter()
        .position(|s| matches!(s, Step::Bet { .. } | Step::Draw { .. }));
    // The deals before the first decision are the opening deal.
    run.queue_deals_from(0);
    let mut hand = match Hand::start(&table, run.feed.clone()) {
        Ok(h) => h,
        Err(e) => {
            out.verdict = Verdict::Rejected(run.deal_rejection(&e, None, &[], first_bet));
            return Ok(out);
        }
    };
    if let Some(j) = run.feed.0.borrow().first_pending() {
        out.events = hand.events().to_vec();
        out.verdict = Verdict::Rejected(run.extra_deal(j));
        return Ok(out);
    }
    let verdict = run.drive(&mut hand);
    out.events = hand.events().to_vec();
    out.dealing_notes = hand
        .dealing_notes()
        .iter()
        .map(|n| run.seats_as_players(n))
        .collect();
    if hand.is_over() {
        let fin: Vec<Chips> = {
            let net: Vec<i64> = hand.net().map(|(_, v)| v).collect();
            run.players
                .seat_of
                .iter()
                .map(|&s| (table.stack(Seat(s)) as i64 + net[usize::from(s)]) as Chips)
                .collect()
        };
        out.finishing_stacks = Some(fin);
    }
    out.verdict = match verdict {
        Some(r) => Verdict::Rejected(r),
        None => match (&phh.finishing_stacks, &out.finishing_stacks) {
            (Some(want), Some(got)) if want != got => {
                Verdict::Rejected(run.stacks_differ(want, got, hand.events()))
            }
            _ => Verdict::Verified,
        },
    };
    Ok(out)
}

impl Run<'_> {
    /// Applies every step; returns the first rejection.
    fn drive(&mut self, hand: &mut Hand<Feed>) -> Option<Rejection> {
        for i in 0..self.steps.len() {
            let step = self.steps[i].clone();
            match step {
                Step::Nothing => {}
                Step::DealHole { player, cards } => {
                    for c in cards {
                        self.held[player].insert(c);
                    }
                }
                Step::DealBoard { .. } => {}
                Step::Show { player, cards } => {
                    if let Some(c) = cards.iter().find(|c| !self.held[player].contains(**c)) {
                        return Some(Rejection {
                            action: self.at(i),
                            reason: format!("p{} shows {c}, which they do not hold", player + 1),
                            known: None,
                        });
                    }
                }
                Step::Draw { player, cards } => {
                    if let Some(r) = self.implicit_checks(hand, None) {
                        return Some(r);
                    }
                    let set: CardSet = cards.iter().copied().collect();
                    let seat = self.seat(player);
                    let before = self.draw_discards[seat.index()];
                    self.draw_discards[seat.index()] = set;
                    if let Some(r) = self.act(hand, i, seat, Action::Discard { cards: set }) {
                        self.draw_discards[seat.index()] = before;
                        return Some(r);
                    }
                    for c in cards {
                        self.held[player].remove(c);
                    }
                }
                Step::Bet { player, action } => {
                    self.draw_discards = [CardSet::EMPTY; MAX_SEATS];
                    let seat = self.seat(player);
                    if let Some(r) = self.implicit_checks(hand, Some(seat)) {
                        return Some(r);
                    }
                    let legal = hand.legal();
                    let a = match action {
                        PhhAction::Fold { .. } => Action::Fold,
                        PhhAction::BringIn { .. } => Action::BringIn,
                        // PokerKit lets a bring-in player whose stack does not cover the
                        // bring-in "complete" all-in for what they have: that is a short
                        // bring-in post here.
                        PhhAction::RaiseTo { to, .. }
                            if legal.is_some_and(|l| {
                                l.raise.is_none()
                                    && l.bring_in
                                        .is_some_and(|b| hand.view(l.seat).bet(l.seat) + b == to)
                            }) =>
                        {
                            Action::BringIn
                        }
                        PhhAction::RaiseTo { to, .. } => Action::Raise { to },
                        _ if legal.is_some_and(|l| l.check) => Action::Check,
                        _ => Action::Call,
                    };
                    if let Some(r) = self.act(hand, i, seat, a) {
                        return Some(r);
                    }
                }
            }
        }
        if let Some(r) = self.implicit_checks(hand, None) {
            return Some(r);
        }
        if !hand.is_over() {
            let who = hand
                .to_act()
                .map(|s| self.pname(s))
                .unwrap_or_else(|| "the dealer".into());
            let r = Rejection {
                action: None,
                reason: format!("the actions end before the hand does (waiting for {who})"),
                known: None,
            };
            return Some(self.label(r, hand.events(), None));
        }
        None
    }

    /// Supplies the checks PHH does not write: a decision whose only action is a check because
    /// nobody could answer a bet (every other live player is all-in). PokerKit never asks for
    /// it, so the file goes on with the next street; `next` is the seat of the file's next
    /// betting action, which is applied as written when it is this seat's.
    fn implicit_checks(&mut self, hand: &mut Hand<Feed>, next: Option<Seat>) -> Option<Rejection> {
        while let Some(l) = hand.legal() {
            let only_check =
                l.check && l.raise.is_none() && l.call.is_none() && l.discard.is_none();
            if !only_check || next == Some(l.seat) {
                return None;
            }
            self.clear_feed();
            if let Err(e) = hand.apply(l.seat, Action::Check) {
                return Some(Rejection {
                    action: None,
                    reason: format!("an implicit check failed: {e}"),
                    known: None,
                });
            }
        }
        None
    }

    /// Applies one decision, with the deals that follow it queued.
    fn act(
        &mut self,
        hand: &mut Hand<Feed>,
        i: usize,
        seat: Seat,
        action: Action,
    ) -> Option<Rejection> {
        if hand.is_over() {
            return Some(Rejection {
                action: self.at(i),
                reason: "the hand is already over".into(),
                known: None,
            });
        }
        self.clear_feed();
        self.queue_deals_after(i);
        let result = hand.apply(seat, action).map(|_| ());
        match result {
            Ok(()) => self
                .feed
                .0
                .borrow()
                .first_pending()
                .map(|j| self.extra_deal(j)),
            Err(ApplyError::Illegal(e)) => {
                let r = Rejection {
                    action: self.at(i),
                    reason: self.illegal_text(&e),
                    known: None,
                };
                Some(self.label(r, hand.events(), Some((seat, &e))))
            }
            Err(ApplyError::Deal(e)) => {
                let events = hand.events().to_vec();
                Some(self.deal_rejection(&e, Some(hand), &events, Some(i)))
            }
        }
    }

    fn illegal_text(&self, e: &IllegalAction) -> String {
        match e.reason {
            Reason::NotYourTurn(s) => format!(
                "{} tried `{}` but it is {}'s turn",
                self.pname(e.seat),
                e.action,
                self.pname(s)
            ),
            ref r => format!("{} tried `{}`: {r}", self.pname(e.seat), e.action),
        }
    }

    fn extra_deal(&self, j: usize) -> Rejection {
        Rejection {
            action: self.at(j),
            reason: "the referee deals no such card at this point".into(),
            known: None,
        }
    }

    /// A dictated card the engine could not use.
    fn deal_rejection(
        &self,
        e: &DealError,
        hand: Option<&Hand<Feed>>,
        events: &[Event],
        after: Option<usize>,
    ) -> Rejection {
        let st = self.feed.0.borrow();
        match e {
            DealError::Unavailable { card, to, why } => {
                let j = st.last.filter(|x| x.0 == *card).map(|x| x.1);
                let mut r = Rejection {
                    action: j.and_then(|j| self.at(j)),
                    reason: self
                        .seats_as_players(&format!("{card} cannot be dealt to {to}: {why}")),
                    known: None,
                };
                if self.game.variant == Variant::TripleDraw
                    && self.draw_discards.iter().any(|d| d.contains(*card))
                {
                    r.known = Some(2);
                    r.reason = format!(
                        "known difference 2 with PokerKit 0.7.7: {card} was discarded in this \
                         draw by the player being served or one not yet served; docs/RULES.md keeps \
                         those discards out of a reshuffle, PokerKit reshuffles every discard"
                    );
                }
                r
            }
            DealError::Missing(_) => {
                let j = st.first_pending().or(after);
                let wanted = st.missing;
                let mut r = Rejection {
                    action: j.and_then(|j| self.at(j)),
                    reason: match wanted {
                        Some(Recipient::Board) => {
                            "the referee deals a community card here, the file does not".into()
                        }
                        Some(Recipient::Seat(s)) => {
                            format!(
                                "the referee deals {} a card here, the file does not",
                                self.pname(s)
                            )
                        }
                        None => e.to_string(),
                    },
                    known: None,
                };
                if self.game.variant == Variant::StudHiLo && wanted == Some(Recipient::Board) {
                    let _ = hand;
                    let dealt = events
                        .iter()
                        .filter(|e| matches!(e, Event::Deal { .. }))
                        .count();
                    r.known = Some(3);
                    r.reason = format!(
                        "known difference 3 with PokerKit 0.7.7: on seventh street the stub ({} \
                         cards) cannot give every live player a card, so docs/RULES.md deals one \
                         community card; PokerKit reshuffles folded and burnt cards and deals \
                         hole cards, as this file does",
                        52 - dealt
                    );
                }
                drop(st);
                self.label(r, events, None)
            }
        }
    }
}
