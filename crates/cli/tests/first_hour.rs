//! The first hour, round two (issue #27): each message a new user meets is true and said once.
//! Every test here failed on the main branch before its fix.

use std::path::PathBuf;
use std::process::Command;

fn pitboss() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pitboss"))
}

#[path = "common/tmp.rs"]
mod tmp;
use tmp::Tmp;

fn run(c: &mut Command) -> (i32, String, String) {
    let o = c.output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn phh_show_of_a_hand_that_is_not_there_says_so_in_one_line() {
    let out = Tmp::absent("phh");
    let (code, _, err) = run(pitboss()
        .args([
            "match", "--game", "27td-fl", "--bot", "call", "--bot", "random",
        ])
        .args(["--hands", "20", "--history", "--out"])
        .arg(&out.0));
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run(pitboss()
        .args(["phh", "show"])
        .arg(out.0.join("hands.phhs"))
        .args(["--hand", "99999"]));
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line per failure: {err}");
    assert!(err.contains("99999") && err.contains("20 hand(s)"), "{err}");
    assert!(!err.contains("bad usage"), "{err}");
}

#[test]
fn help_describes_the_jail_as_it_is() {
    let (code, out, _) = run(pitboss().args(["help", "match"]));
    assert_eq!(code, 0);
    let text = out.replace('\n', " ");
    assert!(
        !text.contains("sandboxed (Landlock, no network)"),
        "the jail is more than Landlock: {out}"
    );
    for layer in ["namespaces", "seccomp", "Landlock", "no network"] {
        assert!(text.contains(layer), "{layer}: {out}");
    }
}

#[test]
fn match_log_and_warning_count_decisions_alike() {
    let out = Tmp::absent("faults");
    let bot = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../external/tests/fixtures/exit_at_once.py");
    let (code, _, err) = run(pitboss()
        .args(["match", "--game", "27td-fl", "--bot"])
        .arg(format!("exec:python3 {}", bot.display()))
        .args(["--bot", "call", "--hands", "50", "--threads", "1"])
        .args(["--no-sandbox", "--out"])
        .arg(&out.0));
    assert_eq!(code, 0, "{err}");
    let log = std::fs::read_to_string(out.0.join("match.log")).unwrap();
    let warning = err.lines().find(|l| l.contains("WARNING")).unwrap();
    let count = |text: &str| -> String {
        let i = text
            .find(" decision(s) answered in time")
            .unwrap_or_else(|| panic!("no count of decisions answered: {text}"));
        let digits: String = text[..i]
            .chars()
            .rev()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.chars().rev().collect()
    };
    assert_eq!(count(&log), count(warning), "{log}\n{warning}");
    // An exec: bot's log is named as its row (its script), not after its interpreter.
    assert!(
        out.0.join("bots/1-exit_at_once.log").is_file(),
        "{log}\n{:?}",
        std::fs::read_dir(out.0.join("bots")).map(|d| d.count())
    );
    assert!(!log.contains(" decisions, "), "{log}");
}

#[test]
fn every_cargo_install_in_the_docs_is_locked() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut seen = 0;
    for doc in [
        "README.md",
        "docs/REFERENCE.md",
        "docs/SERVICE.md",
        "docs/DEPLOY.md",
    ] {
        let Ok(text) = std::fs::read_to_string(root.join(doc)) else {
            continue;
        };
        for (i, line) in text.lines().enumerate() {
            if line.contains("cargo install ") {
                seen += 1;
                // Without it, cargo re-resolves every dependency to its newest version.
                assert!(line.contains("--locked"), "{doc}:{}: {line}", i + 1);
            }
        }
    }
    assert!(seen > 0, "the README tells how to install pitboss");
}

/// A copy of the Python example bot in a temporary folder, with `extra` appended to its manifest.
fn python_bot(t: &Tmp, extra: &str) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bots/python/simple");
    std::fs::create_dir_all(&t.0).unwrap();
    for f in ["bot.py", "bot.toml", "pitboss_bot.py"] {
        std::fs::copy(root.join(f), t.0.join(f)).unwrap();
    }
    let m = t.0.join("bot.toml");
    let text = std::fs::read_to_string(&m).unwrap();
    // Top-level keys go before the first table.
    let text = text.replacen("[limits]", &format!("{extra}\n[limits]"), 1);
    std::fs::write(&m, text).unwrap();
    m
}

#[test]
fn the_interpreter_on_path_is_no_read_outside_but_a_declared_one_is() {
    for (extra, warned) in [("", false), ("read = [\"/etc/hostname\"]", true)] {
        let bot = Tmp::absent(&format!("py-{warned}"));
        let out = Tmp::absent(&format!("py-out-{warned}"));
        let m = python_bot(&bot, extra);
        let (code, _, err) = run(pitboss()
            .args(["match", "--game", "27td-fl", "--bot"])
            .arg(&m)
            .args(["--bot", "call", "--hands", "20", "--out"])
            .arg(&out.0));
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            err.contains("outside its own folder"),
            warned,
            "manifest extra {extra:?}: {err}"
        );
    }
}

