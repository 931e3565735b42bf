//! Ranks, suits and cards, with the two-character text form used everywhere (`Td`, `As`).

use std::fmt;
use std::str::FromStr;

use crate::CardError;

/// A card rank, deuce lowest and ace highest (`Rank::Ace` is also low where a rule says so).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Rank {
    Two = 0,
    Three,
    Four,
    Five,
    Six,
    Seven,
    Eight,
    Nine,
    Ten,
    Jack,
    Queen,
    King,
    Ace,
}

impl Rank {
    /// All ranks, deuce first.
    pub const ALL: [Rank; 13] = [
        Rank::Two,
        Rank::Three,
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
        Rank::Ace,
    ];

    /// The rank with index `i` (0 = deuce, 12 = ace).
    ///
    /// # Panics
    /// If `i > 12`.
    #[inline]
    pub const fn from_index(i: u8) -> Rank {
        Rank::ALL[i as usize]
    }

    /// 0 for a deuce up to 12 for an ace.
    #[inline]
    pub const fn index(self) -> u8 {
        self as u8
    }

    /// The rank's character: `2`..`9`, `T`, `J`, `Q`, `K`, `A`.
    pub const fn to_char(self) -> char {
        b"23456789TJQKA"[self as usize] as char
    }

    /// Parses a rank character (case-insensitive for letters).
    pub fn from_char(c: char) -> Option<Rank> {
        let i = "23456789TJQKA".find(c.to_ascii_uppercase())?;
        Some(Rank::from_index(i as u8))
    }
}

/// A suit. The derived order is the bring-in order of stud: clubs < diamonds < hearts < spades.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Suit {
    Clubs = 0,
    Diamonds,
    Hearts,
    Spades,
}

impl Suit {
    /// All suits, clubs first.
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    /// The suit with index `i` (0 = clubs, 3 = spades).
    ///
    /// # Panics
    /// If `i > 3`.
    #[inline]
    pub const fn from_index(i: u8) -> Suit {
        Suit::ALL[i as usize]
    }

    /// 0 for clubs up to 3 for spades.
    #[inline]
    pub const fn index(self) -> u8 {
        self as u8
    }

    /// `c`, `d`, `h` or `s`.
    pub const fn to_char(self) -> char {
        b"cdhs"[self as usize] as char
    }

    /// Parses a suit character (case-insensitive).
    pub fn from_char(c: char) -> Option<Suit> {
        let i = "cdhs".find(c.to_ascii_lowercase())?;
        Some(Suit::from_index(i as u8))
    }
}

/// One of the 52 cards, stored as `rank * 4 + suit` so that the derived order sorts by rank, then suit
/// (which is exactly the stud bring-in and odd-chip order: ace high, then clubs < ... < spades).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card(u8);

impl Card {
    /// Builds a card from its rank and suit.
    #[inline]
    pub const fn new(rank: Rank, suit: Suit) -> Card {
        Card(rank as u8 * 4 + suit as u8)
    }

    /// The card with index `i` in `0..52` (`rank * 4 + suit`).
    ///
    /// # Panics
    /// If `i >= 52`.
    #[inline]
    pub const fn from_index(i: u8) -> Card {
        assert!(i < 52, "card index out of range");
        Card(i)
    }

    /// `rank * 4 + suit`, in `0..52`.
    #[inline]
    pub const fn index(self) -> u8 {
        self.0
    }

    #[inline]
    pub const fn rank(self) -> Rank {
        Rank::from_index(self.0 >> 2)
    }

    #[inline]
    pub const fn suit(self) -> Suit {
        Suit::from_index(self.0 & 3)
    }

    /// Every card of the deck in index order (2c 2d 2h 2s 3c ... As).
    pub fn all() -> impl Iterator<Item = Card> {
        (0..52).map(Card)
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank().to_char(), self.suit().to_char())
    }
}

impl FromStr for Card {
    type Err = CardError;

    fn from_str(s: &str) -> Result<Card, CardError> {
        let mut chars = s.chars();
        let (Some(r), Some(su), None) = (chars.next(), chars.next(), chars.next()) else {
            return Err(CardError::UnknownCard(s.to_string()));
        };
        match (Rank::from_char(r), Suit::from_char(su)) {
            (Some(rank), Some(suit)) => Ok(Card::new(rank, suit)),
            _ => Err(CardError::UnknownCard(s.to_string())),
        }
    }
}

/// Parses a holding written with or without spaces (`2c3d4h5s7c`, `2c 3d 4h 5s 7c`), keeping the
/// order given and rejecting duplicates.
///
/// # Errors
/// [`CardError::UnknownCard`] for text that is not a card, [`CardError::DuplicateCard`] when a card
/// appears twice.
pub fn parse_cards(text: &str) -> Result<Vec<Card>, CardError> {
    let compact: Vec<char> = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != ',')
        .collect();
    let mut cards = Vec::with_capacity(compact.len() / 2);
    let mut seen = crate::CardSet::EMPTY;
    for chunk in compact.chunks(2) {
        let s: String = chunk.iter().collect();
        let card: Card = s.parse()?;
        if seen.contains(card) {
            return Err(CardError::DuplicateCard(card));
        }
        seen.insert(card);
        cards.push(card);
    }
    Ok(cards)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_card() {
        for c in Card::all() {
            assert_eq!(c.to_string().parse::<Card>().unwrap(), c);
        }
        assert_eq!(Card::all().count(), 52);
    }

    #[test]
    fn parses_holdings_with_and_without_spaces() {
        let a = parse_cards("2c3d4h5s7c").unwrap();
        let b = parse_cards("2c 3d 4h 5s 7c").unwrap();
        assert_eq!(a, b);
        assert_eq!(a[4], Card::new(Rank::Seven, Suit::Clubs));
    }

    #[test]
    fn rejects_bad_cards() {
        assert_eq!(
            parse_cards("2c 1d").unwrap_err(),
            CardError::UnknownCard("1d".into())
        );
        assert_eq!(
            parse_cards("2c2c").unwrap_err(),
            CardError::DuplicateCard("2c".parse().unwrap())
        );
        assert!(parse_cards("2c3").is_err());
    }

    #[test]
    fn card_order_is_rank_then_suit() {
        let c = |s: &str| s.parse::<Card>().unwrap();
        assert!(c("2d") < c("2h"));
        assert!(c("2s") < c("3c"));
        assert!(c("Kc") < c("Ac"));
    }
}
