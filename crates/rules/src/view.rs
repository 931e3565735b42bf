//! A seat's view: the information set of one player and the only path from a hand to a bot.
//!
//! `View` borrows the hand but exposes only what docs/RULES.md lets that seat see: its own cards, every
//! up card, public actions and amounts (as redacted events), stacks, bets, pots, draw counts and
//! cards shown at showdown. It never hands out the hand itself, another player's down cards or
//! discards, the stub, the muck or the source.

use pitboss_cards::{Card, CardSet};

use crate::action::Legal;
use crate::event::Event;
use crate::game::{Chips, Game};
use crate::hand::{Hand, Phase};
use crate::seat::Seat;
use crate::source::CardSource;

/// What `seat` may know about a hand.
#[derive(Clone, Copy)]
pub struct View<'a, S: CardSource> {
    hand: &'a Hand<S>,
    seat: Seat,
}

impl<S: CardSource> Hand<S> {
    /// The information set of `seat`.
    pub fn view(&self, seat: Seat) -> View<'_, S> {
        View { hand: self, seat }
    }
}

impl<'a, S: CardSource> View<'a, S> {
    pub fn seat(&self) -> Seat {
        self.seat
    }

    pub fn game(&self) -> &Game {
        &self.hand.game
    }

    pub fn seat_count(&self) -> usize {
        self.hand.seat_count()
    }

    pub fn button(&self) -> Seat {
        self.hand.button
    }

    pub fn phase(&self) -> Phase {
        self.hand.phase
    }

    pub fn round(&self) -> u8 {
        self.hand.round
    }

    pub fn to_act(&self) -> Option<Seat> {
        self.hand.to_act
    }

    /// The legal actions, when it is this seat's turn.
    pub fn legal(&self) -> Option<Legal> {
        self.hand.legal().filter(|l| l.seat == self.seat)
    }

    /// This seat's face-down cards, in the order held.
    pub fn own_down_cards(&self) -> &'a [Card] {
        self.hand.down[self.seat.index()].as_slice()
    }

    /// A seat's face-up cards (stud), visible to all.
    pub fn up_cards(&self, seat: Seat) -> &'a [Card] {
        self.hand.up[seat.index()].as_slice()
    }

    /// Every card this seat plays with: its own cards and the community card.
    pub fn own_cards(&self) -> CardSet {
        let h = self.hand;
        let i = self.seat.index();
        let mut set = h.down[i].set().union(h.up[i].set());
        if let Some(c) = h.community {
            set.insert(c);
        }
        set
    }

    pub fn community(&self) -> Option<Card> {
        self.hand.community
    }

    pub fn stack(&self, seat: Seat) -> Chips {
        self.hand.stack[seat.index()]
    }

    pub fn starting_stack(&self, seat: Seat) -> Chips {
        self.hand.start[seat.index()]
    }

    /// Chips put in this round.
    pub fn bet(&self, seat: Seat) -> Chips {
        self.hand.bet[seat.index()]
    }

    /// Chips put in this hand.
    pub fn contributed(&self, seat: Seat) -> Chips {
        self.hand.total[seat.index()]
    }

    /// Everything in the middle, bets of this round included.
    pub fn pot(&self) -> Chips {
        self.hand.total.iter().sum()
    }

    pub fn folded(&self, seat: Seat) -> bool {
        self.hand.folded[seat.index()]
    }

    /// How many cards a seat drew in each draw so far (triple draw).
    pub fn draw_counts(&self, seat: Seat) -> &'a [u8] {
        let done = match self.hand.phase {
            Phase::Draw(k) => usize::from(k),
            _ if self.hand.game.variant == crate::Variant::TripleDraw => {
                usize::from(self.hand.round).min(3)
            }
            _ => 0,
        };
        &self.hand.draws[seat.index()][..done]
    }

    /// The cards a seat showed at showdown, if it did.
    pub fn shown(&self, seat: Seat) -> Option<CardSet> {
        let h = self.hand;
        h.shown[seat.index()].then(|| h.down[seat.index()].set().union(h.up[seat.index()].set()))
    }

    /// The hand's events as this seat may see them.
    pub fn events(&self) -> impl Iterator<Item = Event> + 'a {
        let seat = self.seat;
        self.hand.events.iter().map(move |e| e.redacted_for(seat))
    }

    /// Every card this view exposes, by any accessor (used by tests that no hidden card leaks).
    pub fn visible_cards(&self) -> CardSet {
        let mut set = self.own_cards();
        for s in (0..self.hand.n).map(Seat) {
            set = set.union(self.up_cards(s).iter().collect());
            if let Some(c) = self.shown(s) {
                set = set.union(c);
            }
        }
        for e in self.events() {
            match e {
                Event::Deal { card: Some(c), .. } | Event::Community { card: c } => {
                    set.insert(c);
                }
                Event::Discard { cards: Some(c), .. } | Event::Show { cards: c, .. } => {
                    set = set.union(c);
                }
                _ => {}
            }
        }
        set
    }
}
