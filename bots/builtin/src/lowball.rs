//! `lowball`: a deuce-to-seven triple-draw heuristic.
//!
//! Ranks are indexes with aces high (deuce 0 ... ace 12), as deuce-to-seven reads them. The
//! default rule (A-2-3-4-5 is not a straight) is assumed.

use pitboss_cards::{Card, Rank};
use pitboss_protocol::{ActRequest, Action, Bot, HandStart, MatchStart, SeatView};
use rand_core::RngCore;

use crate::{offgame, util};

const SEVEN: u8 = Rank::Seven as u8;
const EIGHT: u8 = Rank::Eight as u8;
const NINE: u8 = Rank::Nine as u8;

/// Raise with this strength or more (0-100).
const RAISE_AT: i32 = 70;
/// Call a bet with this strength or more (before the price adjustment).
const CALL_AT: i32 = 40;

/// `lowball` plays deuce-to-seven triple draw by rules of thumb. Drawing, it stands pat on a made
/// 8-low at the first draw and a 9-low later (a 10-low on the last draw when every opponent drew
/// two or more; one step stricter when an opponent stood pat), otherwise keeps one card of each
/// rank up to 8 (up to 9 at the last draw), throwing pairs, high cards and the worst card of a
/// made straight or flush. Betting, it scores its hand 0-100 from what it holds or draws to, the
/// draws left and what the opponents drew (a pat opponent makes its draws worth less, opponents
/// drawing two or more make its hand worth more), then raises strong hands (made 8s, one-card draws
/// to a 7 early), calls reasonable draws, mixes in a few seeded semi-bluffs, and folds weak hands
/// to a bet. Given stud, it plays a short rule: it stays in with a pair or low cards, bets two
/// pair or a made low, and folds the rest to a bet.
pub struct LowballBot {
    cx: util::Context,
}

impl LowballBot {
    pub fn new(seed: u64) -> LowballBot {
        LowballBot {
            cx: util::Context::new(seed),
        }
    }
}

impl Bot for LowballBot {
    fn match_start(&mut self, m: &MatchStart) {
        self.cx.match_start(m);
    }

    fn hand_start(&mut self, _h: &HandStart) {
        self.cx.hand_start();
    }

    fn act(&mut self, req: &ActRequest) -> Action {
        self.cx.track.update(&req.events);
        if util::is_stud(self.cx.stud, req) || req.view.cards.len() != 5 {
            if req.legal.discard.is_some() {
                return util::passive(&req.legal);
            }
            let big_bet = util::is_big_bet(self.cx.big_bet, &req.legal);
            let s = offgame::stud_strength(req);
            let pressure = 8 * i32::from(self.cx.track.raises.saturating_sub(1));
            return util::bet_by_strength(req, s, 75 + pressure, 40 + pressure, false, big_bet);
        }
        let view = &req.view;
        let draws_done = util::me(view).draws.len();
        if let Some(max) = req.legal.discard {
            let mut mask = plan_draw(&view.cards, draws_done, pat_bar(view, draws_done));
            while mask.count_ones() > u32::from(max) {
                mask &= mask - 1;
            }
            return util::discard_mask(&view.cards, mask);
        }
        let s = strength(view, draws_done);
        // Every aggressive action after the first bet of the round asks for more.
        let pressure = 8 * i32::from(self.cx.track.raises.saturating_sub(1));
        let bluff = self.cx.rng.next_u32() < u32::MAX / 5; // one time in five
        let big_bet = util::is_big_bet(self.cx.big_bet, &req.legal);
        util::bet_by_strength(
            req,
            s,
            RAISE_AT + pressure,
            CALL_AT + pressure,
            bluff,
            big_bet,
        )
    }
}

#[inline]
fn rank(c: Card) -> u8 {
    c.rank().index()
}

/// Whether a 13-bit rank mask holds five consecutive ranks.
fn has_straight(mask: u16) -> bool {
    let m = u32::from(mask);
    m & m << 1 & m << 2 & m << 3 & m << 4 != 0
}

/// The highest rank of a non-empty mask.
fn top(mask: u16) -> u8 {
    15 - mask.leading_zeros() as u8
}

/// A made low (five ranks, no straight, no flush): its highest and second-highest ranks.
fn made(cards: &[Card]) -> Option<(u8, u8)> {
    let mask = cards.iter().fold(0u16, |m, c| m | 1 << rank(*c));
    let flush = cards.iter().all(|c| c.suit() == cards[0].suit());
    if cards.len() != 5 || mask.count_ones() != 5 || has_straight(mask) || flush {
        return None;
    }
    let hi = top(mask);
    Some((hi, top(mask & !(1 << hi))))
}

