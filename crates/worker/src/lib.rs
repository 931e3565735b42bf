//! Workers: the two jobs of the service that run bots — the **check** of an uploaded version
//! (unpack its bundle, build it and play a short match in every preset of the ladder, all in the
//! jail) and a ladder **match** (a duplicate, luck-adjusted heads-up match between two versions).
//!
//! A job and its result are plain serializable data ([`Job`], [`JobResult`]): the service
//! hands jobs to local threads today and, on many machines, through a message queue; the worker
//! needs only the data folder's files (bundles by hash, the service's secret) and writes only
//! beneath it. Running a job is synchronous ([`run`]): the referee has its own threads and the
//! jail its own processes.

mod check;
mod play;
mod tape_field;

use serde::{Deserialize, Serialize};

pub use check::check;
pub use play::{deck_salt, play, play_salted, summarize, PlayError, Summary};
pub use tape_field::TapeField;

/// A version as a worker needs it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotRef {
    pub version: i64,
    /// How it is shown in hand histories (`name` or `name.vN`).
    pub label: String,
    /// A built-in bot's name; empty for an uploaded bundle (then `sha256` names it).
    pub builtin: String,
    pub sha256: String,
}

/// Work for a worker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Job {
    /// Unpack, build and check a version in every preset.
    Check { bot: BotRef, presets: Vec<String> },
    /// Play match `id`.
    Play {
        id: i64,
        preset: String,
        seed: i64,
        hands: i64,
        a: BotRef,
        b: BotRef,
    },
}

/// What came of a job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum JobResult {
    Checked {
        version: i64,
        fit: bool,
        log: String,
    },
    Played {
        id: i64,
        outcome: Outcome,
    },
    /// The match could not be played: the house failed, or an uploaded version could not be
    /// set up for it (a bot's faults while playing are part of a played match).
    Failed {
        id: i64,
        /// What the match page shows everyone: never the bot's output nor the server's paths.
        error: String,
        /// The uploaded version the match could not be set up with (its build failed, its
        /// manifest was refused): the bot's doing, not the house's. `None`: the house failed.
        #[serde(default)]
        culprit: Option<i64>,
        /// For the culprit's owner only (its log): why, with the build's output.
        #[serde(default)]
        detail: String,
    },
}

/// A finished match's result as a worker hands it back: what the store keeps
/// ([`pitboss_store::Outcome`], one type for both, so a field added there travels here too) and
/// what only travels with it — the action tape the server audits and the worker's name.
///
/// `stored` is flattened: on the queue (job format 1) every field of the store's outcome sits at
/// the top level of this object, as it did when the two were separate types.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    #[serde(flatten)]
    pub stored: pitboss_store::Outcome,
    /// The match's action tape (`pitboss_arena::tape`), in base64 on the wire (raw or compressed):
    /// what the server audits a result from another machine with. Empty when not recorded.
    #[serde(default, skip_serializing_if = "TapeField::is_empty")]
    pub tape: TapeField,
    /// The worker that played it, as the transport that brought the result names it (empty: the
    /// server's own threads).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub worker: String,
}

impl Outcome {
    /// The tape's bytes as sent: raw or zstd-compressed (`pitboss_arena::tape::open` reads
    /// either).
    ///
    /// # Errors
    /// When the field is not base64.
    pub fn tape_bytes(&self) -> Result<Vec<u8>, String> {
        self.tape.bytes()
    }

    /// Sets the tape from the bytes a worker sends (raw or compressed).
    pub fn set_tape_bytes(&mut self, bytes: &[u8]) {
        use base64::Engine;
        self.tape = TapeField::Encoded(base64::engine::general_purpose::STANDARD.encode(bytes));
    }
}

