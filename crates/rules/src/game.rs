//! Games: variant, betting structure, stakes and table options, with named presets.

use serde::{Deserialize, Serialize};

use crate::setup::SetupError;

/// Chips are integers; amounts never go through floats.
pub type Chips = u64;

/// The most seats any game has (stud uses an 8-seat table).
pub const MAX_SEATS: usize = 8;

/// The largest stack or stake accepted, so that no sum of a hand's chips can overflow.
pub const MAX_CHIPS: Chips = 1 << 48;

/// The most full bets and raises in one betting round, in every structure (the fixed-limit `cap`
/// option aside): after this many, players may only call, check or fold. With stacks up to
/// [`MAX_CHIPS`] and bets as small as one chip, two players raising the minimum forever would
/// otherwise play a hand that never ends; with it every hand ends within a few thousand actions
/// per player. No real game comes near it.
pub const MAX_BETS_PER_ROUND: u16 = 1000;

/// Which poker game is dealt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// Deuce-to-Seven Triple Draw: 2-6 players, blinds, four betting rounds, three draws.
    TripleDraw,
    /// Seven Card Stud Hi/Lo eight-or-better: 2-8 players, antes and bring-in, five streets.
    StudHiLo,
}

impl Variant {
    /// Players allowed at the table.
    pub const fn seats(self) -> std::ops::RangeInclusive<usize> {
        match self {
            Variant::TripleDraw => 2..=6,
            Variant::StudHiLo => 2..=8,
        }
    }

    /// Betting rounds in a hand (triple draw 4; stud 5: third to seventh street).
    pub const fn rounds(self) -> u8 {
        match self {
            Variant::TripleDraw => 4,
            Variant::StudHiLo => 5,
        }
    }

    /// The first round that uses the big bet in fixed limit.
    pub const fn big_bet_round(self) -> u8 {
        2
    }
}

/// How much a player may bet or raise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Structure {
    FixedLimit,
    PotLimit,
    NoLimit,
}

/// The forced bets and bet sizes of a game, in chips.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Stakes {
    /// Posted by everyone before the deal (triple draw: optional, default 0).
    pub ante: Chips,
    /// Triple draw only.
    pub small_blind: Chips,
    /// Triple draw only; it is the level to call before the first draw, even when posted short.
    pub big_blind: Chips,
    /// Stud only: the forced opening bet of the lowest up card.
    pub bring_in: Chips,
    /// The fixed-limit unit of the early rounds; the minimum opening bet of pot-/no-limit stud.
    pub small_bet: Chips,
    /// The fixed-limit unit of the later rounds.
    pub big_bet: Chips,
}

/// Who shows at showdown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Reveal {
    /// A player shows only when beating or tying the best hand shown so far (docs/RULES.md).
    #[default]
    Auto,
    /// Every hand still in is shown.
    All,
}

/// The table options of docs/RULES.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TableOptions {
    /// Fixed limit: bets and raises allowed per round, counting the opening bet (the big blind,
    /// or a stud completion). Default 4: one bet plus three raises. 0 = no cap.
    pub cap: u8,
    /// Fixed limit: lift the cap while exactly two players are left in the hand.
    pub heads_up_uncapped: bool,
    /// Deuce-to-seven: A-2-3-4-5 is a five-high straight instead of an ace-high hand.
    pub ace_five_straight: bool,
    /// Showdown revelation policy.
    pub reveal: Reveal,
}

impl Default for TableOptions {
    fn default() -> TableOptions {
        TableOptions {
            cap: 4,
            heads_up_uncapped: false,
            ace_five_straight: false,
            reveal: Reveal::Auto,
        }
    }
}

/// A complete game definition: what is dealt, how it is bet, at which stakes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Game {
    pub variant: Variant,
    pub structure: Structure,
    pub stakes: Stakes,
    #[serde(default)]
    pub options: TableOptions,
}

/// A named game with its default starting stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preset {
    pub name: &'static str,
    pub game: Game,
    /// Every seat's stack at the start of each hand unless overridden.
    pub stack: Chips,
}

const TD_STAKES: Stakes = Stakes {
    ante: 0,
    small_blind: 50,
    big_blind: 100,
    bring_in: 0,
    small_bet: 100,
    big_bet: 200,
};

const STUD_STAKES: Stakes = Stakes {
    ante: 40,
    small_blind: 0,
    big_blind: 0,
    bring_in: 50,
    small_bet: 200,
    big_bet: 400,
};

const fn preset(
    name: &'static str,
    variant: Variant,
    structure: Structure,
    stack: Chips,
) -> Preset {
    let stakes = match variant {
        Variant::TripleDraw => TD_STAKES,
        Variant::StudHiLo => STUD_STAKES,
    };
    Preset {
        name,
        game: Game {
            variant,
            structure,
            stakes,
            options: TableOptions {
                cap: 4,
                heads_up_uncapped: false,
                ace_five_straight: false,
                reveal: Reveal::Auto,
            },
        },
        stack,
    }
}

