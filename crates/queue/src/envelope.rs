//! What travels on the queue. A job is wrapped with the versions it needs (the job format and the
//! engine), the match's deck salt (derived on the server: the service's secret never leaves it)
//! and the server's play settings (a match must be played the same way on every worker).
//! Results are wrapped with the worker's name and versions.

use pitboss_worker::{Job, JobResult};
use serde::{Deserialize, Serialize};

/// The layout of [`JobEnvelope`] and [`ResultEnvelope`]; bumped on any change to them
/// (2: [`ResultBody::Started`]; 3: a played match's tape may travel raw, not compressed; 4: the
/// tape may travel as bytes after the result's JSON, [`frame`]).
pub const JOB_FORMAT: u32 = 4;

/// The first bytes of a result message framed by [`frame`] (a JSON result starts with `{`).
pub const FRAMED: &[u8; 4] = b"PBR\x01";

/// A result message whose tape travels as bytes after its JSON: [`FRAMED`], the JSON's length
/// (4 bytes, little-endian), the JSON (the result without its tape), the tape as it is sent
/// (raw or compressed). Why: in the JSON a tape is base64, a third larger, encoded by the worker
/// and decoded by the server, and NATS carries and stores every byte of it (with 2 workers on
/// the server's 2 cores, NATS took about as much CPU as the server).
pub fn frame(json: &[u8], tape: &[u8]) -> Vec<u8> {
    let len = u32::try_from(json.len()).expect("a result's JSON under 4 GiB");
    let mut out = Vec::with_capacity(8 + json.len() + tape.len());
    out.extend_from_slice(FRAMED);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(json);
    out.extend_from_slice(tape);
    out
}

/// A result message's JSON and, when it was [`frame`]d, its tape's bytes.
///
/// # Errors
/// A framed message shorter than its JSON's length says.
pub fn unframe(payload: &[u8]) -> Result<(&[u8], Option<&[u8]>), String> {
    let Some(rest) = payload.strip_prefix(FRAMED) else {
        return Ok((payload, None));
    };
    let (len, rest) = rest
        .split_first_chunk::<4>()
        .ok_or("a framed result without its JSON's length")?;
    let len = u32::from_le_bytes(*len) as usize;
    if len > rest.len() {
        return Err(format!(
            "a framed result's JSON of {len} bytes in {} bytes",
            rest.len()
        ));
    }
    let (json, tape) = rest.split_at(len);
    Ok((json, Some(tape)))
}

/// Bumped whenever the rules, the referee or the statistics change what a match's result is:
/// a worker on another engine would compute a different result from the same seed.
pub const ENGINE_REVISION: u32 = 1;

/// This binary's engine: the workspace version and [`ENGINE_REVISION`].
pub fn engine_version() -> String {
    format!("{}+engine.{ENGINE_REVISION}", env!("CARGO_PKG_VERSION"))
}

/// What a job is about, readable whatever the rest of the envelope holds: a worker of another
/// version parses this much, and no more, to refuse the job clearly.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobHeader {
    pub format: u32,
    pub engine: String,
    /// `play` (a match; `id` is the match) or `check` (`id` is the version).
    pub kind: String,
    pub id: i64,
}

impl JobHeader {
    pub fn of(job: &Job) -> JobHeader {
        let (kind, id) = match job {
            Job::Check { bot, .. } => ("check", bot.version),
            Job::Play { id, .. } => ("play", *id),
        };
        JobHeader {
            format: JOB_FORMAT,
            engine: engine_version(),
            kind: kind.into(),
            id,
        }
    }

    /// `match 7` or `the check of version 3`.
    pub fn what(&self) -> String {
        if self.kind == "play" {
            format!("match {}", self.id)
        } else {
            format!("the check of version {}", self.id)
        }
    }

    /// Why a worker with this format and engine must not run the job, if it must not.
    pub fn refusal(&self, format: u32, engine: &str) -> Option<String> {
        if self.format != format || self.engine != engine {
            Some(format!(
                "{} needs job format {} and engine {}; this worker has job format {} and engine {} \
                 (run the same pitboss version on the server and every worker)",
                self.what(),
                self.format,
                self.engine,
                format,
                engine
            ))
        } else {
            None
        }
    }
}

/// How the server plays: the same on every worker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlaySettings {
    pub luck_adjust: bool,
    pub threads: usize,
    pub check_hands: u64,
    pub history_hands: u64,
    /// The ladder's presets (a version is checked in all of them, once per worker).
    pub presets: Vec<String>,
}

