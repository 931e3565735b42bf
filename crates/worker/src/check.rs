//! The check of an uploaded version: its bundle unpacked into a fresh folder (the bundle crate's
//! rules: nothing leaves the folder, no links, no special files, bounded sizes), then
//! `pitboss check` — which builds it in the jail and plays a short match — in **every preset of
//! the ladder**, one after the other. A version plays only when every preset is fit: a bot that
//! breaks on a no-limit raise would otherwise forfeit its way down the ladder.

use std::fmt::Write as _;

use pitboss_external::{self as external, CheckOptions, ExternalOptions};

use crate::{bot_dir, BotRef, Settings};

/// The most of a check's log kept (it quotes the bot's own output).
pub const LOG_CAP: usize = 64 * 1024;

/// Checks a version: (fit, log). Built-in bots are fit without a check.
pub fn check(s: &Settings, bot: &BotRef, presets: &[String]) -> (bool, String) {
    if !bot.builtin.is_empty() {
        return (true, format!("built-in bot {}", bot.builtin));
    }
    let mut log = String::new();
    let fit = match check_inner(s, bot, presets, &mut log) {
        Ok(fit) => fit,
        Err(why) => {
            let _ = writeln!(log, "PROBLEM: {why}");
            false
        }
    };
    // The check's own folder (the bot's stderr logs, up to 1 MiB each, and its transcripts, up
    // to 32 MiB) goes: what the owner gets is the log below, capped. Kept, it cost the disk tens
    // of MiB per upload for ever, at the uploader's choosing (red team: a 6 MB stderr flood
    // left 2.2 MB per upload).
    let _ = std::fs::remove_dir_all(s.files.version_dir(bot.version).join("check"));
    let _ = writeln!(
        log,
        "{}",
        if fit {
            "service verdict: FIT — the version joins the ladder"
        } else {
            "service verdict: NOT FIT — the version will not play; fix it and upload again"
        }
    );
    if log.len() > LOG_CAP {
        let mut cut = LOG_CAP;
        while !log.is_char_boundary(cut) {
            cut -= 1;
        }
        log.truncate(cut);
        log.push_str("\n[log cut]\n");
    }
    (fit, log)
}

fn check_inner(
    s: &Settings,
    bot: &BotRef,
    presets: &[String],
    log: &mut String,
) -> Result<bool, String> {
    let home = s.files.version_dir(bot.version);
    // A check cut short by a kill left a half-built folder: start again from the bundle.
    if home.exists() {
        std::fs::remove_dir_all(&home).map_err(|e| format!("{}: {e}", home.display()))?;
    }
    std::fs::create_dir_all(&home).map_err(|e| format!("{}: {e}", home.display()))?;
    let bundle = s.files.bundle(&bot.sha256);
    let bytes = std::fs::read(&bundle).map_err(|e| format!("the bundle {}: {e}", bot.sha256))?;
    let dir = bot_dir(&s.files, bot.version);
    let un = pitboss_bundle::unpack(&bytes, &dir, &pitboss_bundle::Limits::default())
        .map_err(|e| format!("bundle refused: {e}"))?;
    let _ = writeln!(
        log,
        "bundle {}: {} files, {} bytes unpacked",
        &bot.sha256[..12],
        un.files,
        un.bytes
    );
    // The bundle's folder is made private (0700); the jail runs the bot under a uid of its
    // own, which must enter it. Its parents stay private: the jail shows the bot this folder
    // alone, and other users of the machine see nothing of `versions/`.
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let manifest = dir.join("bot.toml");
    if !manifest.is_file() {
        return Err("the bundle has no bot.toml at its root (pack the bot's folder itself)".into());
    }
    let mut fit = true;
    for preset in presets {
        let co = CheckOptions {
            game: Some(preset.clone()),
            hands: s.check_hands,
            opponent: "call".into(),
            external: ExternalOptions {
                sandbox: s.sandbox,
                transcript: true,
                transcript_share: None,
                out: home.join("check").join(preset),
                build: external::BuildOptions {
                    sandbox: s.sandbox,
                    network: false,
                },
                allow_read_outside: false,
                ..ExternalOptions::default()
            },
            allow_read_outside: false,
        };
        let _ = writeln!(log, "== check {preset}");
        match external::check(&manifest.display().to_string(), pitboss_bots::builtin, &co) {
            Ok(rep) => {
                for l in &rep.lines {
                    let _ = writeln!(log, "{l}");
                }
                fit &= rep.fit();
            }
            Err(e) => {
                let _ = writeln!(log, "PROBLEM: {e}");
                fit = false;
            }
        }
        if !fit {
            // The first preset that fails says enough; the rest would repeat it.
            break;
        }
    }
    Ok(fit)
}
