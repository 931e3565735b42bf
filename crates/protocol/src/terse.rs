//! Terse messages (protocol 1.2, `messages: "terse"`): the events of `act` and `hand_end` and the
//! legal actions of `act` as short strings of space-separated tokens instead of JSON objects.
//!
//! Why: a heads-up hand of triple draw sends each bot ~44 events and 7 legal-action objects. An
//! interpreted bot pays per JSON object and key — in Python the json module's decoding of compact
//! messages took ~80% of the SDK example's time — while splitting one string on spaces and looking
//! at each token's first letter is cheap in any language. The tokens carry exactly what the JSON
//! events carry ([`write_events`] and [`parse_events`] round-trip every [`Event`]); protocol.md
//! §14 is the grammar.
//!
//! Seats are one digit (a table has at most 8 seats), cards two characters (`Td`), card sets the
//! cards written one after the other (`2c3d7h`), amounts decimal chips.

use pitboss_cards::{Card, CardSet};

use crate::encode::{sorted_cards, uint};
use crate::messages::{Blind, Event, FaultKind, LegalActions, RaiseKind, RaiseOption, Share};

/// A token that is not terse protocol: the token, for the error message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a terse token: {0:?}")]
pub struct TerseError(pub String);

fn push_card(out: &mut Vec<u8>, c: Card) {
    out.extend_from_slice(&[
        b"23456789TJQKA"[c.rank().index() as usize],
        b"cdhs"[c.suit().index() as usize],
    ]);
}

/// The cards in card order ([`CardSet::sorted`] tests all 52 cards: that loop was half of
/// [`write_event`]'s instructions in a triple-draw match).
fn push_set(out: &mut Vec<u8>, s: CardSet) {
    let mut buf = [Card::from_index(0); 52];
    for &c in sorted_cards(s, &mut buf) {
        push_card(out, c);
    }
}

/// `<letter><seat>`
fn head(out: &mut Vec<u8>, letter: u8, seat: u8) {
    debug_assert!(seat < 10, "terse seats are one digit");
    out.extend_from_slice(&[letter, b'0' + seat]);
}

/// `<letter><seat>:<amount>` and `!` when all in.
fn chips(out: &mut Vec<u8>, letter: u8, seat: u8, amount: u64, all_in: bool) {
    head(out, letter, seat);
    out.push(b':');
    uint(out, amount);
    if all_in {
        out.push(b'!');
    }
}

fn raise_letter(k: RaiseKind) -> u8 {
    match k {
        RaiseKind::Bet => b'b',
        RaiseKind::Raise => b'r',
        RaiseKind::Complete => b'p',
    }
}

/// The kind a raise letter stands for (the inverse of [`raise_letter`]).
fn raise_kind(letter: u8) -> Option<RaiseKind> {
    match letter {
        b'b' => Some(RaiseKind::Bet),
        b'r' => Some(RaiseKind::Raise),
        b'p' => Some(RaiseKind::Complete),
        _ => None,
    }
}

/// Appends one event's token.
pub fn write_event(out: &mut Vec<u8>, e: &Event) {
    match *e {
        Event::Round { round } => {
            out.push(b'R');
            uint(out, u64::from(round));
        }
        Event::Ante {
            seat,
            amount,
            all_in,
        } => chips(out, b'A', seat, amount, all_in),
        Event::Blind {
            seat,
            blind,
            amount,
            all_in,
        } => {
            let letter = match blind {
                Blind::Small => b'S',
                Blind::Big => b'B',
            };
            chips(out, letter, seat, amount, all_in);
        }
        Event::Deal { seat, card, up } => {
            head(out, if up { b'U' } else { b'D' }, seat);
            if let Some(c) = card {
                push_card(out, c);
            }
        }
        Event::Community { card } => {
            out.push(b'C');
            push_card(out, card);
        }
        Event::BringIn {
            seat,
            amount,
            all_in,
        } => chips(out, b'I', seat, amount, all_in),
        Event::Fold { seat } => head(out, b'f', seat),
        Event::Check { seat } => head(out, b'x', seat),
        Event::Call {
            seat,
            amount,
            all_in,
        } => chips(out, b'c', seat, amount, all_in),
        Event::Raise {
            seat,
            kind,
            to,
            all_in,
        } => chips(out, raise_letter(kind), seat, to, all_in),
        Event::Discard { seat, count, cards } => {
            head(out, b'X', seat);
            out.push(b':');
            uint(out, u64::from(count));
            if let Some(cs) = cards {
                out.push(b':');
                push_set(out, cs);
            }
        }
        Event::Reshuffle { cards } => {
            out.push(b'Z');
            uint(out, u64::from(cards));
        }
        Event::Return { seat, amount } => chips(out, b'T', seat, amount, false),
        Event::Show { seat, cards } => {
            head(out, b'W', seat);
            out.push(b':');
            push_set(out, cards);
        }
        Event::Muck { seat } => head(out, b'M', seat),
        Event::Award {
            seat,
            pot,
            share,
            amount,
        } => {
            head(out, b'$', seat);
            out.push(b':');
            uint(out, u64::from(pot));
            out.extend_from_slice(match share {
                Share::Whole => b":w:",
                Share::High => b":h:",
                Share::Low => b":l:",
            });
            uint(out, amount);
        }
        Event::Penalty { seat, fault } => {
            head(out, b'E', seat);
            out.push(b':');
            out.extend_from_slice(fault.name().as_bytes());
        }
    }
}

