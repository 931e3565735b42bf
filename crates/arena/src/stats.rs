//! Streaming statistics: every number is an integer sum, so merging per-block results in any order
//! gives the same totals (the match is deterministic for any thread count), and memory does not
//! grow with the number of hands.

use pitboss_protocol::FaultKind;
use pitboss_rules::{Event, Seat, Share};

/// Sums for one bot (serialized in tournament unit files).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BotStats {
    pub hands: u64,
    pub net: i128,
    pub net_sq: i128,
    /// Duplicate units (or hands, when not duplicate): count, sum and sum of squares of the
    /// bot's net per unit.
    pub units: u64,
    pub unit_net: i128,
    pub unit_sq: i128,
    pub vpip: u64,
    pub first_round_raise: u64,
    pub bets_raises: u64,
    pub calls: u64,
    pub showdowns: u64,
    pub showdowns_won: u64,
    pub draws: u64,
    pub cards_drawn: u64,
    pub scoops: u64,
    pub low_wins: u64,
    pub faults: [u64; FaultKind::ALL.len()],
    /// Luck-adjusted results (crate `pitboss-luck`), in thousandths of a chip: sum and sum of
    /// squares per hand and per unit. Zero when the match does not adjust.
    #[serde(default)]
    pub adj_net: i128,
    #[serde(default)]
    pub adj_sq: i128,
    #[serde(default)]
    pub adj_unit_net: i128,
    #[serde(default)]
    pub adj_unit_sq: i128,
    /// Hands with a luck-adjusted result (all of them, or none).
    #[serde(default)]
    pub adj_hands: u64,
    /// Decisions taken facing a bet or raise of another seat (blinds and bring-ins aside), and
    /// the folds among them: the service's "fold to a bet".
    #[serde(default)]
    pub faced_bets: u64,
    #[serde(default)]
    pub folds_to_bet: u64,
}

impl BotStats {
    pub fn merge(&mut self, o: &BotStats) {
        self.hands += o.hands;
        self.net += o.net;
        self.net_sq += o.net_sq;
        self.units += o.units;
        self.unit_net += o.unit_net;
        self.unit_sq += o.unit_sq;
        self.vpip += o.vpip;
        self.first_round_raise += o.first_round_raise;
        self.bets_raises += o.bets_raises;
        self.calls += o.calls;
        self.showdowns += o.showdowns;
        self.showdowns_won += o.showdowns_won;
        self.draws += o.draws;
        self.cards_drawn += o.cards_drawn;
        self.faced_bets += o.faced_bets;
        self.folds_to_bet += o.folds_to_bet;
        self.scoops += o.scoops;
        self.low_wins += o.low_wins;
        for (a, b) in self.faults.iter_mut().zip(o.faults) {
            *a += b;
        }
        self.adj_net += o.adj_net;
        self.adj_sq += o.adj_sq;
        self.adj_unit_net += o.adj_unit_net;
        self.adj_unit_sq += o.adj_unit_sq;
        self.adj_hands += o.adj_hands;
    }

    /// Adds one hand's luck-adjusted result, in thousandths of a chip.
    pub fn add_adjusted(&mut self, milli: i64) {
        self.adj_hands += 1;
        self.adj_net += i128::from(milli);
        self.adj_sq += i128::from(milli) * i128::from(milli);
    }

    /// Adds one unit's luck-adjusted result, in thousandths of a chip.
    pub fn add_adjusted_unit(&mut self, milli: i64) {
        self.adj_unit_net += i128::from(milli);
        self.adj_unit_sq += i128::from(milli) * i128::from(milli);
    }

    pub fn fault_total(&self) -> u64 {
        self.faults.iter().sum()
    }

    /// Adds one unit's net (a duplicate unit, or one hand).
    pub fn add_unit(&mut self, net: i64) {
        self.units += 1;
        self.unit_net += i128::from(net);
        self.unit_sq += i128::from(net) * i128::from(net);
    }

