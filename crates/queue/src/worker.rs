//! `pitboss worker`: pulls jobs while it has free slots (and one more, waiting for the first
//! slot to come free, so that no slot waits on a pull between two matches), keeps each delivered
//! job alive with in-progress acknowledgements while it holds it, and publishes what came of it — a result, a
//! refusal (another version; a bundle that cannot be had now: the job goes back for another
//! worker), or, for a job delivered more often than the attempts allow, its parking.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream::{self, AckKind};
use base64::Engine as _;
use futures_util::StreamExt;
use pitboss_cards::Salt;
use pitboss_store::Files;
use pitboss_worker::{Job, JobResult, Settings};
use tokio::sync::Semaphore;

use crate::cache::{Cache, Unavailable};
use crate::envelope::{
    engine_version, frame, JobEnvelope, JobHeader, Parked, ResultBody, ResultEnvelope, JOB_FORMAT,
};
use crate::{nats, QueueError, QueueSettings};

/// How long a match plays before its worker reports it started: [`WorkerConfig::started_after`].
pub const STARTED_AFTER: Duration = Duration::from_secs(1);

/// A history larger than this is not sent with its result (NATS takes 1 MiB messages by
/// default); the match counts, without hands to view.
const MAX_HISTORY: usize = 700 << 10;

/// A worker's settings.
#[derive(Clone, Debug)]
pub struct WorkerConfig {
    /// Where the queue is (the stream prefix must be the server's; ack wait and attempts are
    /// read from the server's consumer).
    pub queue: QueueSettings,
    /// The server's base URL (bundles are fetched from it).
    pub server: String,
    /// A worker token of the server (`pitboss token worker create`).
    pub token: String,
    /// Bundles and built versions.
    pub cache: PathBuf,
    /// Jobs at once.
    pub slots: usize,
    /// How this worker is named in results and on the operator's page.
    pub name: String,
    pub sandbox: bool,
    /// The job format and engine this worker runs: the binary's own, except in tests of a
    /// worker of another version.
    pub format: u32,
    pub engine: String,
    /// Result bodies larger than this go through the object store; `None`: what the NATS server
    /// takes in one message, less the envelope's room (tests send everything through the store
    /// with `Some(0)`).
    pub inline_max: Option<usize>,
    /// Send a match's tape compressed even when it fits raw (fewer bytes, more CPU).
    pub compress_tape: bool,
    /// A match that plays this long is reported started (the operator page shows who plays
    /// it); a shorter one only by its result.
    pub started_after: Duration,
}

impl WorkerConfig {
    pub fn new(queue: QueueSettings, server: &str, token: &str, cache: PathBuf) -> WorkerConfig {
        WorkerConfig {
            queue,
            server: server.to_string(),
            token: token.to_string(),
            cache,
            slots: 1,
            name: format!("worker-{}", std::process::id()),
            sandbox: true,
            format: JOB_FORMAT,
            engine: engine_version(),
            inline_max: None,
            compress_tape: false,
            started_after: STARTED_AFTER,
        }
    }
}

struct Ctx {
    cfg: WorkerConfig,
    js: jetstream::Context,
    cache: Arc<Cache>,
    attempts: i64,
    ack_wait: Duration,
    /// Results being sent, at most one per slot: a slot is free for the next job as soon as its
    /// match is played, while its result travels (the job is acknowledged only once its result
    /// is stored, so a worker that dies meanwhile loses nothing: the job is delivered again).
    sending: Arc<Semaphore>,
    /// The slots: a job plays only with one of them.
    slots: Arc<Semaphore>,
    /// The connection (what NATS takes in one message is its server's to say).
    client: async_nats::Client,
}

