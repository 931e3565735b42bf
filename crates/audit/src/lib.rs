//! Audits of match results played on machines the server does not control.
//!
//! A worker returns its claimed statistics and the match's action tape
//! ([`pitboss_arena::tape`]). The server, which alone chose the match's seed and knows the deck
//! salt, then:
//! 1. reads the whole tape: one record per hand of the match, no more, no fewer, every hand's
//!    nets summing to zero (chips are conserved);
//! 2. recomputes every total the result is rated on from the tape's per-hand nets (hands, net,
//!    squares, duplicate units, the luck-adjusted sums) and requires the claimed statistics to be
//!    exactly those ([`totals`]), so a total cannot disagree with the hands it sums;
//! 3. draws a random sample of hands with its own randomness, after the result arrived
//!    ([`sample`]), re-deals each from the deck key, replays the recorded actions through the
//!    rules engine — an action the engine refuses, one too many or one too few refuses the
//!    result — and requires the replayed chips (and luck-adjusted results) to be the recorded
//!    ones ([`replay`]).
//!
//! What this cannot see is which *legal* actions the bots chose: the audit does not run the
//! bots again (docs/SERVICE.md, "Audited results").

pub mod replay;
pub mod sample;
pub mod totals;

use pitboss_arena::tape::{self, TapeError};
use pitboss_arena::BotStats;
use pitboss_cards::{DeckKey, Salt};
use pitboss_rules::{Chips, Game, Preset, SetupError};

pub use sample::{sample, server_seed, Sampling};

/// What the server knows of a match before any worker plays it.
#[derive(Clone, Debug)]
pub struct Setup {
    pub game: Game,
    pub stack: Chips,
    pub seats: usize,
    pub hands: u64,
    /// Every deal played from each seat rotation in a row ([`pitboss_arena::slot`]).
    pub duplicate: bool,
    pub key: DeckKey,
    /// The luck adjustment's model, when the match adjusts.
    pub luck: Option<pitboss_luck::Model>,
}

impl Setup {
    /// A duplicate heads-up match of `preset` with the preset's stacks: a ladder match of the
    /// service, whose deck key is `seed` salted with `salt`.
    ///
    /// # Errors
    /// An unknown preset.
    pub fn heads_up(
        preset: &str,
        seed: u64,
        salt: &Salt,
        hands: u64,
        luck: bool,
    ) -> Result<Setup, SetupError> {
        let p = Preset::by_name(preset)?;
        Ok(Setup {
            game: p.game,
            stack: p.stack,
            seats: 2,
            hands,
            duplicate: true,
            key: DeckKey::new(seed, Some(salt)),
            luck: luck.then(|| pitboss_luck::Model::recommended(p.game.variant)),
        })
    }

    /// The setup of a match's own configuration.
    pub fn of(cfg: &pitboss_arena::MatchConfig) -> Setup {
        Setup {
            game: cfg.game(),
            stack: cfg.stack,
            seats: cfg.bots.len(),
            hands: cfg.hands,
            duplicate: cfg.duplicate,
            key: cfg.deck_key(),
            luck: (cfg.luck_adjust == Some(true)).then(|| cfg.luck_model()),
        }
    }

    /// The most bytes an honest tape of this match takes decompressed: 4 KiB a hand is far
    /// beyond any real hand (a few dozen bytes), far below what would hurt the server.
    pub fn tape_limit(&self) -> u64 {
        self.hands
            .saturating_mul(4096)
            .saturating_add(1 << 16)
            .min(1 << 30)
    }
}

/// Why a result is refused. Hands, seats and bots are numbered from 1, as `hands.csv`, the hand
/// histories and the bot logs number them (docs/REFERENCE.md, *Numbering*): `hand` is the tape's
/// index plus one, `seat` the engine's seat plus one, `bot` the position in the match's bot list.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("the action tape: {0}")]
    Tape(#[from] TapeError),
    #[error("the action tape {0}")]
    Shape(String),
    #[error("hand {hand}: the nets do not sum to zero ({sum})")]
    Conservation { hand: u64, sum: i64 },
    #[error("bot {bot}'s {field}: {claimed} claimed, the tape's hands give {tape}")]
    Totals {
        bot: usize,
        field: &'static str,
        claimed: i128,
        tape: i128,
    },
    #[error("hand {hand} does not replay: {why}")]
    Replay { hand: u64, why: String },
    #[error("hand {hand}, seat {seat}: {claimed} chips recorded, {replayed} replayed")]
    Chips {
        hand: u64,
        seat: usize,
        claimed: i64,
        replayed: i64,
    },
    #[error(
        "hand {hand}, seat {seat}: luck-adjusted result {claimed} recorded, {replayed} replayed"
    )]
    Luck {
        hand: u64,
        seat: usize,
        claimed: i64,
        replayed: i64,
    },
}

