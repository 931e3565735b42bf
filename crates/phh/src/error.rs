//! The errors of reading PHH: each names the file, the hand and, where there is one, the action.

/// Where in a file something is: the file, and the hand's table name in a `.phhs` file.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Location {
    pub file: String,
    /// The `.phhs` table name (`1`, `2`, ...); `None` for a `.phh` file.
    pub hand: Option<String>,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.hand {
            Some(h) => write!(f, "{} hand [{h}]", self.file),
            None => f.write_str(&self.file),
        }
    }
}

/// A PHH file or hand that cannot be read or does not describe a Pitboss game.
#[derive(Debug, thiserror::Error)]
pub enum PhhError {
    #[error("{file}: cannot read: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}: not valid TOML: {source}")]
    Toml {
        file: String,
        #[source]
        source: Box<toml::de::Error>,
    },
    #[error("{file}: no hand found (a .phh file has `variant` and `actions`; a .phhs file has one table per hand)")]
    NoHands { file: String },
    #[error("{at}: field `{field}`: {why}")]
    Field {
        at: Location,
        field: String,
        why: String,
    },
    #[error(
        "{at}: unknown variant `{code}` (Pitboss reads F2L3D, P2L3D, N2L3D, F7S/8, P7S/8, N7S/8)"
    )]
    UnknownVariant { at: Location, code: String },
    #[error("{at}: action {index} `{text}`: {why}")]
    Action {
        at: Location,
        /// 1-based index in the `actions` array.
        index: usize,
        text: String,
        why: String,
    },
}
