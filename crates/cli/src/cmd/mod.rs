//! One module per subcommand; `run` dispatches. Each command validates its arguments into a
//! config first, then does its work against generic readers and writers so tests can drive it.

pub mod check;
pub mod eval;
pub mod phh;
pub mod play;

use crate::args::{Cli, Command, PhhCommand};

/// Runs the chosen subcommand.
///
/// # Errors
/// Whatever the subcommand reports; `exit_codes::for_error` maps it to an exit code.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Eval(args) => eval::run(eval::Config::from_args(args)?)?,
        Command::Match(args) => play::run(args)?,
        Command::Phh(PhhCommand::Verify(args)) => {
            phh::verify(&args.files, args.expect_annotations)?
        }
        Command::Phh(PhhCommand::Show(args)) => phh::show(&args.file, args.hand)?,
        Command::Check(args) => check::run(args)?,
    }
    Ok(())
}
