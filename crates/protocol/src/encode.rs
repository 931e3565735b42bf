//! Hand-written writers for the referee's hot messages (`act`, `hand_start`, `hand_end`): the
//! same bytes as serde_json's output of the derived types (tested below, field for field), at a
//! fraction of the cost. A decision moves a few hundred bytes of events; through serde every
//! field name goes through the escaping writer and every tagged enum through the map machinery,
//! which profiles of a 1.1 match showed as the largest part of the referee's own time.

use pitboss_cards::{Card, CardSet};
use serde::Serialize;

use crate::messages::{
    Blind, Clock, Event, HandEnd, HandStart, LegalActions, Phase, RaiseKind, SeatView, Share,
};

/// An `act` request as the referee sends it: the table (protocol 1.1) and the view (not in
/// compact messages) are optional. Serialises (serde) to the same bytes as [`ActLine::write`].
#[derive(Serialize)]
#[serde(tag = "type", rename = "act")]
pub struct ActLine<'a> {
    pub id: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<u32>,
    pub hand: u64,
    pub events: &'a [Event],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub view: Option<&'a SeatView>,
    pub legal: &'a LegalActions,
    pub clock: Clock,
    /// Protocol 1.2 terse messages: `events` and `legal` as token strings ([`crate::terse`]).
    /// Only [`ActLine::write`] writes them; serde writes the JSON form.
    #[serde(skip)]
    pub terse: bool,
}

/// `hand_start` as sent, with the table in protocol 1.1.
#[derive(Serialize)]
#[serde(tag = "type", rename = "hand_start")]
pub struct HandStartLine<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<u32>,
    #[serde(flatten)]
    pub h: &'a HandStart,
}

/// `hand_end` as sent, with the table in protocol 1.1.
#[derive(Serialize)]
#[serde(tag = "type", rename = "hand_end")]
pub struct HandEndLine<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<u32>,
    #[serde(flatten)]
    pub h: &'a HandEnd,
    /// Protocol 1.2 terse messages: `events` as a token string ([`crate::terse`]).
    #[serde(skip)]
    pub terse: bool,
}

/// The two digits of every number below 100.
const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
    2021222324252627282930313233343536373839\
    4041424344454647484950515253545556575859\
    6061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899";

/// The two digits of `x < 100`.
#[inline(always)]
fn pair(x: u64) -> [u8; 2] {
    let i = x as usize * 2;
    [PAIRS[i], PAIRS[i + 1]]
}

/// The four digits of `x < 10_000`, with leading zeros.
#[inline(always)]
fn four(x: u64) -> [u8; 4] {
    let ([a, b], [c, d]) = (pair(x / 100), pair(x % 100));
    [a, b, c, d]
}

/// The digits of `x < 10_000`, without leading zeros.
#[inline(always)]
fn short(out: &mut Vec<u8>, x: u64) {
    match x {
        0..=9 => out.push(b'0' + x as u8),
        10..=99 => out.extend_from_slice(&pair(x)),
        100..=999 => {
            let [a, b] = pair(x % 100);
            out.extend_from_slice(&[b'0' + (x / 100) as u8, a, b]);
        }
        _ => out.extend_from_slice(&four(x)),
    }
}

/// Appends the decimal digits of `v`. Below 10^8 (every id, hand number, amount and clock of a
/// realistic match) as at most two pieces of a fixed length, which compile to a few stores:
/// `itoa`'s variable-length copy of its buffer was a `memcpy` call per number, and `memcpy` the
/// referee's top symbol in a multi-table match. A digit at a time was slower still.
#[inline]
pub fn uint(out: &mut Vec<u8>, v: u64) {
    if v < 10_000 {
        short(out, v);
    } else if v < 100_000_000 {
        short(out, v / 10_000);
        out.extend_from_slice(&four(v % 10_000));
    } else {
        uint_long(out, v);
    }
}

/// [`uint`] from 10^8 up (rare: kept out of line, so that `uint` itself needs no stack buffer).
#[cold]
#[inline(never)]
fn uint_long(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
}