/// Appends the events as a JSON string: `"D0Qd D1 R0 S0:50 B1:100"` (`""` for none).
pub fn write_events(out: &mut Vec<u8>, es: &[Event]) {
    out.push(b'"');
    for (i, e) in es.iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        write_event(out, e);
    }
    out.push(b'"');
}

/// Appends the legal actions as a JSON string: `"f c50 r200:200"`.
pub fn write_legal(out: &mut Vec<u8>, l: &LegalActions) {
    out.push(b'"');
    let start = out.len();
    let sep = |out: &mut Vec<u8>| {
        if out.len() > start {
            out.push(b' ');
        }
    };
    if l.fold {
        out.push(b'f');
    }
    if l.check {
        sep(out);
        out.push(b'x');
    }
    if let Some(c) = l.call {
        sep(out);
        out.push(b'c');
        uint(out, c);
    }
    if let Some(r) = l.raise {
        sep(out);
        out.push(raise_letter(r.kind));
        uint(out, r.min_to);
        out.push(b':');
        uint(out, r.max_to);
    }
    if let Some(b) = l.bring_in {
        sep(out);
        out.push(b'i');
        uint(out, b);
    }
    if let Some(d) = l.discard {
        sep(out);
        out.push(b'd');
        uint(out, u64::from(d));
    }
    out.push(b'"');
}

/// Reads a token's fields left to right.
struct Tok<'a> {
    s: &'a [u8],
    at: usize,
}

impl<'a> Tok<'a> {
    fn seat(&mut self) -> Option<u8> {
        let d = *self.s.get(self.at)?;
        self.at += 1;
        d.is_ascii_digit().then(|| d - b'0')
    }

    fn colon(&mut self) -> Option<()> {
        (self.s.get(self.at) == Some(&b':')).then(|| self.at += 1)
    }

    fn uint(&mut self) -> Option<u64> {
        let start = self.at;
        let mut v: u64 = 0;
        while let Some(&d) = self.s.get(self.at).filter(|d| d.is_ascii_digit()) {
            v = v.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
            self.at += 1;
        }
        (self.at > start).then_some(v)
    }

    fn small(&mut self) -> Option<u8> {
        u8::try_from(self.uint()?).ok()
    }

    fn card(&mut self) -> Option<Card> {
        let (r, s) = (*self.s.get(self.at)?, *self.s.get(self.at + 1)?);
        self.at += 2;
        crate::scan::card_of(r, s)
    }

    fn set(&mut self) -> Option<CardSet> {
        let mut set = CardSet::EMPTY;
        while self.at < self.s.len() {
            if !set.insert(self.card()?) {
                return None;
            }
        }
        Some(set)
    }

    /// `:<amount>` and an optional `!`.
    fn amount_all_in(&mut self) -> Option<(u64, bool)> {
        self.colon()?;
        let a = self.uint()?;
        let all_in = self.s.get(self.at) == Some(&b'!');
        self.at += usize::from(all_in);
        Some((a, all_in))
    }

    fn done(&self) -> Option<()> {
        (self.at == self.s.len()).then_some(())
    }
}

