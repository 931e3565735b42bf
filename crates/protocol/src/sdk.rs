//! The Rust bot SDK: implement [`Bot`] (only `act` is required) and call [`run`]. The loop speaks
//! protocol 1.1: it answers the hello with the concurrency and message style of [`Options`],
//! keeps one bot and one [`ViewTracker`] per table, rebuilds the view from the events when the
//! referee sends compact `act` requests, and writes the replies of everything it has read before
//! it flushes (one write per batch of requests).
//!
//! ```no_run
//! use pitboss_protocol::{sdk, ActRequest, Action, Bot};
//!
//! struct Caller;
//! impl Bot for Caller {
//!     fn act(&mut self, r: &ActRequest) -> Action {
//!         sdk::passive(&r.legal)
//!     }
//! }
//! sdk::run(&sdk::Options::new("caller"), || Caller).unwrap();
//! ```

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{BufReader, Read, Write};

use serde::Deserialize;

use crate::bot::Bot;
use pitboss_cards::{Card, CardSet};

use crate::messages::{
    ActRequest, Action, Blind, Chips, Clock, Event, FaultKind, HandEnd, HandStart, HelloReply,
    LegalActions, MatchStart, Messages, Phase, RaiseKind, SeatNo, SeatView, Share,
};
use crate::scan::Cursor;
use crate::wire::{read_line, WireError};
use crate::PROTOCOL_VERSION;

/// What the bot says in its hello.
#[derive(Clone, Debug)]
pub struct Options {
    pub name: String,
    pub version: Option<String>,
    /// Games played (`triple-draw`, `stud-hi-lo`); empty: both.
    pub games: Vec<String>,
    /// Tables this process plays at once (protocol 1.1; 0 or 1 without it).
    pub concurrency: u32,
    /// Ask for compact `act` requests (no view: the SDK keeps it from the events).
    pub compact: bool,
    /// With `compact`, ask for terse messages when the referee offers protocol 1.2 (events and
    /// legal actions as token strings: fewer bytes to write and to read).
    pub terse: bool,
}

impl Options {
    /// Both games, 16 tables at once, terse messages (compact with a 1.1 referee).
    pub fn new(name: &str) -> Options {
        Options {
            name: name.into(),
            version: None,
            games: Vec::new(),
            concurrency: 16,
            compact: true,
            terse: true,
        }
    }
}

/// A seat's view kept from the events of a hand, as the referee computes it.
#[derive(Clone, Debug, Default)]
pub struct ViewTracker {
    view: SeatView,
    start: Vec<Chips>,
    /// Cards discarded by each seat at each draw (triple draw).
    discarded: Vec<[u8; 3]>,
    draw_game: bool,
}

impl ViewTracker {
    /// A new hand: `draw_game` is true in triple draw.
    pub fn hand_start(&mut self, h: &HandStart, draw_game: bool) {
        let n = h.seats as usize;
        self.draw_game = draw_game;
        self.start.clone_from(&h.stacks);
        self.start.resize(n, 0);
        self.discarded.clear();
        self.discarded.resize(n, [0; 3]);
        let v = &mut self.view;
        v.seat = h.seat;
        v.round = 0;
        v.phase = Phase::Bet;
        v.button = h.button;
        v.pot = 0;
        v.cards.clear();
        v.board = None;
        v.seats.resize_with(n, Default::default);
        for (s, st) in v.seats.iter_mut().enumerate() {
            st.stack = self.start[s];
            st.bet = 0;
            st.contributed = 0;
            st.folded = false;
            st.up.clear();
            st.draws.clear();
        }
    }

    fn put(&mut self, seat: u8, amount: Chips, bet: bool) {
        if let Some(st) = self.view.seats.get_mut(usize::from(seat)) {
            st.contributed += amount;
            if bet {
                st.bet += amount;
            }
            self.view.pot += amount;
        }
    }

    /// Applies one event.
    pub fn apply(&mut self, e: &Event) {
        match *e {
            Event::Round { round } => {
                self.view.round = round;
                for st in &mut self.view.seats {
                    st.bet = 0;
                }
            }
            Event::Ante { seat, amount, .. } => self.put(seat, amount, false),
            Event::Blind { seat, amount, .. }
            | Event::BringIn { seat, amount, .. }
            | Event::Call { seat, amount, .. } => self.put(seat, amount, true),
            Event::Raise { seat, to, .. } => {
                let bet = self
                    .view
                    .seats
                    .get(usize::from(seat))
                    .map_or(0, |st| st.bet);
                self.put(seat, to.saturating_sub(bet), true);
            }
            Event::Deal { seat, card, up } => {
                if let (Some(c), Some(st)) = (card, self.view.seats.get_mut(usize::from(seat))) {
                    if up {
                        st.up.push(c);
                    } else if seat == self.view.seat {
                        self.view.cards.push(c);
                    }
                }
            }
            Event::Community { card } => self.view.board = Some(card),
            Event::Fold { seat } => {
                if let Some(st) = self.view.seats.get_mut(usize::from(seat)) {
                    st.folded = true;
                }
            }
            Event::Discard { seat, count, cards } => {
                let k = usize::from(self.view.round).min(2);
                if let Some(d) = self.discarded.get_mut(usize::from(seat)) {
                    d[k] = count;
                }
                if let (Some(cards), true) = (cards, seat == self.view.seat) {
                    self.view.cards.retain(|c| !cards.contains(*c));
                }
            }
            Event::Return { seat, amount } => {
                if let Some(st) = self.view.seats.get_mut(usize::from(seat)) {
                    st.contributed = st.contributed.saturating_sub(amount);
                    st.bet = st.bet.saturating_sub(amount);
                    self.view.pot = self.view.pot.saturating_sub(amount);
                }
            }
            Event::Check { .. }
            | Event::Reshuffle { .. }
            | Event::Show { .. }
            | Event::Muck { .. }
            | Event::Award { .. }
            | Event::Penalty { .. } => {}
        }
    }

