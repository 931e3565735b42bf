//! One module per subcommand; `run` dispatches. Each command validates its arguments into a
//! config first, then does its work against generic readers and writers so tests can drive it.

pub mod botfiles;
pub mod bots;
pub mod check;
pub mod compare;
pub mod eval;
pub mod games;
pub mod merge;
pub mod new;
pub mod outdir;
pub mod phh;
pub mod play;
pub mod report;
pub mod run;
pub mod serve;
pub mod submit;
pub mod tournament;
pub mod upload;
pub mod worker;

use crate::args::{Cli, Command, PhhCommand};

/// Runs the chosen subcommand.
///
/// # Errors
/// Whatever the subcommand reports; `exit_codes::for_error` maps it to an exit code.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    // The per-user registry holds a secret salt and seed: whatever the command, no jail may
    // bind it (a build that guessed it from a home folder found it there before).
    if let Ok((dir, _)) = submit::registry_dir(None, &|k| std::env::var(k).ok()) {
        submit::protect_registry(&dir);
    }
    match cli.command {
        Command::Eval(args) => eval::run(eval::Config::from_args(args)?)?,
        Command::New(args) => new::run(args)?,
        Command::Match(args) => play::run(args)?,
        Command::Tournament(args) => tournament::run(args)?,
        Command::Merge(args) => merge::run(args)?,
        Command::Report(args) => report::run(args)?,
        Command::Compare(args) => compare::run(args)?,
        Command::Submit(args) => submit::run(args)?,
        Command::Run(args) => run::run(args)?,
        Command::Phh(PhhCommand::Verify(args)) => {
            phh::verify(&args.files, args.expect_annotations, args.strict_dealing)?
        }
        Command::Phh(PhhCommand::Show(args)) => phh::show(&args.file, args.hand, args.compact)?,
        Command::Check(args) => check::run(args)?,
        Command::Upload(args) => upload::run(args)?,
        Command::Serve(args) => serve::serve(args)?,
        Command::Token(cmd) => serve::token(cmd)?,
        Command::Backup(args) => serve::backup(args)?,
        Command::Worker(args) => worker::run(args)?,
    }
    Ok(())
}