    /// Adds what `seat` did in a finished hand with these `events` and this `net`.
    pub fn add_hand(&mut self, seat: Seat, events: &[Event], net: i64) {
        self.hands += 1;
        self.net += i128::from(net);
        self.net_sq += i128::from(net) * i128::from(net);
        let mut round = 0;
        let mut vpip = false;
        let mut raised_first = false;
        let mut showdown = false;
        let mut won = 0u64;
        let mut pot0_mine = true;
        let mut pot0_any = false;
        let mut low = false;
        // Another seat bet or raised since this seat last acted in the round.
        let mut facing = false;
        for e in events {
            match *e {
                Event::Fold { seat: s }
                | Event::Check { seat: s }
                | Event::Call { seat: s, .. }
                | Event::Raise { seat: s, .. }
                    if s == seat =>
                {
                    self.faced_bets += u64::from(facing);
                    self.folds_to_bet += u64::from(facing && matches!(e, Event::Fold { .. }));
                    facing = false;
                }
                Event::Raise { .. } => facing = true,
                _ => {}
            }
            match *e {
                Event::Round { round: r } => {
                    round = r;
                    facing = false;
                }
                Event::Call { seat: s, .. } if s == seat => {
                    self.calls += 1;
                    vpip |= round == 0;
                }
                Event::Raise { seat: s, .. } if s == seat => {
                    self.bets_raises += 1;
                    vpip |= round == 0;
                    raised_first |= round == 0;
                }
                Event::Discard { seat: s, count, .. } if s == seat => {
                    self.draws += 1;
                    self.cards_drawn += u64::from(count);
                }
                Event::Show { seat: s, .. } | Event::Muck { seat: s } if s == seat => {
                    showdown = true
                }
                Event::Award {
                    seat: s,
                    pot,
                    share,
                    amount,
                } => {
                    if pot == 0 {
                        pot0_any = true;
                        pot0_mine &= s == seat;
                    }
                    if s == seat {
                        won += amount;
                        low |= share == Share::Low;
                    }
                }
                _ => {}
            }
        }
        self.vpip += u64::from(vpip);
        self.first_round_raise += u64::from(raised_first);
        if showdown {
            self.showdowns += 1;
            self.showdowns_won += u64::from(won > 0);
            self.scoops += u64::from(pot0_any && pot0_mine);
            self.low_wins += u64::from(low);
        }
    }

    pub fn add_fault(&mut self, kind: FaultKind) {
        let i = FaultKind::ALL
            .iter()
            .position(|k| *k == kind)
            .expect("known kind");
        self.faults[i] += 1;
    }
}

/// Per-bot sums of a match (or of a block of it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MatchStats {
    pub bots: Vec<BotStats>,
}

impl MatchStats {
    pub fn new(bots: usize) -> MatchStats {
        MatchStats {
            bots: vec![BotStats::default(); bots],
        }
    }

    /// Adds a finished hand for every seat in one pass over the events; `bot_at(seat)` says
    /// which bot sat there.
    pub fn add_hand(&mut self, events: &[Event], net: &[i64], bot_at: impl Fn(usize) -> usize) {
        for (seat, &v) in net.iter().enumerate() {
            self.bots[bot_at(seat)].add_hand(Seat(seat as u8), events, v);
        }
    }

    pub fn merge(&mut self, o: &MatchStats) {
        for (a, b) in self.bots.iter_mut().zip(&o.bots) {
            a.merge(b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitboss_rules::RaiseKind;

    fn raise(s: u8) -> Event {
        Event::Raise {
            seat: Seat(s),
            kind: RaiseKind::Bet,
            to: 10,
            all_in: false,
        }
    }

    #[test]
    fn fold_to_a_bet_counts_decisions_facing_a_bet() {
        // Round 0: seat 1 bets, seat 0 calls (faced, no fold). Round 1: seat 0 checks (not
        // facing), seat 1 bets, seat 0 folds (faced, fold).
        let ev = [
            Event::Round { round: 0 },
            raise(1),
            Event::Call {
                seat: Seat(0),
                amount: 10,
                all_in: false,
            },
            Event::Round { round: 1 },
            Event::Check { seat: Seat(0) },
            raise(1),
            Event::Fold { seat: Seat(0) },
        ];
        let mut s0 = BotStats::default();
        s0.add_hand(Seat(0), &ev, -20);
        assert_eq!((s0.faced_bets, s0.folds_to_bet), (2, 1));
        let mut s1 = BotStats::default();
        s1.add_hand(Seat(1), &ev, 20);
        assert_eq!((s1.faced_bets, s1.folds_to_bet), (0, 0));
        s0.merge(&s1.clone());
        assert_eq!(s0.faced_bets, 2);
    }
}
