//! The referee loop: one hand, from the deal to the last award. It is the only place where bots
//! meet the rules: each bot gets its seat's view (never the hand), its answer is checked by
//! `Hand::apply`, and a fault becomes an explicit penalty action (check if free, else fold) that is
//! recorded with its reason — nothing is silently repaired.

use pitboss_cards::Deck;
use pitboss_protocol::{self as wire, FaultKind};
use pitboss_rules::{Action, ApplyError, Hand, Legal, Seat, Table};

use crate::convert;
use crate::player::{Fault, Player};

/// A fault of one seat in one hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatFault {
    pub seat: Seat,
    pub kind: FaultKind,
    pub detail: String,
}

/// Reusable buffers for the messages of one table, so that a hand does not allocate after warm-up.
#[derive(Default)]
pub struct Referee {
    /// Boxed so that moving it in and out costs a pointer, not 1.5 KB.
    hand: Option<Box<Hand>>,
    /// The hand's full events on the wire, converted once; each seat gets a redacted copy.
    wire_events: Vec<wire::Event>,
    requests: Vec<wire::ActRequest>,
    starts: Vec<wire::HandStart>,
    ends: Vec<wire::HandEnd>,
    cursor: Vec<usize>,
    next_id: u64,
    /// Faults of the last hand.
    pub faults: Vec<SeatFault>,
}

/// The penalty for a fault: check if free, else fold (stud bring-in: post it; draw: stand pat).
fn penalty(legal: &Legal) -> Action {
    if legal.check {
        Action::Check
    } else if legal.fold {
        Action::Fold
    } else if legal.bring_in.is_some() {
        Action::BringIn
    } else if legal.discard.is_some() {
        Action::Discard {
            cards: Default::default(),
        }
    } else {
        Action::Call
    }
}

impl Referee {
    pub fn new() -> Referee {
        Referee::default()
    }

    /// Brings the wire copies of the hand's events up to date.
    fn sync_events(&mut self, hand: &Hand) {
        let from = self.wire_events.len();
        self.wire_events
            .extend(hand.events()[from..].iter().map(|e| convert::event(*e)));
    }

    /// Sets `out` to the events from `from` on as `seat` may see them.
    fn events_for(wire_events: &[wire::Event], from: usize, seat: u8, out: &mut Vec<wire::Event>) {
        out.clear();
        out.extend_from_slice(&wire_events[from..]);
        for e in out.iter_mut() {
            convert::redact_in_place(e, seat);
        }
    }

    /// Plays hand number `hand_no` at `table` with `players[seat]` in each seat, dealing from `deck`.
    /// The finished hand is then [`Referee::hand`] (its events and outcome are the record).
    pub fn play(
        &mut self,
        table: &Table,
        deck: Deck,
        hand_no: u64,
        players: &mut [Box<dyn Player>],
    ) {
        let n = table.seats();
        self.faults.clear();
        self.requests.resize_with(n, Default::default);
        self.starts.resize_with(n, Default::default);
        self.ends.resize_with(n, Default::default);
        self.cursor.clear();
        self.cursor.resize(n, 0);
        self.wire_events.clear();
        let mut hand = match self.hand.take() {
            Some(mut h) => {
                h.restart(table, deck).expect("a full deck always deals");
                h
            }
            None => Box::new(Hand::start(table, deck).expect("a full deck always deals")),
        };
        for (i, p) in players.iter_mut().enumerate() {
            let st = &mut self.starts[i];
            st.hand = hand_no;
            st.seat = i as u8;
            st.seats = n as u8;
            st.button = table.button().0;
            st.stacks.clear();
            st.stacks.extend((0..n).map(|s| table.stack(Seat(s as u8))));
            if let Err(f) = p.hand_start(st) {
                self.fault(Seat(i as u8), f);
            }
        }
        while let Some(legal) = hand.legal() {
            let s = legal.seat;
            let i = s.index();
            let player = &mut players[i];
            let answer = if player.forfeited() {
                Err(Fault::new(FaultKind::Forfeit, "forfeited the match"))
            } else {
                self.sync_events(&hand);
                let req = &mut self.requests[i];
                self.next_id += 1;
                req.id = self.next_id;
                req.hand = hand_no;
                Self::events_for(&self.wire_events, self.cursor[i], s.0, &mut req.events);
                self.cursor[i] = self.wire_events.len();
                convert::fill_view(&hand.view(s), &mut req.view);
                req.legal = convert::legal(&legal);
                player.act(req)
            };
            let action = match answer {
                Ok(a) => match convert::action(&a) {
                    Some(a) => a,
                    None => {
                        self.fault(
                            s,
                            Fault::new(FaultKind::Illegal, format!("{a:?}: a card listed twice")),
                        );
                        penalty(&legal)
                    }
                },
                Err(f) => {
                    self.fault(s, f);
                    penalty(&legal)
                }
            };
            match hand.apply(s, action) {
                Ok(_) => {}
                Err(ApplyError::Illegal(e)) => {
                    self.fault(s, Fault::new(FaultKind::Illegal, e.to_string()));
                    hand.apply(s, penalty(&legal))
                        .expect("the penalty action is always legal");
                }
                Err(ApplyError::Deal(e)) => unreachable!("a full deck always deals: {e}"),
            }
        }
        self.sync_events(&hand);
        for (i, p) in players.iter_mut().enumerate() {
            let s = Seat(i as u8);
            let end = &mut self.ends[i];
            end.hand = hand_no;
            Self::events_for(&self.wire_events, self.cursor[i], s.0, &mut end.events);
            end.net.clear();
            end.net.extend(hand.net().map(|(_, v)| v));
            if let Err(f) = p.hand_end(end) {
                self.faults.push(SeatFault {
                    seat: s,
                    kind: f.kind,
                    detail: f.detail,
                });
            }
        }
        self.hand = Some(hand);
    }

    /// The last hand played.
    ///
    /// # Panics
    /// Before the first [`Referee::play`].
    pub fn hand(&self) -> &Hand {
        self.hand.as_ref().expect("a hand was played")
    }

    fn fault(&mut self, seat: Seat, f: Fault) {
        tracing::debug!(%seat, kind = f.kind.name(), detail = %f.detail, "fault");
        self.faults.push(SeatFault {
            seat,
            kind: f.kind,
            detail: f.detail,
        });
    }
}