/// A job on the queue.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobEnvelope {
    #[serde(flatten)]
    pub header: JobHeader,
    pub job: Job,
    /// The match's deck salt (hex), for a play job.
    pub salt: Option<String>,
    pub settings: PlaySettings,
}

/// What a worker says about a job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ResultBody {
    /// A match's job is being played by this worker, its `delivered`-th delivery: the server
    /// names the worker on the match (operator page, `/api/status`) before any result comes.
    Started { delivered: i64 },
    /// Run to its end; a played match's hand history (zstd PHH) comes along, base64.
    Done {
        result: JobResult,
        history_b64: Option<String>,
    },
    /// Not run by this worker (another version, or its bundle could not be had): back on the
    /// queue for another worker.
    Refused { reason: String },
    /// Delivered more than the attempts allowed: never run again, its match failed.
    Parked { reason: String },
    /// Too large for a message (a long match's action tape): the body, as JSON, is the object
    /// of this name in the `PREFIX_BLOBS` object store; the server removes it once ingested.
    Stored { object: String },
}

/// A result on the queue.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResultEnvelope {
    pub format: u32,
    pub engine: String,
    pub worker: String,
    pub job: JobHeader,
    pub body: ResultBody,
}

/// A parked job, as the `parked` stream keeps it for the operator.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Parked {
    pub reason: String,
    pub worker: String,
    pub delivered: i64,
    /// The job as it was published (JSON, or its bytes as text when it was not JSON).
    pub job: serde_json::Value,
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitboss_worker::BotRef;

    fn bot(v: i64) -> BotRef {
        BotRef {
            version: v,
            label: format!("b{v}"),
            builtin: "call".into(),
            sha256: String::new(),
        }
    }

    #[test]
    fn an_envelope_round_trips_and_its_header_reads_alone() {
        let job = Job::Play {
            id: 9,
            preset: "nl-stud8".into(),
            seed: 5,
            hands: 20,
            a: bot(1),
            b: bot(2),
        };
        let e = JobEnvelope {
            header: JobHeader::of(&job),
            job,
            salt: Some("00".repeat(32)),
            settings: PlaySettings {
                luck_adjust: true,
                threads: 1,
                check_hands: 10,
                history_hands: 5,
                presets: vec!["nl-stud8".into()],
            },
        };
        let bytes = serde_json::to_vec(&e).unwrap();
        assert_eq!(serde_json::from_slice::<JobEnvelope>(&bytes).unwrap(), e);
        let h: JobHeader = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(h.kind, "play");
        assert_eq!(h.id, 9);
        assert_eq!(h.refusal(JOB_FORMAT, &engine_version()), None);
    }

    #[test]
    fn a_framed_result_splits_into_its_json_and_its_tape() {
        let json = br#"{"format": 4}"#;
        let tape = b"PBT1\x02\x00\x00\xff";
        let m = frame(json, tape);
        assert_eq!(unframe(&m).unwrap(), (&json[..], Some(&tape[..])));
        assert_eq!(
            unframe(&frame(json, b"")).unwrap(),
            (&json[..], Some(&b""[..]))
        );
        // A JSON message is itself, with no tape beside it.
        assert_eq!(unframe(json).unwrap(), (&json[..], None));
        // Cut short, or a length beyond the message: refused.
        assert!(unframe(&m[..6]).is_err());
        assert!(unframe(&m[..8 + json.len() - 1]).is_err());
        let mut lie = m.clone();
        lie[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(unframe(&lie).is_err());
    }

    #[test]
    fn another_version_is_refused_with_both_versions_named() {
        let mut h = JobHeader::of(&Job::Check {
            bot: bot(3),
            presets: vec![],
        });
        h.engine = "0.0.9+engine.0".into();
        let why = h.refusal(JOB_FORMAT, &engine_version()).unwrap();
        assert!(why.contains("0.0.9+engine.0") && why.contains(&engine_version()));
        assert!(why.contains("version 3"));
        h.engine = engine_version();
        h.format = JOB_FORMAT + 1;
        assert!(h.refusal(JOB_FORMAT, &engine_version()).is_some());
    }

    #[test]
    fn a_future_envelope_still_yields_its_header() {
        let text = r#"{"format": 99, "engine": "9.9.9+engine.42", "kind": "play", "id": 4,
            "job": {"Teleport": {}}, "whatever": [1, 2]}"#;
        assert!(serde_json::from_str::<JobEnvelope>(text).is_err());
        let h: JobHeader = serde_json::from_str(text).unwrap();
        assert!(h
            .refusal(JOB_FORMAT, &engine_version())
            .unwrap()
            .contains("job format 99"));
    }
}
