//! External-sampling Monte Carlo CFR (Lanctot et al., "Monte Carlo Sampling for Regret
//! Minimization in Extensive Games", NIPS 2009) on the abstract games of [`crate::td`] and
//! [`crate::tree`] (triple draw) and of [`crate::stud`] and [`crate::stud_tree`], with regret matching⁺ (regrets floored at zero) and linearly weighted
//! averaging (iteration `t` counts `t` times), which converge several times faster than the plain
//! rules in poker (Tammelin 2014; Brown & Sandholm, "Solving Imperfect-Information Games via
//! Discounted Regret Minimization", AAAI 2019).
//!
//! One iteration samples one deal (every card of both hands through the three draws, or the seven
//! cards of stud) and walks the betting tree once for each player (the tree's positions mapped to
//! the deal's seats round by round: in stud whoever shows the best board acts first): every action of the walking player, one sampled action of
//! the other. What it learns is the *average* strategy, which approaches an equilibrium of the
//! abstract game; the regrets only steer it.

use crate::td::{self, Rng, BOTH_DRAWS, BUCKETS, OPP_DRAWS};
use crate::tree::{Betting, Next, Tree, MAX_ACTIONS};

/// One deal as the trainer sees it, by seat: each player's class in each round, what it saw of
/// the public events besides the betting (triple draw: the draw counts; stud: the acting order),
/// who acts first in each round, and seat 0's showdown result.
#[derive(Clone, Copy, Debug, Default)]
pub struct Deal {
    /// `class[seat][round]`.
    pub class: [[u8; 5]; 2],
    /// `opp[seat][round]`: triple draw, the draws seen before `round` as one of
    /// [`BOTH_DRAWS`] classes ([`td::draws_class`]; modulo [`OPP_DRAWS`], the other player's
    /// count alone); stud, the order class ([`crate::stud::order_class`]).
    pub opp: [[u8; 5]; 2],
    /// The seat at the tree's position 0 in each round: triple draw, always seat 0 (the button's
    /// place is fixed in its tree); stud, whoever acts first on the street.
    pub first: [u8; 5],
    /// Seat 0's result per chip of a showdown stake: +1 it wins the pot, −1 it loses it, 0 a
    /// split (stud hi/lo: ±½ for three quarters).
    pub edge: f32,
}

/// Information sets per decision node: the player's class and what it saw of the draws, as one
/// of `draws` classes ([`td::draws_class`]).
pub const fn per_node(draws: usize) -> usize {
    BUCKETS * draws
}

/// The index of the information set at node `n` of the player to act there, holding a hand of
/// class `class` after draws of class `opp` of `draws` ([`td::draws_class`]; the node fixes the
/// round and the player).
#[inline]
pub fn infoset(n: u32, class: u8, opp: u8, draws: usize) -> usize {
    infoset_in(n, class, opp, draws, BUCKETS)
}

/// [`infoset`] for an abstraction of `buckets` classes per round.
#[inline]
pub fn infoset_in(n: u32, class: u8, opp: u8, draws: usize, buckets: usize) -> usize {
    (n as usize * draws + usize::from(opp)) * buckets + usize::from(class)
}

/// The trainer's state: cumulative regrets and strategy weights, [`Tree::actions`] per
/// information set (disallowed ones stay zero).
pub struct Trainer {
    pub tree: Tree,
    /// Actions per information set.
    width: usize,
    regret: Vec<f32>,
    weight: Vec<f32>,
    rng: Rng,
    /// Draw classes ([`td::draws_class`]), or stud's order classes.
    draws: usize,
    /// Card classes per round.
    buckets: usize,
    /// The game's deal sampler.
    sample: fn(&mut Rng) -> Deal,
    /// Iterations done.
    pub iterations: u64,
}

impl Trainer {
    /// A trainer of abstraction 2: each player sees both players' last draw counts.
    pub fn new(tree: Tree, seed: u64) -> Trainer {
        Trainer::with_draws(tree, seed, BOTH_DRAWS)
    }

    /// A trainer whose players see `draws` classes of the draws: [`BOTH_DRAWS`], or
    /// [`OPP_DRAWS`] (abstraction 1, the opponent's last draw count alone). The deals are the
    /// same cards either way.
    ///
    /// A stud tree ([`Betting::Stud`], [`Betting::StudBig`]) is trained on the abstraction of [`crate::stud`] whatever
    /// `draws` says (its order classes take the draws' place).
    pub fn with_draws(tree: Tree, seed: u64, draws: usize) -> Trainer {
        let width = tree.betting.actions();
        let (draws, buckets, sample): (usize, usize, fn(&mut Rng) -> Deal) = match tree.betting {
            Betting::Stud(_) | Betting::StudBig(_) => (
                crate::stud::ORDERS,
                crate::stud::BUCKETS,
                crate::stud::sample,
            ),
            _ => (draws, BUCKETS, td::sample),
        };
        let n = tree.nodes.len() * draws * buckets * width;
        Trainer {
            tree,
            width,
            draws,
            buckets,
            sample,
            regret: vec![0.0; n],
            weight: vec![0.0; n],
            rng: Rng::new(seed),
            iterations: 0,
        }
    }