    /// The view at a decision with these legal actions.
    pub fn view(&mut self, legal: &LegalActions) -> &SeatView {
        let v = &mut self.view;
        v.phase = if legal.discard.is_some() {
            Phase::Draw
        } else {
            Phase::Bet
        };
        let done = if self.draw_game {
            usize::from(v.round).min(3)
        } else {
            0
        };
        for (s, st) in v.seats.iter_mut().enumerate() {
            st.stack = self.start[s].saturating_sub(st.contributed);
            st.draws.clear();
            st.draws.extend_from_slice(&self.discarded[s][..done]);
        }
        &self.view
    }
}

/// The most passive legal action: stand pat, post the bring-in, check, call, else fold.
pub fn passive(l: &LegalActions) -> Action {
    if l.discard.is_some() {
        Action::Discard { cards: Vec::new() }
    } else if l.bring_in.is_some() {
        Action::BringIn
    } else if l.check {
        Action::Check
    } else if l.call.is_some() {
        Action::Call
    } else {
        Action::Fold
    }
}

/// A raise to `to` clamped to the legal range, or `None` when raising is not allowed.
pub fn raise_to(l: &LegalActions, to: Chips) -> Option<Action> {
    l.raise.map(|r| Action::Raise {
        to: to.clamp(r.min_to, r.max_to),
    })
}

/// An event as a flat record: parsed without the detour of serde's internally tagged enums
/// (several times faster), then made an [`Event`].
#[derive(Deserialize)]
struct EventIn<'a> {
    #[serde(borrow)]
    event: &'a str,
    #[serde(default)]
    seat: SeatNo,
    #[serde(default)]
    amount: Chips,
    #[serde(default)]
    all_in: bool,
    #[serde(default)]
    round: u8,
    #[serde(default)]
    blind: Option<Blind>,
    #[serde(default)]
    card: Option<Card>,
    #[serde(default)]
    up: bool,
    #[serde(default)]
    kind: Option<RaiseKind>,
    #[serde(default)]
    to: Chips,
    #[serde(default)]
    count: u8,
    #[serde(default)]
    cards: Option<CardsIn>,
    #[serde(default)]
    pot: u8,
    #[serde(default)]
    share: Option<Share>,
    #[serde(default)]
    fault: Option<FaultKind>,
}

/// A card set: `discard` and `show` events send a string, or null.
#[derive(Deserialize)]
#[serde(untagged)]
enum CardsIn {
    Set(CardSet),
    Reshuffled(u8),
}

/// Events as JSON objects, or (terse messages) as one token string.
#[derive(Deserialize)]
#[serde(untagged)]
enum EventsIn<'a> {
    Terse(String),
    #[serde(borrow)]
    Json(Vec<EventIn<'a>>),
}

/// Legal actions as a JSON object, or (terse messages) as a token string.
fn legal_in<'de, D: serde::Deserializer<'de>>(d: D) -> Result<LegalActions, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum LegalIn {
        Terse(String),
        Json(LegalActions),
    }
    match LegalIn::deserialize(d)? {
        LegalIn::Terse(s) => crate::terse::parse_legal(&s).map_err(serde::de::Error::custom),
        LegalIn::Json(l) => Ok(l),
    }
}

