//! The betting trees of heads-up stud hi/lo. Fixed limit: every sequence the rules allow within a
//! street. Pot and no limit: the sizes of [`crate::tree`]'s big-bet abstraction (half the pot, the
//! pot, all-in; two of the first two a street, then only the largest) on stud's minimums (a
//! completion or an opening bet of at least the small bet, a raise of at least the street's
//! largest increment). Either way the streets are joined by what a player needs to remember of
//! them.
//!
//! Positions are per street: 0 is whoever acts first there (on third street the bring-in, the
//! lowest up card; after it the best board showing), 1 the other. Who that is changes from street
//! to street with the cards, so the trainer maps positions to seats per deal ([`crate::stud`]),
//! and a player's information set carries which position it had ([`crate::stud::order_class`]).
//! Every street ends with equal contributions (fixed limit never puts a player all-in heads-up at
//! the presets' 100 big bets; in pot and no limit both start with the same stack, and an all-in
//! called ends the betting), so a position's chips are the seat's.
//!
//! Every street's own betting is kept whole, but a new street begins from the pot and from who
//! made the last bet or raise on the street before (the history forgotten beyond that, an
//! imperfect recall of the betting): with the full history five streets would give some 500,000
//! decisions, a strategy too large to learn; this keeps a few thousand.
//!
//! Third street (docs/RULES.md, "Seven card stud"): the bring-in posts the bring-in or completes
//! to the small bet; after a bring-in the other folds, calls it or completes; if it calls, the
//! street is over (the bring-in has no option). The completion counts as the street's first bet
//! for the cap.

use std::collections::HashMap;

use crate::tree::{Betting, Next, Node, StudBig, Tree, ALL_IN, CALL, FOLD, HALF, MAX_ACTIONS, POT};

/// Streets: third to seventh.
pub const STREETS: u8 = 5;

#[derive(Clone, Copy)]
struct State {
    round: u8,
    player: u8,
    contrib: [u32; 2],
    /// Fixed limit: bets this street (the completion counts). Pot and no limit: bets and raises
    /// of half the pot or the pot this street.
    bets: u8,
    acted: [bool; 2],
    /// The position that made the last bet or raise this street.
    aggressor: Option<u8>,
    bring_in_due: bool,
    /// Pot and no limit: each position's contribution when the street began, and the street's
    /// largest full bet or raise increment so far (a completion counts by its increase over the
    /// bring-in: docs/RULES.md, "Readings the engine makes").
    base: u32,
    last_inc: u32,
}

struct Builder {
    betting: Betting,
    nodes: Vec<Node>,
    /// A street's first node by (street, each player's chips in, the last street's aggressor).
    starts: HashMap<(u8, u32, Option<u8>), u32>,
}

/// The tree of a stud `betting` ([`Betting::Stud`] or [`Betting::StudBig`]): `nodes[0]` is the
/// bring-in's decision.
pub fn build(betting: Betting) -> Tree {
    let ante = match betting {
        Betting::Stud(l) => l.ante,
        Betting::StudBig(b) => b.ante,
        _ => panic!("not stud: {betting:?}"),
    };
    let mut b = Builder {
        betting,
        nodes: Vec::new(),
        starts: HashMap::new(),
    };
    b.node(State {
        round: 0,
        player: 0,
        contrib: [ante; 2],
        bets: 0,
        acted: [false; 2],
        aggressor: None,
        bring_in_due: true,
        base: ante,
        last_inc: 0,
    });
    Tree {
        betting,
        nodes: b.nodes,
    }
}

impl Builder {
    fn bring_in(&self) -> u32 {
        match self.betting {
            Betting::Stud(l) => l.bring_in,
            Betting::StudBig(b) => b.bring_in,
            _ => unreachable!(),
        }
    }

    /// The bets and raises of `s`, as (action index, the acting position's contribution after it).
    fn raises(&self, s: &State) -> Vec<(usize, u32)> {
        let level = s.contrib[0].max(s.contrib[1]);
        match self.betting {
            Betting::Stud(l) => {
                if s.bets >= l.cap {
                    return Vec::new();
                }
                let to = if s.round == 0 && s.bets == 0 {
                    // The completion, from the ante alone or over the bring-in.
                    l.ante + l.small_bet
                } else if s.round < 2 {
                    level + l.small_bet
                } else {
                    level + l.big_bet
                };
                vec![(HALF, to)]
            }
            Betting::StudBig(b) => big_raises(b, s, level),
            _ => unreachable!(),
        }
    }

