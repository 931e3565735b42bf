//! `random`: the floor every other bot must beat.

use pitboss_protocol::{ActRequest, Action, Bot};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

use crate::util;

/// `random` picks uniformly among the legal action *types* (fold, check, call, raise, bring-in),
/// never folding when it could check for free; a raise is sized uniformly among the minimum
/// raise, half the pot, the pot and all-in, clipped to the legal range (all four are the same in
/// fixed limit). In a draw it discards a uniformly random subset of its cards. It is the floor:
/// any bot that does not beat `random` by a wide margin is broken. It allocates nothing per
/// decision except a discard's card list, so the referee's throughput benchmark runs on it.
pub struct RandomBot {
    rng: ChaCha8Rng,
}

impl RandomBot {
    pub fn new(seed: u64) -> RandomBot {
        RandomBot {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// Uniform in `0..n` (`n` ≥ 1, small): the multiply-shift method, bias below 2^-27.
    #[inline]
    fn below(&mut self, n: u32) -> u32 {
        ((u64::from(self.rng.next_u32()) * u64::from(n)) >> 32) as u32
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Fold,
    Check,
    Call,
    Raise,
    BringIn,
}

impl Bot for RandomBot {
    fn act(&mut self, req: &ActRequest) -> Action {
        let legal = &req.legal;
        if let Some(max) = legal.discard {
            let n = req.view.cards.len().min(32);
            let mut mask = self.rng.next_u32() & ((1u64 << n) - 1) as u32;
            while mask.count_ones() > u32::from(max) {
                mask &= mask - 1; // drop the lowest chosen card until few enough remain
            }
            return util::discard_mask(&req.view.cards, mask);
        }
        let mut kinds = [Kind::Fold; 5];
        let mut n = 0;
        // Folding when checking is free is never sensible, even for a random bot.
        if legal.fold && !legal.check {
            kinds[n] = Kind::Fold;
            n += 1;
        }
        for (ok, kind) in [
            (legal.check, Kind::Check),
            (legal.call.is_some(), Kind::Call),
            (legal.raise.is_some(), Kind::Raise),
            (legal.bring_in.is_some(), Kind::BringIn),
        ] {
            if ok {
                kinds[n] = kind;
                n += 1;
            }
        }
        if n == 0 {
            return util::passive(legal);
        }
        match kinds[self.below(n as u32) as usize] {
            Kind::Fold => Action::Fold,
            Kind::Check => Action::Check,
            Kind::Call => Action::Call,
            Kind::BringIn => Action::BringIn,
            Kind::Raise => {
                let r = legal.raise.expect("raise listed only when allowed");
                let to = match self.below(4) {
                    0 => r.min_to,
                    1 => util::pot_fraction_to(&req.view, 1, 2),
                    2 => util::pot_fraction_to(&req.view, 1, 1),
                    _ => r.max_to,
                };
                util::aggressive(legal, to)
            }
        }
    }
}