/// Runs the worker until the process ends.
///
/// # Errors
/// When the cache folder cannot be made or the settings are bad.
pub async fn run(cfg: WorkerConfig) -> Result<(), QueueError> {
    cfg.queue.validate()?;
    let files = Files::new(&cfg.cache)?;
    let (client, js) = nats::connect(&cfg.queue, &cfg.name, true).await?;
    let mut consumer = nats::open_jobs(&js, &cfg.queue).await;
    let info = consumer
        .info()
        .await
        .map_err(|e| QueueError::JetStream(e.to_string()))?
        .config
        .clone();
    let ctx = Arc::new(Ctx {
        cache: Arc::new(Cache::new(files, &cfg.server, &cfg.token)),
        attempts: (info.max_deliver - 1).max(1),
        ack_wait: info.ack_wait,
        sending: Arc::new(Semaphore::new(cfg.slots.max(1))),
        slots: Arc::new(Semaphore::new(cfg.slots.max(1))),
        client,
        js,
        cfg,
    });
    eprintln!(
        "pitboss worker {}: {} slot(s), engine {}, queue {} (streams {}_*), ack wait {:?}, {} attempt(s)",
        ctx.cfg.name,
        ctx.cfg.slots,
        ctx.cfg.engine,
        ctx.cfg.queue.url,
        ctx.cfg.queue.prefix,
        ctx.ack_wait,
        ctx.attempts
    );
    // Jobs held at once: one per slot and one waiting for a slot (pulled while the slots play,
    // kept alive by its in-progress acknowledgements like a running job).
    let held = Arc::new(Semaphore::new(ctx.cfg.slots.max(1) + 1));
    loop {
        let permit = held.clone().acquire_owned().await.expect("never closed");
        let batch = consumer
            .fetch()
            .max_messages(1)
            .expires(Duration::from_secs(5))
            .messages()
            .await;
        let mut batch = match batch {
            Ok(b) => b,
            Err(e) => {
                tracing::warn!("pulling a job: {e}; trying again");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        match batch.next().await {
            Some(Ok(m)) => {
                let ctx = ctx.clone();
                tokio::spawn(async move {
                    handle(&ctx, m, permit).await;
                });
            }
            Some(Err(e)) => {
                tracing::warn!("pulling a job: {e}");
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            None => {}
        }
    }
}

/// Room left in a message for the result's envelope around its body.
const ENVELOPE_ROOM: usize = 64 << 10;

/// The largest result body sent in the result's own message: what the NATS server takes in one
/// message (1 MiB by default) less the envelope's room. A larger body (a long match's action
/// tape) goes through the object store, which costs both ends a round trip per 128 KiB chunk —
/// a 20,000-hand ladder match's result (some 630 KB with its tape raw) travels inline.
fn inline_max(client: &async_nats::Client) -> usize {
    client
        .server_info()
        .max_payload
        .saturating_sub(ENVELOPE_ROOM)
}

/// The outcome in a played match's result.
fn played(body: &mut ResultBody) -> Option<&mut pitboss_worker::Outcome> {
    match body {
        ResultBody::Done {
            result: JobResult::Played { outcome, .. },
            ..
        } => Some(outcome),
        _ => None,
    }
}

/// One delivery of one publication of a job: the message ids of what a worker says of it.
///
/// The job's stream sequence is part of them: a server restarted re-queues a match it had
/// handed out and publishes it again, and that second job's result, were it named by match,
/// worker and delivery alone, would carry the first one's id and be dropped by JetStream as a
/// duplicate within the stream's duplicate window — its match left running for ever.
#[derive(Clone, Copy, Debug)]
struct Delivery {
    /// 1 for the first delivery of the job.
    delivered: i64,
    /// The job's sequence in its stream.
    seq: u64,
}

impl Delivery {
    fn of(m: &jetstream::Message) -> Delivery {
        m.info().map_or(
            Delivery {
                delivered: 1,
                seq: 0,
            },
            |i| Delivery {
                delivered: i.delivered,
                seq: i.stream_sequence,
            },
        )
    }

    fn id(&self, what: &str, header: &JobHeader, worker: &str) -> String {
        format!(
            "{what}{}-{}-j{}-{worker}-{}",
            header.kind, header.id, self.seq, self.delivered
        )
    }
}

async fn publish_result(ctx: &Ctx, header: &JobHeader, d: Delivery, body: ResultBody) {
    let id = d.id("", header, &ctx.cfg.name);
    let most = ctx
        .cfg
        .inline_max
        .unwrap_or_else(|| inline_max(&ctx.client));
    let envelope = |body| ResultEnvelope {
        format: ctx.cfg.format,
        engine: ctx.cfg.engine.clone(),
        worker: ctx.cfg.name.clone(),
        job: header.clone(),
        body,
    };
    let r = envelope(body);
    let compress = ctx.cfg.compress_tape;
    // Off the runtime's threads: the tape is compressed if asked, the result serialized once. A
    // played match's tape travels as bytes after the result's JSON (`envelope::frame`) when the
    // message then fits; if not, compressed inside the body, which goes to the object store.
    let (bytes, r) = tokio::task::spawn_blocking(move || {
        let mut r = r;
        if let Some(tape) = played(&mut r.body).map(|o| std::mem::take(&mut o.tape)) {
            let rest = serde_json::to_vec(&r).expect("a result serializes");
            let framed = tape
                .wire(compress)
                .filter(|t| 8 + rest.len() + t.len() <= most)
                .map(|t| frame(&rest, &t));
            if let Some(m) = framed {
                return (m, None);
            }
            let o = played(&mut r.body).expect("a played match's result");
            o.tape = tape;
            o.tape.seal(0);
        }
        (
            serde_json::to_vec(&r).expect("a result serializes"),
            Some(r),
        )
    })
    .await
    .expect("serializing a result does not panic");
    let bytes = match r {
        Some(r) if bytes.len() > most => {
            // The body, its tape compressed, goes to the object store; the message names it.
            let body = serde_json::to_vec(&r.body).expect("a result serializes");
            nats::put_until_stored(&ctx.js, &ctx.cfg.queue, &id, &body).await;
            serde_json::to_vec(&envelope(ResultBody::Stored { object: id.clone() }))
                .expect("a result serializes")
        }
        _ => bytes,
    };
    nats::publish_until_stored(&ctx.js, ctx.cfg.queue.results_subject(), &id, bytes).await;
}

/// Tells the server this worker plays delivery `delivered` of the job (a message id of its own:
/// the result's is taken by the result, and NATS drops a second message under one id).
async fn started(js: &jetstream::Context, cfg: &WorkerConfig, header: &JobHeader, d: Delivery) {
    let id = d.id("started-", header, &cfg.name);
    let delivered = d.delivered;
    let r = ResultEnvelope {
        format: cfg.format,
        engine: cfg.engine.clone(),
        worker: cfg.name.clone(),
        job: header.clone(),
        body: ResultBody::Started { delivered },
    };
    let bytes = serde_json::to_vec(&r).expect("a result serializes");
    nats::publish_until_stored(js, cfg.queue.results_subject(), &id, bytes).await;
}

async fn ack(m: &jetstream::Message, kind: AckKind) {
    if let Err(e) = m.ack_with(kind).await {
        // Lost (NATS restarting): the job comes back after its ack wait, and its second result
        // is recognised by the server.
        tracing::warn!("acknowledging a job: {e}");
    }
}

/// Runs one job; `held` (the pull's permit) is released when the job no longer needs the
/// worker's CPU, as is the slot it waits for.
async fn handle(ctx: &Ctx, m: jetstream::Message, held: tokio::sync::OwnedSemaphorePermit) {
    let d = Delivery::of(&m);
    let delivered = d.delivered;
    let header: JobHeader = match serde_json::from_slice(&m.payload) {
        Ok(h) => h,
        Err(e) => {
            // Not even a job's header: nobody can run it; parked at once for the operator.
            park(ctx, &m, None, delivered, format!("an unreadable job ({e})")).await;
            return;
        }
    };
    if delivered > ctx.attempts {
        let why = format!(
            "delivered {delivered} times without a result (each worker vanished, overran the \
             ack wait of {:?}, or refused it); not played again",
            ctx.ack_wait
        );
        park(ctx, &m, Some(&header), delivered, why).await;
        return;
    }
    if let Some(why) = header.refusal(ctx.cfg.format, &ctx.cfg.engine) {
        refuse(ctx, &m, &header, why).await;
        return;
    }
    let env: JobEnvelope = match serde_json::from_slice(&m.payload) {
        Ok(e) => e,
        Err(e) => {
            let why = format!(
                "{} does not read as a job of format {JOB_FORMAT}: {e}",
                header.what()
            );
            park(ctx, &m, Some(&header), delivered, why).await;
            return;
        }
    };
    // In-progress acknowledgements from now on: the job stays this worker's as long as this
    // worker lives, while it waits for a slot and however long the match.
    let beat = {
        let every = (ctx.ack_wait / 3).max(Duration::from_millis(300));
        let acker = m.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                let _ = acker.ack_with(AckKind::Progress).await;
            }
        })
    };
    let slot = ctx
        .slots
        .clone()
        .acquire_owned()
        .await
        .expect("never closed");
    eprintln!(
        "pitboss worker {}: {} (delivery {delivered}): running",
        ctx.cfg.name,
        header.what()
    );
    let cache = ctx.cache.clone();
    let (sandbox, name) = (ctx.cfg.sandbox, ctx.cfg.name.clone());
    let mut play = tokio::task::spawn_blocking(move || run_job(&cache, sandbox, &name, env));
    // A match still playing after `started_after` is told to the server while it plays (the
    // result waits for that word, so that it comes first); one over sooner is not: its result
    // names its worker. (Told at once, a ladder match of fast bots — a fifth of a second — cost
    // NATS and the server a message, an acknowledgement and a commit more per job.)
    let mut told = None;
    let ran = if header.kind == "play" {
        tokio::select! {
            r = &mut play => r,
            () = tokio::time::sleep(ctx.cfg.started_after) => {
                let (js, cfg, header) = (ctx.js.clone(), ctx.cfg.clone(), header.clone());
                told = Some(tokio::spawn(async move { started(&js, &cfg, &header, d).await }));
                play.await
            }
        }
    } else {
        play.await
    };
    // The match is played: the slot takes its next job while this result is sent (the job keeps
    // its in-progress acknowledgements until then).
    let _sending = ctx
        .sending
        .clone()
        .acquire_owned()
        .await
        .expect("never closed");
    drop(slot);
    drop(held);
    if let Some(t) = told {
        let _ = t.await;
    }
    match ran {
        Ok(Ok(body)) => {
            publish_result(ctx, &header, d, body).await;
            ack(&m, AckKind::Ack).await;
            eprintln!("pitboss worker {}: {}: done", ctx.cfg.name, header.what());
        }
        Ok(Err(Unavailable(why))) => refuse(ctx, &m, &header, why).await,
        Err(e) => refuse(ctx, &m, &header, format!("the job panicked: {e}")).await,
    }
    beat.abort();
}

