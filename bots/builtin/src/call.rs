//! `call`: the calling station.

use pitboss_protocol::{ActRequest, Action, Bot};

use crate::util;

/// `call` is the calling station: it checks when checking is free, otherwise calls (all-in for
/// less when short), posts the bring-in when it must bring in, stands pat in every draw, and never
/// folds or raises. It shows down every hand, so it measures how well a bot value-bets and how
/// much it loses by bluffing into a player who never folds.
pub struct CallBot;

impl CallBot {
    pub fn new(_seed: u64) -> CallBot {
        CallBot
    }
}

impl Bot for CallBot {
    fn act(&mut self, req: &ActRequest) -> Action {
        util::passive(&req.legal)
    }
}
