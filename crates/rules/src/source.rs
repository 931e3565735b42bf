//! Where cards come from: the seeded deck when playing, or cards dictated by a hand history when
//! replaying. Both go through the same legality checks in the engine (a dictated card must not be
//! live already, and a triple-draw replacement may not be one the drawer just threw).

use pitboss_cards::{Card, CardSet, Deck};

use crate::seat::Seat;

/// Who a card is dealt to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recipient {
    Seat(Seat),
    /// The stud community card.
    Board,
}

/// A supply of cards.
pub trait CardSource {
    /// The next card for `to`, or `None` when the source has none for it.
    fn deal(&mut self, to: Recipient) -> Option<Card>;
    /// The engine replaced the stub by `cards` (triple draw ran out of cards).
    fn reshuffle(&mut self, cards: CardSet);
    /// Whether any physically possible card may be dealt (no card live in two places), instead
    /// of only what the house convention allows. A replayed history from another dealer says
    /// yes: that dealer may have reshuffled a drawer's own discards back to them, or folded stud
    /// cards. The engine then records a note for each card the house would not have dealt.
    fn physical_only(&self) -> bool {
        false
    }
    /// Asked only when [`CardSource::physical_only`]: on a short seventh street, whether the
    /// source deals every player a hole card (its dealer reshuffled) rather than one community
    /// card (the house convention).
    fn seventh_street_hole_cards(&self) -> bool {
        false
    }
}

impl CardSource for Deck {
    #[inline]
    fn deal(&mut self, _to: Recipient) -> Option<Card> {
        Deck::deal(self)
    }

    fn reshuffle(&mut self, cards: CardSet) {
        Deck::reshuffle(self, cards)
    }
}

/// Cards dictated from outside (a hand history): a queue per seat and one for the board, served in
/// order. Reshuffles are ignored: the history already says which cards came out.
#[derive(Clone, Debug, Default)]
pub struct Dictated {
    seats: [Vec<Card>; crate::MAX_SEATS],
    next: [usize; crate::MAX_SEATS],
    board: Vec<Card>,
    next_board: usize,
}

impl Dictated {
    pub fn new() -> Dictated {
        Dictated::default()
    }

    /// Queues a card for a seat or the board.
    pub fn push(&mut self, to: Recipient, card: Card) {
        match to {
            Recipient::Seat(s) => self.seats[s.index()].push(card),
            Recipient::Board => self.board.push(card),
        }
    }

    /// Cards queued but never dealt (a history that deals more than the game uses).
    pub fn undealt(&self) -> usize {
        let seats: usize = (0..crate::MAX_SEATS)
            .map(|i| self.seats[i].len() - self.next[i])
            .sum();
        seats + self.board.len() - self.next_board
    }
}

impl CardSource for Dictated {
    fn deal(&mut self, to: Recipient) -> Option<Card> {
        match to {
            Recipient::Seat(s) => {
                let i = s.index();
                let c = self.seats[i].get(self.next[i]).copied()?;
                self.next[i] += 1;
                Some(c)
            }
            Recipient::Board => {
                let c = self.board.get(self.next_board).copied()?;
                self.next_board += 1;
                Some(c)
            }
        }
    }

    fn reshuffle(&mut self, _cards: CardSet) {}
}
