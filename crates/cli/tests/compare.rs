//! `pitboss compare OLD NEW` end to end: a decided verdict in the right direction whichever order
//! the bots are given, a bot against itself never found different, bad specs named, an external
//! bot in the jail, nothing left in the temp folder.

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

/// The verdict line's parts: head, mean, interval, hands. Panics unless stdout is that one line.
fn verdict(stdout: &str) -> (String, f64, f64, f64, u64) {
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "one verdict line: {stdout}");
    let (head, rest) = lines[0].split_once(": ").expect("head: rest");
    // "+682.2 mbb/hand [556.9, 807.6] (6144 hands)"
    let num = |s: &str| s.trim().parse::<f64>().unwrap();
    let (mean, rest) = rest.split_once(" mbb/hand [").unwrap();
    let (lo, rest) = rest.split_once(", ").unwrap();
    let (hi, rest) = rest.split_once("] (").unwrap();
    let hands = rest.strip_suffix(" hands)").unwrap().parse().unwrap();
    (head.to_string(), num(mean), num(lo), num(hi), hands)
}

fn compare(old: &str, new: &str) -> Command {
    let mut c = pitboss();
    c.args(["compare", old, new]);
    c
}

#[test]
fn raise_and_equity_are_told_apart_in_both_orders() {
    // equity beats raise by far more than delta: decided long before the budget.
    for (old, new, head, code) in [
        ("raise", "equity", "NEW is better", 0),
        ("equity", "raise", "NEW is worse", 7),
    ] {
        let (c, out, err) = run(compare(old, new).args(["--max-hands", "40000", "--seed", "11"]));
        assert_eq!(c, code, "{old} vs {new}: {out}{err}");
        let (h, mean, lo, hi, hands) = verdict(&out);
        assert_eq!(h, head, "{out}");
        assert!(lo <= mean && mean <= hi, "{out}");
        if code == 0 {
            assert!(lo > 0.0, "{out}");
        } else {
            assert!(hi < 0.0, "{out}");
        }
        assert!(hands < 40_000, "decided before the budget: {out}");
        assert!(err.contains("the test found NEW"), "{err}");
    }
}

#[test]
fn a_bot_against_itself_shows_no_difference_and_leaves_nothing_behind() {
    let tmp = Tmp::absent("same");
    std::fs::create_dir_all(&tmp.0).unwrap();
    let (c, out, err) = run(compare("call", "call")
        .args(["--max-hands", "6000", "--batch", "2000"])
        .env("TMPDIR", &tmp.0));
    assert_eq!(c, 8, "{out}{err}");
    let (h, mean, lo, hi, hands) = verdict(&out);
    assert_eq!(h, "no difference shown", "{out}");
    // Duplicate: two identical deterministic bots cancel out deal by deal.
    assert_eq!((mean, lo, hi), (0.0, 0.0, 0.0), "{out}");
    assert!(hands >= 6000, "{out}");
    assert!(err.contains("budget of 6000 hands ran out"), "{err}");
    let left: Vec<_> = std::fs::read_dir(&tmp.0).unwrap().collect();
    assert!(left.is_empty(), "left in the temp folder: {left:?}");
}

#[test]
fn a_bad_spec_or_game_is_usage_naming_the_argument() {
    for (args, key) in [
        (
            vec!["no-such-bot", "call"],
            "OLD: unknown bot `no-such-bot`",
        ),
        (vec!["call", "exec:"], "NEW: `exec:`"),
        (vec!["call", "raise", "--game", "holdem"], "--game"),
        (vec!["call", "raise", "--delta", "0"], "--delta"),
    ] {
        let (c, out, err) = run(pitboss().arg("compare").args(&args));
        assert_eq!(c, 2, "{args:?}: {out}{err}");
        assert!(out.is_empty(), "{out}");
        assert!(err.contains(key), "{args:?}: {err}");
    }
}

#[test]
fn an_external_bot_plays_in_the_jail_and_out_keeps_the_results() {
    let bot = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bots/sdk/python");
    let out = Tmp::absent("external");
    let (c, stdout, err) = run(pitboss()
        .arg("compare")
        .arg("call")
        .arg(&bot)
        .args(["--max-hands", "4000", "--batch", "2000", "--out"])
        .arg(&out.0));
    assert!([0, 7, 8].contains(&c), "{stdout}{err}");
    let (h, _, lo, hi, _) = verdict(&stdout);
    match c {
        0 => assert!(h == "NEW is better" && lo > 0.0, "{stdout}"),
        7 => assert!(h == "NEW is worse" && hi < 0.0, "{stdout}"),
        _ => assert_eq!(h, "no difference shown"),
    }
    assert!(err.contains("jail"), "{err}");
    assert_eq!(
        std::fs::read_to_string(out.0.join("verdict.txt")).unwrap(),
        stdout
    );
    let summary = std::fs::read_to_string(out.0.join("27td-fl/summary.csv")).unwrap();
    assert_eq!(summary.lines().count(), 3, "{summary}");
    assert!(summary.contains("python-sdk-example"), "{summary}");
    let log = std::fs::read_to_string(out.0.join("bots/2-python-sdk-example.log")).unwrap();
    assert!(log.contains("jail"), "{log}");
}

#[test]
fn several_games_take_turns() {
    let (c, out, err) = run(compare("raise", "equity").args([
        "--game",
        "27td-fl",
        "--game",
        "stud8-fl",
        "--max-hands",
        "40000",
        "--batch",
        "1024",
        "--seed",
        "5",
    ]));
    assert_eq!(c, 0, "{out}{err}");
    assert!(err.contains("27td-fl, stud8-fl"), "{err}");
    assert!(err.contains("(last batch 27td-fl)"), "{err}");
    assert!(err.contains("(last batch stud8-fl)"), "{err}");
    assert!(verdict(&out).0 == "NEW is better", "{out}");
}
