//! A slow, obviously-correct reference for the three rankings, written from docs/RULES.md without
//! looking at the fast evaluators: sort the ranks, count groups, check straights and flushes, and
//! produce a key whose derived `Ord` is the hand order (larger = better). Bigger holdings take the
//! best key over all five-card subsets.

use pitboss_cards::Card;

/// Categories, weakest first (the same order as docs/RULES.md lists them, reversed).
pub const CLASS_NAMES: [&str; 9] = [
    "high card",
    "pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
];

/// A high-hand key: category index, then the tie-break ranks (2 = deuce ... 14 = ace).
pub type HighKey = (u8, Vec<u8>);

/// The high key of exactly five cards. `wheel_straight`: A-2-3-4-5 is a five-high straight.
pub fn high5(cards: &[Card], wheel_straight: bool) -> HighKey {
    assert_eq!(cards.len(), 5);
    let mut ranks: Vec<u8> = cards.iter().map(|c| c.rank().index() + 2).collect();
    ranks.sort_unstable_by(|a, b| b.cmp(a));
    let flush = cards.iter().all(|c| c.suit() == cards[0].suit());
    let distinct = {
        let mut d = ranks.clone();
        d.dedup();
        d.len() == 5
    };
    let straight_top = if distinct && ranks[0] - ranks[4] == 4 {
        Some(ranks[0])
    } else if wheel_straight && ranks == [14, 5, 4, 3, 2] {
        Some(5)
    } else {
        None
    };
    // Groups as (count, rank), biggest group first, then higher rank first.
    let mut groups: Vec<(u8, u8)> = Vec::new();
    for &r in &ranks {
        match groups.iter_mut().find(|g| g.1 == r) {
            Some(g) => g.0 += 1,
            None => groups.push((1, r)),
        }
    }
    groups.sort_unstable_by(|a, b| b.cmp(a));
    let tiebreak: Vec<u8> = groups.iter().map(|g| g.1).collect();
    let shape: Vec<u8> = groups.iter().map(|g| g.0).collect();
    let class = match (straight_top, flush, shape.as_slice()) {
        (Some(_), true, _) => 8,
        (_, _, [4, 1]) => 7,
        (_, _, [3, 2]) => 6,
        (None, true, _) => 5,
        (Some(_), false, _) => 4,
        (_, _, [3, 1, 1]) => 3,
        (_, _, [2, 2, 1]) => 2,
        (_, _, [2, 1, 1, 1]) => 1,
        _ => 0,
    };
    match straight_top {
        Some(top) => (class, vec![top]),
        None => (class, tiebreak),
    }
}

/// The deuce-to-seven key of five cards: the reversed high key, aces high.
pub fn deuce_to_seven5(cards: &[Card], ace_five_straight: bool) -> std::cmp::Reverse<HighKey> {
    std::cmp::Reverse(high5(cards, ace_five_straight))
}

/// The ace-to-five eight-or-better key of five cards, `None` if they do not qualify: five distinct
/// ranks all 8 or lower (ace = 1); a lower highest card is better, then the next, and so on.
pub fn a5_5(cards: &[Card]) -> Option<std::cmp::Reverse<Vec<u8>>> {
    let mut low: Vec<u8> = cards
        .iter()
        .map(|c| match c.rank().index() + 2 {
            14 => 1,
            r => r,
        })
        .collect();
    low.sort_unstable_by(|a, b| b.cmp(a));
    let mut d = low.clone();
    d.dedup();
    (d.len() == 5 && low[0] <= 8).then_some(std::cmp::Reverse(low))
}

/// Every five-card subset of `cards` (5 to 7 cards).
pub fn fives(cards: &[Card]) -> Vec<[Card; 5]> {
    let n = cards.len();
    let mut out = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            for c in b + 1..n {
                for d in c + 1..n {
                    for e in d + 1..n {
                        out.push([cards[a], cards[b], cards[c], cards[d], cards[e]]);
                    }
                }
            }
        }
    }
    out
}

/// The best high key over all five-card subsets.
pub fn high_best(cards: &[Card]) -> HighKey {
    fives(cards)
        .iter()
        .map(|f| high5(f, true))
        .max()
        .expect("at least five cards")
}

/// The best ace-to-five low over all five-card subsets.
pub fn a5_best(cards: &[Card]) -> Option<std::cmp::Reverse<Vec<u8>>> {
    fives(cards).iter().filter_map(|f| a5_5(f)).max()
}
