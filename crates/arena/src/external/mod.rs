//! External bots: programs in any language speaking the JSON-lines protocol (`protocol.md`) over
//! stdin/stdout, supervised as child processes.
//!
//! * [`spec`]: what `--bot` accepts (built-in name, `exec:COMMAND`, `bot.toml`);
//! * [`lines`]: bounded line reading;
//! * [`session`]: one process — spawn, handshake, exchanges under deadlines, termination;
//! * [`sandbox`]: Landlock and a network namespace, where the kernel allows;
//! * [`player`]: the [`Player`](crate::Player) over a session, with time bank, restarts and
//!   forfeit, and the [`BotFactory`](crate::BotFactory) for all spec kinds.

pub mod check;
pub mod lines;
pub mod player;
pub mod sandbox;
pub mod session;
pub mod spec;

pub use check::{check, CheckOptions, CheckReport};
pub use player::{BuiltinFn, ExternalFactory, ExternalOptions, ExternalPlayer, Report};
pub use session::{become_subreaper, kill_all, live_groups};
pub use spec::{display_name, display_names, BotSpec, ExternalSpec, Limits, SpecError};
