//! The action tape: every hand's decisions as the engine applied them (penalties for faults
//! included), with each seat's net and luck-adjusted result, in a compact binary form. With the
//! match's deck key it is everything the rules engine needs to play a hand again, so a server can
//! audit a result played on a machine it does not control (crate `pitboss-audit`): it re-deals a
//! sample of the hands, replays their actions and compares the chips.
//!
//! Why a tape of its own rather than the PHH histories: a history is text of 200–500 bytes a hand
//! seat and costs a quarter of a match's speed; a tape is a few bytes per action and costs a few
//! percent, so it can be kept for every hand of every match.
//!
//! Format (all integers LEB128; signed ones zigzag):
//! `"PBT1"`, seats (byte), flags (byte: 1 = luck-adjusted results present), hands; then each
//! hand in hand order: each seat's net (signed, seat order), with the flag each seat's
//! luck-adjusted result in thousandths of a chip (signed), the number of actions, and the actions:
//! a byte `0` fold, `1` check, `2` call, `3` bring-in, `4` raise followed by its total, or
//! `5` discard followed by the number of cards and their indices (`rank * 4 + suit`).

use pitboss_cards::{Card, CardSet};
use pitboss_rules::{Action, Event, Seat};

/// The first bytes of a tape (format version 1).
pub const MAGIC: &[u8; 4] = b"PBT1";

const FLAG_LUCK: u8 = 1;

/// A tape that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TapeError {
    #[error("not an action tape (it does not start with {MAGIC:?})")]
    Magic,
    #[error("the tape ends in the middle of {0}")]
    Truncated(String),
    #[error("hand {hand}: {why}")]
    Bad { hand: u64, why: String },
    #[error("{0} bytes follow the last hand")]
    Trailing(usize),
    #[error("the tape is larger than {0} bytes decompressed")]
    TooLarge(u64),
    #[error("decompressing the tape: {0}")]
    Zstd(String),
}

#[inline(always)]
fn put_u(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[inline(always)]
fn put_i(out: &mut Vec<u8>, v: i64) {
    put_u(out, ((v << 1) ^ (v >> 63)) as u64);
}

#[inline(always)]
fn put_action(out: &mut Vec<u8>, a: &Action) {
    match *a {
        Action::Fold => out.push(0),
        Action::Check => out.push(1),
        Action::Call => out.push(2),
        Action::BringIn => out.push(3),
        Action::Raise { to } => {
            out.push(4);
            put_u(out, to);
        }
        Action::Discard { cards } => {
            out.push(5);
            out.push(cards.len() as u8);
            out.extend(cards.iter().map(Card::index));
        }
    }
}

/// A cursor over bytes already made room for: what [`encode_hand`] writes through, so that
/// no byte of a hand costs a capacity check (the tape is a few percent of a worker's play, and
/// this pass was most of it).
struct Cursor<'a> {
    b: &'a mut [u8],
    at: usize,
}

impl Cursor<'_> {
    #[inline(always)]
    fn byte(&mut self, v: u8) {
        self.b[self.at] = v;
        self.at += 1;
    }

    #[inline(always)]
    fn u(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.byte((v as u8) | 0x80);
            v >>= 7;
        }
        self.byte(v as u8);
    }

    #[inline(always)]
    fn i(&mut self, v: i64) {
        self.u(((v << 1) ^ (v >> 63)) as u64);
    }
}

/// The most bytes one event's action takes: a raise's tag and a 10-byte total; a discard's tag,
/// count and at most five cards (the rules engine lets a draw hand of five discard at most five).
const MOST_PER_ACTION: usize = 11;

