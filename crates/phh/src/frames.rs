//! A replayed hand as the hand viewer's frames: a header and one full snapshot per step, so that
//! a page can jump to any step without replaying anything itself. The page gets plain data
//! (strings and numbers) and never computes poker: pots, stacks, who sees which card and the hands
//! made are all decided here, next to the engine's own record.
//!
//! Steps. Every player action is a step; dealing is grouped (a street's deal is one step, a draw
//! is one step per player: the discards with their replacement cards) so that a hand is a few
//! dozen clicks, not a hundred. The forced bets (antes, blinds) are the first step. The last step
//! is the result: the pot distributed, the hands made, who won what, the finishing stacks.
//!
//! Cards are shown as an [`Audience`] may see them. [`frames`] gives [`Audience::Players`]: each
//! seat's cards as that seat saw them (a finished hand, for the service's viewer). The other
//! audiences hide down cards with `null` until they are shown, for a page that must not leak
//! (a hand in progress, or a bot's own view).

mod made;
mod state;

use pitboss_rules::{Chips, Stakes, Structure, Variant};
use serde::{Deserialize, Serialize};

use crate::replay::{Replayed, Verdict};
use state::Builder;

/// Who looks at the hand: decides which down cards and discards are named.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Audience {
    /// Each seat's row shows that seat's own cards, all known: the union of what the players saw.
    Players,
    /// Up cards and shown hands only: what a rail bird saw.
    Spectator,
    /// What one seat (0-based Pitboss seat) saw: its own cards and everybody's up cards.
    Seat(u8),
}

impl Audience {
    /// Whether this audience sees a card of `owner` that is `up`, the owner having `shown` it.
    fn sees(self, owner: usize, up: bool, shown: bool) -> bool {
        match self {
            Audience::Players => true,
            Audience::Spectator => up || shown,
            Audience::Seat(v) => usize::from(v) == owner || up || shown,
        }
    }
}

/// The viewer's data for one hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Viewer {
    pub header: Header,
    pub steps: Vec<Step>,
}

/// What does not change during the hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// `27td` or `stud8`.
    pub game: String,
    /// The PHH variant code (`F7S/8`, ...).
    pub code: String,
    /// For people: "Deuce-to-Seven Triple Draw", "Seven Card Stud Hi/Lo".
    pub title: String,
    /// `fixed-limit`, `pot-limit` or `no-limit`.
    pub structure: String,
    pub stakes: Stakes,
    /// The file's `hand` field.
    pub hand: Option<String>,
    /// The button's seat (triple draw only).
    pub button: Option<u8>,
    /// In seat order.
    pub players: Vec<Player>,
    pub audience: Audience,
    /// The replay verified (actions legal, finishing stacks equal).
    pub verified: bool,
    /// Why not, when it did not.
    pub problem: Option<String>,
    /// `??` cards replaced by stand-ins: the cards shown for them are not the real ones.
    pub placeholders: usize,
}

/// A player, by Pitboss seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// 0-based Pitboss seat.
    pub seat: u8,
    /// PHH's `p1..pN`.
    pub label: String,
    /// The file's name for the player (its label when it has none).
    pub name: String,
    pub starting_stack: Chips,
}

/// A full snapshot after one step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// "blinds", "antes", "deal", "pre-draw", "draw 1", "after draw 1", "third street", ...,
    /// "showdown", "result".
    pub street: String,
    /// What happened, e.g. `p2 (alice) raises to 40`.
    pub text: String,
    /// The seat that acted, if one did.
    pub actor: Option<u8>,
    /// Every chip committed and not yet returned or awarded, current bets included.
    pub pot: Chips,
    /// In seat order.
    pub seats: Vec<SeatView>,
    /// Stud's shared seventh-street card when the stub ran short.
    pub community: Option<String>,
    /// On the last step of a finished hand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Vec<SeatResult>>,
}

/// One seat in a snapshot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatView {
    pub seat: u8,
    pub stack: Chips,
    /// Chips put in during the current betting round (blinds and bring-in count; antes do not).
    pub bet: Chips,
    pub folded: bool,
    pub all_in: bool,
    /// The seat showed its hand at showdown.
    pub shown: bool,
    /// In the order dealt (draw: replacements take the end). A folded seat keeps the cards it
    /// held when it folded, although a triple-draw reshuffle may deal them to someone else.
    pub cards: Vec<CardView>,
    /// Draw games: what the seat threw, per draw it took part in.
    pub discards: Vec<Discard>,
}

