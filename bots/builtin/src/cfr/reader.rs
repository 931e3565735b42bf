//! The betting of a heads-up hand read as the solved tree reads it, shared by `cfr` (which plays
//! the strategy at the node reached) and `lbr` (which weighs the strategy's range by the actions
//! seen): both must map the same events to the same tree actions, or `lbr` would answer a range
//! the strategy never holds.

use pitboss_cfr::tree::{Next, Node, CALL, FOLD, HALF};
use pitboss_protocol::{Chips, Event, HandStart, SeatNo};

use super::{nearest_raise, share, Game};

/// Whether a hand is played from the strategy: heads-up, at stacks the tree was solved for.
/// Fixed limit: four capped rounds cost at most 24 big blinds heads-up, so deeper stacks never
/// matter. Pot and no limit were solved 100 big blinds deep.
pub(super) fn on_tree(h: &HandStart, game: Option<(Game, Chips)>) -> bool {
    let fits = |(g, bb): (Game, Chips)| match g {
        Game::Fl => h.stacks.iter().all(|&s| s >= 24 * bb),
        Game::Pl | Game::Nl => h.stacks.iter().all(|&s| s == 100 * bb),
    };
    h.seats == 2 && game.is_some_and(fits)
}

/// The chips of one hand's betting by tree position (0: the button), and the tree action of
/// this bot's last answer (its own raise is read as what it chose, not as the tree's nearest).
#[derive(Clone, Copy, Debug)]
pub(super) struct Reader {
    /// This bot's position in the tree and its seat.
    pub me: u8,
    pub seat: SeatNo,
    /// Each position's chips in the pot, and its bet this round.
    pub contrib: [Chips; 2],
    pub bet: [Chips; 2],
    pub chose: Option<usize>,
}

/// One event as the tree reads it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Step {
    /// Not a betting decision (a blind, a new round, a card, a draw…).
    Skip,
    /// Position `p` took tree action `a`; for another's raise read as a tree raise of another
    /// size (pot and no limit), the real raise and the tree's, each as a share of the pot after
    /// calling it.
    Act {
        p: usize,
        a: usize,
        faced: Option<(f64, f64)>,
    },
}

impl Reader {
    /// A hand's reader for the bot in `seat` (`button`: the hand's button).
    pub fn new(seat: SeatNo, button: SeatNo) -> Reader {
        Reader {
            me: u8::from(seat != button),
            seat,
            contrib: [0; 2],
            bet: [0; 2],
            chose: None,
        }
    }

    /// The tree position of `seat`.
    pub fn pos(&self, seat: SeatNo) -> usize {
        usize::from(if seat == self.seat {
            self.me
        } else {
            1 - self.me
        })
    }

    /// Whether position `p` is this bot's.
    pub fn mine(&self, p: usize) -> bool {
        p == usize::from(self.me)
    }

    /// Reads one event at `node` (the node reached, `None` once the hand left the tree): blinds
    /// and calls counted, a new round's bets cleared, a fold, check or call as the tree's, a raise
    /// as this bot's choice, in fixed limit as the tree's only raise, else as the tree's nearest
    /// at `node`. After this bot's own action its choice is forgotten.
    pub fn read(&mut self, e: &Event, game: Game, node: Option<&Node>) -> Step {
        let (p, a, faced) = match *e {
            Event::Round { .. } => {
                self.bet = [0; 2];
                return Step::Skip;
            }
            Event::Blind { seat, amount, .. } => {
                let p = self.pos(seat);
                self.bet[p] += amount;
                self.contrib[p] += amount;
                return Step::Skip;
            }
            Event::Fold { seat } => (self.pos(seat), FOLD, None),
            Event::Check { seat } => (self.pos(seat), CALL, None),
            Event::Call { seat, amount, .. } => {
                let p = self.pos(seat);
                self.bet[p] += amount;
                self.contrib[p] += amount;
                (p, CALL, None)
            }
            Event::Raise {
                seat, to, all_in, ..
            } => {
                let p = self.pos(seat);
                let level = self.bet[0].max(self.bet[1]);
                let pot_after_call = self.contrib[0] + self.contrib[1] + (level - self.bet[p]);
                let (a, faced) = match (self.chose, node) {
                    (Some(a), _) if self.mine(p) => (a, None),
                    _ if game == Game::Fl => (HALF, None),
                    (_, Some(node)) => {
                        let inc = to.saturating_sub(level);
                        let a = nearest_raise(node, inc, pot_after_call, all_in);
                        let real = inc as f64 / pot_after_call.max(1) as f64;
                        (a, Some((real, share(node, a))))
                    }
                    (_, None) => (HALF, None),
                };
                self.contrib[p] += to - self.bet[p];
                self.bet[p] = to;
                (p, a, faced)
            }
            // No bring-in in triple draw: off the tree.
            Event::BringIn { .. } => (2, FOLD, None),
            _ => return Step::Skip,
        };
        if self.mine(p) {
            self.chose = None;
        }
        Step::Act { p, a, faced }
    }
}

/// The node after position `p` takes tree action `a` at `node`: [`Next::Illegal`] when the
/// action is not the tree's there (another position to act, or an action it does not have).
pub(super) fn next(node: &Node, p: usize, a: usize) -> Next {
    if p < 2 && usize::from(node.player) == p {
        node.next[a]
    } else {
        Next::Illegal
    }
}
