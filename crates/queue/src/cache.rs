//! A worker's local cache: bundles fetched from the server by hash (the SHA-256 of what arrives
//! is checked before anything is kept) and each version's check verdict, made once per worker —
//! the first job that needs a version builds and checks it in the jail, the others wait for that
//! verdict and reuse it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pitboss_store::Files;
use pitboss_worker::{BotRef, Settings};
use sha2::{Digest, Sha256};

/// The largest bundle a worker downloads.
const MAX_BUNDLE: u64 = 512 << 20;

type Verdict = Arc<Mutex<Option<(bool, String)>>>;

/// Bundles and verdicts of one worker.
pub(crate) struct Cache {
    pub files: Files,
    server: String,
    token: String,
    agent: ureq::Agent,
    verdicts: Mutex<HashMap<i64, Verdict>>,
}

/// Something this worker cannot do now, but another worker (or a later try) may.
#[derive(Debug)]
pub(crate) struct Unavailable(pub String);

impl Cache {
    pub fn new(files: Files, server: &str, token: &str) -> Cache {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_connect(Some(Duration::from_secs(20)))
            .timeout_global(Some(Duration::from_secs(600)))
            .user_agent(concat!("pitboss-worker/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Cache {
            files,
            server: server.trim_end_matches('/').to_string(),
            token: token.to_string(),
            agent,
            verdicts: Mutex::new(HashMap::new()),
        }
    }

    /// The bundle `sha256`, fetched when it is not here yet.
    pub fn bundle(&self, sha256: &str) -> Result<(), Unavailable> {
        if !is_sha256(sha256) {
            return Err(Unavailable(format!("{sha256:?} is not a SHA-256")));
        }
        if self.files.bundle(sha256).is_file() {
            return Ok(());
        }
        let url = format!("{}/api/bundles/{sha256}", self.server);
        let mut r = self
            .agent
            .get(&url)
            .header("Authorization", format!("Bearer {}", self.token))
            .call()
            .map_err(|e| Unavailable(format!("fetching bundle {sha256} from {url}: {e}")))?;
        let status = r.status().as_u16();
        if status != 200 {
            let body = r
                .body_mut()
                .with_config()
                .limit(4096)
                .read_to_string()
                .unwrap_or_default();
            return Err(Unavailable(format!(
                "fetching bundle {sha256}: HTTP {status} {}",
                body.trim()
            )));
        }
        let bytes = r
            .body_mut()
            .with_config()
            .limit(MAX_BUNDLE)
            .read_to_vec()
            .map_err(|e| Unavailable(format!("fetching bundle {sha256}: {e}")))?;
        verify(sha256, &bytes)?;
        self.files
            .put_bundle(sha256, &bytes)
            .map_err(|e| Unavailable(format!("keeping bundle {sha256}: {e}")))?;
        Ok(())
    }

    /// The verdict of `bot`'s check on this worker: (fit, log). Built-in bots are fit.
    pub fn verdict(
        &self,
        s: &Settings,
        bot: &BotRef,
        presets: &[String],
    ) -> Result<(bool, String), Unavailable> {
        if !bot.builtin.is_empty() {
            return Ok((true, format!("built-in bot {}", bot.builtin)));
        }
        let cell = self
            .verdicts
            .lock()
            .expect("verdicts")
            .entry(bot.version)
            .or_default()
            .clone();
        // One check per version: a second job for it waits here for the first one's verdict.
        let mut v = cell.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(v) = v.as_ref() {
            return Ok(v.clone());
        }
        self.bundle(&bot.sha256)?;
        let verdict = pitboss_worker::check(s, bot, presets);
        *v = Some(verdict.clone());
        Ok(verdict)
    }
}

fn is_sha256(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Refuses bytes whose SHA-256 is not the one asked for.
pub(crate) fn verify(sha256: &str, bytes: &[u8]) -> Result<(), Unavailable> {
    let got = hex::encode(Sha256::digest(bytes));
    if got == sha256 {
        Ok(())
    } else {
        Err(Unavailable(format!(
            "bundle {sha256}: the server sent bytes whose SHA-256 is {got}; refused"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_of_another_hash_are_refused() {
        let good = hex::encode(Sha256::digest(b"bundle"));
        assert!(verify(&good, b"bundle").is_ok());
        let e = verify(&good, b"bundlf").unwrap_err();
        assert!(e.0.contains("refused"));
    }

    #[test]
    fn a_bad_hash_is_never_a_path() {
        let d = tempfile::tempdir().unwrap();
        let c = Cache::new(Files::new(d.path()).unwrap(), "http://127.0.0.1:9", "t");
        for bad in ["../../etc/passwd", "", &"A".repeat(64), &"0".repeat(63)] {
            assert!(c.bundle(bad).is_err(), "{bad}");
        }
    }
}
