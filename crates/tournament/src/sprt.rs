//! Early stopping of a pairing: Wald's sequential probability ratio test on the mean of the
//! duplicate-unit results (mbb/hand), checked at batch boundaries.
//!
//! H0: mean ≤ m0 against H1: mean ≥ m1 (m0 < m1). The per-unit values are modelled as normal with
//! the variance estimated from the units so far (the usual normal approximation, as in engine
//! testing frameworks): after `n` units with mean `x̄` and sample variance `s²`,
//!
//! ```text
//! LLR = n · (m1 − m0) · (x̄ − (m0 + m1) / 2) / s²
//! ```
//!
//! H1 is accepted when `LLR ≥ ln((1 − β) / α)`, H0 when `LLR ≤ ln(β / (1 − α))`; otherwise play goes
//! on, and a pairing that reaches its fixed length undecided is recorded as `undecided` (a
//! truncated SPRT). Because the test is only looked at every batch, it overshoots the bounds, so
//! the realised error rates are at most about α and β (tests check this over many seeds). A
//! pairing whose units all have the same value (variance 0, e.g. two deterministic bots that
//! mirror each other in duplicate) is never decided.

use serde::{Deserialize, Serialize};

/// SPRT settings, `[sprt]` in a tournament file.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SprtConfig {
    /// H0: the first bot of the pairing wins at most `m0` mbb/hand.
    pub m0: f64,
    /// H1: it wins at least `m1` mbb/hand (`m1 > m0`).
    pub m1: f64,
    /// The type I error: accepting H1 when H0 holds.
    pub alpha: f64,
    /// The type II error: accepting H0 when H1 holds.
    pub beta: f64,
}

/// The state of the test after some units.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// Not decided yet (or never: the pairing ran to its fixed length).
    Undecided,
    /// H0 accepted: the first bot is not better than m0.
    H0,
    /// H1 accepted: the first bot is better by at least m1.
    H1,
}

impl Decision {
    pub fn name(self) -> &'static str {
        match self {
            Decision::Undecided => "undecided",
            Decision::H0 => "H0",
            Decision::H1 => "H1",
        }
    }
}

impl SprtConfig {
    /// Why the settings cannot be used, if they cannot.
    pub fn problem(&self) -> Option<String> {
        if !(self.m0.is_finite() && self.m1.is_finite() && self.m0 < self.m1) {
            return Some(format!(
                "m0 = {} must be smaller than m1 = {}",
                self.m0, self.m1
            ));
        }
        for (k, v) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(v > 0.0 && v < 0.5) {
                return Some(format!("{k} = {v} must be in (0, 0.5)"));
            }
        }
        None
    }

    /// The lower and upper bounds of the log-likelihood ratio.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of `n` values with mean `mean` and sample variance `var`
    /// (all in mbb/hand); 0 when it is not defined (fewer than 2 values, or no variance).
    pub fn llr(&self, n: u64, mean: f64, var: f64) -> f64 {
        if n < 2 || var <= 0.0 || !var.is_finite() {
            return 0.0;
        }
        n as f64 * (self.m1 - self.m0) * (mean - (self.m0 + self.m1) / 2.0) / var
    }

    /// The decision after `n` values with this mean and variance.
    pub fn decide(&self, n: u64, mean: f64, var: f64) -> (Decision, f64) {
        let llr = self.llr(n, mean, var);
        let (lo, hi) = self.bounds();
        let d = if llr >= hi {
            Decision::H1
        } else if llr <= lo && var > 0.0 {
            Decision::H0
        } else {
            Decision::Undecided
        };
        (d, llr)
    }
}

/// Running sums of per-unit values (mbb/hand) for the test.
#[derive(Clone, Copy, Debug, Default)]
pub struct Running {
    pub n: u64,
    pub sum: f64,
    pub sum_sq: f64,
}

impl Running {
    pub fn push(&mut self, x: f64) {
        self.n += 1;
        self.sum += x;
        self.sum_sq += x * x;
    }

    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum / self.n as f64
        }
    }

    /// The sample variance (n − 1 denominator).
    pub fn var(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        let n = self.n as f64;
        ((self.sum_sq - self.sum * self.sum / n) / (n - 1.0)).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny deterministic normal generator (Box–Muller on SplitMix64).
    struct Normal(u64);
    impl Normal {
        fn uniform(&mut self) -> f64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        }
        fn sample(&mut self) -> f64 {
            let u = self.uniform().max(1e-300);
            let v = self.uniform();
            (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
        }
    }

    /// Runs the test on N(mu, sd²) values in batches; returns the decision.
    fn run(cfg: &SprtConfig, mu: f64, sd: f64, batch: usize, max: usize, seed: u64) -> Decision {
        let mut g = Normal(seed);
        let mut r = Running::default();
        for _ in 0..max / batch {
            for _ in 0..batch {
                r.push(mu + sd * g.sample());
            }
            let (d, _) = cfg.decide(r.n, r.mean(), r.var());
            if d != Decision::Undecided {
                return d;
            }
        }
        Decision::Undecided
    }

    const CFG: SprtConfig = SprtConfig {
        m0: 0.0,
        m1: 10.0,
        alpha: 0.05,
        beta: 0.1,
    };

    #[test]
    fn error_rates_at_the_hypotheses_stay_near_alpha_and_beta() {
        let trials: u32 = 2000;
        let (mut false_h1, mut false_h0) = (0, 0);
        for s in 0..u64::from(trials) {
            false_h1 += u32::from(run(&CFG, 0.0, 100.0, 10, 200_000, s) == Decision::H1);
            false_h0 +=
                u32::from(run(&CFG, 10.0, 100.0, 10, 200_000, s + 1_000_000) == Decision::H0);
        }
        let a = f64::from(false_h1) / f64::from(trials);
        let b = f64::from(false_h0) / f64::from(trials);
        // Wald: α' ≤ α/(1-β) ≈ 0.056, β' ≤ β/(1-α) ≈ 0.105; allow sampling noise (sd ≈ 0.005, 0.007).
        assert!(a < 0.075, "type I error {a}");
        assert!(b < 0.13, "type II error {b}");
        // And the test is not trivially conservative.
        assert!(
            a > 0.01 && b > 0.03,
            "error rates {a}, {b} implausibly small"
        );
    }

    #[test]
    fn a_clear_edge_is_decided_quickly_and_correctly() {
        for s in 0..50 {
            assert_eq!(run(&CFG, 50.0, 100.0, 10, 100_000, s), Decision::H1);
            assert_eq!(run(&CFG, -40.0, 100.0, 10, 100_000, s), Decision::H0);
        }
    }

    #[test]
    fn constant_values_are_never_decided() {
        assert_eq!(CFG.decide(1000, 0.0, 0.0).0, Decision::Undecided);
    }

    #[test]
    fn bad_settings_are_named() {
        let bad = SprtConfig { m1: -1.0, ..CFG };
        assert!(bad.problem().unwrap().contains("m0"));
        let bad = SprtConfig { alpha: 0.7, ..CFG };
        assert!(bad.problem().unwrap().contains("alpha"));
        assert!(CFG.problem().is_none());
    }
}
