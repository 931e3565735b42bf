//! The server's side: [`NatsWorkers`] is the scheduler's [`Workers`] — a job handed to it is
//! published to the jobs stream (by a task that retries until JetStream has stored it) — and a
//! task ingests the results stream, handing each result to the scheduler, which records it in the
//! store (a match counts once, whatever arrives twice).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_nats::jetstream::consumer::PullConsumer;
use async_nats::jetstream::object_store::ObjectStore;
use async_nats::jetstream::AckKind;
use base64::Engine as _;
use futures_util::StreamExt;
use pitboss_service::workers::{Finished, Workers};
use pitboss_service::ServeConfig;
use pitboss_store::{Files, Store};
use pitboss_worker::{Job, JobResult};
use tokio::sync::mpsc::{self, UnboundedSender};
use tokio::sync::oneshot;

use crate::envelope::{
    engine_version, JobEnvelope, JobHeader, PlaySettings, ResultBody, ResultEnvelope,
};
use crate::{nats, QueueError, QueueSettings};

type Done = Arc<Mutex<Option<UnboundedSender<Finished>>>>;

/// Jobs to workers on NATS JetStream.
pub struct NatsWorkers {
    settings: QueueSettings,
    play: PlaySettings,
    secret: String,
    capacity: usize,
    /// Tells message ids of this server process apart from those of an earlier one: a job
    /// re-queued by a restart is published again, not taken for a retry of the old publication.
    boot: String,
    publish: mpsc::UnboundedSender<(String, Vec<u8>)>,
    done: Done,
}

impl NatsWorkers {
    /// Connects, makes the streams and consumers, and starts publishing and ingesting.
    /// `capacity` is how many jobs may be in the queue at once (at least the slots of all workers,
    /// so none waits).
    ///
    /// # Errors
    /// When NATS cannot be reached or refuses the streams.
    pub async fn start(
        settings: QueueSettings,
        cfg: &ServeConfig,
        store: Store,
        capacity: usize,
    ) -> Result<NatsWorkers, QueueError> {
        settings.validate()?;
        let files = Files::new(&cfg.data)?;
        let secret = files.secret()?;
        let (_, js) = nats::connect(&settings, "pitboss-serve", false).await?;
        let (_, results) = nats::setup(&js, &settings).await?;
        let (tx, mut rx) = mpsc::unbounded_channel::<(String, Vec<u8>)>();
        let subject = settings.jobs_subject();
        let pjs = js.clone();
        tokio::spawn(async move {
            while let Some((id, bytes)) = rx.recv().await {
                nats::publish_until_stored(&pjs, subject.clone(), &id, bytes).await;
            }
        });
        let done: Done = Arc::new(Mutex::new(None));
        let blobs = nats::blobs(&js, &settings).await?;
        let progress = settings.results_ack_wait / 3;
        tokio::spawn(ingest(results, store, files, blobs, done.clone(), progress));
        Ok(NatsWorkers {
            settings,
            play: PlaySettings {
                luck_adjust: cfg.luck_adjust,
                threads: cfg.threads_per_match,
                check_hands: cfg.check_hands,
                history_hands: cfg.history_hands,
                presets: cfg.presets.clone(),
            },
            secret,
            capacity: capacity.max(1),
            boot: boot_id(),
            publish: tx,
            done,
        })
    }

    /// The envelope of `job`.
    fn envelope(&self, job: Job) -> JobEnvelope {
        let salt = match &job {
            Job::Play { seed, .. } => Some(hex::encode(
                pitboss_worker::deck_salt(&self.secret, *seed).0,
            )),
            Job::Check { .. } => None,
        };
        JobEnvelope {
            header: JobHeader::of(&job),
            job,
            salt,
            settings: self.play.clone(),
        }
    }
}

/// The nanoseconds of now and the process id: unique enough to tell two boots apart.
fn boot_id() -> String {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{:x}.{:x}", t, std::process::id())
}

impl Workers for NatsWorkers {
    fn capacity(&self) -> usize {
        self.capacity
    }

    fn submit(&self, job: Job, done: UnboundedSender<Finished>) {
        *self.done.lock().expect("done") = Some(done);
        let env = self.envelope(job);
        let id = format!("{}-{}-{}", env.header.kind, env.header.id, self.boot);
        let bytes = serde_json::to_vec(&env).expect("a job serializes");
        let _ = self.publish.send((id, bytes));
    }

    fn claimant(&self) -> &'static str {
        // Nobody yet: the worker that pulls the job names itself ([`ResultBody::Started`]).
        ""
    }

    fn describe(&self) -> String {
        format!(
            "workers on NATS JetStream at {} (streams {}_*; {} job(s) in flight at most; ack wait {:?}, {} attempt(s) before a job is parked; engine {})",
            self.settings.url,
            self.settings.prefix,
            self.capacity,
            self.settings.ack_wait,
            self.settings.max_attempts,
            engine_version()
        )
    }
}

