//! `pitboss new NAME --lang python|rust`: a new bot's folder made from the SDK example of its
//! language, named NAME everywhere, that works where it is made (outside this repository too:
//! everything it needs is embedded in the `pitboss` binary).

mod python;
mod rust;

use std::path::{Path, PathBuf};

use crate::args_new::{Lang, NewArgs};

/// The names `pitboss new` accepts, in words (for errors and help).
pub const NAME_RULE: &str = "1 to 64 characters: ASCII letters, digits, `-` and `_`, starting \
                             with a letter";

/// Why a bot could not be made.
#[derive(Debug, thiserror::Error)]
pub enum NewError {
    /// NAME is outside [`NAME_RULE`] (or reserved in the bot's language).
    #[error("NAME {name:?} {why}")]
    Name { name: String, why: String },
    /// The folder exists and holds something (or is not a folder).
    #[error("{}: {why}; choose another NAME or --dir, or empty it", path.display())]
    Exists { path: PathBuf, why: &'static str },
    /// A file could not be written.
    #[error("{}: {err}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        err: std::io::Error,
    },
}

/// Whether `name` may name a new bot (its folder, manifest, hello and, in Rust, its package).
///
/// # Errors
/// [`NewError::Name`] saying which characters are allowed.
pub fn check_name(name: &str, lang: Lang) -> Result<(), NewError> {
    let bad = |why: String| NewError::Name {
        name: name.to_string(),
        why,
    };
    let rule = format!("; a name has {NAME_RULE}");
    if name.is_empty() || name.len() > 64 {
        return Err(bad(format!(
            "has {} characters{rule}",
            name.chars().count()
        )));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_')))
    {
        return Err(bad(format!("contains {c:?}{rule}")));
    }
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return Err(bad(format!("does not start with a letter{rule}")));
    }
    if lang == Lang::Rust {
        if let Some(why) = rust::reserved(name) {
            return Err(bad(why));
        }
    }
    Ok(())
}

/// The files of a new bot: (path beneath its folder, contents).
type Files = Vec<(String, String)>;

/// Makes the bot's folder, or refuses (a bad name, a folder that holds something).
///
/// # Errors
/// [`NewError`]; a folder it made is removed again when writing failed.
pub fn run(args: NewArgs) -> anyhow::Result<()> {
    check_name(&args.name, args.lang)?;
    // `mybot`, not `./mybot`, in what is printed.
    let dir = if args.dir == Path::new(".") {
        PathBuf::from(&args.name)
    } else {
        args.dir.join(&args.name)
    };
    let files = match args.lang {
        Lang::Python => python::files(&args.name),
        Lang::Rust => rust::files(&args.name),
    };
    make(&dir, &files)?;
    let note = match args.lang {
        Lang::Python => "Python: bot.py on the SDK pitboss_sdk.py",
        Lang::Rust => {
            if let Err(why) = rust::trim_lock(&dir) {
                eprintln!(
                    "pitboss: warning: {}: {why}\n  it lists every crate of the pitboss workspace: \
                     run `cargo metadata --offline --format-version 1 >/dev/null` in {} once, \
                     or the jail's build (--locked) refuses it",
                    dir.join("Cargo.lock").display(),
                    dir.display()
                );
            }
            "Rust: src/main.rs on the SDK vendored in sdk/"
        }
    };
    let m = dir.join("bot.toml");
    println!("made {} ({note}), named {}", dir.display(), args.name);
    println!("next:");
    println!("  pitboss check {}", m.display());
    println!(
        "  pitboss match --bot {} --bot lowball --hands 2000",
        m.display()
    );
    println!("  pitboss submit {} --name {}", m.display(), args.name);
    Ok(())
}

/// Writes `files` beneath `dir`, which must not exist or be an empty folder.
///
/// # Errors
/// [`NewError::Exists`], or [`NewError::Write`] (what was written is removed again).
fn make(dir: &Path, files: &Files) -> Result<(), NewError> {
    let made = match std::fs::symlink_metadata(dir) {
        Ok(m) if !m.is_dir() => {
            return Err(NewError::Exists {
                path: dir.to_path_buf(),
                why: "exists and is not a folder",
            })
        }
        Ok(_) => {
            let mut entries = std::fs::read_dir(dir).map_err(|err| NewError::Write {
                path: dir.to_path_buf(),
                err,
            })?;
            if entries.next().is_some() {
                return Err(NewError::Exists {
                    path: dir.to_path_buf(),
                    why: "exists and is not empty",
                });
            }
            false
        }
        Err(_) => true,
    };
    let result = files.iter().try_for_each(|(rel, text)| {
        let path = dir.join(rel);
        let parent = path.parent().unwrap_or(dir);
        std::fs::create_dir_all(parent)
            .and_then(|()| std::fs::write(&path, text))
            .map_err(|err| NewError::Write { path, err })
    });
    if let Err(e) = result {
        if made {
            let _ = std::fs::remove_dir_all(dir);
        } else if let Ok(entries) = std::fs::read_dir(dir) {
            for e in entries.flatten() {
                let _ =
                    std::fs::remove_dir_all(e.path()).or_else(|_| std::fs::remove_file(e.path()));
            }
        }
        return Err(e);
    }
    Ok(())
}

/// `text` with `from` replaced by `to` exactly `n` times; panics otherwise (the templates are
/// embedded: the unit tests catch an example whose text changed under a replacement).
fn replace(text: &str, from: &str, to: &str, n: usize) -> String {
    assert_eq!(
        text.matches(from).count(),
        n,
        "the embedded example no longer holds {from:?} {n} time(s)"
    );
    text.replace(from, to)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_outside_the_rule_are_refused_saying_the_rule() {
        for bad in [
            "",
            "1bot",
            "-bot",
            "my bot",
            "my.bot",
            "a/b",
            "é",
            &"a".repeat(65),
        ] {
            let e = check_name(bad, Lang::Python).unwrap_err().to_string();
            assert!(e.contains(NAME_RULE), "{bad:?}: {e}");
        }
        for good in ["mybot", "My_Bot-2", "x"] {
            check_name(good, Lang::Python).unwrap();
            check_name(good, Lang::Rust).unwrap();
        }
        assert!(check_name("test", Lang::Rust).is_err());
        assert!(check_name("fn", Lang::Rust).is_err());
        check_name("test", Lang::Python).unwrap();
    }
}
