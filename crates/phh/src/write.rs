//! The writer: a finished hand's events (plus its setup) become a PHH hand in PokerKit 0.7.7's
//! conventions (`scripts/pokerkit/notes.md`), as TOML text, one `.phh` or appended to a `.phhs`.
//!
//! What is written follows what PokerKit expects when it replays the hand: no burns, no blinds or
//! antes (PokerKit posts them), one `d dh` per player per street or draw, `sd` declarations before
//! the replacements, and `sm` lines exactly where PokerKit asks for them. PokerKit holds a stud
//! showdown as soon as at most one live player has chips left after a betting round, and again at
//! the end only for players who were dealt a face-down card since; Pitboss writes those early
//! `sm` lines with the cards held at that moment, and the engine's own show or muck at the end.

use std::fmt::Write as _;
use std::io;

use pitboss_cards::Card;
use pitboss_rules::{Chips, Event, Game, Variant, MAX_SEATS};

use crate::model::{betting_fields, HandId, PhhHand, Players};

/// A finished hand as the engine recorded it, with the setup it was played from.
#[derive(Clone, Copy, Debug)]
pub struct HandRecord<'a> {
    pub game: &'a Game,
    /// Starting stacks by seat.
    pub stacks: &'a [Chips],
    /// Triple-draw button seat (ignored in stud).
    pub button: usize,
    /// The engine's complete event record (`Hand::events`).
    pub events: &'a [Event],
    /// Player names by seat (written as `players` in PHH order).
    pub names: Option<&'a [String]>,
    /// The hand number (`hand`).
    pub hand: Option<i64>,
}

/// Cards dealt in one group (one street or one draw's replacements), per seat, in order.
struct DealBuffer {
    cards: [Vec<Card>; MAX_SEATS],
    street: Option<usize>,
}

impl DealBuffer {
    fn is_empty(&self) -> bool {
        self.cards.iter().all(Vec::is_empty)
    }
}

