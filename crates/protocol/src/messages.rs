//! Every message of protocol version 1 (and its 1.1 options). See `protocol.md` for the contract
//! and example sessions.

use pitboss_cards::Card;
use serde::{Deserialize, Serialize};

/// Chips are integers.
pub type Chips = u64;

/// A seat index, 0-based (hand histories print it 1-based as `p1`).
pub type SeatNo = u8;

/// Referee → bot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToBot {
    /// First message; the bot answers with [`FromBot::Hello`] echoing `id`.
    Hello(Hello),
    /// The match parameters. No answer.
    MatchStart(MatchStart),
    /// A new hand. No answer.
    HandStart(HandStart),
    /// Your decision, please: answer with [`FromBot::Action`] echoing `id`.
    Act(ActRequest),
    /// The hand is over: what happened since your last request, and the result. No answer.
    HandEnd(HandEnd),
    /// The match is over; close stdout and exit.
    MatchEnd(MatchEnd),
}

/// Bot → referee.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum FromBot {
    Hello(HelloReply),
    Action(ActionReply),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    pub id: u64,
    pub protocol: u32,
    /// The minor version the referee speaks (1: the options `concurrency` and `messages` of the
    /// bot's hello are understood). Absent in version 1.0 referees.
    #[serde(default)]
    pub minor: u32,
    /// The referee's name and version, for logs.
    pub referee: String,
}

/// The bot's hello. Unknown fields are ignored (later versions may add options); the known ones
/// are checked.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HelloReply {
    pub id: u64,
    pub protocol: u32,
    pub name: String,
    #[serde(default)]
    pub version: Option<String>,
    /// Games the bot plays (`triple-draw`, `stud-hi-lo`); empty means both.
    #[serde(default)]
    pub games: Vec<String>,
    /// Protocol 1.1: how many hands (tables) this process plays at once. Given (even 1), every
    /// hand-scoped message carries a `table` id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<u32>,
    /// Protocol 1.1: `full` (default) or `compact` (`act` without the `view`); 1.2: `terse`
    /// (compact, events and legal actions as token strings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<Messages>,
}

/// What an `act` request carries (protocol 1.1 option `messages`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Messages {
    /// The view, the new events and the legal actions (version 1).
    #[default]
    Full,
    /// The new events and the legal actions; the bot keeps the view from the events.
    Compact,
    /// Protocol 1.2: as compact, with the events and the legal actions as strings of short
    /// tokens ([`crate::terse`]), which interpreted bots read several times faster than JSON
    /// objects.
    Terse,
}

/// The game being played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameInfo {
    /// `triple-draw` or `stud-hi-lo`.
    pub variant: String,
    /// `fixed-limit`, `pot-limit` or `no-limit`.
    pub structure: String,
    pub ante: Chips,
    pub small_blind: Chips,
    pub big_blind: Chips,
    pub bring_in: Chips,
    pub small_bet: Chips,
    pub big_bet: Chips,
    /// Fixed limit: bets and raises per round counting the opening bet; 0 = no cap.
    pub cap: u8,
    /// Fixed limit: the cap is lifted while exactly two players are left in the hand (`cap`
    /// still states the cap that applies otherwise).
    #[serde(default)]
    pub heads_up_uncapped: bool,
    /// Deuce-to-seven: A-2-3-4-5 is a five-high straight instead of an ace-high hand.
    #[serde(default)]
    pub ace_five_straight: bool,
    /// Who shows at showdown: `auto` (only hands that beat or tie the best shown so far) or
    /// `all`.
    #[serde(default = "auto")]
    pub reveal: String,
}

fn auto() -> String {
    "auto".into()
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchStart {
    pub game: GameInfo,
    /// Hands in the match (this bot may sit out none of them).
    pub hands: u64,
    /// Time per decision, milliseconds.
    pub decision_ms: u64,
    /// Match time bank, milliseconds, drawn on when a decision exceeds `decision_ms`.
    pub bank_ms: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandStart {
    /// The hand number within the match.
    pub hand: u64,
    /// Your seat.
    pub seat: SeatNo,
    pub seats: u8,
    pub button: SeatNo,
    /// Everyone's stack at the start of the hand.
    pub stacks: Vec<Chips>,
}

/// What a seat may do now. Amounts are totals **to** which the seat's bet this round is brought.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LegalActions {
    pub fold: bool,
    pub check: bool,
    /// Chips a call adds (less than owed when the call puts you all-in).
    pub call: Option<Chips>,
    pub raise: Option<RaiseOption>,
    /// Stud third street: chips the bring-in posts.
    pub bring_in: Option<Chips>,
    /// Triple draw: discard 0 to this many of your cards.
    pub discard: Option<u8>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RaiseOption {
    /// `bet`, `raise` or `complete`.
    pub kind: RaiseKind,
    pub min_to: Chips,
    pub max_to: Chips,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RaiseKind {
    Bet,
    Raise,
    Complete,
}

/// A decision.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    Fold,
    Check,
    Call,
    /// Bet, raise or complete to a total of `to` this round.
    Raise {
        to: Chips,
    },
    BringIn,
    /// Discard these cards (empty: stand pat).
    Discard {
        cards: Vec<Card>,
    },
}

/// One seat as everyone sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatState {
    pub stack: Chips,
    /// Chips put in this betting round.
    pub bet: Chips,
    /// Chips put in this hand.
    pub contributed: Chips,
    pub folded: bool,
    /// Stud: face-up cards.
    pub up: Vec<Card>,
    /// Triple draw: cards drawn in each draw so far.
    pub draws: Vec<u8>,
}

/// A seat's information set at a decision.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatView {
    pub seat: SeatNo,
    /// Betting round, 0-based (stud 0 = third street).
    pub round: u8,
    /// `bet` or `draw`.
    pub phase: Phase,
    pub button: SeatNo,
    /// Everything in the middle, this round's bets included.
    pub pot: Chips,
    /// Your face-down cards, in the order held.
    pub cards: Vec<Card>,
    /// Stud seventh street's community card, when dealt.
    pub board: Option<Card>,
    pub seats: Vec<SeatState>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    #[default]
    Bet,
    Draw,
}

