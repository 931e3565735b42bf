//! The referee's side of a seat: a [`Player`] is anything that can be asked for a decision and may
//! fail doing so. In-process bots never fail; external processes (the `external` module) can fail
//! in all the ways a [`FaultKind`] names.

use pitboss_protocol::{ActRequest, Action, Bot, FaultKind, HandEnd, HandStart, MatchStart};

/// A bot's failure to answer usefully, with a human-readable detail for the log.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}: {detail}", kind.name())]
pub struct Fault {
    pub kind: FaultKind,
    pub detail: String,
}

impl Fault {
    pub fn new(kind: FaultKind, detail: impl Into<String>) -> Fault {
        Fault {
            kind,
            detail: detail.into(),
        }
    }
}

/// What the referee drives. Every method may fail with a fault; the referee then applies the
/// penalty (check if free, else fold) and carries on.
pub trait Player: Send {
    fn match_start(&mut self, m: &MatchStart) -> Result<(), Fault>;
    fn hand_start(&mut self, h: &HandStart) -> Result<(), Fault>;
    fn act(&mut self, req: &ActRequest) -> Result<Action, Fault>;
    fn hand_end(&mut self, h: &HandEnd) -> Result<(), Fault>;
    /// Whether the player has forfeited the rest of the match (its seat folds every hand).
    fn forfeited(&self) -> bool {
        false
    }
    /// Called once when the match (or this table) is over.
    fn finish(&mut self) {}
    /// Whether the referee's caller asks this player for decisions itself (a table of a
    /// process that plays several at once: [`Referee::step`](crate::referee::Referee::step)
    /// hands the request out instead of calling [`Player::act`]).
    fn deferred(&self) -> bool {
        false
    }
    /// Whether the request must carry the seat's view. A process that asked for compact
    /// messages never receives it, so the referee does not build it (it is most of a request's
    /// cost besides the events).
    fn needs_view(&self) -> bool {
        true
    }
}

/// An in-process Rust bot.
pub struct InProcess(pub Box<dyn Bot>);

impl Player for InProcess {
    fn match_start(&mut self, m: &MatchStart) -> Result<(), Fault> {
        self.0.match_start(m);
        Ok(())
    }

    fn hand_start(&mut self, h: &HandStart) -> Result<(), Fault> {
        self.0.hand_start(h);
        Ok(())
    }

    #[inline]
    fn act(&mut self, req: &ActRequest) -> Result<Action, Fault> {
        Ok(self.0.act(req))
    }

    fn hand_end(&mut self, h: &HandEnd) -> Result<(), Fault> {
        self.0.hand_end(h);
        Ok(())
    }
}
