//! The exit codes of `pitboss`, named so that scripts and tests can rely on them.

use crate::cmd::eval::EvalError;

/// Everything went well (also: the reader of our output went away, e.g. `pitboss eval | head`).
pub const SUCCESS: u8 = 0;
/// An unexpected failure (I/O error, internal error).
pub const FAILURE: u8 = 1;
/// Bad command-line usage (clap reports these itself, with this code).
pub const USAGE: u8 = 2;
/// Bad input data: a holding with an unknown or duplicate card or the wrong number of cards.
pub const BAD_INPUT: u8 = 3;

/// `pitboss phh verify`: a hand is not verified (or a cross-check disagreement).
pub const NOT_VERIFIED: u8 = 4;

/// `pitboss match --strict`: a bot forfeited or faulted on more than 1% of its decisions.
pub const BOT_TROUBLE: u8 = 5;

/// `pitboss upload`: the server refused the upload (bad bundle, token, name, size or quota).
pub const REFUSED: u8 = 6;

/// `pitboss compare`: NEW is worse than OLD.
pub const WORSE: u8 = 7;

/// `pitboss compare`: no difference shown (smaller than --delta, or undecided within the budget).
pub const NO_DIFFERENCE: u8 = 8;

/// The exit code for an error that ended a command.
pub fn for_error(err: &anyhow::Error) -> u8 {
    if err.downcast_ref::<pitboss_arena::ConfigError>().is_some() {
        return USAGE;
    }
    if matches!(
        err.downcast_ref::<crate::cmd::new::NewError>(),
        Some(crate::cmd::new::NewError::Name { .. } | crate::cmd::new::NewError::Exists { .. })
    ) {
        return USAGE;
    }
    if err.downcast_ref::<crate::cmd::play::Troubled>().is_some() {
        return BOT_TROUBLE;
    }
    if err.downcast_ref::<crate::cmd::upload::Refused>().is_some() {
        return REFUSED;
    }
    match err.downcast_ref::<crate::cmd::compare::Verdict>() {
        Some(crate::cmd::compare::Verdict::Worse) => return WORSE,
        Some(crate::cmd::compare::Verdict::NoDifference) => return NO_DIFFERENCE,
        None => {}
    }
    if let Some(e) = err.downcast_ref::<crate::cmd::phh::PhhFailed>() {
        return e.code;
    }
    match err.downcast_ref::<EvalError>() {
        Some(EvalError::Holding { .. }) => BAD_INPUT,
        Some(EvalError::Config(_)) => USAGE,
        Some(EvalError::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => SUCCESS,
        _ => FAILURE,
    }
}
