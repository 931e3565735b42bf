//! `pitboss check BOT`: the arena's check, printed; exit 0 only when the bot is fit.

use pitboss_arena::output::timestamp;
use pitboss_external::{self as external, CheckOptions, ExternalOptions, Limits};

use crate::args::CheckArgs;

/// The bot is not fit for a tournament (the report says why).
#[derive(Debug, thiserror::Error)]
#[error("{0} problem(s) found")]
pub struct NotFit(pub usize);

pub fn run(args: CheckArgs) -> anyhow::Result<()> {
    super::play::install_interrupt_handler(String::new);
    if args.hands == 0 {
        return Err(pitboss_arena::ConfigError {
            key: "--hands",
            why: "must be at least 1".into(),
        }
        .into());
    }
    if pitboss_bots::builtin(&args.against, 1).is_none() {
        return Err(pitboss_arena::ConfigError {
            key: "--against",
            why: format!(
                "unknown built-in bot `{}` ({})",
                args.against,
                pitboss_bots::NAMES.join(", ")
            ),
        }
        .into());
    }
    // Outside the working directory by default, so that a bot checked from its own folder cannot
    // read the check's output (the sandbox lets an exec: bot read its script's folder).
    let chosen = args.out.is_some();
    let out = args.out.unwrap_or_else(|| {
        std::env::temp_dir().join(format!(
            "pitboss-check-{}-{}",
            timestamp(),
            std::process::id()
        ))
    });
    let co = CheckOptions {
        game: args.game,
        hands: args.hands,
        opponent: args.against,
        external: ExternalOptions {
            limits: Limits {
                decision_ms: args.decision_ms,
                bank_ms: args.bank_ms,
                ..Limits::default()
            },
            sandbox: !args.no_sandbox,
            freeze_idle: false,
            transcript: true,
            // One budget for the whole check: the check sets it.
            transcript_share: None,
            out: out.clone(),
            build: external::BuildOptions {
                sandbox: !args.no_sandbox,
                network: args.build_network,
            },
            allow_read_outside: args.allow_read_outside,
        },
        allow_read_outside: args.allow_read_outside,
    };
    // A folder of our own making is removed unless it is needed: nothing left behind unsaid.
    let remove = |out: &std::path::Path| {
        if !chosen {
            let _ = std::fs::remove_dir_all(out);
        }
    };
    let report = match external::check(&args.bot, pitboss_bots::builtin, &co) {
        Ok(r) => r,
        Err(e) => {
            remove(&out);
            return Err(pitboss_arena::ConfigError {
                key: "BOT",
                why: e.to_string(),
            }
            .into());
        }
    };
    for l in &report.lines {
        // Lines quote the bot's output (fault details, its stderr): made printable.
        println!("{}", pitboss_arena::name::terminal(l));
    }
    if report.fit() {
        if args.keep || chosen {
            println!("logs and transcripts: {}", out.display());
        } else {
            remove(&out);
        }
    }
    if report.fit() {
        Ok(())
    } else {
        Err(NotFit(report.problems).into())
    }
}
