//! Issue 11's results integrity end to end: numbers beyond the engine's maxima are refused naming
//! the flag, seeds default to a random one that config.toml repeats, external bots get salted
//! decks, each game of a tournament gets its own processes and `match_start`, and resume and
//! merge refuse edited, swapped or foreign unit files and edited plans, naming the file.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn pitboss() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pitboss"))
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pitboss-cli-integ-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn fixture(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../external/tests/fixtures")
        .join(name);
    format!("exec:python3 {}", p.display())
}

fn ok(c: &mut Command) -> String {
    let o = c.output().unwrap();
    assert!(
        o.status.success(),
        "{:?}: {}{}",
        c,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Runs a command that must fail (not panic); returns its stderr.
fn fails(c: &mut Command) -> String {
    let o = c.output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!o.status.success(), "{c:?} succeeded");
    assert!(!err.contains("panicked"), "{c:?} panicked: {err}");
    err
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn numbers_beyond_the_maxima_are_refused_naming_the_flag() {
    let out = tmp("bounds");
    let m = |args: &[&str]| {
        fails(
            pitboss()
                .args(["match", "--bot", "random", "--bot", "call", "--out"])
                .arg(&out)
                .args(args),
        )
    };
    let e = m(&["--seed", "18446744073709551615"]);
    assert!(
        e.contains("--seed") && e.contains("9223372036854775807"),
        "{e}"
    );
    let e = m(&["--hands", "10000000000000"]);
    assert!(e.contains("--hands") && e.contains("1000000000000"), "{e}");
    let e = m(&["--stack", "281474976710657"]);
    assert!(e.contains("--stack"), "{e}");
    let t = |args: &[&str]| {
        fails(
            pitboss()
                .args(["tournament", "--bot", "random", "--bot", "call", "--out"])
                .arg(&out)
                .args(args),
        )
    };
    let started = Instant::now();
    let e = t(&["--deals", "1000000000000", "--batch", "1"]);
    assert!(e.contains("--batch") && e.contains("200000"), "{e}");
    assert!(started.elapsed() < Duration::from_secs(10));
    let e = t(&["--deals", "10000000000000"]);
    assert!(e.contains("--deals") && e.contains("1000000000000"), "{e}");
    let e = t(&["--seed", "9223372036854775808"]);
    assert!(e.contains("--seed"), "{e}");
    let e = t(&["--bootstrap", "1000000000"]);
    assert!(e.contains("--bootstrap") && e.contains("100000"), "{e}");
    let _ = std::fs::remove_dir_all(&out);
}

/// The `seed = N` line of a config.toml.
fn seed_of(config: &str) -> u64 {
    config
        .lines()
        .find_map(|l| l.strip_prefix("seed = "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no seed in {config}"))
}

#[test]
fn a_match_without_a_seed_draws_one_that_config_toml_repeats() {
    let (a, b) = (tmp("seed-a"), tmp("seed-b"));
    let run = |extra: &[&str], out: &Path| {
        ok(pitboss()
            .arg("match")
            .args(extra)
            .args(["--threads", "1", "--out"])
            .arg(out))
    };
    let text = run(&["--bot", "random", "--bot", "call", "--hands", "3000"], &a);
    let config = read(&a.join("config.toml"));
    let seed = seed_of(&config);
    assert!(text.contains(&format!("seed {seed}")), "{text}");
    assert!(
        !config.contains("salt"),
        "in-process matches are not salted: {config}"
    );
    let again = ok(pitboss()
        .args([
            "match", "--bot", "random", "--bot", "call", "--hands", "10", "--out",
        ])
        .arg(&b));
    assert_ne!(seed_of(&read(&b.join("config.toml"))), seed, "{again}");
    // `b` holds another run now: repeating `a` there needs --force (or another folder).
    run(&[a.join("config.toml").to_str().unwrap(), "--force"], &b);
    assert_eq!(read(&a.join("summary.csv")), read(&b.join("summary.csv")));
    for d in [a, b] {
        let _ = std::fs::remove_dir_all(d);
    }
}

#[test]
fn external_bots_get_secret_decks_that_config_toml_repeats() {
    let (a, b, c) = (tmp("salt-a"), tmp("salt-b"), tmp("salt-c"));
    let bot = fixture("match_starts.py");
    let run = |extra: &[&str], out: &Path| {
        ok(pitboss()
            .arg("match")
            .args(extra)
            .args(["--threads", "1", "--history", "--out"])
            .arg(out))
    };
    let flags = [
        "--bot", &bot, "--bot", "call", "--hands", "60", "--seed", "5",
    ];
    let text = run(&flags, &a);
    assert!(text.contains("salted"), "{text}");
    let config = read(&a.join("config.toml"));
    let salt = config
        .lines()
        .find_map(|l| l.strip_prefix("salt = "))
        .unwrap_or_else(|| panic!("no salt in {config}"));
    assert_eq!(salt.trim_matches('"').len(), 64, "{salt}");
    // The same seed again: another salt, other decks.
    run(&flags, &c);
    assert_ne!(read(&a.join("hands.phhs")), read(&c.join("hands.phhs")));
    // config.toml repeats the run exactly.
    run(&[a.join("config.toml").to_str().unwrap()], &b);
    assert_eq!(read(&a.join("hands.phhs")), read(&b.join("hands.phhs")));
    assert_eq!(read(&a.join("summary.csv")), read(&b.join("summary.csv")));
    for d in [a, b, c] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// Every `*.log` under `dir`, with its text.
fn logs(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(logs(&p));
        } else if p.extension().is_some_and(|x| x == "log") {
            out.push((p.clone(), read(&p)));
        }
    }
    out
}

#[test]
fn each_game_of_a_tournament_gets_its_own_processes_and_match_start() {
    let out = tmp("games");
    let bot = format!("ms={}", fixture("match_starts.py"));
    ok(pitboss()
        .args(["tournament", "--game", "27td-fl", "--game", "stud8-fl"])
        .args(["--bot", &bot, "--bot", "call"])
        .args([
            "--deals",
            "6",
            "--batch",
            "2",
            "--threads",
            "1",
            "--seed",
            "3",
        ])
        .arg("--out")
        .arg(&out));
    let logs = logs(&out);
    let mut told = Vec::new();
    for (path, text) in &logs {
        assert!(!text.contains("MISMATCH"), "{}: {text}", path.display());
        let td = text.contains("match_start triple-draw");
        let stud = text.contains("match_start stud-hi-lo");
        assert!(
            !(td && stud),
            "{}: one process told of two games",
            path.display()
        );
        let folder = path.to_string_lossy();
        if td {
            assert!(folder.contains("games/27td-fl/"), "{folder}");
            told.push("td");
        }
        if stud {
            assert!(folder.contains("games/stud8-fl/"), "{folder}");
            told.push("stud");
        }
    }
    assert!(told.contains(&"td") && told.contains(&"stud"), "{logs:?}");
    let _ = std::fs::remove_dir_all(&out);
}

fn copy_dir(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to.join("units")).unwrap();
    for sub in ["", "units"] {
        for e in std::fs::read_dir(from.join(sub)).unwrap().flatten() {
            if e.path().is_file() {
                std::fs::copy(e.path(), to.join(sub).join(e.file_name())).unwrap();
            }
        }
    }
}

fn units(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir.join("units"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    v.sort();
    v
}

#[test]
fn resume_and_merge_refuse_edited_swapped_and_foreign_files() {
    let root = tmp("tamper");
    let tour = |seed: &str, out: &Path| {
        ok(pitboss()
            .args([
                "tournament",
                "--bot",
                "random",
                "--bot",
                "call",
                "--bot",
                "lowball",
            ])
            .args([
                "--deals",
                "200",
                "--batch",
                "100",
                "--threads",
                "1",
                "--seed",
                seed,
            ])
            .arg("--out")
            .arg(out));
    };
    let (t, u) = (root.join("t"), root.join("u"));
    tour("5", &t);
    tour("6", &u);
    let resume = |d: &Path| fails(pitboss().arg("tournament").arg("--resume").arg(d));
    let merge = |d: &Path| {
        fails(
            pitboss()
                .arg("merge")
                .arg(d)
                .arg("--out")
                .arg(root.join("merged")),
        )
    };
    let first = units(&t)[0].clone();
    let name = first.file_name().unwrap().to_owned();
    let second_name = units(&t)[1].file_name().unwrap().to_owned();

    // An edited unit: a net changed (the checksum no longer matches).
    let d = root.join("edited");
    copy_dir(&t, &d);
    let text = read(&d.join("units").join(&name));
    let edited = text.replacen("\"net\":[[", "\"net\":[[1000000000000000,", 1);
    assert_ne!(text, edited);
    std::fs::write(d.join("units").join(&name), edited).unwrap();
    for e in [resume(&d), merge(&d)] {
        assert!(
            e.contains(&*name.to_string_lossy()) && e.contains("checksum"),
            "{e}"
        );
    }

    // A swapped unit: another unit's file under this name.
    let d = root.join("swapped");
    copy_dir(&t, &d);
    std::fs::copy(
        t.join("units").join(&second_name),
        d.join("units").join(&name),
    )
    .unwrap();
    let e = resume(&d);
    assert!(
        e.contains(&*name.to_string_lossy()) && e.contains("holds unit"),
        "{e}"
    );

    // A unit of another tournament (another seed) under its own name.
    let d = root.join("foreign");
    copy_dir(&t, &d);
    std::fs::copy(u.join("units").join(&name), d.join("units").join(&name)).unwrap();
    let e = resume(&d);
    assert!(
        e.contains(&*name.to_string_lossy()) && e.contains("another plan"),
        "{e}"
    );

    // plan.json edited before --resume: the seed changed.
    let d = root.join("plan-edited");
    copy_dir(&t, &d);
    let plan = read(&d.join("plan.json"));
    let edited = plan.replacen("\"seed\": 5", "\"seed\": 6", 1);
    assert_ne!(plan, edited);
    std::fs::write(d.join("plan.json"), edited).unwrap();
    let e = resume(&d);
    assert!(e.contains("plan.json") && e.contains("edited"), "{e}");

    // A substituted plan.json (another tournament's, intact) in merge.
    let d = root.join("plan-swapped");
    copy_dir(&t, &d);
    std::fs::copy(u.join("plan.json"), d.join("plan.json")).unwrap();
    let e = merge(&d);
    assert!(e.contains("units/") && e.contains("another plan"), "{e}");

    // The untouched folder still merges.
    ok(pitboss()
        .arg("merge")
        .arg(&t)
        .arg("--out")
        .arg(root.join("merged-ok")));
    let _ = std::fs::remove_dir_all(&root);
}
