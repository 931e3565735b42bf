//! `raise`: the maniac.

use pitboss_cards::eval::{ace_to_five_8, deuce_to_seven, high, HighClass};
use pitboss_cards::CardSet;
use pitboss_equity::draw;
use pitboss_protocol::{ActRequest, Action, Bot, MatchStart};

use crate::util;

/// `raise` is the maniac: whenever a bet, raise or completion is allowed it makes the smallest
/// full one (one unit in fixed limit, the minimum in pot and no limit, all-in when that is all
/// that is left); otherwise it calls, checks or posts the bring-in like `call`, and it never folds
/// — with one exception: in the last betting round, holding junk (stud: no pair, straight, flush
/// or qualifying low; triple draw: a pair, straight or flush), it gives up (checks, or folds to a
/// bet). In triple draw it draws by the standard rule of `pitboss-equity`. It punishes bots that fold too much and rewards bots that
/// wait for a hand and let it bet for them; giving up on junk and drawing make it a little better
/// than `call`, which otherwise would mirror it exactly in duplicate.
pub struct RaiseBot {
    stud: Option<bool>,
}

impl RaiseBot {
    pub fn new(_seed: u64) -> RaiseBot {
        RaiseBot { stud: None }
    }
}

impl Bot for RaiseBot {
    fn match_start(&mut self, m: &MatchStart) {
        self.stud = Some(m.game.variant == "stud-hi-lo");
    }

    fn act(&mut self, req: &ActRequest) -> Action {
        let view = &req.view;
        if let Some(max) = req.legal.discard {
            let hand: CardSet = view.cards.iter().collect();
            if hand.len() != 5 {
                return util::passive(&req.legal);
            }
            let left = 3u8.saturating_sub(util::me(view).draws.len() as u8);
            return util::discard_keeping(&view.cards, draw::policy(hand, left), max);
        }
        let stud = util::is_stud(self.stud, req);
        let cards = util::own_cards(view);
        let junk = if stud {
            view.round >= 4
                && cards.len() >= 5
                && high(cards).class() == HighClass::HighCard
                && ace_to_five_8(cards).is_none()
        } else {
            view.round >= 3
                && cards.len() == 5
                && deuce_to_seven(cards, false).class() != HighClass::HighCard
        };
        if junk {
            return util::check_or_fold(&req.legal);
        }
        util::min_raise(&req.legal).unwrap_or_else(|| util::passive(&req.legal))
    }
}
