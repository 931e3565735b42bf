//! protocol.md's example sessions are what the referee really sends (issue #27: the transcripts
//! of §10 predated `"minor":2` and the fields `match_start` gained since).
//!
//! Every fenced block of protocol.md that holds a session (lines `> {...}` referee to bot,
//! `< {...}` bot to referee) must follow a comment naming the deal that reproduces it:
//!
//! ```text
//! <!-- transcript: game=27td-fl seed=2 opponent=lowball hands=1 -->
//! ```
//!
//! The test plays that match with `pitboss match --transcript` (one thread, no jail, the deck salt
//! of 64 zero digits, the scripted bot in seat 0 and the built-in `opponent` in seat 1), the
//! scripted bot (`protocol_doc/replay_bot.py`) answering exactly the block's `<` lines, and
//! compares every `>` line of the block with the referee's line at the same place, field by
//! field (JSON equality). Elisions are explicit: `{...}` / `[...]` as a value stand for any object
//! / array, and a last line `...` says the session goes on (only the lines shown are compared;
//! without it the block must be the whole session). The bare messages of §3 and §4 (```json
//! blocks of a referee message) must have the fields, nested ones included, of the real message
//! of that type.
//!
//! `PITBOSS_BLESS=1 cargo test --release -p pitboss-cli --test protocol_doc` rewrites the blocks
//! with what the referee sends (a line that still matches is kept as written, elisions and all;
//! the bot's lines stay the document's). Read the diff: the prose around a block may need to
//! follow.

#[path = "protocol_doc/blocks.rs"]
mod blocks;

use blocks::{blocks, differs, doc_json, parse_doc, Block};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

/// The deck salt of every documented session: the test must reproduce the deal.
const SALT: &str = "0000000000000000000000000000000000000000000000000000000000000000";

fn protocol_md() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../protocol.md")
}

#[path = "common/tmp.rs"]
mod tmp;
use tmp::Tmp;

/// Plays a block's match; the transcript's lines as (direction, JSON text).
fn play(b: &Block, tmp: &Tmp) -> Vec<(char, String)> {
    let script = tmp.0.join("script.txt");
    std::fs::write(&script, b.lines.join("\n") + "\n").unwrap();
    let bot = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/protocol_doc/replay_bot.py");
    let out = tmp.0.join("out");
    let toml = format!(
        "game = \"{}\"\nbots = [{:?}, \"{}\"]\nhands = {}\nseed = {}\nsalt = \"{SALT}\"\n\
         threads = 1\ntranscript = true\nsandbox = false\nout = {:?}\n",
        b.game,
        format!("exec:python3 {} {}", bot.display(), script.display()),
        b.opponent,
        b.hands,
        b.seed,
        out.display().to_string(),
    );
    let file = tmp.0.join("match.toml");
    std::fs::write(&file, toml).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .arg("match")
        .arg(&file)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success(),
        "protocol.md line {}: {err}",
        b.marker_line
    );
    let dir = out.join("transcripts");
    let files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "one process, one transcript: {files:?}");
    std::fs::read_to_string(&files[0])
        .unwrap()
        .lines()
        .filter_map(|l| {
            let (_, rest) = l.split_once(' ')?;
            let (dir, json) = rest.split_once(' ')?;
            let dir = dir.chars().next()?;
            (dir == '>' || dir == '<').then(|| (dir, json.to_string()))
        })
        .collect()
}

/// The block's differences with the real session (empty when it matches).
fn compare(b: &Block, real: &[(char, String)]) -> Vec<String> {
    let mut problems = Vec::new();
    let real_of = |dir: char| -> Vec<&str> {
        real.iter()
            .filter(|(d, _)| *d == dir)
            .map(|(_, j)| j.as_str())
            .collect()
    };
    let (shown, sent) = (b.shown('>'), real_of('>'));
    if shown.len() > sent.len() || (!b.trimmed() && shown.len() != sent.len()) {
        problems.push(format!(
            "the block shows {} referee line(s), the referee sends {}{}",
            shown.len(),
            sent.len(),
            if b.trimmed() {
                ""
            } else {
                " (end the block with `...` to show a part)"
            }
        ));
    }
    // Line numbers of the block's `>` lines.
    let numbers: Vec<usize> = b
        .lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.starts_with('>'))
        .map(|(n, _)| b.first_line + n)
        .collect();
    for ((doc, real), at) in shown.iter().zip(&sent).zip(&numbers) {
        let real: Value = serde_json::from_str(real).unwrap();
        if let Some(d) = differs(&doc_json(doc, *at), &real, "") {
            problems.push(format!("line {at}: {d}"));
        }
    }
    // The bot's lines reached the referee as written.
    let (answers, got) = (b.shown('<'), real_of('<'));
    for (i, doc) in answers.iter().enumerate() {
        let ok = got.get(i).is_some_and(|g| {
            serde_json::from_str::<Value>(g).ok() == serde_json::from_str::<Value>(doc).ok()
        });
        if !ok {
            problems.push(format!("bot line {} not received as written: {doc}", i + 1));
        }
    }
    problems
}

