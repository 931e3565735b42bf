//! The card abstraction of heads-up seven card stud hi/lo, eight or better: what a player's cards
//! are worth on a street, as one of [`BUCKETS`] classes, and a sampler of whole deals.
//!
//! A class is read from what the player sees: its own cards and the opponent's up cards. On third
//! street (three cards): trips, a pair (aces, nine to king, or deuce to eight with a low or a high
//! third card), or three different ranks by how many are low (ace to eight) and, for three low
//! ones, whether they are smooth (an ace, or nothing above a five); times whether the opponent's
//! up card is low. From fourth street on, four features: the high hand (nothing, a pair of deuces
//! to eights, a pair of nines to aces, two pair, trips or better), the low (none possible with the
//! cards to come, a draw needing two or more, a draw needing one topped by a seven or eight or by
//! a six or better, a made eight or seven, a made six or better), and the opponent's board: how many of its up cards are different low ranks (all,
//! all but one, fewer) and whether it is paired. A hi/lo hand's worth is both halves at once, and
//! what the board shows of the other's: the features say which half a player can win and how
//! likely the other is to contest it.
//!
//! What a player sees of the order is its class of information besides the cards
//! ([`order_class`]): which position it has on the street is in the tree; whether it brought in on
//! third street (the lowest up card) and whether it acted first on the street before (the best
//! board then) complete the betting history the tree forgets ([`crate::stud_tree`]).

use pitboss_cards::eval::{ace_to_five_8, high, HighClass};
use pitboss_cards::{Card, CardSet, Rank};

use crate::mccfr::Deal;
use crate::td::Rng;

/// Classes per street (the largest street's count: fourth street on).
pub const BUCKETS: usize = 180;

/// Classes of third street.
pub const THIRD: usize = 18;

/// Order classes ([`order_class`]).
pub const ORDERS: usize = 4;

/// Ace to eight, as rank bits (deuce = bit 0, ace = bit 12).
const LOW_RANKS: u16 = 0b1_0000_0111_1111;

/// Ranks of an ace-to-five low, ace = 1: the rank index plus 2, the ace 1.
#[inline]
fn low_value(rank_index: u32) -> u32 {
    if rank_index == 12 {
        1
    } else {
        rank_index + 2
    }
}

/// How many cards of rank index `r` (deuce 0 … ace 12) `h` holds.
#[inline]
fn count(h: CardSet, r: u32) -> u32 {
    h.rank_count(Rank::from_index(r as u8))
}

/// Whether a card is low (ace to eight).
#[inline]
fn is_low(c: Card) -> bool {
    LOW_RANKS & (1 << c.rank() as u16) != 0
}

/// The third-street class of three cards against the opponent's up card (0..[`THIRD`]).
pub fn third_class(own: CardSet, opp_up: Card) -> u8 {
    let m = own.rank_mask();
    let lows = m & LOW_RANKS;
    let base = match m.count_ones() {
        1 => 8,
        2 => {
            let pair = (0..13u32).find(|&r| count(own, r) == 2).unwrap_or(0);
            let other = m & !(1 << pair);
            if pair == 12 {
                7
            } else if pair >= 7 {
                6
            } else if other & LOW_RANKS != 0 {
                5
            } else {
                4
            }
        }
        _ => match lows.count_ones() {
            0 | 1 => 0,
            2 => 1,
            _ => {
                let top = (0..13u32)
                    .filter(|&r| lows & (1 << r) != 0)
                    .map(low_value)
                    .max()
                    .unwrap_or(8);
                if lows & (1 << 12) != 0 || top <= 5 {
                    3
                } else {
                    2
                }
            }
        },
    };
    base * 2 + u8::from(is_low(opp_up))
}

