//! `pitboss match` end to end: files written, the leaderboard printed, errors naming the flag/key.

use std::process::Command;

fn pitboss() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pitboss"))
}

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("pitboss-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn match_writes_summary_config_and_history() {
    let out = tmp("files");
    let o = pitboss()
        .args([
            "match", "--game", "27td-fl", "--bot", "lowball", "--bot", "random",
        ])
        .args(["--hands", "2000", "--seed", "3", "--history", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("lowball") && stdout.contains("95% interval"),
        "{stdout}"
    );
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert!(summary.starts_with(
        "bot,hands,net_chips,mean_per_hand,unit,mbb_per_hand,ci95_low,ci95_high,std_dev,faults"
    ));
    assert_eq!(summary.lines().count(), 3);
    let hands = std::fs::read_to_string(out.join("hands.csv")).unwrap();
    assert_eq!(hands.lines().count(), 1 + 2 * 2000);
    // The resolved config repeats the run exactly.
    let again = tmp("again");
    let o = pitboss()
        .arg("match")
        .arg(out.join("config.toml"))
        .arg("--out")
        .arg(&again)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        summary,
        std::fs::read_to_string(again.join("summary.csv")).unwrap()
    );
    let _ = std::fs::remove_dir_all(out);
    let _ = std::fs::remove_dir_all(again);
}

#[test]
fn bad_configuration_names_the_flag_or_key() {
    let cases: &[(&[&str], &str)] = &[
        (&["--bot", "random"], "--bot / bots"),
        (
            &["--bot", "random", "--bot", "nobody"],
            "unknown bot `nobody`",
        ),
        (
            &["--game", "holdem", "--bot", "random", "--bot", "call"],
            "--game / game",
        ),
        (
            &["--bot", "random", "--bot", "call", "--hands", "0"],
            "--hands <HANDS>': 0 is not allowed",
        ),
        (
            &[
                "--bot",
                "random",
                "--bot",
                "call",
                "--hands",
                "3",
                "--duplicate",
            ],
            "not a multiple of 2",
        ),
        (
            &["--bot", "random", "--bot", "call", "--stack", "0"],
            "--stack / stack",
        ),
    ];
    for (args, want) in cases {
        let o = pitboss().arg("match").args(*args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
    }
    let dir = tmp("badfile");
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("m.toml");
    std::fs::write(
        &f,
        "game = \"27td-fl\"\nbots = [\"random\", \"call\"]\nhandz = 5\n",
    )
    .unwrap();
    let o = pitboss().arg("match").arg(&f).output().unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("m.toml") && err.contains("handz"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}
