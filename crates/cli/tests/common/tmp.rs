//! A test's temporary folder, removed when the test ends, passed or failed (its guard is
//! dropped while a failed assertion unwinds). The one guard of every cli test: binaries that need
//! nothing else of `common` take this file alone (`#[path = "common/tmp.rs"] mod tmp;`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// A folder of the test's own under the system's temporary folder; everything the test writes
/// (data folders, worker caches, private servers' files) goes beneath it.
pub struct Tmp(pub PathBuf);

impl Tmp {
    /// `$TMPDIR/pitboss-test-PID-NAME`, empty (a stale one of an earlier process with the same
    /// id is removed first).
    pub fn new(name: &str) -> Tmp {
        let t = Tmp::absent(name);
        std::fs::create_dir_all(&t.0).unwrap();
        t
    }

    /// The same path, not made: for a command that must create the folder itself (`--out`).
    pub fn absent(name: &str) -> Tmp {
        let d = std::env::temp_dir().join(format!("pitboss-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        Tmp(d)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// A path beneath the folder (not made).
    pub fn join(&self, rel: impl AsRef<Path>) -> PathBuf {
        self.0.join(rel)
    }
}

impl std::ops::Deref for Tmp {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Tmp {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Tmp {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