#[inline]
fn int(out: &mut Vec<u8>, v: i64) {
    if v < 0 {
        out.push(b'-');
    }
    uint(out, v.unsigned_abs());
}

#[inline]
fn boolean(out: &mut Vec<u8>, b: bool) {
    out.extend_from_slice(if b { b"true" } else { b"false" });
}

#[inline]
fn opt_uint(out: &mut Vec<u8>, v: Option<u64>) {
    match v {
        Some(v) => uint(out, v),
        None => out.extend_from_slice(b"null"),
    }
}

#[inline]
fn card(out: &mut Vec<u8>, c: Card) {
    out.extend_from_slice(&[
        b'"',
        b"23456789TJQKA"[c.rank().index() as usize],
        b"cdhs"[c.suit().index() as usize],
        b'"',
    ]);
}

/// The cards of `s` in card order (as `Display` and [`CardSet::sorted`] give them), in `buf`: the
/// set's few cards sorted, rather than a test of all 52 cards.
pub(crate) fn sorted_cards(s: CardSet, buf: &mut [Card; 52]) -> &[Card] {
    let mut n = 0;
    for c in s.iter() {
        buf[n] = c;
        n += 1;
    }
    let v = &mut buf[..n];
    v.sort_unstable();
    v
}

fn card_set(out: &mut Vec<u8>, s: CardSet) {
    let mut buf = [Card::from_index(0); 52];
    let v = sorted_cards(s, &mut buf);
    out.push(b'"');
    for (i, c) in v.iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        out.extend_from_slice(&[
            b"23456789TJQKA"[c.rank().index() as usize],
            b"cdhs"[c.suit().index() as usize],
        ]);
    }
    out.push(b'"');
}

fn cards(out: &mut Vec<u8>, cs: &[Card]) {
    out.push(b'[');
    for (i, c) in cs.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        card(out, *c);
    }
    out.push(b']');
}

fn raise_kind(k: RaiseKind) -> &'static [u8] {
    match k {
        RaiseKind::Bet => b"\"bet\"",
        RaiseKind::Raise => b"\"raise\"",
        RaiseKind::Complete => b"\"complete\"",
    }
}

/// `,"seat":N`
#[inline]
fn seat(out: &mut Vec<u8>, s: u8) {
    out.extend_from_slice(b",\"seat\":");
    uint(out, u64::from(s));
}

/// `,"amount":N,"all_in":B}`
#[inline]
fn amount_all_in(out: &mut Vec<u8>, amount: u64, all_in: bool) {
    out.extend_from_slice(b",\"amount\":");
    uint(out, amount);
    out.extend_from_slice(b",\"all_in\":");
    boolean(out, all_in);
    out.push(b'}');
}

