//! A new Python bot: the Python SDK's example renamed, with the SDK (one file) beside it. Both
//! are embedded from `bots/sdk/python/` when `pitboss` is built, so a new bot starts from the SDK
//! this binary was built with.

use super::{replace, Files};

/// The Python SDK, copied beside the bot unchanged.
const SDK: &str = include_str!("../../../../../bots/sdk/python/pitboss_sdk.py");
/// The SDK's example bot: what a new bot starts from.
const EXAMPLE: &str = include_str!("../../../../../bots/sdk/python/example.py");
/// The example's name in its hello and the opening of its docstring, replaced by the new bot's.
const EXAMPLE_NAME: &str = "\"python-sdk-example\"";
const EXAMPLE_OPENING: &str = "\"\"\"The simple Pitboss bot of bots/python/simple on the Python \
                               SDK (pitboss_sdk.py): the same\nstrategy, written as a decision \
                               function only.";

/// The bot's files: `bot.py`, `pitboss_sdk.py`, `bot.toml`.
pub fn files(name: &str) -> Files {
    let bot = replace(EXAMPLE, EXAMPLE_NAME, &format!("{name:?}"), 1);
    let bot = replace(
        &bot,
        EXAMPLE_OPENING,
        &format!(
            "\"\"\"{name}: a Pitboss bot on the Python SDK (pitboss_sdk.py, beside this file), \
             made by\n`pitboss new` from the SDK's example; make its decision function yours."
        ),
        1,
    );
    let manifest = format!(
        r#"# {name}: a Pitboss bot in Python, made by `pitboss new`.
#   pitboss check {name}/bot.toml
#   pitboss match --bot {name}/bot.toml --bot lowball --hands 2000
name = "{name}"
# Relative to this folder: bot.py imports the SDK, pitboss_sdk.py, from beside it.
command = ["python3", "bot.py"]

[limits]
decision_ms = 1000
bank_ms = 10000
memory_mb = 1024
restarts = 3
"#
    );
    vec![
        ("bot.py".into(), bot),
        ("pitboss_sdk.py".into(), SDK.to_string()),
        ("bot.toml".into(), manifest),
        (".gitignore".into(), "__pycache__/\n".into()),
    ]
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_bot_is_the_example_named_as_asked() {
        let files = super::files("zed-9");
        let bot = &files[0].1;
        assert!(bot.contains("name=\"zed-9\""), "{bot}");
        assert!(bot.starts_with("\"\"\"zed-9: "), "{bot}");
        for (path, text) in &files {
            assert!(!text.contains("python-sdk-example"), "{path}");
            assert!(!text.contains("bots/python/simple"), "{path}");
        }
    }
}
