//! The reader: `.phh` (one hand) and `.phhs` (one TOML table per hand) text into [`PhhHand`]s,
//! and PHH action lines into a small typed form. Nothing here panics on bad input.

use pitboss_cards::Card;
use pitboss_rules::Chips;
use toml::Value;

use crate::error::{Location, PhhError};
use crate::model::{HandId, PhhHand};

/// A hand read from a file, with where it came from.
#[derive(Clone, Debug)]
pub struct ReadHand {
    pub at: Location,
    pub hand: PhhHand,
}

/// Reads a file from disk.
///
/// # Errors
/// [`PhhError::Io`], or any error of [`parse_str`].
pub fn read_file(path: &str) -> Result<Vec<ReadHand>, PhhError> {
    let io = |source| PhhError::Io {
        file: path.to_string(),
        source,
    };
    let text = if path.ends_with(".zst") {
        // `pitboss match --history --zstd` writes hands.phhs.zst: read it as it is.
        let bytes = zstd::decode_all(std::fs::File::open(path).map_err(io)?).map_err(io)?;
        String::from_utf8(bytes).map_err(|e| {
            io(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("not UTF-8 text after decompression: {e}"),
            ))
        })?
    } else {
        std::fs::read_to_string(path).map_err(io)?
    };
    parse_str(path, &text)
}

/// Parses PHH text: a single hand when the top level has `variant`, else every table is a hand
/// (`.phhs`), in file order.
///
/// # Errors
/// [`PhhError::Toml`] for invalid TOML, [`PhhError::NoHands`], [`PhhError::Field`] for a field of
/// the wrong type or missing.
pub fn parse_str(file: &str, text: &str) -> Result<Vec<ReadHand>, PhhError> {
    let doc: toml::Table = text.parse().map_err(|e| PhhError::Toml {
        file: file.to_string(),
        source: Box::new(e),
    })?;
    if doc.contains_key("variant") {
        let at = Location {
            file: file.to_string(),
            hand: None,
        };
        return Ok(vec![ReadHand {
            hand: hand_from_table(&at, &doc)?,
            at,
        }]);
    }
    // Tables come back in key order; hands numbered `[1]`, `[2]`, ... go in numeric order.
    let mut entries: Vec<(&String, &Value)> = doc.iter().collect();
    entries.sort_by_key(|(k, _)| (k.parse::<u64>().map_err(|_| ()), (*k).clone()));
    let mut hands = Vec::new();
    for (key, value) in entries {
        let at = Location {
            file: file.to_string(),
            hand: Some(key.clone()),
        };
        let Value::Table(t) = value else {
            return Err(PhhError::Field {
                at,
                field: key.clone(),
                why: "a .phhs file holds only tables, one per hand".into(),
            });
        };
        hands.push(ReadHand {
            hand: hand_from_table(&at, t)?,
            at,
        });
    }
    if hands.is_empty() {
        return Err(PhhError::NoHands {
            file: file.to_string(),
        });
    }
    Ok(hands)
}

fn field_err(at: &Location, field: &str, why: impl Into<String>) -> PhhError {
    PhhError::Field {
        at: at.clone(),
        field: field.to_string(),
        why: why.into(),
    }
}

fn chips(at: &Location, field: &str, v: &Value) -> Result<Chips, PhhError> {
    match v {
        Value::Integer(i) if *i >= 0 => Ok(*i as Chips),
        Value::Integer(i) => Err(field_err(at, field, format!("{i} is negative"))),
        other => Err(field_err(
            at,
            field,
            format!(
                "expected a whole number of chips, found {}",
                other.type_str()
            ),
        )),
    }
}

fn chip_list(at: &Location, field: &str, v: &Value) -> Result<Vec<Chips>, PhhError> {
    let Value::Array(items) = v else {
        return Err(field_err(
            at,
            field,
            format!("expected an array of integers, found {}", v.type_str()),
        ));
    };
    items.iter().map(|x| chips(at, field, x)).collect()
}

fn hand_from_table(at: &Location, t: &toml::Table) -> Result<PhhHand, PhhError> {
    let mut h = PhhHand::default();
    let get = |k: &str| t.get(k);
    h.variant = match get("variant") {
        Some(Value::String(s)) => s.clone(),
        Some(v) => {
            return Err(field_err(
                at,
                "variant",
                format!("expected a string, found {}", v.type_str()),
            ))
        }
        None => return Err(field_err(at, "variant", "missing")),
    };
    h.ante_trimming_status = match get("ante_trimming_status") {
        Some(Value::Boolean(b)) => *b,
        Some(v) => {
            return Err(field_err(
                at,
                "ante_trimming_status",
                format!("expected true or false, found {}", v.type_str()),
            ))
        }
        None => false,
    };
    h.antes = match get("antes") {
        Some(v) => chip_list(at, "antes", v)?,
        None => return Err(field_err(at, "antes", "missing")),
    };
    h.starting_stacks = match get("starting_stacks") {
        Some(v) => chip_list(at, "starting_stacks", v)?,
        None => return Err(field_err(at, "starting_stacks", "missing")),
    };
    if let Some(v) = get("blinds_or_straddles") {
        h.blinds_or_straddles = Some(chip_list(at, "blinds_or_straddles", v)?);
    }
    for (name, slot) in [
        ("bring_in", &mut h.bring_in),
        ("small_bet", &mut h.small_bet),
        ("big_bet", &mut h.big_bet),
        ("min_bet", &mut h.min_bet),
    ] {
        if let Some(v) = get(name) {
            *slot = Some(chips(at, name, v)?);
        }
    }
    h.actions = match get("actions") {
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, a)| match a {
                Value::String(s) => Ok(s.clone()),
                other => Err(field_err(
                    at,
                    "actions",
                    format!("item {} is {}, not a string", i + 1, other.type_str()),
                )),
            })
            .collect::<Result<_, _>>()?,
        Some(v) => {
            return Err(field_err(
                at,
                "actions",
                format!("expected an array of strings, found {}", v.type_str()),
            ))
        }
        None => return Err(field_err(at, "actions", "missing")),
    };
    if let Some(v) = get("finishing_stacks") {
        h.finishing_stacks = Some(chip_list(at, "finishing_stacks", v)?);
    }
    if let Some(v) = get("players") {
        let Value::Array(items) = v else {
            return Err(field_err(at, "players", "expected an array of strings"));
        };
        h.players = Some(
            items
                .iter()
                .map(|x| match x {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect(),
        );
    }
    if let Some(Value::Array(items)) = get("seats") {
        h.seats = items.iter().map(Value::as_integer).collect();
    }
    h.hand = match get("hand") {
        Some(Value::Integer(k)) => Some(HandId::Number(*k)),
        Some(Value::String(s)) => Some(HandId::Text(s.clone())),
        _ => None,
    };
    for (k, v) in t {
        if k.starts_with('_') {
            h.user.push((k.clone(), v.clone()));
        }
    }
    Ok(h)
}

/// A card in an action: a real card, or `??` (unknown).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    Known(Card),
    Unknown,
}