/// Time left for this decision.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock {
    pub decision_ms: u64,
    pub bank_ms: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActRequest {
    pub id: u64,
    pub hand: u64,
    /// What happened since your last message, as you may see it.
    pub events: Vec<Event>,
    pub view: SeatView,
    pub legal: LegalActions,
    pub clock: Clock,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionReply {
    pub id: u64,
    /// Protocol 1.1, optional: the table of the request; when given it must be the request's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<u32>,
    pub action: Action,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandEnd {
    pub hand: u64,
    /// What happened since your last request: the rest of the hand, showdown and awards included.
    pub events: Vec<Event>,
    /// Net chips per seat.
    pub net: Vec<i64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchEnd {
    pub hands: u64,
}

/// Something that happened, as one seat may see it (others' face-down cards and discards hidden).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    Round {
        round: u8,
    },
    Ante {
        seat: SeatNo,
        amount: Chips,
        all_in: bool,
    },
    /// `blind` is `small` or `big`.
    Blind {
        seat: SeatNo,
        blind: Blind,
        amount: Chips,
        all_in: bool,
    },
    /// `card` is null when you may not see it.
    Deal {
        seat: SeatNo,
        card: Option<Card>,
        up: bool,
    },
    Community {
        card: Card,
    },
    BringIn {
        seat: SeatNo,
        amount: Chips,
        all_in: bool,
    },
    Fold {
        seat: SeatNo,
    },
    Check {
        seat: SeatNo,
    },
    Call {
        seat: SeatNo,
        amount: Chips,
        all_in: bool,
    },
    Raise {
        seat: SeatNo,
        kind: RaiseKind,
        to: Chips,
        all_in: bool,
    },
    /// `count` is public; `cards` only for your own discards.
    Discard {
        seat: SeatNo,
        count: u8,
        cards: Option<pitboss_cards::CardSet>,
    },
    Reshuffle {
        cards: u8,
    },
    Return {
        seat: SeatNo,
        amount: Chips,
    },
    Show {
        seat: SeatNo,
        cards: pitboss_cards::CardSet,
    },
    Muck {
        seat: SeatNo,
    },
    /// `share` is `whole`, `high` or `low`.
    Award {
        seat: SeatNo,
        pot: u8,
        share: Share,
        amount: Chips,
    },
    /// Reserved: the referee acted for this seat after a fault (the penalty: check if free, else
    /// fold). Version 1 referees do not send it; the penalty appears as the plain action.
    Penalty {
        seat: SeatNo,
        fault: FaultKind,
    },
}

/// Why a bot's answer was not used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// No answer within the decision time and the bank.
    Timeout,
    /// A line that is not JSON, or not a message of this protocol.
    Malformed,
    /// A well-formed message of the wrong type here.
    UnknownMessage,
    /// An action the rules do not allow now.
    Illegal,
    /// A line longer than the limit.
    LineTooLong,
    /// The process exited or crashed.
    Crash,
    /// The bot closed its stdout.
    ClosedStdout,
    /// The handshake failed (wrong version, no hello in time).
    Handshake,
    /// The bot used up its restarts and forfeits the rest of the match.
    Forfeit,
}

impl FaultKind {
    pub const ALL: [FaultKind; 9] = [
        FaultKind::Timeout,
        FaultKind::Malformed,
        FaultKind::UnknownMessage,
        FaultKind::Illegal,
        FaultKind::LineTooLong,
        FaultKind::Crash,
        FaultKind::ClosedStdout,
        FaultKind::Handshake,
        FaultKind::Forfeit,
    ];

    /// The snake_case name used on the wire and in CSV columns.
    pub const fn name(self) -> &'static str {
        match self {
            FaultKind::Timeout => "timeout",
            FaultKind::Malformed => "malformed",
            FaultKind::UnknownMessage => "unknown_message",
            FaultKind::Illegal => "illegal",
            FaultKind::LineTooLong => "line_too_long",
            FaultKind::Crash => "crash",
            FaultKind::ClosedStdout => "closed_stdout",
            FaultKind::Handshake => "handshake",
            FaultKind::Forfeit => "forfeit",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Blind {
    Small,
    Big,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Share {
    Whole,
    High,
    Low,
}
