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

/// The server's side of a test, as `pitboss serve` sets it up: a data folder whose ladder plans
/// nothing and keeps no history, its configuration and store, and a stream prefix of the test's
/// own on the machine's NATS (removed when this is dropped). `None`: no NATS here.
#[allow(dead_code)]
pub struct Server {
    pub dir: tempfile::TempDir,
    pub cfg: pitboss_service::ServeConfig,
    pub store: pitboss_store::Store,
    pub js: jetstream::Context,
    pub prefix: String,
    _streams: Streams,
}

#[allow(dead_code)]
pub async fn server(name: &str) -> Option<Server> {
    let Ok(client) = async_nats::connect(NATS).await else {
        eprintln!("no NATS at {NATS}: skipped");
        return None;
    };
    let prefix = format!("t{}_{name}", std::process::id());
    let js = jetstream::new(client);
    let streams = Streams(js.clone(), prefix.clone());
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(
        data.join("ladder.toml"),
        "plan = false\nhistory_hands = 0\n",
    )
    .unwrap();
    let cfg = pitboss_service::ServeConfig::load(&data, "127.0.0.1:0".parse().unwrap()).unwrap();
    let store = pitboss_store::Store::open_dir(&data).await.unwrap();
    Some(Server {
        dir,
        cfg,
        store,
        js,
        prefix,
        _streams: streams,
    })
}

#[allow(dead_code)]
impl Server {
    /// A match of `call` against `raise` in the first preset, and its job.
    pub async fn call_raise(&self, seed: i64, hands: i64) -> (i64, pitboss_worker::Job) {
        let (call, raise) = (
            self.store.ensure_reference("call").await.unwrap(),
            self.store.ensure_reference("raise").await.unwrap(),
        );
        let preset = self.cfg.presets[0].clone();
        let id = self
            .store
            .create_match(&pitboss_store::NewMatch {
                preset: preset.clone(),
                kind: pitboss_store::MatchKind::Ladder,
                a: call.id,
                b: raise.id,
                seed,
                hands,
            })
            .await
            .unwrap();
        let job = pitboss_worker::Job::Play {
            id,
            preset,
            seed,
            hands,
            a: builtin(&call),
            b: builtin(&raise),
        };
        (id, job)
    }

    /// A worker of this process named `name`, without the jail (built-in bots only: no bundle
    /// is fetched from the server), its cache in the test's folder.
    pub fn worker(
        &self,
        q: &pitboss_queue::QueueSettings,
        name: &str,
    ) -> pitboss_queue::worker::WorkerConfig {
        let mut wc = pitboss_queue::worker::WorkerConfig::new(
            q.clone(),
            "http://127.0.0.1:9",
            "pbw_unused",
            self.dir.path().join(format!("cache-{name}")),
        );
        wc.name = name.into();
        wc.sandbox = false;
        wc
    }
}
