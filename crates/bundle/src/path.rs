//! The path rules of a bundle's entries, shared by `unpack` (on what the archive says) and `pack`
//! (so that what is packed unpacks).

use crate::{BundleError, Limits};

/// An entry's name as text for messages: invalid UTF-8 replaced (the messages show it with
/// `{:?}`, which escapes the rest).
pub(crate) fn display(raw: &[u8]) -> String {
    String::from_utf8_lossy(raw).into_owned()
}

/// Checks an entry's raw path and returns it normalized (`/`-joined components, no `.` or empty
/// ones), or `None` for the bundle's root itself (`.`, `./`).
///
/// Refusals are checked on the raw bytes first, so that `..` hidden behind a NUL or a
/// backslash is named for what it is.
pub(crate) fn normalize(raw: &[u8], limits: &Limits) -> Result<Option<String>, BundleError> {
    let entry = || display(raw);
    let bad = |reason| BundleError::BadPath {
        entry: entry(),
        reason,
    };
    if raw.is_empty() {
        return Err(bad("an empty path"));
    }
    if raw.contains(&0) {
        return Err(bad("a NUL byte in a path"));
    }
    let text = std::str::from_utf8(raw).map_err(|_| BundleError::NotUtf8 { entry: entry() })?;
    if text.contains('\\') {
        // `..\x` is `../x` to an unzipper on Windows, and to anyone who "fixes" separators.
        return Err(bad(
            "a backslash in a path (Windows separators are refused)",
        ));
    }
    if text.chars().any(char::is_control) {
        return Err(bad("a control character in a path"));
    }
    if text.starts_with('/') {
        return Err(BundleError::Absolute { entry: entry() });
    }
    let mut parts = Vec::new();
    for part in text.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(BundleError::Escape { entry: entry() }),
            _ => parts.push(part),
        }
    }
    if parts.is_empty() {
        return Ok(None);
    }
    if parts.len() > limits.max_depth {
        return Err(BundleError::TooDeep {
            entry: entry(),
            depth: parts.len(),
            max: limits.max_depth,
        });
    }
    let path = parts.join("/");
    if path.len() > limits.max_path_bytes {
        return Err(BundleError::PathTooLong {
            entry: entry(),
            len: path.len(),
            max: limits.max_path_bytes,
        });
    }
    Ok(Some(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(raw: &str) -> Result<Option<String>, String> {
        normalize(raw.as_bytes(), &Limits::default()).map_err(|e| e.to_string())
    }

    #[test]
    fn dots_and_slashes_are_dropped() {
        assert_eq!(norm("./bot.toml").unwrap().as_deref(), Some("bot.toml"));
        assert_eq!(norm("a//b/./c/").unwrap().as_deref(), Some("a/b/c"));
        assert_eq!(norm("./").unwrap(), None);
        assert_eq!(norm("...").unwrap().as_deref(), Some("..."));
    }

    #[test]
    fn escapes_are_refused_with_the_entry_named() {
        assert_eq!(
            norm("../x").unwrap_err(),
            "entry \"../x\": a path leaving the bundle"
        );
        assert!(norm("a/../../x").unwrap_err().contains("leaving"));
        assert!(norm("/etc/passwd").unwrap_err().contains("absolute"));
        assert!(norm("..\\x").unwrap_err().contains("backslash"));
        assert!(norm("a\nb").unwrap_err().contains("control"));
        assert!(norm("").unwrap_err().contains("empty"));
    }

    #[test]
    fn length_and_depth_are_bounded() {
        let limits = Limits {
            max_path_bytes: 10,
            max_depth: 3,
            ..Limits::default()
        };
        assert!(normalize(b"./abcdefghij", &limits).is_ok());
        assert!(normalize(b"abcdefghijk", &limits).is_err());
        assert!(normalize(b"a/b/c", &limits).is_ok());
        assert!(normalize(b"a/b/c/d", &limits).is_err());
    }
}
