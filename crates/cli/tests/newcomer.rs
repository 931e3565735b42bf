//! A newcomer's first hour, end to end: every refusal and message the issue "nothing silent"
//! asks for, the help texts, display names, histories at scale and `check` on every structure.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn pitboss() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pitboss"))
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pitboss-cli-new-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn run(c: &mut Command) -> (i32, String, String) {
    let o: Output = c.output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn help_opens_for_users_and_prints_each_default_once() {
    let (code, out, _) = run(pitboss().arg("--help"));
    assert_eq!(code, 0);
    assert!(out.starts_with("Pitboss: a poker bot arena"), "{out}");
    assert!(
        out.contains("pitboss check") && out.contains("pitboss submit"),
        "{out}"
    );
    assert!(!out.contains("validated config"), "developer text: {out}");
    for cmd in ["check", "submit", "match", "tournament", "compare"] {
        let (_, out, _) = run(pitboss().args([cmd, "--help"]));
        for line in out.lines() {
            assert!(line.matches("[default:").count() <= 1, "{cmd}: {line}");
        }
        let text = out.replace('\n', " ");
        let defaults: Vec<&str> = text.split("[default: ").skip(1).collect();
        for d in &defaults {
            let value = d.split(']').next().unwrap();
            assert_eq!(
                text.matches(&format!("[default: {value}]")).count(),
                1,
                "{cmd}: default {value} printed twice"
            );
        }
    }
}

#[test]
fn negative_counts_are_explained_without_clap_tips() {
    for args in [
        &["match", "--bot", "random", "--bot", "call", "--hands", "-5"][..],
        &["check", "random", "--hands", "-5"][..],
        &[
            "tournament",
            "--bot",
            "random",
            "--bot",
            "call",
            "--deals",
            "-5",
        ][..],
    ] {
        let (code, _, err) = run(pitboss().args(args));
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains("-5 is not allowed: use a whole number of 1 or more"),
            "{err}"
        );
        assert!(!err.contains("-- -5"), "{err}");
    }
}