/// The high half's feature (0..5): nothing, a pair of deuces to eights, a pair of nines to aces,
/// two pair, trips or better.
fn high_feature(own: CardSet) -> u8 {
    if own.len() >= 5 {
        return match high(own).class() {
            HighClass::HighCard => 0,
            HighClass::Pair => {
                let pair = (0..13u32).rev().find(|&r| count(own, r) >= 2).unwrap_or(0);
                1 + u8::from(pair >= 7)
            }
            HighClass::TwoPair => 3,
            _ => 4,
        };
    }
    let counts: Vec<u32> = (0..13u32).map(|r| count(own, r)).collect();
    let pairs = counts.iter().filter(|&&k| k == 2).count();
    if counts.iter().any(|&k| k >= 3) {
        4
    } else if pairs >= 2 {
        3
    } else if pairs == 1 {
        let pair = (0..13u32)
            .rev()
            .find(|&r| counts[r as usize] == 2)
            .unwrap_or(0);
        1 + u8::from(pair >= 7)
    } else {
        0
    }
}

/// The low half's feature (0..6) with `to_come` cards still to be dealt: no low possible, a draw
/// needing two or more, a draw needing one (rough: its four lows topped by a seven or eight;
/// smooth: by a six or better), a made eight or seven, a made six or better.
fn low_feature(own: CardSet, to_come: u32) -> u8 {
    let lows = own.rank_mask() & LOW_RANKS;
    let k = lows.count_ones();
    if k >= 5 {
        let top = ace_to_five_8(own).map_or(8, |v| v.ranks()[0] as u32);
        return if top <= Rank::Six as u32 { 5 } else { 4 };
    }
    let need = 5 - k;
    if need > to_come {
        0
    } else if need == 1 {
        let top = (0..13u32)
            .filter(|&r| lows & (1 << r) != 0)
            .map(low_value)
            .max()
            .unwrap_or(8);
        2 + u8::from(top <= 6)
    } else {
        1
    }
}

/// The opponent's board (0..6): how many of its up cards are different low ranks (all of them,
/// all but one, fewer), times whether two of them pair.
fn board_feature(up: CardSet) -> u8 {
    let n = up.len();
    let m = up.rank_mask();
    let lows = (m & LOW_RANKS).count_ones();
    let lo = if lows >= n {
        2
    } else if lows + 1 == n {
        1
    } else {
        0
    };
    lo * 2 + u8::from(m.count_ones() < n)
}

/// The class (0..[`BUCKETS`]) of a player's `own` cards on street `round` (0: third street …
/// 4: seventh) against the opponent's up cards `opp_up`.
pub fn class(own: CardSet, opp_up: CardSet, round: u8) -> u8 {
    if round == 0 {
        let up = opp_up.iter().next().expect("the opponent shows a card");
        return third_class(own, up);
    }
    let to_come = 7u32.saturating_sub(own.len());
    let h = high_feature(own);
    let l = low_feature(own, to_come);
    (h * 6 + l) * 6 + board_feature(opp_up)
}

/// A hand's strength from 0 to 1 by its class on street `round`, for the opponent model's
/// choices of which hands to bend first (the weakest bluff, the strongest bet thinner): the
/// better of its two halves, the high (nothing to trips or better) and the low (none to a made
/// six), on third street the class's order.
pub fn strength(class: u8, round: u8) -> f32 {
    if round == 0 {
        return f32::from(class / 2) / 8.0;
    }
    let hl = class / 6;
    let (h, l) = (hl / 6, hl % 6);
    (f32::from(h) / 4.0).max(f32::from(l) / 5.0)
}

/// A comparable value of up to four exposed cards (pairs, trips and quads count; no straights or
/// flushes): the category, then the ranks by group size and rank. The best board acts first from
/// fourth street on (docs/RULES.md).
pub fn board_value(up: CardSet) -> u32 {
    let mut groups: Vec<(u32, u32)> = (0..13u32)
        .map(|r| (count(up, r), r))
        .filter(|&(k, _)| k > 0)
        .collect();
    groups.sort_unstable_by(|a, b| b.cmp(a));
    let cat = match groups.first().map_or(0, |g| g.0) {
        4 => 4,
        3 => 3,
        2 if groups.get(1).is_some_and(|g| g.0 == 2) => 2,
        2 => 1,
        _ => 0,
    };
    groups.iter().take(4).fold(cat, |acc, &(_, r)| acc << 4 | r)
        << (4 * (4 - groups.len().min(4)) as u32)
}

