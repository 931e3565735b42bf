//! The strategy file: the trainer's average strategy, one probability per action (fold, check or
//! call, then the raises: [`crate::tree`]) per information set, in 255ths.
//!
//! Format: `"PBCFR2"`, the game's name (a length byte and the name), the abstraction's version
//! (a byte: [`ABSTRACTION`] or [`ABSTRACTION_OPP`]), the number of decision nodes (u32,
//! little-endian), classes, draw classes and actions per information set (a byte each), the
//! iterations and seed it was trained with (u64 each), then the probabilities of each information
//! set in index order ([`crate::mccfr::infoset`]). All zeros is an information set the training
//! never reached.

use crate::mccfr::{infoset_in, Trainer};
use crate::td::{self, BOTH_DRAWS, BUCKETS, OPP_DRAWS};

/// The first bytes of a strategy file.
pub const MAGIC: &[u8; 6] = b"PBCFR2";

/// The version of the card abstraction ([`crate::td`]) a strategy was trained on: a file of
/// another version would be played with the classes meaning something else, so it is refused.
/// Version 2: each player sees both players' last draw counts ([`BOTH_DRAWS`] classes).
pub const ABSTRACTION: u8 = 2;
/// Version 1, still read: the opponent's last draw count alone ([`OPP_DRAWS`] classes).
pub const ABSTRACTION_OPP: u8 = 1;
/// Stud hi/lo ([`crate::stud`]): its card classes and order classes.
pub const ABSTRACTION_STUD: u8 = 3;

/// The (draw or order classes, card classes) of abstraction `version`.
fn shape_of(version: u8) -> Option<(usize, usize)> {
    match version {
        ABSTRACTION => Some((BOTH_DRAWS, BUCKETS)),
        ABSTRACTION_OPP => Some((OPP_DRAWS, BUCKETS)),
        ABSTRACTION_STUD => Some((crate::stud::ORDERS, crate::stud::BUCKETS)),
        _ => None,
    }
}

/// A strategy file that cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum StrategyError {
    #[error("not a strategy file (it does not start with {MAGIC:?})")]
    Magic,
    #[error("the strategy file ends early")]
    Truncated,
    #[error("the strategy was trained on abstraction version {0}; this build knows versions {ABSTRACTION_OPP}, {ABSTRACTION} and {ABSTRACTION_STUD}")]
    Version(u8),
    #[error("the strategy is for {found} nodes × {classes} classes × {opp} draw classes × {actions} actions; this build's tree and abstraction have {nodes} × {buckets} × {draws} × {width}")]
    Shape {
        found: u32,
        nodes: u32,
        classes: u8,
        opp: u8,
        buckets: usize,
        draws: usize,
        actions: u8,
        width: u8,
    },
}

/// A trained strategy, ready to play.
#[derive(Clone, Debug)]
pub struct Strategy {
    pub game: String,
    pub iterations: u64,
    pub seed: u64,
    /// Actions per information set.
    pub width: usize,
    /// Draw classes ([`td::draws_class`]): what the abstraction it was trained on lets a player
    /// see of the draws (stud: the order classes).
    pub draws: usize,
    /// Card classes per round.
    pub buckets: usize,
    probs: Vec<u8>,
}

impl Strategy {
    /// The trainer's average strategy.
    pub fn from_trainer(game: &str, seed: u64, t: &Trainer) -> Strategy {
        let width = t.width();
        let mut probs = Vec::with_capacity(width * t.infosets());
        for i in 0..t.infosets() {
            match t.average(i) {
                Some(p) => probs.extend_from_slice(&quantize(&p)),
                None => probs.resize(probs.len() + width, 0),
            }
        }
        Strategy {
            game: game.to_string(),
            iterations: t.iterations,
            seed,
            width,
            draws: t.draws(),
            buckets: t.buckets(),
            probs,
        }
    }

    /// The index of the information set at node `n` of a player holding a hand of class
    /// `class` who saw the opponent's last draw of `opp` cards and drew `own` itself (0 before
    /// the first draw), in this strategy's abstraction.
    #[inline]
    pub fn infoset(&self, n: u32, class: u8, opp: u8, own: u8) -> usize {
        let d = td::draws_class(opp, own, self.draws);
        infoset_in(n, class, d as u8, self.draws, self.buckets)
    }

    /// The index of the information set at node `n` of a stud player holding class `class` with
    /// order class `order` ([`crate::stud::order_class`]).
    #[inline]
    pub fn stud_infoset(&self, n: u32, class: u8, order: u8) -> usize {
        infoset_in(n, class, order, self.draws, self.buckets)
    }

