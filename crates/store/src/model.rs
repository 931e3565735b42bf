//! The rows the store hands out. Plain data: the meaning of a match's numbers is the ladder's and
//! the worker's business; the store keeps them exactly.

use serde::Serialize;

/// An API token's account (the token itself is never stored, only its hash).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Account {
    pub id: i64,
    pub name: String,
    pub created_at: i64,
    pub revoked_at: Option<i64>,
    pub uploads_per_hour: i64,
    pub max_bundle_bytes: i64,
}

/// A bot: a name, owned by the account that uploaded it first (`None`: a reference bot).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Bot {
    pub id: i64,
    pub name: String,
    pub owner: Option<i64>,
    pub created_at: i64,
}

/// Where a version is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum VersionState {
    /// Uploaded, waiting for its build and check.
    Pending,
    /// A worker builds and checks it.
    Checking,
    /// Fit: plays on the ladder.
    Active,
    /// The build or the check failed: it never plays.
    Failed,
    /// A newer version of the bot is active: this one keeps its history and plays no more.
    Retired,
}

impl VersionState {
    pub fn as_str(self) -> &'static str {
        match self {
            VersionState::Pending => "pending",
            VersionState::Checking => "checking",
            VersionState::Active => "active",
            VersionState::Failed => "failed",
            VersionState::Retired => "retired",
        }
    }

    pub fn parse(s: &str) -> Option<VersionState> {
        Some(match s {
            "pending" => VersionState::Pending,
            "checking" => VersionState::Checking,
            "active" => VersionState::Active,
            "failed" => VersionState::Failed,
            "retired" => VersionState::Retired,
            _ => return None,
        })
    }
}

/// One version of a bot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Version {
    pub id: i64,
    pub bot: i64,
    pub bot_name: String,
    /// The bot's owner (`None`: a reference bot).
    pub owner: Option<i64>,
    pub number: i64,
    /// A built-in bot's name, or empty for an uploaded bundle.
    pub spec: String,
    /// The bundle's SHA-256 (empty for a built-in bot).
    pub sha256: String,
    pub bundle_bytes: i64,
    pub state: VersionState,
    pub created_at: i64,
    pub checked_at: Option<i64>,
}

impl Version {
    /// How the version is shown: `name` for a reference bot, `name.vN` for an upload.
    pub fn label(&self) -> String {
        if self.owner.is_none() && !self.spec.is_empty() {
            self.bot_name.clone()
        } else {
            format!("{}.v{}", self.bot_name, self.number)
        }
    }

    pub fn reference(&self) -> bool {
        self.owner.is_none() && !self.spec.is_empty()
    }
}

/// Where a match is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MatchState {
    Queued,
    Running,
    Done,
    Failed,
}

impl MatchState {
    pub fn as_str(self) -> &'static str {
        match self {
            MatchState::Queued => "queued",
            MatchState::Running => "running",
            MatchState::Done => "done",
            MatchState::Failed => "failed",
        }
    }

    pub fn parse(s: &str) -> Option<MatchState> {
        Some(match s {
            "queued" => MatchState::Queued,
            "running" => MatchState::Running,
            "done" => MatchState::Done,
            "failed" => MatchState::Failed,
            _ => return None,
        })
    }
}

/// Why a match is played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MatchKind {
    /// Chosen by the ladder.
    Ladder,
    /// A new version against the version it replaces.
    Predecessor,
}

impl MatchKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MatchKind::Ladder => "ladder",
            MatchKind::Predecessor => "predecessor",
        }
    }

    pub fn parse(s: &str) -> Option<MatchKind> {
        Some(match s {
            "ladder" => MatchKind::Ladder,
            "predecessor" => MatchKind::Predecessor,
            _ => return None,
        })
    }
}

/// A match to create: two versions, one preset, a seed and a number of hands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewMatch {
    pub preset: String,
    pub kind: MatchKind,
    pub a: i64,
    pub b: i64,
    pub seed: i64,
    pub hands: i64,
}

/// What a finished match gives (also the heart of a worker's result on the queue:
/// `pitboss_worker::Outcome` carries it, with the action tape, whence `Deserialize`).
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Outcome {
    /// Duplicate units played.
    pub units: i64,
    /// Hands played.
    pub played: i64,
    /// Bot `a`'s mean result per unit, luck-adjusted, in mbb/hand (`b`'s is the opposite).
    pub mean: f64,
    /// The standard error of `mean`.
    pub se: f64,
    /// Bot `a`'s mean per unit without the luck adjustment, mbb/hand.
    pub raw_mean: f64,
    pub elapsed_ms: i64,
    /// Both bots' statistics (the arena's `BotStats` as JSON).
    pub a_stats: String,
    pub b_stats: String,
    /// The PHH file of the match beneath the data folder, or empty.
    pub history: String,
}

/// A match row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Match {
    pub id: i64,
    pub preset: String,
    pub kind: MatchKind,
    pub a: i64,
    pub b: i64,
    pub seed: i64,
    pub hands: i64,
    pub state: MatchState,
    pub attempts: i64,
    pub worker: String,
    pub created_at: i64,
    pub started_at: Option<i64>,
    pub finished_at: Option<i64>,
    pub error: String,
    /// The delivery of its job by the queue that `worker` plays (1, 2, … as the queue redelivers
    /// it); 0 on the server's own threads or before a worker has started it.
    pub delivery: i64,
    /// Present when `state` is done.
    pub outcome: Option<Outcome>,
}

/// Counts for the operator's page.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct QueueCounts {
    pub queued: i64,
    pub running: i64,
    pub done: i64,
    pub failed: i64,
    pub pending_versions: i64,
    pub checking_versions: i64,
    /// Hands of the matches finished in the last minute.
    pub hands_last_minute: i64,
    pub hands_total: i64,
}
