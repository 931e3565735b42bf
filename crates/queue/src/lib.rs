//! Workers of the Pitboss service on NATS JetStream: `pitboss serve --queue nats://…` plays
//! nothing itself; its scheduler hands jobs to [`NatsWorkers`], which publishes them to a
//! **work-queue stream**; `pitboss worker` processes on any machine that reaches NATS pull them
//! ([`worker::run`]), fetch the bundles they need from the server by hash, check each version once,
//! play in the jail and publish the result to a **results stream** the server ingests.
//!
//! Why JetStream and these settings (each fault, what happens):
//! - explicit acknowledgement, with in-progress acknowledgements every third of the ack wait
//!   while a match plays: a worker that vanishes (SIGKILL, a lost machine) stops them, and its
//!   job is delivered to another worker after the ack wait;
//! - a job delivered more than `max_attempts` times is not played again: the worker that gets
//!   it publishes it to the `parked` stream with the reason, and the server marks the match
//!   failed with that reason (the operator page shows it);
//! - every job carries the job format and the engine version ([`ENGINE_REVISION`]): a worker of
//!   another version refuses it (a refusal the server shows on the match), never plays it;
//! - results count once: the store moves a match to done only from queued or running, so a
//!   second result of a redelivered job, or a result that arrives after a server restart
//!   re-queued its match, is recognised and not counted again;
//! - the streams are on disk in NATS: a NATS restart loses nothing, and clients reconnect;
//! - a worker that starts a match's job says so on the results stream (its name and the
//!   delivery number): the operator page names the worker of every running match, and a
//!   redelivered job its new worker.

mod cache;
pub mod envelope;
mod nats;
pub mod server;
pub mod worker;

use std::time::Duration;

pub use envelope::{engine_version, ENGINE_REVISION, JOB_FORMAT};
pub use server::NatsWorkers;

/// A failure of the queue.
#[derive(Debug, thiserror::Error)]
pub enum QueueError {
    #[error("NATS at {url}: {why}")]
    Connect { url: String, why: String },
    #[error("JetStream: {0}")]
    JetStream(String),
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Store(#[from] pitboss_store::StoreError),
}

/// Where the queue is and how it behaves.
#[derive(Clone, Debug)]
pub struct QueueSettings {
    /// `nats://HOST:PORT`.
    pub url: String,
    /// Names the streams (`PREFIX_JOBS`, `PREFIX_RESULTS`, `PREFIX_PARKED`), their subjects
    /// (`PREFIX.jobs`, …) and consumers: one NATS can serve several services (or tests).
    pub prefix: String,
    /// How long a delivered job may go without an acknowledgement before it is redelivered.
    pub ack_wait: Duration,
    /// Deliveries of a job that may play it; the next delivery parks it.
    pub max_attempts: i64,
    /// How long the server may hold a result it has read without acknowledging it or saying it
    /// still works on it (in-progress acknowledgements at a third of this while the result waits
    /// to be recorded) before JetStream delivers it again.
    pub results_ack_wait: Duration,
}

impl QueueSettings {
    /// Settings with the defaults (ack wait 30 s, 3 attempts).
    pub fn new(url: &str, prefix: &str) -> QueueSettings {
        QueueSettings {
            url: url.to_string(),
            prefix: prefix.to_string(),
            ack_wait: Duration::from_secs(30),
            max_attempts: 3,
            results_ack_wait: Duration::from_secs(30),
        }
    }

    /// Checks the URL and names.
    ///
    /// # Errors
    /// [`QueueError::Invalid`] saying which.
    pub fn validate(&self) -> Result<(), QueueError> {
        if !(self.url.starts_with("nats://") || self.url.starts_with("tls://")) {
            return Err(QueueError::Invalid(format!(
                "queue {:?}: a nats://HOST:PORT URL",
                self.url
            )));
        }
        let p = &self.prefix;
        if p.is_empty()
            || p.len() > 32
            || !p
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err(QueueError::Invalid(format!(
                "stream prefix {p:?}: 1 to 32 of ASCII letters, digits, _ and -"
            )));
        }
        if self.ack_wait < Duration::from_secs(1) || self.results_ack_wait < Duration::from_secs(1)
        {
            return Err(QueueError::Invalid("ack wait: at least 1 second".into()));
        }
        if !(1..=100).contains(&self.max_attempts) {
            return Err(QueueError::Invalid(format!(
                "max attempts {}: 1 to 100",
                self.max_attempts
            )));
        }
        Ok(())
    }

    pub(crate) fn jobs_stream(&self) -> String {
        format!("{}_JOBS", self.prefix)
    }
    pub(crate) fn results_stream(&self) -> String {
        format!("{}_RESULTS", self.prefix)
    }
    pub(crate) fn parked_stream(&self) -> String {
        format!("{}_PARKED", self.prefix)
    }
    pub(crate) fn blobs_bucket(&self) -> String {
        format!("{}_BLOBS", self.prefix)
    }
    pub(crate) fn jobs_subject(&self) -> String {
        format!("{}.jobs", self.prefix)
    }
    pub(crate) fn results_subject(&self) -> String {
        format!("{}.results", self.prefix)
    }
    pub(crate) fn parked_subject(&self) -> String {
        format!("{}.parked", self.prefix)
    }
    pub(crate) fn workers_consumer(&self) -> String {
        format!("{}_workers", self.prefix)
    }
    pub(crate) fn server_consumer(&self) -> String {
        format!("{}_server", self.prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_settings_are_refused() {
        let ok = QueueSettings::new("nats://127.0.0.1:4222", "pitboss");
        assert!(ok.validate().is_ok());
        for p in ["", "a.b", "a b", "a*", "x>", &"x".repeat(33)] {
            let s = QueueSettings::new("nats://h:1", p);
            assert!(s.validate().is_err(), "{p:?}");
        }
        assert!(QueueSettings::new("http://h:1", "p").validate().is_err());
        let mut s = ok.clone();
        s.max_attempts = 0;
        assert!(s.validate().is_err());
        s.max_attempts = 3;
        s.ack_wait = Duration::from_millis(10);
        assert!(s.validate().is_err());
    }
}
