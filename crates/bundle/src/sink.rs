//! The writing side of `unpack`: a new folder, and entries written into it one at a time with
//! every rule that does not depend on the archive format (duplicates, files under files, counts,
//! bytes counted as written, modes).

use std::collections::HashMap;
use std::fs::{self, DirBuilder, File, OpenOptions, Permissions};
use std::io::{ErrorKind, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::{BundleError, Limits, Unpacked};

/// The manifest is read into memory to find its `name`: a real one is a few hundred bytes.
const MANIFEST_MAX: usize = 1 << 20;

/// What a path of the bundle is, once written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Node {
    File,
    /// `explicit`: the archive had an entry for it (not only for files beneath it).
    Dir {
        explicit: bool,
    },
}

pub(crate) struct Sink<'a> {
    root: PathBuf,
    limits: &'a Limits,
    nodes: HashMap<String, Node>,
    entries: u64,
    files: u64,
    bytes: u64,
    manifest: Option<Vec<u8>>,
}

impl<'a> Sink<'a> {
    /// Creates `dest` (mode 0700), which must not exist.
    pub(crate) fn create(dest: &Path, limits: &'a Limits) -> Result<Self, BundleError> {
        match DirBuilder::new().mode(0o700).create(dest) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                return Err(BundleError::DestExists {
                    path: dest.to_owned(),
                })
            }
            Err(e) => return Err(BundleError::io(dest, e)),
        }
        Ok(Sink {
            root: dest.to_owned(),
            limits,
            nodes: HashMap::new(),
            entries: 0,
            files: 0,
            bytes: 0,
            manifest: None,
        })
    }

    /// The limits the bundle is unpacked under.
    pub(crate) fn limits(&self) -> &'a Limits {
        self.limits
    }

    /// A directory entry; `None` is the bundle's root (`.`), which exists already.
    pub(crate) fn dir(&mut self, entry: &str, path: Option<String>) -> Result<(), BundleError> {
        let Some(path) = path else { return Ok(()) };
        self.parents(entry, &path)?;
        match self.nodes.get_mut(&path) {
            // Its files came first (zip writers do that): the entry only confirms it.
            Some(Node::Dir { explicit }) if !*explicit => {
                *explicit = true;
                Ok(())
            }
            Some(_) => Err(BundleError::Duplicate {
                entry: entry.to_owned(),
            }),
            None => {
                self.mkdir(entry, &path)?;
                self.nodes.insert(path, Node::Dir { explicit: true });
                Ok(())
            }
        }
    }

    /// A regular file entry: its bytes are read from `data` and counted as they are written.
    /// Returns how many were written.
    pub(crate) fn file(
        &mut self,
        entry: &str,
        path: Option<String>,
        exec: bool,
        data: &mut dyn Read,
    ) -> Result<u64, BundleError> {
        let Some(path) = path else {
            return Err(BundleError::BadPath {
                entry: entry.to_owned(),
                reason: "a file at the path of the bundle's root",
            });
        };
        self.parents(entry, &path)?;
        if self.nodes.contains_key(&path) {
            return Err(BundleError::Duplicate {
                entry: entry.to_owned(),
            });
        }
        self.count(entry)?;
        let full = self.root.join(&path);
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&full)
            .map_err(|e| BundleError::io(&full, e))?;
        self.nodes.insert(path.clone(), Node::File);
        self.files += 1;
        // fchmod, not the open's mode: the umask must not decide what the bot may run.
        let mode = if exec { 0o755 } else { 0o644 };
        file.set_permissions(Permissions::from_mode(mode))
            .map_err(|e| BundleError::io(&full, e))?;
        let is_manifest = path == "bot.toml";
        if is_manifest {
            self.manifest = Some(Vec::new());
        }
        self.copy(entry, &full, &mut file, data, is_manifest)
    }

    /// Copies the data, refusing the bundle as soon as its bytes cross the limit.
    fn copy(
        &mut self,
        entry: &str,
        full: &Path,
        file: &mut File,
        data: &mut dyn Read,
        is_manifest: bool,
    ) -> Result<u64, BundleError> {
        let mut buf = vec![0u8; 64 << 10];
        let mut written = 0u64;
        loop {
            let n = match data.read(&mut buf) {
                Ok(0) => return Ok(written),
                Ok(n) => n,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(BundleError::EntryUnreadable {
                        entry: entry.to_owned(),
                        reason: e.to_string(),
                    })
                }
            };
            if n as u64 > self.limits.max_unpacked_bytes - self.bytes {
                return Err(BundleError::TooLarge {
                    entry: entry.to_owned(),
                    max: self.limits.max_unpacked_bytes,
                });
            }
            file.write_all(&buf[..n])
                .map_err(|e| BundleError::io(full, e))?;
            self.bytes += n as u64;
            written += n as u64;
            if let Some(manifest) = self.manifest.as_mut().filter(|_| is_manifest) {
                if manifest.len() + n > MANIFEST_MAX {
                    return Err(BundleError::Manifest {
                        reason: format!("larger than {MANIFEST_MAX} bytes"),
                    });
                }
                manifest.extend_from_slice(&buf[..n]);
            }
        }
    }

    /// Creates the missing parents of `path`, refusing one that is a file.
    fn parents(&mut self, entry: &str, path: &str) -> Result<(), BundleError> {
        for (end, _) in path.match_indices('/') {
            let parent = &path[..end];
            match self.nodes.get(parent) {
                Some(Node::Dir { .. }) => {}
                Some(Node::File) => {
                    return Err(BundleError::Conflict {
                        entry: entry.to_owned(),
                        conflict: parent.to_owned(),
                        what: "a file, not a directory",
                    })
                }
                None => {
                    self.mkdir(entry, parent)?;
                    self.nodes
                        .insert(parent.to_owned(), Node::Dir { explicit: false });
                }
            }
        }
        Ok(())
    }

    /// Creates one directory (mode 0755) whose parent exists; `mkdir` refuses anything already
    /// there, symlinks included.
    fn mkdir(&mut self, entry: &str, path: &str) -> Result<(), BundleError> {
        self.count(entry)?;
        let full = self.root.join(path);
        DirBuilder::new()
            .mode(0o755)
            .create(&full)
            .map_err(|e| BundleError::io(&full, e))?;
        fs::set_permissions(&full, Permissions::from_mode(0o755))
            .map_err(|e| BundleError::io(&full, e))
    }

    fn count(&mut self, entry: &str) -> Result<(), BundleError> {
        if self.entries >= self.limits.max_files {
            return Err(BundleError::TooManyFiles {
                entry: entry.to_owned(),
                max: self.limits.max_files,
            });
        }
        self.entries += 1;
        Ok(())
    }

    /// What was written, with the manifest's `name`.
    pub(crate) fn finish(self) -> Result<Unpacked, BundleError> {
        let manifest_name = match &self.manifest {
            Some(bytes) => manifest_name(bytes)?,
            None => None,
        };
        Ok(Unpacked {
            files: self.files,
            bytes: self.bytes,
            manifest_name,
        })
    }
}

/// The `name` of a manifest, if it has one; a manifest that is not TOML is refused here already
/// (the server could do nothing with the bundle).
fn manifest_name(bytes: &[u8]) -> Result<Option<String>, BundleError> {
    let refuse = |reason: String| BundleError::Manifest { reason };
    let text = std::str::from_utf8(bytes).map_err(|_| refuse("not UTF-8".into()))?;
    let table: toml::Table = toml::from_str(text).map_err(|e| {
        let line = e
            .span()
            .and_then(|s| text.get(..s.start))
            .map(|before| format!(" (line {})", before.matches('\n').count() + 1))
            .unwrap_or_default();
        refuse(format!("not valid TOML{line}: {}", e.message()))
    })?;
    match table.get("name") {
        None => Ok(None),
        Some(toml::Value::String(name)) => Ok(Some(name.clone())),
        Some(_) => Err(refuse("`name` is not a string".into())),
    }
}
