//! The built-in reference bots of Pitboss, the yardsticks every submitted bot is compared with.
//!
//! Each is a [`Bot`] built from a seed (chosen per table and seat by the referee) and is
//! deterministic given that seed and the messages it receives. `random`, `call` and `raise` play
//! both games blindly; `lowball` knows deuce-to-seven triple draw and `hilo` knows seven card stud
//! hi/lo, and each plays the other game by a short rule of thumb; `equity` and `adaptive` play
//! both games from the equity engine `pitboss-equity`; `cfr` (also called `best`) plays heads-up
//! fixed-limit triple draw from a strategy solved by Monte Carlo CFR (`pitboss-cfr`) and the rest
//! like `adaptive`. `bots/README.md` describes them for users.
//!
//! The crate also holds the exploiters (`x-…`, [`EXPLOITERS`]): one style each pushed to its
//! extreme, to measure a house bot's worst case (`scripts/exploitability.sh`). [`builtin`] builds
//! them, but they are not reference bots, so they are not in [`NAMES`].

mod adaptive;
mod call;
mod cfr;
mod drawmemo;
mod eqcore;
mod equity;
mod exploit;
mod hilo;
mod lowball;
mod offgame;
mod raise;
mod random;
mod util;

pub use adaptive::AdaptiveBot;
pub use call::CallBot;
pub use cfr::{CfrBot, LbrBot};
pub use equity::EquityBot;
pub use exploit::{
    EarlyBot, FoldBot, ManiacBot, RaiseFirstBot, SizeBot, Sizing, SwitchBot, SWITCH_AFTER,
};
pub use hilo::HiloBot;
pub use lowball::LowballBot;
pub use pitboss_protocol::Bot;
pub use raise::RaiseBot;
pub use random::RandomBot;

/// The names [`builtin`] knows, in the order the README describes them.
pub const NAMES: &[&str] = &[
    "random", "call", "raise", "lowball", "hilo", "equity", "adaptive", "cfr",
];

/// The strongest built-in bot, which [`builtin`] also builds under the name `best`: a
/// leaderboard or a script that wants the house's best need not know what it is called.
pub const BEST: &str = "cfr";

/// The exploiters [`builtin`] also knows, in the order the README describes them: one style each,
/// pushed to its extreme, to measure a house bot's worst case. Not reference bots, so not in
/// [`NAMES`] (the ladder, `pitboss run` and `submit` take their yardsticks from that list); `call`
/// and `raise` complete the family (see `scripts/exploitability.sh`).
pub const EXPLOITERS: &[&str] = &[
    "x-raise",
    "x-raise1st",
    "x-fold",
    "x-early1",
    "x-early2",
    "x-early3",
    "x-open1",
    "x-open2",
    "x-switch",
    "x-small",
    "x-mid",
    "x-big",
];

/// The rounds of `lbr-R…` (digits 0 to 4, each at most once, in order: `lbr-3`, `lbr-23`; 4,
/// seventh street, is stud's alone).
fn lbr_rounds(digits: &str) -> Option<u8> {
    let mut mask = 0u8;
    let mut last = None;
    for c in digits.chars() {
        let r = c.to_digit(10).filter(|&r| r < 5)? as u8;
        if last.is_some_and(|l| l >= r) {
            return None;
        }
        last = Some(r);
        mask |= 1 << r;
    }
    (mask != 0).then_some(mask)
}

/// The built-in bot (reference or exploiter) called `name`, seeded with `seed`; `None` for an
/// unknown name. `best` is [`BEST`].
pub fn builtin(name: &str, seed: u64) -> Option<Box<dyn Bot>> {
    Some(match name {
        "random" => Box::new(RandomBot::new(seed)),
        "call" => Box::new(CallBot::new(seed)),
        "raise" => Box::new(RaiseBot::new(seed)),
        "lowball" => Box::new(LowballBot::new(seed)),
        "hilo" => Box::new(HiloBot::new(seed)),
        "equity" => Box::new(EquityBot::new(seed)),
        "adaptive" => Box::new(AdaptiveBot::new(seed)),
        "cfr" | "best" => Box::new(CfrBot::new(seed)),
        "cfr-eq" => Box::new(CfrBot::equilibrium(seed)),
        "lbr" => Box::new(LbrBot::new(seed)),
        n if n.starts_with("lbr-") => Box::new(LbrBot::in_rounds(seed, lbr_rounds(&n[4..])?)),
        "x-raise" => Box::new(ManiacBot::new(seed)),
        "x-raise1st" => Box::new(RaiseFirstBot::new(seed)),
        "x-fold" => Box::new(FoldBot::new(seed)),
        "x-early1" => Box::new(EarlyBot::new(seed, 1, true)),
        "x-early2" => Box::new(EarlyBot::new(seed, 2, true)),
        "x-early3" => Box::new(EarlyBot::new(seed, 3, true)),
        "x-open1" => Box::new(EarlyBot::new(seed, 1, false)),
        "x-open2" => Box::new(EarlyBot::new(seed, 2, false)),
        "x-switch" => Box::new(SwitchBot::new(seed)),
        "x-small" => Box::new(SizeBot::new(seed, Sizing::Small)),
        "x-mid" => Box::new(SizeBot::new(seed, Sizing::Mid)),
        "x-big" => Box::new(SizeBot::new(seed, Sizing::Big)),
        _ => return None,
    })
}