    fn node(&mut self, s: State) -> u32 {
        let at = self.nodes.len() as u32;
        self.nodes.push(Node {
            player: s.player,
            round: s.round,
            next: [Next::Illegal; MAX_ACTIONS],
            contrib: s.contrib,
            raise_to: [0; MAX_ACTIONS],
        });
        let p = usize::from(s.player);
        let o = 1 - p;
        let level = s.contrib[0].max(s.contrib[1]);
        let mut next = [Next::Illegal; MAX_ACTIONS];
        let mut raise_to = [0; MAX_ACTIONS];
        if s.contrib[o] > s.contrib[p] {
            next[FOLD] = Next::Fold {
                winner: o as u8,
                lost: s.contrib[p],
            };
        }
        // Check, call, or on third street post the bring-in.
        let mut c = s;
        c.contrib[p] = if s.bring_in_due {
            s.contrib[p] + self.bring_in()
        } else {
            level
        };
        c.acted[p] = true;
        c.bring_in_due = false;
        next[CALL] = if c.acted[o] {
            self.close(c)
        } else {
            c.player = o as u8;
            Next::Node(self.node(c))
        };
        let big = matches!(self.betting, Betting::StudBig(_));
        for (a, to) in self.raises(&s) {
            let r = State {
                player: o as u8,
                contrib: if p == 0 {
                    [to, s.contrib[1]]
                } else {
                    [s.contrib[0], to]
                },
                bets: s.bets + u8::from(!big || a != ALL_IN),
                acted: if p == 0 { [true, false] } else { [false, true] },
                aggressor: Some(p as u8),
                bring_in_due: false,
                last_inc: s.last_inc.max(to - level),
                ..s
            };
            raise_to[a] = to;
            next[a] = Next::Node(self.node(r));
        }
        let n = &mut self.nodes[at as usize];
        n.next = next;
        n.raise_to = raise_to;
        at
    }

    /// The street of `s` is closed: the showdown after seventh street, else the next street's
    /// first decision (shared by every history with the same pot and last aggressor).
    fn close(&mut self, s: State) -> Next {
        debug_assert_eq!(s.contrib[0], s.contrib[1]);
        let all_in = matches!(self.betting, Betting::StudBig(b) if s.contrib[0] >= b.stack);
        if s.round + 1 == STREETS || all_in {
            return Next::Showdown {
                stake: s.contrib[0],
            };
        }
        let key = (s.round + 1, s.contrib[0], s.aggressor);
        if let Some(&n) = self.starts.get(&key) {
            return Next::Node(n);
        }
        let n = self.node(State {
            round: s.round + 1,
            player: 0,
            contrib: s.contrib,
            bets: 0,
            acted: [false; 2],
            aggressor: None,
            bring_in_due: false,
            base: s.contrib[0],
            last_inc: 0,
        });
        self.starts.insert(key, n);
        Next::Node(n)
    }
}

