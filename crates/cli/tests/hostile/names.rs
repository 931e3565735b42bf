//! Issue 23, items 9 and 6 from the bot author's side.
//!
//! Item 9, names are data: a manifest `name`, an `exec:` program's file name, a tournament entrant
//! name, `submit --name` and the name in a bot's hello made of terminal escape sequences, a
//! newline, a spreadsheet formula or 300 characters. Each is refused where it is read (with an
//! error naming the manifest and `name`, or the flag) or made harmless wherever it is written: no
//! escape byte in the terminal output or in any file the command writes, no control character in
//! any file name, no CSV cell that starts a formula, a log file for every external bot.
//!
//! Item 6, transcripts have a cap: a stale-reply flood kept under the count limit (63 replies
//! padded to 64 KiB before each answer) is a fault, `check` says NOT FIT, and the transcripts and
//! logs of `check` and `match` stay bounded.

use std::path::{Path, PathBuf};

use super::harness::*;

/// The names a bot author would try.
fn hostile_names() -> Vec<(&'static str, String)> {
    vec![
        ("escape", "\u{1b}[2J\u{1b}]0;pwned\u{7}evil".to_string()),
        ("newline", "evil\nname".to_string()),
        ("formula", "=cmd|' /C calc'!A0".to_string()),
        // Without a slash (which an older check refused for a path's sake) and with a leading `-`.
        ("formula2", "-2+3+cmd|'calc'!A0".to_string()),
        ("long", "n".repeat(300)),
    ]
}

/// A TOML basic string holding `s` (control characters as `\uXXXX`).
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Every file below `dir`, folders walked (symlinks not followed).
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let Ok(t) = e.file_type() else { continue };
            if t.is_dir() {
                todo.push(e.path());
            } else {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

/// Bytes a terminal acts on: ESC, BEL, and the C1 CSI in UTF-8.
fn terminal_control(bytes: &[u8]) -> Option<usize> {
    bytes
        .iter()
        .position(|&b| b == 0x1b || b == 0x07)
        .or_else(|| bytes.windows(2).position(|w| w == [0xc2, 0x9b]))
}

/// The cells of a CSV text (RFC 4180 quoting).
fn csv_cells(text: &str) -> Vec<String> {
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                cell.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => cell.push(c),
            (false, '"') if cell.is_empty() => quoted = true,
            (false, ',' | '\n') => cells.push(std::mem::take(&mut cell)),
            (false, '\r') => {}
            (false, c) => cell.push(c),
        }
    }
    if !cell.is_empty() {
        cells.push(cell);
    }
    cells
}

/// A cell a spreadsheet would take for a formula (a negative number is a number).
fn formula(cell: &str) -> bool {
    cell.starts_with(['=', '+', '@', '\t', '\r'])
        || (cell.starts_with('-') && cell.parse::<f64>().is_err())
}

/// No escape byte in the command's output; in every file below `dirs`: no control character in
/// its name, no escape byte in its contents, no formula cell in a CSV file.
fn escaped_everywhere(f: &mut Findings, what: &str, run: &Run, dirs: &[&Path]) {
    if let Some(i) = terminal_control(run.text.as_bytes()) {
        let around = &run.text.as_bytes()[i.saturating_sub(60)..(i + 60).min(run.text.len())];
        f.0.push(format!(
            "{what}: a terminal control byte in the output: {:?}",
            String::from_utf8_lossy(around)
        ));
    }
    for d in dirs {
        for p in files(d) {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            f.check(!name.chars().any(char::is_control), || {
                format!("{what}: a control character in a file name: {p:?}")
            });
            let Ok(bytes) = std::fs::read(&p) else {
                continue;
            };
            f.check(terminal_control(&bytes).is_none(), || {
                format!("{what}: a terminal control byte in {}", p.display())
            });
            if name.ends_with(".csv") {
                let text = String::from_utf8_lossy(&bytes);
                if let Some(c) = csv_cells(&text).into_iter().find(|c| formula(c)) {
                    f.0.push(format!("{what}: a formula cell in {}: {c:?}", p.display()));
                }
            }
        }
    }
}