/// The order class (0..[`ORDERS`]) of `seat` on street `round`, given the seat that acted first on
/// each street (`first[0]`: the bring-in): whether it brought in (from fourth street on) and
/// whether it acted first on the street before (from fifth street on).
#[inline]
pub fn order_class(seat: u8, round: u8, first: &[u8; 5]) -> u8 {
    if round == 0 {
        return 0;
    }
    let brought = u8::from(first[0] == seat);
    if round == 1 {
        return brought;
    }
    brought + 2 * u8::from(first[usize::from(round) - 1] == seat)
}

/// Seat 0's share of a showdown pot between `a` and `b` (seven cards each): half to the best high,
/// half to the best eight-or-better low, the whole pot to the high when no low qualifies, each half
/// split on a tie.
pub fn share(a: CardSet, b: CardSet) -> f32 {
    let half = |x: std::cmp::Ordering| match x {
        std::cmp::Ordering::Greater => 1.0,
        std::cmp::Ordering::Less => 0.0,
        std::cmp::Ordering::Equal => 0.5,
    };
    let hi = half(high(a).cmp(&high(b)));
    match (ace_to_five_8(a), ace_to_five_8(b)) {
        (None, None) => hi,
        (la, lb) => 0.5 * hi + 0.5 * half(la.cmp(&lb)),
    }
}

