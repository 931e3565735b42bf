//! Dealing: the forced bets of the first step, a street's deal, a player's draw.

use pitboss_cards::{Card, CardSet};
use pitboss_rules::{Blind, Chips, Event, Seat, Variant};

use super::{Builder, STUD_STREETS};

/// The replacement cards of the discard at `i`: the next `count` deals to `seat` in the same draw,
/// and the reshuffle that happened while they were dealt, if one did (both marked used, so that
/// they show in the discard's step: the viewer serves each player in one step).
pub(super) fn replacements(
    ev: &[Event],
    used: &mut [bool],
    i: usize,
    seat: Seat,
    count: u8,
) -> (Vec<(Option<Card>, bool)>, Option<u8>) {
    let mut new = Vec::new();
    let mut reshuffle = None;
    for (j, e) in ev.iter().enumerate().skip(i + 1) {
        if new.len() == usize::from(count) {
            break;
        }
        match *e {
            Event::Deal { seat: s, card, up } if s == seat && !used[j] => {
                used[j] = true;
                new.push((card, up));
            }
            Event::Reshuffle { cards } if !used[j] => reshuffle = Some((j, cards)),
            Event::Round { .. } | Event::Show { .. } | Event::Muck { .. } | Event::Award { .. } => {
                break
            }
            _ => {}
        }
    }
    // A reshuffle before this player's last replacement card happened during its serving.
    let shuffled = reshuffle
        .filter(|_| new.len() == usize::from(count))
        .map(|(j, cards)| {
            used[j] = true;
            cards
        });
    (new, shuffled)
}

impl Builder<'_> {
    /// The first step: every ante and every blind posted before the first action (the engine
    /// posts triple draw's blinds after the deal; at a table they are posted before it).
    pub(super) fn forced_bets(&mut self, used: &mut [bool]) {
        let mut parts = Vec::new();
        let mut antes: Vec<(Seat, Chips)> = Vec::new();
        let mut blinds = false;
        for (i, e) in self.r.events.iter().enumerate() {
            match *e {
                Event::Ante {
                    seat,
                    amount,
                    all_in,
                } => {
                    self.put(seat, amount, false, all_in);
                    antes.push((seat, amount));
                    used[i] = true;
                }
                Event::Blind {
                    seat,
                    blind,
                    amount,
                    all_in,
                } => {
                    self.put(seat, amount, true, all_in);
                    let which = match blind {
                        Blind::Small => "small",
                        Blind::Big => "big",
                    };
                    let allin = if all_in { ", all-in" } else { "" };
                    parts.push(format!(
                        "{} posts the {which} blind {amount}{allin}",
                        self.who(seat)
                    ));
                    blinds = true;
                    used[i] = true;
                }
                Event::Deal { .. } | Event::Round { .. } => {}
                _ => break,
            }
        }
        if antes.is_empty() && !blinds {
            return;
        }
        if let Some(&(_, a)) = antes.first() {
            let line = if antes.iter().all(|&(_, x)| x == a) {
                format!("everyone antes {a}")
            } else {
                antes
                    .iter()
                    .map(|&(s, x)| format!("{} antes {x}", self.who(s)))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            parts.insert(0, line);
        }
        self.street = if blinds { "blinds" } else { "antes" }.into();
        self.push(parts.join("; "), None);
    }

    /// A betting round is over (cards come, or the showdown): its bets are now just the pot.
    pub(super) fn end_betting(&mut self) {
        self.seats.iter_mut().for_each(|s| s.bet = 0);
    }

    pub(super) fn deal(&mut self, group: &[Event]) {
        if self.rounds > 0 {
            self.end_betting();
        }
        self.street = match self.game.variant {
            Variant::StudHiLo => {
                format!("{} street", STUD_STREETS[usize::from(self.rounds.min(4))])
            }
            Variant::TripleDraw if self.rounds == 0 => "deal".into(),
            Variant::TripleDraw => format!("draw {}", self.rounds),
        };
        let mut ups = Vec::new();
        let (mut down, mut up) = (0usize, 0usize);
        let mut to = 0u32; // the seats dealt to, one bit each
        for e in group {
            if let Event::Deal { seat, card, up: u } = *e {
                if let Some(c) = card {
                    self.seats[seat.index()].cards.push((c, u));
                    self.fresh.insert(c);
                    if u {
                        ups.push(format!("{} {c}", self.who(seat)));
                    }
                }
                to |= 1 << (seat.0 & 31);
                if u {
                    up += 1;
                } else {
                    down += 1;
                }
            }
        }
        let each = (to.count_ones() as usize).max(1);
        let street = &self.street;
        let text = match (self.game.variant, down, up) {
            (Variant::TripleDraw, _, _) => {
                format!("{} cards to each player, face down", down / each)
            }
            (_, _, 0) => format!("{street} is dealt face down"),
            (_, 0, _) => format!("{street} is dealt face up: {}", ups.join(", ")),
            _ => format!(
                "{street} is dealt, {} down and {} up each: {}",
                down / each,
                up / each,
                ups.join(", ")
            ),
        };
        self.push(text, None);
    }

    pub(super) fn draw(
        &mut self,
        seat: Seat,
        draw: u8,
        count: u8,
        thrown: Option<CardSet>,
        new: &[(Option<Card>, bool)],
        shuffled: Option<u8>,
    ) {
        self.street = format!("draw {draw}");
        self.end_betting();
        let sees = self.audience.sees(seat.index(), false, false);
        let s = &mut self.seats[seat.index()];
        if let Some(t) = thrown {
            s.cards.retain(|(c, _)| !t.contains(*c));
        }
        s.discards
            .push((draw, count, thrown.map(|t| t.iter().collect::<Vec<_>>())));
        for &(c, up) in new {
            if let Some(c) = c {
                s.cards.push((c, up));
                self.fresh.insert(c);
            }
        }
        let list = |cs: &mut dyn Iterator<Item = Card>| {
            cs.map(|c| c.to_string()).collect::<Vec<_>>().join(" ")
        };
        let who = self.who(seat);
        let text = match (count, thrown) {
            (0, _) => format!("{who} stands pat"),
            (k, Some(t)) if sees => format!(
                "{who} discards {k} ({}), draws {} ({})",
                list(&mut t.iter()),
                new.len(),
                list(&mut new.iter().filter_map(|x| x.0))
            ),
            (k, _) => format!("{who} discards {k}, draws {}", new.len()),
        };
        let text = match shuffled {
            Some(k) => {
                format!("{text} (the stub ran out: {k} mucked cards were shuffled into a new stub)")
            }
            None => text,
        };
        self.push(text, Some(seat));
    }
}
