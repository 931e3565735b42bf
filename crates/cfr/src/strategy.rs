//! The strategy file: the trainer's average strategy, one probability triple (fold, check or
//! call, bet or raise) per information set, in 255ths.
//!
//! Format: `"PBCFR1"`, the game's name (a length byte and the name), the abstraction's version
//! (a byte: [`ABSTRACTION`]), the number of decision nodes (u32, little-endian), classes and
//! opponent draw classes (a byte each), the iterations and seed it was trained with (u64 each),
//! then three bytes per information set in index order ([`crate::mccfr::infoset`]). A triple of
//! zeros is an information set the training never reached.

use crate::mccfr::{Trainer, PER_NODE};
use crate::td::{BUCKETS, OPP_DRAWS};

/// The first bytes of a strategy file.
pub const MAGIC: &[u8; 6] = b"PBCFR1";

/// The version of the card abstraction ([`crate::td`]) a strategy was trained on: a file of
/// another version would be played with the classes meaning something else, so it is refused.
pub const ABSTRACTION: u8 = 1;

/// A strategy file that cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum StrategyError {
    #[error("not a strategy file (it does not start with {MAGIC:?})")]
    Magic,
    #[error("the strategy file ends early")]
    Truncated,
    #[error("the strategy was trained on abstraction version {0}; this build knows version {ABSTRACTION}")]
    Version(u8),
    #[error("the strategy is for {found} nodes × {classes} classes × {opp} draw classes; this build's tree and abstraction have {nodes} × {BUCKETS} × {OPP_DRAWS}")]
    Shape {
        found: u32,
        nodes: u32,
        classes: u8,
        opp: u8,
    },
}

/// A trained strategy, ready to play.
#[derive(Clone, Debug)]
pub struct Strategy {
    pub game: String,
    pub iterations: u64,
    pub seed: u64,
    probs: Vec<u8>,
}

impl Strategy {
    /// The trainer's average strategy.
    pub fn from_trainer(game: &str, seed: u64, t: &Trainer) -> Strategy {
        let mut probs = Vec::with_capacity(3 * t.infosets());
        for i in 0..t.infosets() {
            probs.extend_from_slice(&match t.average(i) {
                Some(p) => quantize(p),
                None => [0; 3],
            });
        }
        Strategy {
            game: game.to_string(),
            iterations: t.iterations,
            seed,
            probs,
        }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.probs.len() + 64);
        out.extend_from_slice(MAGIC);
        out.push(self.game.len() as u8);
        out.extend_from_slice(self.game.as_bytes());
        out.push(ABSTRACTION);
        out.extend_from_slice(&((self.probs.len() / 3 / PER_NODE) as u32).to_le_bytes());
        out.push(BUCKETS as u8);
        out.push(OPP_DRAWS as u8);
        out.extend_from_slice(&self.iterations.to_le_bytes());
        out.extend_from_slice(&self.seed.to_le_bytes());
        out.extend_from_slice(&self.probs);
        out
    }

    /// Reads a strategy for a tree of `nodes` decision nodes.
    ///
    /// # Errors
    /// [`StrategyError`] for a file that is not one, or was made for another tree or abstraction.
    pub fn from_bytes(b: &[u8], nodes: usize) -> Result<Strategy, StrategyError> {
        let mut at = 0usize;
        let mut take = |n: usize| -> Result<&[u8], StrategyError> {
            let s = b.get(at..at + n).ok_or(StrategyError::Truncated)?;
            at += n;
            Ok(s)
        };
        if take(6)? != MAGIC {
            return Err(StrategyError::Magic);
        }
        let len = usize::from(take(1)?[0]);
        let game = String::from_utf8_lossy(take(len)?).into_owned();
        let version = take(1)?[0];
        if version != ABSTRACTION {
            return Err(StrategyError::Version(version));
        }
        let found = u32::from_le_bytes(take(4)?.try_into().expect("4 bytes"));
        let (classes, opp) = (take(1)?[0], take(1)?[0]);
        if found as usize != nodes
            || usize::from(classes) != BUCKETS
            || usize::from(opp) != OPP_DRAWS
        {
            return Err(StrategyError::Shape {
                found,
                nodes: nodes as u32,
                classes,
                opp,
            });
        }
        let iterations = u64::from_le_bytes(take(8)?.try_into().expect("8 bytes"));
        let seed = u64::from_le_bytes(take(8)?.try_into().expect("8 bytes"));
        let probs = take(3 * nodes * PER_NODE)?.to_vec();
        Ok(Strategy {
            game,
            iterations,
            seed,
            probs,
        })
    }

    /// The probabilities at information set `i`, in 255ths; `None` where training never went.
    #[inline]
    pub fn at(&self, i: usize) -> Option<[u8; 3]> {
        let p = [
            self.probs[3 * i],
            self.probs[3 * i + 1],
            self.probs[3 * i + 2],
        ];
        (p != [0; 3]).then_some(p)
    }
}

/// Probabilities as 255ths summing to exactly 255 (largest remainders), so that a sampled action
/// never falls outside them.
pub fn quantize(p: [f32; 3]) -> [u8; 3] {
    let scaled = p.map(|x| x.max(0.0) * 255.0);
    let mut q = scaled.map(|x| x.floor() as u16);
    let mut left = 255 - q.iter().sum::<u16>().min(255);
    let mut order = [0usize, 1, 2];
    order.sort_by(|&a, &b| {
        (scaled[b] - scaled[b].floor())
            .partial_cmp(&(scaled[a] - scaled[a].floor()))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    for &a in order.iter().cycle() {
        if left == 0 {
            break;
        }
        if p[a] > 0.0 {
            q[a] += 1;
            left -= 1;
        }
    }
    q.map(|x| x as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantized_probabilities_sum_to_255_and_keep_zeros() {
        assert_eq!(quantize([0.0, 0.5, 0.5]), [0, 128, 127]);
        for p in [
            [0.0, 0.5, 0.5],
            [1.0 / 3.0; 3],
            [0.0, 1.0, 0.0],
            [0.001, 0.0, 0.999],
        ] {
            let q = quantize(p);
            assert_eq!(q.iter().map(|&x| u16::from(x)).sum::<u16>(), 255, "{p:?}");
            for a in 0..3 {
                // A disallowed action (probability zero) never gets a share; a tiny one may
                // round to nothing.
                assert!(p[a] > 0.0 || q[a] == 0, "{p:?} → {q:?}");
            }
        }
    }
}
