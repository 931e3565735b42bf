//! A replayed hand rendered for a person: the table, every card as each seat saw it, the actions
//! with amounts and pot sizes, the draws, the showdown, and who won what with which hand.

use std::fmt::Write as _;

use pitboss_cards::{eval, Card, CardSet};
use pitboss_rules::{Chips, Event, Share, Variant, MAX_SEATS};

use crate::replay::{Replayed, Verdict};

fn cards(set: CardSet) -> String {
    set.iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

fn five(cs: &[Card; 5]) -> String {
    let mut v = cs.to_vec();
    v.sort_unstable_by(|a, b| b.cmp(a));
    v.iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The number a hand goes by, as `hands.csv` and `phh show --hand` use it: the file's `hand`
/// field, else its `.phhs` table name (`[7]`); `None` for a lone `.phh` without `hand`.
pub fn hand_number(r: &Replayed) -> Option<String> {
    r.phh
        .hand
        .as_ref()
        .map(ToString::to_string)
        .or_else(|| r.at.hand.clone())
}

/// How the text names a seat: `seat 1`, `seat 2`, ... — numbered from 1 in seat order, as
/// `hands.csv` (its `seat` column) and the file's own `seats` field number them. PHH's `p1`,
/// `p2`, ... are the players in the variant's order (triple draw: from the left of the button),
/// so they are only named once, in the table at the top, beside the seat they sit in.
fn seat_label(seat: u8) -> String {
    pitboss_rules::Seat(seat).to_string()
}

/// Renders a replayed hand as text.
pub fn render(r: &Replayed) -> String {
    let game = r.table.game();
    let n = r.table.seats();
    let pn = seat_label;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "== {} — {} {:?} {:?}",
        match hand_number(r) {
            Some(h) => format!("hand {h} of {}", r.at.file),
            None => r.at.file.clone(),
        },
        r.phh.variant,
        game.variant,
        game.structure
    );
    let st = &game.stakes;
    match game.variant {
        Variant::TripleDraw => {
            let _ = writeln!(
                s,
                "blinds {}/{}, ante {}, small bet {}, big bet {}; button {}",
                st.small_blind,
                st.big_blind,
                st.ante,
                st.small_bet,
                st.big_bet,
                pn(r.table.button().0)
            );
        }
        Variant::StudHiLo => {
            let _ = writeln!(
                s,
                "ante {}, bring-in {}, small bet {}, big bet {}",
                st.ante, st.bring_in, st.small_bet, st.big_bet
            );
        }
    }
    for seat in 0..n as u8 {
        let k = r.players.player_of(seat);
        let name = r
            .phh
            .players
            .as_ref()
            .and_then(|p| p.get(k))
            .map(String::as_str)
            .unwrap_or("");
        let _ = writeln!(
            s,
            "  {}  {:<16} stack {}  (p{} in the file)",
            pn(seat),
            name,
            r.table.stack(pitboss_rules::Seat(seat)),
            k + 1
        );
    }
    let mut pot: Chips = 0;
    let mut bet = [0 as Chips; MAX_SEATS];
    let mut holding: [CardSet; MAX_SEATS] = [CardSet::EMPTY; MAX_SEATS];
    let mut community = None;
    for e in &r.events {
        let line = match *e {
            Event::Round { round } => {
                bet = [0; MAX_SEATS];
                let label = match game.variant {
                    Variant::TripleDraw if round == 0 => "before the first draw".to_string(),
                    Variant::TripleDraw => format!("after draw {round}"),
                    Variant::StudHiLo => format!(
                        "{} street",
                        ["third", "fourth", "fifth", "sixth", "seventh"][usize::from(round.min(4))]
                    ),
                };
                format!("-- betting {label} (pot {pot})")
            }
            Event::Ante {
                seat,
                amount,
                all_in,
            } => {
                pot += amount;
                format!(
                    "{} antes {amount}{}",
                    pn(seat.0),
                    if all_in { " and is all-in" } else { "" }
                )
            }
            Event::Blind {
                seat,
                blind,
                amount,
                all_in,
            } => {
                pot += amount;
                bet[seat.index()] += amount;
                format!(
                    "{} posts the {:?} blind {amount}{}",
                    pn(seat.0),
                    blind,
                    if all_in { " and is all-in" } else { "" }
                )
                .to_lowercase()
            }
            Event::Deal { seat, card, up } => {
                let c = card.map_or("??".to_string(), |c| c.to_string());
                if let Some(c) = card {
                    holding[seat.index()].insert(c);
                }
                format!(
                    "{} is dealt {c} {}",
                    pn(seat.0),
                    if up {
                        "face up"
                    } else {
                        "face down (only they see it)"
                    }
                )
            }
            Event::Community { card } => {
                community = Some(card);
                format!("community card {card} (the stub was short), shared by every live player")
            }
            Event::BringIn { seat, amount, .. } => {
                pot += amount;
                bet[seat.index()] += amount;
                format!("{} brings in for {amount} (pot {pot})", pn(seat.0))
            }
            Event::Fold { seat } => format!("{} folds", pn(seat.0)),
            Event::Check { seat } => format!("{} checks", pn(seat.0)),
            Event::Call {
                seat,
                amount,
                all_in,
            } => {
                pot += amount;
                bet[seat.index()] += amount;
                format!(
                    "{} calls {amount}{} (pot {pot})",
                    pn(seat.0),
                    if all_in { ", all-in" } else { "" }
                )
            }
            Event::Raise {
                seat,
                kind,
                to,
                all_in,
            } => {
                let add = to - bet[seat.index()];
                pot += add;
                bet[seat.index()] = to;
                format!(
                    "{} {:?}s to {to}{} (pot {pot})",
                    pn(seat.0),
                    kind,
                    if all_in { ", all-in" } else { "" }
                )
                .to_lowercase()
            }
            Event::Discard {
                seat,
                count,
                cards: c,
            } => {
                if let Some(c) = c {
                    holding[seat.index()] = holding[seat.index()].difference(c);
                }
                match (count, c) {
                    (0, _) => format!("{} stands pat", pn(seat.0)),
                    (k, Some(c)) => format!("{} draws {k} (throws {})", pn(seat.0), cards(c)),
                    (k, None) => format!("{} draws {k}", pn(seat.0)),
                }
            }
            Event::Reshuffle { cards: k } => {
                format!("the stub ran out: {k} mucked cards are shuffled into a new stub")
            }
            Event::Return { seat, amount } => {
                pot -= amount;
                format!("{amount} uncalled returned to {}", pn(seat.0))
            }
            Event::Show { seat, cards: c } => {
                let mut all = c;
                if let Some(x) = community {
                    all.insert(x);
                }
                let desc = match game.variant {
                    Variant::TripleDraw => {
                        let (v, f) =
                            eval::deuce_to_seven_best_five(all, game.options.ace_five_straight);
                        format!("{} ({})", five(&f), v.class())
                    }
                    Variant::StudHiLo => {
                        let (v, f) = eval::high_best_five(all);
                        let low = eval::ace_to_five_8_best_five(all)
                            .map_or("no low".to_string(), |(lv, lf)| {
                                format!("low {} ({lv})", five(&lf))
                            });
                        format!("high {} ({}), {low}", five(&f), v.class())
                    }
                };
                format!("{} shows {}: {desc}", pn(seat.0), cards(c))
            }
            Event::Muck { seat } => format!("{} mucks (cards stay hidden)", pn(seat.0)),
            Event::Award {
                seat,
                pot: p,
                share,
                amount,
            } => {
                let which = if p == 0 {
                    "the main pot".to_string()
                } else {
                    format!("side pot {p}")
                };
                let all = {
                    let mut a = holding[seat.index()];
                    if let Some(x) = community {
                        a.insert(x);
                    }
                    a
                };
                let with = match (game.variant, share) {
                    (Variant::StudHiLo, Share::Low) => eval::ace_to_five_8_best_five(all)
                        .map(|(_, f)| format!(" with {}", five(&f)))
                        .unwrap_or_default(),
                    (Variant::StudHiLo, _) if all.len() >= 5 => {
                        let (v, f) = eval::high_best_five(all);
                        format!(" with {} ({})", five(&f), v.class())
                    }
                    (Variant::TripleDraw, _) if all.len() == 5 => {
                        let (v, f) =
                            eval::deuce_to_seven_best_five(all, game.options.ace_five_straight);
                        format!(" with {} ({})", five(&f), v.class())
                    }
                    _ => " (everyone else folded)".to_string(),
                };
                let half = match share {
                    Share::Whole => String::new(),
                    Share::High => "the high half of ".into(),
                    Share::Low => "the low half of ".into(),
                };
                format!("{} wins {amount}: {half}{which}{with}", pn(seat.0))
            }
        };
        let _ = writeln!(s, "  {line}");
    }
    if let Some(f) = &r.finishing_stacks {
        // In seat order, with each seat's result: the `net` of its row in `hands.csv`.
        let by_seat: Vec<String> = (0..n as u8)
            .map(|seat| {
                let end = f[r.players.player_of(seat)];
                let net = end as i64 - r.table.stack(pitboss_rules::Seat(seat)) as i64;
                format!("{} {end} ({net:+})", pn(seat))
            })
            .collect();
        let _ = writeln!(s, "finishing stacks (net): {}", by_seat.join(", "));
    }
    match &r.verdict {
        Verdict::Verified => {
            let _ = writeln!(s, "verified");
        }
        Verdict::Rejected(rej) => {
            let _ = writeln!(s, "NOT VERIFIED: {rej}");
        }
    }
    if r.placeholders > 0 {
        let _ = writeln!(
            s,
            "({} unknown cards were replayed with placeholders)",
            r.placeholders
        );
    }
    s
}

/// One line per action, forced bet included, prefixed with the hand's number: `[12] seat 1
/// posts the small blind 50`, `[12] seat 2 raises to 400`. No pots, no dealing, no headings, so
/// that long files can be read with `grep` and `less`.
pub fn render_compact(r: &Replayed, number: &str) -> String {
    let pn = seat_label;
    let mut s = String::new();
    for e in &r.events {
        let line = match *e {
            Event::Ante { seat, amount, .. } => format!("{} antes {amount}", pn(seat.0)),
            Event::Blind {
                seat,
                blind,
                amount,
                ..
            } => format!("{} posts the {:?} blind {amount}", pn(seat.0), blind).to_lowercase(),
            Event::BringIn { seat, amount, .. } => format!("{} brings in {amount}", pn(seat.0)),
            Event::Fold { seat } => format!("{} folds", pn(seat.0)),
            Event::Check { seat } => format!("{} checks", pn(seat.0)),
            Event::Call { seat, amount, .. } => format!("{} calls {amount}", pn(seat.0)),
            Event::Raise { seat, kind, to, .. } => {
                format!("{} {:?}s to {to}", pn(seat.0), kind).to_lowercase()
            }
            Event::Discard { seat, count, .. } => format!("{} draws {count}", pn(seat.0)),
            Event::Show { seat, cards: c } => format!("{} shows {}", pn(seat.0), cards(c)),
            Event::Award { seat, amount, .. } => format!("{} wins {amount}", pn(seat.0)),
            _ => continue,
        };
        let _ = writeln!(s, "[{number}] {line}");
    }
    if let Verdict::Rejected(rej) = &r.verdict {
        let _ = writeln!(s, "[{number}] NOT VERIFIED: {rej}");
    }
    s
}