/// Publishes a refusal and hands the job back (another worker may take it; each refusal counts
/// as a delivery, so a job nobody can run is parked in the end).
async fn refuse(ctx: &Ctx, m: &jetstream::Message, h: &JobHeader, why: String) {
    eprintln!("pitboss worker {}: refused: {why}", ctx.cfg.name);
    publish_result(ctx, h, Delivery::of(m), ResultBody::Refused { reason: why }).await;
    ack(m, AckKind::Nak(Some(Duration::from_secs(1)))).await;
}

/// Keeps the job in the parked stream, tells the server, and ends its deliveries.
async fn park(
    ctx: &Ctx,
    m: &jetstream::Message,
    h: Option<&JobHeader>,
    delivered: i64,
    why: String,
) {
    eprintln!("pitboss worker {}: parked: {why}", ctx.cfg.name);
    let job = serde_json::from_slice(&m.payload)
        .unwrap_or_else(|_| serde_json::Value::String(String::from_utf8_lossy(&m.payload).into()));
    let p = Parked {
        reason: why.clone(),
        worker: ctx.cfg.name.clone(),
        delivered,
        job,
    };
    let seq = m.info().map_or(0, |i| i.stream_sequence);
    nats::publish_until_stored(
        &ctx.js,
        ctx.cfg.queue.parked_subject(),
        &format!("parked-{seq}"),
        serde_json::to_vec(&p).expect("serializes"),
    )
    .await;
    if let Some(h) = h {
        publish_result(ctx, h, Delivery::of(m), ResultBody::Parked { reason: why }).await;
    }
    ack(m, AckKind::Term).await;
}

