//! `call`: the calling station.

use pitboss_cards::CardSet;
use pitboss_equity::draw;
use pitboss_protocol::{ActRequest, Action, Bot};

use crate::util;

/// `call` is the calling station: it checks when checking is free, otherwise calls (all-in for
/// less when short), posts the bring-in when it must bring in, and never folds or raises. In
/// triple draw it draws by the standard rule of `pitboss-equity` (a calling station is passive in
/// its betting, not blind in its drawing). It shows down every hand, so it measures how well a bot
/// value-bets and how much it loses by bluffing into a player who never folds.
pub struct CallBot;

impl CallBot {
    pub fn new(_seed: u64) -> CallBot {
        CallBot
    }
}

impl Bot for CallBot {
    fn act(&mut self, req: &ActRequest) -> Action {
        let view = &req.view;
        if let Some(max) = req.legal.discard {
            let hand: CardSet = view.cards.iter().collect();
            if hand.len() == 5 {
                let left = 3u8.saturating_sub(util::me(view).draws.len() as u8);
                return util::discard_keeping(&view.cards, draw::policy(hand, left), max);
            }
        }
        util::passive(&req.legal)
    }
}
