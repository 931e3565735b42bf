//! Line framing: one JSON object per line, with a hard limit on line length so that a flooding
//! peer cannot make the reader's memory grow.

use std::io::{BufRead, Write};

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::scan::Cursor;

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
        // memchr: a plain byte loop was the largest item of a bot's profile.
        match memchr::memchr(b'\n', chunk) {
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

/// Parses a bot's line as [`FromBot`]: the exact form the SDKs write
/// (`{"type":"action","id":7,"table":1,"action":{"type":"raise","to":200}}`, no spaces, `table`
/// optional) is read by hand; any other line goes to serde_json, so what is accepted and how it
/// reads is serde's in every case (the hand-read form is a subset of what serde accepts, with the
/// same meaning; tested against it). The tagged enums cost serde a detour through a buffered
/// map, the largest part of reading a reply.
///
/// # Errors
/// serde_json's, when the line is not a valid message.
pub fn parse_reply(line: &[u8]) -> Result<crate::FromBot, serde_json::Error> {
    match fast_reply(line) {
        Some(r) => Ok(crate::FromBot::Action(r)),
        None => serde_json::from_slice(line),
    }
}

/// The hand-read form of an action reply, or `None` for anything else.
fn fast_reply(line: &[u8]) -> Option<crate::ActionReply> {
    use crate::messages::Action;
    let mut p = Cursor::new(line);
    p.lit(b"{\"type\":\"action\",\"id\":")?;
    let id = p.uint()?;
    let table = if p.lit(b",\"table\":").is_some() {
        Some(u32::try_from(p.uint()?).ok()?)
    } else {
        None
    };
    p.lit(b",\"action\":{\"type\":\"")?;
    let action = if p.lit(b"call\"}").is_some() {
        Action::Call
    } else if p.lit(b"check\"}").is_some() {
        Action::Check
    } else if p.lit(b"fold\"}").is_some() {
        Action::Fold
    } else if p.lit(b"bring_in\"}").is_some() {
        Action::BringIn
    } else if p.lit(b"raise\",\"to\":").is_some() {
        let to = p.uint()?;
        p.lit(b"}")?;
        Action::Raise { to }
    } else if p.lit(b"discard\",\"cards\":[").is_some() {
        let mut cards = Vec::new();
        if p.lit(b"]").is_none() {
            loop {
                cards.push(p.card()?);
                if p.lit(b"]").is_some() {
                    break;
                }
                p.lit(b",")?;
            }
        }
        p.lit(b"}")?;
        Action::Discard { cards }
    } else {
        return None;
    };
    p.lit(b"}")?;
    p.end()?;
    Some(crate::ActionReply { id, table, action })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::*;

    #[test]
    fn the_hand_read_replies_read_as_serdes() {
        let lines = [
            r#"{"type":"action","id":7,"action":{"type":"call"}}"#,
            r#"{"type":"action","id":0,"table":3,"action":{"type":"check"}}"#,
            r#"{"type":"action","id":18446744073709551615,"action":{"type":"fold"}}"#,
            r#"{"type":"action","id":1234567890123456789,"action":{"type":"fold"}}"#,
            r#"{"type":"action","id":18446744073709551616,"action":{"type":"fold"}}"#,
            r#"{"type":"action","id":9,"table":4294967295,"action":{"type":"bring_in"}}"#,
            r#"{"type":"action","id":9,"table":4294967296,"action":{"type":"bring_in"}}"#,
            r#"{"type":"action","id":2,"action":{"type":"raise","to":200}}"#,
            r#"{"type":"action","id":2,"action":{"type":"raise","to":-1}}"#,
            r#"{"type":"action","id":2,"action":{"type":"raise","to":2.5}}"#,
            r#"{"type":"action","id":2,"action":{"type":"raise"}}"#,
            r#"{"type":"action","id":3,"action":{"type":"discard","cards":[]}}"#,
            r#"{"type":"action","id":3,"action":{"type":"discard","cards":["7c","Kd"]}}"#,
            r#"{"type":"action","id":3,"action":{"type":"discard","cards":["7c","7c"]}}"#,
            r#"{"type":"action","id":3,"action":{"type":"discard","cards":["7x"]}}"#,
            r#"{"type":"action","id":3,"action":{"type":"discard","cards":["kd"]}}"#,
            r#"{"type":"action","id":3,"action":{"type":"discard","cards":["7c",]}}"#,
            r#"{"type":"action","id":3,"action":{"type":"discard","cards":"7c Kd"}}"#,
            r#"{"type":"action","id":01,"action":{"type":"call"}}"#,
            r#"{"type":"action","id":1,"action":{"type":"call"}} "#,
            r#"{"type":"action","id":1,"action":{"type":"call"},"x":1}"#,
            r#"{"type":"action","id":1,"action":{"type":"call","x":1}}"#,
            r#"{"type":"action","id":1,"action":{"type":"call"}}}"#,
            r#"{"type":"action","id":1,"action":{"type":"allin"}}"#,
            r#"{"type":"action", "id":1,"action":{"type":"call"}}"#,
            r#"{"id":1,"type":"action","action":{"type":"call"}}"#,
            r#"{"type":"hello","id":1,"protocol":1,"name":"x"}"#,
            r#"{"type":"action","id":1"#,
            "",
        ];
        let mut fast = 0;
        for l in lines {
            let by_serde = serde_json::from_slice::<FromBot>(l.as_bytes());
            let ours = parse_reply(l.as_bytes());
            assert_eq!(ours.as_ref().ok(), by_serde.as_ref().ok(), "{l}");
            if let Some(r) = fast_reply(l.as_bytes()) {
                fast += 1;
                assert_eq!(Ok(FromBot::Action(r)), by_serde.map_err(|_| ()), "{l}");
            }
        }
        // The hand-read path is taken for the plain forms (not only the fallback).
        assert!(fast >= 9, "{fast}");
    }

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
