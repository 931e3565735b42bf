//! Safe opponent modelling for `cfr`: what the opponent does at the solved tree's decisions
//! (folds, calls, raises when facing a bet; checks and bets when not), and a bounded departure
//! from the near-equilibrium strategy against the leaks it shows — bluffing more against a bot
//! that folds too much, bluffing less and betting thinner for value against one that calls too
//! much, folding less against one that raises too much.
//!
//! Why safe: the equilibrium's worst case is bounded, an exploiting strategy's is not (a bot that
//! folds a lot for a thousand hands and then raises every bluff cannot be told from an honest
//! folder in advance). So the bot risks only what it has won against this opponent: the
//! departure is taken with a weight that is the chips it is up in the solved hands over what
//! exploitation could cost in the worst case over the next [`HORIZON`] hands (Ganzfried and
//! Sandholm, "Safe Opponent Exploitation", 2015, in a simple form). Losing those chips back
//! brings the weight to 0, and the bot plays the equilibrium again.

use pitboss_cfr::tree::{ALL_IN, CALL, FOLD, HALF, POT};

/// Decisions of the opponent seen in a betting round before the model names a leak there.
const MIN_SEEN: u32 = 40;
/// Betting rounds of triple draw.
const ROUNDS: usize = 4;
/// Hands over which the worst extra cost of exploiting is set against the chips won.
pub const HORIZON: f64 = 50.0;

/// What the opponent did in one betting round.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    /// Facing a bet: its folds, calls and raises.
    faced: [u32; 3],
    /// With nothing to call: its checks and bets.
    open: [u32; 2],
}

/// What the opponent has done at the solved tree's decisions in this match, round by round (a
/// bot may fold too much before the first draw and call too much after the last), and what
/// this bot has won against it there.
#[derive(Clone, Copy, Debug, Default)]
pub struct Model {
    rounds: [Counts; ROUNDS],
    /// Net chips this bot has won in the hands played from the strategy.
    bank: i64,
    /// The most a hand of exploitation can cost beyond the equilibrium, in chips.
    risk: i64,
}

/// The leaks seen, each as a strength in `0..=1` (0: not seen).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Leaks {
    pub folds: f32,
    pub calls: f32,
    pub raises: f32,
}

impl Model {
    /// A model for a game whose worst extra cost of a hand of exploitation is `risk` chips.
    pub fn new(risk: i64) -> Model {
        Model {
            risk: risk.max(1),
            ..Model::default()
        }
    }

    /// The opponent took tree action `a` in betting round `round` (facing a bet or not).
    pub fn observe(&mut self, round: usize, facing: bool, a: usize) {
        let c = &mut self.rounds[round.min(ROUNDS - 1)];
        match (facing, a) {
            (true, FOLD) => c.faced[0] += 1,
            (true, CALL) => c.faced[1] += 1,
            (true, _) => c.faced[2] += 1,
            (false, CALL) => c.open[0] += 1,
            (false, _) => c.open[1] += 1,
        }
    }

    /// A hand played from the strategy ended with `net` chips for this bot.
    pub fn won(&mut self, net: i64) {
        self.bank += net;
    }

    /// How far the bot may depart from the equilibrium now: the chips it is up over what
    /// [`HORIZON`] hands of exploitation could cost at worst, at most 1.
    pub fn weight(&self) -> f32 {
        if self.bank <= 0 {
            return 0.0;
        }
        (self.bank as f64 / (HORIZON * self.risk.max(1) as f64)).min(1.0) as f32
    }

    /// The leaks seen so far in betting round `round`, by frequency: folding to more than half
    /// the bets faced (against well under half in an equilibrium of a game this wide), folding
    /// to fewer than one in six, raising or betting at more than three in five chances.
    pub fn leaks(&self, round: usize) -> Leaks {
        let c = &self.rounds[round.min(ROUNDS - 1)];
        let faced: u32 = c.faced.iter().sum();
        let all = faced + c.open.iter().sum::<u32>();
        if all < MIN_SEEN {
            return Leaks::default();
        }
        let ramp = |x: f32, from: f32, to: f32| ((x - from) / (to - from)).clamp(0.0, 1.0);
        let mut l = Leaks::default();
        if faced >= MIN_SEEN / 2 {
            let fold = c.faced[0] as f32 / faced as f32;
            l.folds = ramp(fold, 0.5, 0.8);
            l.calls = ramp(0.16 - fold, 0.0, 0.12);
        }
        let aggression = (c.faced[2] + c.open[1]) as f32 / all as f32;
        l.raises = ramp(aggression, 0.6, 0.9);
        l
    }

