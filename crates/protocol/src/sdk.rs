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
use std::io::{BufReader, Read, Write};

use serde::{Deserialize, Serialize};

use crate::bot::Bot;
use pitboss_cards::{Card, CardSet};

use crate::messages::{
    ActRequest, Action, Blind, Chips, Clock, Event, FaultKind, HandEnd, HandStart, HelloReply,
    LegalActions, MatchStart, Messages, Phase, RaiseKind, SeatNo, SeatView, Share,
};
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
}

impl Options {
    /// Both games, 16 tables at once, compact messages.
    pub fn new(name: &str) -> Options {
        Options {
            name: name.into(),
            version: None,
            games: Vec::new(),
            concurrency: 16,
            compact: true,
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

fn events_in<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Event>, D::Error> {
    use serde::de::Error;
    let raw = <Vec<EventIn<'de>>>::deserialize(d)?;
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

#[derive(Serialize)]
#[serde(tag = "type", rename = "action")]
struct ActionOut<'a> {
    id: u64,
    action: &'a Action,
}

struct Table<B> {
    bot: B,
    tracker: ViewTracker,
    started: bool,
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
    let mut tables: HashMap<u32, Table<B>> = HashMap::new();
    let mut start: Option<MatchStart> = None;
    let mut buf = Vec::with_capacity(4096);
    let mut req = ActRequest::default();
    let mut input = BufReader::with_capacity(64 * 1024, input);
    loop {
        match read_line(&mut input, &mut buf) {
            Ok(()) => {}
            Err(WireError::Closed) => break,
            Err(e) => return Err(e),
        }
        // The referee writes `type` first: an `act` is parsed without the tagged enum's detour.
        let parsed = if buf.starts_with(br#"{"type":"act","#) {
            serde_json::from_slice::<ActIn>(&buf).map(In::Act)
        } else if buf.starts_with(br#"{"type":"hand_start","#) {
            serde_json::from_slice::<HandStartIn>(&buf).map(In::HandStart)
        } else if buf.starts_with(br#"{"type":"hand_end","#) {
            serde_json::from_slice::<HandEndIn>(&buf).map(In::HandEnd)
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
                let reply = crate::messages::FromBot::Hello(HelloReply {
                    id: h.id,
                    protocol: PROTOCOL_VERSION,
                    name: opts.name.clone(),
                    version: opts.version.clone(),
                    games: opts.games.clone(),
                    concurrency: v11.then_some(opts.concurrency.max(1)),
                    messages: (v11 && opts.compact).then_some(Messages::Compact),
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
                match a.view {
                    Some(v) => req.view = v,
                    None => req.view.clone_from(t.tracker.view(&a.legal)),
                }
                req.legal = a.legal;
                req.clock = a.clock;
                let action = t.bot.act(&req);
                serde_json::to_writer(
                    &mut out,
                    &ActionOut {
                        id: a.id,
                        action: &action,
                    },
                )?;
                out.write_all(b"\n")?;
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
        if !input.buffer().contains(&b'\n') {
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
