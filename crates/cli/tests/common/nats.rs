//! NATS for the tests: the machine's JetStream with a stream prefix of each test's own, or a
//! private `nats-server` for the tests that stop it.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::proc::Killed;

/// The machine's NATS with JetStream.
pub const NATS: &str = "nats://127.0.0.1:4222";

/// A stream prefix no other test (nor another run of this one) uses.
pub fn prefix(name: &str) -> String {
    format!("t{}_{name}", std::process::id())
}

/// A [`prefix`] on the machine's NATS whose streams and object store (`pitboss serve --queue`
/// makes `PREFIX_JOBS`, `_RESULTS`, `_PARKED`, `_BLOBS`) are deleted when the test ends, so that
/// runs of the tests do not pile up on the shared server. Made before the server, dropped after.
pub struct Streams(String);

impl Streams {
    pub fn new(name: &str) -> Streams {
        Streams(prefix(name))
    }
}

impl std::ops::Deref for Streams {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl Drop for Streams {
    fn drop(&mut self) {
        let p = self.0.clone();
        // A thread of its own: a runtime cannot be started inside another one.
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                let gone = async {
                    let js = async_nats::jetstream::new(async_nats::connect(NATS).await.ok()?);
                    for s in ["JOBS", "RESULTS", "PARKED"] {
                        let _ = js.delete_stream(format!("{p}_{s}")).await;
                    }
                    let _ = js.delete_object_store(format!("{p}_BLOBS")).await;
                    Some(())
                };
                let _ = tokio::time::timeout(Duration::from_secs(10), gone).await;
            });
        })
        .join();
    }
}

/// A free TCP port on loopback.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits until something listens on `port`.
pub fn wait_port(port: u16, what: &str) {
    let t = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "{what} did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A private nats-server with JetStream on `port`, storing in `dir`.
pub fn nats_server(port: u16, dir: &Path) -> Killed {
    let c = Command::new("nats-server")
        .args(["-js", "-a", "127.0.0.1", "-p", &port.to_string(), "-sd"])
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("nats-server on the PATH");
    let c = Killed(c);
    wait_port(port, "nats-server");
    c
}
