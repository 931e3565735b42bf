//! A test's temporary folder, removed when the test ends, passed or failed (its guard is
//! dropped while a failed assertion unwinds).

use std::path::{Path, PathBuf};

/// A folder of the test's own under the system's temporary folder; everything the test writes
/// (data folders, worker caches, private servers' files) goes beneath it.
pub struct Tmp(PathBuf);

impl Tmp {
    /// `$TMPDIR/pitboss-test-PID-NAME`, empty (a stale one of an earlier process with the same
    /// id is removed first).
    pub fn new(name: &str) -> Tmp {
        let d = std::env::temp_dir().join(format!("pitboss-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Tmp(d)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// A path beneath the folder (not made).
    pub fn join(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
