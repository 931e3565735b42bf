//! `pitboss tournament`, `merge`, `report`, `submit` end to end: resume after SIGKILL at random
//! points gives byte-identical reports, shards merge into the single-machine result, a missing or
//! duplicated shard or unit is named.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn pitboss() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pitboss"))
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pitboss-cli-tour-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// The report files; none has a timing column, so all must be byte-identical.
const REPORTS: [&str; 4] = [
    "leaderboard.csv",
    "crosstable.csv",
    "leaderboard.md",
    "report.html",
];

const TOURNAMENT: &str = r#"
name = "test"
games = ["27td-fl", "stud8-fl"]
bots = ["random", "call", "lowball", "hilo"]
deals = 12000
batch = 200
seed = 5
bootstrap = 50
"#;

fn write_config(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let p = dir.join("t.toml");
    std::fs::write(&p, TOURNAMENT).unwrap();
    p
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

fn fails(c: &mut Command) -> String {
    let o = c.output().unwrap();
    assert!(!o.status.success(), "{c:?} should fail");
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn same_reports(a: &Path, b: &Path) {
    for f in REPORTS {
        let (x, y) = (
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
        );
        assert!(
            x == y,
            "{f} differs between {} and {}",
            a.display(),
            b.display()
        );
    }
}

fn units(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("units"))
        .map(|e| {
            e.filter_map(Result::ok)
                .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
                .count()
        })
        .unwrap_or(0)
}

/// A delay from the clock (different every run; printed so a failure can be discussed).
fn random_ms(lo: u64, hi: u64, salt: u64) -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64;
    let mut z = t ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    lo + (z ^ (z >> 29)) % (hi - lo)
}

