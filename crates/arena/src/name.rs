//! Bot names are data. A name comes from a bot's author (a manifest's `name`, the file name of an
//! `exec:` program) and ends up in terminals, CSV files opened in spreadsheets, Markdown, HTML,
//! PHH histories and file names, so it is held to one documented set when it is read, and escaped
//! again where it is written (defence in depth: a valid name passes every escape unchanged).
//!
//! **The set** (protocol.md §1, docs/REFERENCE.md): 1 to [`MAX_LEN`] characters, each an ASCII
//! letter, digit, `_`, `.`, `+` or `-`, the first a letter, digit or `_`. So a name is a file name
//! of its own (no slash, no `..`, not hidden, short enough with any prefix), a shell word, a CSV
//! cell that is never a formula (no leading `= + - @`), and text that means nothing to a terminal,
//! Markdown or HTML. Manifest names (and tournament, registry names) outside it are refused with an
//! error naming the field; names derived from a program's file name are [`sanitize`]d into it.

use std::borrow::Cow;

/// The longest name, in characters (= bytes: the set is ASCII).
pub const MAX_LEN: usize = 64;

/// The set in words, for error messages and help.
pub const RULE: &str = "1 to 64 characters: ASCII letters, digits, `_`, `.`, `+`, `-`, \
                        starting with a letter, digit or `_`";

fn allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '+' | '-')
}

