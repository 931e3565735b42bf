//! Embeds the Rust SDK's sources in the `pitboss` binary for `pitboss new --lang rust`: every
//! file under `src/` of the crates a new bot vendors, listed here at build time so that the copy
//! a new bot gets is always the source this binary was built from (a file added to the SDK is
//! embedded without anyone editing a list). The manifests are embedded by `cmd/new/rust.rs`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The crates a new Rust bot vendors (name, folder from the workspace root): the SDK and what it
/// depends on by path. `cmd::new::rust`'s tests check that this closes over path dependencies.
const VENDORED: [(&str, &str); 2] = [
    ("pitboss-protocol", "crates/protocol"),
    ("pitboss-cards", "crates/cards"),
];

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let root = manifest.join("../..");
    let mut code = String::from(
        "/// The vendored SDK's sources: (path beneath the bot's `sdk/` folder, contents).\n\
         pub const SDK_SOURCES: &[(&str, &str)] = &[\n",
    );
    for (name, dir) in VENDORED {
        let src = root.join(dir).join("src");
        println!("cargo:rerun-if-changed={}", src.display());
        let mut files = Vec::new();
        walk(&src, &mut files);
        for f in files {
            let rel = f.strip_prefix(&src).expect("beneath src");
            let abs = f.canonicalize().expect("an existing file");
            writeln!(
                code,
                "    ({:?}, include_str!({:?})),",
                format!("{name}/src/{}", rel.display()),
                abs.display().to_string()
            )
            .expect("writing to a String");
        }
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    std::fs::write(out.join("sdk_sources.rs"), code).expect("writing OUT_DIR/sdk_sources.rs");
}
