//! Leaderboards in every structure (issue #27): `pitboss run` and `submit` rank pot and no limit
//! too, not fixed limit only, and `submit --game` takes any preset or `all`. Each test failed on
//! the main branch before the change.

use std::path::PathBuf;
use std::process::Command;

const SIX: [&str; 6] = [
    "27td-fl", "27td-pl", "27td-nl", "stud8-fl", "stud8-pl", "stud8-nl",
];

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

/// The games line of a TOML text (`games = [...]`).
fn games_of(toml: &str) -> Vec<String> {
    let line = toml
        .lines()
        .find(|l| l.trim_start().starts_with("games = "))
        .unwrap_or_else(|| panic!("no games line: {toml}"));
    line.split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn the_default_tournament_plays_all_six_presets() {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/default_tournament.toml");
    let games = games_of(&std::fs::read_to_string(file).unwrap());
    assert_eq!(games, SIX);
    let (code, out, _) = run(pitboss().args(["help", "run"]));
    assert_eq!(code, 0);
    for g in SIX {
        assert!(out.contains(g), "`pitboss help run` names {g}: {out}");
    }
}

#[test]
fn submit_game_takes_a_pot_or_no_limit_preset_and_a_registry_keeps_its_games() {
    let reg = Tmp::absent("nl");
    let (code, out, err) = run(pitboss()
        .args([
            "submit",
            "call",
            "--name",
            "caller",
            "--game",
            "27td-nl",
            "--registry",
        ])
        .arg(&reg.0));
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("caller ranks"), "{out}");
    let toml = std::fs::read_to_string(reg.0.join("registry.toml")).unwrap();
    assert_eq!(games_of(&toml), ["27td-nl"], "{toml}");
    let plan = std::fs::read_to_string(reg.0.join("tournament/plan.json")).unwrap();
    assert!(
        plan.contains("27td-nl") && !plan.contains("27td-fl"),
        "{plan}"
    );
    // The registry's games are its own: another list is refused, naming the flag and the games.
    let (code, _, err) = run(pitboss()
        .args([
            "submit",
            "raise",
            "--name",
            "r",
            "--game",
            "all",
            "--registry",
        ])
        .arg(&reg.0));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--game") && err.contains("27td-nl"), "{err}");
    // The same list is the registry's: accepted.
    let (code, _, err) = run(pitboss()
        .args([
            "submit",
            "raise",
            "--name",
            "r",
            "--game",
            "27td-nl",
            "--registry",
        ])
        .arg(&reg.0));
    assert_eq!(code, 0, "{err}");
    // A word that is no preset is named.
    let other = Tmp::absent("bad");
    let (code, _, err) = run(pitboss()
        .args([
            "submit",
            "call",
            "--name",
            "c",
            "--game",
            "27td-xl",
            "--registry",
        ])
        .arg(&other.0));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--game") && err.contains("27td-xl"), "{err}");
    assert!(
        !other.0.exists(),
        "a refused first submission leaves no registry"
    );
}
