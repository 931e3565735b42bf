//! Output folders: a run never mixes its files with another run's. A non-empty `--out` is used
//! only when it holds the same run (a match with the same `config.toml`, a tournament with a
//! `plan.json`, which the tournament checks itself); `--force` empties it first.

use std::path::{Path, PathBuf};

use anyhow::Context;
use pitboss_arena::ConfigError;

/// The entries of `dir` (none when it does not exist), sorted, for the refusal message.
fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Makes `out` ready for a run: refuses a non-empty folder unless `same_run` says it holds this
/// run, or empties it when `force` is set.
///
/// # Errors
/// A [`ConfigError`] on `--out` naming the folder and what is in it; I/O errors while emptying.
pub fn prepare(out: &Path, force: bool, same_run: impl Fn(&Path) -> bool) -> anyhow::Result<()> {
    let found = entries(out);
    if found.is_empty() {
        return Ok(());
    }
    if force {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        let abs = out.canonicalize().unwrap_or_else(|_| out.to_path_buf());
        if cwd.starts_with(&abs) {
            return Err(ConfigError {
                key: "--force",
                why: format!(
                    "{} holds the current folder; refusing to empty it",
                    out.display()
                ),
            }
            .into());
        }
        std::fs::remove_dir_all(out).with_context(|| format!("emptying {}", out.display()))?;
        std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
        eprintln!(
            "pitboss: --force: emptied {} ({} entries removed)",
            out.display(),
            found.len()
        );
        return Ok(());
    }
    if same_run(out) {
        return Ok(());
    }
    let shown: Vec<&str> = found.iter().take(5).map(String::as_str).collect();
    Err(ConfigError {
        key: "--out",
        why: format!(
            "{} is not empty ({}{}) and does not hold this run; choose another folder, or add \
             --force to delete what is in it",
            out.display(),
            shown.join(", "),
            if found.len() > 5 { ", ..." } else { "" }
        ),
    }
    .into())
}

/// A path as a shell word (quoted when it has anything but safe characters), for the commands we
/// print for the user to paste.
pub fn shell_word(p: &Path) -> String {
    let s = p.display().to_string();
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:=@,".contains(c))
    {
        s
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}