fn allowed_first(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Whether `s` is a valid bot name (see the module docs).
pub fn valid(s: &str) -> bool {
    s.len() <= MAX_LEN && s.chars().next().is_some_and(allowed_first) && s.chars().all(allowed)
}

/// Why `s` is not a valid name (`None` when it is), naming the name in a form safe to print.
pub fn problem(s: &str) -> Option<String> {
    if valid(s) {
        return None;
    }
    let what = if s.is_empty() {
        "is empty".to_string()
    } else if s.chars().count() > 80 {
        // `quoted` says the length.
        format!("is longer than {MAX_LEN} characters")
    } else if s.chars().count() > MAX_LEN {
        format!("has {} characters", s.chars().count())
    } else if let Some(c) = s.chars().find(|&c| !allowed(c)) {
        format!("contains {}", quoted(&c.to_string()))
    } else {
        "does not start with a letter, digit or `_`".to_string()
    };
    Some(format!("{} {what}; a name has {RULE}", quoted(s)))
}

/// A name in the set made from any text (the file name of an `exec:` program): every other
/// character becomes `_`, the first too if it may not start a name, cut to [`MAX_LEN`]; `bot`
/// when nothing is left. Valid names are unchanged.
pub fn sanitize(s: &str) -> String {
    let mut out: String = s
        .chars()
        .take(MAX_LEN)
        .map(|c| if allowed(c) { c } else { '_' })
        .collect();
    if let Some(first) = out.chars().next() {
        if !allowed_first(first) {
            out.replace_range(..first.len_utf8(), "_");
        }
    } else {
        out.push_str("bot");
    }
    out
}

/// `base-k`, with `base` cut so that the whole stays within [`MAX_LEN`] (names made unique).
pub fn numbered(base: &str, k: usize) -> String {
    let suffix = format!("-{k}");
    let keep = MAX_LEN.saturating_sub(suffix.len());
    let cut: String = base.chars().take(keep).collect();
    format!("{cut}{suffix}")
}

/// Text for error messages: double-quoted with control characters escaped (Rust's `{:?}`), cut
/// after 80 characters with the length said.
pub fn quoted(s: &str) -> String {
    const SHOW: usize = 80;
    let n = s.chars().count();
    if n <= SHOW {
        return format!("{s:?}");
    }
    let head: String = s.chars().take(SHOW).collect();
    format!("{head:?}… ({n} characters)")
}

/// Characters a terminal may act on: C0 and C1 controls, DEL, and the bidirectional formatting
/// characters that reorder what is shown.
fn unsafe_for_terminal(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Text for a terminal: every character a terminal may act on (escape sequences, carriage
/// returns, bells, bidirectional overrides) is written as `\u{..}`, except newlines and tabs.
pub fn terminal(s: &str) -> Cow<'_, str> {
    if !s
        .chars()
        .any(|c| unsafe_for_terminal(c) && c != '\n' && c != '\t')
    {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if unsafe_for_terminal(c) && c != '\n' && c != '\t' {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// One line of text for a terminal or a log: like [`terminal`], newlines and tabs escaped too.
pub fn one_line(s: &str) -> Cow<'_, str> {
    if !s.chars().any(unsafe_for_terminal) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if unsafe_for_terminal(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A CSV cell that a spreadsheet will not take for a formula (the OWASP rule): a cell starting
/// with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`; control characters
/// are written as `\u{..}` ([`one_line`]: files get `cat` to terminals too). For text cells only
/// (names): a negative number would be changed too. The CSV writer quotes what needs quoting.
pub fn csv_cell(s: &str) -> Cow<'_, str> {
    let s = one_line(s);
    if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        Cow::Owned(format!("'{s}"))
    } else {
        s
    }
}

/// A text field of a CSV file written by hand (`hands.csv`): [`csv_cell`], then quoted as RFC
/// 4180 says when it holds a comma or a quote.
pub fn csv_field(s: &str) -> Cow<'_, str> {
    let cell = csv_cell(s);
    if !cell.contains([',', '"', '\n', '\r']) {
        return cell;
    }
    Cow::Owned(format!("\"{}\"", cell.replace('"', "\"\"")))
}

/// Text for a Markdown table cell or heading: Markdown's punctuation outside the name set is
/// backslash-escaped (`|` would split the cell, backticks, brackets and `<` would make code, links
/// and HTML), control characters and line breaks are written as `\u{..}`.
pub fn markdown(s: &str) -> Cow<'_, str> {
    const SPECIAL: &[char] = &['\\', '`', '*', '[', ']', '<', '>', '|', '~', '&'];
    let safe = one_line(s);
    if !safe.contains(SPECIAL) {
        return safe;
    }
    let mut out = String::with_capacity(safe.len() + 8);
    for c in safe.chars() {
        if SPECIAL.contains(&c) {
            out.push('\\');
        }
        out.push(c);
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_set() {
        for ok in [
            "x",
            "python-simple",
            "a.b+c_d-1",
            "_x",
            "9lives",
            &"a".repeat(64),
        ] {
            assert!(valid(ok), "{ok}");
            assert_eq!(problem(ok), None);
            assert_eq!(sanitize(ok), ok);
            assert_eq!(terminal(ok), ok);
            assert_eq!(csv_field(ok), ok);
            assert_eq!(markdown(ok), ok);
        }
        for bad in [
            "",
            "-x",
            "+x",
            ".x",
            "=cmd|' /C calc'!A0",
            "@SUM(1)",
            "a b",
            "a/b",
            "a\nb",
            "\u{1b}[2J",
            "é",
            &"a".repeat(65),
        ] {
            assert!(!valid(bad), "{bad:?}");
            let p = problem(bad).unwrap();
            assert!(!p.contains('\u{1b}') && !p.contains('\n'), "{p}");
            let s = sanitize(bad);
            assert!(valid(&s), "{bad:?} -> {s:?}");
        }
        assert_eq!(sanitize("=cmd|' /C calc'!A0"), "_cmd____C_calc__A0");
        assert_eq!(sanitize(""), "bot");
        assert_eq!(sanitize(&"x".repeat(300)).len(), MAX_LEN);
        assert!(problem(&"x".repeat(300))
            .unwrap()
            .contains("(300 characters) is longer"));
        assert!(problem(&"x".repeat(70))
            .unwrap()
            .contains("has 70 characters"));
        assert_eq!(numbered("x", 2), "x-2");
        assert_eq!(numbered(&"y".repeat(64), 12).len(), MAX_LEN);
    }

    #[test]
    fn escapes() {
        assert_eq!(terminal("a\u{1b}]0;t\u{7}b\nc"), "a\\u{1b}]0;t\\u{7}b\nc");
        assert_eq!(one_line("a\nb\u{202e}"), "a\\u{a}b\\u{202e}");
        for (cell, want) in [
            ("=1+1", "'=1+1"),
            ("+1", "'+1"),
            ("-1", "'-1"),
            ("@x", "'@x"),
            ("\tx", "\\u{9}x"),
            ("-\u{1b}x", "'-\\u{1b}x"),
            ("x=1", "x=1"),
        ] {
            assert_eq!(csv_cell(cell), want);
        }
        assert_eq!(csv_field("=a,\"b\""), "\"'=a,\"\"b\"\"\"");
        assert_eq!(markdown("a|b`c"), "a\\|b\\`c");
        assert_eq!(markdown("x\ny"), "x\\\\u{a}y");
    }
}
