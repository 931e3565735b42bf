//! The betting of a heads-up hand read as the solved tree reads it, shared by `cfr` (which plays
//! the strategy at the node reached) and `lbr` (which weighs the strategy's range by the actions
//! seen): both must map the same events to the same tree actions, or `lbr` would answer a range
//! the strategy never holds.

use pitboss_cfr::tree::{Next, Node, CALL, FOLD, HALF};
use pitboss_protocol::{Chips, Event, HandStart, SeatNo};

use super::{nearest_raise, share, Game};

/// Whether a hand is played from the strategy: heads-up, at stacks the tree was solved for.
/// Fixed limit: four capped rounds cost at most 24 big blinds heads-up (stud's five, 33 small
/// bets with the ante), so deeper stacks never matter. Pot and no limit were solved 100 big blinds
/// deep.
pub(super) fn on_tree(h: &HandStart, game: Option<(Game, Chips)>) -> bool {
    let fits = |(g, bb): (Game, Chips)| match g {
        Game::Fl => h.stacks.iter().all(|&s| s >= 24 * bb),
        Game::StudFl => h.stacks.iter().all(|&s| s >= 33 * bb),
        Game::Pl | Game::Nl | Game::StudPl | Game::StudNl => {
            h.stacks.iter().all(|&s| s == 100 * bb)
        }
    };
    h.seats == 2 && game.is_some_and(fits)
}

/// The chips of one hand's betting by tree position (0: the button; in stud, whoever acts first
/// on the street), and the tree action of this bot's last answer (its own raise is read as what it
/// chose, not as the tree's nearest).
#[derive(Clone, Copy, Debug)]
pub(super) struct Reader {
    /// This bot's position in the tree and its seat.
    pub me: u8,
    pub seat: SeatNo,
    /// Stud: positions change from street to street with the cards; the street's first action
    /// (or this bot being asked first, [`Reader::first_to_act`]) says who is position 0.
    pub stud: bool,
    /// Stud: no action seen yet on this street.
    pub fresh: bool,
    /// Stud: the street being bet, and on each street so far whether this bot acted first.
    pub street: u8,
    pub firsts: [bool; 5],
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
            stud: false,
            fresh: false,
            street: 0,
            firsts: [false; 5],
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

    /// A stud hand's reader for the bot in `seat`.
    pub fn stud(seat: SeatNo) -> Reader {
        Reader {
            stud: true,
            fresh: true,
            ..Reader::new(seat, seat)
        }
    }

    /// Stud: `seat` acts first on this street if nobody has yet (it is position 0).
    fn street_opened_by(&mut self, seat: SeatNo) {
        if self.stud && self.fresh {
            self.fresh = false;
            self.me = u8::from(seat != self.seat);
            self.firsts[usize::from(self.street.min(4))] = seat == self.seat;
        }
    }

    /// Stud: this bot is asked to act; if nobody has acted on the street, it is first.
    pub fn first_to_act(&mut self) {
        self.street_opened_by(self.seat);
    }

    /// Stud: the order class of this bot on the current street ([`pitboss_cfr::stud::order_class`]).
    pub fn order(&self) -> u8 {
        let first = self.firsts.map(|f| u8::from(!f));
        pitboss_cfr::stud::order_class(0, self.street, &first)
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
        if let Event::BringIn { seat, .. }
        | Event::Fold { seat }
        | Event::Check { seat }
        | Event::Call { seat, .. }
        | Event::Raise { seat, .. } = *e
        {
            self.street_opened_by(seat);
        }
        let (p, a, faced) = match *e {
            Event::Round { round } => {
                self.bet = [0; 2];
                self.street = round;
                self.fresh = self.stud;
                return Step::Skip;
            }
            // Stud's antes are in the pot but not a bet of the street (the sum of the two
            // positions' chips is what is read: positions change with the streets).
            Event::Ante { seat, amount, .. } => {
                let p = self.pos(seat);
                self.contrib[p] += amount;
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
                    _ if game.fixed() => (HALF, None),
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
            // Stud's bring-in is the tree's passive action at its first node; triple draw has
            // none (off the tree).
            Event::BringIn { seat, amount, .. } if self.stud => {
                let p = self.pos(seat);
                self.bet[p] += amount;
                self.contrib[p] += amount;
                (p, CALL, None)
            }
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
