//! The totals a result is rated on, recomputed from the tape's per-hand nets: a claimed total
//! must be exactly the sum of the hands it claims to sum, so a forged total cannot hide behind
//! genuine hands (and a forged hand must then also be replayed wrong — which the sample catches).

use pitboss_arena::tape::{HandRef, Tape};
use pitboss_arena::{slot, BotStats};

use crate::{Refusal, Setup};

/// The statistics of each bot that come from the nets alone (hands, net and squares, duplicate
/// units, the luck-adjusted sums; the rest stays zero), summed over the tape's hands.
///
/// # Errors
/// [`Refusal::Conservation`] for a hand whose nets do not sum to zero.
pub fn from_tape(setup: &Setup, t: &Tape) -> Result<Vec<BotStats>, Refusal> {
    let mut sums = Sums::new(setup, t.luck);
    for (k, h) in t.hands.iter().enumerate() {
        sums.add(k as u64, h.as_ref())?;
    }
    Ok(sums.bots)
}

/// [`from_tape`]'s sums, taken a hand at a time as the tape is walked.
pub struct Sums<'a> {
    setup: &'a Setup,
    luck: bool,
    bots: Vec<BotStats>,
    unit: Vec<i64>,
    unit_adj: Vec<i64>,
    /// The hand expected next and its seat rotation: hands come in order, so the rotation is
    /// stepped rather than divided out of the hand's number (two divisions a hand were a
    /// quarter of the walk).
    next: u64,
    rotation: usize,
}

impl<'a> Sums<'a> {
    /// Nothing summed yet, for a tape with (`luck`) or without luck-adjusted results.
    pub fn new(setup: &'a Setup, luck: bool) -> Sums<'a> {
        let n = setup.seats;
        Sums {
            setup,
            luck,
            bots: vec![BotStats::default(); n],
            unit: vec![0; n],
            unit_adj: vec![0; n],
            next: 0,
            rotation: 0,
        }
    }

    /// Adds hand `k` (0-based, hands in order).
    ///
    /// # Errors
    /// [`Refusal::Conservation`] for a hand whose nets do not sum to zero.
    pub fn add(&mut self, k: u64, h: HandRef<'_>) -> Result<(), Refusal> {
        let n = self.setup.seats;
        let sum = h.net.iter().try_fold(0i64, |a, &v| a.checked_add(v));
        if sum != Some(0) {
            return Err(Refusal::Conservation {
                hand: k + 1,
                sum: sum.unwrap_or(i64::MAX),
            });
        }
        let rotation = if k == self.next {
            self.rotation
        } else {
            slot(k, n, self.setup.duplicate).rotation
        };
        let last = if self.setup.duplicate {
            rotation == n - 1
        } else {
            true
        };
        // The next hand's rotation: duplicate matches rotate every hand, others every n hands.
        self.next = k + 1;
        self.rotation = if self.setup.duplicate {
            if rotation + 1 == n {
                0
            } else {
                rotation + 1
            }
        } else {
            slot(k + 1, n, false).rotation
        };
        for seat in 0..n {
            let bot = if seat >= rotation {
                seat - rotation
            } else {
                seat + n - rotation
            };
            let (v, x) = (i128::from(h.net[seat]), &mut self.bots[bot]);
            x.hands += 1;
            x.net += v;
            x.net_sq += v * v;
            self.unit[bot] += h.net[seat];
            if let Some(adj) = h.adj {
                let m = i128::from(adj[seat]);
                x.adj_hands += 1;
                x.adj_net += m;
                x.adj_sq += m * m;
                self.unit_adj[bot] += adj[seat];
            }
        }
        if last {
            for (bot, x) in self.bots.iter_mut().enumerate() {
                let (u, a) = (i128::from(self.unit[bot]), i128::from(self.unit_adj[bot]));
                x.units += 1;
                x.unit_net += u;
                x.unit_sq += u * u;
                if self.luck {
                    x.adj_unit_net += a;
                    x.adj_unit_sq += a * a;
                }
            }
            self.unit.fill(0);
            self.unit_adj.fill(0);
        }
        Ok(())
    }

    /// The sums, per bot.
    pub fn bots(&self) -> &[BotStats] {
        &self.bots
    }
}

/// Checks every hand's chips are conserved and every claimed sum equals the tape's.
///
/// # Errors
/// [`Refusal::Conservation`] or [`Refusal::Totals`].
pub fn check(setup: &Setup, t: &Tape, claimed: &[BotStats]) -> Result<(), Refusal> {
    compare(&from_tape(setup, t)?, claimed)
}

/// Requires every claimed sum to be the tape's (`sums`, per bot).
///
/// # Errors
/// [`Refusal::Totals`] for the first that differs.
pub fn compare(sums: &[BotStats], claimed: &[BotStats]) -> Result<(), Refusal> {
    for (bot, (c, x)) in claimed.iter().zip(sums).enumerate() {
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
