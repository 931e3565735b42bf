//! `hilo`: a seven card stud hi/lo eight-or-better heuristic.

use pitboss_cards::eval::{ace_to_five_8, high, HighClass};
use pitboss_cards::{CardSet, Rank, Suit};
use pitboss_protocol::{ActRequest, Action, Bot, HandStart, MatchStart, SeatView};
use rand_core::RngCore;

use crate::{offgame, util};

const TEN: u8 = Rank::Ten as u8;
const QUEEN: u8 = Rank::Queen as u8;
const ACE: u8 = Rank::Ace as u8;

/// Third street: raise (complete) from this strength, call from this one.
const RAISE_AT_3RD: i32 = 70;
const CALL_AT_3RD: i32 = 40;
/// Fourth street on.
const RAISE_AT: i32 = 65;
const CALL_AT: i32 = 35;

/// `hilo` plays seven card stud hi/lo by rules of thumb. On third street it plays three low cards
/// (distinct, 8 or lower, ace low), high pairs (tens or better, aces best since they are also low)
/// and smaller pairs with a queen-or-better kicker, trips, three-flushes with two low cards, and
/// other three-flushes when the price is small; it completes and raises with trips, aces and three
/// cards to a 5-low, and folds junk to a completion (it posts the bring-in when it must). From
/// fourth street on it scores the high half (the `high` evaluator from fifth street, with flush
/// draws) and the low half (`ace_to_five_8` once five cards are out, else how many low ranks it has
/// against how many cards are to come), worth the better half plus half the other (two-way hands
/// scoop); a high hand beaten by a bigger pair or trips in an opponent's open cards counts for
/// half. It bets and raises strong two-way hands, calls fair ones and folds the rest to a bet, with
/// a few seeded semi-bluffs. Given triple draw, it draws by the standard rule of `pitboss-equity`,
/// bets made eights, calls with made tens and good draws, and folds the rest to a bet.
pub struct HiloBot {
    cx: util::Context,
}

impl HiloBot {
    pub fn new(seed: u64) -> HiloBot {
        HiloBot {
            cx: util::Context::new(seed),
        }
    }
}

impl Bot for HiloBot {
    fn match_start(&mut self, m: &MatchStart) {
        self.cx.match_start(m);
    }

    fn hand_start(&mut self, _h: &HandStart) {
        self.cx.hand_start();
    }

    fn act(&mut self, req: &ActRequest) -> Action {
        self.cx.track.update(&req.events);
        if !util::is_stud(self.cx.stud, req) || req.legal.discard.is_some() {
            if req.view.cards.len() != 5 {
                return util::passive(&req.legal);
            }
            let bluff = self.cx.rng.next_u32() < u32::MAX / 10;
            let big_bet = util::is_big_bet(self.cx.big_bet, &req.legal);
            return offgame::draw_action(req, bluff, big_bet);
        }
        let cards = util::own_cards(&req.view);
        let third = cards.len() <= 3;
        let s = if third {
            third_street(cards)
        } else {
            later_street(&req.view, cards)
        };
        // Aggression beyond the first bet (the completion on third street) asks for more.
        let pressure = 8 * i32::from(self.cx.track.raises.saturating_sub(1));
        let (raise_at, call_at) = if third {
            (RAISE_AT_3RD, CALL_AT_3RD)
        } else {
            (RAISE_AT, CALL_AT)
        };
        let bluff = self.cx.rng.next_u32() < u32::MAX / 6; // one time in six
        let big_bet = util::is_big_bet(self.cx.big_bet, &req.legal);
        util::bet_by_strength(
            req,
            s,
            raise_at + pressure,
            call_at + pressure,
            bluff,
            big_bet,
        )
    }
}

/// The ranks that count for low (8 or lower, ace low) as a mask: ace bit 0, deuce bit 1 ... eight
/// bit 7.
fn low_mask(cards: CardSet) -> u8 {
    let m = cards.rank_mask();
    (((m << 1) & 0xfe) | (m >> 12 & 1)) as u8
}

/// The highest rank held at least twice, and how many of it.
fn best_group(cards: CardSet) -> Option<(u8, u32)> {
    (0..13u8)
        .rev()
        .map(|r| (r, cards.rank_count(Rank::from_index(r))))
        .filter(|&(_, n)| n >= 2)
        .max_by_key(|&(r, n)| (n, r))
}