/// Turns a finished hand into a PHH hand.
///
/// The stacks at the end are computed from the events and written as `finishing_stacks`.
pub fn phh_from_events(rec: &HandRecord<'_>) -> PhhHand {
    let n = rec.stacks.len();
    let players = Players::for_table(rec.game.variant, n, rec.button);
    let p = |seat: u8| players.player_of(seat) + 1;
    let stud = rec.game.variant == Variant::StudHiLo;
    let mut out = PhhHand::default();
    betting_fields(rec.game, n, &mut out);
    out.starting_stacks = players
        .seat_of
        .iter()
        .map(|&s| rec.stacks[usize::from(s)])
        .collect();

    let mut stack = [0 as Chips; MAX_SEATS];
    stack[..n].copy_from_slice(rec.stacks);
    let mut bet = [0 as Chips; MAX_SEATS];
    let mut folded = [false; MAX_SEATS];
    // Cards held, in the order received (stud: all seven; triple draw: the current five).
    let mut held: [Vec<Card>; MAX_SEATS] = Default::default();
    let mut dealt = [0usize; MAX_SEATS];
    // Stud: PokerKit's early all-in showdown happened, and who got a down card since.
    let mut all_in_showdown = false;
    let mut down_since = [false; MAX_SEATS];
    let mut buf = DealBuffer {
        cards: Default::default(),
        street: None,
    };
    let mut actions: Vec<String> = Vec::new();

    let flush = |buf: &mut DealBuffer, actions: &mut Vec<String>| {
        for &seat in &players.seat_of {
            let cards = &mut buf.cards[usize::from(seat)];
            if !cards.is_empty() {
                let text: String = cards.iter().map(Card::to_string).collect();
                actions.push(format!("d dh p{} {text}", p(seat)));
                cards.clear();
            }
        }
        buf.street = None;
    };

    // PokerKit's early showdown: after a betting round, more than one player is live and at
    // most one of them has chips behind.
    let early_showdown = |actions: &mut Vec<String>,
                          all_in_showdown: &mut bool,
                          down_since: &mut [bool; MAX_SEATS],
                          stack: &[Chips; MAX_SEATS],
                          folded: &[bool; MAX_SEATS],
                          held: &[Vec<Card>; MAX_SEATS]| {
        if !stud || *all_in_showdown {
            return;
        }
        let live = (0..n).filter(|&i| !folded[i]).count();
        let with_chips = (0..n).filter(|&i| !folded[i] && stack[i] > 0).count();
        if live > 1 && with_chips <= 1 {
            *all_in_showdown = true;
            for &seat in &players.seat_of {
                let i = usize::from(seat);
                if !folded[i] {
                    let text: String = held[i].iter().map(Card::to_string).collect();
                    actions.push(format!("p{} sm {text}", p(seat)));
                    down_since[i] = false;
                }
            }
        }
    };

    for e in rec.events {
        match *e {
            Event::Deal { seat, card, up } => {
                let i = seat.index();
                let card = card.expect("the full record has every card");
                let street = if stud { dealt[i].saturating_sub(2) } else { 0 };
                if stud && buf.street.is_some_and(|s| s != street) {
                    flush(&mut buf, &mut actions);
                }
                if stud && street >= 1 && buf.is_empty() {
                    early_showdown(
                        &mut actions,
                        &mut all_in_showdown,
                        &mut down_since,
                        &stack,
                        &folded,
                        &held,
                    );
                }
                buf.street = Some(street);
                buf.cards[i].push(card);
                held[i].push(card);
                dealt[i] += 1;
                if !up {
                    down_since[i] = true;
                }
            }
            Event::Community { card } => {
                flush(&mut buf, &mut actions);
                early_showdown(
                    &mut actions,
                    &mut all_in_showdown,
                    &mut down_since,
                    &stack,
                    &folded,
                    &held,
                );
                actions.push(format!("d db {card}"));
            }
            Event::Reshuffle { .. } | Event::Award { .. } => {}
            Event::Round { .. } => {
                flush(&mut buf, &mut actions);
                bet = [0; MAX_SEATS];
            }
            Event::Ante { seat, amount, .. } => stack[seat.index()] -= amount,
            Event::Blind { seat, amount, .. } => {
                stack[seat.index()] -= amount;
                bet[seat.index()] += amount;
            }
            Event::BringIn { seat, amount, .. } => {
                flush(&mut buf, &mut actions);
                stack[seat.index()] -= amount;
                bet[seat.index()] += amount;
                actions.push(format!("p{} pb", p(seat.0)));
            }
            Event::Fold { seat } => {
                flush(&mut buf, &mut actions);
                folded[seat.index()] = true;
                actions.push(format!("p{} f", p(seat.0)));
            }
            Event::Check { seat } => {
                flush(&mut buf, &mut actions);
                // A check nobody could answer (every other live player is all-in) is a decision
                // PokerKit never asks for; it is not written (the reader supplies it).
                let i = seat.index();
                let answerable = (0..n).any(|j| j != i && !folded[j] && stack[j] > 0);
                if answerable {
                    actions.push(format!("p{} cc", p(seat.0)));
                }
            }
            Event::Call { seat, amount, .. } => {
                flush(&mut buf, &mut actions);
                stack[seat.index()] -= amount;
                bet[seat.index()] += amount;
                actions.push(format!("p{} cc", p(seat.0)));
            }
            Event::Raise { seat, to, .. } => {
                flush(&mut buf, &mut actions);
                let i = seat.index();
                stack[i] -= to - bet[i];
                bet[i] = to;
                actions.push(format!("p{} cbr {to}", p(seat.0)));
            }
            Event::Discard { seat, cards, .. } => {
                flush(&mut buf, &mut actions);
                let cards = cards.expect("the full record has every discard");
                let i = seat.index();
                held[i].retain(|c| !cards.contains(*c));
                if cards.is_empty() {
                    actions.push(format!("p{} sd", p(seat.0)));
                } else {
                    let text: String = held_order(cards).map(|c| c.to_string()).collect();
                    actions.push(format!("p{} sd {text}", p(seat.0)));
                }
            }
            Event::Return { seat, amount } => {
                stack[seat.index()] += amount;
                bet[seat.index()] -= amount;
            }
            Event::Show { seat, .. } => {
                flush(&mut buf, &mut actions);
                let i = seat.index();
                if !all_in_showdown || down_since[i] {
                    let text: String = held[i].iter().map(Card::to_string).collect();
                    actions.push(format!("p{} sm {text}", p(seat.0)));
                }
            }
            Event::Muck { seat } => {
                flush(&mut buf, &mut actions);
                if !all_in_showdown || down_since[seat.index()] {
                    actions.push(format!("p{} sm", p(seat.0)));
                }
            }
        }
    }
    flush(&mut buf, &mut actions);
    // Final stacks: the starting stacks plus the net of every award and contribution.
    let mut fin = rec.stacks.to_vec();
    let mut put = vec![0 as Chips; n];
    let mut won = vec![0 as Chips; n];
    let mut round_bet = vec![0 as Chips; n];
    for e in rec.events {
        match *e {
            Event::Round { .. } => round_bet.iter_mut().for_each(|b| *b = 0),
            Event::Ante { seat, amount, .. }
            | Event::Blind { seat, amount, .. }
            | Event::BringIn { seat, amount, .. }
            | Event::Call { seat, amount, .. } => {
                put[seat.index()] += amount;
                if !matches!(e, Event::Ante { .. }) {
                    round_bet[seat.index()] += amount;
                }
            }
            Event::Raise { seat, to, .. } => {
                put[seat.index()] += to - round_bet[seat.index()];
                round_bet[seat.index()] = to;
            }
            Event::Return { seat, amount } => {
                put[seat.index()] -= amount;
                round_bet[seat.index()] -= amount;
            }
            Event::Award { seat, amount, .. } => won[seat.index()] += amount,
            _ => {}
        }
    }
    for i in 0..n {
        fin[i] = fin[i] - put[i] + won[i];
    }
    out.finishing_stacks = Some(
        players
            .seat_of
            .iter()
            .map(|&s| fin[usize::from(s)])
            .collect(),
    );
    out.actions = actions;
    out.hand = rec.hand.map(HandId::Number);
    out.players = rec.names.map(|names| {
        players
            .seat_of
            .iter()
            .map(|&s| names[usize::from(s)].clone())
            .collect()
    });
    out.seats = Some(players.seat_of.iter().map(|&s| i64::from(s) + 1).collect());
    out
}

