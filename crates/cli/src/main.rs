//! The `pitboss` binary: parse arguments, validate them into a config, run the subcommand, and
//! turn the outcome into a named exit code. Everything else lives in `cmd/` and the library crates.

mod args;
mod args_compare;
mod args_new;
mod args_queue;
mod args_service;
mod cmd;
mod exit_codes;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = args::Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    match cmd::run(cli) {
        Ok(()) => ExitCode::from(exit_codes::SUCCESS),
        Err(err) => {
            let code = exit_codes::for_error(&err);
            // Already said on stdout: a failed `phh` check, or a compare verdict.
            let said = err
                .downcast_ref::<cmd::phh::PhhFailed>()
                .is_some_and(|e| e.said)
                || err.downcast_ref::<cmd::compare::Verdict>().is_some();
            if code != exit_codes::SUCCESS && !said {
                // Errors quote names, paths and bot output: nothing in them may drive the
                // terminal.
                let text = format!("{err:#}");
                // A refusal is the server's answer, not an error of ours.
                let kind = if code == exit_codes::REFUSED {
                    ""
                } else {
                    "error: "
                };
                eprintln!("pitboss: {kind}{}", pitboss_arena::name::terminal(&text));
            }
            ExitCode::from(code)
        }
    }
}
