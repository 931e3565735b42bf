//! External bots: programs in any language speaking the JSON-lines protocol (`protocol.md`) over
//! stdin/stdout, supervised as child processes. The arena (`pitboss-arena`) knows players, not
//! processes: this crate gives it players and multi-table processes behind its `Player`,
//! `BotFactory` and `MultiProcess` traits, so that everything that can go wrong with a process
//! (spawning, the jail, deadlines, restarts, floods, crashes, logs) lives here, apart from the
//! rules of the match.
//!
//! * [`spec`]: what `--bot` accepts (built-in name, `exec:COMMAND`, `bot.toml`), kept in the
//!   arena (a match's config names its bots from it) and re-exported here;
//! * [`lines`]: bounded line reading;
//! * [`session`]: one process — spawn, handshake, exchanges under deadlines, termination;
//! * [`launch`]: from a spec to the jail's view, limits and environment (the jail itself is the
//!   `pitboss-jail` crate);
//! * [`build`]: a manifest's build step, in the same jail;
//! * [`player`]: the [`Player`](pitboss_arena::Player) over a session, with time bank, restarts and
//!   forfeit, and the [`BotFactory`](pitboss_arena::BotFactory) for all spec kinds: processes
//!   pooled per lane (a phase of a duplicate match), ended when their phase ends, each recorded
//!   in `bots/processes.csv`.

pub mod botlog;
pub mod build;
mod build_dir;
pub mod check;
pub mod launch;
pub mod lines;
pub mod multi;
pub mod player;
mod procs;
mod rt;
pub mod session;
pub use pitboss_arena::spec;

pub use check::{check, CheckOptions, CheckReport};
pub use pitboss_jail as jail;
pub use player::jail_description;
pub use player::{BuiltinFn, ExternalFactory, ExternalOptions, ExternalPlayer, Report};
pub use session::{become_subreaper, kill_all, live_groups};
pub use spec::{
    display_name, display_names, BotSpec, BuildOptions, ExternalSpec, Limits, SpecError,
};
