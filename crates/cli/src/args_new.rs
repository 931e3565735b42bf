//! Raw arguments of `pitboss new` (clap derive), kept apart from `args.rs`.

pub const NEW_HELP: &str = r#"Makes the folder NAME (in PARENT, default the current folder) holding a bot that works
where it is made, named NAME everywhere: its folder, its manifest (bot.toml), the name it gives
in its hello, its comments and, in Rust, its Cargo package and binary. Both start from the SDK
example: the fast one (protocol 1.2, terse messages, many tables at once), not the raw protocol-1
teaching example bots/python/simple.

  --lang python   NAME/bot.py (the Python SDK's example, renamed) and the SDK, pitboss_sdk.py,
                  beside it; Python 3 and its standard library only.
  --lang rust     a Cargo crate: NAME/src/main.rs (the Rust example, renamed), the Rust SDK
                  vendored in NAME/sdk/ (pitboss-protocol and pitboss-cards, the source this
                  pitboss was built from) and a Cargo.lock pinned to the versions pitboss was built
                  with, so it builds offline in the jail from cargo's cache (filled by building
                  pitboss). Its manifest reads nothing outside its folder. `pitboss new` runs
                  `cargo metadata --offline` once to trim that Cargo.lock to the bot's crates.

NAME has 1 to 64 characters: ASCII letters, digits, `-` and `_`, starting with a letter (in Rust
also not a Rust keyword nor a name Cargo reserves, such as `test`). An existing folder NAME must be
empty.

Examples:
  pitboss new mybot --lang python
  pitboss check mybot/bot.toml
  pitboss new fastbot --lang rust --dir ~/bots
  pitboss check ~/bots/fastbot/bot.toml
  pitboss submit mybot/bot.toml --name mybot

Exit codes: 0 made, 1 failure (a file could not be written), 2 bad usage (a bad NAME, an unknown
--lang, a folder NAME that is not empty)."#;

/// The language of a new bot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Lang {
    /// A Python 3 script on the Python SDK (pitboss_sdk.py).
    Python,
    /// A Cargo crate on the Rust SDK (pitboss-protocol), vendored.
    Rust,
}

#[derive(Debug, clap::Args)]
pub struct NewArgs {
    /// The bot's name, also its folder's.
    #[arg(value_name = "NAME")]
    pub name: String,
    /// The bot's language.
    #[arg(long, value_enum, value_name = "LANG")]
    pub lang: Lang,
    /// The folder to make NAME in.
    #[arg(long, value_name = "PARENT", default_value = ".")]
    pub dir: std::path::PathBuf,
}
