//! One hand played again: dealt from the match's deck key exactly as the referee dealt it
//! ([`pitboss_arena::slot`]: the deal, the seat rotation, the button), the recorded actions
//! applied by the rules engine in order, the chips compared.

use pitboss_arena::slot;
use pitboss_arena::tape::HandRef;
use pitboss_cards::Deck;
use pitboss_luck::{Adjuster, HandAdjuster};
use pitboss_rules::{Hand, Seat, Table, TableSetup};

use crate::{Refusal, Setup};

/// Replays hands of one match.
pub struct Replayer<'a> {
    setup: &'a Setup,
    table: Table,
    luck: Option<HandAdjuster>,
    net: Vec<(Seat, i64)>,
}

impl<'a> Replayer<'a> {
    /// # Errors
    /// [`Refusal::Shape`] when the setup is not a valid table (never for a preset's).
    pub fn new(setup: &'a Setup) -> Result<Replayer<'a>, Refusal> {
        let table = TableSetup {
            game: setup.game,
            stacks: vec![setup.stack; setup.seats],
            button: 0,
        }
        .validate()
        .map_err(|e| Refusal::Shape(format!("belongs to an impossible table: {e}")))?;
        Ok(Replayer {
            setup,
            table,
            luck: setup.luck.map(|m| {
                HandAdjuster::new(
                    Adjuster::new(&setup.game, m).with_stacks(&vec![setup.stack; setup.seats]),
                    setup.key.side_seed(),
                    setup.seats,
                )
            }),
            net: Vec::with_capacity(setup.seats),
        })
    }

    /// Replays hand `k` (0-based) from its record.
    ///
    /// # Errors
    /// [`Refusal::Replay`] for an action the engine refuses or a hand that ends before or after
    /// its actions; [`Refusal::Chips`] or [`Refusal::Luck`] for results that differ.
    pub fn check(&mut self, k: u64, h: HandRef<'_>) -> Result<(), Refusal> {
        let hand_no = k + 1;
        let bad = |why: String| Refusal::Replay { hand: hand_no, why };
        let s = slot(k, self.setup.seats, self.setup.duplicate);
        let table = self.table.with_button(Seat(s.button as u8));
        let mut hand = Hand::start(&table, Deck::with_key(&self.setup.key, s.deal))
            .map_err(|e| bad(format!("cannot deal: {e}")))?;
        for (i, a) in h.actions.iter().enumerate() {
            let Some(legal) = hand.legal() else {
                return Err(bad(format!(
                    "action {} of {} comes after the hand is over",
                    i + 1,
                    h.actions.len()
                )));
            };
            hand.apply(legal.seat, *a)
                .map_err(|e| bad(format!("action {}: {e}", i + 1)))?;
        }
        if !hand.is_over() {
            return Err(bad(format!(
                "the hand is not over after its {} recorded actions",
                h.actions.len()
            )));
        }
        self.net.clear();
        self.net.extend(hand.net());
        for (&(seat, replayed), &claimed) in self.net.iter().zip(h.net) {
            if replayed != claimed {
                return Err(Refusal::Chips {
                    hand: hand_no,
                    seat: seat.index() + 1,
                    claimed,
                    replayed,
                });
            }
        }
        if let (Some(l), Some(adj)) = (self.luck.as_mut(), h.adj) {
            let got = l.hand(s.deal, hand.events(), &self.net);
            for (seat, (&replayed, &claimed)) in got.iter().zip(adj).enumerate() {
                if replayed != claimed {
                    return Err(Refusal::Luck {
                        hand: hand_no,
                        seat: seat + 1,
                        claimed,
                        replayed,
                    });
                }
            }
        }
        Ok(())
    }
}
