//! The betting tree of heads-up triple draw: every sequence of folds, checks, calls, bets and
//! raises of the abstract game, across the four betting rounds, as a flat table of decision nodes.
//!
//! Position 0 is the button (the small blind): it acts first before the first draw and last after
//! it (docs/RULES.md, heads-up). Both players start each hand with the same stack.
//!
//! - **Fixed limit** holds every sequence the rules allow: before the first draw the big blind is
//!   the round's bet; each round allows `cap` bets. Stacks are assumed deep enough never to be
//!   all-in (at the presets' 100 big bets a heads-up hand costs at most 24 big blinds).
//! - **Pot and no limit** are abstracted to a few sizes (the bet-size abstraction of every
//!   no-limit program since Gilpin, Sandholm and Sørensen 2008): a bet or raise of half the pot
//!   or the pot (the pot after the call, the pot-limit maximum), and in no limit all-in; a size
//!   below the minimum raise is raised to it, one that reaches the stack is all-in, and equal
//!   sizes are merged. At most [`BigBet::raises`] raises a round, then only the largest (all-in, or
//!   the pot in pot limit). Once a player is
//!   all-in and called, the cards are played out with no more betting.

/// Where an action leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// The action is not allowed here.
    Illegal,
    /// Another decision (in this round or, after the draw, the next).
    Node(u32),
    /// The player to act folded: `winner` takes the pot; the loser loses `lost` (its
    /// contribution).
    Fold { winner: u8, lost: u32 },
    /// The betting is over: a showdown for `stake` each (both contributed it).
    Showdown { stake: u32 },
}

/// The actions of a node, by index: fold, check or call, then the raises (fixed limit: the one
/// raise at index 2; pot and no limit: half the pot, the pot, all-in).
pub const FOLD: usize = 0;
pub const CALL: usize = 1;
pub const HALF: usize = 2;
pub const POT: usize = 3;
pub const ALL_IN: usize = 4;
/// The most actions a node has.
pub const MAX_ACTIONS: usize = 5;

/// A decision: who acts, in which round, where each action leads, and (pot and no limit) the
/// total each raise goes to in this round's chips, and the contributions before it.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    pub player: u8,
    pub round: u8,
    pub next: [Next; MAX_ACTIONS],
    /// The contributions to the pot so far (both players, whole hand).
    pub contrib: [u32; 2],
    /// What each raise makes the acting player's contribution (0 where there is no raise).
    pub raise_to: [u32; MAX_ACTIONS],
}

/// The stakes of fixed limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub small_blind: u32,
    pub big_blind: u32,
    /// The bet of rounds 0 and 1, and of rounds 2 and 3.
    pub small_bet: u32,
    pub big_bet: u32,
    pub cap: u8,
}

/// The stakes of pot and no limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BigBet {
    pub small_blind: u32,
    pub big_blind: u32,
    pub stack: u32,
    pub no_limit: bool,
    /// Raises (half pot or pot) allowed per round, beyond which only the largest remains
    /// (all-in, or in pot limit the pot).
    pub raises: u8,
}

/// The stakes of fixed-limit stud: antes, a bring-in, the small bet on third and fourth street
/// and the big bet after.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StudLimits {
    pub ante: u32,
    pub bring_in: u32,
    pub small_bet: u32,
    pub big_bet: u32,
    pub cap: u8,
}

/// The stakes of pot- and no-limit stud: antes, a bring-in, a completion and every opening bet
/// of at least the small bet, equal stacks (the ante comes out of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StudBig {
    pub ante: u32,
    pub bring_in: u32,
    pub small_bet: u32,
    pub stack: u32,
    pub no_limit: bool,
    /// Bets and raises of half the pot or the pot a street, beyond which only the largest remains
    /// (all-in, or in pot limit the pot).
    pub raises: u8,
}

/// What the tree is built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Betting {
    Limit(Limits),
    Big(BigBet),
    /// Heads-up fixed-limit stud hi/lo ([`crate::stud`]).
    Stud(StudLimits),
    /// Heads-up pot- or no-limit stud hi/lo.
    StudBig(StudBig),
}

/// The presets' fixed-limit stud hi/lo (ante 40, bring-in 50, bets of 200 and 400, cap 4).
pub const STUD_FL: Betting = Betting::Stud(StudLimits {
    ante: 40,
    bring_in: 50,
    small_bet: 200,
    big_bet: 400,
    cap: 4,
});

