//! Bounded line reading from a bot's stdout: a line longer than [`MAX_LINE`] is reported as soon
//! as the limit is passed, so a bot printing 100 MB without a newline costs at most `MAX_LINE`
//! bytes of memory. All state lives in the reader, so a read cancelled by a deadline loses nothing.

use pitboss_protocol::MAX_LINE;
use tokio::io::{AsyncRead, AsyncReadExt};

/// Why no line came.
#[derive(Debug)]
pub enum LineError {
    /// End of stream (the bot closed stdout or exited).
    Eof,
    /// The line passed [`MAX_LINE`] bytes.
    TooLong,
    Io(std::io::Error),
}

pub struct LineReader<R> {
    inner: R,
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    /// The line being assembled (complete after `next_line` returns `Ok`).
    line: Vec<u8>,
    complete: bool,
    /// The first bytes of the last over-long line.
    head: Vec<u8>,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub fn new(inner: R) -> Self {
        LineReader {
            inner,
            buf: vec![0; 64 * 1024].into_boxed_slice(),
            start: 0,
            end: 0,
            line: Vec::with_capacity(4096),
            complete: false,
            head: Vec::new(),
        }
    }

    /// Waits for the next complete line (without its newline), available through [`Self::line`].
    /// Cancel-safe: a partial line is kept for the next call.
    pub async fn next_line(&mut self) -> Result<(), LineError> {
        loop {
            if let Some(got) = self.buffered_line() {
                return got;
            }
            match self.inner.read(&mut self.buf).await {
                Ok(0) => return Err(LineError::Eof),
                Ok(n) => self.end = n,
                Err(e) => return Err(LineError::Io(e)),
            }
        }
    }

    /// The next line if its end is already buffered, without reading (as [`Self::next_line`]
    /// would return it); `None` when the buffer holds no newline: its bytes are then kept as the
    /// start of the line, for the next call. One search of the buffer, where [`Self::has_line`]
    /// and then [`Self::next_line`] made two.
    pub fn buffered_line(&mut self) -> Option<Result<(), LineError>> {
        if self.complete {
            self.line.clear();
            self.complete = false;
        }
        let avail = &self.buf[self.start..self.end];
        if let Some(i) = memchr::memchr(b'\n', avail) {
            if self.line.len() + i > MAX_LINE {
                self.start += i + 1;
                self.keep_head();
                return Some(Err(LineError::TooLong));
            }
            self.line.extend_from_slice(&avail[..i]);
            self.start += i + 1;
            self.complete = true;
            return Some(Ok(()));
        }
        if self.line.len() + avail.len() > MAX_LINE {
            self.line.extend_from_slice(&avail[..avail.len().min(512)]);
            self.start = self.end;
            self.keep_head();
            return Some(Err(LineError::TooLong));
        }
        self.line.extend_from_slice(avail);
        self.start = 0;
        self.end = 0;
        None
    }

    fn keep_head(&mut self) {
        self.head.clear();
        self.head
            .extend_from_slice(&self.line[..self.line.len().min(512)]);
        self.line.clear();
    }

    /// Whether a whole line is already buffered (so [`Self::next_line`] returns at once).
    pub fn has_line(&self) -> bool {
        memchr::memchr(b'\n', &self.buf[self.start..self.end]).is_some()
    }

    /// The first bytes of the last over-long line.
    pub fn head(&self) -> &[u8] {
        &self.head
    }

    /// The last complete line.
    pub fn line(&self) -> &[u8] {
        &self.line
    }
}

/// Lines read in one go, in one buffer: no allocation per line once warm.
#[derive(Default)]
pub struct Batch {
    buf: Vec<u8>,
    ends: Vec<usize>,
}

impl Batch {
    pub fn clear(&mut self) {
        self.buf.clear();
        self.ends.clear();
    }

    pub fn push(&mut self, line: &[u8]) {
        self.buf.extend_from_slice(line);
        self.ends.push(self.buf.len());
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Line `i` (without its newline).
    pub fn get(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.buf[start..self.ends[i]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_partial_and_too_long() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut data = b"ab\ncd\n".to_vec();
            data.extend(std::iter::repeat_n(b'x', MAX_LINE + 5));
            data.extend_from_slice(b"\nok\ntail");
            let mut r = LineReader::new(data.as_slice());
            r.next_line().await.unwrap();
            assert_eq!(r.line(), b"ab");
            r.next_line().await.unwrap();
            assert_eq!(r.line(), b"cd");
            assert!(matches!(r.next_line().await, Err(LineError::TooLong)));
            assert!(r.head().starts_with(b"xxx"));
            // The caller treats a long line as fatal; the reader itself resynchronises at a
            // newline (at the latest at the one ending the long line).
            let mut seen = Vec::new();
            while r.next_line().await.is_ok() {
                seen.push(r.line().to_vec());
            }
            assert!(seen.contains(&b"ok".to_vec()));
            // Without reading: a whole line, then nothing (the partial line is kept).
            let mut r = LineReader::new(b"ab\ncd\nef".as_slice());
            assert!(r.buffered_line().is_none(), "nothing read yet");
            r.next_line().await.unwrap();
            assert_eq!(r.line(), b"ab");
            assert!(matches!(r.buffered_line(), Some(Ok(()))));
            assert_eq!(r.line(), b"cd");
            assert!(r.buffered_line().is_none());
            assert!(!r.has_line());
            assert!(matches!(r.next_line().await, Err(LineError::Eof)));
        });
    }
}
