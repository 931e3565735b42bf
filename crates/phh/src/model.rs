//! One PHH hand as plain fields, the variant codes, and the mapping between PHH players and
//! Pitboss seats.
//!
//! PHH numbers players `p1..pN` in its own order. Triple draw: p1 is the first player left of the
//! button and pN is the button, also heads-up (where PokerKit reverses the blinds so that p2, the
//! button, posts the small blind). Stud: p1..pN are the seats in order. Pitboss seats are mapped to
//! that order when writing and back when reading (see `scripts/pokerkit/notes.md` §3).

use pitboss_rules::{Chips, Game, Stakes, Structure, TableOptions, Variant};

/// The six PHH variant codes Pitboss reads and writes. `F2L3D` and `F7S/8` are PHH's own; the
/// pot- and no-limit codes are Pitboss's, registered in PokerKit by `scripts/pokerkit/phhlib.py`.
pub const CODES: [(&str, Variant, Structure); 6] = [
    ("F2L3D", Variant::TripleDraw, Structure::FixedLimit),
    ("P2L3D", Variant::TripleDraw, Structure::PotLimit),
    ("N2L3D", Variant::TripleDraw, Structure::NoLimit),
    ("F7S/8", Variant::StudHiLo, Structure::FixedLimit),
    ("P7S/8", Variant::StudHiLo, Structure::PotLimit),
    ("N7S/8", Variant::StudHiLo, Structure::NoLimit),
];

/// The PHH code of a game.
pub fn code_of(variant: Variant, structure: Structure) -> &'static str {
    CODES
        .iter()
        .find(|(_, v, s)| *v == variant && *s == structure)
        .map(|(c, _, _)| *c)
        .expect("every variant and structure has a code")
}

/// The game a code names, if Pitboss knows it.
pub fn game_of(code: &str) -> Option<(Variant, Structure)> {
    CODES
        .iter()
        .find(|(c, _, _)| *c == code)
        .map(|(_, v, s)| (*v, *s))
}

/// The `hand` field: PHH allows an integer or a string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandId {
    Number(i64),
    Text(String),
}

impl std::fmt::Display for HandId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HandId::Number(n) => write!(f, "{n}"),
            HandId::Text(s) => f.write_str(s),
        }
    }
}

/// A PHH hand: the fields Pitboss writes and reads, in PHH player order.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PhhHand {
    pub variant: String,
    pub ante_trimming_status: bool,
    pub antes: Vec<Chips>,
    /// Triple draw: `[SB, BB, 0, ...]`.
    pub blinds_or_straddles: Option<Vec<Chips>>,
    /// Stud only.
    pub bring_in: Option<Chips>,
    /// Fixed-limit codes.
    pub small_bet: Option<Chips>,
    pub big_bet: Option<Chips>,
    /// Pot- and no-limit codes.
    pub min_bet: Option<Chips>,
    pub starting_stacks: Vec<Chips>,
    pub actions: Vec<String>,
    pub finishing_stacks: Option<Vec<Chips>>,
    pub players: Option<Vec<String>>,
    /// Pitboss seat numbers (1-based) of p1..pN.
    pub seats: Option<Vec<i64>>,
    pub hand: Option<HandId>,
    /// User-defined fields (keys starting with `_`), kept as TOML values in key order.
    pub user: Vec<(String, toml::Value)>,
}