fn event(token: &[u8]) -> Option<Event> {
    let mut t = Tok { s: token, at: 1 };
    let e = match *token.first()? {
        b'R' => Event::Round { round: t.small()? },
        b'D' | b'U' => {
            let seat = t.seat()?;
            let card = if t.at < token.len() {
                Some(t.card()?)
            } else {
                None
            };
            Event::Deal {
                seat,
                card,
                up: token[0] == b'U',
            }
        }
        b'C' => Event::Community { card: t.card()? },
        b'f' => Event::Fold { seat: t.seat()? },
        b'x' => Event::Check { seat: t.seat()? },
        b'M' => Event::Muck { seat: t.seat()? },
        b'Z' => Event::Reshuffle { cards: t.small()? },
        b'X' => {
            let seat = t.seat()?;
            t.colon()?;
            let count = t.small()?;
            let cards = if t.at < token.len() {
                t.colon()?;
                Some(t.set()?)
            } else {
                None
            };
            Event::Discard { seat, count, cards }
        }
        b'W' => {
            let seat = t.seat()?;
            t.colon()?;
            Event::Show {
                seat,
                cards: t.set()?,
            }
        }
        b'$' => {
            let seat = t.seat()?;
            t.colon()?;
            let pot = t.small()?;
            t.colon()?;
            let share = match *token.get(t.at)? {
                b'w' => Share::Whole,
                b'h' => Share::High,
                b'l' => Share::Low,
                _ => return None,
            };
            t.at += 1;
            t.colon()?;
            Event::Award {
                seat,
                pot,
                share,
                amount: t.uint()?,
            }
        }
        b'E' => {
            let seat = t.seat()?;
            t.colon()?;
            let name = std::str::from_utf8(&token[t.at..]).ok()?;
            let fault = FaultKind::ALL.into_iter().find(|f| f.name() == name)?;
            t.at = token.len();
            Event::Penalty { seat, fault }
        }
        letter => {
            let seat = t.seat()?;
            let (amount, all_in) = t.amount_all_in()?;
            match letter {
                b'A' => Event::Ante {
                    seat,
                    amount,
                    all_in,
                },
                b'S' | b'B' => Event::Blind {
                    seat,
                    blind: if letter == b'S' {
                        Blind::Small
                    } else {
                        Blind::Big
                    },
                    amount,
                    all_in,
                },
                b'I' => Event::BringIn {
                    seat,
                    amount,
                    all_in,
                },
                b'c' => Event::Call {
                    seat,
                    amount,
                    all_in,
                },
                b'T' if !all_in => Event::Return { seat, amount },
                _ => Event::Raise {
                    seat,
                    kind: raise_kind(letter)?,
                    to: amount,
                    all_in,
                },
            }
        }
    };
    t.done()?;
    Some(e)
}

fn tokens(s: &[u8]) -> impl Iterator<Item = &[u8]> {
    s.split(|&b| b == b' ').filter(move |_| !s.is_empty())
}

fn err(token: &[u8]) -> TerseError {
    TerseError(String::from_utf8_lossy(token).into_owned())
}

/// Appends the events of a terse events string to `out`.
///
/// # Errors
/// The first token that is not an event (a doubled or trailing space is an empty token).
pub fn parse_events(s: &str, out: &mut Vec<Event>) -> Result<(), TerseError> {
    parse_events_bytes(s.as_bytes(), out)
}

/// [`parse_events`] on the bytes of the string (the SDK's reader takes them straight from the
/// line: every token is ASCII, so a string that is not UTF-8 fails here as it would there).
pub(crate) fn parse_events_bytes(s: &[u8], out: &mut Vec<Event>) -> Result<(), TerseError> {
    for token in tokens(s) {
        out.push(event(token).ok_or_else(|| err(token))?);
    }
    Ok(())
}

/// Reads a terse legal-actions string.
///
/// # Errors
/// The first token that is not a legal action, or one given twice.
pub fn parse_legal(s: &str) -> Result<LegalActions, TerseError> {
    parse_legal_bytes(s.as_bytes())
}