/// Appends one finished hand to a tape's body: its `events` (the actions are taken from them),
/// every seat's `net` in seat order and, when the match adjusts for luck, every seat's adjusted
/// result. Writes exactly what [`Tape::encode`] writes for the same hand.
pub fn encode_hand(out: &mut Vec<u8>, events: &[Event], net: &[(Seat, i64)], adj: Option<&[i64]>) {
    let adj = adj.unwrap_or_default();
    // Room for the worst case (ten bytes a number), written through a cursor, cut to what was
    // written at the end.
    let start = out.len();
    let room = (net.len() + adj.len() + 1) * 10 + events.len() * MOST_PER_ACTION;
    out.resize(start + room, 0);
    let mut c = Cursor {
        b: &mut out[start..],
        at: 0,
    };
    for &(_, v) in net {
        c.i(v);
    }
    for &v in adj {
        c.i(v);
    }
    // The count's byte is kept and filled in after the actions (a count of 128 or more, which
    // no real hand reaches, takes its further bytes by insertion).
    let at = c.at;
    c.byte(0);
    let mut count = 0u64;
    for e in events {
        match *e {
            Event::Fold { .. } => c.byte(0),
            Event::Check { .. } => c.byte(1),
            Event::Call { .. } => c.byte(2),
            Event::BringIn { .. } => c.byte(3),
            Event::Raise { to, .. } => {
                c.byte(4);
                c.u(to);
            }
            Event::Discard { cards, .. } => {
                let cards = cards.unwrap_or_default();
                c.byte(5);
                c.byte(cards.len() as u8);
                for card in cards.iter() {
                    c.byte(card.index());
                }
            }
            _ => continue,
        }
        count += 1;
    }
    let written = c.at;
    out.truncate(start + written);
    if count < 0x80 {
        out[start + at] = count as u8;
    } else {
        let mut v = Vec::with_capacity(10);
        put_u(&mut v, count);
        out.splice(start + at..=start + at, v);
    }
}

/// A tape's header, with room for `capacity` bytes of hands: the hands' records
/// ([`encode_hand`]) follow in hand order.
pub fn header(seats: usize, luck: bool, hands: u64, capacity: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(capacity + 16);
    out.extend_from_slice(MAGIC);
    out.push(seats as u8);
    out.push(if luck { FLAG_LUCK } else { 0 });
    put_u(&mut out, hands);
    out
}

/// A whole tape from its header fields and the hands' records in hand order.
pub fn finish(seats: usize, luck: bool, hands: u64, body: &[u8]) -> Vec<u8> {
    let mut out = header(seats, luck, hands, body.len());
    out.extend_from_slice(body);
    out
}

/// zstd at level 1: a tape shrinks to about half (level 3 saves another 8% of the bytes for
/// 2.5 times the time: `cargo run --release -p pitboss-audit --example tape_cost`).
pub fn compress(raw: &[u8]) -> Vec<u8> {
    zstd::bulk::compress(raw, 1).expect("compressing to memory")
}

/// Decompresses a tape of at most `limit` bytes (a larger one, a zstd bomb, is refused without
/// being held in memory).
///
/// # Errors
/// [`TapeError::Zstd`] for a stream that is not zstd, [`TapeError::TooLarge`].
pub fn decompress(z: &[u8], limit: u64) -> Result<Vec<u8>, TapeError> {
    use std::io::Read;
    let dec = zstd::stream::read::Decoder::new(z).map_err(|e| TapeError::Zstd(e.to_string()))?;
    let mut out = Vec::new();
    dec.take(limit.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| TapeError::Zstd(e.to_string()))?;
    if out.len() as u64 > limit {
        return Err(TapeError::TooLarge(limit));
    }
    Ok(out)
}

/// A tape as a worker sends it, raw (it starts with [`MAGIC`]) or zstd-compressed, of at most
/// `limit` bytes decompressed. A worker sends it raw when it fits in the result's message as it
/// is, which spares the compression (1–2% of a fast match's play) for a few more bytes on the
/// wire.
///
/// # Errors
/// [`TapeError::TooLarge`], or what [`decompress`] refuses.
pub fn open(bytes: &[u8], limit: u64) -> Result<std::borrow::Cow<'_, [u8]>, TapeError> {
    if bytes.starts_with(MAGIC) {
        if bytes.len() as u64 > limit {
            return Err(TapeError::TooLarge(limit));
        }
        return Ok(std::borrow::Cow::Borrowed(bytes));
    }
    decompress(bytes, limit).map(std::borrow::Cow::Owned)
}

/// One hand of a tape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandTape {
    /// Each seat's net, seat order.
    pub net: Vec<i64>,
    /// Each seat's luck-adjusted result (thousandths of a chip), when the match adjusts.
    pub adj: Option<Vec<i64>>,
    /// The actions in the order applied (the seat is whoever is to act).
    pub actions: Vec<Action>,
}

/// A tape read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tape {
    pub seats: usize,
    pub luck: bool,
    pub hands: Vec<HandTape>,
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
    /// The hand being read (1-based; 0: the header), named in errors.
    hand: u64,
}

