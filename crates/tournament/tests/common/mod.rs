//! Small bots for the arena's own tests (the reference bots live in `bots/`).

use pitboss_arena::{BotFactory, Fault, InProcess, Player};
use pitboss_protocol::{ActRequest, Action, Bot};

/// Calls or checks; stands pat; posts the bring-in.
pub struct Caller;

impl Bot for Caller {
    fn act(&mut self, r: &ActRequest) -> Action {
        let l = &r.legal;
        if l.discard.is_some() {
            Action::Discard { cards: vec![] }
        } else if l.bring_in.is_some() {
            Action::BringIn
        } else if l.check {
            Action::Check
        } else {
            Action::Call
        }
    }
}

/// A seeded random legal player.
pub struct Random(pub u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

impl Bot for Random {
    fn act(&mut self, r: &ActRequest) -> Action {
        let l = &r.legal;
        let x = self.next();
        if l.discard.is_some() {
            let cards = r
                .view
                .cards
                .iter()
                .enumerate()
                .filter(|(i, _)| x >> i & 1 == 1)
                .map(|(_, c)| *c)
                .collect();
            return Action::Discard { cards };
        }
        if let Some(raise) = l.raise {
            if x.is_multiple_of(3) {
                let to = if x & 8 == 0 {
                    raise.min_to
                } else {
                    raise.max_to
                };
                return Action::Raise { to };
            }
        }
        if l.bring_in.is_some() {
            Action::BringIn
        } else if l.check {
            Action::Check
        } else if l.fold && x % 5 == 1 {
            Action::Fold
        } else {
            Action::Call
        }
    }
}

/// Bots by name: `random`, `call`.
#[allow(dead_code)]
pub struct Factory(pub Vec<&'static str>);

impl BotFactory for Factory {
    fn create(&self, index: usize, seed: u64, _lane: usize) -> Result<Box<dyn Player>, Fault> {
        let bot: Box<dyn Bot> = match self.0[index] {
            "call" => Box::new(Caller),
            _ => Box::new(Random(seed | 1)),
        };
        Ok(Box::new(InProcess(bot)))
    }
}

/// Built-in bots by name, as the binary would inject them.
#[allow(dead_code)]
pub fn builtin(name: &str, seed: u64) -> Option<Box<dyn Bot>> {
    match name {
        "call" => Some(Box::new(Caller)),
        "random" => Some(Box::new(Random(seed | 1))),
        _ => None,
    }
}
