//! Stud dealing, the bring-in, and who acts first from fourth street on.

use pitboss_cards::Card;

use crate::event::Event;
use crate::seat::Seat;
use crate::source::{CardSource, Recipient};

use super::{DealError, Hand};

impl<S: CardSource> Hand<S> {
    /// Deals street `r` (0 = third street) to every player still in, from the first seat. On
    /// seventh street, a stub too short for everyone gives one face-up community card instead.
    pub(crate) fn deal_street(&mut self, r: u8) -> Result<(), DealError> {
        match r {
            0 => {
                for up in [false, false, true] {
                    for s in 0..self.n {
                        self.deal_stud(Seat(s), up)?;
                    }
                }
            }
            1..=3 => {
                for s in 0..self.n {
                    if !self.folded[usize::from(s)] {
                        self.deal_stud(Seat(s), true)?;
                    }
                }
            }
            _ => {
                let live = self.live().count() as u32;
                let short = self.unseen.len() < live;
                if short && self.source.physical_only() && self.source.seventh_street_hole_cards() {
                    self.notes.push(format!(
                        "seventh street: the stub has {} card(s) for {live} players; the hole \
                         cards were dealt anyway (the house deals one community card)",
                        self.unseen.len()
                    ));
                    for s in 0..self.n {
                        if !self.folded[usize::from(s)] {
                            self.deal_stud(Seat(s), false)?;
                        }
                    }
                } else if short {
                    let c = self.deal_to(Recipient::Board)?;
                    self.community = Some(c);
                    self.events.push(Event::Community { card: c });
                } else {
                    for s in 0..self.n {
                        if !self.folded[usize::from(s)] {
                            self.deal_stud(Seat(s), false)?;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn deal_stud(&mut self, s: Seat, up: bool) -> Result<(), DealError> {
        let c = self.deal_to(Recipient::Seat(s))?;
        if up {
            self.up[s.index()].push(c);
        } else {
            self.down[s.index()].push(c);
        }
        self.events.push(Event::Deal {
            seat: s,
            card: Some(c),
            up,
        });
        Ok(())
    }

    /// The lowest up card brings in (aces high, clubs < diamonds < hearts < spades: exactly the
    /// order of [`Card`]); a player all-in from the ante passes it to the next player with chips.
    pub(crate) fn bring_in_seat(&self) -> Option<Seat> {
        let lowest = self
            .seats()
            .min_by_key(|s| self.up[s.index()].as_slice()[0])
            .expect("a table has players");
        self.first_from(lowest, |s| self.can_act(s))
    }

    /// The player whose up cards make the best high hand (pairs, trips, quads, two pair and
    /// kickers; no straights or flushes), the lowest seat on equal boards.
    pub(crate) fn best_board_seat(&self) -> Seat {
        self.live()
            .max_by_key(|s| {
                (
                    exposed_value(self.up[s.index()].as_slice()),
                    std::cmp::Reverse(s.0),
                )
            })
            .expect("a live player")
    }
}

/// A comparable value of up to four exposed cards: category (high card < pair < two pair < trips
/// < quads), then the ranks by group size and rank.
pub(crate) fn exposed_value(cards: &[Card]) -> u32 {
    let mut counts = [0u8; 13];
    for c in cards {
        counts[c.rank().index() as usize] += 1;
    }
    let mut store = [(0u8, 0u8); 4];
    let mut len = 0;
    for (r, &k) in counts.iter().enumerate() {
        if k > 0 && len < 4 {
            store[len] = (k, r as u8);
            len += 1;
        }
    }
    let groups = &mut store[..len];
    groups.sort_unstable_by(|a, b| b.cmp(a));
    let category = match (groups.first().map(|g| g.0), groups.get(1).map(|g| g.0)) {
        (Some(4), _) => 5,
        (Some(3), _) => 4,
        (Some(2), Some(2)) => 3,
        (Some(2), _) => 2,
        _ => 1,
    };
    let mut v = category << 16;
    for (i, (_, r)) in groups.iter().enumerate() {
        v |= u32::from(*r) << (12 - 4 * i);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::exposed_value;
    use pitboss_cards::parse_cards;

    fn v(s: &str) -> u32 {
        exposed_value(&parse_cards(s).unwrap())
    }

    #[test]
    fn exposed_order() {
        assert!(v("2c 2d") > v("Ac Kd"));
        assert!(v("2c 2d 3h 3s") > v("Ac Ad Kh Qs"));
        assert!(v("2c 2d 2h 3s") > v("Ac Ad Kh Ks"));
        assert!(
            v("Ac Kd Qh Js") > v("Ac Kd Qh Ts"),
            "no straights, kickers count"
        );
        assert_eq!(v("Ac Kd"), v("As Kh"));
        assert!(v("9c 9d Kh") > v("9h 9s Qc"));
    }
}