/// One event, as serde writes [`Event`].
pub fn event(out: &mut Vec<u8>, e: &Event) {
    match *e {
        Event::Round { round } => {
            out.extend_from_slice(b"{\"event\":\"round\",\"round\":");
            uint(out, u64::from(round));
            out.push(b'}');
        }
        Event::Ante {
            seat: s,
            amount,
            all_in,
        } => {
            out.extend_from_slice(b"{\"event\":\"ante\"");
            seat(out, s);
            amount_all_in(out, amount, all_in);
        }
        Event::Blind {
            seat: s,
            blind,
            amount,
            all_in,
        } => {
            out.extend_from_slice(b"{\"event\":\"blind\"");
            seat(out, s);
            out.extend_from_slice(match blind {
                Blind::Small => b",\"blind\":\"small\"",
                Blind::Big => b",\"blind\":\"big\"",
            });
            amount_all_in(out, amount, all_in);
        }
        Event::Deal {
            seat: s,
            card: c,
            up,
        } => {
            out.extend_from_slice(b"{\"event\":\"deal\"");
            seat(out, s);
            out.extend_from_slice(b",\"card\":");
            match c {
                Some(c) => card(out, c),
                None => out.extend_from_slice(b"null"),
            }
            out.extend_from_slice(b",\"up\":");
            boolean(out, up);
            out.push(b'}');
        }
        Event::Community { card: c } => {
            out.extend_from_slice(b"{\"event\":\"community\",\"card\":");
            card(out, c);
            out.push(b'}');
        }
        Event::BringIn {
            seat: s,
            amount,
            all_in,
        } => {
            out.extend_from_slice(b"{\"event\":\"bring_in\"");
            seat(out, s);
            amount_all_in(out, amount, all_in);
        }
        Event::Fold { seat: s } => {
            out.extend_from_slice(b"{\"event\":\"fold\"");
            seat(out, s);
            out.push(b'}');
        }
        Event::Check { seat: s } => {
            out.extend_from_slice(b"{\"event\":\"check\"");
            seat(out, s);
            out.push(b'}');
        }
        Event::Call {
            seat: s,
            amount,
            all_in,
        } => {
            out.extend_from_slice(b"{\"event\":\"call\"");
            seat(out, s);
            amount_all_in(out, amount, all_in);
        }
        Event::Raise {
            seat: s,
            kind,
            to,
            all_in,
        } => {
            out.extend_from_slice(b"{\"event\":\"raise\"");
            seat(out, s);
            out.extend_from_slice(b",\"kind\":");
            out.extend_from_slice(raise_kind(kind));
            out.extend_from_slice(b",\"to\":");
            uint(out, to);
            out.extend_from_slice(b",\"all_in\":");
            boolean(out, all_in);
            out.push(b'}');
        }
        Event::Discard {
            seat: s,
            count,
            cards: cs,
        } => {
            out.extend_from_slice(b"{\"event\":\"discard\"");
            seat(out, s);
            out.extend_from_slice(b",\"count\":");
            uint(out, u64::from(count));
            out.extend_from_slice(b",\"cards\":");
            match cs {
                Some(cs) => card_set(out, cs),
                None => out.extend_from_slice(b"null"),
            }
            out.push(b'}');
        }
        Event::Reshuffle { cards: n } => {
            out.extend_from_slice(b"{\"event\":\"reshuffle\",\"cards\":");
            uint(out, u64::from(n));
            out.push(b'}');
        }
        Event::Return { seat: s, amount } => {
            out.extend_from_slice(b"{\"event\":\"return\"");
            seat(out, s);
            out.extend_from_slice(b",\"amount\":");
            uint(out, amount);
            out.push(b'}');
        }
        Event::Show { seat: s, cards: cs } => {
            out.extend_from_slice(b"{\"event\":\"show\"");
            seat(out, s);
            out.extend_from_slice(b",\"cards\":");
            card_set(out, cs);
            out.push(b'}');
        }
        Event::Muck { seat: s } => {
            out.extend_from_slice(b"{\"event\":\"muck\"");
            seat(out, s);
            out.push(b'}');
        }
        Event::Award {
            seat: s,
            pot,
            share,
            amount,
        } => {
            out.extend_from_slice(b"{\"event\":\"award\"");
            seat(out, s);
            out.extend_from_slice(b",\"pot\":");
            uint(out, u64::from(pot));
            out.extend_from_slice(match share {
                Share::Whole => b",\"share\":\"whole\"",
                Share::High => b",\"share\":\"high\"",
                Share::Low => b",\"share\":\"low\"",
            });
            out.extend_from_slice(b",\"amount\":");
            uint(out, amount);
            out.push(b'}');
        }
        Event::Penalty { seat: s, fault } => {
            out.extend_from_slice(b"{\"event\":\"penalty\"");
            seat(out, s);
            out.extend_from_slice(b",\"fault\":\"");
            out.extend_from_slice(fault.name().as_bytes());
            out.extend_from_slice(b"\"}");
        }
    }
}

fn events(out: &mut Vec<u8>, es: &[Event]) {
    out.push(b'[');
    for (i, e) in es.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        event(out, e);
    }
    out.push(b']');
}