/// The named games. Triple draw: blinds 50/100, small bet 100, big bet 200 (the $1/$2 game in
/// cents); stud: ante 40, bring-in 50, small bet 200, big bet 400 (the $2/$4 game in cents).
/// Stacks: 100 big bets in fixed limit, 100 big blinds (stud: 100 small bets) otherwise.
pub const PRESETS: [Preset; 6] = [
    preset(
        "27td-fl",
        Variant::TripleDraw,
        Structure::FixedLimit,
        20_000,
    ),
    preset("27td-pl", Variant::TripleDraw, Structure::PotLimit, 10_000),
    preset("27td-nl", Variant::TripleDraw, Structure::NoLimit, 10_000),
    preset("stud8-fl", Variant::StudHiLo, Structure::FixedLimit, 40_000),
    preset("stud8-pl", Variant::StudHiLo, Structure::PotLimit, 20_000),
    preset("stud8-nl", Variant::StudHiLo, Structure::NoLimit, 20_000),
];

impl Preset {
    /// Looks a preset up by name.
    ///
    /// # Errors
    /// [`SetupError::UnknownPreset`] naming the known presets.
    pub fn by_name(name: &str) -> Result<Preset, SetupError> {
        PRESETS
            .iter()
            .find(|p| p.name == name)
            .copied()
            .ok_or_else(|| SetupError::UnknownPreset(name.to_string()))
    }
}

impl Game {
    /// The unit of `mbb/hand`: the big blind in blind games, the small bet in stud.
    pub const fn unit(&self) -> Chips {
        match self.variant {
            Variant::TripleDraw => self.stakes.big_blind,
            Variant::StudHiLo => self.stakes.small_bet,
        }
    }

    /// The fixed-limit bet of round `round` (0-based).
    pub const fn limit_bet(&self, round: u8) -> Chips {
        if round < self.variant.big_bet_round() {
            self.stakes.small_bet
        } else {
            self.stakes.big_bet
        }
    }

    /// The smallest full opening bet in pot- and no-limit: the big blind, or the small bet in stud.
    pub const fn min_bet(&self) -> Chips {
        match self.variant {
            Variant::TripleDraw => self.stakes.big_blind,
            Variant::StudHiLo => self.stakes.small_bet,
        }
    }

    /// Checks the stakes make sense for the variant and structure.
    ///
    /// # Errors
    /// A [`SetupError::Field`] naming the offending field.
    pub fn validate(&self) -> Result<(), SetupError> {
        let s = &self.stakes;
        let field = |name: &'static str, why: String| Err(SetupError::Field { field: name, why });
        for (name, v) in [
            ("ante", s.ante),
            ("small_blind", s.small_blind),
            ("big_blind", s.big_blind),
            ("bring_in", s.bring_in),
            ("small_bet", s.small_bet),
            ("big_bet", s.big_bet),
        ] {
            if v > MAX_CHIPS {
                return field(name, format!("{v} is larger than the maximum {MAX_CHIPS}"));
            }
        }
        match self.variant {
            Variant::TripleDraw => {
                if s.big_blind == 0 {
                    return field("big_blind", "must be positive".into());
                }
                if s.small_blind > s.big_blind {
                    return field(
                        "small_blind",
                        format!(
                            "{} is larger than the big blind {}",
                            s.small_blind, s.big_blind
                        ),
                    );
                }
                if s.bring_in != 0 {
                    return field("bring_in", "triple draw has no bring-in; use 0".into());
                }
            }
            Variant::StudHiLo => {
                if s.small_blind != 0 || s.big_blind != 0 {
                    return field(
                        if s.small_blind != 0 {
                            "small_blind"
                        } else {
                            "big_blind"
                        },
                        "stud has no blinds; use 0".into(),
                    );
                }
                if s.bring_in == 0 {
                    return field("bring_in", "must be positive".into());
                }
                if s.bring_in >= s.small_bet {
                    return field(
                        "bring_in",
                        format!(
                            "{} must be smaller than the small bet {}",
                            s.bring_in, s.small_bet
                        ),
                    );
                }
            }
        }
        if s.small_bet == 0 {
            return field("small_bet", "must be positive".into());
        }
        if self.structure == Structure::FixedLimit && s.small_bet > s.big_bet {
            return field(
                "small_bet",
                format!("{} is larger than the big bet {}", s.small_bet, s.big_bet),
            );
        }
        if s.big_bet == 0 {
            return field("big_bet", "must be positive".into());
        }
        if self.structure == Structure::FixedLimit && self.options.cap == 1 {
            return field(
                "cap",
                "a cap of 1 allows no raise at all; use 0 for no cap or 2 or more".into(),
            );
        }
        Ok(())
    }
}
