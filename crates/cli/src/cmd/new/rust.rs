//! A new Rust bot: a Cargo crate of its own (its own workspace) holding the Rust example renamed
//! and the Rust SDK vendored beneath `sdk/` — `pitboss-protocol` and `pitboss-cards`, the
//! source this binary was built from (listed by `build.rs`, so a file added to them comes
//! along), their manifests resolved out of the pitboss workspace. Its Cargo.lock starts as the
//! workspace's, so every crate keeps the version pitboss was built with and `cargo build
//! --offline` finds it in cargo's cache; `cargo metadata --offline` then trims it to the bot's
//! crates, so that the jail's build (`--locked`, read-only folder) has nothing to rewrite.

use std::path::Path;
use std::process::{Command, Stdio};

use toml::{Table, Value};

use super::{replace, Files};

include!(concat!(env!("OUT_DIR"), "/sdk_sources.rs"));

/// The workspace's manifest (for the `workspace = true` values) and lock (for the versions).
const WORKSPACE: &str = include_str!("../../../../../Cargo.toml");
const LOCK: &str = include_str!("../../../../../Cargo.lock");
/// The vendored crates' manifests, by crate name (the folder names beneath `sdk/`).
const MANIFESTS: [(&str, &str); 2] = [
    (
        "pitboss-protocol",
        include_str!("../../../../protocol/Cargo.toml"),
    ),
    (
        "pitboss-cards",
        include_str!("../../../../cards/Cargo.toml"),
    ),
];
/// The Rust example, what a new bot starts from; its name and its opening line are replaced.
const EXAMPLE: &str = include_str!("../../../../../bots/rust-example/src/main.rs");
const EXAMPLE_NAME: &str = "\"rust-example";
const EXAMPLE_OPENING: &str = "//! An example external bot for Pitboss, in Rust.";

/// Why `name` cannot name a Cargo package and binary, if it cannot.
pub fn reserved(name: &str) -> Option<String> {
    const KEYWORDS: [&str; 52] = [
        "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
        "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
        "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub",
        "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "try",
        "type", "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
    ];
    const CARGO: [&str; 9] = [
        "test",
        "build",
        "deps",
        "examples",
        "incremental",
        "core",
        "std",
        "alloc",
        "proc_macro",
    ];
    let crate_name = name.replace('-', "_");
    if KEYWORDS.contains(&crate_name.as_str()) {
        return Some("is a Rust keyword: it cannot name a Cargo package".into());
    }
    if CARGO.contains(&crate_name.as_str()) {
        return Some("is reserved by Cargo and Rust: it cannot name a Cargo package".into());
    }
    if MANIFESTS
        .iter()
        .any(|(k, _)| k.replace('-', "_") == crate_name)
    {
        return Some("is the name of a crate of the Rust SDK, vendored beside the bot".into());
    }
    None
}

/// The bot's files: `Cargo.toml`, `Cargo.lock`, `bot.toml`, `src/main.rs`, `sdk/…`. An embedded
/// manifest that cannot be resolved is a bug the unit tests catch (it panics).
pub fn files(name: &str) -> Files {
    let ws: Table = WORKSPACE
        .parse()
        .expect("the workspace's Cargo.toml parses");
    let edition = ws["workspace"]["package"]["edition"]
        .as_str()
        .expect("workspace.package.edition");
    let main = replace(EXAMPLE, EXAMPLE_NAME, &format!("\"{name}"), 2);
    let main = replace(
        &main,
        EXAMPLE_OPENING,
        &format!("//! {name}: a Pitboss bot in Rust, made by `pitboss new` from the Rust example."),
        1,
    );
    let mut deps = String::new();
    for (krate, _) in MANIFESTS {
        deps.push_str(&format!("{krate} = {{ path = \"sdk/{krate}\" }}\n"));
    }
    let cargo = format!(
        r#"# {name}: a Pitboss bot in Rust, made by `pitboss new`. The Rust SDK is vendored in sdk/.
[package]
name = "{name}"
version = "0.1.0"
edition = "{edition}"
publish = false

[dependencies]
{deps}
# A workspace of its own: cargo looks for none above this folder.
[workspace]
"#
    );
    let manifest = format!(
        r#"# {name}: a Pitboss bot in Rust, made by `pitboss new`.
#   pitboss check {name}/bot.toml
#   pitboss match --bot {name}/bot.toml --bot lowball --hands 2000
name = "{name}"
# Relative to this folder. Built by `build` below before a match.
command = ["target/release/{name}"]
# The build runs in the bot's jail: no network (hence --offline: the crates come from cargo's
# cache, filled by building pitboss), writing only `build_dir`, so Cargo.lock must already list
# every crate (--locked says so if not: after changing [dependencies], run
# `cargo build --offline` here once, outside the jail). It reads nothing outside this folder.
build = ["cargo", "build", "--release", "--offline", "--locked", "-q", "--target-dir", "target"]
build_dir = "target"

[limits]
decision_ms = 1000
bank_ms = 10000
memory_mb = 512
restarts = 3
"#
    );
    let mut files: Files = vec![
        ("Cargo.toml".into(), cargo),
        ("Cargo.lock".into(), LOCK.to_string()),
        ("bot.toml".into(), manifest),
        ("src/main.rs".into(), main),
        (".gitignore".into(), "target/\n".into()),
    ];
    for (krate, text) in MANIFESTS {
        files.push((
            format!("sdk/{krate}/Cargo.toml"),
            vendored_manifest(text, &ws),
        ));
    }
    for (path, text) in SDK_SOURCES {
        files.push((format!("sdk/{path}"), (*text).to_string()));
    }
    files
}

