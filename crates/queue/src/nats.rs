//! Connecting to NATS and making the streams and consumers. The server makes them (it owns the
//! settings: ack wait, attempts); workers only open them, waiting until they exist, and read
//! the settings from the consumer so that both sides always agree.

use std::time::Duration;

use async_nats::jetstream::{self, consumer, stream};

use crate::{QueueError, QueueSettings};

/// Kept in the stream's duplicate window: a job or result published again (a retry after a
/// lost acknowledgement) with the same message id within it is stored once.
const DUPLICATE_WINDOW: Duration = Duration::from_secs(120);

fn js_err(e: impl std::fmt::Display) -> QueueError {
    QueueError::JetStream(e.to_string())
}

/// A client that reconnects for ever (a NATS restart is a pause, not an end).
pub(crate) async fn connect(
    s: &QueueSettings,
    name: &str,
    wait_for_server: bool,
) -> Result<(async_nats::Client, jetstream::Context), QueueError> {
    let mut o = async_nats::ConnectOptions::new()
        .name(name)
        .max_reconnects(None)
        .connection_timeout(Duration::from_secs(5));
    if wait_for_server {
        o = o.retry_on_initial_connect();
    }
    let c = o
        .connect(s.url.as_str())
        .await
        .map_err(|e| QueueError::Connect {
            url: s.url.clone(),
            why: e.to_string(),
        })?;
    let mut js = jetstream::new(c.clone());
    js.set_timeout(Duration::from_secs(10));
    Ok((c, js))
}

fn work_stream(name: String, subject: String) -> stream::Config {
    stream::Config {
        name,
        subjects: vec![subject],
        retention: stream::RetentionPolicy::WorkQueue,
        storage: stream::StorageType::File,
        duplicate_window: DUPLICATE_WINDOW,
        ..Default::default()
    }
}

/// The server's side: the three streams and both consumers, made or updated.
pub(crate) async fn setup(
    js: &jetstream::Context,
    s: &QueueSettings,
) -> Result<(consumer::PullConsumer, consumer::PullConsumer), QueueError> {
    let jobs = js
        .get_or_create_stream(work_stream(s.jobs_stream(), s.jobs_subject()))
        .await
        .map_err(js_err)?;
    let results = js
        .get_or_create_stream(work_stream(s.results_stream(), s.results_subject()))
        .await
        .map_err(js_err)?;
    js.get_or_create_stream(stream::Config {
        name: s.parked_stream(),
        subjects: vec![s.parked_subject()],
        storage: stream::StorageType::File,
        duplicate_window: DUPLICATE_WINDOW,
        ..Default::default()
    })
    .await
    .map_err(js_err)?;
    blobs(js, s).await?;
    let wc = consumer::pull::Config {
        durable_name: Some(s.workers_consumer()),
        ack_policy: consumer::AckPolicy::Explicit,
        ack_wait: s.ack_wait,
        // One more than the attempts: the last delivery parks the job, it never plays.
        max_deliver: s.max_attempts + 1,
        max_ack_pending: -1,
        ..Default::default()
    };
    // Created, or updated to these settings (ack wait and attempts may change between runs).
    let workers = jobs
        .create_consumer(wc)
        .await
        .map_err(|e| js_err(format!("the workers' consumer: {e}")))?;
    let server = results
        .get_or_create_consumer(
            &s.server_consumer(),
            consumer::pull::Config {
                durable_name: Some(s.server_consumer()),
                ack_policy: consumer::AckPolicy::Explicit,
                ack_wait: s.results_ack_wait,
                max_ack_pending: -1,
                ..Default::default()
            },
        )
        .await
        .map_err(js_err)?;
    Ok((workers, server))
}

/// The worker's side: the jobs' consumer, once the server has made it.
pub(crate) async fn open_jobs(
    js: &jetstream::Context,
    s: &QueueSettings,
) -> consumer::PullConsumer {
    let mut said = false;
    loop {
        match js.get_stream(s.jobs_stream()).await {
            Ok(st) => match st.get_consumer(&s.workers_consumer()).await {
                Ok(c) => return c,
                Err(e) if !said => {
                    tracing::warn!("waiting for the server to make the queue: {e}");
                    said = true;
                }
                Err(_) => {}
            },
            Err(e) if !said => {
                tracing::warn!("waiting for the server to make the queue: {e}");
                said = true;
            }
            Err(_) => {}
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// Publishes until JetStream acknowledges (across a NATS restart): with a message id, a retry
/// after a lost acknowledgement is stored once.
pub(crate) async fn publish_until_stored(
    js: &jetstream::Context,
    subject: String,
    msg_id: &str,
    payload: Vec<u8>,
) {
    let payload = bytes::Bytes::from(payload);
    let mut delay = Duration::from_millis(100);
    loop {
        let p = jetstream::context::Publish::build()
            .payload(payload.clone())
            .message_id(msg_id);
        match js.send_publish(subject.clone(), p).await {
            Ok(ack) => match ack.await {
                Ok(_) => return,
                Err(e) => tracing::warn!("publishing {msg_id}: {e}; trying again"),
            },
            Err(e) => tracing::warn!("publishing {msg_id}: {e}; trying again"),
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_secs(2));
    }
}

/// The object store of results too large for a message.
pub(crate) async fn blobs(
    js: &jetstream::Context,
    s: &QueueSettings,
) -> Result<jetstream::object_store::ObjectStore, QueueError> {
    if let Ok(b) = js.get_object_store(s.blobs_bucket()).await {
        return Ok(b);
    }
    js.create_object_store(jetstream::object_store::Config {
        bucket: s.blobs_bucket(),
        storage: stream::StorageType::File,
        ..Default::default()
    })
    .await
    .map_err(js_err)
}

/// Stores `bytes` as object `name` until it is stored (across a NATS restart).
pub(crate) async fn put_until_stored(
    js: &jetstream::Context,
    s: &QueueSettings,
    name: &str,
    bytes: &[u8],
) {
    loop {
        match blobs(js, s).await {
            Ok(b) => match b.put(name, &mut &bytes[..]).await {
                Ok(_) => return,
                Err(e) => tracing::warn!("storing {name}: {e}; trying again"),
            },
            Err(e) => tracing::warn!("storing {name}: {e}; trying again"),
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}
