//! The action tape as an [`crate::Outcome`] carries it.
//!
//! A worker leaves it raw when the match ends ([`TapeField::Raw`]) and encodes it once, when the
//! result is sent — by then the worker's slot has taken its next match. On the queue (job format
//! 4) it travels as bytes after the result's JSON when the message then fits
//! ([`TapeField::wire`]; the server puts it back as [`TapeField::Sent`]), raw unless `pitboss
//! worker --compress-tape`; a result too large for a message goes to the object store as JSON,
//! its tape zstd-compressed in base64 ([`TapeField::seal`]). The server tells raw from compressed
//! by the raw tape's magic (`pitboss_arena::tape::open`). Why raw: compressing a 20,000-hand tape
//! at zstd's fastest useful level took 1.5% of the match's play with the fastest in-process bots,
//! and a worker's CPU is the queue's cost; why beside the JSON: base64 made it a third larger, to
//! encode, decode, and carry and store through NATS.

use base64::Engine;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An outcome's tape: none, raw (a worker's, until sent) or as the wire carries it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum TapeField {
    #[default]
    Empty,
    /// The decompressed tape (`pitboss_arena::tape`), until sent ([`TapeField::seal`]).
    Raw(Vec<u8>),
    /// The tape in base64 (raw or compressed), as sent or received (checked only when read).
    Encoded(String),
    /// The tape's bytes as sent (raw or compressed), received beside the result's JSON rather
    /// than in it (job format 4: `pitboss_queue::envelope::frame`).
    Sent(Vec<u8>),
}

impl TapeField {
    pub fn is_empty(&self) -> bool {
        match self {
            TapeField::Empty => true,
            TapeField::Raw(_) => false,
            TapeField::Encoded(s) => s.is_empty(),
            TapeField::Sent(b) => b.is_empty(),
        }
    }

    pub fn clear(&mut self) {
        *self = TapeField::Empty;
    }

    /// Encodes a raw tape now, raw if its base64 takes at most `raw_up_to` bytes and compressed
    /// if not, so that serializing it again (the result's message, then, if it is too large
    /// for one, its body alone) does not encode it again.
    pub fn seal(&mut self, raw_up_to: usize) {
        if let TapeField::Raw(raw) = self {
            let b64 = base64::engine::general_purpose::STANDARD;
            *self = TapeField::Encoded(if raw.len().div_ceil(3) * 4 <= raw_up_to {
                b64.encode(&raw)
            } else {
                b64.encode(pitboss_arena::tape::compress(raw))
            });
        }
    }

    /// The bytes a worker sends beside its result for a raw tape (job format 4), compressed if
    /// `compress`; `None` when the tape is not raw.
    pub fn wire(&self, compress: bool) -> Option<std::borrow::Cow<'_, [u8]>> {
        match self {
            TapeField::Raw(raw) if compress => {
                Some(std::borrow::Cow::Owned(pitboss_arena::tape::compress(raw)))
            }
            TapeField::Raw(raw) => Some(std::borrow::Cow::Borrowed(raw)),
            _ => None,
        }
    }

    /// The tape's bytes as the wire carries them (`pitboss_arena::tape::open` reads them):
    /// compressed now if raw and not sealed.
    ///
    /// # Errors
    /// When the field is not base64.
    pub fn bytes(&self) -> Result<Vec<u8>, String> {
        match self {
            TapeField::Empty => Ok(Vec::new()),
            TapeField::Raw(raw) => Ok(pitboss_arena::tape::compress(raw)),
            TapeField::Encoded(s) => base64::engine::general_purpose::STANDARD
                .decode(s)
                .map_err(|e| format!("the tape is not base64: {e}")),
            TapeField::Sent(b) => Ok(b.clone()),
        }
    }

    /// What the wire carries (a raw tape not sealed: compressed).
    pub fn encoded(&self) -> String {
        match self {
            TapeField::Empty => String::new(),
            TapeField::Raw(raw) => {
                base64::engine::general_purpose::STANDARD.encode(pitboss_arena::tape::compress(raw))
            }
            TapeField::Encoded(s) => s.clone(),
            TapeField::Sent(b) => base64::engine::general_purpose::STANDARD.encode(b),
        }
    }
}

impl From<&str> for TapeField {
    fn from(s: &str) -> TapeField {
        TapeField::from(s.to_string())
    }
}

impl From<String> for TapeField {
    fn from(s: String) -> TapeField {
        if s.is_empty() {
            TapeField::Empty
        } else {
            TapeField::Encoded(s)
        }
    }
}

impl Serialize for TapeField {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            TapeField::Encoded(e) => s.serialize_str(e),
            other => s.serialize_str(&other.encoded()),
        }
    }
}

impl<'de> Deserialize<'de> for TapeField {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TapeField, D::Error> {
        String::deserialize(d).map(TapeField::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_raw_tape_travels_compressed_and_reads_back_the_same() {
        let raw = pitboss_arena::tape::finish(2, false, 0, &[]);
        let f = TapeField::Raw(raw.clone());
        let text = serde_json::to_string(&f).unwrap();
        let back: TapeField = serde_json::from_str(&text).unwrap();
        assert!(matches!(back, TapeField::Encoded(_)));
        let z = back.bytes().unwrap();
        assert_eq!(pitboss_arena::tape::decompress(&z, 1 << 20).unwrap(), raw);
        assert_eq!(f.bytes().unwrap(), z);
        assert!(TapeField::from("").is_empty() && !f.is_empty());
        assert_eq!(serde_json::to_string(&TapeField::Empty).unwrap(), "\"\"");
    }

    /// Sealed, a tape goes raw if its base64 fits the room given, compressed if not; either
    /// opens to the same tape, and a sealed field serializes as it is (not encoded again).
    #[test]
    fn a_sealed_tape_is_raw_when_it_fits_and_compressed_when_not() {
        let mut body = Vec::new();
        for _ in 0..100 {
            pitboss_arena::tape::encode_hand(
                &mut body,
                &[],
                &[
                    (pitboss_rules::Seat(0), -100),
                    (pitboss_rules::Seat(1), 100),
                ],
                None,
            );
        }
        let raw = pitboss_arena::tape::finish(2, false, 100, &body);
        let fits = raw.len().div_ceil(3) * 4;
        for (room, is_raw) in [(fits, true), (fits - 1, false)] {
            let mut f = TapeField::Raw(raw.clone());
            f.seal(room);
            let wire = f.bytes().unwrap();
            assert_eq!(
                wire.starts_with(pitboss_arena::tape::MAGIC),
                is_raw,
                "room {room}"
            );
            let opened = pitboss_arena::tape::open(&wire, 1 << 20).unwrap();
            assert_eq!(opened.as_ref(), &raw[..]);
            let text = serde_json::to_string(&f).unwrap();
            let back: TapeField = serde_json::from_str(&text).unwrap();
            assert_eq!(back, f);
        }
    }
}
