//! `pitboss phh verify` and `pitboss phh show`: thin wiring around `pitboss_phh::cli`, which
//! returns the text and status; here they are printed and mapped to exit codes.

use crate::exit_codes;

/// A PHH command that ended with a non-zero status (its message is already printed).
#[derive(Debug, thiserror::Error)]
#[error("{what}")]
pub struct PhhFailed {
    pub code: u8,
    pub what: &'static str,
    /// The report already said why on stderr: one error line per failure, not two.
    pub said: bool,
}

fn finish(r: pitboss_phh::cli::Report) -> anyhow::Result<()> {
    print!("{}", r.stdout);
    eprint!("{}", r.stderr);
    let said = !r.stderr.trim().is_empty();
    match r.code {
        0 => Ok(()),
        1 => Err(PhhFailed {
            code: exit_codes::NOT_VERIFIED,
            what: "not verified",
            said,
        }
        .into()),
        3 => Err(PhhFailed {
            code: exit_codes::USAGE,
            what: "bad usage",
            said,
        }
        .into()),
        _ => Err(PhhFailed {
            code: exit_codes::BAD_INPUT,
            what: "malformed PHH input",
            said,
        }
        .into()),
    }
}

/// Verifies files (or checks gen_hands.py's `_pitboss_expect` labels).
///
/// # Errors
/// [`PhhFailed`] with the exit code when a hand is not verified or a file is malformed.
pub fn verify(
    files: &[String],
    expect_annotations: bool,
    strict_dealing: bool,
) -> anyhow::Result<()> {
    finish(if expect_annotations {
        pitboss_phh::cli::cli_verify_expectations(files, strict_dealing)
    } else {
        pitboss_phh::cli::cli_verify(files, strict_dealing)
    })
}

/// Shows a file's hands.
///
/// # Errors
/// [`PhhFailed`] when the file is malformed or the hand does not exist.
pub fn show(file: &str, hand: Option<usize>, compact: bool) -> anyhow::Result<()> {
    finish(pitboss_phh::cli::cli_show(file, hand, compact))
}
