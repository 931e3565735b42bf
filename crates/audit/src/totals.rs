//! The totals a result is rated on, recomputed from the tape's per-hand nets: a claimed total
//! must be exactly the sum of the hands it claims to sum, so a forged total cannot hide behind
//! genuine hands (and a forged hand must then also be replayed wrong — which the sample catches).

use pitboss_arena::tape::Tape;
use pitboss_arena::{slot, BotStats};

use crate::{Refusal, Setup};

/// The statistics of each bot that come from the nets alone (hands, net and squares, duplicate
/// units, the luck-adjusted sums; the rest stays zero), summed over the tape's hands.
///
/// # Errors
/// [`Refusal::Conservation`] for a hand whose nets do not sum to zero.
pub fn from_tape(setup: &Setup, t: &Tape) -> Result<Vec<BotStats>, Refusal> {
    let n = setup.seats;
    let mut sums = vec![BotStats::default(); n];
    let mut unit = vec![0i64; n];
    let mut unit_adj = vec![0i64; n];
    for (k, h) in t.hands.iter().enumerate() {
        let k = k as u64;
        let sum = h.net.iter().try_fold(0i64, |a, &v| a.checked_add(v));
        if sum != Some(0) {
            return Err(Refusal::Conservation {
                hand: k + 1,
                sum: sum.unwrap_or(i64::MAX),
            });
        }
        let s = slot(k, n, setup.duplicate);
        for seat in 0..n {
            let bot = (seat + n - s.rotation) % n;
            let (v, x) = (i128::from(h.net[seat]), &mut sums[bot]);
            x.hands += 1;
            x.net += v;
            x.net_sq += v * v;
            unit[bot] += h.net[seat];
            if let Some(adj) = &h.adj {
                let m = i128::from(adj[seat]);
                x.adj_hands += 1;
                x.adj_net += m;
                x.adj_sq += m * m;
                unit_adj[bot] += adj[seat];
            }
        }
        if !setup.duplicate || s.rotation == n - 1 {
            for (bot, x) in sums.iter_mut().enumerate() {
                let (u, a) = (i128::from(unit[bot]), i128::from(unit_adj[bot]));
                x.units += 1;
                x.unit_net += u;
                x.unit_sq += u * u;
                if t.luck {
                    x.adj_unit_net += a;
                    x.adj_unit_sq += a * a;
                }
            }
            unit.fill(0);
            unit_adj.fill(0);
        }
    }
    Ok(sums)
}

/// Checks every hand's chips are conserved and every claimed sum equals the tape's.
///
/// # Errors
/// [`Refusal::Conservation`] or [`Refusal::Totals`].
pub fn check(setup: &Setup, t: &Tape, claimed: &[BotStats]) -> Result<(), Refusal> {
    let sums = from_tape(setup, t)?;
    for (bot, (c, x)) in claimed.iter().zip(&sums).enumerate() {
        let fields: [(&'static str, i128, i128); 11] = [
            ("hands", c.hands.into(), x.hands.into()),
            ("net", c.net, x.net),
            ("net_sq", c.net_sq, x.net_sq),
            ("units", c.units.into(), x.units.into()),
            ("unit_net", c.unit_net, x.unit_net),
            ("unit_sq", c.unit_sq, x.unit_sq),
            ("adj_hands", c.adj_hands.into(), x.adj_hands.into()),
            ("adj_net", c.adj_net, x.adj_net),
            ("adj_sq", c.adj_sq, x.adj_sq),
            ("adj_unit_net", c.adj_unit_net, x.adj_unit_net),
            ("adj_unit_sq", c.adj_unit_sq, x.adj_unit_sq),
        ];
        for (field, claimed, tape) in fields {
            if claimed != tape {
                return Err(Refusal::Totals {
                    bot: bot + 1,
                    field,
                    claimed,
                    tape,
                });
            }
        }
    }
    Ok(())
}
