//! Cards travel as text: a card as `"Td"`, a set as `"2c 3d 4h"` (card order). JSON lines, TOML
//! hand histories and CSV all read the same way a person writes cards.
//!
//! The text is written from a small stack buffer rather than through `Display` (`collect_str`
//! goes through the formatting machinery, which showed in profiles of the bot protocol, where
//! every `deal` event carries a card); the bytes are the same.

use serde::de::{Deserialize, Deserializer, Error};
use serde::ser::{Serialize, Serializer};

use crate::{parse_cards, Card, CardSet, Rank, Suit};

const RANKS: &[u8; 13] = b"23456789TJQKA";
const SUITS: &[u8; 4] = b"cdhs";

/// The two characters of `c`, e.g. `Td`.
#[inline]
fn card_bytes(c: Card) -> [u8; 2] {
    [
        RANKS[c.rank().index() as usize],
        SUITS[c.suit().index() as usize],
    ]
}

/// A card from exactly two ASCII characters (the common case on the wire), else `None`.
#[inline]
fn card_from_bytes(b: &[u8]) -> Option<Card> {
    let [r, s] = *b else { return None };
    let r = Rank::from_char(char::from(r))?;
    let s = Suit::from_char(char::from(s))?;
    Some(Card::new(r, s))
}

impl Serialize for Card {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let b = card_bytes(*self);
        s.serialize_str(std::str::from_utf8(&b).expect("ASCII"))
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Card, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        match card_from_bytes(text.as_bytes()) {
            Some(c) => Ok(c),
            None => text.parse().map_err(D::Error::custom),
        }
    }
}

impl Serialize for CardSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // 52 cards of 2 characters and 51 spaces at most.
        let mut buf = [0u8; 155];
        let mut n = 0;
        for c in self.sorted() {
            if n > 0 {
                buf[n] = b' ';
                n += 1;
            }
            buf[n..n + 2].copy_from_slice(&card_bytes(c));
            n += 2;
        }
        s.serialize_str(std::str::from_utf8(&buf[..n]).expect("ASCII"))
    }
}

impl<'de> Deserialize<'de> for CardSet {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CardSet, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        // The common form, `2c 3d 4h`: cards separated by single spaces, no duplicates.
        let b = text.as_bytes();
        if b.len() % 3 == 2 {
            let mut set = CardSet::EMPTY;
            let mut ok = true;
            for chunk in b.chunks(3) {
                let c = card_from_bytes(&chunk[..2]);
                let sep = chunk.get(2).is_none_or(|&x| x == b' ');
                match c {
                    Some(c) if sep && !set.contains(c) => {
                        set.insert(c);
                    }
                    _ => {
                        ok = false;
                        break;
                    }
                }
            }
            if ok {
                return Ok(set);
            }
        }
        let cards = parse_cards(&text).map_err(D::Error::custom)?;
        Ok(cards.iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_text_is_the_display_text() {
        for c in Card::all() {
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(json, format!("\"{c}\""));
            assert_eq!(serde_json::from_str::<Card>(&json).unwrap(), c);
        }
        for text in ["", "2c", "7c Kd", "2s 4s 5h 6d 7c", "Ac Ad Ah As"] {
            let set: CardSet = parse_cards(text).unwrap().iter().collect();
            let json = serde_json::to_string(&set).unwrap();
            assert_eq!(json, format!("\"{set}\""));
            assert_eq!(serde_json::from_str::<CardSet>(&json).unwrap(), set);
        }
        let all: CardSet = Card::all().collect();
        assert_eq!(serde_json::to_string(&all).unwrap(), format!("\"{all}\""));
        // Other spellings still parse (lower case ranks, commas, no spaces); duplicates do not.
        let loose: CardSet = serde_json::from_str("\"kd,7C\"").unwrap();
        assert_eq!(loose, parse_cards("7c Kd").unwrap().iter().collect());
        assert!(serde_json::from_str::<CardSet>("\"7c 7c\"").is_err());
        assert!(serde_json::from_str::<Card>("\"7x\"").is_err());
    }
}
