//! What the two heuristics do in the game they were not written for: a short, honest rule of
//! thumb each, so that neither is a calling station there (a calling station hands every bot a
//! free win and makes the crosstable a column of equal numbers).

use pitboss_cards::eval::{ace_to_five_8, high, HighClass};
use pitboss_cards::CardSet;
use pitboss_equity::draw;
use pitboss_protocol::{ActRequest, Action};

use crate::util;

/// `lowball` in stud hi/lo, 0-100: a pair or better, or low cards (eight or lower, ace low),
/// counted on what it holds; two pair or a made low is strong.
pub fn stud_strength(req: &ActRequest) -> i32 {
    let cards = util::own_cards(&req.view);
    let m = cards.rank_mask();
    let low = ((m << 1) & 0xfe | m >> 12 & 1).count_ones() as i32;
    let paired = m.count_ones() < cards.len();
    let made_high = if cards.len() >= 5 {
        high(cards).class()
    } else if paired {
        HighClass::Pair
    } else {
        HighClass::HighCard
    };
    let made_low = cards.len() >= 5 && ace_to_five_8(cards).is_some();
    let mut s = 15 * low.min(5);
    if paired {
        s = s.max(45);
    }
    if made_high >= HighClass::TwoPair || made_low {
        s = s.max(75);
    }
    s
}

/// `hilo` in triple draw: draw by the standard rule of `pitboss-equity` ([`draw::policy`]), bet
/// a made eight or better, call with a made hand up to the ten, a one-card draw, or a two-card
/// draw with two draws to come, otherwise check or fold.
pub fn draw_action(req: &ActRequest, rng_bluff: bool, big_bet: bool) -> Action {
    let view = &req.view;
    let hand: CardSet = view.cards.iter().collect();
    let left = 3u8.saturating_sub(util::me(view).draws.len() as u8);
    if let Some(max) = req.legal.discard {
        return util::discard_keeping(&view.cards, draw::policy(hand, left), max);
    }
    let m = hand.rank_mask();
    let made = hand.len() == 5 && m.count_ones() == 5 && draw::policy(hand, 1) == hand;
    let top = 15 - m.leading_zeros() as i32;
    let keep = draw::policy(hand, left.max(1)).len();
    let s = if made {
        match top {
            t if t <= 5 => 90,
            6 => 78,
            7 => 62,
            8 => 50,
            _ => 35,
        }
    } else if left > 0 && keep == 4 {
        50
    } else if left > 1 && keep == 3 {
        38
    } else {
        10
    };
    util::bet_by_strength(req, s, 75, 40, rng_bluff, big_bet)
}