/// The presets' pot-limit stud hi/lo (ante 40, bring-in 50, small bet 200, 100 small bets deep).
pub const STUD_PL: Betting = Betting::StudBig(StudBig {
    ante: 40,
    bring_in: 50,
    small_bet: 200,
    stack: 20_000,
    no_limit: false,
    raises: 2,
});

/// The presets' no-limit stud hi/lo.
pub const STUD_NL: Betting = Betting::StudBig(StudBig {
    ante: 40,
    bring_in: 50,
    small_bet: 200,
    stack: 20_000,
    no_limit: true,
    raises: 2,
});

/// The presets' fixed-limit triple draw (50/100 blinds, bets of 100 and 200, cap 4).
pub const TD_FL: Betting = Betting::Limit(Limits {
    small_blind: 50,
    big_blind: 100,
    small_bet: 100,
    big_bet: 200,
    cap: 4,
});

/// The presets' pot-limit triple draw (50/100 blinds, 100 big blinds deep).
pub const TD_PL: Betting = Betting::Big(BigBet {
    small_blind: 50,
    big_blind: 100,
    stack: 10_000,
    no_limit: false,
    raises: 2,
});

/// The presets' no-limit triple draw (50/100 blinds, 100 big blinds deep).
pub const TD_NL: Betting = Betting::Big(BigBet {
    no_limit: true,
    ..match TD_PL {
        Betting::Big(b) => b,
        _ => unreachable!(),
    }
});

impl Betting {
    /// Actions per node (the strategy's width): 3 in fixed limit, 5 otherwise.
    pub const fn actions(&self) -> usize {
        match self {
            Betting::Limit(_) | Betting::Stud(_) => 3,
            Betting::Big(_) | Betting::StudBig(_) => MAX_ACTIONS,
        }
    }

    /// Betting rounds: four in triple draw, five streets in stud.
    pub const fn rounds(&self) -> u8 {
        match self {
            Betting::Stud(_) | Betting::StudBig(_) => 5,
            _ => ROUNDS,
        }
    }

    /// The big blind (stud: the small bet, the unit of its results).
    pub const fn big_blind(&self) -> u32 {
        match self {
            Betting::Limit(l) => l.big_blind,
            Betting::Big(b) => b.big_blind,
            Betting::Stud(s) => s.small_bet,
            Betting::StudBig(s) => s.small_bet,
        }
    }

    /// Whether this is stud (positions per street, [`crate::stud`]'s abstraction).
    pub const fn is_stud(&self) -> bool {
        matches!(self, Betting::Stud(_) | Betting::StudBig(_))
    }

    const fn small_blind(&self) -> u32 {
        match self {
            Betting::Limit(l) => l.small_blind,
            Betting::Big(b) => b.small_blind,
            Betting::Stud(_) | Betting::StudBig(_) => 0,
        }
    }
}

/// The rounds of triple draw.
pub const ROUNDS: u8 = 4;

/// The betting tree: `nodes[0]` is the first decision of a hand.
#[derive(Clone, Debug)]
pub struct Tree {
    pub betting: Betting,
    pub nodes: Vec<Node>,
}

#[derive(Clone, Copy)]
struct State {
    round: u8,
    player: u8,
    contrib: [u32; 2],
    /// Bets this round (fixed limit, the blind counting as one), or raises (pot and no limit).
    bets: u8,
    /// The last full raise's increment this round (pot and no limit's minimum raise).
    last_inc: u32,
    acted: [bool; 2],
}

impl Tree {
    pub fn new(betting: Betting) -> Tree {
        if betting.is_stud() {
            return crate::stud_tree::build(betting);
        }
        let mut t = Tree {
            betting,
            nodes: Vec::new(),
        };
        t.build(State {
            round: 0,
            player: 0,
            contrib: [betting.small_blind(), betting.big_blind()],
            bets: u8::from(matches!(betting, Betting::Limit(_))),
            last_inc: betting.big_blind(),
            acted: [false; 2],
        });
        t
    }

