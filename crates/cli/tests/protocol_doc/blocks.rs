//! protocol.md's sessions as the test reads them: the fenced blocks with their comments, the
//! document's JSON with its explicit elisions, and the field-by-field comparison.

use serde_json::Value;

/// The stand-ins of `{...}` and `[...]` once a document line is parsed.
pub const ANY_OBJECT: &str = "⟨any object⟩";
pub const ANY_ARRAY: &str = "⟨any array⟩";

/// One documented session: where it is, how to reproduce it, its lines.
pub struct Block {
    /// protocol.md's line numbers (1-based) of the comment and of the block's first line.
    pub marker_line: usize,
    pub first_line: usize,
    /// Index in the file's lines of the block's first and one-past-last content line.
    pub range: (usize, usize),
    pub game: String,
    pub seed: u64,
    pub opponent: String,
    pub hands: u64,
    pub lines: Vec<String>,
}

impl Block {
    pub fn trimmed(&self) -> bool {
        self.lines.last().is_some_and(|l| l.trim() == "...")
    }
    pub fn shown(&self, dir: char) -> Vec<&str> {
        self.lines
            .iter()
            .filter_map(|l| l.strip_prefix(dir))
            .map(str::trim)
            .collect()
    }
}

fn is_session_line(l: &str) -> bool {
    l.starts_with("> {") || l.starts_with("< {")
}

/// Every fenced block holding a session, with its comment; a session without one fails.
pub fn blocks(doc: &str) -> Vec<Block> {
    let lines: Vec<&str> = doc.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !lines[i].starts_with("```") {
            i += 1;
            continue;
        }
        let start = i + 1;
        let end = start
            + lines[start..]
                .iter()
                .position(|l| l.starts_with("```"))
                .unwrap();
        let body = &lines[start..end];
        if body.iter().any(|l| is_session_line(l)) {
            let marker = (0..i)
                .rev()
                .find(|&k| !lines[k].trim().is_empty())
                .map(|k| (k, lines[k].trim()))
                .filter(|(_, l)| l.starts_with("<!-- transcript:") && l.ends_with("-->"));
            let Some((k, marker)) = marker else {
                panic!(
                    "protocol.md line {}: a session without a `<!-- transcript: game=... seed=... \
                     opponent=... hands=... -->` comment right above it cannot be checked",
                    start + 1
                );
            };
            let mut b = Block {
                marker_line: k + 1,
                first_line: start + 1,
                range: (start, end),
                game: String::new(),
                seed: 0,
                opponent: String::new(),
                hands: 1,
                lines: body.iter().map(|s| s.to_string()).collect(),
            };
            let fields = marker["<!-- transcript:".len()..marker.len() - 3].split_whitespace();
            for kv in fields {
                let (key, value) = kv.split_once('=').unwrap_or_else(|| {
                    panic!("protocol.md line {}: `{kv}` is not key=value", k + 1)
                });
                match key {
                    "game" => b.game = value.to_string(),
                    "seed" => b.seed = value.parse().unwrap(),
                    "opponent" => b.opponent = value.to_string(),
                    "hands" => b.hands = value.parse().unwrap(),
                    _ => panic!("protocol.md line {}: unknown key `{key}`", k + 1),
                }
            }
            assert!(
                !b.game.is_empty() && !b.opponent.is_empty() && b.seed > 0,
                "protocol.md line {}: game, seed and opponent are required",
                k + 1
            );
            for (n, l) in b.lines.iter().enumerate() {
                let last = n + 1 == b.lines.len();
                assert!(
                    is_session_line(l) || (last && l.trim() == "..."),
                    "protocol.md line {}: a session line starts with `> {{` or `< {{` (only the \
                     last may be `...`): {l}",
                    start + n + 1
                );
            }
            out.push(b);
        }
        i = end + 1;
    }
    out
}

/// A document line as JSON, its elisions as stand-ins.
pub fn parse_doc(line: &str) -> serde_json::Result<Value> {
    let text = line
        .replace("{...}", &format!("\"{ANY_OBJECT}\""))
        .replace("[...]", &format!("\"{ANY_ARRAY}\""));
    serde_json::from_str(&text)
}

pub fn doc_json(line: &str, where_: usize) -> Value {
    parse_doc(line).unwrap_or_else(|e| panic!("protocol.md line {where_}: not JSON ({e}): {line}"))
}

/// The first difference between a document value and the referee's, as `path: doc vs real`.
pub fn differs(doc: &Value, real: &Value, path: &str) -> Option<String> {
    match (doc, real) {
        (Value::String(s), Value::Object(_)) if s == ANY_OBJECT => None,
        (Value::String(s), Value::Array(_)) if s == ANY_ARRAY => None,
        (Value::Object(d), Value::Object(r)) => {
            if let Some(k) = r.keys().find(|k| !d.contains_key(*k)) {
                return Some(format!("{path}.{k}: missing, the referee sends {}", r[k]));
            }
            for (k, dv) in d {
                match r.get(k) {
                    None => return Some(format!("{path}.{k}: the referee sends no such field")),
                    Some(rv) => {
                        if let Some(d) = differs(dv, rv, &format!("{path}.{k}")) {
                            return Some(d);
                        }
                    }
                }
            }
            None
        }
        (Value::Array(d), Value::Array(r)) => {
            if d.len() != r.len() {
                return Some(format!(
                    "{path}: {} element(s), the referee sends {}",
                    d.len(),
                    r.len()
                ));
            }
            d.iter()
                .zip(r)
                .enumerate()
                .find_map(|(i, (dv, rv))| differs(dv, rv, &format!("{path}[{i}]")))
        }
        _ if doc == real => None,
        _ => Some(format!(
            "{path}: the document says {doc}, the referee sends {real}"
        )),
    }
}