fn events_in<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Event>, D::Error> {
    use serde::de::Error;
    let raw = match EventsIn::deserialize(d)? {
        EventsIn::Terse(s) => {
            let mut v = Vec::new();
            crate::terse::parse_events(&s, &mut v).map_err(D::Error::custom)?;
            return Ok(v);
        }
        EventsIn::Json(raw) => raw,
    };
    raw.into_iter()
        .map(|e| {
            let set = |c: &Option<CardsIn>| match c {
                Some(CardsIn::Set(s)) => Some(*s),
                _ => None,
            };
            Ok(match e.event {
                "round" => Event::Round { round: e.round },
                "ante" => Event::Ante {
                    seat: e.seat,
                    amount: e.amount,
                    all_in: e.all_in,
                },
                "blind" => Event::Blind {
                    seat: e.seat,
                    blind: e.blind.ok_or_else(|| D::Error::missing_field("blind"))?,
                    amount: e.amount,
                    all_in: e.all_in,
                },
                "deal" => Event::Deal {
                    seat: e.seat,
                    card: e.card,
                    up: e.up,
                },
                "community" => Event::Community {
                    card: e.card.ok_or_else(|| D::Error::missing_field("card"))?,
                },
                "bring_in" => Event::BringIn {
                    seat: e.seat,
                    amount: e.amount,
                    all_in: e.all_in,
                },
                "fold" => Event::Fold { seat: e.seat },
                "check" => Event::Check { seat: e.seat },
                "call" => Event::Call {
                    seat: e.seat,
                    amount: e.amount,
                    all_in: e.all_in,
                },
                "raise" => Event::Raise {
                    seat: e.seat,
                    kind: e.kind.ok_or_else(|| D::Error::missing_field("kind"))?,
                    to: e.to,
                    all_in: e.all_in,
                },
                "discard" => Event::Discard {
                    seat: e.seat,
                    count: e.count,
                    cards: set(&e.cards),
                },
                "reshuffle" => Event::Reshuffle {
                    cards: match e.cards {
                        Some(CardsIn::Reshuffled(n)) => n,
                        _ => 0,
                    },
                },
                "return" => Event::Return {
                    seat: e.seat,
                    amount: e.amount,
                },
                "show" => Event::Show {
                    seat: e.seat,
                    cards: set(&e.cards).unwrap_or_default(),
                },
                "muck" => Event::Muck { seat: e.seat },
                "award" => Event::Award {
                    seat: e.seat,
                    pot: e.pot,
                    share: e.share.ok_or_else(|| D::Error::missing_field("share"))?,
                    amount: e.amount,
                },
                "penalty" => Event::Penalty {
                    seat: e.seat,
                    fault: e.fault.ok_or_else(|| D::Error::missing_field("fault"))?,
                },
                other => return Err(D::Error::unknown_variant(other, &["round", "deal", "..."])),
            })
        })
        .collect()
}

/// One event in the referee's exact form (the bytes of [`crate::encode::event`]), else `None`.
fn fast_event(p: &mut Cursor<'_>) -> Option<Event> {
    p.lit(b"{\"event\":\"")?;
    let rest = &p.b[p.i..];
    let n = rest.iter().position(|&c| c == b'"')?;
    let name = &rest[..n];
    p.i += n + 1;
    fn seat(p: &mut Cursor<'_>) -> Option<SeatNo> {
        p.lit(b",\"seat\":")?;
        p.small()
    }
    fn amount_all_in(p: &mut Cursor<'_>) -> Option<(Chips, bool)> {
        p.lit(b",\"amount\":")?;
        let a = p.uint()?;
        p.lit(b",\"all_in\":")?;
        let b = p.boolean()?;
        Some((a, b))
    }
    let e = match name {
        b"deal" => {
            let seat = seat(p)?;
            p.lit(b",\"card\":")?;
            let card = p.opt(Cursor::card)?;
            p.lit(b",\"up\":")?;
            let up = p.boolean()?;
            Event::Deal { seat, card, up }
        }
        b"round" => {
            p.lit(b",\"round\":")?;
            Event::Round { round: p.small()? }
        }
        b"blind" => {
            let seat = seat(p)?;
            let blind = if p.lit(b",\"blind\":\"small\"").is_some() {
                Blind::Small
            } else {
                p.lit(b",\"blind\":\"big\"")?;
                Blind::Big
            };
            let (amount, all_in) = amount_all_in(p)?;
            Event::Blind {
                seat,
                blind,
                amount,
                all_in,
            }
        }
        b"ante" | b"bring_in" | b"call" => {
            let seat = seat(p)?;
            let (amount, all_in) = amount_all_in(p)?;
            match name {
                b"ante" => Event::Ante {
                    seat,
                    amount,
                    all_in,
                },
                b"call" => Event::Call {
                    seat,
                    amount,
                    all_in,
                },
                _ => Event::BringIn {
                    seat,
                    amount,
                    all_in,
                },
            }
        }
        b"fold" => Event::Fold { seat: seat(p)? },
        b"check" => Event::Check { seat: seat(p)? },
        b"muck" => Event::Muck { seat: seat(p)? },
        b"raise" => {
            let seat = seat(p)?;
            p.lit(b",\"kind\":\"")?;
            let kind = raise_kind(p)?;
            p.lit(b",\"to\":")?;
            let to = p.uint()?;
            p.lit(b",\"all_in\":")?;
            let all_in = p.boolean()?;
            Event::Raise {
                seat,
                kind,
                to,
                all_in,
            }
        }
        b"discard" => {
            let seat = seat(p)?;
            p.lit(b",\"count\":")?;
            let count = p.small()?;
            p.lit(b",\"cards\":")?;
            let cards = p.opt(Cursor::card_set)?;
            Event::Discard { seat, count, cards }
        }
        b"reshuffle" => {
            p.lit(b",\"cards\":")?;
            Event::Reshuffle { cards: p.small()? }
        }
        b"return" => {
            let seat = seat(p)?;
            p.lit(b",\"amount\":")?;
            Event::Return {
                seat,
                amount: p.uint()?,
            }
        }
        b"show" => {
            let seat = seat(p)?;
            p.lit(b",\"cards\":")?;
            Event::Show {
                seat,
                cards: p.card_set()?,
            }
        }
        b"community" => {
            p.lit(b",\"card\":")?;
            Event::Community { card: p.card()? }
        }
        b"award" => {
            let seat = seat(p)?;
            p.lit(b",\"pot\":")?;
            let pot = p.small()?;
            let share = if p.lit(b",\"share\":\"whole\"").is_some() {
                Share::Whole
            } else if p.lit(b",\"share\":\"high\"").is_some() {
                Share::High
            } else {
                p.lit(b",\"share\":\"low\"")?;
                Share::Low
            };
            p.lit(b",\"amount\":")?;
            Event::Award {
                seat,
                pot,
                share,
                amount: p.uint()?,
            }
        }
        b"penalty" => {
            let seat = seat(p)?;
            p.lit(b",\"fault\":\"")?;
            let rest = &p.b[p.i..];
            let n = rest.iter().position(|&c| c == b'"')?;
            let fault = FaultKind::ALL
                .into_iter()
                .find(|f| f.name().as_bytes() == &rest[..n])?;
            p.i += n + 1;
            Event::Penalty { seat, fault }
        }
        _ => return None,
    };
    p.lit(b"}")?;
    Some(e)
}