    /// The raises allowed in `s`, as (action index, total contribution after it).
    fn raises(&self, s: &State) -> Vec<(usize, u32)> {
        let p = usize::from(s.player);
        let o = 1 - p;
        let level = s.contrib[o].max(s.contrib[p]);
        match self.betting {
            Betting::Stud(_) | Betting::StudBig(_) => unreachable!("stud_tree builds stud"),
            Betting::Limit(l) => {
                let bet = if s.round < 2 { l.small_bet } else { l.big_bet };
                if s.bets < l.cap {
                    vec![(HALF, level + bet)]
                } else {
                    Vec::new()
                }
            }
            Betting::Big(b) => {
                // Nobody can raise an all-in player, nor raise with nothing behind.
                if level >= b.stack {
                    return Vec::new();
                }
                let pot_after_call = 2 * level;
                let min_to = level + s.last_inc.max(b.big_blind);
                let pot_to = (level + pot_after_call).min(b.stack);
                let mut out: Vec<(usize, u32)> = Vec::new();
                // Past the round's raises the largest raise stays (all-in in no limit, the pot
                // in pot limit): the real game always allows one, and an abstraction without it
                // would lose its place when an opponent keeps raising.
                let sizes: &[(usize, u32)] = &[
                    (HALF, (level + pot_after_call / 2).max(min_to)),
                    (POT, (level + pot_after_call).max(min_to)),
                ];
                let allowed = if s.bets < b.raises {
                    sizes
                } else if b.no_limit {
                    &[]
                } else {
                    &sizes[1..]
                };
                {
                    for &(a, to) in allowed {
                        let to = to.min(b.stack);
                        let cap = if b.no_limit { b.stack - 1 } else { pot_to };
                        if to <= cap && out.iter().all(|&(_, t)| t != to) {
                            out.push((a, to));
                        }
                    }
                }
                let all_in = if b.no_limit { b.stack } else { pot_to };
                if all_in == b.stack && out.iter().all(|&(_, t)| t != all_in) {
                    out.push((ALL_IN, all_in));
                }
                out
            }
        }
    }

    /// Adds the node of `s` and everything below it; returns its index.
    fn build(&mut self, s: State) -> u32 {
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
        let mut next = [Next::Illegal; MAX_ACTIONS];
        let mut raise_to = [0; MAX_ACTIONS];
        if s.contrib[o] > s.contrib[p] {
            next[FOLD] = Next::Fold {
                winner: o as u8,
                lost: s.contrib[p],
            };
        }
        let mut c = s;
        c.contrib[p] = s.contrib[o];
        c.acted[p] = true;
        next[CALL] = if c.acted[o] {
            self.close(c)
        } else {
            c.player = o as u8;
            Next::Node(self.build(c))
        };
        for (a, to) in self.raises(&s) {
            let mut r = s;
            let level = s.contrib[o].max(s.contrib[p]);
            r.last_inc = r.last_inc.max(to - level);
            r.contrib[p] = to;
            r.bets += u8::from(a != ALL_IN || matches!(self.betting, Betting::Limit(_)));
            r.acted = [false; 2];
            r.acted[p] = true;
            r.player = o as u8;
            raise_to[a] = to;
            next[a] = Next::Node(self.build(r));
        }
        let n = &mut self.nodes[at as usize];
        n.next = next;
        n.raise_to = raise_to;
        at
    }

    /// The round of `s` is closed: the next round's first decision (the big blind's), or the
    /// showdown (after the last round, or once a player is all-in).
    fn close(&mut self, s: State) -> Next {
        let all_in = matches!(self.betting, Betting::Big(b) if s.contrib[0] >= b.stack);
        if s.round + 1 == ROUNDS || all_in {
            return Next::Showdown {
                stake: s.contrib[0],
            };
        }
        Next::Node(self.build(State {
            round: s.round + 1,
            player: 1,
            contrib: s.contrib,
            bets: 0,
            last_inc: self.betting.big_blind(),
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
        assert_eq!(t.nodes.len(), 6378);
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

    #[test]
    fn pot_and_no_limit_sizes_follow_the_pot_and_the_stack() {
        for (betting, no_limit) in [(TD_PL, false), (TD_NL, true)] {
            let t = Tree::new(betting);
            let mut acc = (0, 0, 0);
            walk(&t, 0, &mut acc);
            assert_eq!(acc.0, t.nodes.len());
            assert_eq!(acc.2, 10_000, "someone can get all-in");
            let root = t.nodes[0];
            // The button owes 50: the pot after its call is 200; half of it makes 200 (the
            // minimum raise), the pot 300.
            assert_eq!(root.raise_to[HALF], 200);
            assert_eq!(root.raise_to[POT], 300);
            assert_eq!(root.next[ALL_IN] != Next::Illegal, no_limit);
            for n in &t.nodes {
                let level = n.contrib[0].max(n.contrib[1]);
                for a in [HALF, POT, ALL_IN] {
                    if n.next[a] == Next::Illegal {
                        continue;
                    }
                    let to = n.raise_to[a];
                    assert!(to > level && to <= 10_000, "{n:?}");
                    if !no_limit {
                        assert!(to <= 3 * level, "pot limit exceeded: {n:?}");
                    }
                }
            }
        }
    }
}