/// How many ranks are held at least twice.
fn pairs(cards: CardSet) -> usize {
    Rank::ALL
        .iter()
        .filter(|r| cards.rank_count(**r) >= 2)
        .count()
}

/// The best group as (count, rank): trips beat pairs, then the higher rank; a set without a pair
/// counts as (1, its top rank). Works for any number of cards, unlike the five-card evaluators.
fn group_key(cards: CardSet) -> (u32, u8) {
    best_group(cards).map_or((1, top(cards.rank_mask())), |(r, n)| (n, r))
}

/// The most cards held in one suit.
fn max_suited(cards: CardSet) -> u32 {
    Suit::ALL
        .iter()
        .map(|s| cards.suit_ranks(*s).count_ones())
        .max()
        .unwrap_or(0)
}

/// Third street's worth (0-100) of the three cards.
fn third_street(cards: CardSet) -> i32 {
    let lows = low_mask(cards);
    let has_ace = cards.rank_mask() & 1 << ACE != 0;
    if let Some((r, n)) = best_group(cards) {
        let kicker = top(cards.rank_mask() & !(1 << r));
        return match (n, r) {
            (3.., _) => 90,
            (_, ACE) => 80,
            (_, r) if r >= TEN => 60 + 3 * i32::from(r - TEN),
            _ if kicker >= QUEEN => 42,
            _ => 20,
        };
    }
    let suited = max_suited(cards) == 3;
    if lows.count_ones() == 3 {
        let hi = 7 - lows.leading_zeros() as i32; // 0 = ace ... 7 = eight
        let base = match hi {
            0..=4 => 75,
            5 => 62,
            6 => 52,
            _ => 45,
        };
        return base + 5 * i32::from(has_ace) + 5 * i32::from(suited);
    }
    match (suited, lows.count_ones()) {
        (true, 2) => 40,
        (true, _) => 30,
        _ => 10 + 5 * i32::from(has_ace),
    }
}

/// The highest rank of a non-empty 13-bit mask (0 when empty).
fn top(mask: u16) -> u8 {
    15u8.saturating_sub(mask.leading_zeros() as u8)
}

/// Fourth street on: the better half plus half the other.
fn later_street(view: &SeatView, cards: CardSet) -> i32 {
    let n = cards.len() as i32;
    let to_come = (7 - n).max(0);
    let lows = low_mask(cards).count_ones() as i32;
    let low = match (n >= 5).then(|| ace_to_five_8(cards)).flatten() {
        Some(v) => match v.ranks()[0] {
            Rank::Eight => 50,
            Rank::Seven => 62,
            Rank::Six => 75,
            _ => 85,
        },
        None => {
            let need = (5 - lows).max(0);
            if need <= to_come && need > 0 {
                55 - 18 * need + 4 * (to_come - need)
            } else {
                0
            }
        }
    };
    let mine = group_key(cards);
    // The evaluator from fifth street on; before that, the pairs and trips held.
    let mut hi = if n >= 5 {
        match high(cards).class() {
            HighClass::HighCard => 5,
            HighClass::Pair => 15 + 2 * i32::from(mine.1),
            HighClass::TwoPair => 50,
            HighClass::Trips => 65,
            HighClass::Straight => 72,
            HighClass::Flush => 78,
            HighClass::FullHouse => 90,
            _ => 98,
        }
    } else {
        match mine {
            (4, _) => 98,
            (3, _) => 65,
            (2, _) if pairs(cards) >= 2 => 50,
            (2, r) => 15 + 2 * i32::from(r),
            _ => 5,
        }
    };
    if to_come > 0 && max_suited(cards) >= 4 {
        hi = hi.max(35);
    }
    // An opponent whose open cards alone hold a bigger pair or trips than our best group.
    let beaten = hi < 72
        && util::opponents(view).any(|(_, s)| {
            let up: CardSet = s.up.iter().collect();
            group_key(up) > mine && group_key(up).0 >= 2
        });
    if beaten {
        hi /= 2;
    }
    (hi.max(low) + hi.min(low) / 2).min(100)
}
