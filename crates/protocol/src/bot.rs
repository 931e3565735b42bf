//! The in-process bot interface. It receives exactly the messages an external bot receives on the
//! wire, so a Rust bot can run in-process or behind the JSON-lines protocol unchanged.

use crate::messages::{ActRequest, Action, HandEnd, HandStart, MatchStart};

/// A bot. `act` is called only when the bot must decide; the others are notifications.
///
/// The referee validates every action: an illegal one is a fault with a penalty, never repaired.
pub trait Bot: Send {
    /// The match is starting (game, number of hands, clock).
    fn match_start(&mut self, _m: &MatchStart) {}
    /// A hand is starting; `h.seat` is this bot's seat for the hand.
    fn hand_start(&mut self, _h: &HandStart) {}
    /// Decide. `req.legal` lists what is allowed; `req.events` what happened since the last call.
    fn act(&mut self, req: &ActRequest) -> Action;
    /// The hand is over.
    fn hand_end(&mut self, _h: &HandEnd) {}
}