    /// Changes the strategy's probabilities `p` (tree actions, `legal` among them) at a decision
    /// of this bot, facing a bet or not, with a hand of `strength` (0: the weakest class of its
    /// round, 1: the strongest), in betting round `round`. Against a bot that calls too much
    /// only the last round changes: before it, a weak hand's bet is a draw's semi-bluff, which a
    /// caller pays too.
    pub fn adjust(&self, p: &mut [f32], legal: &[bool], facing: bool, strength: f32, round: usize) {
        let w = self.weight();
        if w == 0.0 {
            return;
        }
        let mut l = self.leaks(round);
        if round + 1 < ROUNDS {
            l.calls = 0.0;
        }
        let raise = [HALF, POT, ALL_IN]
            .into_iter()
            .find(|&a| a < p.len() && legal[a]);
        let raises = |p: &[f32]| (HALF..p.len()).map(|a| p[a]).sum::<f32>();
        // Moves share `f` of the mass of `from` to `to`.
        let shift = |p: &mut [f32], from: &[usize], to: usize, f: f32| {
            let mut moved = 0.0;
            for &a in from {
                if a < p.len() && a != to {
                    let m = p[a] * f;
                    p[a] -= m;
                    moved += m;
                }
            }
            p[to] += moved;
        };
        if let Some(r) = raise {
            // A bot that folds too much: bet where the strategy checks, and raise (less: the
            // bettor has shown strength) where it calls.
            if l.folds > 0.0 {
                let f = if facing { 0.5 } else { 1.0 };
                shift(p, &[CALL], r, f * w * l.folds);
            }
            // A bot that calls too much: value bets with strong hands where the strategy checks.
            if l.calls > 0.0 && !facing && strength > 0.65 {
                shift(p, &[CALL], r, w * l.calls);
            }
        }
        // ... and no bluffs with weak ones.
        if l.calls > 0.0 && strength < 0.35 && raises(p) > 0.0 {
            let to = if facing && legal[FOLD] { FOLD } else { CALL };
            shift(p, &[HALF, POT, ALL_IN], to, w * l.calls);
        }
        // A bot that raises too much: call down with all but the weakest hands.
        if l.raises > 0.0 && facing && strength >= 0.3 && legal[CALL] {
            shift(p, &[FOLD], CALL, w * l.raises);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same counts in every round.
    fn seen(faced: [u32; 3], open: [u32; 2], bank: i64) -> Model {
        Model {
            rounds: [Counts { faced, open }; ROUNDS],
            bank,
            risk: 10,
        }
    }

    #[test]
    fn nothing_is_named_before_enough_decisions() {
        assert_eq!(seen([30, 0, 0], [0, 0], 1000).leaks(0), Leaks::default());
        assert!(seen([40, 0, 0], [0, 0], 1000).leaks(0).folds > 0.99);
        // Round by round.
        let mut m = Model::new(10);
        for _ in 0..60 {
            m.observe(0, true, FOLD);
            m.observe(3, true, CALL);
        }
        assert!(m.leaks(0).folds > 0.99 && m.leaks(0).calls == 0.0);
        assert!(m.leaks(3).calls > 0.99 && m.leaks(3).folds == 0.0);
        assert_eq!(m.leaks(1), Leaks::default());
    }

    #[test]
    fn the_weight_is_what_was_won_over_the_worst_case() {
        assert_eq!(seen([0; 3], [0; 2], -5).weight(), 0.0);
        assert_eq!(seen([0; 3], [0; 2], 0).weight(), 0.0);
        assert!((seen([0; 3], [0; 2], 250).weight() - 0.5).abs() < 1e-6);
        assert_eq!(seen([0; 3], [0; 2], 5000).weight(), 1.0);
    }

    #[test]
    fn leaks_by_style() {
        let folder = seen([80, 20, 0], [60, 40], 0).leaks(3);
        assert!(folder.folds > 0.5 && folder.calls == 0.0 && folder.raises == 0.0);
        let station = seen([2, 98, 0], [90, 10], 0).leaks(3);
        assert!(station.calls > 0.5 && station.folds == 0.0 && station.raises == 0.0);
        let maniac = seen([0, 5, 95], [5, 95], 0).leaks(3);
        assert!(maniac.raises > 0.9 && maniac.calls > 0.9 && maniac.folds == 0.0);
        let balanced = seen([30, 50, 20], [60, 40], 0).leaks(3);
        assert_eq!(balanced, Leaks::default());
    }

    #[test]
    fn adjustments_keep_a_distribution_and_follow_the_leak() {
        let legal = [true, true, true];
        let total = |p: &[f32]| p.iter().sum::<f32>();
        // Against a folder, facing nothing: checks become bets.
        let mut p = [0.0, 0.8, 0.2];
        seen([90, 10, 0], [50, 50], 10_000).adjust(&mut p, &[false, true, true], false, 0.1, 0);
        assert!((total(&p) - 1.0).abs() < 1e-6 && p[HALF] > 0.9, "{p:?}");
        // Against a station: a weak hand stops bluffing, a strong one bets.
        let station = seen([2, 98, 0], [90, 10], 10_000);
        let mut weak = [0.0, 0.5, 0.5];
        station.adjust(&mut weak, &[false, true, true], false, 0.1, 3);
        assert!(
            weak[HALF] < 0.01 && (total(&weak) - 1.0).abs() < 1e-6,
            "{weak:?}"
        );
        let mut strong = [0.0, 0.5, 0.5];
        station.adjust(&mut strong, &[false, true, true], false, 0.9, 3);
        // ... in the last round only.
        let mut early = [0.0, 0.5, 0.5];
        station.adjust(&mut early, &[false, true, true], false, 0.1, 1);
        assert_eq!(early, [0.0, 0.5, 0.5]);
        assert!(strong[HALF] > 0.99, "{strong:?}");
        // Against a maniac, facing a bet with a middling hand: no folds.
        let mut p = [0.6, 0.3, 0.1];
        seen([0, 5, 95], [5, 95], 10_000).adjust(&mut p, &legal, true, 0.5, 0);
        assert!(p[FOLD] < 0.01 && (total(&p) - 1.0).abs() < 1e-6, "{p:?}");
        // Nothing won: nothing changes.
        let mut p = [0.6, 0.3, 0.1];
        seen([0, 5, 95], [5, 95], 0).adjust(&mut p, &legal, true, 0.5, 3);
        assert_eq!(p, [0.6, 0.3, 0.1]);
    }
}
