//! `equity`: bets and draws from the equity engine (`pitboss-equity`).

use pitboss_protocol::{ActRequest, Action, Bot, HandStart, MatchStart};

use crate::eqcore::{Core, Knobs};
use crate::util;

/// `equity` plays both games from `pitboss-equity`. At each betting round it computes its share
/// of the pot against the players still in, as if their hidden cards were random (stud: 80 seeded
/// samples, exact when at most 1,500 outcomes remain, a heads-up bettor's range narrowed; triple
/// draw: opponents modelled from their draw counts — heads-up from a process-wide memo of 1,000
/// samples per key, multiway 300 samples per decision with every candidate keep on the same
/// samples), and draws with the engine's best keep (the standard keep unless another candidate's
/// equity is clearly higher, by 0.04 or more). It bets
/// for value above a line that depends on the number of players in (fair share plus a quarter of
/// the rest), subtracts a little equity for every bet or raise it faces (a bettor's range is better
/// than random), calls when what is left beats the pot odds by a margin per round to come, and
/// otherwise folds. It bluffs now and then when it is checked to or has draws left, less into
/// several players, with a seeded random number that also blurs its thresholds, so its bets are not
/// a readable function of its cards. In pot and no limit it bets half to three quarters of the pot
/// (the pot with very strong hands), the same sizes for bluffs and value; in pot- and no-limit triple
/// draw against two or more opponents its value line is twice as far above fair share, since a big
/// bet into several players is called by the better hands among them. In triple draw it reads a bet
/// by its size: a raise of half the pot or more counts as two bets in an opponent's model (one more
/// good card held), and a hand modelled pat that bets after the draw is taken to be a nine or better,
/// an eight or better after a pot-sized bet, a seven or better after more.
pub struct EquityBot {
    core: Core,
}

impl EquityBot {
    pub fn new(seed: u64) -> EquityBot {
        EquityBot {
            core: Core::new(seed),
        }
    }
}

impl Bot for EquityBot {
    fn match_start(&mut self, m: &MatchStart) {
        self.core.match_start(m);
    }

    fn hand_start(&mut self, _h: &HandStart) {
        self.core.hand_start();
    }

    fn act(&mut self, req: &ActRequest) -> Action {
        self.core.update(req);
        let Some((share, keep)) = self.core.evaluate(req, 0, 0, 0) else {
            return util::passive_or_fold(&req.legal);
        };
        if let Some(max) = req.legal.discard {
            return self.core.discard(&req.view.cards, keep, max);
        }
        let knobs = Knobs::for_game(util::is_stud(self.core.stud, req));
        self.core.decide(req, share, &knobs)
    }
}