/// How a worker plays.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The data folder's files.
    pub files: pitboss_store::Files,
    /// The service's secret (deck salts derive from it).
    pub secret: String,
    /// Bots in the jail (always, except in tests of machines without one).
    pub sandbox: bool,
    /// Luck-adjusted results (the ladder rates on them).
    pub luck_adjust: bool,
    /// Referee threads per match.
    pub threads: usize,
    /// Hands of the check's match in each preset.
    pub check_hands: u64,
    /// Keep the match's hand history (zstd PHH) for the hand viewer ...
    pub history: bool,
    /// ... of its first this many hands.
    pub history_hands: u64,
    /// Record every match's action tape and return it in the outcome (a worker on another
    /// machine: the server audits its results; about 2-6% of a match's time with in-process bots).
    pub tape: bool,
    /// Everything a match writes is sent elsewhere and deleted right after (a worker on another
    /// machine): its files are not synced to disk ([`pitboss_arena::MatchConfig::scratch`]).
    pub scratch: bool,
}

/// Runs one job to its end.
pub fn run(s: &Settings, job: &Job) -> JobResult {
    run_salted(s, job, None)
}

/// [`run`] with a play job's deck salt given (a remote worker: the server derived it; `None`:
/// from [`Settings::secret`]).
pub fn run_salted(s: &Settings, job: &Job, salt: Option<pitboss_cards::Salt>) -> JobResult {
    match job {
        Job::Check { bot, presets } => {
            let (fit, log) = check(s, bot, presets);
            JobResult::Checked {
                version: bot.version,
                fit,
                log,
            }
        }
        Job::Play {
            id,
            preset,
            seed,
            hands,
            a,
            b,
        } => match play_salted(
            s,
            salt.unwrap_or_else(|| deck_salt(&s.secret, *seed)),
            *id,
            preset,
            *seed,
            *hands,
            a,
            b,
        ) {
            Ok(outcome) => JobResult::Played { id: *id, outcome },
            Err(e) => {
                let error = e.to_string();
                let (culprit, detail) = match e {
                    PlayError::Bot {
                        version, detail, ..
                    } => (Some(version), detail),
                    PlayError::House(_) => (None, String::new()),
                };
                JobResult::Failed {
                    id: *id,
                    error,
                    culprit,
                    detail,
                }
            }
        },
    }
}

/// The folder an uploaded version is unpacked and built in (`versions/<id>/bot`), and its
/// manifest.
pub fn bot_dir(files: &pitboss_store::Files, version: i64) -> std::path::PathBuf {
    files.version_dir(version).join("bot")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A result as it travels on the queue (job format 1): every field of the outcome at the top
    /// level of its object, `tape` and `worker` left out when empty.
    const WIRE: &str = r#"{"Played":{"id":3,"outcome":{"units":10,"played":20,"mean":1.5,"se":0.25,"raw_mean":-2.0,"elapsed_ms":7,"a_stats":"{}","b_stats":"{\"x\":1}","history":"hands/3.phhs.zst","tape":"KLUv","worker":"w1"}}}"#;

    #[test]
    fn the_outcome_keeps_its_wire_format() {
        let r: JobResult = serde_json::from_str(WIRE).unwrap();
        let JobResult::Played { id, outcome } = &r else {
            panic!("{r:?}")
        };
        assert_eq!(*id, 3);
        assert_eq!(outcome.tape_bytes().unwrap(), vec![0x28, 0xb5, 0x2f]);
        assert_eq!(serde_json::to_string(&r).unwrap(), WIRE);
        // A result of the server's own threads: no tape, no worker, and neither key.
        let mut local: JobResult = serde_json::from_str(WIRE).unwrap();
        if let JobResult::Played { outcome, .. } = &mut local {
            outcome.tape.clear();
            outcome.worker.clear();
        }
        let text = serde_json::to_string(&local).unwrap();
        assert!(!text.contains("tape") && !text.contains("worker"), "{text}");
        let back: JobResult = serde_json::from_str(&text).unwrap();
        assert_eq!(back, local);
    }
}