    /// The version byte of this strategy's abstraction.
    fn version(&self) -> u8 {
        if self.buckets == crate::stud::BUCKETS && self.draws == crate::stud::ORDERS {
            ABSTRACTION_STUD
        } else if self.draws == BOTH_DRAWS {
            ABSTRACTION
        } else {
            ABSTRACTION_OPP
        }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.probs.len() + 64);
        out.extend_from_slice(MAGIC);
        out.push(self.game.len() as u8);
        out.extend_from_slice(self.game.as_bytes());
        out.push(self.version());
        out.extend_from_slice(
            &((self.probs.len() / self.width / (self.draws * self.buckets)) as u32).to_le_bytes(),
        );
        out.push(self.buckets as u8);
        out.push(self.draws as u8);
        out.push(self.width as u8);
        out.extend_from_slice(&self.iterations.to_le_bytes());
        out.extend_from_slice(&self.seed.to_le_bytes());
        out.extend_from_slice(&self.probs);
        out
    }

    /// Reads a strategy for a tree of `nodes` decision nodes and `width` actions per node.
    ///
    /// # Errors
    /// [`StrategyError`] for a file that is not one, or was made for another tree or abstraction.
    pub fn from_bytes(b: &[u8], nodes: usize, width: usize) -> Result<Strategy, StrategyError> {
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
        let Some((draws, buckets)) = shape_of(version) else {
            return Err(StrategyError::Version(version));
        };
        let found = u32::from_le_bytes(take(4)?.try_into().expect("4 bytes"));
        let (classes, opp, actions) = (take(1)?[0], take(1)?[0], take(1)?[0]);
        if found as usize != nodes
            || usize::from(classes) != buckets
            || usize::from(opp) != draws
            || usize::from(actions) != width
        {
            return Err(StrategyError::Shape {
                found,
                nodes: nodes as u32,
                classes,
                opp,
                buckets,
                draws,
                actions,
                width: width as u8,
            });
        }
        let iterations = u64::from_le_bytes(take(8)?.try_into().expect("8 bytes"));
        let seed = u64::from_le_bytes(take(8)?.try_into().expect("8 bytes"));
        let probs = take(width * nodes * draws * buckets)?.to_vec();
        Ok(Strategy {
            game,
            iterations,
            seed,
            width,
            draws,
            buckets,
            probs,
        })
    }

    /// The probabilities at information set `i`, in 255ths; `None` where training never went.
    #[inline]
    pub fn at(&self, i: usize) -> Option<&[u8]> {
        let p = &self.probs[self.width * i..self.width * (i + 1)];
        p.iter().any(|&x| x != 0).then_some(p)
    }
}

/// A strategy file as shipped: zstd-compressed (`.cfr.zst`).
///
/// # Errors
/// The decoder's message, for bytes that are not zstd.
pub fn decompress(z: &[u8]) -> Result<Vec<u8>, String> {
    zstd::stream::decode_all(z).map_err(|e| e.to_string())
}

/// Compresses a strategy file for shipping (level 19: done once, read at every start).
pub fn compress(raw: &[u8]) -> Vec<u8> {
    zstd::bulk::compress(raw, 19).expect("compressing to memory")
}

/// Probabilities as 255ths summing to exactly 255 (largest remainders), so that a sampled action
/// never falls outside them.
pub fn quantize(p: &[f32]) -> Vec<u8> {
    if !p.iter().any(|&x| x > 0.0) {
        return vec![0; p.len()];
    }
    let scaled: Vec<f32> = p.iter().map(|x| x.max(0.0) * 255.0).collect();
    let mut q: Vec<u16> = scaled.iter().map(|x| x.floor() as u16).collect();
    let mut left = 255 - q.iter().sum::<u16>().min(255);
    let mut order: Vec<usize> = (0..p.len()).collect();
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
    q.into_iter().map(|x| x as u8).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantized_probabilities_sum_to_255_and_keep_zeros() {
        assert_eq!(quantize(&[0.0, 0.5, 0.5]), [0, 128, 127]);
        assert_eq!(quantize(&[0.0; 5]), [0; 5], "nothing to share");
        for p in [
            &[0.0, 0.5, 0.5][..],
            &[1.0 / 3.0; 3],
            &[0.0, 1.0, 0.0],
            &[0.001, 0.0, 0.999],
            &[0.2; 5],
        ] {
            let q = quantize(p);
            assert_eq!(q.iter().map(|&x| u16::from(x)).sum::<u16>(), 255, "{p:?}");
            for a in 0..p.len() {
                // A disallowed action (probability zero) never gets a share; a tiny one may
                // round to nothing.
                assert!(p[a] > 0.0 || q[a] == 0, "{p:?} → {q:?}");
            }
        }
    }
}