fn legal(out: &mut Vec<u8>, l: &LegalActions) {
    out.extend_from_slice(b"{\"fold\":");
    boolean(out, l.fold);
    out.extend_from_slice(b",\"check\":");
    boolean(out, l.check);
    out.extend_from_slice(b",\"call\":");
    opt_uint(out, l.call);
    out.extend_from_slice(b",\"raise\":");
    match l.raise {
        Some(r) => {
            out.extend_from_slice(b"{\"kind\":");
            out.extend_from_slice(raise_kind(r.kind));
            out.extend_from_slice(b",\"min_to\":");
            uint(out, r.min_to);
            out.extend_from_slice(b",\"max_to\":");
            uint(out, r.max_to);
            out.push(b'}');
        }
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"bring_in\":");
    opt_uint(out, l.bring_in);
    out.extend_from_slice(b",\"discard\":");
    opt_uint(out, l.discard.map(u64::from));
    out.push(b'}');
}

fn view(out: &mut Vec<u8>, v: &SeatView) {
    out.extend_from_slice(b"{\"seat\":");
    uint(out, u64::from(v.seat));
    out.extend_from_slice(b",\"round\":");
    uint(out, u64::from(v.round));
    out.extend_from_slice(match v.phase {
        Phase::Bet => b",\"phase\":\"bet\"",
        Phase::Draw => b",\"phase\":\"draw\"",
    });
    out.extend_from_slice(b",\"button\":");
    uint(out, u64::from(v.button));
    out.extend_from_slice(b",\"pot\":");
    uint(out, v.pot);
    out.extend_from_slice(b",\"cards\":");
    cards(out, &v.cards);
    out.extend_from_slice(b",\"board\":");
    match v.board {
        Some(c) => card(out, c),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"seats\":[");
    for (i, s) in v.seats.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"stack\":");
        uint(out, s.stack);
        out.extend_from_slice(b",\"bet\":");
        uint(out, s.bet);
        out.extend_from_slice(b",\"contributed\":");
        uint(out, s.contributed);
        out.extend_from_slice(b",\"folded\":");
        boolean(out, s.folded);
        out.extend_from_slice(b",\"up\":");
        cards(out, &s.up);
        out.extend_from_slice(b",\"draws\":[");
        for (j, d) in s.draws.iter().enumerate() {
            if j > 0 {
                out.push(b',');
            }
            uint(out, u64::from(*d));
        }
        out.extend_from_slice(b"]}");
    }
    out.extend_from_slice(b"]}");
}

fn table(out: &mut Vec<u8>, t: Option<u32>) {
    if let Some(t) = t {
        out.extend_from_slice(b",\"table\":");
        uint(out, u64::from(t));
    }
}

impl ActLine<'_> {
    /// Appends the line (with its newline) to `out`.
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"type\":\"act\",\"id\":");
        uint(out, self.id);
        table(out, self.table);
        out.extend_from_slice(b",\"hand\":");
        uint(out, self.hand);
        out.extend_from_slice(b",\"events\":");
        if self.terse {
            crate::terse::write_events(out, self.events);
        } else {
            events(out, self.events);
        }
        if let Some(v) = self.view {
            out.extend_from_slice(b",\"view\":");
            view(out, v);
        }
        out.extend_from_slice(b",\"legal\":");
        if self.terse {
            crate::terse::write_legal(out, self.legal);
        } else {
            legal(out, self.legal);
        }
        out.extend_from_slice(b",\"clock\":{\"decision_ms\":");
        uint(out, self.clock.decision_ms);
        out.extend_from_slice(b",\"bank_ms\":");
        uint(out, self.clock.bank_ms);
        out.extend_from_slice(b"}}\n");
    }
}

impl HandStartLine<'_> {
    /// Appends the line (with its newline) to `out`.
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"type\":\"hand_start\"");
        table(out, self.table);
        out.extend_from_slice(b",\"hand\":");
        uint(out, self.h.hand);
        out.extend_from_slice(b",\"seat\":");
        uint(out, u64::from(self.h.seat));
        out.extend_from_slice(b",\"seats\":");
        uint(out, u64::from(self.h.seats));
        out.extend_from_slice(b",\"button\":");
        uint(out, u64::from(self.h.button));
        out.extend_from_slice(b",\"stacks\":[");
        for (i, s) in self.h.stacks.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            uint(out, *s);
        }
        out.extend_from_slice(b"]}\n");
    }
}

