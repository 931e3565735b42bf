//! `raise`: the maniac.

use pitboss_protocol::{ActRequest, Action, Bot};

use crate::util;

/// `raise` is the maniac: whenever a bet, raise or completion is allowed it makes the smallest
/// full one (one unit in fixed limit, the minimum in pot and no limit, all-in when that is all
/// that is left); otherwise it calls, checks or posts the bring-in like `call`, and like `call` it
/// stands pat in every draw and never folds. It punishes bots that fold too much and rewards bots
/// that wait for a hand and let it bet for them.
pub struct RaiseBot;

impl RaiseBot {
    pub fn new(_seed: u64) -> RaiseBot {
        RaiseBot
    }
}

impl Bot for RaiseBot {
    fn act(&mut self, req: &ActRequest) -> Action {
        if req.legal.discard.is_some() {
            return util::passive(&req.legal);
        }
        util::min_raise(&req.legal).unwrap_or_else(|| util::passive(&req.legal))
    }
}
