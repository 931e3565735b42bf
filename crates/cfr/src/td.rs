//! The card abstraction of deuce-to-seven triple draw: what a player's hand is worth in a betting
//! round, as one of [`BUCKETS`] classes, and a sampler of whole deals for training.
//!
//! Both players draw by the standard rule of `pitboss-equity` ([`draw::policy`]): the strategy
//! decides how to bet, not what to throw. A hand's class in a round before a draw is what the rule
//! does with it (stand pat, or draw one to five) and how good what it keeps is (the top card of a
//! pat hand or of the cards kept); after the last draw it is the made hand (pair or worse, then
//! the top two or three cards of a no-pair hand). Classes are numbered from worst to best within
//! each round so that tables read naturally; the strategy does not rely on the order.

use pitboss_cards::eval::deuce_to_seven;
use pitboss_cards::{Card, CardSet};
use pitboss_equity::draw;

pub use crate::mccfr::Deal;

/// Classes per round (the largest round's count).
pub const BUCKETS: usize = 18;

/// The opponent's last draw, as the strategy sees it: none yet (or stood pat), one, two, three or
/// more.
pub const OPP_DRAWS: usize = 4;

/// The draw classes of abstraction 2: the opponent's last draw and one's own, each as
/// [`OPP_DRAWS`] classes. Both are public, and one's own tells the opponent what one may hold: a
/// strategy that does not see its own draw plays a hand that just drew one as it plays the same
/// made hand after standing pat, which the local best response `lbr` found to cost 105 mbb/hand in
/// fixed limit (bots/README.md, "lbr").
pub const BOTH_DRAWS: usize = OPP_DRAWS * OPP_DRAWS;

/// The opponent's draw count as a class.
#[inline]
pub fn opp_class(count: u8) -> usize {
    usize::from(count.min(3))
}

/// What a player has seen of the draws as one of `draws` classes (a strategy's own count,
/// [`OPP_DRAWS`] or [`BOTH_DRAWS`]): the opponent's last draw count `opp`, and with
/// [`BOTH_DRAWS`] its own last one, `own`, too (0 before the first draw).
#[inline]
pub fn draws_class(opp: u8, own: u8, draws: usize) -> usize {
    if draws == BOTH_DRAWS {
        opp_class(opp) + OPP_DRAWS * opp_class(own)
    } else {
        opp_class(opp)
    }
}

#[inline]
fn rank_mask(h: CardSet) -> u16 {
    h.rank_mask()
}

/// Rank indices (2 = 0 … A = 12), highest first.
#[inline]
fn tops(mask: u16) -> [u8; 3] {
    let mut m = mask;
    let mut out = [0u8; 3];
    for o in &mut out {
        if m == 0 {
            break;
        }
        let t = 15 - m.leading_zeros() as u8;
        *o = t;
        m &= !(1 << t);
    }
    out
}

const SEVEN: u8 = 5;
const EIGHT: u8 = 6;
const NINE: u8 = 7;
const TEN: u8 = 8;
const JACK: u8 = 9;

/// Whether five cards make a no-pair, no-straight, no-flush hand (a real low).
#[inline]
fn made(h: CardSet) -> bool {
    let v = deuce_to_seven(h, false);
    v.class() == pitboss_cards::eval::HighClass::HighCard
}

/// The class of a five-card hand after the last draw (0..15).
pub fn final_class(h: CardSet) -> usize {
    if !made(h) {
        // One pair beats two pair, trips, straights and flushes.
        let m = rank_mask(h);
        return usize::from(m.count_ones() == 4);
    }
    let [a, b, c] = tops(rank_mask(h));
    match a {
        JACK.. => 2 + usize::from(a == JACK),
        TEN => 4 + usize::from(b < NINE),
        NINE => 6 + usize::from(b < EIGHT) + usize::from(b < SEVEN),
        EIGHT => 9 + usize::from(b < SEVEN) + usize::from(b < SEVEN - 1),
        // 7-6-5, 7-6-4 or 7-6-3, 7-5-4-3-2.
        _ => 12 + if b < SEVEN - 1 { 2 } else { usize::from(c < 3) },
    }
}

/// The class of a hand with `draws_left` draws to come (1..=3), and the cards the standard rule
/// keeps.
pub fn draw_class(h: CardSet, draws_left: u8) -> (usize, CardSet) {
    let keep = draw::policy(h, draws_left);
    let n = 5 - keep.len();
    let [a, _, _] = tops(rank_mask(keep));
    let class = match n {
        // Pat: 7, 8-6 or better, 8-7, 9, 10 or worse.
        0 => {
            let [a, b, _] = tops(rank_mask(keep));
            13 + match a {
                0..=SEVEN => 4,
                EIGHT if b < SEVEN => 3,
                EIGHT => 2,
                NINE => 1,
                _ => 0,
            }
        }
        // One to a 6 or better, 7, 8, 9 or worse.
        1 => {
            9 + match a {
                0..=4 => 3,
                SEVEN => 2,
                EIGHT => 1,
                _ => 0,
            }
        }
        // Two to a 5, 6, 7, 8 or worse.
        2 => {
            5 + match a {
                0..=3 => 3,
                4 => 2,
                SEVEN => 1,
                _ => 0,
            }
        }
        // Three to a 5, 7, 8 or worse.
        3 => {
            2 + match a {
                0..=3 => 2,
                4 | SEVEN => 1,
                _ => 0,
            }
        }
        4 => 1,
        _ => 0,
    };
    (class, keep)
}

