//! Invariants of the hand viewer's frames, checked against the PHH text itself (the cards each
//! player was dealt, the betting lines) and the replay's finishing stacks.

use std::collections::HashSet;

use pitboss_phh::frames::{frames_for, to_script_json, Audience, Viewer};
use pitboss_phh::Replayed;

/// The cards each PHH player was dealt (`d dh pK CARDS`), read from the action lines.
pub fn dealt_by_player(r: &Replayed) -> Vec<HashSet<String>> {
    let n = r.phh.starting_stacks.len();
    let mut out = vec![HashSet::new(); n];
    for a in &r.phh.actions {
        let w: Vec<&str> = a.split_whitespace().collect();
        if let ["d", "dh", p, cards] = w.as_slice() {
            let k: usize = p[1..].parse().expect("pK");
            let cs: Vec<char> = cards.chars().collect();
            for c in cs.chunks(2) {
                out[k - 1].insert(c.iter().collect());
            }
        }
    }
    out
}

/// Betting lines in the PHH text: folds, checks/calls, bets/raises/completions, bring-ins.
pub fn betting_lines(r: &Replayed) -> usize {
    r.phh
        .actions
        .iter()
        .filter(|a| {
            let w: Vec<&str> = a.split_whitespace().collect();
            w.len() >= 2 && w[0].starts_with('p') && matches!(w[1], "f" | "cc" | "cbr" | "pb")
        })
        .count()
}

const BETTING_WORDS: [&str; 7] = [
    " folds",
    " checks",
    " calls ",
    " bets ",
    " raises to ",
    " completes to ",
    " brings in ",
];

/// Checks every invariant of the players' frames and the other audiences' secrecy.
pub fn check(r: &Replayed) -> Viewer {
    let v = frames_for(r, Audience::Players);
    let n = r.table.seats();
    let start: Vec<u64> = v.header.players.iter().map(|p| p.starting_stack).collect();
    let total: u64 = start.iter().sum();
    assert_eq!(start.len(), n);
    assert!(!v.steps.is_empty());
    let dealt = dealt_by_player(r);
    let mut folded = vec![false; n];
    for (i, st) in v.steps.iter().enumerate() {
        let stacks: u64 = st.seats.iter().map(|s| s.stack).sum();
        assert_eq!(
            stacks + st.pot,
            total,
            "chips conserved at step {i}: {}",
            st.text
        );
        let bets: u64 = st.seats.iter().map(|s| s.bet).sum();
        assert!(bets <= st.pot, "bets {bets} > pot {} at step {i}", st.pot);
        let mut seen = HashSet::new();
        for s in &st.seats {
            let k = r.players.player_of(s.seat);
            assert!(!folded[s.seat as usize] || s.folded, "unfolded at step {i}");
            folded[s.seat as usize] = s.folded;
            for c in &s.cards {
                let c = c.card.as_ref().expect("a seat's own card is never null");
                assert!(dealt[k].contains(c), "{c} was not dealt to p{}", k + 1);
                // A folded hand keeps showing what it held; a reshuffle may deal those cards again.
                assert!(
                    s.folded || seen.insert(c.clone()),
                    "{c} held twice at step {i}"
                );
            }
            for d in &s.discards {
                for c in &d.cards {
                    let c = c.as_ref().expect("own discards are named");
                    assert!(
                        dealt[k].contains(c),
                        "discard {c} was not dealt to p{}",
                        k + 1
                    );
                }
            }
        }
    }
    // The forced bets are the first step, and nothing else moved chips.
    let first = &v.steps[0];
    let posted: u64 = first
        .seats
        .iter()
        .map(|s| start[s.seat as usize] - s.stack)
        .sum();
    assert_eq!(first.pot, posted);
    assert!(first.seats.iter().all(|s| s.cards.is_empty()));
    // One step per betting line of the file.
    let betting_steps = v
        .steps
        .iter()
        .filter(|s| BETTING_WORDS.iter().any(|w| s.text.contains(w)))
        .count();
    assert_eq!(
        betting_steps,
        betting_lines(r),
        "one step per betting action"
    );
    // The end.
    let last = v.steps.last().unwrap();
    if let Some(fin) = &r.finishing_stacks {
        assert_eq!(last.street, "result");
        assert_eq!(last.pot, 0);
        for s in &last.seats {
            assert_eq!(s.stack, fin[r.players.player_of(s.seat)], "finishing stack");
        }
        let res = last.result.as_ref().expect("a finished hand has a result");
        let net: i64 = res.iter().map(|x| x.net).sum();
        assert_eq!(net, 0);
        for x in res {
            assert_eq!(x.won, x.awards.iter().map(|a| a.amount).sum::<u64>());
            assert_eq!(x.finishing_stack, last.seats[x.seat as usize].stack);
        }
    }
    check_secrecy(r, &v);
    let json = to_script_json(&v);
    assert!(!json.contains('<'), "no `<` in the script JSON");
    let back: Viewer = serde_json::from_str(&json).expect("the JSON reads back");
    assert_eq!(back, v);
    v
}

/// A spectator sees no down card before its owner shows; seat `s` sees its own and up cards only.
fn check_secrecy(r: &Replayed, players: &Viewer) {
    let n = r.table.seats() as u8;
    let spectator = frames_for(r, Audience::Spectator);
    let seat0 = frames_for(r, Audience::Seat(0));
    let seat1 = frames_for(r, Audience::Seat(n - 1));
    for (view, own) in [(&spectator, None), (&seat0, Some(0)), (&seat1, Some(n - 1))] {
        assert_eq!(view.steps.len(), players.steps.len());
        for (st, full) in view.steps.iter().zip(&players.steps) {
            assert_eq!(st.pot, full.pot);
            for (s, f) in st.seats.iter().zip(&full.seats) {
                assert_eq!(s.cards.len(), f.cards.len());
                let mine = own == Some(s.seat);
                for (c, fc) in s.cards.iter().zip(&f.cards) {
                    if mine || c.up || s.shown {
                        assert_eq!(c.card, fc.card);
                    } else {
                        assert_eq!(c.card, None, "hidden card of seat {} named", s.seat);
                    }
                }
                for d in &s.discards {
                    assert!(mine || d.cards.iter().all(Option::is_none));
                }
                if !mine && !s.folded {
                    // No hidden card of this seat is named anywhere in this step's text (a folded
                    // seat's cards may be reshuffled, dealt again and shown by someone else).
                    for (c, fc) in s.cards.iter().zip(&f.cards) {
                        if c.card.is_none() {
                            let name = fc.card.as_ref().unwrap();
                            assert!(
                                !st.text.split_whitespace().any(|w| w.trim_matches(|x: char| !x.is_alphanumeric()) == name),
                                "{name} leaks in `{}`",
                                st.text
                            );
                        }
                    }
                }
            }
        }
    }
}
