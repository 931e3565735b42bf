//! The built-in reference bots of Pitboss, the yardsticks every submitted bot is compared with.
//!
//! Each is a [`Bot`] built from a seed (chosen per table and seat by the referee) and is
//! deterministic given that seed and the messages it receives. `random`, `call` and `raise` play
//! both games blindly; `lowball` knows deuce-to-seven triple draw and `hilo` knows seven card stud
//! hi/lo, and each plays the other game by a short rule of thumb; `equity` and `adaptive` play
//! both games from the equity engine `pitboss-equity`. `bots/README.md` describes them for users.

mod adaptive;
mod call;
mod drawmemo;
mod eqcore;
mod equity;
mod hilo;
mod lowball;
mod offgame;
mod raise;
mod random;
mod util;

pub use adaptive::AdaptiveBot;
pub use call::CallBot;
pub use equity::EquityBot;
pub use hilo::HiloBot;
pub use lowball::LowballBot;
pub use pitboss_protocol::Bot;
pub use raise::RaiseBot;
pub use random::RandomBot;

/// The names [`builtin`] knows, in the order the README describes them.
pub const NAMES: &[&str] = &[
    "random", "call", "raise", "lowball", "hilo", "equity", "adaptive",
];

/// The built-in bot called `name`, seeded with `seed`; `None` for an unknown name.
pub fn builtin(name: &str, seed: u64) -> Option<Box<dyn Bot>> {
    Some(match name {
        "random" => Box::new(RandomBot::new(seed)),
        "call" => Box::new(CallBot::new(seed)),
        "raise" => Box::new(RaiseBot::new(seed)),
        "lowball" => Box::new(LowballBot::new(seed)),
        "hilo" => Box::new(HiloBot::new(seed)),
        "equity" => Box::new(EquityBot::new(seed)),
        "adaptive" => Box::new(AdaptiveBot::new(seed)),
        _ => return None,
    })
}