/// Reads the results stream for ever: each result is handed to the scheduler and acknowledged
/// once the scheduler has recorded it in the store (a server killed in between gets it again;
/// the store counts it once). The acknowledgement waits in a task of its own, so that the next
/// results are read meanwhile.
async fn ingest(
    results: PullConsumer,
    store: Store,
    files: Files,
    blobs: ObjectStore,
    done: Done,
    progress: Duration,
) {
    let mut refusals: HashMap<(String, i64), String> = HashMap::new();
    loop {
        if done.lock().expect("done").is_none() {
            // Nothing submitted yet: the scheduler's channel is not known.
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        }
        let batch = results
            .fetch()
            .max_messages(64)
            .expires(Duration::from_secs(2))
            .messages()
            .await;
        let mut batch = match batch {
            Ok(b) => b,
            Err(e) => {
                tracing::warn!("reading results: {e}; trying again");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        while let Some(m) = batch.next().await {
            let m = match m {
                Ok(m) => m,
                Err(e) => {
                    tracing::warn!("reading results: {e}");
                    break;
                }
            };
            let mut stored = None;
            let mut recorded = None;
            match read_result(&m.payload) {
                Ok(mut r) => {
                    if let ResultBody::Stored { object } = &r.body {
                        match fetch_body(&blobs, object).await {
                            Ok(b) => {
                                stored = Some(object.clone());
                                r.body = b;
                            }
                            Err(e) => {
                                tracing::warn!("result {object}: {e}");
                                continue;
                            }
                        }
                    }
                    // The channel of the latest submission, read for each result (a result
                    // read with an older one whose receiver is gone would wait, unacknowledged,
                    // for redelivery).
                    let tx = done
                        .lock()
                        .expect("done")
                        .clone()
                        .expect("set before any fetch");
                    match handle(r, &store, &files, &tx, &mut refusals).await {
                        Ok(r) => recorded = r,
                        Err(e) => {
                            // Not acknowledged: read again after the ack wait.
                            tracing::warn!("a result: {e}");
                            continue;
                        }
                    }
                }
                Err(e) => tracing::warn!("an unreadable result dropped: {e}"),
            }
            let blobs = blobs.clone();
            let acked = async move {
                if let Some(mut r) = recorded {
                    // While the database is away the scheduler holds the result, retrying:
                    // in-progress acknowledgements (at a third of the results' ack wait) keep
                    // JetStream from delivering it again every ack wait (each copy another
                    // result held in memory).
                    loop {
                        tokio::select! {
                            said = &mut r => match said {
                                Ok(()) => break,
                                // The scheduler ended without recording it: the process is
                                // ending; the next one reads it again.
                                Err(_) => return,
                            },
                            () = tokio::time::sleep(progress) => {
                                let _ = m.ack_with(AckKind::Progress).await;
                            }
                        }
                    }
                }
                if let Err(e) = m.ack().await {
                    tracing::warn!("acknowledging a result: {e}");
                } else if let Some(o) = stored {
                    let _ = blobs.delete(&o).await;
                }
            };
            tokio::spawn(acked);
        }
    }
}

/// A result message: its JSON, with a played match's tape put back from beside it when the
/// message was framed (`envelope::frame`).
fn read_result(payload: &[u8]) -> Result<ResultEnvelope, String> {
    let (json, tape) = crate::envelope::unframe(payload)?;
    let mut r: ResultEnvelope = serde_json::from_slice(json).map_err(|e| e.to_string())?;
    if let Some(tape) = tape {
        match &mut r.body {
            ResultBody::Done {
                result: JobResult::Played { outcome, .. },
                ..
            } if outcome.tape.is_empty() => {
                outcome.tape = pitboss_worker::TapeField::Sent(tape.to_vec());
            }
            _ => return Err("a tape beside a result that is not a played match's".into()),
        }
    }
    Ok(r)
}

/// The body of a result kept in the object store.
async fn fetch_body(blobs: &ObjectStore, name: &str) -> Result<ResultBody, QueueError> {
    use tokio::io::AsyncReadExt;
    let mut o = blobs
        .get(name)
        .await
        .map_err(|e| QueueError::JetStream(e.to_string()))?;
    let mut bytes = Vec::new();
    o.read_to_end(&mut bytes)
        .await
        .map_err(|e| QueueError::JetStream(e.to_string()))?;
    let body: ResultBody =
        serde_json::from_slice(&bytes).map_err(|e| QueueError::Invalid(e.to_string()))?;
    if matches!(body, ResultBody::Stored { .. }) {
        return Err(QueueError::Invalid("a stored result names another".into()));
    }
    Ok(body)
}

async fn handle(
    r: ResultEnvelope,
    store: &Store,
    files: &Files,
    tx: &UnboundedSender<Finished>,
    refusals: &mut HashMap<(String, i64), String>,
) -> Result<Option<oneshot::Receiver<()>>, QueueError> {
    let key = (r.job.kind.clone(), r.job.id);
    match r.body {
        ResultBody::Done {
            result,
            history_b64,
        } => {
            if r.engine != engine_version() {
                // A worker plays only jobs of its own engine; this one cannot be trusted to be.
                tracing::warn!(
                    "result of {} from worker {} on engine {} ignored (the server runs {})",
                    r.job.what(),
                    r.worker,
                    r.engine,
                    engine_version()
                );
                return Ok(None);
            }
            let result = match result {
                JobResult::Played { id, mut outcome } => {
                    // Named by the transport, not by the worker's own claim inside the result:
                    // the server audits every result from a worker (crate `pitboss-audit`).
                    outcome.worker = r.worker.clone();
                    outcome.stored.history = match history_b64 {
                        Some(b) => keep_history(files, id, &b)?,
                        None => String::new(),
                    };
                    JobResult::Played { id, outcome }
                }
                other => other,
            };
            refusals.remove(&key);
            let (recorded, told) = oneshot::channel();
            let _ = tx.send(Finished {
                result,
                recorded: Some(recorded),
            });
            return Ok(Some(told));
        }
        ResultBody::Refused { reason } => {
            let note = format!("refused by worker {}: {reason}", r.worker);
            tracing::warn!("{}: {note}", r.job.what());
            if r.job.kind == "play" {
                store.note_match_error(r.job.id, &note).await?;
            }
            refusals.insert(key, note);
        }
        ResultBody::Started { delivered } => {
            if r.job.kind == "play" {
                store.match_started(r.job.id, &r.worker, delivered).await?;
            }
        }
        ResultBody::Stored { object } => {
            tracing::warn!("result {object}: stored twice over; dropped");
        }
        ResultBody::Parked { reason } => {
            let mut why = format!("parked by worker {}: {reason}", r.worker);
            if let Some(last) = refusals.remove(&key) {
                why.push_str(&format!("; last refusal: {last}"));
            }
            tracing::error!("{}: {why}", r.job.what());
            let (recorded, told) = oneshot::channel();
            let result = if r.job.kind == "play" {
                JobResult::Failed {
                    id: r.job.id,
                    error: why,
                    culprit: None,
                    detail: String::new(),
                }
            } else {
                JobResult::Checked {
                    version: r.job.id,
                    fit: false,
                    log: format!("PROBLEM: the check could not be run: {why}\n"),
                }
            };
            let _ = tx.send(Finished {
                result,
                recorded: Some(recorded),
            });
            return Ok(Some(told));
        }
    }
    Ok(None)
}

/// Writes a match's history where the hand viewer reads it; returns its path in the data folder.
fn keep_history(files: &Files, id: i64, b64: &str) -> Result<String, QueueError> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .map_err(|e| QueueError::Invalid(format!("the history of match {id}: {e}")))?;
    let rel = Files::history_rel(id);
    let to = files.root().join(&rel);
    let tmp = files.root().join("tmp").join(format!("history-{id}"));
    let io = |e: std::io::Error| QueueError::Invalid(format!("{}: {e}", to.display()));
    std::fs::write(&tmp, &bytes).map_err(io)?;
    std::fs::rename(&tmp, &to).map_err(io)?;
    Ok(rel)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::{frame, JobHeader};
    use pitboss_worker::{Job, TapeField};

    fn envelope(body: ResultBody) -> ResultEnvelope {
        ResultEnvelope {
            format: crate::JOB_FORMAT,
            engine: engine_version(),
            worker: "w".into(),
            job: JobHeader::of(&Job::Check {
                bot: pitboss_worker::BotRef {
                    version: 1,
                    label: "b".into(),
                    builtin: "call".into(),
                    sha256: String::new(),
                },
                presets: vec![],
            }),
            body,
        }
    }

    /// A framed result gets its tape back as sent; a tape beside anything but a played match's
    /// result, or beside one that carries a tape already, refuses the message; JSON alone reads
    /// as before (the forger tests publish such).
    #[test]
    fn a_framed_result_reads_with_its_tape_and_only_a_played_one() {
        let played = |tape: TapeField| {
            let outcome = pitboss_worker::Outcome {
                stored: pitboss_store::Outcome {
                    units: 1,
                    played: 2,
                    mean: 0.0,
                    se: 0.0,
                    raw_mean: 0.0,
                    elapsed_ms: 0,
                    a_stats: String::new(),
                    b_stats: String::new(),
                    history: String::new(),
                },
                tape,
                worker: String::new(),
            };
            envelope(ResultBody::Done {
                result: JobResult::Played { id: 3, outcome },
                history_b64: None,
            })
        };
        let json = serde_json::to_vec(&played(TapeField::Empty)).unwrap();
        let r = read_result(&frame(&json, b"PBT1 tape")).unwrap();
        let ResultBody::Done {
            result: JobResult::Played { outcome, .. },
            ..
        } = r.body
        else {
            panic!("{r:?}")
        };
        assert_eq!(outcome.tape_bytes().unwrap(), b"PBT1 tape");
        let twice = serde_json::to_vec(&played("UEJUMQ==".into())).unwrap();
        assert!(read_result(&frame(&twice, b"PBT1")).is_err());
        let refused = serde_json::to_vec(&envelope(ResultBody::Refused {
            reason: "no".into(),
        }))
        .unwrap();
        assert!(read_result(&frame(&refused, b"PBT1")).is_err());
        assert!(read_result(&refused).is_ok());
        assert_eq!(
            read_result(&twice).unwrap().body,
            played("UEJUMQ==".into()).body
        );
    }
}
