//! The hands a seat's cards make, with the evaluators `show` uses, and the result step's table.

use pitboss_cards::{eval, Card, CardSet};
use pitboss_rules::{Game, Variant};

use super::{Made, SeatResult};

/// The five cards, highest first, as `show` writes them.
fn five(cs: &[Card; 5]) -> Vec<String> {
    let mut v = cs.to_vec();
    v.sort_unstable_by(|a, b| b.cmp(a));
    v.iter().map(|c| c.to_string()).collect()
}

/// The best hands of a seat's cards (the community card included): triple draw's deuce-to-seven
/// low of five cards; stud's high and, when one qualifies, its eight-or-better low. Nothing for a
/// seat with too few cards (folded early, or an unfinished replay).
pub(super) fn made(game: &Game, cards: CardSet) -> Vec<Made> {
    match game.variant {
        Variant::TripleDraw if cards.len() == 5 => {
            let (v, f) = eval::deuce_to_seven_best_five(cards, game.options.ace_five_straight);
            let ranks: Vec<String> = f.iter().map(|c| c.rank().to_char().to_string()).collect();
            vec![Made {
                kind: "deuce-to-seven".into(),
                cards: five(&f),
                name: format!("{} ({})", ranks.join("-"), v.class()),
            }]
        }
        Variant::StudHiLo if cards.len() >= 5 => {
            let (v, f) = eval::high_best_five(cards);
            let mut out = vec![Made {
                kind: "high".into(),
                cards: five(&f),
                name: v.class().to_string(),
            }];
            if let Some((lv, lf)) = eval::ace_to_five_8_best_five(cards) {
                out.push(Made {
                    kind: "low".into(),
                    cards: five(&lf),
                    name: lv.to_string(),
                });
            }
            out
        }
        _ => Vec::new(),
    }
}

/// A made hand in a sentence: `high Kc Kd 9s 7h 6c (pair), low 8-6-4-3-A`.
pub(super) fn describe(made: &[Made]) -> String {
    made.iter()
        .map(|m| match m.kind.as_str() {
            "low" => format!("low {}", m.name),
            "high" => format!("high {} ({})", m.cards.join(" "), m.name),
            _ => m.name.clone(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The result line of the last step: `p3 wins 1280 (high 640, low 640); p1 wins 0`.
pub(super) fn summary(results: &[SeatResult], who: impl Fn(u8) -> String) -> String {
    let winners: Vec<String> = results
        .iter()
        .filter(|s| s.won > 0)
        .map(|s| {
            let parts: Vec<String> = s
                .awards
                .iter()
                .map(|a| {
                    let pot = if a.pot == 0 {
                        "main".to_string()
                    } else {
                        format!("side {}", a.pot)
                    };
                    match a.share.as_str() {
                        "whole" => format!("{} {pot}", a.amount),
                        half => format!("{} {half} of {pot}", a.amount),
                    }
                })
                .collect();
            format!("{} wins {} ({})", who(s.seat), s.won, parts.join(", "))
        })
        .collect();
    if winners.is_empty() {
        "nobody wins".to_string()
    } else {
        winners.join("; ")
    }
}
