//! What a bot leaves behind for its author: its stderr in a size-capped log file (with the
//! referee's notes, which share the cap), the last bytes of stderr for crash reports, and offending
//! lines shortened for logs and fault details.

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitStatus;

/// How much of an offending line is kept in the bot log and fault details.
pub const SHOWN: usize = 300;

/// A size-capped log file shared by all processes of one bot.
pub struct BotLog {
    file: Option<File>,
    written: u64,
    cap: u64,
    dropped: u64,
    dropped_notes: u64,
}

impl BotLog {
    pub fn new(path: Option<PathBuf>, cap: u64) -> BotLog {
        BotLog {
            file: path.and_then(|p| File::create(p).ok()),
            written: 0,
            cap,
            dropped: 0,
            dropped_notes: 0,
        }
    }

    pub fn write(&mut self, bytes: &[u8]) {
        let room = self.cap.saturating_sub(self.written) as usize;
        let n = bytes.len().min(room);
        if let Some(f) = self.file.as_mut() {
            let _ = f.write_all(&bytes[..n]);
        }
        self.written += n as u64;
        self.dropped += (bytes.len() - n) as u64;
    }

    /// A referee note. Notes share the cap with the bot's stderr (a bot could otherwise make
    /// the referee write without bound, e.g. by flooding stale replies); past the cap they are
    /// counted and summed up by [`Self::close`].
    pub fn note(&mut self, s: &str) {
        let line = format!("[pitboss] {s}\n");
        if self.written + line.len() as u64 > self.cap {
            self.dropped_notes += 1;
            return;
        }
        self.written += line.len() as u64;
        if let Some(f) = self.file.as_mut() {
            let _ = f.write_all(line.as_bytes());
        }
    }

    /// Closing lines (always written, short): what the cap dropped.
    pub fn close(&mut self) {
        if let Some(f) = self.file.as_mut() {
            if self.dropped > 0 {
                let _ = writeln!(
                    f,
                    "[pitboss] {} more bytes of stderr dropped (log cap reached)",
                    self.dropped
                );
            }
            if self.dropped_notes > 0 {
                let _ = writeln!(
                    f,
                    "[pitboss] {} more referee notes dropped (log cap reached)",
                    self.dropped_notes
                );
            }
        }
        self.dropped = 0;
        self.dropped_notes = 0;
    }
}

/// The last bytes of a bot's stderr, for crash reports.
#[derive(Default)]
pub struct Tail(Vec<u8>);

impl Tail {
    pub(crate) fn push(&mut self, b: &[u8]) {
        const KEEP: usize = 2048;
        self.0.extend_from_slice(&b[b.len().saturating_sub(KEEP)..]);
        if self.0.len() > KEEP {
            self.0.drain(..self.0.len() - KEEP);
        }
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0).trim_end().to_string()
    }
}

/// A line for logs: at most [`SHOWN`] bytes, lossily decoded.
pub fn shown(line: &[u8]) -> String {
    let cut = &line[..line.len().min(SHOWN)];
    let mut s = String::from_utf8_lossy(cut).into_owned();
    if line.len() > SHOWN {
        s.push_str(&format!("… ({} bytes)", line.len()));
    }
    s
}

pub(crate) fn describe(st: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (st.code(), st.signal()) {
        (Some(c), _) => format!("exited with status {c}"),
        (_, Some(s)) => format!("killed by signal {s}"),
        _ => format!("{st}"),
    }
}