/// `,"table":N` if present.
fn fast_table(p: &mut Cursor<'_>) -> Option<Option<u32>> {
    if p.lit(b",\"table\":").is_some() {
        Some(Some(p.small()?))
    } else {
        Some(None)
    }
}

/// A raise kind's name and closing quote (after the opening one), as the referee writes it.
fn raise_kind(p: &mut Cursor<'_>) -> Option<RaiseKind> {
    if p.lit(b"raise\"").is_some() {
        Some(RaiseKind::Raise)
    } else if p.lit(b"bet\"").is_some() {
        Some(RaiseKind::Bet)
    } else {
        p.lit(b"complete\"")?;
        Some(RaiseKind::Complete)
    }
}

fn fast_legal(p: &mut Cursor<'_>) -> Option<LegalActions> {
    p.lit(b"{\"fold\":")?;
    let fold = p.boolean()?;
    p.lit(b",\"check\":")?;
    let check = p.boolean()?;
    p.lit(b",\"call\":")?;
    let call = p.opt(Cursor::uint)?;
    p.lit(b",\"raise\":")?;
    let raise = p.opt(|p| {
        p.lit(b"{\"kind\":\"")?;
        let kind = raise_kind(p)?;
        p.lit(b",\"min_to\":")?;
        let min_to = p.uint()?;
        p.lit(b",\"max_to\":")?;
        let max_to = p.uint()?;
        p.lit(b"}")?;
        Some(crate::messages::RaiseOption {
            kind,
            min_to,
            max_to,
        })
    })?;
    p.lit(b",\"bring_in\":")?;
    let bring_in = p.opt(Cursor::uint)?;
    p.lit(b",\"discard\":")?;
    let discard = p.opt(Cursor::small)?;
    p.lit(b"}")?;
    Some(LegalActions {
        fold,
        check,
        call,
        raise,
        bring_in,
        discard,
    })
}

/// A terse token string: its text between the quotes (no escapes: else serde reads the line).
fn fast_terse<'a>(p: &mut Cursor<'a>) -> Option<&'a [u8]> {
    p.lit(b"\"")?;
    let rest = &p.b[p.i..];
    let n = memchr::memchr(b'"', rest)?;
    let text = &rest[..n];
    if text.contains(&b'\\') {
        return None;
    }
    p.i += n + 1;
    // Not checked as UTF-8: the token readers accept ASCII only, so bytes that are not UTF-8
    // fail there (and the line goes to serde, as it did when this check refused it).
    Some(text)
}

/// A compact `act` (no view) in the referee's exact form, its events into `events` (cleared
/// first); `None` for any other line (then serde reads it).
fn fast_act(line: &[u8], mut events: Vec<Event>) -> Option<ActIn> {
    let mut p = Cursor::new(line);
    p.lit(b"{\"type\":\"act\",\"id\":")?;
    let id = p.uint()?;
    let table = fast_table(&mut p)?;
    p.lit(b",\"hand\":")?;
    let hand = p.uint()?;
    p.lit(b",\"events\":")?;
    events.clear();
    let terse = p.b.get(p.i) == Some(&b'"');
    if terse {
        crate::terse::parse_events_bytes(fast_terse(&mut p)?, &mut events).ok()?;
    } else {
        p.array(&mut events, fast_event)?;
    }
    p.lit(b",\"legal\":")?;
    let legal = if terse {
        crate::terse::parse_legal_bytes(fast_terse(&mut p)?).ok()?
    } else {
        fast_legal(&mut p)?
    };
    p.lit(b",\"clock\":{\"decision_ms\":")?;
    let decision_ms = p.uint()?;
    p.lit(b",\"bank_ms\":")?;
    let bank_ms = p.uint()?;
    p.lit(b"}}")?;
    p.end()?;
    Some(ActIn {
        id,
        hand,
        table,
        events,
        view: None,
        legal,
        clock: Clock {
            decision_ms,
            bank_ms,
        },
    })
}

fn fast_hand_start(line: &[u8]) -> Option<HandStartIn> {
    let mut p = Cursor::new(line);
    p.lit(b"{\"type\":\"hand_start\"")?;
    let table = fast_table(&mut p)?;
    p.lit(b",\"hand\":")?;
    let hand = p.uint()?;
    p.lit(b",\"seat\":")?;
    let seat = p.small()?;
    p.lit(b",\"seats\":")?;
    let seats = p.small()?;
    p.lit(b",\"button\":")?;
    let button = p.small()?;
    p.lit(b",\"stacks\":")?;
    let mut stacks = Vec::new();
    p.array(&mut stacks, Cursor::uint)?;
    p.lit(b"}")?;
    p.end()?;
    Some(HandStartIn {
        table,
        hand,
        seat,
        seats,
        button,
        stacks,
    })
}