    /// Actions per information set.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Draw classes per node and hand class.
    pub fn draws(&self) -> usize {
        self.draws
    }

    /// Card classes per round.
    pub fn buckets(&self) -> usize {
        self.buckets
    }

    /// Runs `n` more iterations.
    pub fn run(&mut self, n: u64) {
        for _ in 0..n {
            self.iterations += 1;
            let deal = (self.sample)(&mut self.rng);
            let w = self.iterations as f32;
            for t in 0..2 {
                self.walk(0, &deal, t, w);
            }
        }
    }

    /// The current strategy at the information set starting at `i` (regret matching over the
    /// legal actions).
    #[inline]
    fn current(&self, i: usize, legal: &[bool; MAX_ACTIONS]) -> [f32; MAX_ACTIONS] {
        let k = self.width;
        let r = &self.regret[i..i + k];
        let sum: f32 = r.iter().sum();
        let mut s = [0f32; MAX_ACTIONS];
        if sum > 0.0 {
            for a in 0..k {
                s[a] = r[a] / sum;
            }
        } else {
            let n = legal[..k].iter().filter(|&&l| l).count() as f32;
            for a in 0..k {
                s[a] = if legal[a] { 1.0 / n } else { 0.0 };
            }
        }
        s
    }

    /// The value of the subtree at `n` for the walking player `t`, in chips.
    fn walk(&mut self, n: u32, d: &Deal, t: u8, w: f32) -> f32 {
        let node = self.tree.nodes[n as usize];
        let k = self.width;
        let r = usize::from(node.round);
        // The seat at the node's position this round.
        let seat = node.player ^ d.first[r];
        let p = usize::from(seat);
        let opp = if self.draws == OPP_DRAWS {
            d.opp[p][r] % OPP_DRAWS as u8
        } else {
            d.opp[p][r]
        };
        let i = k * infoset_in(n, d.class[p][r], opp, self.draws, self.buckets);
        let legal = node.next.map(|x| x != Next::Illegal);
        let s = self.current(i, &legal);
        if seat == t {
            let mut v = [0f32; MAX_ACTIONS];
            let mut ev = 0f32;
            for a in 0..k {
                if legal[a] {
                    v[a] = self.value(node.next[a], d, t, w, d.first[r]);
                    ev += s[a] * v[a];
                }
            }
            for a in 0..k {
                if legal[a] {
                    let x = &mut self.regret[i + a];
                    *x = (*x + v[a] - ev).max(0.0);
                }
            }
            ev
        } else {
            for (x, sa) in self.weight[i..i + k].iter_mut().zip(s) {
                *x += w * sa;
            }
            let a = pick(&s[..k], &legal[..k], self.rng.unit());
            self.value(node.next[a], d, t, w, d.first[r])
        }
    }

    /// The value of `x` for the walking player `t`; `first` is the seat at position 0 in the
    /// round of the action leading there (a fold's winner is a position).
    #[inline(always)]
    fn value(&mut self, x: Next, d: &Deal, t: u8, w: f32, first: u8) -> f32 {
        match x {
            Next::Node(m) => self.walk(m, d, t, w),
            Next::Fold { winner, lost } => {
                if winner ^ first == t {
                    lost as f32
                } else {
                    -(lost as f32)
                }
            }
            Next::Showdown { stake } => {
                let sign = if t == 0 { d.edge } else { -d.edge };
                sign * stake as f32
            }
            Next::Illegal => unreachable!("only legal actions are walked"),
        }
    }

    /// The average strategy at information set `i`, as probabilities ([`Trainer::width`] of
    /// them; `None` for an information set never reached).
    pub fn average(&self, i: usize) -> Option<Vec<f32>> {
        let k = self.width;
        let w = &self.weight[k * i..k * i + k];
        let sum: f32 = w.iter().sum();
        (sum > 0.0).then(|| w.iter().map(|x| x / sum).collect())
    }

    /// Information sets in all.
    pub fn infosets(&self) -> usize {
        self.tree.nodes.len() * self.draws * self.buckets
    }
}

/// The action of probabilities `s` that `u` (uniform in `[0, 1)`) picks, always a legal one (a
/// rounding error cannot pick a disallowed action).
#[inline]
pub fn pick(s: &[f32], legal: &[bool], u: f32) -> usize {
    let mut acc = 0.0;
    let mut last = 1;
    for (a, (&p, &l)) in s.iter().zip(legal).enumerate() {
        if l {
            acc += p;
            last = a;
            if u < acc {
                return a;
            }
        }
    }
    last
}
