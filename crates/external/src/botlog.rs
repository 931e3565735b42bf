//! What a bot leaves behind for its author: its stderr in a size-capped log file (with the
//! referee's notes, which share the cap), its transcripts under a byte cap shared by its
//! processes, the last bytes of stderr for crash reports, and offending lines shortened (and made
//! printable) for logs and fault details.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitStatus;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// How much of an offending line is kept in the bot log and fault details.
pub const SHOWN: usize = 300;

/// A size-capped log file shared by all processes of one bot.
pub struct BotLog {
    file: Option<File>,
    /// Why the file could not be created (the bot then has no log: said out loud by the caller).
    error: Option<String>,
    written: u64,
    cap: u64,
    dropped: u64,
    dropped_notes: u64,
}

impl BotLog {
    pub fn new(path: Option<PathBuf>, cap: u64) -> BotLog {
        let (file, error) = match path.map(|p| File::create(&p).map_err(|e| (p, e))) {
            Some(Ok(f)) => (Some(f), None),
            Some(Err((p, e))) => (None, Some(format!("{}: {e}", p.display()))),
            None => (None, None),
        };
        BotLog {
            file,
            error,
            written: 0,
            cap,
            dropped: 0,
            dropped_notes: 0,
        }
    }

    /// Why the log file could not be created, if it could not.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
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

/// The bytes of transcript one bot may still write, shared by the transcripts of all its
/// processes (a bot could otherwise make the referee write without bound: every line it sends is
/// recorded, up to 64 KiB of it).
#[derive(Debug)]
pub struct TranscriptCap {
    cap: u64,
    used: AtomicU64,
    reached: AtomicBool,
}

impl TranscriptCap {
    pub fn new(cap: u64) -> Arc<TranscriptCap> {
        Arc::new(TranscriptCap {
            cap,
            used: AtomicU64::new(0),
            reached: AtomicBool::new(false),
        })
    }

    /// Takes `n` bytes of the budget; `false` (and nothing taken) when they do not fit.
    fn take(&self, n: u64) -> bool {
        let ok = self
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |u| {
                (u + n <= self.cap).then_some(u + n)
            })
            .is_ok();
        if !ok {
            self.reached.store(true, Ordering::Relaxed);
        }
        ok
    }

    /// Whether a line did not fit (the transcripts are cut).
    pub fn reached(&self) -> bool {
        self.reached.load(Ordering::Relaxed)
    }

    /// The cap, bytes.
    pub fn cap(&self) -> u64 {
        self.cap
    }

    /// Bytes written so far.
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }
}

/// How much of one line a transcript keeps.
const TRANSCRIPT_LINE: usize = 64 * 1024;

/// One process's transcript: `MICROSECONDS > line` (referee to bot) and `MICROSECONDS < line`
/// (bot to referee), while the bot's [`TranscriptCap`] lasts; then one closing line says so.
pub struct Transcript {
    w: BufWriter<File>,
    cap: Arc<TranscriptCap>,
    born: Instant,
    full: bool,
}

impl Transcript {
    pub fn create(path: &std::path::Path, cap: Arc<TranscriptCap>) -> Option<Transcript> {
        let f = File::create(path).ok()?;
        Some(Transcript {
            w: BufWriter::new(f),
            cap,
            born: Instant::now(),
            full: false,
        })
    }

    pub fn record(&mut self, dir: char, bytes: &[u8]) {
        if self.full {
            return;
        }
        let body = &bytes[..bytes.len().min(TRANSCRIPT_LINE)];
        let us = self.born.elapsed().as_micros();
        // The line's head without an allocation (this runs for every line exchanged).
        let mut buf = [0u8; 48];
        let head = {
            let mut c = std::io::Cursor::new(&mut buf[..]);
            let _ = write!(c, "{us} {dir} ");
            let n = c.position() as usize;
            &buf[..n]
        };
        let newline = !body.ends_with(b"\n");
        let n = head.len() + body.len() + usize::from(newline);
        if !self.cap.take(n as u64) {
            self.full = true;
            // Once per file, outside the budget (short).
            let _ = writeln!(
                self.w,
                "{us} ! transcript cap of {} bytes for this bot reached: later lines are not \
                 recorded",
                self.cap.cap
            );
            return;
        }
        let _ = self.w.write_all(head);
        let _ = self.w.write_all(body);
        if newline {
            let _ = self.w.write_all(b"\n");
        }
    }

    pub fn flush(&mut self) {
        let _ = self.w.flush();
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

    /// The tail as text: lossily decoded, control characters other than line breaks and tabs
    /// written as `\u{..}` (it reaches the operator's terminal in fault reports).
    pub fn text(&self) -> String {
        let s = String::from_utf8_lossy(&self.0);
        pitboss_arena::name::terminal(s.trim_end()).into_owned()
    }
}

/// A line for logs: at most [`SHOWN`] bytes, lossily decoded, control characters written as
/// `\u{..}` (fault details reach terminals and `match.log`).
pub fn shown(line: &[u8]) -> String {
    let cut = &line[..line.len().min(SHOWN)];
    let mut s = pitboss_arena::name::one_line(&String::from_utf8_lossy(cut)).into_owned();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transcripts_share_a_cap_and_say_when_it_is_reached() {
        let d = std::env::temp_dir().join(format!("pitboss-transcript-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let cap = TranscriptCap::new(10_000);
        let mut a = Transcript::create(&d.join("a.txt"), cap.clone()).unwrap();
        let mut b = Transcript::create(&d.join("b.txt"), cap.clone()).unwrap();
        let line = vec![b'x'; 999];
        for _ in 0..20 {
            a.record('<', &line);
            b.record('<', &line);
        }
        // A line longer than a transcript keeps is cut.
        a.record('>', &vec![b'y'; 200_000]);
        a.flush();
        b.flush();
        assert!(cap.reached());
        assert!(cap.used() <= 10_000);
        let (ta, tb) = (
            std::fs::read_to_string(d.join("a.txt")).unwrap(),
            std::fs::read_to_string(d.join("b.txt")).unwrap(),
        );
        let total = ta.len() + tb.len();
        assert!(total < 10_000 + 400, "{total}");
        for t in [&ta, &tb] {
            assert_eq!(t.matches("transcript cap of 10000 bytes").count(), 1, "{t}");
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn bot_output_is_made_printable() {
        let s = shown(b"{\"x\":1}\x1b[2J\x07\r\n");
        assert!(!s.contains(['\u{1b}', '\u{7}', '\r', '\n']), "{s:?}");
        let mut t = Tail::default();
        t.push(b"line one\n\x1b]0;pwned\x07 two\r\n");
        let text = t.text();
        assert!(text.contains("line one\n"), "{text:?}");
        assert!(!text.contains(['\u{1b}', '\u{7}', '\r']), "{text:?}");
    }
}
