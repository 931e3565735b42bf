//! The action tape as an [`crate::Outcome`] carries it.
//!
//! On the wire it is the zstd-compressed tape in base64 (job format 1). A worker leaves it raw
//! when the match ends and it is compressed only when the result is serialized — by then the
//! worker's slot has taken its next match, so compressing (a few milliseconds for a 20,000-hand
//! match) is no longer between one match and the next.

use base64::Engine;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An outcome's tape: none, raw (a worker's, until sent) or as the wire carries it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum TapeField {
    #[default]
    Empty,
    /// The decompressed tape (`pitboss_arena::tape`), compressed when serialized.
    Raw(Vec<u8>),
    /// The compressed tape in base64, as received (checked only when read).
    Encoded(String),
}

impl TapeField {
    pub fn is_empty(&self) -> bool {
        match self {
            TapeField::Empty => true,
            TapeField::Raw(_) => false,
            TapeField::Encoded(s) => s.is_empty(),
        }
    }

    pub fn clear(&mut self) {
        *self = TapeField::Empty;
    }

    /// The compressed tape (compressed now if raw).
    ///
    /// # Errors
    /// When the field is not base64.
    pub fn zst(&self) -> Result<Vec<u8>, String> {
        match self {
            TapeField::Empty => Ok(Vec::new()),
            TapeField::Raw(raw) => Ok(pitboss_arena::tape::compress(raw)),
            TapeField::Encoded(s) => base64::engine::general_purpose::STANDARD
                .decode(s)
                .map_err(|e| format!("the tape is not base64: {e}")),
        }
    }

    /// What the wire carries.
    pub fn encoded(&self) -> String {
        match self {
            TapeField::Empty => String::new(),
            TapeField::Raw(raw) => {
                base64::engine::general_purpose::STANDARD.encode(pitboss_arena::tape::compress(raw))
            }
            TapeField::Encoded(s) => s.clone(),
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
        let z = back.zst().unwrap();
        assert_eq!(pitboss_arena::tape::decompress(&z, 1 << 20).unwrap(), raw);
        assert_eq!(f.zst().unwrap(), z);
        assert!(TapeField::from("").is_empty() && !f.is_empty());
        assert_eq!(serde_json::to_string(&TapeField::Empty).unwrap(), "\"\"");
    }
}