/// How good a four-card draw is: one point per rank that completes it to a 9-low, two to an
/// 8-low, three to a 7-low, none for a pair or a straight.
fn outs_score(four: u16) -> i32 {
    let hi = top(four);
    (0..=NINE)
        .filter(|r| four & 1 << r == 0 && !has_straight(four | 1 << r))
        .map(|r| match hi.max(r) {
            h if h <= SEVEN => 3,
            EIGHT => 2,
            _ => 1,
        })
        .sum()
}

/// The highest rank to stand pat with at draw `draw` (0-based), from what the opponents drew.
fn pat_bar(view: &SeatView, draw: usize) -> u8 {
    let base = if draw == 0 { EIGHT } else { NINE };
    match opponents_last_draw(view) {
        Some(0) => base - 1,
        Some(n) if n >= 2 && draw >= 2 => base + 1,
        _ => base,
    }
}

/// The fewest cards any live opponent took at their latest draw; `None` before any draw.
fn opponents_last_draw(view: &SeatView) -> Option<u8> {
    util::opponents(view)
        .filter_map(|(_, s)| s.draws.last().copied())
        .min()
}

/// The positions (bit mask over `cards`) to discard at draw `draw` (0-based), standing pat on a
/// made low whose top card is `pat_bar` or lower.
fn plan_draw(cards: &[Card], draw: usize, pat_bar: u8) -> u32 {
    let all = (1u32 << cards.len()) - 1;
    if matches!(made(cards), Some((hi, _)) if hi <= pat_bar) {
        return 0;
    }
    let keep_bar = if draw >= 2 { NINE } else { EIGHT };
    let mut keep = 0u32;
    let mut ranks = 0u16;
    for (i, c) in cards.iter().enumerate() {
        let r = rank(*c);
        if r <= keep_bar && ranks & 1 << r == 0 {
            keep |= 1 << i;
            ranks |= 1 << r;
        }
    }
    // Of a pair, keep the card whose suit the other kept cards hold least (fewer flushes).
    for (j, cj) in cards.iter().enumerate() {
        if keep & 1 << j != 0 || rank(*cj) > keep_bar {
            continue;
        }
        let Some(i) = (0..cards.len()).find(|&i| keep & 1 << i != 0 && rank(cards[i]) == rank(*cj))
        else {
            continue;
        };
        let suited = |s| {
            (0..cards.len())
                .filter(|&k| k != i && keep & 1 << k != 0 && cards[k].suit() == s)
                .count()
        };
        if suited(cj.suit()) < suited(cards[i].suit()) {
            keep = keep & !(1 << i) | 1 << j;
        }
    }
    if keep.count_ones() == 5 {
        // A made hand not good enough (or a straight or flush): break it, keeping the best four.
        let (mut best, mut best_i) = (i32::MIN, 0);
        for (i, c) in cards.iter().enumerate() {
            let four = ranks & !(1 << rank(*c));
            let score = outs_score(four) * 16 - i32::from(top(four));
            if score > best {
                (best, best_i) = (score, i);
            }
        }
        keep &= !(1 << best_i);
    }
    all & !keep
}

/// The hand's worth, 0-100, before the draw `draws_done` (0-based; 3 = after the last draw).
fn strength(view: &SeatView, draws_done: usize) -> i32 {
    let cards = &view.cards;
    let made_score = match made(cards) {
        Some((hi, second)) => match hi {
            h if h <= SEVEN => 95,
            EIGHT if second <= Rank::Six as u8 => 84,
            EIGHT => 78,
            NINE => 66,
            10 => 50,
            11 => 37,
            _ => 25,
        },
        None => 5,
    };
    let left = 3usize.saturating_sub(draws_done);
    let opp = opponents_last_draw(view);
    let mut score = made_score;
    let mut drawing = false;
    if left > 0 {
        let mask = plan_draw(cards, draws_done, pat_bar(view, draws_done));
        let n = mask.count_ones();
        if n > 0 {
            drawing = true;
            let kept = cards
                .iter()
                .enumerate()
                .filter(|(i, _)| mask & 1 << i == 0)
                .fold(0u16, |m, (_, c)| m | 1 << rank(*c));
            let smooth = kept == 0 || top(kept) <= SEVEN;
            let table: [i32; 3] = match n {
                1 if smooth => [50, 65, 75],
                1 => [38, 53, 66],
                2 if smooth => [22, 40, 55],
                2 => [18, 35, 48],
                3 => [10, 28, 42],
                _ => [3, 15, 30],
            };
            score = score.max(table[left - 1]);
        }
    }
    match opp {
        Some(0) if drawing => score -= 15,
        Some(n) if n >= 2 => score += 10,
        Some(1) if !drawing => score += 5,
        _ => {}
    }
    let extra = util::opponents(view).count().saturating_sub(1) as i32;
    (score - 5 * extra).clamp(0, 100)
}