#[test]
fn a_bot_that_cannot_start_is_loud_and_strict_fails() {
    let out = tmp("forfeit");
    let base = |c: &mut Command| {
        c.args([
            "match",
            "--bot",
            "exec:/no/such/dir/mybot --fast",
            "--bot",
            "random",
        ])
        .args([
            "--hands",
            "200",
            "--threads",
            "1",
            "--no-sandbox",
            "--force",
            "--out",
        ])
        .arg(&out);
    };
    let mut c = pitboss();
    base(&mut c);
    let (code, stdout, err) = run(&mut c);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("WARNING: bot `mybot` FORFEITED the match")
            && err.contains("cannot start")
            && err.contains("match.log"),
        "{err}"
    );
    // Named by its program, not by its spec.
    assert!(
        stdout.contains("mybot") && !stdout.contains("/no/such"),
        "{stdout}"
    );
    let log = std::fs::read_to_string(out.join("match.log")).unwrap();
    assert!(log.contains("fault: handshake: cannot start"), "{log}");
    let mut c = pitboss();
    base(&mut c);
    let (code, _, err) = run(c.arg("--strict"));
    assert_eq!(code, 5, "{err}");
    assert!(err.contains("--strict"), "{err}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn out_refuses_another_runs_folder_unless_forced() {
    let out = tmp("out");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let m = |extra: &[&str]| {
        let mut c = pitboss();
        c.args([
            "match", "--bot", "random", "--bot", "call", "--hands", "100",
        ])
        .args(extra)
        .arg("--out")
        .arg(&out);
        run(&mut c)
    };
    let (code, _, err) = m(&["--seed", "1"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--out") && err.contains("notes.txt") && err.contains("--force"),
        "{err}"
    );
    assert!(out.join("notes.txt").exists());
    let (code, _, err) = m(&["--seed", "1", "--force"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.join("notes.txt").exists() && out.join("summary.csv").exists());
    // The same run again (same seed) is fine; another run is not.
    assert_eq!(m(&["--seed", "1"]).0, 0);
    let (code, _, err) = m(&["--seed", "2"]);
    assert_eq!(code, 2, "{err}");
    // A tournament refuses it too.
    let (code, _, err) = run(pitboss()
        .args([
            "tournament",
            "--bot",
            "random",
            "--bot",
            "call",
            "--deals",
            "10",
            "--out",
        ])
        .arg(&out));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--out"), "{err}");
    let _ = std::fs::remove_dir_all(&out);
}

fn manifest(dir: &Path, name: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let p = dir.join("bot.toml");
    std::fs::write(
        &p,
        format!("name = \"{name}\"\ncommand = [\"/no/such/program\"]\n"),
    )
    .unwrap();
    p
}

#[test]
fn bots_are_named_by_their_manifest_and_made_unique() {
    let d = tmp("names");
    let a = manifest(&d.join("a/deep/folder"), "shark");
    let b = manifest(&d.join("b"), "shark");
    let out = d.join("out");
    let (code, stdout, err) = run(pitboss()
        .args(["match", "--hands", "100", "--no-sandbox", "--bot"])
        .arg(&a)
        .arg("--bot")
        .arg(&b)
        .arg("--out")
        .arg(&out));
    assert_eq!(code, 0, "{err}");
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert!(
        summary.contains("\nshark,") && summary.contains("\nshark-2,"),
        "{summary}"
    );
    assert!(!stdout.contains("bot.toml"), "{stdout}");
    // config.toml keeps the specs.
    let config = std::fs::read_to_string(out.join("config.toml")).unwrap();
    assert!(config.contains("a/deep/folder/bot.toml"), "{config}");
    // A tournament names a manifest's bot the same way.
    let t = d.join("t");
    let (code, _, err) = run(pitboss()
        .args([
            "tournament",
            "--deals",
            "10",
            "--batch",
            "10",
            "--bot",
            "random",
            "--bot",
        ])
        .arg(&a)
        .arg("--out")
        .arg(&t));
    assert_eq!(code, 0, "{err}");
    let board = std::fs::read_to_string(t.join("leaderboard.csv")).unwrap();
    assert!(board.contains(",shark,"), "{board}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn histories_print_their_sizes_and_zstd_is_read_as_it_is() {
    let out = tmp("history");
    let (code, stdout, err) = run(pitboss()
        .args([
            "match", "--game", "stud8-fl", "--bot", "hilo", "--bot", "random",
        ])
        .args(["--hands", "500", "--history", "--zstd", "--out"])
        .arg(&out));
    assert_eq!(code, 0, "{err}");
    assert!(
        stdout.contains("hands.csv (") && stdout.contains("hands.phhs.zst ("),
        "{stdout}"
    );
    let zst = out.join("hands.phhs.zst");
    assert!(!out.join("hands.phhs").exists());
    let (code, stdout, err) = run(pitboss().args(["phh", "verify"]).arg(&zst));
    assert_eq!(
        (code, stdout.as_str()),
        (0, "500 hands verified\n"),
        "{err}"
    );
    // Compact: one line per action, each tagged with its hand.
    let (code, stdout, _) = run(pitboss()
        .args(["phh", "show", "--compact", "--hand", "7"])
        .arg(&zst));
    assert_eq!(code, 0);
    assert!(stdout.lines().count() >= 2, "{stdout}");
    assert!(
        stdout.lines().all(|l| l.starts_with("[7] seat ")),
        "{stdout}"
    );
    // Past the end: a usage error, not "malformed".
    let (code, _, err) = run(pitboss().args(["phh", "show", "--hand", "501"]).arg(&zst));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("has 500 hand(s)") && !err.contains("malformed"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn check_runs_every_structure() {
    let (code, out, err) = run(pitboss().args(["check", "lowball", "--hands", "20"]));
    assert_eq!(code, 0, "{out}{err}");
    for g in [
        "27td-fl", "27td-pl", "27td-nl", "stud8-fl", "stud8-pl", "stud8-nl",
    ] {
        assert!(out.contains(g), "{g} not checked:\n{out}");
    }
}

#[test]
fn submit_refuses_other_peoples_names_and_says_where_the_registry_is() {
    let home = tmp("home");
    let reg = home.join(".local/share/pitboss/registry");
    let submit = |args: &[&str]| {
        let mut c = pitboss();
        c.arg("submit")
            .args(args)
            .env_remove("PITBOSS_REGISTRY")
            .env_remove("XDG_DATA_HOME")
            .env("HOME", &home);
        run(&mut c)
    };
    // A reference bot's name.
    let (code, _, err) = submit(&["raise", "--name", "lowball"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("`lowball` is a reference bot") && err.contains("--replace"),
        "{err}"
    );
    // The per-user registry, announced when created.
    let (code, out, err) = submit(&["raise", "--name", "maniac"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("created a new registry in") && out.contains(".local/share/pitboss/registry"),
        "{out}"
    );
    assert!(reg.join("registry.toml").exists());
    // Another submitter's bot.
    let (code, _, err) = submit(&["call", "--name", "maniac"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("submitted from `raise`"), "{err}");
    // PITBOSS_REGISTRY comes before the per-user folder.
    let other = home.join("elsewhere");
    let (code, out, err) = run(pitboss()
        .args(["submit", "call", "--name", "caller"])
        .env("PITBOSS_REGISTRY", &other)
        .env("HOME", &home));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("$PITBOSS_REGISTRY"), "{out}");
    assert!(other.join("registry.toml").exists());
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn ctrl_c_on_a_tournament_prints_the_resume_command() {
    let out = tmp("ctrlc");
    let mut child = pitboss()
        .args([
            "tournament",
            "--bot",
            "lowball",
            "--bot",
            "random",
            "--bot",
            "call",
        ])
        .args(["--game", "27td-fl", "--game", "stud8-fl"])
        .args([
            "--deals",
            "2000000",
            "--batch",
            "200",
            "--threads",
            "1",
            "--out",
        ])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the first finished unit (no time limit asserted: a loaded machine is slow).
    while std::fs::read_dir(out.join("units")).map_or(0, |d| d.count()) == 0 {
        assert!(
            child.try_wait().unwrap().is_none(),
            "tournament ended early"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // SAFETY: a signal to our own child.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!(
            "continue with: pitboss tournament --resume {}",
            out.display()
        )) && err.contains("finished unit(s) are kept in"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&out);
}