/// A vendored crate's manifest, standing alone: `workspace = true` values taken from the
/// workspace, path dependencies pointing at their vendored siblings, no dev-dependencies,
/// benches or tests (their files are not vendored).
fn vendored_manifest(text: &str, ws: &Table) -> String {
    let mut m: Table = text.parse().expect("a vendored crate's Cargo.toml parses");
    let wsp = &ws["workspace"]["package"];
    let wsd = &ws["workspace"]["dependencies"];
    let inherited = |v: &Value| {
        v.as_table()
            .and_then(|t| t.get("workspace"))
            .and_then(Value::as_bool)
            == Some(true)
    };
    if let Some(Value::Table(p)) = m.get_mut("package") {
        for (k, v) in p.iter_mut() {
            if inherited(v) {
                *v = wsp[k.as_str()].clone();
            }
        }
        p.insert("publish".into(), Value::Boolean(false));
    }
    for k in [
        "dev-dependencies",
        "build-dependencies",
        "bench",
        "test",
        "example",
        "lints",
    ] {
        m.remove(k);
    }
    if let Some(Value::Table(deps)) = m.get_mut("dependencies") {
        for (dep, v) in deps.iter_mut() {
            let mut t = Table::new();
            if inherited(v) {
                match &wsd[dep.as_str()] {
                    Value::String(s) => {
                        t.insert("version".into(), Value::String(s.clone()));
                    }
                    Value::Table(w) => t = w.clone(),
                    other => panic!("workspace dependency {dep}: {other}"),
                }
                for (k, x) in v.as_table().into_iter().flatten() {
                    if k != "workspace" {
                        t.insert(k.clone(), x.clone());
                    }
                }
            } else {
                match v {
                    Value::String(s) => {
                        t.insert("version".into(), Value::String(s.clone()));
                    }
                    Value::Table(w) => t = w.clone(),
                    other => panic!("dependency {dep}: {other}"),
                }
            }
            if t.contains_key("path") {
                assert!(
                    MANIFESTS.iter().any(|(k, _)| k == dep),
                    "path dependency {dep} is not vendored (add it to build.rs and MANIFESTS)"
                );
                t.insert("path".into(), Value::String(format!("../{dep}")));
            }
            *v = Value::Table(t);
        }
    }
    format!(
        "# Vendored by `pitboss new` from pitboss {}: the Rust SDK, as pitboss was built with it.\n{}",
        env!("CARGO_PKG_VERSION"),
        toml::to_string(&m).expect("a TOML table serializes")
    )
}

/// Trims the bot's Cargo.lock (the workspace's) to the bot's crates, keeping their versions:
/// `cargo metadata --offline`, outside the jail, in the bot's folder.
///
/// # Errors
/// Why cargo could not (not found, a crate missing from its cache), with its stderr's tail.
pub fn trim_lock(dir: &Path) -> Result<(), String> {
    let out = Command::new("cargo")
        .args([
            "metadata",
            "--offline",
            "--format-version",
            "1",
            "--manifest-path",
        ])
        .arg(dir.join("Cargo.toml"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => "cargo not found on PATH".to_string(),
            _ => format!("cargo metadata: {e}"),
        })?;
    if out.status.success() {
        return Ok(());
    }
    let err = String::from_utf8_lossy(&out.stderr);
    let tail: Vec<&str> = err.lines().rev().take(5).collect();
    Err(format!(
        "cargo metadata --offline: {}",
        tail.into_iter().rev().collect::<Vec<_>>().join("\n")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bot_is_the_example_named_as_asked_with_the_sdk_beside_it() {
        let files = files("zed-9");
        let get = |p: &str| &files.iter().find(|(q, _)| q == p).unwrap().1;
        assert!(get("src/main.rs").contains("Options::new(\"zed-9\")"));
        assert!(get("Cargo.toml").contains("name = \"zed-9\""));
        assert!(get("bot.toml").contains("command = [\"target/release/zed-9\"]"));
        for (path, text) in &files {
            if !path.starts_with("sdk/") && path != "Cargo.lock" {
                assert!(!text.contains("rust-example"), "{path}");
                assert!(
                    !text.contains("../"),
                    "{path} reads outside the bot's folder"
                );
            }
        }
        // Every source file of the SDK's crates is vendored, byte for byte.
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        for (krate, dir) in [
            ("pitboss-protocol", "crates/protocol"),
            ("pitboss-cards", "crates/cards"),
        ] {
            let lib = std::fs::read_to_string(root.join(dir).join("src/lib.rs")).unwrap();
            assert_eq!(get(&format!("sdk/{krate}/src/lib.rs")), &lib);
        }
    }

    #[test]
    fn vendored_manifests_stand_alone() {
        let ws: Table = WORKSPACE.parse().unwrap();
        for (krate, text) in MANIFESTS {
            let m = vendored_manifest(text, &ws);
            assert!(!m.contains("workspace"), "{krate}: {m}");
            let t: Table = m.parse().unwrap();
            assert_eq!(t["package"]["name"].as_str(), Some(krate));
            assert!(t.get("dev-dependencies").is_none(), "{m}");
        }
        let protocol = vendored_manifest(MANIFESTS[0].1, &ws);
        assert!(
            protocol.contains("path = \"../pitboss-cards\""),
            "{protocol}"
        );
    }
}