/// Pot and no limit's bets and raises at `s` (the tree of [`crate::tree`]'s sizes on stud's
/// minimums): half the pot after the call, the pot, and in no limit all-in; a size below the
/// minimum (the small bet for a completion or an opening bet, else the last full increment) is
/// raised to it, equal sizes are merged, and beyond [`StudBig::raises`] only the largest stays.
fn big_raises(b: StudBig, s: &State, level: u32) -> Vec<(usize, u32)> {
    if level >= b.stack {
        return Vec::new();
    }
    let street_level = level - s.base;
    let min_to = if street_level == 0 || (s.round == 0 && street_level <= b.bring_in) {
        s.base + b.small_bet
    } else {
        level + s.last_inc
    };
    // Heads-up the player to act faces the level: the pot after its call is twice the level.
    let pot_to = (3 * level).max(min_to).min(b.stack);
    let sizes = [
        (HALF, (2 * level).max(min_to)),
        (POT, (3 * level).max(min_to)),
    ];
    let allowed: &[(usize, u32)] = if s.bets < b.raises {
        &sizes
    } else if b.no_limit {
        &[]
    } else {
        &sizes[1..]
    };
    let mut out: Vec<(usize, u32)> = Vec::new();
    for &(a, to) in allowed {
        let to = to.min(b.stack);
        let cap = if b.no_limit { b.stack - 1 } else { pot_to };
        if to <= cap && out.iter().all(|&(_, t)| t != to) {
            out.push((a, to));
        }
    }
    let all_in = if b.no_limit { b.stack } else { pot_to };
    if all_in == b.stack && out.iter().all(|&(_, t)| t != all_in) {
        out.push((ALL_IN, all_in));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::{STUD_FL, STUD_NL, STUD_PL};

    #[test]
    fn third_street_follows_the_bring_in_rules_and_the_cap_holds() {
        let t = Tree::new(STUD_FL);
        assert_eq!(t.betting.rounds(), 5);
        let root = t.nodes[0];
        assert_eq!((root.player, root.round), (0, 0));
        assert_eq!(root.next[FOLD], Next::Illegal, "the bring-in cannot fold");
        assert_eq!(
            root.raise_to[HALF], 240,
            "completes to the small bet over the ante"
        );
        let Next::Node(after) = root.next[CALL] else {
            panic!("the bring-in posted, the other acts")
        };
        let after = t.nodes[after as usize];
        assert_eq!((after.player, after.contrib), (1, [90, 40]));
        assert_eq!(
            after.next[FOLD],
            Next::Fold {
                winner: 0,
                lost: 40
            }
        );
        assert_eq!(after.raise_to[HALF], 240, "a completion over the bring-in");
        // A call of the bring-in ends the street: fourth street, position 0 first.
        let Next::Node(fourth) = after.next[CALL] else {
            panic!("fourth street")
        };
        let fourth = t.nodes[fourth as usize];
        assert_eq!(
            (fourth.player, fourth.round, fourth.contrib),
            (0, 1, [90, 90])
        );
        assert_eq!(fourth.raise_to[HALF], 290);
        // Completion and three raises, then only calls: 240, 440, 640, 840.
        let mut n = 0u32;
        for to in [240, 440, 640, 840] {
            assert_eq!(t.nodes[n as usize].raise_to[HALF], to);
            let Next::Node(m) = t.nodes[n as usize].next[HALF] else {
                panic!("below the cap")
            };
            n = m;
        }
        assert_eq!(t.nodes[n as usize].next[HALF], Next::Illegal, "capped");
        // The longest hand: four bets on every street.
        let mut top = 0;
        for node in &t.nodes {
            for x in node.next {
                if let Next::Showdown { stake } = x {
                    top = top.max(stake);
                }
            }
        }
        assert_eq!(top, 40 + 4 * 200 + 4 * 200 + 3 * 4 * 400);
        assert!(t.nodes.len() < 20_000, "{} nodes", t.nodes.len());
    }

    /// Walks every path of `t` from `n`: (decision nodes, largest stake), checking each raise
    /// against the rules of pot- and no-limit stud.
    fn walk_big(t: &Tree, n: u32, no_limit: bool, acc: &mut (usize, u32)) {
        acc.0 += 1;
        let node = t.nodes[n as usize];
        let level = node.contrib[0].max(node.contrib[1]);
        for (a, x) in node.next.into_iter().enumerate() {
            match x {
                Next::Illegal => continue,
                Next::Node(m) => walk_big(t, m, no_limit, acc),
                Next::Fold { lost, .. } | Next::Showdown { stake: lost } => acc.1 = acc.1.max(lost),
            }
            if a >= HALF {
                let to = node.raise_to[a];
                assert!(to > level && to <= 20_000, "{node:?}");
                // Pot limit: at most the pot after the call, unless that is below the small bet
                // (the minimum completion or opening bet).
                if !no_limit {
                    assert!(to <= 3 * level || to - level <= 200, "{node:?}");
                }
                assert!(a != ALL_IN || to == 20_000, "all-in is the stack: {node:?}");
            }
        }
    }

    #[test]
    fn pot_and_no_limit_stud_keep_the_bring_in_the_minimums_and_the_pot() {
        for (betting, no_limit) in [(STUD_PL, false), (STUD_NL, true)] {
            let t = Tree::new(betting);
            let mut acc = (0, 0);
            walk_big(&t, 0, no_limit, &mut acc);
            assert_eq!(acc.1, 20_000, "someone can get all-in");
            assert!(
                acc.0 >= t.nodes.len(),
                "shared streets are walked once per path"
            );
            let root = t.nodes[0];
            assert_eq!(root.next[FOLD], Next::Illegal, "the bring-in cannot fold");
            // The completion is to the small bet whatever the pot (80 in antes).
            assert_eq!(root.raise_to[HALF], 240);
            assert_eq!(
                root.next[POT],
                Next::Illegal,
                "the pot is below the minimum: merged"
            );
            assert_eq!(root.next[ALL_IN] != Next::Illegal, no_limit);
            let Next::Node(after) = root.next[CALL] else {
                panic!("the bring-in posted")
            };
            let after = t.nodes[after as usize];
            assert_eq!(after.contrib, [90, 40]);
            // Over the bring-in: the small bet (240), or the pot after calling 50 (180 + 90).
            assert_eq!(after.raise_to[HALF], 240);
            assert_eq!(after.raise_to[POT], 270);
            let Next::Node(done) = after.next[POT] else {
                panic!("completed")
            };
            // The completion counted by its increase over the bring-in (270 − 90 = 180): a
            // half-pot raise (to 540) is above the minimum (450).
            let done = t.nodes[done as usize];
            assert_eq!(done.raise_to[HALF], 540);
            assert_eq!(done.raise_to[POT], 810);
            // A called bring-in ends the street; fourth street opens at the small bet at least.
            let Next::Node(fourth) = after.next[CALL] else {
                panic!("fourth street")
            };
            let fourth = t.nodes[fourth as usize];
            assert_eq!((fourth.round, fourth.contrib), (1, [90, 90]));
            assert_eq!(
                fourth.raise_to[HALF], 290,
                "half the pot (90) is below the small bet"
            );
            assert_eq!(fourth.next[POT], Next::Illegal, "the pot (180) too: merged");
            assert!(t.nodes.len() < 20_000, "{} nodes", t.nodes.len());
        }
    }
}