/// The folders `check` or `submit` left in `tmp` (their temp directory).
fn left_in(tmp: &Tmp) -> Vec<String> {
    std::fs::read_dir(&tmp.0)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("pitboss-"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn check_removes_its_folder_unless_kept_and_keeps_it_for_an_unfit_bot() {
    let bot = Tmp::absent("chk-bot");
    let m = python_bot(&bot, "");
    let check = |tmp: &Tmp, extra: &[&str]| {
        std::fs::create_dir_all(&tmp.0).unwrap();
        run(pitboss()
            .arg("check")
            .arg(&m)
            .args(["--game", "27td-fl", "--hands", "20"])
            .args(extra)
            .env("TMPDIR", &tmp.0))
    };
    let t = Tmp::absent("chk-plain");
    let (code, out, err) = check(&t, &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(left_in(&t), Vec::<String>::new(), "{out}");
    let t = Tmp::absent("chk-keep");
    let (code, out, err) = check(&t, &["--keep"]);
    assert_eq!(code, 0, "{out}{err}");
    let kept = left_in(&t);
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(out.contains(&kept[0]), "says where: {out}");
    // An unfit bot's logs are kept where the verdict says.
    let t = Tmp::absent("chk-unfit");
    std::fs::create_dir_all(&t.0).unwrap();
    let crash = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../external/tests/fixtures/exit_at_once.py");
    let (code, out, _) = run(pitboss()
        .arg("check")
        .arg(format!("exec:python3 {}", crash.display()))
        .args(["--game", "27td-fl", "--hands", "20"])
        .env("TMPDIR", &t.0));
    assert_eq!(code, 1, "{out}");
    let kept = left_in(&t);
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(out.contains(&kept[0]) && out.contains("NOT FIT"), "{out}");
}

#[test]
fn a_refused_submit_leaves_nothing_and_names_no_deleted_folder() {
    let home = Tmp::absent("sub-home");
    let t = Tmp::absent("sub-tmp");
    std::fs::create_dir_all(&t.0).unwrap();
    let crash = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../external/tests/fixtures/exit_at_once.py");
    let (code, out, err) = run(pitboss()
        .arg("submit")
        .arg(format!("exec:python3 {}", crash.display()))
        .args(["--name", "crasher"])
        .env("PITBOSS_REGISTRY", home.0.join("registry"))
        .env("TMPDIR", &t.0));
    assert_ne!(code, 0, "{out}{err}");
    assert_eq!(left_in(&t), Vec::<String>::new(), "{out}{err}");
    let said = format!("{out}{err}");
    assert!(!said.contains("pitboss-submit-check"), "{said}");
    assert!(
        said.contains("keeps the bot's log and transcript") && said.contains("pitboss check"),
        "{said}"
    );
}

#[test]
fn check_of_a_bot_crashing_at_its_first_decision_shows_the_failure_once() {
    let bot = Tmp::absent("crash-first");
    std::fs::create_dir_all(&bot.0).unwrap();
    let script = bot.0.join("crash.py");
    std::fs::write(
        &script,
        r#"import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"type": "hello", "id": m["id"], "protocol": 1, "name": "crash",
                          "games": ["triple-draw", "stud-hi-lo"]}), flush=True)
    elif m["type"] not in ("match_start", "hand_start", "hand_end", "match_end"):
        raise RuntimeError("a distinctive traceback line")
"#,
    )
    .unwrap();
    let out = Tmp::absent("crash-first-out");
    let (code, stdout, _) = run(pitboss()
        .arg("check")
        .arg(format!("exec:python3 {}", script.display()))
        .arg("--out")
        .arg(&out.0));
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("NOT FIT"), "{stdout}");
    assert_eq!(
        stdout
            .lines()
            .filter(|l| l.contains("a distinctive traceback line"))
            .count(),
        1,
        "each distinct failure once: {stdout}"
    );
    // Each preset still says how often it failed there.
    assert!(
        stdout.contains("stud8-nl: ") && stdout.contains("× crash"),
        "{stdout}"
    );
    assert!(stdout.lines().count() < 50, "{stdout}");
}

#[test]
fn the_tournament_table_explains_each_column() {
    let out = Tmp::absent("legend");
    let (code, stdout, err) = run(pitboss()
        .args([
            "tournament",
            "--game",
            "27td-fl",
            "--bot",
            "call",
            "--bot",
            "raise",
        ])
        .args(["--bot", "random", "--deals", "200", "--out"])
        .arg(&out.0));
    assert_eq!(code, 0, "{err}");
    let header = stdout
        .lines()
        .find(|l| l.starts_with("rank"))
        .unwrap_or_else(|| panic!("no table: {stdout}"));
    let legend = stdout
        .lines()
        .find(|l| l.starts_with("columns:"))
        .unwrap_or_else(|| panic!("no legend: {stdout}"));
    for col in ["mbb/hand vs field", "bank", "irv", "rating", "faults"] {
        assert!(header.contains(col), "{header}");
        assert!(legend.contains(&format!("{col} = ")), "{col}: {legend}");
    }
}

/// The backticked names in the first line of `text` that contains `marker`, up to the paragraph's end.
fn names_after(text: &str, marker: &str) -> Vec<String> {
    let at = text
        .find(marker)
        .unwrap_or_else(|| panic!("{marker:?} not found"));
    let para = &text[at..];
    let para = &para[..para.find("\n\n").unwrap_or(para.len())];
    para.split('`')
        .skip(1)
        .step_by(2)
        .map(String::from)
        .collect()
}

#[test]
fn every_list_of_built_in_bots_is_the_crates_own() {
    let all: Vec<String> = pitboss_bots::NAMES
        .iter()
        .chain(pitboss_bots::EXPLOITERS)
        .map(|s| s.to_string())
        .collect();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let protocol = std::fs::read_to_string(root.join("protocol.md")).unwrap();
    assert_eq!(
        names_after(&protocol, "* a built-in name"),
        all,
        "protocol.md section 1"
    );
    let (_, help, _) = run(pitboss().args(["help", "match"]));
    let help = help.replace('\n', " ");
    for n in &all {
        assert!(
            help.contains(&format!(" {n},")) || help.contains(&format!(" {n} ")),
            "{n} missing from `pitboss help match`"
        );
    }
}
