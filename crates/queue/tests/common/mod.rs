//! What the queue's tests share: the machine's NATS, streams removed however a test ends, and
//! built-in bots as jobs name them.

use async_nats::jetstream;
use pitboss_worker::BotRef;

pub const NATS: &str = "nats://127.0.0.1:4222";

/// Removes the test's streams and object store however the test ends.
pub struct Streams(pub jetstream::Context, pub String);
impl Drop for Streams {
    fn drop(&mut self) {
        let (js, p) = (self.0.clone(), self.1.clone());
        // A runtime of its own: the test's may be unwinding.
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                for s in ["JOBS", "RESULTS", "PARKED"] {
                    let _ = js.delete_stream(format!("{p}_{s}")).await;
                }
                let _ = js.delete_object_store(format!("{p}_BLOBS")).await;
            });
        })
        .join();
    }
}

/// A built-in version as a job names it.
pub fn builtin(v: &pitboss_store::Version) -> BotRef {
    BotRef {
        version: v.id,
        label: v.label(),
        builtin: v.spec.clone(),
        sha256: String::new(),
    }
}
