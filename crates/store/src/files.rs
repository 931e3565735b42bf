//! The data folder beside the database: bundles stored by the SHA-256 of their bytes (the same
//! upload twice is one file; a path on the uploader's disk never matters), the folders where
//! versions are unpacked and built, and the hand histories of matches.
//!
//! Layout of `DIR`: `pitboss.db` (+ WAL files), `secret` (the service's secret, 0600),
//! `bundles/<sha256>` (as uploaded), `versions/<id>/bot/` (unpacked and built by a worker),
//! `matches/<id>/` (a match's folder while it plays), `hands/<id>.phhs.zst` (kept histories),
//! `tmp/` (uploads being checked), `backups/`.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::{Result, StoreError};

/// The folder of kept hand histories, beneath the data folder.
pub const HISTORY_DIR: &str = "hands";

/// The data folder's files.
#[derive(Clone, Debug)]
pub struct Files {
    root: PathBuf,
}

impl Files {
    /// The files of data folder `root` (its subfolders are made, 0700).
    ///
    /// # Errors
    /// When a folder cannot be made.
    pub fn new(root: &Path) -> Result<Files> {
        use std::os::unix::fs::DirBuilderExt;
        for d in [
            "",
            "bundles",
            "versions",
            "matches",
            HISTORY_DIR,
            "tmp",
            "backups",
        ] {
            let p = root.join(d);
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(&p)
                .map_err(StoreError::io(&p))?;
        }
        Ok(Files {
            root: root.to_path_buf(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where the bundle with this SHA-256 is kept.
    ///
    /// # Panics
    /// When `sha256` is not 64 lowercase hex digits (it is always computed by the service).
    pub fn bundle(&self, sha256: &str) -> PathBuf {
        assert!(
            sha256.len() == 64
                && sha256
                    .bytes()
                    .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')),
            "a SHA-256 in hex"
        );
        self.root.join("bundles").join(sha256)
    }

    /// Stores bundle bytes under their hash (written to a temporary file, synced, renamed:
    /// a crash leaves the old state or the whole file).
    ///
    /// The temporary file is this call's own (`create_new` under a random name): the same
    /// bundle uploaded twice at once used to share one name per process, so one upload truncated
    /// the file the other was about to rename (a 500, or for a moment a short bundle in place).
    ///
    /// # Errors
    /// When the file cannot be written.
    pub fn put_bundle(&self, sha256: &str, bytes: &[u8]) -> Result<PathBuf> {
        let dest = self.bundle(sha256);
        if dest.exists() {
            return Ok(dest);
        }
        let mut nonce = [0u8; 8];
        getrandom::getrandom(&mut nonce)
            .map_err(|e| StoreError::Invalid(format!("random source: {e}")))?;
        let tmp = self.root.join("tmp").join(format!(
            "bundle-{sha256}-{}-{}",
            std::process::id(),
            hex::encode(nonce)
        ));
        let written = (|| {
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)?;
            f.write_all(bytes)?;
            f.sync_all()
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(StoreError::Io {
                path: tmp.display().to_string(),
                source: e,
            });
        }
        // Another upload of the same bytes may have renamed its copy first: the same content.
        std::fs::rename(&tmp, &dest).map_err(StoreError::io(&dest))?;
        Ok(dest)
    }

    /// The folder a version is unpacked and built in.
    pub fn version_dir(&self, id: i64) -> PathBuf {
        self.root.join("versions").join(id.to_string())
    }

    /// A match's working folder.
    pub fn match_dir(&self, id: i64) -> PathBuf {
        self.root.join("matches").join(id.to_string())
    }

    /// A match's kept history, relative to the data folder.
    pub fn history_rel(id: i64) -> String {
        format!("{HISTORY_DIR}/{id}.phhs.zst")
    }

    /// A path relative to the data folder, made absolute; `None` for anything but a plain
    /// relative path (a row is never trusted to name a file outside the folder).
    pub fn resolve(&self, rel: &str) -> Option<PathBuf> {
        let p = Path::new(rel);
        let plain = !rel.is_empty()
            && p.components()
                .all(|c| matches!(c, std::path::Component::Normal(_)));
        plain.then(|| self.root.join(p))
    }

    /// The service's secret (32 random bytes, hex, made on first use, 0600): seeds and deck
    /// salts derive from it, so nobody who knows a match's seed can deal its cards.
    ///
    /// # Errors
    /// When it cannot be read or made.
    pub fn secret(&self) -> Result<String> {
        use std::os::unix::fs::OpenOptionsExt;
        let p = self.root.join("secret");
        match std::fs::read_to_string(&p) {
            Ok(s) if s.trim().len() == 64 => return Ok(s.trim().to_string()),
            Ok(_) => {
                return Err(StoreError::Invalid(format!(
                    "{}: not a secret made by pitboss (64 hex digits)",
                    p.display()
                )))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(StoreError::Io {
                    path: p.display().to_string(),
                    source: e,
                })
            }
        }
        let mut b = [0u8; 32];
        getrandom::getrandom(&mut b)
            .map_err(|e| StoreError::Invalid(format!("random source: {e}")))?;
        let s = hex::encode(b);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&p)
            .map_err(StoreError::io(&p))?;
        f.write_all(s.as_bytes()).map_err(StoreError::io(&p))?;
        f.sync_all().map_err(StoreError::io(&p))?;
        Ok(s)
    }
}