/// Samples a deal: seven cards each from one deck (two down, four up, one down), who acts first
/// on each street, each player's class and order class on each street, and seat 0's showdown
/// result.
pub fn sample(rng: &mut Rng) -> Deal {
    let mut deck: [u8; 52] = std::array::from_fn(|i| i as u8);
    let mut cards = [[Card::from_index(0); 7]; 2];
    let mut top = 0usize;
    for k in 0..7 {
        for seat in &mut cards {
            let j = top + rng.below((52 - top) as u32) as usize;
            deck.swap(top, j);
            seat[k] = Card::from_index(deck[top]);
            top += 1;
        }
    }
    let mut d = Deal::default();
    // Third street: the lowest up card brings in (aces high; clubs lowest on equal ranks, as the
    // card order has it).
    d.first[0] = u8::from(cards[1][2] < cards[0][2]);
    for round in 0..5u8 {
        let r = usize::from(round);
        let shown = 1 + r.min(3);
        let up: [CardSet; 2] =
            std::array::from_fn(|s| cards[s][2..2 + shown].iter().copied().collect());
        if round > 0 {
            // The best board acts first; on equal boards the lower seat.
            d.first[r] = u8::from(board_value(up[1]) > board_value(up[0]));
        }
        for s in 0..2 {
            let own: CardSet = cards[s][..3 + r].iter().copied().collect();
            d.class[s][r] = class(own, up[1 - s], round);
        }
    }
    for s in 0..2u8 {
        for round in 0..5u8 {
            d.opp[usize::from(s)][usize::from(round)] = order_class(s, round, &d.first);
        }
    }
    let hands: [CardSet; 2] = std::array::from_fn(|s| cards[s].iter().copied().collect());
    d.edge = 2.0 * share(hands[0], hands[1]) - 1.0;
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
    fn third_street_classes() {
        let up = |s: &str| parse_cards(s).unwrap()[0];
        assert_eq!(
            third_class(set("Ac 2d 3h"), up("Ks")),
            6,
            "smooth three low, high card up"
        );
        assert_eq!(third_class(set("Ac 2d 3h"), up("4s")), 7);
        assert_eq!(third_class(set("8c 7d 6h"), up("Ks")), 4, "rough three low");
        assert_eq!(third_class(set("8c 7d Kh"), up("Ks")), 2);
        assert_eq!(third_class(set("Qc Jd Kh"), up("Ks")), 0);
        assert_eq!(
            third_class(set("4c 4d Kh"), up("Ks")),
            8,
            "low pair, high card"
        );
        assert_eq!(
            third_class(set("4c 4d 2h"), up("Ks")),
            10,
            "low pair, low card"
        );
        assert_eq!(third_class(set("Tc Td 2h"), up("Ks")), 12);
        assert_eq!(third_class(set("Ac Ad 2h"), up("Ks")), 14);
        assert_eq!(third_class(set("7c 7d 7h"), up("2s")), 17);
    }

    #[test]
    fn later_street_features() {
        assert_eq!(high_feature(set("Ac 2d 3h 5s")), 0);
        assert_eq!(high_feature(set("Ac Ad 3h 5s")), 2);
        assert_eq!(high_feature(set("3c 3d 4h 5s")), 1);
        assert_eq!(high_feature(set("3c 3d 4h 4s Kd")), 3);
        assert_eq!(high_feature(set("2c 3d 4h 5s 6d")), 4, "a straight");
        assert_eq!(low_feature(set("Ac 2d 3h 5s 6d"), 2), 5);
        assert_eq!(low_feature(set("8c 2d 3h 5s 6d"), 2), 4);
        assert_eq!(low_feature(set("Kc 2d 3h 5s 6d"), 2), 3);
        assert_eq!(low_feature(set("Kc 2d 3h 5s 7d"), 2), 2, "four to a seven");
        assert_eq!(low_feature(set("Kc Qd 3h 5s 6d"), 2), 1);
        assert_eq!(low_feature(set("Kc Qd Jh 5s 6d"), 2), 0);
        assert_eq!(board_feature(set("2c 3d")), 4);
        assert_eq!(
            board_feature(set("2c 2d")),
            3,
            "one low rank of two, paired"
        );
        assert_eq!(board_feature(set("Kc Kd 9h 2s")), 1);
        assert!(board_value(set("2c 2d")) > board_value(set("Ac Kd")));
        assert!(board_value(set("Ac Kd")) > board_value(set("Ac Qd")));
        assert!(board_value(set("3c 3d 2h 2s")) > board_value(set("Ac Ad Kh Qs")));
        assert_eq!(order_class(0, 3, &[0, 1, 1, 0, 0]), 1);
        assert_eq!(order_class(1, 3, &[0, 1, 1, 0, 0]), 2);
    }

    #[test]
    fn shares_split_the_halves() {
        // A wheel scoops against kings up with no low.
        assert_eq!(
            share(set("Ac 2d 3h 4s 5d Kc Qd"), set("Kh Ks Qh Qs 9d 9c Td")),
            1.0
        );
        // Kings up against the best low: half each.
        assert_eq!(
            share(set("Kh Ks Qh Qs 9d 9c Td"), set("Ac 2d 3h 4s 7d Kc Jd")),
            0.5
        );
        // No low: the high takes all.
        assert_eq!(
            share(set("Ac Ad Jh Js Tc 3h 3s"), set("Kh Ks Qh Qs 9d 9c Td")),
            1.0
        );
    }

    #[test]
    fn the_sampler_is_fair_and_classes_in_range() {
        let mut r = Rng::new(3);
        let mut sum = 0.0;
        for _ in 0..20_000 {
            let d = sample(&mut r);
            sum += d.edge as f64;
            for s in 0..2 {
                assert!(usize::from(d.class[s][0]) < THIRD);
                assert!(d.class[s].iter().all(|&c| usize::from(c) < BUCKETS));
                assert!(d.opp[s].iter().all(|&c| usize::from(c) < ORDERS));
            }
        }
        // sd of edge ≤ 1: the mean over 20,000 within 4 standard errors of 0.
        assert!(sum.abs() / 20_000.0 < 0.03, "{sum}");
    }
}
