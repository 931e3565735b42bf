//! The betting tree of heads-up fixed-limit triple draw: every sequence of folds, checks, calls,
//! bets and raises the rules allow, across the four betting rounds, as a flat table of decision
//! nodes.
//!
//! Position 0 is the button (the small blind): it acts first before the first draw and last after
//! it (docs/RULES.md, heads-up). Before the first draw the big blind is the round's bet; every
//! round allows `cap` bets (a bet and `cap − 1` raises). Stacks are assumed deep enough never to
//! be all-in: at the presets' 100 big bets the most a heads-up hand can cost is 24 big blinds.

/// What an action leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// The action is not allowed here.
    Illegal,
    /// Another decision (in this round or, after the draw, the next).
    Node(u32),
    /// The player to act folded: `winner` takes the pot; the loser loses `lost` (its
    /// contribution).
    Fold { winner: u8, lost: u32 },
    /// The last round closed: a showdown for `stake` each (both contributed it).
    Showdown { stake: u32 },
}

/// A decision: who acts, in which round, and where each action leads (index 0 fold, 1 check or
/// call, 2 bet or raise).
#[derive(Clone, Copy, Debug)]
pub struct Node {
    pub player: u8,
    pub round: u8,
    pub next: [Next; 3],
}

/// The stakes the tree is built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub small_blind: u32,
    pub big_blind: u32,
    /// The bet of rounds 0 and 1, and of rounds 2 and 3.
    pub small_bet: u32,
    pub big_bet: u32,
    pub cap: u8,
}

/// The presets' triple draw stakes (50/100 blinds, bets of 100 and 200, cap 4).
pub const TD_FL: Limits = Limits {
    small_blind: 50,
    big_blind: 100,
    small_bet: 100,
    big_bet: 200,
    cap: 4,
};

/// The rounds of triple draw.
pub const ROUNDS: u8 = 4;

/// The betting tree: `nodes[0]` is the first decision of a hand.
#[derive(Clone, Debug)]
pub struct Tree {
    pub limits: Limits,
    pub nodes: Vec<Node>,
}

#[derive(Clone, Copy)]
struct State {
    round: u8,
    player: u8,
    contrib: [u32; 2],
    bets: u8,
    acted: [bool; 2],
}

impl Tree {
    pub fn new(limits: Limits) -> Tree {
        let mut t = Tree {
            limits,
            nodes: Vec::new(),
        };
        t.build(State {
            round: 0,
            player: 0,
            contrib: [limits.small_blind, limits.big_blind],
            bets: 1,
            acted: [false; 2],
        });
        t
    }

    fn bet(&self, round: u8) -> u32 {
        if round < 2 {
            self.limits.small_bet
        } else {
            self.limits.big_bet
        }
    }

    /// Adds the node of `s` and everything below it; returns its index.
    fn build(&mut self, s: State) -> u32 {
        let at = self.nodes.len() as u32;
        self.nodes.push(Node {
            player: s.player,
            round: s.round,
            next: [Next::Illegal; 3],
        });
        let p = usize::from(s.player);
        let o = 1 - p;
        let facing = s.contrib[o] > s.contrib[p];
        let mut next = [Next::Illegal; 3];
        if facing {
            next[0] = Next::Fold {
                winner: o as u8,
                lost: s.contrib[p],
            };
        }
        // Check or call.
        let mut c = s;
        c.contrib[p] = s.contrib[o];
        c.acted[p] = true;
        next[1] = if c.acted[o] {
            self.close(c)
        } else {
            c.player = o as u8;
            Next::Node(self.build(c))
        };
        if s.bets < self.limits.cap {
            let mut r = s;
            r.contrib[p] = s.contrib[o] + self.bet(s.round);
            r.bets += 1;
            r.acted = [false; 2];
            r.acted[p] = true;
            r.player = o as u8;
            next[2] = Next::Node(self.build(r));
        }
        self.nodes[at as usize].next = next;
        at
    }

    /// The round of `s` is closed: the next round's first decision (the big blind's), or the
    /// showdown.
    fn close(&mut self, s: State) -> Next {
        if s.round + 1 == ROUNDS {
            return Next::Showdown {
                stake: s.contrib[0],
            };
        }
        Next::Node(self.build(State {
            round: s.round + 1,
            player: 1,
            contrib: s.contrib,
            bets: 0,
            acted: [false; 2],
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Walks every path; returns (decision nodes, terminal leaves, largest stake).
    fn walk(t: &Tree, n: u32, acc: &mut (usize, usize, u32)) {
        acc.0 += 1;
        for x in t.nodes[n as usize].next {
            match x {
                Next::Illegal => {}
                Next::Node(m) => {
                    assert!(m > n, "children come after their parent");
                    walk(t, m, acc);
                }
                Next::Fold { lost, .. } => {
                    acc.1 += 1;
                    acc.2 = acc.2.max(lost);
                }
                Next::Showdown { stake } => {
                    acc.1 += 1;
                    acc.2 = acc.2.max(stake);
                }
            }
        }
    }

    #[test]
    fn the_tree_holds_every_sequence_once_and_the_stakes_are_right() {
        let t = Tree::new(TD_FL);
        let mut acc = (0, 0, 0);
        walk(&t, 0, &mut acc);
        assert_eq!(acc.0, t.nodes.len(), "every node reachable exactly once");
        // Capped at four bets: 100·4 + 100·4 + 200·4 + 200·4.
        assert_eq!(acc.2, 2400);
        let root = t.nodes[0];
        assert_eq!((root.player, root.round), (0, 0));
        // The small blind folds its 50, completes (the big blind's option follows) or raises.
        assert_eq!(
            root.next[0],
            Next::Fold {
                winner: 1,
                lost: 50
            }
        );
        let Next::Node(limp) = root.next[1] else {
            panic!("a completion leaves the big blind its option")
        };
        let limp = t.nodes[limp as usize];
        assert_eq!((limp.player, limp.round), (1, 0));
        assert_eq!(limp.next[0], Next::Illegal, "no fold when nothing is owed");
        // The big blind checks: the round closes and it acts first after the draw.
        let Next::Node(after) = limp.next[1] else {
            panic!("the next round")
        };
        let after = t.nodes[after as usize];
        assert_eq!((after.player, after.round), (1, 1));
        // Four bets in round 0: blind, raise, raise, raise; then no more raising.
        let mut n = 0u32;
        for _ in 0..3 {
            let Next::Node(m) = t.nodes[n as usize].next[2] else {
                panic!("a raise below the cap")
            };
            n = m;
        }
        assert_eq!(t.nodes[n as usize].next[2], Next::Illegal, "capped");
        assert_eq!(
            t.nodes[n as usize].next[0],
            Next::Fold {
                winner: 0,
                lost: 300
            }
        );
    }
}