fn held_order(cards: pitboss_cards::CardSet) -> impl Iterator<Item = Card> {
    cards.iter()
}

/// A TOML string: single-quoted (literal) when possible, as PokerKit writes, else escaped.
fn quote(s: &str) -> String {
    if !s.contains('\'') && !s.chars().any(char::is_control) {
        return format!("'{s}'");
    }
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn ints<T: std::fmt::Display>(v: &[T]) -> String {
    let items: Vec<String> = v.iter().map(ToString::to_string).collect();
    format!("[{}]", items.join(", "))
}

/// The hand as PHH TOML text (the body of a `.phh` file, or of one `.phhs` table).
pub fn to_toml(h: &PhhHand) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "variant = {}", quote(&h.variant));
    let _ = writeln!(s, "ante_trimming_status = {}", h.ante_trimming_status);
    let _ = writeln!(s, "antes = {}", ints(&h.antes));
    if let Some(b) = &h.blinds_or_straddles {
        let _ = writeln!(s, "blinds_or_straddles = {}", ints(b));
    }
    for (name, v) in [
        ("bring_in", h.bring_in),
        ("small_bet", h.small_bet),
        ("big_bet", h.big_bet),
        ("min_bet", h.min_bet),
    ] {
        if let Some(v) = v {
            let _ = writeln!(s, "{name} = {v}");
        }
    }
    let _ = writeln!(s, "starting_stacks = {}", ints(&h.starting_stacks));
    s.push_str("actions = [\n");
    for a in &h.actions {
        let _ = writeln!(s, "  {},", quote(a));
    }
    s.push_str("]\n");
    match &h.hand {
        Some(HandId::Number(k)) => {
            let _ = writeln!(s, "hand = {k}");
        }
        Some(HandId::Text(t)) => {
            let _ = writeln!(s, "hand = {}", quote(t));
        }
        None => {}
    }
    if let Some(players) = &h.players {
        let items: Vec<String> = players.iter().map(|p| quote(p)).collect();
        let _ = writeln!(s, "players = [{}]", items.join(", "));
    }
    if let Some(seats) = &h.seats {
        let _ = writeln!(s, "seats = {}", ints(seats));
    }
    if let Some(f) = &h.finishing_stacks {
        let _ = writeln!(s, "finishing_stacks = {}", ints(f));
    }
    for (k, v) in &h.user {
        let _ = writeln!(s, "{k} = {v}");
    }
    s
}

/// Appends hands to a `.phhs` stream as tables `[1]`, `[2]`, ...; holds nothing but a counter, so
/// a match of any length streams through it.
pub struct PhhsWriter<W: io::Write> {
    out: W,
    written: u64,
}

impl<W: io::Write> PhhsWriter<W> {
    pub fn new(out: W) -> PhhsWriter<W> {
        PhhsWriter { out, written: 0 }
    }

    /// Writes the next hand as table `[k]` (k = hands written so far + 1).
    ///
    /// # Errors
    /// Any I/O error of the underlying writer.
    pub fn write_hand(&mut self, hand: &PhhHand) -> io::Result<()> {
        self.written += 1;
        write!(self.out, "[{}]\n{}\n", self.written, to_toml(hand))
    }

    /// Hands written so far.
    pub fn hands(&self) -> u64 {
        self.written
    }

    /// Flushes and returns the writer.
    ///
    /// # Errors
    /// Any I/O error while flushing.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}