fn fast_hand_end(line: &[u8]) -> Option<HandEndIn> {
    let mut p = Cursor::new(line);
    p.lit(b"{\"type\":\"hand_end\"")?;
    let table = fast_table(&mut p)?;
    p.lit(b",\"hand\":")?;
    let hand = p.uint()?;
    p.lit(b",\"events\":")?;
    let mut events = Vec::new();
    if p.b.get(p.i) == Some(&b'"') {
        crate::terse::parse_events_bytes(fast_terse(&mut p)?, &mut events).ok()?;
    } else {
        p.array(&mut events, fast_event)?;
    }
    p.lit(b",\"net\":")?;
    let mut net = Vec::new();
    p.array(&mut net, Cursor::int)?;
    p.lit(b"}")?;
    p.end()?;
    Some(HandEndIn {
        table,
        hand,
        events,
        net,
    })
}

/// Appends the reply line (newline included): the bytes serde writes for
/// `{"type":"action","id":..,"action":..}`, which the referee reads by hand in turn.
fn write_reply(out: &mut Vec<u8>, id: u64, action: &Action) {
    out.extend_from_slice(b"{\"type\":\"action\",\"id\":");
    crate::encode::uint(out, id);
    let tail: &[u8] = match action {
        Action::Fold => b",\"action\":{\"type\":\"fold\"}}\n",
        Action::Check => b",\"action\":{\"type\":\"check\"}}\n",
        Action::Call => b",\"action\":{\"type\":\"call\"}}\n",
        Action::BringIn => b",\"action\":{\"type\":\"bring_in\"}}\n",
        Action::Raise { to } => {
            out.extend_from_slice(b",\"action\":{\"type\":\"raise\",\"to\":");
            crate::encode::uint(out, *to);
            b"}}\n"
        }
        Action::Discard { cards } => {
            out.extend_from_slice(b",\"action\":{\"type\":\"discard\",\"cards\":[");
            for (i, c) in cards.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(&[
                    b'"',
                    b"23456789TJQKA"[c.rank().index() as usize],
                    b"cdhs"[c.suit().index() as usize],
                    b'"',
                ]);
            }
            b"]}}\n"
        }
    };
    out.extend_from_slice(tail);
}

/// An `act` request on the wire (1.1: with `table`; compact: without `view`).
#[derive(Deserialize)]
struct ActIn {
    id: u64,
    hand: u64,
    #[serde(default)]
    table: Option<u32>,
    #[serde(deserialize_with = "events_in")]
    events: Vec<Event>,
    #[serde(default)]
    view: Option<SeatView>,
    #[serde(deserialize_with = "legal_in")]
    legal: LegalActions,
    clock: Clock,
}

#[derive(Deserialize)]
struct HandStartIn {
    #[serde(default)]
    table: Option<u32>,
    hand: u64,
    seat: SeatNo,
    seats: u8,
    button: SeatNo,
    stacks: Vec<Chips>,
}

