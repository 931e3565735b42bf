//! Line framing: one JSON object per line, with a hard limit on line length so that a flooding
//! peer cannot make the reader's memory grow.

use std::io::{BufRead, Write};

use serde::de::DeserializeOwned;
use serde::Serialize;

/// The longest line either side may send, newline excluded (1 MiB).
pub const MAX_LINE: usize = 1 << 20;

/// What can go wrong reading or writing a message.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    #[error("end of stream")]
    Closed,
    #[error("line longer than {MAX_LINE} bytes")]
    TooLong,
    #[error("malformed message: {0}")]
    Malformed(#[from] serde_json::Error),
}

/// Writes one message as a JSON line and flushes.
///
/// # Errors
/// [`WireError::Io`] when the peer is gone.
pub fn write_message<W: Write, T: Serialize>(w: &mut W, msg: &T) -> Result<(), WireError> {
    serde_json::to_writer(&mut *w, msg)?;
    w.write_all(b"\n")?;
    w.flush()?;
    Ok(())
}

/// Reads one message line, rejecting lines over [`MAX_LINE`] without buffering them whole.
///
/// # Errors
/// [`WireError::Closed`] at end of stream, [`WireError::TooLong`], [`WireError::Malformed`].
pub fn read_message<R: BufRead, T: DeserializeOwned>(
    r: &mut R,
    buf: &mut Vec<u8>,
) -> Result<T, WireError> {
    read_line(r, buf)?;
    Ok(serde_json::from_slice(buf)?)
}

/// Reads one line into `buf` (without its newline), rejecting lines over [`MAX_LINE`] without
/// buffering them whole.
///
/// # Errors
/// [`WireError::Closed`] at end of stream, [`WireError::TooLong`].
pub fn read_line<R: BufRead>(r: &mut R, buf: &mut Vec<u8>) -> Result<(), WireError> {
    buf.clear();
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            return Err(WireError::Closed);
        }
        match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => {
                if buf.len() + i > MAX_LINE {
                    r.consume(i + 1);
                    return Err(WireError::TooLong);
                }
                buf.extend_from_slice(&chunk[..i]);
                r.consume(i + 1);
                break;
            }
            None => {
                let n = chunk.len();
                if buf.len() + n > MAX_LINE {
                    return Err(WireError::TooLong);
                }
                buf.extend_from_slice(chunk);
                r.consume(n);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::*;

    #[test]
    fn round_trip_and_limits() {
        let msg = FromBot::Action(ActionReply {
            id: 7,
            table: None,
            action: Action::Raise { to: 200 },
        });
        let mut out = Vec::new();
        write_message(&mut out, &msg).unwrap();
        assert_eq!(
            String::from_utf8(out.clone()).unwrap(),
            "{\"type\":\"action\",\"id\":7,\"action\":{\"type\":\"raise\",\"to\":200}}\n"
        );
        let mut buf = Vec::new();
        let back: FromBot = read_message(&mut out.as_slice(), &mut buf).unwrap();
        assert_eq!(back, msg);
        let long = vec![b'x'; MAX_LINE + 10];
        let err = read_message::<_, FromBot>(&mut long.as_slice(), &mut buf).unwrap_err();
        assert!(matches!(err, WireError::TooLong));
        let bad = b"{\"type\":\"action\",\"id\":1,\"action\":{\"type\":\"fold\"},\"x\":1}\n";
        assert!(matches!(
            read_message::<_, FromBot>(&mut bad.as_slice(), &mut buf),
            Err(WireError::Malformed(_))
        ));
    }

    #[test]
    fn discard_uses_card_strings() {
        let a: Action = serde_json::from_str(r#"{"type":"discard","cards":["7c","Kd"]}"#).unwrap();
        assert_eq!(
            a,
            Action::Discard {
                cards: vec!["7c".parse().unwrap(), "Kd".parse().unwrap()]
            }
        );
    }
}
