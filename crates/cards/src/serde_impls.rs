//! Cards travel as text: a card as `"Td"`, a set as `"2c 3d 4h"` (card order). JSON lines, TOML
//! hand histories and CSV all read the same way a person writes cards.

use serde::de::{Deserialize, Deserializer, Error};
use serde::ser::{Serialize, Serializer};

use crate::{parse_cards, Card, CardSet};

impl Serialize for Card {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Card, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        text.parse().map_err(D::Error::custom)
    }
}

impl Serialize for CardSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for CardSet {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CardSet, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        let cards = parse_cards(&text).map_err(D::Error::custom)?;
        Ok(cards.iter().collect())
    }
}