/// The log files of a match's external bots: `external` of them, each with something in it.
fn every_bot_has_a_log(f: &mut Findings, what: &str, bots_dir: &Path, external: usize) {
    let logs: Vec<PathBuf> = files(bots_dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    f.check(logs.len() == external, || {
        format!(
            "{what}: {} log file(s) in {} for {external} external bot(s): {logs:?}",
            logs.len(),
            bots_dir.display()
        )
    });
    for l in &logs {
        let len = std::fs::metadata(l).map_or(0, |m| m.len());
        f.check(len > 0, || format!("{what}: {} is empty", l.display()));
    }
}

/// A refusal at load time: a non-zero exit whose message names the manifest and its `name`.
fn refused_naming(f: &mut Findings, what: &str, run: &Run, manifest: &Path) {
    f.check(run.status.is_some_and(|s| !s.success()), || {
        format!("{what}: not refused ({:?})", run.status)
    });
    f.check(
        run.text.contains(&manifest.display().to_string()) && run.text.contains("name"),
        || format!("{what}: the refusal names neither the manifest nor `name`"),
    );
}

#[test]
fn hostile_manifest_names_are_refused_or_escaped() {
    let _g = lock();
    let mut f = Findings::default();
    let mut last = None;
    for (label, name) in hostile_names() {
        let a = Arena::new(&format!("mname-{label}"));
        let text = std::fs::read_to_string(fixtures().join("manifests/named.toml"))
            .unwrap()
            .replace("@NAME@", &toml_string(&name))
            .replace("@TAG@", &a.tag);
        let m = a.bots.join("bot.toml");
        std::fs::write(&m, text).unwrap();
        // check
        let check_out = a.root.join("check-out");
        let mut c = a.pitboss();
        c.arg("check")
            .arg(&m)
            .args(["--game", "27td-fl", "--hands", "10", "--out"])
            .arg(&check_out);
        let run = a.run(c, secs(120));
        let what = format!("{label}: check");
        if run.status.is_some_and(|s| s.success()) {
            // Played: every output escaped, and the bot has its log.
            every_bot_has_a_log(&mut f, &what, &check_out.join("27td-fl/bots"), 1);
        } else {
            refused_naming(&mut f, &what, &run, &m);
        }
        escaped_everywhere(&mut f, &what, &run, &[&check_out]);
        f.clean(&a, &run);
        // match
        let run = a.run_match(
            &[m.display().to_string(), "call".into()],
            10,
            &["--history", "--transcript"],
            secs(120),
        );
        let what = format!("{label}: match");
        if run.status.is_some_and(|s| s.success()) {
            every_bot_has_a_log(&mut f, &what, &a.out.join("bots"), 1);
            f.no_success(&what, &run.logs(), &["names"]);
        } else {
            refused_naming(&mut f, &what, &run, &m);
        }
        escaped_everywhere(&mut f, &what, &run, &[&a.out]);
        f.clean(&a, &run);
        last = Some(run);
    }
    f.assert(&last.unwrap());
}

#[test]
fn hostile_program_names_are_made_names() {
    let _g = lock();
    let a = Arena::new("pname");
    // A script run by python3 (the display name comes from its file name) and an executable run
    // directly (its file name names the bot's log). `exec:` splits on whitespace, so a newline
    // cannot be in an exec: path; escape sequences, formulas and length can.
    let script = "=cmd|'\u{1b}]0;pwned\u{7}'!A0.py";
    std::fs::copy(a.bots.join("names.py"), a.bots.join(script)).unwrap();
    let exe = format!("@SUM(1)\u{1b}[2J{}", "x".repeat(240));
    let body = std::fs::read_to_string(a.bots.join("names.py")).unwrap();
    let exe_path = a.bots.join(&exe);
    std::fs::write(&exe_path, format!("#!{}\n{body}", python())).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&exe_path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let by_script = a.exec(script, &[]);
    let by_exe = format!("exec:{} {}", exe_path.display(), a.tag);
    let mut f = Findings::default();
    let run = a.run_match(
        &[by_script.clone(), by_exe, "call".into()],
        12,
        &["--history", "--transcript"],
        secs(180),
    );
    f.of_match(&a, &run, 12, &["names"]);
    escaped_everywhere(&mut f, "match", &run, &[&a.out]);
    every_bot_has_a_log(&mut f, "match", &a.out.join("bots"), 2);
    let log = std::fs::read_to_string(a.out.join("match.log")).unwrap_or_default();
    f.check(log.matches("  log: ").count() == 2, || {
        format!("match.log does not say which log file holds which bot:\n{log}")
    });
    // check of the script bot
    let check_out = a.root.join("check-out");
    let mut c = a.pitboss();
    c.arg("check")
        .arg(&by_script)
        .args(["--game", "27td-fl", "--hands", "10", "--out"])
        .arg(&check_out);
    let crun = a.run(c, secs(120));
    f.check(crun.status.is_some_and(|s| s.success()), || {
        format!(
            "check of a legal bot under a hostile file name failed: {:?}\n{}",
            crun.status,
            tail(&crun.text, 2000)
        )
    });
    escaped_everywhere(&mut f, "check", &crun, &[&check_out]);
    every_bot_has_a_log(&mut f, "check", &check_out.join("27td-fl/bots"), 1);
    f.clean(&a, &crun);
    f.assert(&run);
}

#[test]
fn tournament_and_registry_names_are_data() {
    let _g = lock();
    let a = Arena::new("tname");
    let mut f = Findings::default();
    // NAME=SPEC with a hostile NAME: refused, and said without driving the terminal.
    let evil = "\u{1b}]0;pwned\u{7}\u{1b}[2Jevil=call";
    let mut c = a.pitboss();
    c.args([
        "tournament",
        "--game",
        "27td-fl",
        "--bot",
        evil,
        "--bot",
        "random",
    ])
    .args(["--deals", "20", "--batch", "10", "--threads", "1", "--out"])
    .arg(&a.out);
    let run = a.run(c, secs(60));
    f.check(run.status.is_some_and(|s| !s.success()), || {
        "a hostile entrant NAME was accepted".into()
    });
    f.check(run.text.contains("--bot"), || {
        "the refusal does not name --bot".into()
    });
    escaped_everywhere(&mut f, "tournament NAME", &run, &[&a.out]);
    // submit --name: the same.
    let mut c = a.pitboss();
    c.args(["submit", "call", "--name", "\u{1b}[2J=x", "--registry"])
        .arg(&a.registry);
    let run = a.run(c, secs(60));
    f.check(run.status.is_some_and(|s| !s.success()), || {
        "a hostile submit --name was accepted".into()
    });
    escaped_everywhere(&mut f, "submit --name", &run, &[]);
    f.check(!a.registry.join("registry.toml").exists(), || {
        "submit wrote a registry for a refused name".into()
    });
    // An entrant named after its program's hostile file name: plays, every report escaped.
    let script = "=cmd|'\u{1b}]0;pwned\u{7}'!A0.py";
    std::fs::copy(a.bots.join("names.py"), a.bots.join(script)).unwrap();
    let _ = std::fs::remove_dir_all(&a.out);
    let mut c = a.pitboss();
    c.args(["tournament", "--game", "27td-fl", "--bot"])
        .arg(a.exec(script, &[]))
        .args([
            "--bot",
            "call",
            "--deals",
            "20",
            "--batch",
            "10",
            "--threads",
            "1",
        ])
        .arg("--out")
        .arg(&a.out);
    let run = a.run(c, secs(180));
    f.check(run.status.is_some_and(|s| s.success()), || {
        format!("the tournament did not complete: {:?}", run.status)
    });
    for file in [
        "leaderboard.csv",
        "crosstable.csv",
        "leaderboard.md",
        "report.html",
    ] {
        f.check(a.out.join(file).exists(), || format!("no {file}"));
    }
    f.no_success("tournament", &run.logs(), &["names"]);
    escaped_everywhere(&mut f, "tournament", &run, &[&a.out]);
    f.clean(&a, &run);
    f.assert(&run);
}

/// Sum of the sizes of the files below `dir`.
fn bytes_below(dir: &Path) -> u64 {
    files(dir)
        .iter()
        .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
        .sum()
}

#[test]
fn a_padded_stale_flood_is_a_fault_and_transcripts_stay_bounded() {
    let _g = lock();
    let a = Arena::new("stalepad");
    let bot = a.exec("stale_pad.py", &[]);
    let mut f = Findings::default();
    // check: not fit, and its transcripts (it always writes them) bounded.
    let check_out = a.root.join("check-out");
    let mut c = a.pitboss();
    c.arg("check")
        .arg(&bot)
        .args(["--game", "27td-fl", "--hands", "20", "--out"])
        .arg(&check_out);
    let run = a.run(c, secs(180));
    f.check(run.status.is_some_and(|s| !s.success()), || {
        "check passed a bot flooding 4 MiB of stale replies per decision".into()
    });
    f.check(run.text.contains("NOT FIT"), || {
        "check did not say NOT FIT".into()
    });
    let transcripts = bytes_below(&check_out.join("27td-fl/transcripts"));
    // The cap is 32 MiB per bot and check; a fault per flooded decision keeps it far below.
    f.check(transcripts < 32 << 20, || {
        format!("check transcripts: {transcripts} bytes (cap 32 MiB)")
    });
    f.clean(&a, &run);
    // match: faults recorded, logs and transcripts bounded.
    let run = a.run_match(
        &[bot, "call".into()],
        20,
        &["--transcript", "--decision-ms", "5000"],
        secs(180),
    );
    f.check(run.stat("stale_pad", "fault_malformed") > 0, || {
        "the padded flood drew no fault".into()
    });
    for e in files(&a.out.join("bots")) {
        let len = std::fs::metadata(&e).map_or(0, |m| m.len());
        f.check(len < 2 << 20, || {
            format!("log {} is {len} bytes (cap 1 MiB)", e.display())
        });
    }
    let transcripts = bytes_below(&a.out.join("transcripts"));
    // 20 hands: without a byte budget some 160 MiB; with it one line per faulted decision.
    f.check(transcripts < 16 << 20, || {
        format!("match transcripts: {transcripts} bytes for 20 hands")
    });
    f.of_match(&a, &run, 20, &["stale-pad"]);
    f.assert(&run);
}
