//! `phh verify` and `phh show` as library functions that return the text to print and the exit
//! status, so that the `pitboss` binary only wires arguments to them (docs/CONTRACTS.md contract 2).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::error::PhhError;
use crate::read::read_file;
use crate::replay::{replay, replay_with, Verdict};

/// What a command prints and how it exits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub stdout: String,
    pub stderr: String,
    /// 0 = every hand verified; 1 = a hand was rejected; 2 = unreadable or malformed input;
    /// 3 = bad usage (e.g. a hand number the file does not have).
    pub code: i32,
}

/// `pitboss phh verify FILE...`: replays every hand; prints `N hands verified` and exits 0, or
/// names the first bad hand (file, hand, action index and text, reason) and exits 1. Malformed
/// TOML, a missing field or an unknown variant exits 2 with a message naming the file and hand.
/// A hand whose dealing breaks the house convention but is physically possible verifies with a
/// note on stderr, unless `strict_dealing`.
pub fn cli_verify(files: &[String], strict_dealing: bool) -> Report {
    let mut verified = 0usize;
    let mut noted = 0usize;
    let mut notes = String::new();
    for file in files {
        let hands = match read_file(file) {
            Ok(h) => h,
            Err(e) => return malformed(&e),
        };
        for h in &hands {
            let r = match replay_with(h, strict_dealing) {
                Ok(r) => r,
                Err(e) => return malformed(&e),
            };
            if !r.dealing_notes.is_empty() && matches!(r.verdict, Verdict::Verified) {
                noted += 1;
                if noted <= NOTES_SHOWN {
                    let _ = writeln!(
                        notes,
                        "note: {}: dealt differently from the house convention: {}",
                        h.at,
                        r.dealing_notes.join("; ")
                    );
                }
            }
            match r.verdict {
                Verdict::Verified => verified += 1,
                Verdict::Rejected(rej) => {
                    return Report {
                        stdout: String::new(),
                        stderr: format!(
                            "{}: not verified: {rej}\n({verified} hands verified before it)\n",
                            h.at
                        ),
                        code: 1,
                    }
                }
            }
        }
    }
    if noted > NOTES_SHOWN {
        let _ = writeln!(
            notes,
            "note: ... {} more hand(s) dealt differently",
            noted - NOTES_SHOWN
        );
    }
    if noted > 0 {
        let _ = writeln!(
            notes,
            "note: {noted} hand(s) dealt differently from the house convention (physically \
             possible, so verified; --strict-dealing rejects them)"
        );
    }
    Report {
        stdout: format!("{verified} hands verified\n"),
        stderr: notes,
        code: 0,
    }
}

/// Dealing notes printed in full before they are only counted.
const NOTES_SHOWN: usize = 10;

/// Whether every difference gen_hands.py flagged is one of its conservative detectors (2, 5, 7, 9):
/// the situation occurred, but it need not change legality or stacks.
fn conservative(h: &crate::PhhHand) -> bool {
    h.user_field("_pitboss_differences")
        .and_then(|v| v.as_array())
        .is_some_and(|a| {
            a.iter().all(|k| {
                matches!(
                    k.as_str(),
                    Some("difference-2" | "difference-5" | "difference-7" | "difference-9")
                )
            })
        })
}

/// Whether every difference gen_hands.py flagged is a dealing one (2: reshuffled discards, 3:
/// seventh-street hole cards) or a conservative detector's: a hand that then verifies with a
/// dealing note agrees, because any physically possible dealing is accepted.
fn dealing_only(h: &crate::PhhHand) -> bool {
    h.user_field("_pitboss_differences")
        .and_then(|v| v.as_array())
        .is_some_and(|a| {
            a.iter().all(|k| {
                matches!(
                    k.as_str(),
                    Some(
                        "difference-2"
                            | "difference-3"
                            | "difference-5"
                            | "difference-7"
                            | "difference-9"
                    )
                )
            })
        })
}

fn malformed(e: &PhhError) -> Report {
    Report {
        stdout: String::new(),
        stderr: format!("error: {e}\n"),
        code: 2,
    }
}

/// The number a hand read from a file goes by: its `hand` field, else its `.phhs` table name
/// (`[7]`), else its place in the file (from 1). Pitboss writes hand `N` of a match (the `hand`
/// column of `hands.csv`) as `[N]` with `hand = N`, so the three agree on its files.
fn number_in_file(h: &crate::read::ReadHand, place: usize) -> String {
    h.hand
        .hand
        .as_ref()
        .map(ToString::to_string)
        .or_else(|| h.at.hand.clone())
        .unwrap_or_else(|| place.to_string())
}

