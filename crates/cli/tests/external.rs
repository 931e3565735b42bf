//! External bots through the binary: `pitboss check` passes both example bots and fails each
//! misbehaving fixture with a clear reason; `pitboss match` plays the Python example against a
//! built-in bot and writes match.log and transcripts.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn pitboss() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pitboss"))
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[path = "common/tmp.rs"]
mod tmp;
use tmp::Tmp;

/// A temporary folder, removed when the test ends (pass or fail): the suite leaves nothing in
/// the temp directory.
fn tmp(name: &str) -> Tmp {
    Tmp::absent(name)
}

fn python() -> &'static str {
    if Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    }
}

fn fixture(name: &str) -> String {
    let p = root().join("crates/external/tests/fixtures").join(name);
    format!("exec:{} {}", python(), p.display())
}

fn check(bot: &str, extra: &[&str], name: &str) -> (Output, String) {
    let mut cmd = pitboss();
    let dir = tmp(name);
    cmd.args(["check", bot, "--out"]).arg(&dir).args(extra);
    if !extra.contains(&"--hands") {
        cmd.args(["--hands", "10"]);
    }
    let out = cmd.output().expect("run pitboss check");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out, text)
}

#[test]
fn check_passes_the_python_example() {
    let bot = root().join("bots/python/simple/bot.toml");
    let (out, text) = check(
        bot.to_str().unwrap(),
        &["--hands", "100", "--decision-ms", "10000"],
        "py",
    );
    assert!(out.status.success(), "{text}");
    assert!(text.contains("FIT for a tournament"), "{text}");
    assert!(
        text.contains("27td-fl") && text.contains("stud8-fl"),
        "{text}"
    );
}

#[test]
fn check_passes_the_rust_example() {
    // Built by `cargo build --release --workspace` (CI builds before testing); the manifest's own
    // build command would wait for the lock of the cargo running these tests.
    let exe = Path::new(env!("CARGO_BIN_EXE_pitboss")).with_file_name("pitboss-example-bot");
    if !exe.exists() {
        eprintln!("skipped: {} not built", exe.display());
        return;
    }
    let (out, text) = check(
        &format!("exec:{}", exe.display()),
        &["--hands", "100", "--decision-ms", "10000"],
        "rs",
    );
    assert!(out.status.success(), "{text}");
    assert!(text.contains("FIT for a tournament"), "{text}");
}

/// The bundled Rust example out of the box: its manifest's build runs in the jail (no network,
/// writing only `bots/rust-example/target`), then it plays. Its manifest reads the workspace
/// outside its folder, so `check` refuses it unless the operator allows that.
#[test]
fn the_rust_example_builds_in_the_jail_and_plays() {
    let manifest = root().join("bots/rust-example/bot.toml");
    let (out, text) = check(manifest.to_str().unwrap(), &[], "rs-refused");
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("--allow-read-outside"), "{text}");
    let (out, text) = check(
        manifest.to_str().unwrap(),
        &["--allow-read-outside", "--decision-ms", "10000"],
        "rs-manifest",
    );
    assert!(out.status.success(), "{text}");
    assert!(text.contains("FIT for a tournament"), "{text}");
    // "jail: own PID ..." as root, "jail (user namespace, ...): own PID ..." otherwise.
    assert!(text.contains("own PID"), "{text}");
}

/// (fixture, extra flags, words the report must contain)
const UNFIT: &[(&str, &[&str], &[&str])] = &[
    ("crash.py", &[], &["crash", "status 3", "boom"]),
    ("exit_at_once.py", &[], &["handshake", "not today"]),
    (
        "silent.py",
        &["--decision-ms", "200", "--bank-ms", "0"],
        &["timeout"],
    ),
    (
        "slow.py",
        &["--decision-ms", "200", "--bank-ms", "0"],
        &["timeout"],
    ),
    ("garbage.py", &[], &["malformed", "this is not json"]),
    ("huge.py", &[], &["line_too_long"]),
    ("illegal.py", &[], &["illegal", "raise"]),
    ("wrong_id.py", &[], &["answers no request"]),
    ("fork.py", &[], &["crash"]),
];

