//! Output files are written atomically: to `NAME.partial`, then renamed, so an interrupted run
//! never leaves a half-written file that looks complete.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// A file being written; it appears under its real name only after [`AtomicFile::commit`].
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    w: BufWriter<File>,
    /// Synced before the rename (durable); off for a scratch folder ([`AtomicFile::unsynced`]).
    sync: bool,
}

impl AtomicFile {
    /// # Errors
    /// When the temporary file cannot be created.
    pub fn create(path: &Path) -> std::io::Result<AtomicFile> {
        AtomicFile::create_mode(path, 0o666)
    }

    /// [`AtomicFile::create`] with the permission bits `mode` (before the umask).
    ///
    /// # Errors
    /// When the temporary file cannot be created.
    pub fn create_mode(path: &Path, mode: u32) -> std::io::Result<AtomicFile> {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".partial");
        let tmp = PathBuf::from(tmp);
        let f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(mode)
            .open(&tmp)?;
        if mode & 0o077 == 0 {
            // A left-over `.partial` keeps its old mode: make sure.
            f.set_permissions(std::fs::Permissions::from_mode(mode))?;
        }
        let w = BufWriter::new(f);
        Ok(AtomicFile {
            path: path.to_path_buf(),
            tmp,
            w,
            sync: true,
        })
    }

    /// Renamed into place without a sync: for a scratch folder, read once and deleted (a crash
    /// loses what would have been played again anyway).
    pub fn unsynced(mut self) -> AtomicFile {
        self.sync = false;
        self
    }

    /// [`AtomicFile::unsynced`] when `scratch`.
    pub fn synced_unless(self, scratch: bool) -> AtomicFile {
        if scratch {
            self.unsynced()
        } else {
            self
        }
    }

    /// Flushes, syncs and renames into place.
    ///
    /// # Errors
    /// I/O errors.
    pub fn commit(self) -> std::io::Result<()> {
        let f = self.w.into_inner().map_err(|e| e.into_error())?;
        if self.sync {
            f.sync_all()?;
        }
        std::fs::rename(&self.tmp, &self.path)
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.w.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.w.flush()
    }
}

/// Writes a whole file that holds a secret (a salt) atomically, readable by its owner only: no
/// other user of the machine, and no jail uid, can read it even where it could reach the file.
///
/// # Errors
/// I/O errors.
pub fn write_secret(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_secret_in(path, bytes, false)
}

/// [`write_secret`], not synced in a `scratch` folder.
///
/// # Errors
/// I/O errors.
pub fn write_secret_in(path: &Path, bytes: &[u8], scratch: bool) -> std::io::Result<()> {
    let mut f = AtomicFile::create_mode(path, 0o600)?.synced_unless(scratch);
    f.write_all(bytes)?;
    f.commit()
}

/// Writes a whole file atomically.
///
/// # Errors
/// I/O errors.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_in(path, bytes, false)
}

/// [`write_atomic`], not synced in a `scratch` folder.
///
/// # Errors
/// I/O errors.
pub fn write_atomic_in(path: &Path, bytes: &[u8], scratch: bool) -> std::io::Result<()> {
    let mut f = AtomicFile::create(path)?.synced_unless(scratch);
    f.write_all(bytes)?;
    f.commit()
}

/// `YYYYMMDD-HHMMSS` in UTC, for default output folder names.
pub fn timestamp() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}