/// One line of `actions`, typed. Players are 0-based PHH indices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PhhAction {
    DealHole {
        player: usize,
        cards: Vec<Slot>,
    },
    DealBoard {
        cards: Vec<Slot>,
    },
    /// `sd` (empty = stand pat).
    Draw {
        player: usize,
        cards: Vec<Slot>,
    },
    BringIn {
        player: usize,
    },
    Fold {
        player: usize,
    },
    CheckCall {
        player: usize,
    },
    RaiseTo {
        player: usize,
        to: Chips,
    },
    /// `sm cards` (`Some`), `sm -` (show, cards not given: `Some(vec![])` is not used),
    /// `sm` (muck: `None`).
    Show {
        player: usize,
        cards: Option<Vec<Slot>>,
    },
    /// An empty action or a comment only.
    Nothing,
}

fn parse_player(word: &str, n: usize) -> Result<usize, String> {
    let k: usize = word
        .strip_prefix('p')
        .and_then(|d| d.parse().ok())
        .ok_or_else(|| format!("`{word}` is not a player (p1, p2, ...)"))?;
    if k == 0 || k > n {
        return Err(format!("there is no player {word} (the hand has {n})"));
    }
    Ok(k - 1)
}

fn parse_slots(text: &str) -> Result<Vec<Slot>, String> {
    let chars: Vec<char> = text.chars().collect();
    if !chars.len().is_multiple_of(2) {
        return Err(format!("`{text}` is not a list of two-character cards"));
    }
    let mut out = Vec::with_capacity(chars.len() / 2);
    for pair in chars.chunks(2) {
        let s: String = pair.iter().collect();
        if s == "??" {
            out.push(Slot::Unknown);
        } else {
            let c: Card = s
                .parse()
                .map_err(|_| format!("`{s}` is not a card (e.g. `Td`, or `??` for unknown)"))?;
            if out.contains(&Slot::Known(c)) {
                return Err(format!("card {c} appears twice"));
            }
            out.push(Slot::Known(c));
        }
    }
    Ok(out)
}

/// Parses one action line for a hand of `n` players.
///
/// # Errors
/// A message saying what is wrong (the caller adds the location and index).
pub fn parse_action(text: &str, n: usize) -> Result<PhhAction, String> {
    let body = text.split('#').next().unwrap_or("");
    let words: Vec<&str> = body.split_whitespace().collect();
    Ok(match words.as_slice() {
        [] => PhhAction::Nothing,
        ["d", "dh", p, cards] => PhhAction::DealHole {
            player: parse_player(p, n)?,
            cards: parse_slots(cards)?,
        },
        ["d", "db", cards] => PhhAction::DealBoard {
            cards: parse_slots(cards)?,
        },
        [p, "sd"] => PhhAction::Draw {
            player: parse_player(p, n)?,
            cards: Vec::new(),
        },
        [p, "sd", cards] => PhhAction::Draw {
            player: parse_player(p, n)?,
            cards: parse_slots(cards)?,
        },
        [p, "pb"] => PhhAction::BringIn {
            player: parse_player(p, n)?,
        },
        [p, "f"] => PhhAction::Fold {
            player: parse_player(p, n)?,
        },
        [p, "cc"] => PhhAction::CheckCall {
            player: parse_player(p, n)?,
        },
        [p, "cbr", amount] => PhhAction::RaiseTo {
            player: parse_player(p, n)?,
            to: amount
                .parse()
                .map_err(|_| format!("`{amount}` is not a whole number of chips"))?,
        },
        [p, "sm"] => PhhAction::Show {
            player: parse_player(p, n)?,
            cards: None,
        },
        [p, "sm", "-"] => PhhAction::Show {
            player: parse_player(p, n)?,
            cards: Some(Vec::new()),
        },
        [p, "sm", cards] => PhhAction::Show {
            player: parse_player(p, n)?,
            cards: Some(parse_slots(cards)?),
        },
        _ => {
            return Err(
                "not a PHH action Pitboss understands (d dh, d db, sd, pb, f, cc, cbr, sm)".into(),
            )
        }
    })
}
