//! The betting tree of heads-up fixed-limit stud hi/lo: every sequence the rules allow within a
//! street, the streets joined by what a player needs to remember of them.
//!
//! Positions are per street: 0 is whoever acts first there (on third street the bring-in, the
//! lowest up card; after it the best board showing), 1 the other. Who that is changes from street
//! to street with the cards, so the trainer maps positions to seats per deal ([`crate::stud`]),
//! and a player's information set carries which position it had ([`crate::stud::order_class`]).
//! Every street ends with equal contributions (fixed limit never puts a player all-in heads-up at
//! the presets' 100 big bets), so a position's chips are the seat's.
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

use crate::tree::{Betting, Next, Node, StudLimits, Tree, CALL, FOLD, HALF, MAX_ACTIONS};

/// Streets: third to seventh.
pub const STREETS: u8 = 5;

#[derive(Clone, Copy)]
struct State {
    round: u8,
    player: u8,
    contrib: [u32; 2],
    bets: u8,
    acted: [bool; 2],
    /// The position that made the last bet or raise this street.
    aggressor: Option<u8>,
    bring_in_due: bool,
}

struct Builder {
    l: StudLimits,
    nodes: Vec<Node>,
    /// A street's first node by (street, each player's chips in, the last street's aggressor).
    starts: HashMap<(u8, u32, Option<u8>), u32>,
}

/// The tree of `l`: `nodes[0]` is the bring-in's decision.
pub fn build(l: StudLimits) -> Tree {
    let mut b = Builder {
        l,
        nodes: Vec::new(),
        starts: HashMap::new(),
    };
    b.node(State {
        round: 0,
        player: 0,
        contrib: [l.ante; 2],
        bets: 0,
        acted: [false; 2],
        aggressor: None,
        bring_in_due: true,
    });
    Tree {
        betting: Betting::Stud(l),
        nodes: b.nodes,
    }
}

impl Builder {
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
            s.contrib[p] + self.l.bring_in
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
        if s.bets < self.l.cap {
            let to = if s.round == 0 && s.bets == 0 {
                // The completion, from the ante alone or over the bring-in.
                self.l.ante + self.l.small_bet
            } else if s.round < 2 {
                level + self.l.small_bet
            } else {
                level + self.l.big_bet
            };
            let r = State {
                player: o as u8,
                contrib: if p == 0 {
                    [to, s.contrib[1]]
                } else {
                    [s.contrib[0], to]
                },
                bets: s.bets + 1,
                acted: if p == 0 { [true, false] } else { [false, true] },
                aggressor: Some(p as u8),
                bring_in_due: false,
                ..s
            };
            raise_to[HALF] = to;
            next[HALF] = Next::Node(self.node(r));
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
        if s.round + 1 == STREETS {
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
        });
        self.starts.insert(key, n);
        Next::Node(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::STUD_FL;

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
}
