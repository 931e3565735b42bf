//! Every deployment file under `deploy/` (Compose, Kubernetes, Slurm, the Dockerfile) is read,
//! and every `pitboss` command it runs is checked against the binary: the subcommand exists and
//! each flag it passes is one that subcommand's `--help` lists. The files cannot go stale.

use std::path::{Path, PathBuf};
use std::process::Command;

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// The `pitboss` invocations of a text: each a list of words (subcommands, then flags), and
/// whether it stands in a comment (where `pitboss` may also be prose: "pitboss reads …").
fn invocations(text: &str) -> Vec<(Vec<String>, bool)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let comment = line.trim_start().starts_with('#');
        // YAML arrays and shell strings alike: quotes, commas and brackets are separators.
        let cleaned: String = line
            .chars()
            .map(|c| if "\"',[]()".contains(c) { ' ' } else { c })
            .collect();
        let words: Vec<&str> = cleaned.split_whitespace().collect();
        for (i, w) in words.iter().enumerate() {
            // A command is `pitboss` and a word that looks like a subcommand (labels such as
            // `app: pitboss, step: shards` and names such as `generic pitboss --from-…` are not).
            let sub = |n: &&str| {
                n.chars().all(|c| c.is_ascii_lowercase() || c == '-') && !n.starts_with('-')
            };
            if *w != "pitboss" || !words.get(i + 1).is_some_and(sub) {
                continue;
            }
            let mut inv = Vec::new();
            for w in &words[i + 1..] {
                if matches!(*w, ">" | "|" | "&&" | ";" | "||" | "\\") || w.starts_with('#') {
                    break;
                }
                inv.push(w.to_string());
            }
            out.push((inv, comment));
        }
    }
    out
}

#[test]
fn every_command_and_flag_in_the_deployment_files_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy");
    let mut all = Vec::new();
    files(&root, &mut all);
    let mut checked = 0;
    for f in &all {
        let text = std::fs::read_to_string(f).unwrap();
        for (inv, comment) in invocations(&text) {
            let subs: Vec<&String> = inv.iter().take_while(|w| !w.starts_with('-')).collect();
            if subs.is_empty() {
                // `pitboss --help`, `pitboss --version`.
                continue;
            }
            // The subcommand path: the longest prefix `pitboss ... --help` accepts.
            let mut path: Vec<&str> = Vec::new();
            for s in &subs {
                let mut try_path = path.clone();
                try_path.push(s);
                let ok = Command::new(env!("CARGO_BIN_EXE_pitboss"))
                    .args(&try_path)
                    .arg("--help")
                    .output()
                    .unwrap()
                    .status
                    .success();
                if !ok {
                    break;
                }
                path = try_path;
            }
            if path.is_empty() && comment {
                continue;
            }
            assert!(
                !path.is_empty(),
                "{}: `pitboss {}`: no such command",
                f.display(),
                inv.join(" ")
            );
            let help = Command::new(env!("CARGO_BIN_EXE_pitboss"))
                .args(&path)
                .arg("--help")
                .output()
                .unwrap();
            let help = String::from_utf8_lossy(&help.stdout);
            for flag in inv.iter().filter(|w| w.starts_with("--")) {
                let name = flag.split('=').next().unwrap();
                assert!(
                    help.contains(&format!("{name} "))
                        || help.contains(&format!("{name}\n"))
                        || help.contains(&format!("{name},")),
                    "{}: `pitboss {}` has no flag {name}",
                    f.display(),
                    path.join(" ")
                );
                checked += 1;
            }
        }
    }
    assert!(
        checked > 20,
        "only {checked} flags found: is the parser still right?"
    );
}

#[test]
fn the_parser_finds_commands_in_yaml_arrays_and_shell_strings() {
    let t = "command: [\"pitboss\", \"serve\", \"--data\", \"/d\"]\n  - PITBOSS_T=$(cat x) exec pitboss worker --queue nats://n:4222 > /x\n";
    let inv = invocations(t);
    assert_eq!(inv[0].0, ["serve", "--data", "/d"]);
    assert_eq!(inv[1].0, ["worker", "--queue", "nats://n:4222"]);
    assert!(invocations("labels: {app: pitboss, step: shards}").is_empty());
}