/// What an audit that passed looked at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub hands: u64,
    /// The hands replayed (0-based, increasing).
    pub sampled: Vec<u64>,
}

/// Audits a result: `sent` is the action tape as the worker sent it (raw or zstd-compressed:
/// [`tape::open`]), `claimed` the statistics per bot (in the match's bot order). The sample is
/// drawn now from the operating system's randomness.
///
/// # Errors
/// The first [`Refusal`] found.
pub fn audit(
    setup: &Setup,
    sent: &[u8],
    claimed: &[BotStats],
    sampling: Sampling,
) -> Result<Report, Refusal> {
    let size = sampling.size(setup.hands);
    let hands = sample(setup.hands, size, server_seed());
    audit_hands(setup, sent, claimed, &hands)
}

/// [`audit`] replaying exactly `hands` (0-based).
///
/// # Errors
/// The first [`Refusal`] found.
pub fn audit_hands(
    setup: &Setup,
    sent: &[u8],
    claimed: &[BotStats],
    hands: &[u64],
) -> Result<Report, Refusal> {
    let raw = tape::open(sent, setup.tape_limit())?;
    let head = tape::read_header(&raw)?;
    check_shape(setup, &head, claimed)?;
    // One pass: conservation and the sums of every hand, and a copy of the sampled hands only
    // (a whole tape read into vectors took most of an audit's time). The totals are compared
    // before any hand is replayed, as the module's documentation orders the checks.
    let mut wanted: Vec<u64> = hands.to_vec();
    wanted.sort_unstable();
    wanted.dedup();
    let mut kept: Vec<(u64, tape::HandTape)> = Vec::with_capacity(wanted.len());
    let mut next = wanted.iter().peekable();
    let mut sums = totals::Sums::new(setup, head.luck);
    // Only the sampled hands' actions are read (see `walk_some`): the rest are summed by
    // their nets, their actions stepped over.
    let mut want = wanted.iter().peekable();
    let full = |k: u64| {
        while want.next_if(|&&w| w < k).is_some() {}
        want.peek() == Some(&&k)
    };
    tape::walk_some::<Refusal>(&raw, full, |k, h| {
        sums.add(k, h)?;
        if next.peek() == Some(&&k) {
            next.next();
            kept.push((k, h.to_owned()));
        }
        Ok(())
    })?;
    totals::compare(sums.bots(), claimed)?;
    let mut r = replay::Replayer::new(setup)?;
    for &k in hands {
        let i = kept
            .binary_search_by_key(&k, |(j, _)| *j)
            .map_err(|_| Refusal::Replay {
                hand: k + 1,
                why: "not on the tape".into(),
            })?;
        r.check(k, kept[i].1.as_ref())?;
    }
    Ok(Report {
        hands: setup.hands,
        sampled: hands.to_vec(),
    })
}

fn check_shape(setup: &Setup, t: &tape::Header, claimed: &[BotStats]) -> Result<(), Refusal> {
    if t.seats != setup.seats || claimed.len() != setup.seats {
        return Err(Refusal::Shape(format!(
            "is for {} seats and the result has {} bots; the match has {}",
            t.seats,
            claimed.len(),
            setup.seats
        )));
    }
    if t.luck != setup.luck.is_some() {
        return Err(Refusal::Shape(format!(
            "{} luck-adjusted results; the match {} adjusted",
            if t.luck { "has" } else { "lacks" },
            if setup.luck.is_some() { "is" } else { "is not" }
        )));
    }
    if t.hands != setup.hands {
        return Err(Refusal::Shape(format!(
            "has {} hands; the match has {}",
            t.hands, setup.hands
        )));
    }
    Ok(())
}