impl HandEndLine<'_> {
    /// Appends the line (with its newline) to `out`.
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"type\":\"hand_end\"");
        table(out, self.table);
        out.extend_from_slice(b",\"hand\":");
        uint(out, self.h.hand);
        out.extend_from_slice(b",\"events\":");
        if self.terse {
            crate::terse::write_events(out, &self.h.events);
        } else {
            events(out, &self.h.events);
        }
        out.extend_from_slice(b",\"net\":[");
        for (i, v) in self.h.net.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            int(out, *v);
        }
        out.extend_from_slice(b"]}\n");
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::messages::{FaultKind, RaiseOption, SeatState};

    fn serde_line<T: Serialize>(t: &T) -> Vec<u8> {
        let mut v = serde_json::to_vec(t).unwrap();
        v.push(b'\n');
        v
    }

    fn c(s: &str) -> Card {
        s.parse().unwrap()
    }

    fn set(s: &str) -> CardSet {
        pitboss_cards::parse_cards(s).unwrap().iter().collect()
    }

    #[test]
    fn uint_writes_decimal_digits() {
        let mut out = Vec::new();
        let wide = (0..2_000u64).map(|i| i * 999_983 % 1_000_000_007);
        let edges = [
            99_999,
            100_000,
            99_999_999,
            100_000_000,
            u64::from(u32::MAX),
            u64::MAX,
        ];
        for v in (0..20_000).chain(wide).chain(edges) {
            out.clear();
            out.push(b'x');
            uint(&mut out, v);
            assert_eq!(out, format!("x{v}").as_bytes());
        }
    }

    #[test]
    fn sorted_cards_is_card_order() {
        let mut buf = [Card::from_index(0); 52];
        for cs in ["", "As", "Kd2c7h7cAs", "2c2d2h2s3c", "AsAhAdAcKsQsJsTs9s"] {
            let s = set(cs);
            assert_eq!(
                sorted_cards(s, &mut buf),
                s.sorted().collect::<Vec<_>>(),
                "{cs}"
            );
        }
        let all: CardSet = Card::all().collect();
        assert_eq!(sorted_cards(all, &mut buf), Card::all().collect::<Vec<_>>());
    }

    /// Every event variant, with both values of every flag and option.
    pub(crate) fn every_event() -> Vec<Event> {
        let mut v = vec![
            Event::Round { round: 2 },
            Event::Community { card: c("2c") },
            Event::Reshuffle { cards: 9 },
        ];
        for seat in [0u8, 1, 11] {
            for all_in in [false, true] {
                v.extend([
                    Event::Ante {
                        seat,
                        amount: 40,
                        all_in,
                    },
                    Event::Blind {
                        seat,
                        blind: Blind::Big,
                        amount: 100,
                        all_in,
                    },
                    Event::Blind {
                        seat,
                        blind: Blind::Small,
                        amount: 0,
                        all_in,
                    },
                    Event::Deal {
                        seat,
                        card: None,
                        up: all_in,
                    },
                    Event::Deal {
                        seat,
                        card: Some(c("Td")),
                        up: all_in,
                    },
                    Event::BringIn {
                        seat,
                        amount: 50,
                        all_in,
                    },
                    Event::Call {
                        seat,
                        amount: u64::MAX,
                        all_in,
                    },
                    Event::Raise {
                        seat,
                        kind: RaiseKind::Complete,
                        to: 200,
                        all_in,
                    },
                    Event::Raise {
                        seat,
                        kind: RaiseKind::Bet,
                        to: 1_000_000_007,
                        all_in,
                    },
                    Event::Raise {
                        seat,
                        kind: RaiseKind::Raise,
                        to: 0,
                        all_in,
                    },
                ]);
            }
            v.extend([
                Event::Fold { seat },
                Event::Check { seat },
                Event::Discard {
                    seat,
                    count: 2,
                    cards: Some(set("7c Kd")),
                },
                Event::Discard {
                    seat,
                    count: 0,
                    cards: Some(CardSet::EMPTY),
                },
                Event::Discard {
                    seat,
                    count: 3,
                    cards: None,
                },
                Event::Return { seat, amount: 100 },
                Event::Show {
                    seat,
                    cards: set("2s 4s 5h 6d 7c"),
                },
                Event::Show {
                    seat,
                    cards: set("As 2c Kd 2s Th 9c 9h"),
                },
                Event::Show {
                    seat,
                    cards: Card::all().collect(),
                },
                Event::Muck { seat },
            ]);
            for share in [Share::Whole, Share::High, Share::Low] {
                v.push(Event::Award {
                    seat,
                    pot: 1,
                    share,
                    amount: 600,
                });
            }
            for fault in FaultKind::ALL {
                v.push(Event::Penalty { seat, fault });
            }
        }
        v
    }

    #[test]
    fn the_hand_written_lines_are_serdes_bytes() {
        let events = every_event();
        for e in &events {
            let mut a = Vec::new();
            event(&mut a, e);
            assert_eq!(
                String::from_utf8(a).unwrap(),
                serde_json::to_string(e).unwrap()
            );
        }
        let seat = |folded, up: Vec<Card>, draws: Vec<u8>| SeatState {
            stack: 19_900,
            bet: 100,
            contributed: 250,
            folded,
            up,
            draws,
        };
        let views = [
            SeatView::default(),
            SeatView {
                seat: 1,
                round: 3,
                phase: Phase::Draw,
                button: 1,
                pot: 1234,
                cards: vec![c("As"), c("2c"), c("Th")],
                board: Some(c("9d")),
                seats: vec![
                    seat(false, vec![], vec![]),
                    seat(true, vec![c("Kd"), c("Qs")], vec![3, 0, 1]),
                ],
            },
        ];
        let legals = [
            LegalActions::default(),
            LegalActions {
                fold: true,
                check: false,
                call: Some(50),
                raise: Some(RaiseOption {
                    kind: RaiseKind::Raise,
                    min_to: 200,
                    max_to: 400,
                }),
                bring_in: Some(25),
                discard: Some(5),
            },
        ];
        for table in [None, Some(0), Some(17)] {
            for v in [None, Some(&views[0]), Some(&views[1])] {
                for l in &legals {
                    for es in [&events[..0], &events[..1], &events[..]] {
                        let line = ActLine {
                            id: 12_345_678_901,
                            table,
                            hand: 0,
                            events: es,
                            view: v,
                            legal: l,
                            clock: Clock {
                                decision_ms: 1000,
                                bank_ms: 0,
                            },
                            terse: false,
                        };
                        let mut out = Vec::new();
                        line.write(&mut out);
                        assert_eq!(
                            String::from_utf8(out).unwrap(),
                            String::from_utf8(serde_line(&line)).unwrap()
                        );
                    }
                }
            }
            for stacks in [vec![], vec![20_000, 0, 7]] {
                let h = HandStart {
                    hand: 99,
                    seat: 2,
                    seats: 3,
                    button: 1,
                    stacks,
                };
                let line = HandStartLine { table, h: &h };
                let mut out = Vec::new();
                line.write(&mut out);
                assert_eq!(out, serde_line(&line));
            }
            for net in [vec![], vec![-150, 0, i64::MIN, i64::MAX]] {
                let h = HandEnd {
                    hand: u64::MAX,
                    events: events.clone(),
                    net,
                };
                let line = HandEndLine {
                    table,
                    h: &h,
                    terse: false,
                };
                let mut out = Vec::new();
                line.write(&mut out);
                assert_eq!(
                    String::from_utf8(out).unwrap(),
                    String::from_utf8(serde_line(&line)).unwrap()
                );
            }
        }
    }
}
