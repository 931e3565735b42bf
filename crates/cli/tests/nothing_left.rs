//! Nothing left behind (issue #27): the commonest commands, each with an external (Python) bot,
//! leave nothing in their temporary folder. `.ci/run` holds the whole test suite to the same rule
//! (its TMPDIR a fresh folder that must be empty afterwards); this test names the command at
//! fault.

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "common/tmp.rs"]
mod tmp;
use tmp::Tmp;

/// What is in a folder, recursively listed for the failure message.
fn contents(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().filter_map(Result::ok) {
        out.push(e.path().display().to_string());
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            out.extend(contents(&e.path()));
        }
    }
    out
}

#[test]
fn the_common_commands_leave_nothing_in_tmpdir() {
    let root = Tmp::new("root");
    let (tmpdir, work) = (root.0.join("tmpdir"), root.0.join("work"));
    std::fs::create_dir_all(&tmpdir).unwrap();
    // The Python example bot, copied (a bot's folder is its own).
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bots/python/simple");
    let bot = work.join("bot");
    std::fs::create_dir_all(&bot).unwrap();
    for f in ["bot.py", "bot.toml", "pitboss_bot.py"] {
        std::fs::copy(src.join(f), bot.join(f)).unwrap();
    }
    let m = bot.join("bot.toml").display().to_string();
    // A small registry, so that the gauntlet takes a second.
    let reg = work.join("registry");
    std::fs::create_dir_all(&reg).unwrap();
    std::fs::write(
        reg.join("registry.toml"),
        "[settings]\nname = \"t\"\ngames = [\"27td-fl\"]\ndeals = 20\nbatch = 10\nseed = 1\nbootstrap = 10\n",
    )
    .unwrap();
    let w = |p: &str| work.join(p).display().to_string();
    let commands: Vec<Vec<String>> = vec![
        vec!["check", &m, "--game", "27td-fl", "--hands", "20"],
        vec![
            "match",
            "--bot",
            &m,
            "--bot",
            "call",
            "--hands",
            "20",
            "--history",
            "--out",
            &w("m"),
        ],
        vec![
            "tournament",
            "--game",
            "27td-fl",
            "--bot",
            &m,
            "--bot",
            "call",
            "--deals",
            "20",
        ]
        .into_iter()
        .chain(["--batch", "10", "--out", &w("t")])
        .collect(),
        vec!["submit", &m, "--name", "py", "--registry", &w("registry")],
        vec![
            "compare",
            "call",
            &m,
            "--max-hands",
            "400",
            "--batch",
            "100",
            "--out",
            &w("c"),
        ],
        vec!["phh", "show", &w("m/hands.phhs"), "--hand", "1"],
    ]
    .into_iter()
    .map(|c| c.into_iter().map(str::to_string).collect())
    .collect();
    for c in &commands {
        let o = Command::new(env!("CARGO_BIN_EXE_pitboss"))
            .args(c)
            .env("TMPDIR", &tmpdir)
            .current_dir(&work)
            .output()
            .unwrap();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        // compare exits 8 for "no difference shown", which so few hands may well be.
        let fine = o.status.success() || (c[0] == "compare" && o.status.code() == Some(8));
        assert!(fine, "pitboss {}: {said}", c.join(" "));
        assert_eq!(
            contents(&tmpdir),
            Vec::<String>::new(),
            "pitboss {} left these in its TMPDIR: {said}",
            c.join(" ")
        );
    }
}