/// Runs a job (blocking: the referee and the jail have their own threads and processes).
fn run_job(
    cache: &Cache,
    sandbox: bool,
    name: &str,
    env: JobEnvelope,
) -> Result<ResultBody, Unavailable> {
    let p = &env.settings;
    let s = Settings {
        files: cache.files.clone(),
        // Never sent: the deck salt of a match comes with its job.
        secret: String::new(),
        sandbox,
        luck_adjust: p.luck_adjust,
        threads: p.threads.max(1),
        check_hands: p.check_hands.max(1),
        history: p.history_hands > 0,
        history_hands: p.history_hands,
        // The server audits a worker's results from the match's action tape.
        tape: true,
        scratch: true,
    };
    let done = |result| ResultBody::Done {
        result,
        history_b64: None,
    };
    match env.job {
        Job::Check { bot, presets } => {
            let (fit, log) = cache.verdict(&s, &bot, &presets)?;
            Ok(done(JobResult::Checked {
                version: bot.version,
                fit,
                log,
            }))
        }
        Job::Play {
            id,
            preset,
            seed,
            hands,
            a,
            b,
        } => {
            let salt = env
                .salt
                .as_deref()
                .and_then(|h| hex::decode(h).ok())
                .and_then(|v| <[u8; 32]>::try_from(v).ok())
                .map(Salt)
                .ok_or_else(|| Unavailable(format!("match {id} came without its deck salt")))?;
            for bot in [&a, &b] {
                let (fit, log) = cache.verdict(&s, bot, &p.presets)?;
                if !fit {
                    let tail: Vec<&str> = log.lines().rev().take(5).collect();
                    return Ok(done(JobResult::Failed {
                        id,
                        error: format!(
                            "{} is not fit on worker {name} (its check here failed)",
                            bot.label
                        ),
                        culprit: Some(bot.version),
                        detail: tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
                    }));
                }
            }
            let job = Job::Play {
                id,
                preset,
                seed,
                hands,
                a,
                b,
            };
            match pitboss_worker::run_salted(&s, &job, Some(salt)) {
                JobResult::Played { id, mut outcome } => {
                    let history_b64 = take_history(&s.files, &mut outcome.stored.history);
                    Ok(ResultBody::Done {
                        result: JobResult::Played { id, outcome },
                        history_b64,
                    })
                }
                other => Ok(done(other)),
            }
        }
    }
}

/// The kept history's bytes (base64), removed from the worker's disk: the server keeps it.
fn take_history(files: &Files, rel: &mut String) -> Option<String> {
    if rel.is_empty() {
        return None;
    }
    let path = files.resolve(rel)?;
    let bytes = std::fs::read(&path).ok();
    let _ = std::fs::remove_file(&path);
    match bytes {
        Some(b) if b.len() <= MAX_HISTORY => {
            Some(base64::engine::general_purpose::STANDARD.encode(b))
        }
        _ => {
            rel.clear();
            None
        }
    }
}