/// [`parse_legal`] on the bytes of the string (see [`parse_events_bytes`]).
pub(crate) fn parse_legal_bytes(s: &[u8]) -> Result<LegalActions, TerseError> {
    let mut l = LegalActions {
        fold: false,
        check: false,
        call: None,
        raise: None,
        bring_in: None,
        discard: None,
    };
    for token in tokens(s) {
        let mut t = Tok { s: token, at: 1 };
        let ok = match token.first() {
            Some(b'f') if !l.fold => {
                l.fold = true;
                Some(())
            }
            Some(b'x') if !l.check => {
                l.check = true;
                Some(())
            }
            Some(b'c') if l.call.is_none() => t.uint().map(|c| l.call = Some(c)),
            Some(b'i') if l.bring_in.is_none() => t.uint().map(|b| l.bring_in = Some(b)),
            Some(b'd') if l.discard.is_none() => t.small().map(|d| l.discard = Some(d)),
            Some(&k) if l.raise.is_none() && raise_kind(k).is_some() => (|| {
                let min_to = t.uint()?;
                t.colon()?;
                let max_to = t.uint()?;
                l.raise = Some(RaiseOption {
                    kind: raise_kind(k)?,
                    min_to,
                    max_to,
                });
                Some(())
            })(),
            _ => None,
        };
        ok.and_then(|()| t.done()).ok_or_else(|| err(token))?;
    }
    Ok(l)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::tests::every_event;

    fn string(f: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut v = Vec::new();
        f(&mut v);
        let s = String::from_utf8(v).unwrap();
        // A JSON string without escapes: the quotes are the ends.
        assert!(s.starts_with('"') && s.ends_with('"') && !s[1..s.len() - 1].contains('"'));
        s[1..s.len() - 1].to_string()
    }

    #[test]
    fn every_event_round_trips() {
        // Seats are one digit in terse messages (every_event also tries seat 11 for JSON).
        let events: Vec<Event> = every_event()
            .into_iter()
            .filter(|e| !serde_json::to_string(e).unwrap().contains("\"seat\":11"))
            .collect();
        assert!(events.len() > 40);
        let s = string(|o| write_events(o, &events));
        let mut back = Vec::new();
        parse_events(&s, &mut back).unwrap();
        assert_eq!(back, events, "{s}");
        // One at a time too, so that no token depends on its neighbours.
        for e in &events {
            let s = string(|o| write_events(o, std::slice::from_ref(e)));
            let mut back = Vec::new();
            parse_events(&s, &mut back).unwrap();
            assert_eq!(back, [*e], "{s}");
        }
    }

    #[test]
    fn tokens_read_as_protocol_md_writes_them() {
        let mut v = Vec::new();
        parse_events(
            "D0Qd D1 U3Kc R0 S0:50 B1:100! c0:50 x1 b0:200 r1:400 p2:20 I3:5 A4:10 f1 X0:2:7hKd \
             X1:3 Z9 T1:100 W0:2c3c4s5h8h M1 $0:1:l:300 C7h E1:timeout",
            &mut v,
        )
        .unwrap();
        assert_eq!(v.len(), 23);
        assert_eq!(
            v[5],
            Event::Blind {
                seat: 1,
                blind: Blind::Big,
                amount: 100,
                all_in: true
            }
        );
        assert_eq!(
            v[14],
            Event::Discard {
                seat: 0,
                count: 2,
                cards: Some(pitboss_cards::parse_cards("7hKd").unwrap().iter().collect())
            }
        );
        // Your own discards always carry the card set, empty when you stand pat.
        let mut pat = Vec::new();
        parse_events("X0:0:", &mut pat).unwrap();
        assert_eq!(
            pat,
            [Event::Discard {
                seat: 0,
                count: 0,
                cards: Some(CardSet::EMPTY)
            }]
        );
        let mut none = Vec::new();
        parse_events("", &mut none).unwrap();
        assert!(none.is_empty());
    }

    #[test]
    fn malformed_tokens_are_refused_by_name() {
        for bad in [
            "D0Q",
            "D0Qdx",
            "c0",
            "c0:",
            "c0:5x",
            "c0:5!!",
            "R",
            "X0:2:7h7h",
            "X0:2:7",
            "T1:5!",
            "$0:0:q:5",
            "E1:tired",
            "q1",
            "D",
            "D0Qd  x1",
            "x1 ",
            " x1",
            "x12",
            "c0:-5",
            "c0:99999999999999999999",
        ] {
            let mut v = Vec::new();
            assert!(parse_events(bad, &mut v).is_err(), "{bad:?} accepted");
        }
        assert_eq!(
            parse_events("x1 c0:5x", &mut Vec::new()),
            Err(TerseError("c0:5x".into()))
        );
    }

    #[test]
    fn legal_actions_round_trip() {
        let raise = |kind, min_to, max_to| {
            Some(RaiseOption {
                kind,
                min_to,
                max_to,
            })
        };
        let cases = [
            (
                true,
                false,
                Some(50),
                raise(RaiseKind::Raise, 200, 200),
                None,
                None,
            ),
            (
                false,
                true,
                None,
                raise(RaiseKind::Bet, 100, 20000),
                None,
                None,
            ),
            (false, false, None, None, None, Some(5)),
            (
                true,
                false,
                None,
                raise(RaiseKind::Complete, 20, 20),
                Some(5),
                None,
            ),
            (true, false, Some(7), None, None, None),
            (false, false, None, None, None, None),
        ];
        for (fold, check, call, raise, bring_in, discard) in cases {
            let l = LegalActions {
                fold,
                check,
                call,
                raise,
                bring_in,
                discard,
            };
            let s = string(|o| write_legal(o, &l));
            assert_eq!(parse_legal(&s).unwrap(), l, "{s}");
        }
        assert_eq!(string(|o| write_legal(o, &cases_first())), "f c50 r200:200");
        for bad in ["f f", "c", "r200", "r200:", "d", "q", "f  x", "x1"] {
            assert!(parse_legal(bad).is_err(), "{bad:?} accepted");
        }
    }

    fn cases_first() -> LegalActions {
        LegalActions {
            fold: true,
            check: false,
            call: Some(50),
            raise: Some(RaiseOption {
                kind: RaiseKind::Raise,
                min_to: 200,
                max_to: 200,
            }),
            bring_in: None,
            discard: None,
        }
    }
}