/// The block rewritten from the real session: its lines in the order exchanged, a line that
/// still matches kept as written, as many referee and bot lines as the block had when trimmed.
fn blessed(b: &Block, real: &[(char, String)]) -> Vec<String> {
    let (want_ref, want_bot) = (b.shown('>').len(), b.shown('<').len());
    let (mut refs, mut bots) = (0, 0);
    let mut out = Vec::new();
    let old_ref = b.shown('>');
    for (dir, json) in real {
        if b.trimmed() && refs >= want_ref && bots >= want_bot {
            break;
        }
        if *dir == '>' {
            let keep = old_ref.get(refs).filter(|doc| {
                let real: Value = serde_json::from_str(json).unwrap();
                parse_doc(doc).is_ok_and(|d| differs(&d, &real, "").is_none())
            });
            out.push(format!("> {}", keep.map_or(json.as_str(), |d| d)));
            refs += 1;
        } else {
            out.push(format!(
                "< {}",
                b.shown('<').get(bots).copied().unwrap_or(json)
            ));
            bots += 1;
        }
    }
    if b.trimmed() {
        out.push("...".to_string());
    }
    out
}

/// The fields of a message, nested objects' as `a.b` (array elements are not looked into).
fn shape(v: &Value, path: &str, out: &mut Vec<String>) {
    if let Value::Object(m) = v {
        for (k, v) in m {
            let p = format!("{path}{k}");
            out.push(p.clone());
            shape(v, &format!("{p}."), out);
        }
    }
    out.sort();
}

/// The single messages of §3 and §4 (```json blocks) have the real messages' fields.
fn check_bare_messages(doc: &str, real: &[(char, String)]) -> Vec<String> {
    let lines: Vec<&str> = doc.lines().collect();
    let mut problems = Vec::new();
    for (n, l) in lines.iter().enumerate() {
        if *l != "```json" {
            continue;
        }
        let Ok(msg) = serde_json::from_str::<Value>(lines[n + 1]) else {
            continue;
        };
        let Some(kind) = msg["type"].as_str() else {
            continue;
        };
        if kind == "hello" && msg.get("referee").is_none() || kind == "action" {
            continue; // the bot's
        }
        let Some(like) = real
            .iter()
            .filter(|(d, _)| *d == '>')
            .map(|(_, j)| serde_json::from_str::<Value>(j).unwrap())
            .find(|m| m["type"] == kind && m.get("table").is_none())
        else {
            problems.push(format!("line {}: no real `{kind}` to compare with", n + 2));
            continue;
        };
        let (mut want, mut has) = (Vec::new(), Vec::new());
        shape(&like, "", &mut want);
        shape(&msg, "", &mut has);
        if want != has {
            problems.push(format!(
                "line {}: `{kind}` has the fields {has:?}, the referee sends {want:?}",
                n + 2
            ));
        }
    }
    problems
}

#[test]
fn protocol_md_sessions_are_what_the_referee_sends() {
    let path = protocol_md();
    let doc = std::fs::read_to_string(&path).unwrap();
    let blocks = blocks(&doc);
    assert!(
        blocks.len() >= 4,
        "§10 (two), §13 and §14 hold sessions: {}",
        blocks.len()
    );
    let bless = std::env::var_os("PITBOSS_BLESS").is_some_and(|v| v == "1");
    let mut problems = Vec::new();
    let mut all_real = Vec::new();
    let mut lines: Vec<String> = doc.lines().map(str::to_string).collect();
    // Bottom up, so that a rewritten block does not move the ones above.
    for (i, b) in blocks.iter().enumerate().rev() {
        let tmp = Tmp::new(&i.to_string());
        let real = play(b, &tmp);
        if bless {
            lines.splice(b.range.0..b.range.1, blessed(b, &real));
        } else {
            for p in compare(b, &real) {
                problems.push(format!(
                    "protocol.md, the session of line {} ({} seed {}): {p}",
                    b.marker_line, b.game, b.seed
                ));
            }
        }
        all_real.extend(real);
    }
    if bless {
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        eprintln!(
            "PITBOSS_BLESS=1: rewrote {} session(s) in {}",
            blocks.len(),
            path.display()
        );
    }
    problems.extend(
        check_bare_messages(&doc, &all_real)
            .into_iter()
            .map(|p| format!("protocol.md {p}")),
    );
    assert!(
        problems.is_empty(),
        "protocol.md differs from the referee (PITBOSS_BLESS=1 rewrites the sessions; see this \
         test's doc comment):\n{}",
        problems.join("\n")
    );
}

/// The comparison can fail: a session with one field changed is caught, naming the field.
#[test]
fn a_changed_field_is_caught_and_named() {
    let doc = std::fs::read_to_string(protocol_md()).unwrap();
    let b = blocks(&doc).into_iter().next().unwrap();
    let tmp = Tmp::new("changed");
    let real = play(&b, &tmp);
    assert!(compare(&b, &real).is_empty(), "{:?}", compare(&b, &real));
    let mut wrong = Block {
        lines: b.lines.clone(),
        game: b.game.clone(),
        opponent: b.opponent.clone(),
        ..b
    };
    let n = wrong
        .lines
        .iter()
        .position(|l| l.contains("\"minor\":2"))
        .unwrap();
    wrong.lines[n] = wrong.lines[n].replace("\"minor\":2,", "");
    let p = compare(&wrong, &real);
    assert!(p.len() == 1 && p[0].contains(".minor: missing"), "{p:?}");
    // A trimmed block compares only what it shows; an untrimmed one must be whole.
    let mut short = Block {
        lines: wrong.lines[..4].to_vec(),
        ..wrong
    };
    short.lines[n] = b.lines[n].clone();
    assert!(compare(&short, &real)
        .iter()
        .any(|p| p.contains("end the block with `...`")));
    short.lines.push("...".into());
    assert!(
        compare(&short, &real).is_empty(),
        "{:?}",
        compare(&short, &real)
    );
}