/// A card as the audience sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardView {
    /// `7h`, or `null` for a card the audience may not see.
    pub card: Option<String>,
    /// Dealt face up (stud's public cards).
    pub up: bool,
    /// Dealt during this step.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub new: bool,
}

/// A seat's discards in one draw.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Discard {
    /// 1 to 3.
    pub draw: u8,
    /// `null` entries where the audience may not see them.
    pub cards: Vec<Option<String>>,
}

/// What a seat made and won.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatResult {
    pub seat: u8,
    /// The best hands the seat's cards make, when the audience sees them and the seat is in.
    pub made: Vec<Made>,
    pub awards: Vec<Award>,
    /// The sum of the awards.
    pub won: Chips,
    /// Finishing stack minus starting stack.
    pub net: i64,
    pub finishing_stack: Chips,
}

/// A hand made from a seat's cards.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Made {
    /// `high`, `low` (stud's eight-or-better) or `deuce-to-seven`.
    pub kind: String,
    /// The five cards, highest first.
    pub cards: Vec<String>,
    /// "two pair", "8-6-4-3-A", ...
    pub name: String,
}

/// Chips from one pot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Award {
    /// 0 = the main pot.
    pub pot: u8,
    /// `whole`, `high` or `low`.
    pub share: String,
    pub amount: Chips,
}

/// The viewer's frames with each seat's cards as that seat saw them.
pub fn frames(r: &Replayed) -> Viewer {
    frames_for(r, Audience::Players)
}

/// The viewer's frames as `audience` may see them.
pub fn frames_for(r: &Replayed, audience: Audience) -> Viewer {
    Viewer {
        header: header(r, audience),
        steps: Builder::new(r, audience).run(),
    }
}

fn header(r: &Replayed, audience: Audience) -> Header {
    let game = r.table.game();
    let (code, title) = match game.variant {
        Variant::TripleDraw => ("27td", "Deuce-to-Seven Triple Draw"),
        Variant::StudHiLo => ("stud8", "Seven Card Stud Hi/Lo"),
    };
    let structure = match game.structure {
        Structure::FixedLimit => "fixed-limit",
        Structure::PotLimit => "pot-limit",
        Structure::NoLimit => "no-limit",
    };
    let players = (0..r.table.seats() as u8)
        .map(|seat| Player {
            seat,
            label: label(r, seat),
            name: name(r, seat),
            starting_stack: r.table.stack(pitboss_rules::Seat(seat)),
        })
        .collect();
    let (verified, problem) = match &r.verdict {
        Verdict::Verified => (true, None),
        Verdict::Rejected(rej) => (false, Some(rej.to_string())),
    };
    Header {
        game: code.into(),
        code: r.phh.variant.clone(),
        title: title.into(),
        structure: structure.into(),
        stakes: game.stakes,
        hand: r.phh.hand.as_ref().map(|h| h.to_string()),
        button: (game.variant == Variant::TripleDraw).then(|| r.table.button().0),
        players,
        audience,
        verified,
        problem,
        placeholders: r.placeholders,
    }
}

/// PHH's `pN` of a seat.
fn label(r: &Replayed, seat: u8) -> String {
    format!("p{}", r.players.player_of(seat) + 1)
}

/// The file's name of a seat's player, or its label.
fn name(r: &Replayed, seat: u8) -> String {
    let k = r.players.player_of(seat);
    r.phh
        .players
        .as_ref()
        .and_then(|p| p.get(k))
        .cloned()
        .unwrap_or_else(|| label(r, seat))
}

/// How the text names a seat: `p2 (alice)`, or `p2` when the name is the label.
fn who(r: &Replayed, seat: u8) -> String {
    let (l, n) = (label(r, seat), name(r, seat));
    if l == n {
        l
    } else {
        format!("{l} ({n})")
    }
}

/// The frames as JSON that can sit inside an HTML `<script type="application/json">` element:
/// every `<` is written `\u003c` (JSON's own escape, so the data is unchanged), so that no player
/// name can close the element (`</script>`) or open a comment.
pub fn to_script_json(v: &Viewer) -> String {
    serde_json::to_string(v)
        .expect("the frames are plain data")
        .replace('<', "\\u003c")
}
