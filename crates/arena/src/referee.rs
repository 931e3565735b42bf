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

impl SeatFault {
    /// The line a report shows for this fault in hand `hand` (0-based; shown 1-based, as are
    /// seats): `hand 812, seat 2: illegal: ...`. One format for a match's log and a tournament's
    /// unit files alike.
    pub fn note(&self, hand: u64) -> String {
        format!(
            "hand {}, seat {}: {}: {}",
            hand + 1,
            self.seat.index() + 1,
            self.kind.name(),
            self.detail
        )
    }
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
    hand_no: u64,
    /// The decision waiting for an answer.
    legal: Option<Legal>,
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
        self.begin(table, deck, hand_no, players);
        while let Some(i) = self.step(players) {
            let answer = players[i].act(&self.requests[i]);
            self.answer(i, answer);
        }
    }

    /// Starts hand number `hand_no` (the players get `hand_start`); then [`Referee::step`] until
    /// it returns `None`.
    pub fn begin(
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
        self.hand_no = hand_no;
        let hand = match self.hand.take() {
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
        self.hand = Some(hand);
        self.legal = None;
    }

    /// Plays on until a decision is needed: returns the seat whose request
    /// ([`Referee::request`]) awaits an [`Referee::answer`], or `None` when the hand is over (the
    /// players have had `hand_end`). Players that are [`Player::deferred`] are asked by the
    /// caller; the others are asked here.
    pub fn step(&mut self, players: &mut [Box<dyn Player>]) -> Option<usize> {
        loop {
            let hand = self.hand.as_deref().expect("begin was called");
            let Some(legal) = hand.legal() else {
                self.end(players);
                return None;
            };
            let s = legal.seat;
            let i = s.index();
            self.legal = Some(legal);
            let player = &mut players[i];
            if player.forfeited() {
                self.answer(
                    i,
                    Err(Fault::new(FaultKind::Forfeit, "forfeited the match")),
                );
                continue;
            }
            let hand = self.hand.as_deref().expect("begin was called");
            let from = self.wire_events.len();
            self.wire_events
                .extend(hand.events()[from..].iter().map(|e| convert::event(*e)));
            let req = &mut self.requests[i];
            self.next_id += 1;
            req.id = self.next_id;
            req.hand = self.hand_no;
            Self::events_for(&self.wire_events, self.cursor[i], s.0, &mut req.events);
            self.cursor[i] = self.wire_events.len();
            if player.needs_view() {
                convert::fill_view(&hand.view(s), &mut req.view);
            }
            req.legal = convert::legal(&legal);
            if player.deferred() {
                return Some(i);
            }
            let answer = player.act(req);
            self.answer(i, answer);
        }
    }

    /// The request waiting for seat `i`'s answer (after [`Referee::step`] returned `Some(i)`).
    pub fn request(&self, i: usize) -> &wire::ActRequest {
        &self.requests[i]
    }

    /// Applies seat `i`'s answer to the pending decision (a fault becomes the penalty).
    pub fn answer(&mut self, i: usize, answer: Result<wire::Action, Fault>) {
        let legal = self.legal.take().expect("a decision is pending");
        let s = legal.seat;
        debug_assert_eq!(s.index(), i);
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
        let hand = self.hand.as_deref_mut().expect("begin was called");
        match hand.apply(s, action) {
            Ok(_) => {}
            Err(ApplyError::Illegal(e)) => {
                let f = Fault::new(FaultKind::Illegal, e.to_string());
                hand.apply(s, penalty(&legal))
                    .expect("the penalty action is always legal");
                self.fault(s, f);
            }
            Err(ApplyError::Deal(e)) => unreachable!("a full deck always deals: {e}"),
        }
    }

    fn end(&mut self, players: &mut [Box<dyn Player>]) {
        let hand = self.hand.as_deref().expect("begin was called");
        let from = self.wire_events.len();
        self.wire_events
            .extend(hand.events()[from..].iter().map(|e| convert::event(*e)));
        for (i, p) in players.iter_mut().enumerate() {
            let s = Seat(i as u8);
            let end = &mut self.ends[i];
            end.hand = self.hand_no;
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