impl Reader<'_> {
    #[cold]
    #[inline(never)]
    fn truncated(&self) -> TapeError {
        TapeError::Truncated(if self.hand == 0 {
            "the header".into()
        } else {
            format!("hand {}", self.hand)
        })
    }

    #[inline(always)]
    fn byte(&mut self) -> Result<u8, TapeError> {
        let v = *self.b.get(self.at).ok_or_else(|| self.truncated())?;
        self.at += 1;
        Ok(v)
    }

    #[inline(always)]
    fn u(&mut self) -> Result<u64, TapeError> {
        // Most numbers of a tape take one byte.
        if let Some(&b) = self.b.get(self.at) {
            if b < 0x80 {
                self.at += 1;
                return Ok(u64::from(b));
            }
        }
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.truncated())
    }

    #[inline(always)]
    fn i(&mut self) -> Result<i64, TapeError> {
        let z = self.u()?;
        Ok((z >> 1) as i64 ^ -((z & 1) as i64))
    }
}

/// A tape's header: what it says of the match before its hands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub seats: usize,
    pub luck: bool,
    pub hands: u64,
}

/// One hand of a tape as it is walked ([`walk`]): borrowed, valid for that call only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HandRef<'a> {
    pub net: &'a [i64],
    pub adj: Option<&'a [i64]>,
    pub actions: &'a [Action],
}

impl HandTape {
    /// The hand as [`walk`] shows it.
    pub fn as_ref(&self) -> HandRef<'_> {
        HandRef {
            net: &self.net,
            adj: self.adj.as_deref(),
            actions: &self.actions,
        }
    }
}

impl HandRef<'_> {
    /// A copy that outlives the walk.
    pub fn to_owned(&self) -> HandTape {
        HandTape {
            net: self.net.to_vec(),
            adj: self.adj.map(<[i64]>::to_vec),
            actions: self.actions.to_vec(),
        }
    }
}

/// Reads a decompressed tape's header.
///
/// # Errors
/// [`TapeError::Magic`], a truncated header or an impossible seat count.
pub fn read_header(raw: &[u8]) -> Result<Header, TapeError> {
    header_at(raw).map(|(h, _)| h)
}

fn header_at(raw: &[u8]) -> Result<(Header, usize), TapeError> {
    if raw.len() < 6 || &raw[..4] != MAGIC {
        return Err(TapeError::Magic);
    }
    let seats = usize::from(raw[4]);
    let luck = raw[5] & FLAG_LUCK != 0;
    let mut r = Reader {
        b: raw,
        at: 6,
        hand: 0,
    };
    let hands = r.u()?;
    if seats == 0 || seats > pitboss_rules::MAX_SEATS {
        return Err(TapeError::Bad {
            hand: 0,
            why: format!("{seats} seats"),
        });
    }
    Ok((Header { seats, luck, hands }, r.at))
}