/// A small fast generator (SplitMix64): the trainer draws hundreds of millions of cards, and its
/// results must be reproducible from a seed on every machine.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (Lemire's multiply-shift; the bias for n ≤ 52 is below 2⁻⁵⁷).
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(n)) >> 32) as u32
    }

    /// Uniform in `[0, 1)`.
    #[inline]
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 * (1.0 / (1u64 << 24) as f32)
    }
}

/// Samples a deal: five cards each, three draws each by the standard rule from the same deck
/// (never more than 40 cards, so the stub never runs out heads-up).
pub fn sample(rng: &mut Rng) -> Deal {
    let mut deck: [u8; 52] = std::array::from_fn(|i| i as u8);
    let mut top = 0usize;
    let mut take = |rng: &mut Rng| {
        let j = top + rng.below((52 - top) as u32) as usize;
        deck.swap(top, j);
        top += 1;
        Card::from_index(deck[top - 1])
    };
    let mut hands = [CardSet::EMPTY; 2];
    for h in &mut hands {
        for _ in 0..5 {
            h.insert(take(rng));
        }
    }
    let mut d = Deal::default();
    for round in 0..3u8 {
        let mut counts = [0u8; 2];
        for p in 0..2 {
            let (class, keep) = draw_class(hands[p], 3 - round);
            d.class[p][usize::from(round)] = class as u8;
            let n = 5 - keep.len();
            counts[p] = n as u8;
            let mut h = keep;
            for _ in 0..n {
                h.insert(take(rng));
            }
            hands[p] = h;
        }
        for p in 0..2 {
            d.opp[p][usize::from(round) + 1] =
                draws_class(counts[1 - p], counts[p], BOTH_DRAWS) as u8;
        }
    }
    for (class, h) in d.class.iter_mut().zip(hands) {
        class[3] = final_class(h) as u8;
    }
    let v = [
        deuce_to_seven(hands[0], false),
        deuce_to_seven(hands[1], false),
    ];
    d.edge = match v[0].cmp(&v[1]) {
        std::cmp::Ordering::Greater => 1.0,
        std::cmp::Ordering::Less => -1.0,
        std::cmp::Ordering::Equal => 0.0,
    };
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitboss_cards::parse_cards;

    fn set(s: &str) -> CardSet {
        parse_cards(s).unwrap().iter().collect()
    }

    #[test]
    fn final_classes_order_the_made_hands() {
        let order = [
            "2c 2d 3h 3s 4c", // two pair
            "2c 2d 3h 5s 7c", // one pair
            "Ac 2d 3h 4s 6c", // ace high
            "Jc 2d 3h 4s 6c",
            "Tc 9d 3h 4s 6c",
            "Tc 8d 3h 4s 6c",
            "9c 8d 3h 4s 6c",
            "9c 7d 3h 4s 6c",
            "9c 6d 3h 4s 2c",
            "8c 7d 3h 4s 6c",
            "8c 6d 3h 4s 2c",
            "8c 5d 3h 4s 2c",
            "7c 6d 5h 4s 2c",
            "7c 6d 3h 4s 2c",
            "7c 5d 3h 4s 2c",
        ];
        for (i, h) in order.iter().enumerate() {
            assert_eq!(final_class(set(h)), i, "{h}");
        }
        assert_eq!(
            final_class(set("2c 3c 4c 5c 7c")),
            0,
            "a flush is as bad as two pair"
        );
    }

    #[test]
    fn draw_classes_follow_the_standard_rule() {
        assert_eq!(draw_class(set("7c 5d 3h 4s 2c"), 3).0, 17, "pat 7");
        assert_eq!(draw_class(set("Kc 5d 3h 4s 2c"), 3).0, 12, "one to a 5");
        assert_eq!(draw_class(set("Kc Kd 7h 4s 2c"), 3).0, 6, "two to a 7");
        assert_eq!(draw_class(set("Kc Kd Qh Js Tc"), 3).0, 0, "five");
        for (c, _) in (0..2000).map(|i| {
            let d = sample(&mut Rng::new(i));
            (d.class, d.opp)
        }) {
            assert!(c.iter().flatten().all(|&x| usize::from(x) < BUCKETS));
        }
    }

    #[test]
    fn the_sampler_is_reproducible_and_fair_between_the_seats() {
        let run = |seed| {
            let mut r = Rng::new(seed);
            (0..20_000).map(|_| sample(&mut r).edge as i64).sum::<i64>()
        };
        assert_eq!(run(7), run(7));
        // Symmetric deal: player 0 wins as often as player 1, within noise (sd ≈ 140).
        assert!(run(7).abs() < 600, "{}", run(7));
    }
}