#[test]
fn resume_after_sigkill_at_random_points_is_byte_identical() {
    let root = tmp("resume");
    let cfg = write_config(&root);
    let whole = root.join("whole");
    ok(pitboss()
        .arg("tournament")
        .arg(&cfg)
        .arg("--out")
        .arg(&whole)
        .args(["--threads", "2"]));
    let total = units(&whole);
    assert_eq!(total, 12 * 60);

    let cut = root.join("cut");
    let mut kills = 0;
    for round in 0..4u64 {
        let mut c = pitboss();
        c.arg("tournament");
        // Until the plan is on disk (a kill can come that early), start afresh.
        if !cut.join("plan.json").exists() {
            c.arg(&cfg).arg("--out").arg(&cut);
        } else {
            c.arg("--resume").arg(&cut);
        }
        c.args(["--threads", if round % 2 == 0 { "2" } else { "1" }]);
        let mut child = c
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let ms = random_ms(30, 400, round);
        std::thread::sleep(Duration::from_millis(ms));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let done = units(&cut);
        eprintln!("round {round}: killed after {ms} ms with {done}/{total} units on disk");
        if done < total {
            kills += 1;
        }
    }
    assert!(kills >= 1, "the run always finished before it was killed");
    if !cut.join("plan.json").exists() {
        ok(pitboss().arg("tournament").arg(&cfg).arg("--out").arg(&cut));
    }
    ok(pitboss().arg("tournament").arg("--resume").arg(&cut));
    // With the config too: the same plan is accepted.
    ok(pitboss()
        .arg("tournament")
        .arg(&cfg)
        .arg("--resume")
        .arg(&cut));
    assert_eq!(units(&cut), total);
    same_reports(&whole, &cut);
    // A different config is refused and named.
    let err = fails(
        pitboss()
            .arg("tournament")
            .arg(&cfg)
            .args(["--deals", "13000", "--resume"])
            .arg(&cut),
    );
    assert!(
        err.contains("different tournament") && err.contains("deals"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn shards_merge_into_the_single_run_and_bad_sets_are_named() {
    let root = tmp("shards");
    let cfg = write_config(&root);
    let whole = root.join("whole");
    ok(pitboss()
        .arg("tournament")
        .arg(&cfg)
        .arg("--out")
        .arg(&whole));
    let shard = |i: usize| root.join(format!("shard-{i}"));
    // Shard 0 by flag, 1 as a Slurm array task (ids 1..3), 2 as a Kubernetes Indexed Job pod.
    ok(pitboss()
        .arg("tournament")
        .arg(&cfg)
        .args(["--shard", "0/3", "--out"])
        .arg(shard(0)));
    ok(pitboss()
        .arg("tournament")
        .arg(&cfg)
        .arg("--out")
        .arg(shard(1))
        .env("SLURM_ARRAY_TASK_ID", "2")
        .env("SLURM_ARRAY_TASK_MIN", "1")
        .env("SLURM_ARRAY_TASK_COUNT", "3"));
    ok(pitboss()
        .arg("tournament")
        .arg(&cfg)
        .arg("--out")
        .arg(shard(2))
        .env("JOB_COMPLETION_INDEX", "2")
        .env("PITBOSS_SHARDS", "3"));
    assert!(!shard(0).join("leaderboard.csv").exists());
    let merged = root.join("merged");
    ok(pitboss()
        .arg("merge")
        .args([shard(2), shard(0), shard(1)])
        .arg("--out")
        .arg(&merged));
    same_reports(&whole, &merged);
    // `pitboss report` over the shard folders gives the same files.
    let rep = root.join("report");
    ok(pitboss()
        .arg("report")
        .args([shard(0), shard(1), shard(2)])
        .arg("--out")
        .arg(&rep));
    same_reports(&whole, &rep);

    // A missing shard is named.
    let err = fails(
        pitboss()
            .arg("merge")
            .args([shard(0), shard(2)])
            .arg("--out")
            .arg(root.join("m1")),
    );
    assert!(err.contains("shard 1/3 is missing"), "{err}");
    // A shard given twice (a copy of shard 0 under another name) is named.
    let copy = root.join("copy-of-0");
    copy_dir(&shard(0), &copy);
    let err = fails(
        pitboss()
            .arg("merge")
            .args([shard(0), shard(1), shard(2), copy.clone()])
            .arg("--out")
            .arg(root.join("m2")),
    );
    assert!(err.contains("shard 0/3 given twice"), "{err}");
    // A unit found in two shards is named.
    let first = std::fs::read_dir(shard(0).join("units"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    std::fs::copy(first.path(), shard(1).join("units").join(first.file_name())).unwrap();
    let err = fails(
        pitboss()
            .arg("merge")
            .args([shard(0), shard(1), shard(2)])
            .arg("--out")
            .arg(root.join("m3")),
    );
    assert!(err.contains("found twice"), "{err}");
    std::fs::remove_file(shard(1).join("units").join(first.file_name())).unwrap();
    // A missing unit (an unfinished shard) is named with its shard and folder.
    let gone = std::fs::read_dir(shard(2).join("units"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    std::fs::remove_file(gone.path()).unwrap();
    let err = fails(
        pitboss()
            .arg("merge")
            .args([shard(0), shard(1), shard(2)])
            .arg("--out")
            .arg(root.join("m4")),
    );
    let id = gone
        .file_name()
        .to_string_lossy()
        .trim_end_matches(".json")
        .to_string();
    assert!(err.contains(&id) && err.contains("shard 2/3"), "{err}");
    // Resuming the shard (it knows it is shard 2/3) replays just that unit; another shard is
    // refused; the merge works again.
    let err = fails(
        pitboss()
            .arg("tournament")
            .arg("--resume")
            .arg(shard(2))
            .args(["--shard", "1/3"]),
    );
    assert!(err.contains("is shard 2/3 but 1/3 was asked for"), "{err}");
    let out = ok(pitboss().arg("tournament").arg("--resume").arg(shard(2)));
    assert!(out.contains("1 units played"), "{out}");
    ok(pitboss()
        .arg("merge")
        .args([shard(0), shard(1), shard(2)])
        .arg("--out")
        .arg(root.join("m5")));
    same_reports(&whole, &root.join("m5"));
    let _ = std::fs::remove_dir_all(&root);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.join("units")).unwrap();
    for f in ["plan.json", "shard.json"] {
        std::fs::copy(from.join(f), to.join(f)).unwrap();
    }
    for e in std::fs::read_dir(from.join("units")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join("units").join(e.file_name())).unwrap();
    }
}

#[test]
fn submit_ranks_a_bot_and_reuses_the_others_results() {
    let reg = tmp("registry");
    let out = ok(pitboss()
        .args(["submit", "lowball", "--name", "lowball-2", "--registry"])
        .arg(&reg));
    assert!(out.contains("lowball-2 ranks"), "{out}");
    let board = std::fs::read_to_string(reg.join("tournament/leaderboard.csv")).unwrap();
    let refs = pitboss_bots::NAMES.len();
    assert_eq!(board.lines().count(), 1 + refs + 1, "{board}");
    let toml = std::fs::read_to_string(reg.join("registry.toml")).unwrap();
    assert!(
        toml.contains("name = \"lowball-2\"") && toml.contains("hash = "),
        "{toml}"
    );
    assert!(reg.join("entries/lowball-2/entry.toml").exists());
    // A second bot: only its pairings with the references and lowball-2 x 6 games (every
    // preset) x 2 batches are played; the others' are reused.
    let out = ok(pitboss()
        .args(["submit", "raise", "--name", "maniac", "--registry"])
        .arg(&reg));
    let (played, reused) = ((refs + 1) * 12, (refs + 1) * refs / 2 * 12);
    assert!(
        out.contains(&format!("{played} units played, {reused} reused")),
        "{out}"
    );
    // Unchanged resubmission: nothing to play.
    let out = ok(pitboss()
        .args(["submit", "raise", "--name", "maniac", "--registry"])
        .arg(&reg));
    assert!(out.contains("0 units played"), "{out}");
    // A bot that fails the check is refused with the checker's report.
    let err = fails(
        pitboss()
            .args(["submit", "no-such-bot", "--name", "x", "--registry"])
            .arg(&reg),
    );
    assert!(
        err.contains("refused") && err.contains("neither a built-in bot"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&reg);
}

#[test]
fn bad_tournament_flags_are_named() {
    let err = fails(pitboss().args(["tournament", "--bot", "random", "--bot", "random"]));
    assert!(
        err.contains("--bot / bots") && err.contains("twice"),
        "{err}"
    );
    let err = fails(pitboss().args([
        "tournament",
        "--bot",
        "a=random",
        "--bot",
        "call",
        "--sprt",
        "5",
    ]));
    assert!(err.contains("--sprt"), "{err}");
    let err = fails(pitboss().args([
        "tournament",
        "--bot",
        "random",
        "--bot",
        "call",
        "--shard",
        "3/3",
    ]));
    assert!(err.contains("--shard"), "{err}");
}

#[test]
fn submit_ranks_the_python_example_bot() {
    let reg = tmp("registry-python");
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bots/python/simple/bot.toml");
    // A built-in bot first: the registry's plan (salt included) stays when an external bot joins.
    ok(pitboss()
        .args(["submit", "call", "--name", "call-2", "--registry"])
        .arg(&reg));
    let out = ok(pitboss()
        .arg("submit")
        .arg(&manifest)
        .args(["--name", "pysimple", "--registry"])
        .arg(&reg));
    assert!(out.contains("conformance check passed"), "{out}");
    assert!(out.contains("pysimple ranks"), "{out}");
    let plan = std::fs::read_to_string(reg.join("tournament/plan.json")).unwrap();
    assert!(plan.contains("\"salt\""), "the registry's decks are salted");
    let board = std::fs::read_to_string(reg.join("tournament/leaderboard.csv")).unwrap();
    assert!(board.contains("pysimple"), "{board}");
    let _ = std::fs::remove_dir_all(&reg);
}

#[test]
fn submit_records_where_a_bot_is_so_later_submissions_find_it_from_anywhere() {
    let root = tmp("registry-anywhere");
    let (reg, work) = (root.join("registry"), root.join("work"));
    let bot = work.join("mybot");
    std::fs::create_dir_all(&bot).unwrap();
    let simple = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bots/python/simple");
    for f in ["bot.toml", "bot.py", "pitboss_bot.py"] {
        std::fs::copy(simple.join(f), bot.join(f)).unwrap();
    }
    std::fs::create_dir_all(&reg).unwrap();
    std::fs::write(
        reg.join("registry.toml"),
        "[settings]\nname = \"t\"\ngames = [\"27td-fl\"]\ndeals = 20\nbatch = 10\nseed = 1\nbootstrap = 10\n",
    )
    .unwrap();
    // By a relative path, as the only bot: registered, nobody to play yet.
    let out = ok(pitboss()
        .current_dir(&work)
        .args(["submit", "mybot/bot.toml", "--name", "py", "--registry"])
        .arg(&reg));
    assert!(out.contains("the gauntlet needs two bots"), "{out}");
    let toml = std::fs::read_to_string(reg.join("registry.toml")).unwrap();
    let spec = bot.canonicalize().unwrap().join("bot.toml");
    assert!(
        toml.contains(&format!("spec = \"{}\"", spec.display())),
        "{toml}"
    );
    assert!(reg.join("entries/py/files/pitboss_bot.py").is_file());
    // Submitted from elsewhere, the next bot's gauntlet finds the first one.
    let out = ok(pitboss()
        .current_dir("/")
        .args(["submit", "call", "--name", "c", "--registry"])
        .arg(&reg));
    assert!(out.contains("2 units played"), "{out}");
    // The same folder by another relative path is the same submission.
    let out = ok(pitboss()
        .current_dir(&bot)
        .args(["submit", "bot.toml", "--name", "py", "--registry"])
        .arg(&reg));
    assert!(
        out.contains("registered already with the same files"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// All of a file tree's text, for searching bot logs.
fn all_text(dir: &Path) -> String {
    let mut out = String::new();
    for e in std::fs::read_dir(dir).unwrap().filter_map(Result::ok) {
        let p = e.path();
        if p.is_dir() {
            out += &all_text(&p);
        } else if let Ok(t) = std::fs::read_to_string(&p) {
            out += &t;
        }
    }
    out
}

#[test]
fn no_bot_process_sees_a_deal_again_at_another_table() {
    // Every table of a game plays the same deals. The hostile bot remembers the cards it was
    // dealt in every hand of its process and reports when an opponent shows one of those hands:
    // that is the same deal again with the seats swapped (it sits second at one table, first at
    // the other), so it would have known the opponent's cards. Processes are pooled per table and
    // seat rotation, so that never happens (before, one process served both tables).
    let out = tmp("no-replay");
    let bot = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../external/tests/fixtures/hostile/duplicate_memory.py");
    let python = if Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    };
    ok(pitboss()
        .args(["tournament", "--bot", "c1=call", "--bot"])
        .arg(format!("dm=exec:{python} {}", bot.display()))
        .args(["--bot", "c2=call", "--deals", "200", "--batch", "100"])
        .args(["--seed", "5", "--threads", "1", "--out"])
        .arg(&out));
    let logs = all_text(&out);
    assert!(
        logs.contains("HOSTILE duplicate-memory blocked"),
        "the bot played: {logs}"
    );
    assert!(!logs.contains("SUCCEEDED"), "{logs}");
    let _ = std::fs::remove_dir_all(&out);
}