impl PhhHand {
    /// A user field by name.
    pub fn user_field(&self, key: &str) -> Option<&toml::Value> {
        self.user.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

/// Builds the PHH betting fields of a game (everything but stacks and actions).
pub(crate) fn betting_fields(game: &Game, n: usize, hand: &mut PhhHand) {
    let s = &game.stakes;
    hand.variant = code_of(game.variant, game.structure).to_string();
    hand.ante_trimming_status = true;
    hand.antes = vec![s.ante; n];
    match game.variant {
        Variant::TripleDraw => {
            let mut b = vec![0; n];
            b[0] = s.small_blind;
            b[1] = s.big_blind;
            hand.blinds_or_straddles = Some(b);
        }
        Variant::StudHiLo => hand.bring_in = Some(s.bring_in),
    }
    if game.structure == Structure::FixedLimit {
        hand.small_bet = Some(s.small_bet);
        hand.big_bet = Some(s.big_bet);
    } else {
        hand.min_bet = Some(game.min_bet());
    }
}

/// Why a hand's fields do not describe a Pitboss game (the caller adds file and hand).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldProblem {
    pub field: &'static str,
    pub why: String,
}

fn problem(field: &'static str, why: impl Into<String>) -> FieldProblem {
    FieldProblem {
        field,
        why: why.into(),
    }
}

/// The Pitboss game a hand's fields describe.
pub(crate) fn game_from_fields(h: &PhhHand) -> Result<Game, FieldProblem> {
    let (variant, structure) = game_of(&h.variant).ok_or_else(|| {
        problem(
            "variant",
            format!(
                "unknown variant `{}` (Pitboss plays {})",
                h.variant,
                CODES.map(|c| c.0).join(", ")
            ),
        )
    })?;
    let n = h.starting_stacks.len();
    let ante = match h.antes.as_slice() {
        [] => 0,
        [a, rest @ ..] if rest.iter().all(|x| x == a) => *a,
        _ => {
            return Err(problem(
                "antes",
                "Pitboss games have one ante for everybody; these differ",
            ))
        }
    };
    if !h.antes.is_empty() && h.antes.len() != n {
        return Err(problem(
            "antes",
            format!("{} entries for {n} players", h.antes.len()),
        ));
    }
    let need = |v: Option<Chips>, f: &'static str| {
        v.ok_or_else(|| problem(f, format!("`{f}` is required for {}", h.variant)))
    };
    let mut stakes = Stakes {
        ante,
        ..Stakes::default()
    };
    match variant {
        Variant::TripleDraw => {
            let b = h
                .blinds_or_straddles
                .as_ref()
                .ok_or_else(|| problem("blinds_or_straddles", "required for triple draw"))?;
            if b.len() != n {
                return Err(problem(
                    "blinds_or_straddles",
                    format!("{} entries for {n} players", b.len()),
                ));
            }
            if b.iter().skip(2).any(|&x| x != 0) {
                return Err(problem(
                    "blinds_or_straddles",
                    "only a small and a big blind are supported: write [SB, BB, 0, ...]",
                ));
            }
            stakes.small_blind = b.first().copied().unwrap_or(0);
            stakes.big_blind = b.get(1).copied().unwrap_or(0);
        }
        Variant::StudHiLo => {
            if h.blinds_or_straddles
                .as_ref()
                .is_some_and(|b| b.iter().any(|&x| x != 0))
            {
                return Err(problem("blinds_or_straddles", "stud has no blinds"));
            }
            stakes.bring_in = need(h.bring_in, "bring_in")?;
        }
    }
    if structure == Structure::FixedLimit {
        stakes.small_bet = need(h.small_bet, "small_bet")?;
        stakes.big_bet = need(h.big_bet, "big_bet")?;
    } else {
        let m = need(h.min_bet, "min_bet")?;
        if variant == Variant::TripleDraw && m != stakes.big_blind {
            return Err(problem(
                "min_bet",
                format!(
                    "{m} differs from the big blind {}; Pitboss's minimum bet is the big blind",
                    stakes.big_blind
                ),
            ));
        }
        stakes.small_bet = m;
        stakes.big_bet = m.saturating_mul(2);
    }
    Ok(Game {
        variant,
        structure,
        stakes,
        options: TableOptions::default(),
    })
}

/// The mapping between PHH players (0-based index k = p(k+1)) and Pitboss seats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Players {
    /// `seat_of[k]`: the seat of player k.
    pub seat_of: Vec<u8>,
    /// Triple-draw button seat (stud: the last seat).
    pub button: usize,
}

impl Players {
    /// PHH order for a Pitboss table: triple draw starts left of the button; stud is seat order.
    pub fn for_table(variant: Variant, n: usize, button: usize) -> Players {
        let seat_of = match variant {
            Variant::TripleDraw => (0..n).map(|k| ((button + 1 + k) % n) as u8).collect(),
            Variant::StudHiLo => (0..n as u8).collect(),
        };
        let button = match variant {
            Variant::TripleDraw => button,
            Variant::StudHiLo => n - 1,
        };
        Players { seat_of, button }
    }

    /// The mapping a file implies: its `seats` field when it is Pitboss's own (a rotation of
    /// 1..=N in the variant's order), else p1..pN = seats 0..N-1 with the button on the last.
    pub fn from_file(variant: Variant, n: usize, seats: Option<&[i64]>) -> Players {
        if let Some(seats) = seats {
            if seats.len() == n && seats.iter().all(|&s| (1..=n as i64).contains(&s)) {
                let button = (seats[n - 1] - 1) as usize;
                let p = Players::for_table(variant, n, button);
                if p.seat_of
                    .iter()
                    .zip(seats)
                    .all(|(&a, &b)| i64::from(a) + 1 == b)
                {
                    return p;
                }
            }
        }
        Players::for_table(variant, n, n - 1)
    }

    /// The player index of a seat.
    pub fn player_of(&self, seat: u8) -> usize {
        self.seat_of
            .iter()
            .position(|&s| s == seat)
            .expect("every seat is a player")
    }
}