#[derive(Deserialize)]
struct HandEndIn {
    #[serde(default)]
    table: Option<u32>,
    hand: u64,
    #[serde(deserialize_with = "events_in")]
    events: Vec<Event>,
    net: Vec<i64>,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum In {
    Hello(crate::messages::Hello),
    MatchStart(MatchStart),
    HandStart(HandStartIn),
    Act(ActIn),
    HandEnd(HandEndIn),
    MatchEnd {},
}

struct Table<B> {
    bot: B,
    tracker: ViewTracker,
    started: bool,
}

/// The hash of a table number: one multiplication. The default SipHash (a defence against
/// chosen keys, which the referee's table numbers are not) showed in the example bot's profile,
/// looked up at every message.
#[derive(Default)]
struct TableHash(u64);

impl Hasher for TableHash {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.0.rotate_left(8) ^ u64::from(b));
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        // Fibonacci hashing: the high bits, which the table's control bytes use, vary too.
        self.0 = n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// Plays on stdin/stdout until `match_end` or the end of input.
///
/// # Errors
/// When stdout is closed or a line cannot be read.
pub fn run<B: Bot, F: FnMut() -> B>(opts: &Options, make: F) -> Result<(), WireError> {
    let stdin = std::io::stdin().lock();
    let stdout = std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    run_on(stdin, stdout, opts, make)
}

/// [`run`] on any reader and writer (for tests).
///
/// # Errors
/// When the output is closed or a line cannot be read.
pub fn run_on<R: Read, W: Write, B: Bot, F: FnMut() -> B>(
    input: R,
    mut out: W,
    opts: &Options,
    mut make: F,
) -> Result<(), WireError> {
    let mut tables: HashMap<u32, Table<B>, BuildHasherDefault<TableHash>> = HashMap::default();
    let mut start: Option<MatchStart> = None;
    let mut buf = Vec::with_capacity(4096);
    let mut req = ActRequest::default();
    // The events vector of the last request, reused by the next one.
    let mut spare: Vec<Event> = Vec::new();
    let mut reply: Vec<u8> = Vec::with_capacity(256);
    let mut input = BufReader::with_capacity(64 * 1024, input);
    loop {
        match read_line(&mut input, &mut buf) {
            Ok(()) => {}
            Err(WireError::Closed) => break,
            Err(e) => return Err(e),
        }
        // The referee writes `type` first: an `act` is parsed without the tagged enum's detour.
        // The lines in the referee's exact form are read by hand (`fast_*`), the rest by serde.
        let parsed = if buf.starts_with(br#"{"type":"act","#) {
            match fast_act(&buf, std::mem::take(&mut spare)) {
                Some(a) => Ok(In::Act(a)),
                None => serde_json::from_slice::<ActIn>(&buf).map(In::Act),
            }
        } else if buf.starts_with(br#"{"type":"hand_start","#) {
            match fast_hand_start(&buf) {
                Some(h) => Ok(In::HandStart(h)),
                None => serde_json::from_slice::<HandStartIn>(&buf).map(In::HandStart),
            }
        } else if buf.starts_with(br#"{"type":"hand_end","#) {
            match fast_hand_end(&buf) {
                Some(h) => Ok(In::HandEnd(h)),
                None => serde_json::from_slice::<HandEndIn>(&buf).map(In::HandEnd),
            }
        } else {
            serde_json::from_slice::<In>(&buf)
        };
        let msg = match parsed {
            Ok(m) => m,
            Err(e) => {
                eprintln!("{}: cannot read a message: {e}", opts.name);
                continue;
            }
        };
        match msg {
            In::Hello(h) => {
                let v11 = h.minor >= 1;
                let style = if h.minor >= 2 && opts.terse {
                    Messages::Terse
                } else {
                    Messages::Compact
                };
                let reply = crate::messages::FromBot::Hello(HelloReply {
                    id: h.id,
                    protocol: PROTOCOL_VERSION,
                    name: opts.name.clone(),
                    version: opts.version.clone(),
                    games: opts.games.clone(),
                    concurrency: v11.then_some(opts.concurrency.max(1)),
                    messages: (v11 && opts.compact).then_some(style),
                });
                serde_json::to_writer(&mut out, &reply)?;
                out.write_all(b"\n")?;
            }
            In::MatchStart(m) => {
                for t in tables.values_mut() {
                    t.bot.match_start(&m);
                    t.started = true;
                }
                start = Some(m);
            }
            In::HandStart(h) => {
                let t = tables.entry(h.table.unwrap_or(0)).or_insert_with(|| Table {
                    bot: make(),
                    tracker: ViewTracker::default(),
                    started: false,
                });
                if let (false, Some(m)) = (t.started, &start) {
                    t.bot.match_start(m);
                    t.started = true;
                }
                let draw = start
                    .as_ref()
                    .is_some_and(|m| m.game.variant == "triple-draw");
                let h = HandStart {
                    hand: h.hand,
                    seat: h.seat,
                    seats: h.seats,
                    button: h.button,
                    stacks: h.stacks,
                };
                t.tracker.hand_start(&h, draw);
                t.bot.hand_start(&h);
            }
            In::Act(a) => {
                let Some(t) = tables.get_mut(&a.table.unwrap_or(0)) else {
                    eprintln!("{}: act for a table without hand_start", opts.name);
                    continue;
                };
                for e in &a.events {
                    t.tracker.apply(e);
                }
                req.id = a.id;
                req.hand = a.hand;
                req.events = a.events;
                req.legal = a.legal;
                req.clock = a.clock;
                // The tracker's view is lent to the request, not copied.
                let lent = match a.view {
                    Some(v) => {
                        req.view = v;
                        false
                    }
                    None => {
                        t.tracker.view(&a.legal);
                        std::mem::swap(&mut req.view, &mut t.tracker.view);
                        true
                    }
                };
                let action = t.bot.act(&req);
                if lent {
                    std::mem::swap(&mut req.view, &mut t.tracker.view);
                }
                spare = std::mem::take(&mut req.events);
                reply.clear();
                write_reply(&mut reply, a.id, &action);
                out.write_all(&reply)?;
            }
            In::HandEnd(h) => {
                if let Some(t) = tables.get_mut(&h.table.unwrap_or(0)) {
                    t.bot.hand_end(&HandEnd {
                        hand: h.hand,
                        events: h.events,
                        net: h.net,
                    });
                }
            }
            In::MatchEnd {} => break,
        }
        // Replies go out when every request read so far is answered (one write per batch).
        if memchr::memchr(b'\n', input.buffer()).is_none() {
            out.flush()?;
        }
    }
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Events {
        #[serde(deserialize_with = "events_in")]
        events: Vec<Event>,
    }

    #[test]
    fn the_fast_event_parser_reads_every_event_as_the_derived_one() {
        let c = |s: &str| s.parse::<Card>().unwrap();
        let set = |s: &str| {
            pitboss_cards::parse_cards(s)
                .unwrap()
                .iter()
                .collect::<CardSet>()
        };
        let all = vec![
            Event::Round { round: 2 },
            Event::Ante {
                seat: 1,
                amount: 40,
                all_in: true,
            },
            Event::Blind {
                seat: 0,
                blind: Blind::Big,
                amount: 100,
                all_in: false,
            },
            Event::Deal {
                seat: 1,
                card: None,
                up: false,
            },
            Event::Deal {
                seat: 0,
                card: Some(c("Td")),
                up: true,
            },
            Event::Community { card: c("2c") },
            Event::BringIn {
                seat: 1,
                amount: 50,
                all_in: false,
            },
            Event::Fold { seat: 1 },
            Event::Check { seat: 0 },
            Event::Call {
                seat: 0,
                amount: 7,
                all_in: true,
            },
            Event::Raise {
                seat: 1,
                kind: RaiseKind::Complete,
                to: 200,
                all_in: false,
            },
            Event::Discard {
                seat: 0,
                count: 2,
                cards: Some(set("7c Kd")),
            },
            Event::Discard {
                seat: 1,
                count: 3,
                cards: None,
            },
            Event::Reshuffle { cards: 9 },
            Event::Return {
                seat: 1,
                amount: 100,
            },
            Event::Show {
                seat: 0,
                cards: set("2s 4s 5h 6d 7c"),
            },
            Event::Muck { seat: 1 },
            Event::Award {
                seat: 0,
                pot: 1,
                share: Share::Low,
                amount: 600,
            },
            Event::Penalty {
                seat: 1,
                fault: FaultKind::Timeout,
            },
        ];
        let text = format!(r#"{{"events":{}}}"#, serde_json::to_string(&all).unwrap());
        let back: Events = serde_json::from_str(&text).unwrap();
        assert_eq!(back.events, all);
        assert!(serde_json::from_str::<Events>(r#"{"events":[{"event":"nope"}]}"#).is_err());
    }

    #[test]
    fn the_hand_read_lines_read_as_serdes() {
        use crate::encode::{ActLine, HandEndLine, HandStartLine};
        let every = crate::encode::tests::every_event();
        for e in &every {
            let mut line = Vec::new();
            crate::encode::event(&mut line, e);
            let mut p = Cursor::new(&line);
            assert_eq!(fast_event(&mut p).as_ref(), Some(e));
            assert!(p.end().is_some());
        }
        let legals = [
            LegalActions::default(),
            LegalActions {
                fold: true,
                check: false,
                call: Some(50),
                raise: Some(crate::messages::RaiseOption {
                    kind: RaiseKind::Complete,
                    min_to: 200,
                    max_to: 400,
                }),
                bring_in: Some(25),
                discard: Some(5),
            },
        ];
        for (table, terse) in [
            (None, false),
            (Some(3), false),
            (None, true),
            (Some(3), true),
        ] {
            // Terse seats are one digit.
            let every: Vec<Event> = every
                .iter()
                .filter(|e| !terse || !serde_json::to_string(e).unwrap().contains("\"seat\":11"))
                .copied()
                .collect();
            for l in &legals {
                for es in [&every[..0], &every[..]] {
                    let mut line = Vec::new();
                    ActLine {
                        id: 77,
                        table,
                        hand: 5,
                        events: es,
                        view: None,
                        legal: l,
                        clock: Clock {
                            decision_ms: 1000,
                            bank_ms: 12,
                        },
                        terse,
                    }
                    .write(&mut line);
                    line.pop();
                    let fast = fast_act(&line, vec![Event::Fold { seat: 9 }]).expect("fast");
                    let slow: ActIn = serde_json::from_slice(&line).unwrap();
                    assert_eq!(
                        (fast.id, fast.hand, fast.table, &fast.events, fast.legal),
                        (slow.id, slow.hand, slow.table, &slow.events, slow.legal)
                    );
                    assert_eq!(fast.clock, slow.clock);
                    assert_eq!(fast.events, es);
                }
            }
            let h = HandStart {
                hand: 4,
                seat: 1,
                seats: 3,
                button: 2,
                stacks: vec![100, 0, 7],
            };
            let mut line = Vec::new();
            HandStartLine { table, h: &h }.write(&mut line);
            line.pop();
            let fast = fast_hand_start(&line).expect("fast");
            let slow: HandStartIn = serde_json::from_slice(&line).unwrap();
            assert_eq!(
                (fast.table, fast.hand, fast.seat, fast.seats, fast.button),
                (slow.table, slow.hand, slow.seat, slow.seats, slow.button)
            );
            assert_eq!(
                (fast.stacks, slow.stacks.clone()),
                (h.stacks.clone(), h.stacks)
            );
            let h = HandEnd {
                hand: 4,
                events: every.clone(),
                net: vec![-150, 150, 0, i64::MIN, i64::MAX],
            };
            let mut line = Vec::new();
            HandEndLine {
                table,
                h: &h,
                terse,
            }
            .write(&mut line);
            line.pop();
            let fast = fast_hand_end(&line).expect("fast");
            let slow: HandEndIn = serde_json::from_slice(&line).unwrap();
            assert_eq!((fast.table, fast.hand), (slow.table, slow.hand));
            assert_eq!((&fast.events, &fast.net), (&slow.events, &slow.net));
            assert_eq!((fast.events, fast.net), (h.events, h.net));
        }
        // Other spellings are not taken by the hand-read path (serde reads them).
        for line in [
            r#"{"type":"act", "id":1,"hand":0,"events":[],"legal":{"fold":true,"check":false,"call":null,"raise":null,"bring_in":null,"discard":null},"clock":{"decision_ms":1,"bank_ms":1}}"#,
            r#"{"type":"act","id":1,"hand":0,"events":[],"legal":{"fold":true,"check":false,"call":null,"raise":null,"bring_in":null,"discard":null},"clock":{"decision_ms":1,"bank_ms":1},"x":0}"#,
            r#"{"type":"act","id":1,"hand":0,"events":[{"event":"fold","seat":300}],"legal":{"fold":true,"check":false,"call":null,"raise":null,"bring_in":null,"discard":null},"clock":{"decision_ms":1,"bank_ms":1}}"#,
        ] {
            assert!(fast_act(line.as_bytes(), Vec::new()).is_none(), "{line}");
        }
    }

    #[test]
    fn terse_strings_that_are_not_ascii_go_to_serde() {
        let line = |events: &[u8]| {
            let mut l = br#"{"type":"act","id":1,"table":0,"hand":1,"events":""#.to_vec();
            l.extend_from_slice(events);
            l.extend_from_slice(
                br#"","legal":"x b100:100","clock":{"decision_ms":1000,"bank_ms":10000}}"#,
            );
            l
        };
        assert!(fast_act(&line(b"x0 D1"), Vec::new()).is_some());
        // Not UTF-8, or UTF-8 but not ASCII: not read by hand (serde then decides).
        let bad: [&[u8]; 3] = [b"x0 \xff", b"x0 \xc3\xa9", b"E1:\xc3\xa9"];
        for b in bad {
            assert!(fast_act(&line(b), Vec::new()).is_none(), "{b:?}");
        }
    }

    #[test]
    fn replies_are_serdes_bytes() {
        let c = |s: &str| s.parse::<Card>().unwrap();
        for action in [
            Action::Fold,
            Action::Check,
            Action::Call,
            Action::BringIn,
            Action::Raise { to: 0 },
            Action::Raise { to: u64::MAX },
            Action::Discard { cards: vec![] },
            Action::Discard {
                cards: vec![c("7c"), c("Kd"), c("As")],
            },
        ] {
            let mut ours = Vec::new();
            write_reply(&mut ours, 123, &action);
            let mut theirs = serde_json::to_vec(&crate::messages::FromBot::Action(
                crate::messages::ActionReply {
                    id: 123,
                    table: None,
                    action,
                },
            ))
            .unwrap();
            theirs.push(b'\n');
            assert_eq!(String::from_utf8(ours), String::from_utf8(theirs));
        }
    }

    #[test]
    fn run_answers_a_compact_concurrent_session() {
        let input = concat!(
            r#"{"type":"hello","id":1,"protocol":1,"minor":1,"referee":"t"}"#,
            "\n",
            r#"{"type":"match_start","game":{"variant":"triple-draw","structure":"fixed-limit","ante":0,"small_blind":50,"big_blind":100,"bring_in":0,"small_bet":100,"big_bet":200,"cap":4},"hands":2,"decision_ms":1000,"bank_ms":10000}"#,
            "\n",
            r#"{"type":"hand_start","table":0,"hand":0,"seat":0,"seats":2,"button":0,"stacks":[1000,1000]}"#,
            "\n",
            r#"{"type":"hand_start","table":1,"hand":1,"seat":1,"seats":2,"button":1,"stacks":[1000,1000]}"#,
            "\n",
            r#"{"type":"act","id":2,"table":1,"hand":1,"events":[{"event":"round","round":0},{"event":"blind","seat":1,"blind":"small","amount":50,"all_in":false},{"event":"blind","seat":0,"blind":"big","amount":100,"all_in":false}],"legal":{"fold":true,"check":false,"call":50,"raise":null,"bring_in":null,"discard":null},"clock":{"decision_ms":1000,"bank_ms":10000}}"#,
            "\n",
            r#"{"type":"act","id":3,"table":0,"hand":0,"events":[{"event":"round","round":0}],"legal":{"fold":false,"check":true,"call":null,"raise":null,"bring_in":null,"discard":null},"clock":{"decision_ms":1000,"bank_ms":10000}}"#,
            "\n",
            r#"{"type":"match_end","hands":2}"#,
            "\n",
        );
        struct Seen(Vec<(u64, Chips)>);
        impl Bot for Seen {
            fn act(&mut self, r: &ActRequest) -> Action {
                self.0.push((r.hand, r.view.pot));
                assert_eq!(r.view.pot, if r.hand == 1 { 150 } else { 0 });
                assert_eq!(r.view.seats[1].stack, if r.hand == 1 { 950 } else { 1000 });
                passive(&r.legal)
            }
        }
        let mut out = Vec::new();
        let mut opts = Options::new("t");
        opts.concurrency = 4;
        run_on(input.as_bytes(), &mut out, &opts, || Seen(Vec::new())).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                r#"{"type":"hello","id":1,"protocol":1,"name":"t","version":null,"games":[],"concurrency":4,"messages":"compact"}"#,
                r#"{"type":"action","id":2,"action":{"type":"call"}}"#,
                r#"{"type":"action","id":3,"action":{"type":"check"}}"#,
            ]
        );
    }
}