/// `pitboss phh show FILE [--hand N] [--compact]`: renders every hand (or hand `N`: the one whose
/// number is `N`, the number `hands.csv` shows), in full or one line per action. A hand number the
/// file does not have is a usage error (code 3), not a malformed file.
pub fn cli_show(file: &str, hand: Option<usize>, compact: bool) -> Report {
    let hands = match read_file(file) {
        Ok(h) => h,
        Err(e) => return malformed(&e),
    };
    let mut numbers: Vec<String> = hands
        .iter()
        .enumerate()
        .map(|(k, h)| number_in_file(h, k + 1))
        .collect();
    if numbers.iter().all(|x| x.parse::<u64>().is_err()) {
        // Hands named, not numbered (another tool's file): by their place, from 1.
        numbers = (1..=hands.len()).map(|k| k.to_string()).collect();
    }
    if let Some(n) = hand.filter(|n| !numbers.contains(&n.to_string())) {
        let numeric: Vec<u64> = numbers.iter().filter_map(|x| x.parse().ok()).collect();
        let range = match (numeric.iter().min(), numeric.iter().max()) {
            (Some(lo), Some(hi)) => format!(", numbered {lo} to {hi}"),
            _ => String::new(),
        };
        return Report {
            stdout: String::new(),
            stderr: format!(
                "error: --hand {n}: {file} has no hand {n}; it has {} hand(s){range}\n",
                hands.len(),
            ),
            code: 3,
        };
    }
    let mut out = String::new();
    for (h, number) in hands.iter().zip(&numbers) {
        if hand.is_some_and(|n| n.to_string() != *number) {
            continue;
        }
        match replay(h) {
            Ok(r) if compact => out.push_str(&crate::show::render_compact(&r, number)),
            Ok(r) => {
                out.push_str(&crate::show::render(&r));
                out.push('\n');
            }
            Err(e) => return malformed(&e),
        }
    }
    Report {
        stdout: out,
        stderr: String::new(),
        code: 0,
    }
}

/// Cross-check mode for files written by `scripts/pokerkit/gen_hands.py`: every hand carries
/// `_pitboss_expect` = `verify` (must verify and reach `finishing_stacks`), `reject` (must be
/// rejected with a known-difference reason) or `settle` (legal, but the stacks must be
/// `_pitboss_finishing_stacks`). Prints a summary; exit 1 on any disagreement.
pub fn cli_verify_expectations(files: &[String], strict_dealing: bool) -> Report {
    let mut compared = 0usize;
    let mut agreed = 0usize;
    let mut expected: BTreeMap<String, usize> = BTreeMap::new();
    let mut problems = Vec::new();
    for file in files {
        let hands = match read_file(file) {
            Ok(h) => h,
            Err(e) => return malformed(&e),
        };
        for h in &hands {
            compared += 1;
            let expect = h
                .hand
                .user_field("_pitboss_expect")
                .and_then(|v| v.as_str())
                .unwrap_or("verify")
                .to_string();
            let r = match replay_with(h, strict_dealing) {
                Ok(r) => r,
                Err(e) => {
                    problems.push(format!("{}: malformed: {e}", h.at));
                    continue;
                }
            };
            let known = match &r.verdict {
                Verdict::Rejected(rej) => rej.known,
                Verdict::Verified => None,
            };
            let ok = match (expect.as_str(), &r.verdict) {
                ("verify", Verdict::Verified) => {
                    agreed += 1;
                    true
                }
                ("reject", Verdict::Verified)
                    if !r.dealing_notes.is_empty() && dealing_only(&h.hand) =>
                {
                    *expected
                        .entry("difference 2/3 (dealing), verified with a note".into())
                        .or_default() += 1;
                    true
                }
                ("reject", Verdict::Verified) if conservative(&h.hand) => {
                    *expected
                        .entry("flagged 2/5/7/9 by gen_hands (conservative), verified".into())
                        .or_default() += 1;
                    true
                }
                ("reject", Verdict::Rejected(rej)) if rej.known.is_some() => {
                    *expected
                        .entry(format!("difference-{} (rejected)", rej.known.unwrap_or(0)))
                        .or_default() += 1;
                    true
                }
                ("settle", _) => {
                    let want: Option<Vec<u64>> = h
                        .hand
                        .user_field("_pitboss_finishing_stacks")
                        .and_then(|v| v.as_array())
                        .map(|a| {
                            a.iter()
                                .filter_map(|x| x.as_integer())
                                .map(|x| x as u64)
                                .collect()
                        });
                    let legal =
                        !matches!(&r.verdict, Verdict::Rejected(rej) if rej.action.is_some());
                    if legal && want.is_some() && want == r.finishing_stacks {
                        let k =
                            known.map_or("settlement".to_string(), |k| format!("difference-{k}"));
                        *expected.entry(format!("{k} (settled)")).or_default() += 1;
                        true
                    } else {
                        false
                    }
                }
                _ => false,
            };
            if !ok {
                let what = match &r.verdict {
                    Verdict::Verified => format!("verified, stacks {:?}", r.finishing_stacks),
                    Verdict::Rejected(rej) => format!("rejected: {rej}"),
                };
                problems.push(format!("{}: expected {expect}, {what}", h.at));
            }
        }
    }
    let mut s = String::new();
    let _ = writeln!(s, "hands compared: {compared}");
    let _ = writeln!(s, "agreed (verified): {agreed}");
    let _ = writeln!(
        s,
        "expected differences: {}",
        expected.values().sum::<usize>()
    );
    for (k, v) in &expected {
        let _ = writeln!(s, "  {k}: {v}");
    }
    let _ = writeln!(s, "disagreements: {}", problems.len());
    let mut err = String::new();
    let limit = if std::env::var_os("PITBOSS_PHH_ALL").is_some() {
        usize::MAX
    } else {
        20
    };
    for p in problems.iter().take(limit) {
        let _ = writeln!(err, "DISAGREEMENT: {p}");
    }
    Report {
        stdout: s,
        stderr: err,
        code: i32::from(!problems.is_empty()),
    }
}
