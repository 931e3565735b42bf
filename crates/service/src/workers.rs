//! Where jobs run. The scheduler sees only [`Workers`]: how many jobs it may hand out at once and
//! a way to hand one out, with the result coming back on a channel. Local threads today
//! ([`LocalWorkers`]); a message queue with workers on other machines is another implementation
//! of the same two methods, not another scheduler.

use std::sync::Arc;

use pitboss_worker::{Job, JobResult, Settings};
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::oneshot;

/// A job's result on its way to the scheduler, with a way to be told once it is recorded.
///
/// A queue acknowledges a result to its broker only after the database holds it: a server
/// killed between the two gets the result again on its next start, where the store counts it
/// once. Acknowledged on receipt instead, a result was lost with the process, and its match,
/// re-queued on the restart, could wait for ever for a result the broker had already dropped.
#[derive(Debug)]
pub struct Finished {
    pub result: JobResult,
    /// Sent `()` once the result is in the database (dropped unsent if it never is).
    pub recorded: Option<oneshot::Sender<()>>,
}

impl From<JobResult> for Finished {
    fn from(result: JobResult) -> Finished {
        Finished {
            result,
            recorded: None,
        }
    }
}

/// Something that runs jobs.
pub trait Workers: Send + Sync + 'static {
    /// Jobs that may run at once.
    fn capacity(&self) -> usize;
    /// Starts `job`; its result is sent on `done` (always exactly one result per job).
    fn submit(&self, job: Job, done: UnboundedSender<Finished>);
    /// A one-line description for the operator's page.
    fn describe(&self) -> String;
    /// The worker a match handed out is recorded as until its worker says who it is: `local`
    /// for threads of this process; empty for a queue, whose workers name themselves when they
    /// start a job (the operator page then shows who plays it).
    fn claimant(&self) -> &'static str {
        "local"
    }
}

/// The nice value of worker threads (0 is the web server's).
pub const WORKER_NICE: i32 = 10;

fn lower_priority() {
    // SAFETY: setpriority on this thread's id (Linux: nice is per thread, inherited by the
    // threads and processes it starts); a failure only leaves the priority as it was.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        let _ = libc::setpriority(libc::PRIO_PROCESS, tid, WORKER_NICE);
    }
}

/// Jobs on threads of this process (the jail gives each bot its own processes).
pub struct LocalWorkers {
    settings: Arc<Settings>,
    slots: usize,
}

impl LocalWorkers {
    pub fn new(settings: Settings, slots: usize) -> LocalWorkers {
        LocalWorkers {
            settings: Arc::new(settings),
            slots: slots.max(1),
        }
    }
}

impl Workers for LocalWorkers {
    fn capacity(&self) -> usize {
        self.slots
    }

    fn submit(&self, job: Job, done: UnboundedSender<Finished>) {
        let s = self.settings.clone();
        // A thread of its own at a lower priority (its referee threads and bots inherit it): the
        // web server's threads come first, so pages answer in milliseconds however busy the
        // ladder keeps the cores.
        let spawned = std::thread::Builder::new()
            .name("pitboss-worker".into())
            .spawn(move || {
                lower_priority();
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    pitboss_worker::run(&s, &job)
                }));
                let r = r.unwrap_or_else(|p| {
                    let why = p
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_else(|| "a panic".into());
                    match &job {
                        Job::Check { bot, .. } => JobResult::Checked {
                            version: bot.version,
                            fit: false,
                            log: format!("PROBLEM: the check itself failed ({why})"),
                        },
                        Job::Play { id, .. } => JobResult::Failed {
                            id: *id,
                            error: format!("the worker failed: {why}"),
                            culprit: None,
                            detail: String::new(),
                        },
                    }
                });
                let _ = done.send(r.into());
            });
        if let Err(e) = spawned {
            tracing::error!("cannot start a worker thread: {e}");
        }
    }

    fn describe(&self) -> String {
        format!(
            "{} local worker slot(s), {} referee thread(s) per match, jail {}",
            self.slots,
            self.settings.threads,
            if self.settings.sandbox { "on" } else { "OFF" }
        )
    }
}