#[test]
fn check_fails_every_fixture_with_its_reason() {
    let handles: Vec<_> = UNFIT
        .iter()
        .map(|(name, extra, words)| {
            std::thread::spawn(move || {
                let (out, text) = check(&fixture(name), extra, name);
                assert_eq!(out.status.code(), Some(1), "{name}: {text}");
                assert!(text.contains("NOT FIT"), "{name}: {text}");
                for w in *words {
                    assert!(text.contains(w), "{name}: no {w:?} in\n{text}");
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn check_shows_the_serde_error_and_line_of_a_misspelt_field() {
    let (out, text) = check(&(fixture("garbage.py") + " field"), &[], "field");
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("unknown field `acton`"), "{text}");
    assert!(text.contains(r#""acton": {"type": "call"}"#), "{text}");
}

#[test]
fn match_plays_the_python_example_against_a_builtin() {
    let out = tmp("match");
    let bot = root().join("bots/python/simple/bot.toml");
    let res = pitboss()
        .args(["match", "--game", "stud8-fl", "--bot"])
        .arg(&bot)
        .args([
            "--bot",
            "hilo",
            "--hands",
            "2000",
            "--threads",
            "1",
            "--transcript",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&res.stdout).into_owned() + &String::from_utf8_lossy(&res.stderr);
    assert!(res.status.success(), "{text}");
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert_eq!(summary.lines().count(), 3, "{summary}");
    let log = std::fs::read_to_string(out.join("match.log")).unwrap();
    assert!(log.contains("jail:"), "{log}");
    assert!(log.contains("0 restart(s)"), "{log}");
    let transcript = std::fs::read_dir(out.join("transcripts"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let t = std::fs::read_to_string(transcript).unwrap();
    assert!(
        t.contains(r#"> {"type":"hello""#),
        "{}",
        &t[..200.min(t.len())]
    );
    assert!(t.contains(r#"< {"type":"action""#));
    // The luck adjustment (on by default with an external bot) records its value model, so that
    // a repeat from config.toml keeps it; a model this version does not know is refused by name.
    let config = std::fs::read_to_string(out.join("config.toml")).unwrap();
    assert!(
        config.contains("luck_adjust = true") && config.contains("luck_model = \"stacks48\""),
        "{config}"
    );
    let bad = out.join("bad.toml");
    std::fs::write(&bad, config.replace("stacks48", "allin999")).unwrap();
    let res = pitboss().arg("match").arg(&bad).output().unwrap();
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(!res.status.success(), "{err}");
    assert!(
        err.contains("luck_model") && err.contains("allin999"),
        "{err}"
    );
}

/// An output folder inside a bot's folder (so readable by the bot) is refused before anything is
/// written, by `match` and `tournament`: spelt directly, through a link or with `..`, it is left
/// not made, so the same `--out` works once the bot is moved (a match once kept the bot's log
/// there, and was then "not empty"; a tournament its plan).
#[test]
fn an_output_folder_inside_the_bots_folder_is_refused_before_it_is_made() {
    let dir = Tmp::new("out-inside");
    let bot = dir.join("bot");
    std::fs::create_dir_all(&bot).unwrap();
    let src = root().join("bots/python/simple");
    for f in ["bot.toml", "bot.py", "pitboss_bot.py"] {
        std::fs::copy(src.join(f), bot.join(f)).unwrap();
    }
    std::os::unix::fs::symlink(&bot, dir.join("link")).unwrap();
    let play = |out: &Path| {
        pitboss()
            .args(["match", "--bot", "call", "--bot"])
            .arg(bot.join("bot.toml"))
            .args(["--hands", "10", "--threads", "1", "--out"])
            .arg(out)
            .output()
            .unwrap()
    };
    for out in [
        bot.join("out"),
        dir.join("link/out"),
        dir.join("bot/../bot/./out"),
    ] {
        let res = play(&out);
        let err = String::from_utf8_lossy(&res.stderr);
        assert_eq!(res.status.code(), Some(2), "{}: {err}", out.display());
        assert!(
            err.contains("--bot / bots") && err.contains("which the bot may read"),
            "{}: {err}",
            out.display()
        );
        assert!(!bot.join("out").exists(), "{}: {err}", out.display());
    }
    let res = play(&dir.join("out"));
    assert!(
        res.status.success(),
        "{}",
        String::from_utf8_lossy(&res.stderr)
    );
    // A tournament refuses it before its plan (which holds the deck salt) is written.
    let res = pitboss()
        .args(["tournament", "--game", "stud8-fl", "--bot", "call", "--bot"])
        .arg(dir.join("link"))
        .args(["--deals", "10", "--out"])
        .arg(bot.join("t"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&res.stderr);
    assert_eq!(res.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--out") && err.contains("which it may read"),
        "{err}"
    );
    assert!(!bot.join("t").exists(), "{err}");
    // Nor does it resume one moved there since it was played.
    let res = pitboss()
        .args(["tournament", "--game", "stud8-fl", "--bot", "call", "--bot"])
        .arg(dir.join("link"))
        .args(["--deals", "10", "--out"])
        .arg(dir.join("t"))
        .output()
        .unwrap();
    assert!(
        res.status.success(),
        "{}",
        String::from_utf8_lossy(&res.stderr)
    );
    std::fs::rename(dir.join("t"), bot.join("t")).unwrap();
    let res = pitboss()
        .args(["tournament", "--resume"])
        .arg(bot.join("t"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&res.stderr);
    assert_eq!(res.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--resume") && err.contains("which it may read"),
        "{err}"
    );
}

#[test]
fn bad_external_flags_name_the_flag() {
    let res = pitboss()
        .args([
            "match",
            "--bot",
            "random",
            "--bot",
            "call",
            "--decision-ms",
            "0",
        ])
        .output()
        .unwrap();
    assert_eq!(res.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&res.stderr).contains("--decision-ms / decision_ms"));
    let res = pitboss()
        .args(["match", "--bot", "nosuchbot", "--bot", "call"])
        .output()
        .unwrap();
    assert_eq!(res.status.code(), Some(2));
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(
        err.contains("--bot / bots") && err.contains("nosuchbot"),
        "{err}"
    );
}

#[test]
fn ctrl_c_kills_every_bot_process() {
    let out = tmp("ctrlc");
    let bot = root().join("bots/python/simple/bot.toml");
    let mut child = pitboss()
        .args(["match", "--game", "27td-fl", "--bot"])
        .arg(&bot)
        .arg("--bot")
        .arg(&bot)
        .args(["--hands", "100000000", "--threads", "2", "--out"])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait (without a time assertion) until four bot processes have started.
    let pids = loop {
        let mut pids = Vec::new();
        if let Ok(dir) = std::fs::read_dir(out.join("bots")) {
            for e in dir.flatten() {
                let text = std::fs::read_to_string(e.path()).unwrap_or_default();
                for l in text.lines() {
                    if let Some(rest) = l.strip_prefix("[pitboss] process ") {
                        if let Some((pid, _)) = rest.split_once(" started") {
                            pids.push(pid.parse::<i32>().unwrap());
                        }
                    }
                }
            }
        }
        if pids.len() >= 4 {
            break pids;
        }
        assert!(child.try_wait().unwrap().is_none(), "pitboss ended early");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    // SAFETY: a signal to our own child.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    for pid in pids {
        // The group leader may linger as a zombie of the (now dead) referee only until init reaps
        // it; its group must have no live member: kill(-pgid, 0) fails or finds only zombies.
        let mut alive = false;
        for _ in 0..100 {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            alive = !stat.is_empty() && !stat.contains(") Z ");
            if !alive {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(!alive, "bot process {pid} survived Ctrl-C");
    }
}

#[test]
fn match_file_keys_for_external_bots_are_validated() {
    let dir = tmp("keys");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("m.toml");
    std::fs::write(
        &file,
        "bots = [\"random\", \"call\"]\nhands = 10\nrestarts = 5000\n",
    )
    .unwrap();
    let res = pitboss().arg("match").arg(&file).output().unwrap();
    assert_eq!(res.status.code(), Some(2));
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(err.contains("--restarts / restarts"), "{err}");
    std::fs::write(
        &file,
        "bots = [\"random\", \"call\"]\nhands = 10\nsandbox = false\nfreeze_idle = true\ntranscript = true\ndecision_ms = 50\nbank_ms = 0\n",
    )
    .unwrap();
    let res = pitboss()
        .arg("match")
        .arg(&file)
        .arg("--out")
        .arg(dir.join("out"))
        .output()
        .unwrap();
    assert!(
        res.status.success(),
        "{}",
        String::from_utf8_lossy(&res.stderr)
    );
    let cfg = std::fs::read_to_string(dir.join("out/config.toml")).unwrap();
    assert!(
        cfg.contains("sandbox = false") && cfg.contains("decision_ms = 50"),
        "{cfg}"
    );
}

#[test]
fn check_plays_a_concurrent_bot_on_the_tables_it_claims() {
    let bot = format!("{} ok", fixture("multi.py"));
    let (out, text) = check(&bot, &["--game", "27td-fl", "--hands", "40"], "multi-ok");
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("protocol 1.1: concurrency 4, full messages"),
        "{text}"
    );
    assert!(text.contains("27td-fl, 4 tables at once"), "{text}");
    // The four tables' first requests go out together.
    assert!(text.contains("up to 4 requests in flight"), "{text}");

    let bot = format!("{} wrongtable", fixture("multi.py"));
    let (out, text) = check(&bot, &["--game", "27td-fl", "--hands", "40"], "multi-bad");
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("4 tables at once: 1 × malformed"), "{text}");
    assert!(text.contains("names table"), "{text}");
}

#[test]
fn check_passes_the_python_sdk_example() {
    let bot = root().join("bots/sdk/python/bot.toml");
    let (out, text) = check(
        bot.to_str().unwrap(),
        &[
            "--hands",
            "100",
            "--decision-ms",
            "10000",
            "--allow-read-outside",
        ],
        "py-sdk",
    );
    assert!(out.status.success(), "{text}");
    assert!(text.contains("FIT for a tournament"), "{text}");
    assert!(text.contains("16 tables at once"), "{text}");
    assert!(
        text.contains("protocol 1.2: concurrency 16, terse messages"),
        "{text}"
    );
}

/// The Rust example on the SDK (protocol 1.1: 64 tables per process, compact messages, the view
/// kept from the events) plays exactly the hands of the same bot on the raw protocol (version 1,
/// full messages), for the same seed and salt, against a deterministic opponent.
#[test]
fn the_sdk_example_plays_the_same_hands_as_the_raw_one() {
    let dir = Path::new(env!("CARGO_BIN_EXE_pitboss")).to_path_buf();
    let (raw, sdk) = (
        dir.with_file_name("pitboss-example-raw"),
        dir.with_file_name("pitboss-example-bot"),
    );
    if !raw.exists() || !sdk.exists() {
        eprintln!("skipped: the example bots are not built");
        return;
    }
    let (a, b) = (tmp("raw-v1"), tmp("sdk-11"));
    for game in ["27td-fl", "stud8-nl"] {
        let out = pitboss()
            .args([
                "match",
                "--game",
                game,
                "--hands",
                "1500",
                "--threads",
                "2",
                "--history",
            ])
            .args([
                "--bot",
                &format!("exec:{}", raw.display()),
                "--bot",
                "call",
                "--force",
            ])
            .arg("--out")
            .arg(&a)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = pitboss()
            .arg("match")
            .arg(a.join("config.toml"))
            .args([
                "--bot",
                &format!("exec:{}", sdk.display()),
                "--bot",
                "call",
                "--force",
            ])
            .arg("--out")
            .arg(&b)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let hands = |d: &Path| -> Vec<String> {
            std::fs::read_to_string(d.join("hands.csv"))
                .unwrap()
                .lines()
                .map(|l| {
                    let mut f: Vec<&str> = l.split(',').collect();
                    f.remove(5);
                    f.join(",")
                })
                .collect()
        };
        let (ha, hb) = (hands(&a), hands(&b));
        assert_eq!(ha.len(), 3001, "{game}");
        assert!(ha == hb, "{game}: the hands differ");
    }
}
