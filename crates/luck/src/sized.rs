//! The size term of the value model [`crate::Model::Sized`]: in pot and no limit the chips a card
//! moves depend less on the pot so far than on how much of the stacks behind will still go in,
//! and that depends on both hands — two strong hands put the stacks in, a weak one folds. So,
//! heads-up in triple draw while both seats can still bet, the value of seat `i` gains
//!
//! ```text
//! B · Σ_j γ_j · (s_i − ½) · [w = j]
//! ```
//!
//! with `B` the chips the shorter stack has behind, `s_i` the seat's showdown-now share (1, ½ or
//! 0, from the strength keys of [`crate::value`]), `w` the class of the weaker of the two
//! holdings ([`class`]: how likely both are to put more in) and `γ_j` fitted per street and
//! structure ([`crate::Scale`]'s third part, `luck_fit`). The term is `B` times a function of
//! the cards, whose mean over the stub is enumerated exactly at each card, like the shares: each
//! correction stays mean-zero whatever `γ` is (the estimate stays unbiased), and the two seats'
//! terms are opposite (the adjusted results still conserve chips).

use pitboss_cards::{Card, CardSet};

use crate::value;

/// Classes of the weaker holding: pair or worse, ten or worse, nine (or a card still to come),
/// eight, seven or better.
pub const CLASSES: usize = 5;

/// The class of a deuce-to-seven key ([`value::d27_key`]; a holding of fewer than five cards
/// counts its missing cards as 9.5s).
#[inline]
pub fn class(key: u32) -> usize {
    match value::d27_top_half(key) {
        None => 0,
        Some(16..) => 1,
        Some(13..=15) => 2,
        Some(11..=12) => 3,
        Some(_) => 4,
    }
}

/// The size features of card `c` dealt to a seat holding `held`, against the other seat's key
/// `other`: for each class `j`, `(s − ½)·[w = j]` with the card minus its mean over `candidates`
/// (the stub; `c` among them). The other seat's features are the opposite.
pub fn deltas(
    held: CardSet,
    c: Card,
    candidates: CardSet,
    other: u32,
    ace_five_straight: bool,
) -> [f64; CLASSES] {
    let other_class = class(other);
    let feature = |x: Card| {
        let mut set = held;
        set.insert(x);
        let k = value::d27_key(set, ace_five_straight);
        let s = match k.cmp(&other) {
            std::cmp::Ordering::Greater => 0.5,
            std::cmp::Ordering::Equal => 0.0,
            std::cmp::Ordering::Less => -0.5,
        };
        (class(k).min(other_class), s)
    };
    let mut sum = [0.0; CLASSES];
    for x in candidates.iter() {
        let (j, s) = feature(x);
        sum[j] += s;
    }
    let k = f64::from(candidates.len());
    let mut out = sum.map(|v| -v / k);
    let (j, s) = feature(c);
    out[j] += s;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitboss_cards::parse_cards;

    fn set(s: &str) -> CardSet {
        parse_cards(s).unwrap().iter().collect()
    }

    #[test]
    fn classes_order_the_holdings() {
        let key = |s: &str| value::d27_key(set(s), false);
        assert_eq!(class(key("2c 2d 3h 5s 7c")), 0, "a pair");
        assert_eq!(class(key("Kc 2d 3h 5s 7c")), 1);
        assert_eq!(class(key("Tc 2d 3h 5s 7c")), 1);
        assert_eq!(class(key("9c 2d 3h 5s 7c")), 2);
        assert_eq!(class(key("2d 3h 5s 7c")), 2, "a card to come counts as 9.5");
        assert_eq!(class(key("8c 2d 3h 5s 7c")), 3);
        assert_eq!(class(key("7c 2d 3h 5s 4c")), 4);
    }

    #[test]
    fn the_features_have_mean_zero_over_the_stub() {
        let held = set("2c 3d 4h 7s");
        let other = value::d27_key(set("8c 6d 5h 3s 2d"), false);
        let stub = CardSet::FULL
            .difference(held)
            .difference(set("8c 6d 5h 3s 2d"));
        let mut total = [0.0; CLASSES];
        for c in stub.iter() {
            let d = deltas(held, c, stub, other, false);
            for (t, v) in total.iter_mut().zip(d) {
                *t += v;
            }
        }
        assert!(total.iter().all(|t| t.abs() < 1e-9), "{total:?}");
        // A five makes a seven low, which beats the eight: a win in class 3 (the eight).
        let five = set("5c").iter().next().unwrap();
        let d = deltas(held, five, stub, other, false);
        assert!(d[3] > 0.0, "{d:?}");
    }
}