/// Reads a decompressed tape hand by hand without keeping it: `f(k, hand)` for each hand
/// (0-based, in order) until the first error, the tape's or `f`'s. What an audit of a 20,000-hand
/// result needs without allocating three vectors a hand (which took most of its time).
///
/// # Errors
/// A [`TapeError`] (converted) for anything that is not a complete, well-formed tape; `f`'s
/// first error.
pub fn walk<E: From<TapeError>>(
    raw: &[u8],
    f: impl FnMut(u64, HandRef<'_>) -> Result<(), E>,
) -> Result<Header, E> {
    walk_some(raw, |_| true, f)
}

/// [`walk`] reading the actions only of the hands `full(k)` wants: every other hand is shown
/// with its nets and no actions, its actions stepped over (their tags and lengths still checked,
/// so the tape must still be whole; a discard's cards are not). An audit needs every hand's nets
/// (the totals) but the actions only of the hands it replays: building them was half its walk.
///
/// # Errors
/// As [`walk`].
pub fn walk_some<E: From<TapeError>>(
    raw: &[u8],
    mut full: impl FnMut(u64) -> bool,
    mut f: impl FnMut(u64, HandRef<'_>) -> Result<(), E>,
) -> Result<Header, E> {
    let (head, at) = header_at(raw)?;
    let mut r = Reader {
        b: raw,
        at,
        hand: 0,
    };
    let seats = head.seats;
    let mut net = vec![0i64; seats];
    let mut adj = vec![0i64; seats];
    let mut actions = Vec::with_capacity(64);
    for k in 0..head.hands {
        r.hand = k + 1;
        for v in net.iter_mut() {
            *v = r.i()?;
        }
        if head.luck {
            for v in adj.iter_mut() {
                *v = r.i()?;
            }
        }
        let n = r.u()?;
        if n > (raw.len() - r.at) as u64 {
            return Err(r.truncated().into());
        }
        actions.clear();
        if full(k) {
            for _ in 0..n {
                actions.push(read_action(&mut r)?);
            }
        } else {
            for _ in 0..n {
                skip_action(&mut r)?;
            }
        }
        f(
            k,
            HandRef {
                net: &net,
                adj: head.luck.then_some(&adj[..]),
                actions: &actions,
            },
        )?;
    }
    if r.at != raw.len() {
        return Err(TapeError::Trailing(raw.len() - r.at).into());
    }
    Ok(head)
}

impl Tape {
    /// Reads a decompressed tape whole (to change it, in tests; an audit [`walk`]s it).
    ///
    /// # Errors
    /// A [`TapeError`] for anything that is not a complete, well-formed tape.
    pub fn parse(raw: &[u8]) -> Result<Tape, TapeError> {
        let (head, _) = header_at(raw)?;
        // Every hand takes at least `seats + 1` bytes: a count beyond that is a lie.
        let most = (raw.len() / (head.seats + 1)) as u64;
        let mut hands = Vec::with_capacity(head.hands.min(most) as usize);
        walk::<TapeError>(raw, |_, h| {
            hands.push(h.to_owned());
            Ok(())
        })?;
        Ok(Tape {
            seats: head.seats,
            luck: head.luck,
            hands,
        })
    }

    /// The tape's bytes (uncompressed): what [`Tape::parse`] reads.
    pub fn encode(&self) -> Vec<u8> {
        let mut body = Vec::new();
        for h in &self.hands {
            for &v in &h.net {
                put_i(&mut body, v);
            }
            for &v in h.adj.as_deref().unwrap_or_default() {
                put_i(&mut body, v);
            }
            put_u(&mut body, h.actions.len() as u64);
            for a in &h.actions {
                put_action(&mut body, a);
            }
        }
        finish(self.seats, self.luck, self.hands.len() as u64, &body)
    }
}

#[inline(always)]
fn read_action(r: &mut Reader<'_>) -> Result<Action, TapeError> {
    let tag = r.byte()?;
    Ok(match tag {
        0 => Action::Fold,
        1 => Action::Check,
        2 => Action::Call,
        3 => Action::BringIn,
        4 => Action::Raise { to: r.u()? },
        5 => {
            let mut cards = CardSet::default();
            for _ in 0..r.byte()? {
                let c = r.byte()?;
                if c >= 52 || !cards.insert(Card::from_index(c)) {
                    return Err(TapeError::Bad {
                        hand: r.hand,
                        why: format!("a discard names card {c} (twice, or no such card)"),
                    });
                }
            }
            Action::Discard { cards }
        }
        t => {
            return Err(TapeError::Bad {
                hand: r.hand,
                why: format!("unknown action {t}"),
            })
        }
    })
}

/// Steps over one action as [`read_action`] reads it, without making it: the tag must be known
/// and the bytes it announces present (a discard of at most 52 cards, as [`read_action`] allows).
#[inline(always)]
fn skip_action(r: &mut Reader<'_>) -> Result<(), TapeError> {
    match r.byte()? {
        0..=3 => {}
        4 => {
            r.u()?;
        }
        5 => {
            let n = usize::from(r.byte()?);
            if n > 52 {
                return Err(TapeError::Bad {
                    hand: r.hand,
                    why: format!("a discard of {n} cards"),
                });
            }
            if n > r.b.len() - r.at {
                return Err(r.truncated());
            }
            r.at += n;
        }
        t => {
            return Err(TapeError::Bad {
                hand: r.hand,
                why: format!("unknown action {t}"),
            })
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Tape {
        let mut d = CardSet::default();
        d.insert(Card::from_index(0));
        d.insert(Card::from_index(51));
        Tape {
            seats: 2,
            luck: true,
            hands: vec![
                HandTape {
                    net: vec![-150, 150],
                    adj: Some(vec![-12_345, 12_345]),
                    actions: vec![
                        Action::Raise { to: 1 << 40 },
                        Action::Call,
                        Action::Discard { cards: d },
                        Action::Discard {
                            cards: CardSet::default(),
                        },
                        Action::Check,
                        Action::Fold,
                    ],
                },
                HandTape {
                    net: vec![i64::MIN / 4, i64::MAX / 4],
                    adj: Some(vec![0, 0]),
                    actions: vec![Action::BringIn],
                },
            ],
        }
    }

    #[test]
    fn a_tape_reads_back_as_written() {
        let t = sample();
        let raw = t.encode();
        assert_eq!(Tape::parse(&raw), Ok(t.clone()));
        let z = compress(&raw);
        assert_eq!(decompress(&z, raw.len() as u64).unwrap(), raw);
        // Raw or compressed, a tape opens the same; over the limit either way, refused.
        assert_eq!(open(&z, raw.len() as u64).unwrap().as_ref(), &raw[..]);
        assert_eq!(open(&raw, raw.len() as u64).unwrap().as_ref(), &raw[..]);
        let short = raw.len() as u64 - 1;
        assert_eq!(open(&raw, short), Err(TapeError::TooLarge(short)));
        assert_eq!(open(&z, short), Err(TapeError::TooLarge(short)));
    }

    /// A hand of more than 127 actions (its count takes two bytes) encodes from events as
    /// [`Tape::encode`] does.
    #[test]
    fn long_hands_encode_alike_from_events_and_from_a_tape() {
        let mut events = vec![Event::Round { round: 0 }];
        for i in 0..300u64 {
            events.push(Event::Raise {
                seat: Seat((i % 2) as u8),
                kind: crate::tape::tests::raise(),
                to: 100 * (i + 1),
                all_in: false,
            });
        }
        events.push(Event::Fold { seat: Seat(0) });
        let mut body = Vec::new();
        encode_hand(&mut body, &events, &[(Seat(0), -7), (Seat(1), 7)], None);
        let raw = finish(2, false, 1, &body);
        let t = Tape::parse(&raw).unwrap();
        assert_eq!(t.hands[0].actions.len(), 301);
        assert_eq!(t.hands[0].actions[299], Action::Raise { to: 30_000 });
        assert_eq!(t.encode(), raw);
    }

    fn raise() -> pitboss_rules::RaiseKind {
        pitboss_rules::RaiseKind::Raise
    }

    #[test]
    fn broken_tapes_are_refused() {
        let raw = sample().encode();
        for cut in [0, 3, 6, 7, raw.len() / 2, raw.len() - 1] {
            assert!(Tape::parse(&raw[..cut]).is_err(), "cut at {cut}");
        }
        let mut extra = raw.clone();
        extra.push(0);
        assert_eq!(Tape::parse(&extra), Err(TapeError::Trailing(1)));
        let mut bad = raw.clone();
        bad[0] = b'X';
        assert_eq!(Tape::parse(&bad), Err(TapeError::Magic));
        // A count of hands far beyond the bytes: refused, not allocated.
        let lie = finish(2, false, u64::MAX, &[]);
        assert!(Tape::parse(&lie).is_err());
        // A discard of a card that does not exist.
        let mut body = Vec::new();
        put_i(&mut body, 0);
        put_i(&mut body, 0);
        put_u(&mut body, 1);
        body.extend([5, 1, 60]);
        assert!(matches!(
            Tape::parse(&finish(2, false, 1, &body)),
            Err(TapeError::Bad { hand: 1, .. })
        ));
    }

    /// Walking only some hands' actions shows the same nets, those hands' actions, and refuses
    /// what the full walk refuses for the tape's shape.
    #[test]
    fn a_partial_walk_reads_the_nets_of_every_hand_and_the_actions_of_some() {
        let t = sample();
        let raw = t.encode();
        let mut seen = Vec::new();
        walk_some::<TapeError>(
            &raw,
            |k| k == 1,
            |k, h| {
                seen.push((k, h.to_owned()));
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen.len(), t.hands.len());
        for (k, h) in seen {
            let want = &t.hands[k as usize];
            assert_eq!((&h.net, &h.adj), (&want.net, &want.adj), "hand {k}");
            if k == 1 {
                assert_eq!(h.actions, want.actions);
            } else {
                assert!(h.actions.is_empty(), "hand {k}");
            }
        }
        let none = |raw: &[u8]| walk_some::<TapeError>(raw, |_| false, |_, _| Ok(()));
        for cut in [0, 3, 6, 7, raw.len() / 2, raw.len() - 1] {
            assert!(none(&raw[..cut]).is_err(), "cut at {cut}");
        }
        let mut extra = raw.clone();
        extra.push(0);
        assert_eq!(none(&extra), Err(TapeError::Trailing(1)));
        for body in [
            vec![0, 0, 1, 9],
            vec![0, 0, 1, 5, 53],
            vec![0, 0, 1, 5, 3, 1],
            vec![0, 0, 1, 4, 0x80],
        ] {
            assert!(none(&finish(2, false, 1, &body)).is_err(), "{body:?}");
        }
    }

    #[test]
    fn a_zstd_bomb_is_refused_without_being_held() {
        let z = compress(&vec![0u8; 10 << 20]);
        assert_eq!(decompress(&z, 1 << 20), Err(TapeError::TooLarge(1 << 20)));
        assert!(decompress(b"not zstd", 100).is_err());
    }
}
