//! External-sampling Monte Carlo CFR (Lanctot et al., "Monte Carlo Sampling for Regret
//! Minimization in Extensive Games", NIPS 2009) on the abstract game of [`crate::td`] and
//! [`crate::tree`], with regret matching⁺ (regrets floored at zero) and linearly weighted
//! averaging (iteration `t` counts `t` times), which converge several times faster than the plain
//! rules in poker (Tammelin 2014; Brown & Sandholm, "Solving Imperfect-Information Games via
//! Discounted Regret Minimization", AAAI 2019).
//!
//! One iteration samples one deal (every card of both hands through the three draws) and walks the
//! betting tree once for each player: every action of the walking player, one sampled action of
//! the other. What it learns is the *average* strategy, which approaches an equilibrium of the
//! abstract game; the regrets only steer it.

use crate::td::{self, Deal, Rng, BOTH_DRAWS, BUCKETS, OPP_DRAWS};
use crate::tree::{Next, Tree, MAX_ACTIONS};

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
    (n as usize * draws + usize::from(opp)) * BUCKETS + usize::from(class)
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
    /// Draw classes ([`td::draws_class`]).
    draws: usize,
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
    pub fn with_draws(tree: Tree, seed: u64, draws: usize) -> Trainer {
        let width = tree.betting.actions();
        let n = tree.nodes.len() * per_node(draws) * width;
        Trainer {
            tree,
            width,
            draws,
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

    /// Runs `n` more iterations.
    pub fn run(&mut self, n: u64) {
        for _ in 0..n {
            self.iterations += 1;
            let deal = td::sample(&mut self.rng);
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
        let p = usize::from(node.player);
        let r = usize::from(node.round);
        let opp = if self.draws == BOTH_DRAWS {
            d.opp[p][r]
        } else {
            d.opp[p][r] % OPP_DRAWS as u8
        };
        let i = k * infoset(n, d.class[p][r], opp, self.draws);
        let legal = node.next.map(|x| x != Next::Illegal);
        let s = self.current(i, &legal);
        if node.player == t {
            let mut v = [0f32; MAX_ACTIONS];
            let mut ev = 0f32;
            for a in 0..k {
                if legal[a] {
                    v[a] = self.value(node.next[a], d, t, w);
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
            self.value(node.next[a], d, t, w)
        }
    }

    #[inline(always)]
    fn value(&mut self, x: Next, d: &Deal, t: u8, w: f32) -> f32 {
        match x {
            Next::Node(m) => self.walk(m, d, t, w),
            Next::Fold { winner, lost } => {
                if winner == t {
                    lost as f32
                } else {
                    -(lost as f32)
                }
            }
            Next::Showdown { stake } => {
                let sign = if t == 0 { d.winner } else { -d.winner };
                f32::from(sign) * stake as f32
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
        self.tree.nodes.len() * per_node(self.draws)
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
