//! Work handed to worker threads in jobs that can be kept apart in time.
//!
//! Why: a bot that runs as processes could pass what one process saw to another of its processes
//! through any channel two processes on one machine share — the jail closes the ones it can
//! (files, sockets, locks, signals), but CPU time, caches and memory pressure cannot be closed.
//! In a duplicate match the same deal is played in every seat rotation, so a process that saw
//! deal `d` from one seat must not be alive while a process of the same bot plays `d` from
//! another: the match is played in *phases* (a chunk of deals in one seat rotation), every
//! process of a phase serves only that phase and is ended when it is over, before the next phase
//! of the same bot starts (see [`crate::runner`] and the tournament crate).
//!
//! A [`Job`] is such a phase (or any unit of work that needs no such care): a list of items and
//! the *holds* it takes — ids of bots whose processes it uses. A job starts only when no open job
//! holds one of its ids, so two jobs of one bot are never open at once; items of open jobs go to
//! the workers in job order. When the last item of a job is done, the caller's close action runs
//! (it ends the job's processes) and only then are its holds released. Jobs start in order: a job
//! that cannot start yet keeps later jobs from taking its holds, so none waits for ever.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard};

/// One job: its items and the ids it holds while it is open.
pub struct Job<I> {
    pub items: Vec<I>,
    /// Ids (e.g. bots that run as processes) no other open job may hold at the same time.
    pub holds: Vec<usize>,
}

struct JobState<I> {
    items: VecDeque<I>,
    holds: Vec<usize>,
    started: bool,
    /// Items handed out or waiting, not yet done.
    left: usize,
    closed: bool,
}

/// Jobs not yet started that the scheduler looks at to find one that can start (the rest of the
/// list is read from its iterator as jobs close).
const LOOKAHEAD: usize = 256;

struct State<I> {
    /// The jobs read from the list and not yet closed at the front; `jobs[0]` is job `base`.
    jobs: VecDeque<JobState<I>>,
    base: usize,
    source: Box<dyn Iterator<Item = Job<I>> + Send>,
    exhausted: bool,
    held: Vec<usize>,
    stopped: bool,
}

impl<I> State<I> {
    /// Reads one more job from the list; `false` when there is none.
    fn pull(&mut self) -> bool {
        if self.exhausted {
            return false;
        }
        match self.source.next() {
            Some(j) => {
                self.jobs.push_back(JobState {
                    left: j.items.len(),
                    // A job with nothing to play needs no holds.
                    closed: j.items.is_empty(),
                    items: j.items.into(),
                    holds: j.holds,
                    started: false,
                });
                true
            }
            None => {
                self.exhausted = true;
                false
            }
        }
    }
}

/// Hands out the items of a list of jobs to worker threads (see the module docs). The list is
/// an iterator, read as the work goes on (a match of 10^12 hands has 10^9 blocks).
pub struct Scheduler<I> {
    state: Mutex<State<I>>,
    cv: Condvar,
}

impl<I> Scheduler<I> {
    pub fn new(jobs: impl Iterator<Item = Job<I>> + Send + 'static) -> Scheduler<I> {
        Scheduler {
            state: Mutex::new(State {
                jobs: VecDeque::new(),
                base: 0,
                source: Box::new(jobs),
                exhausted: false,
                held: Vec::new(),
                stopped: false,
            }),
            cv: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<I>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The next item and the index of its job, waiting while every remaining item belongs to a
    /// job that cannot start yet; `None` when all items are handed out (or after [`Self::stop`]).
    pub fn next(&self) -> Option<(usize, I)> {
        let mut st = self.lock();
        loop {
            if st.stopped {
                return None;
            }
            while st.jobs.front().is_some_and(|j| j.closed) {
                st.jobs.pop_front();
                st.base += 1;
            }
            let mut wanted: Vec<usize> = Vec::new();
            let mut blocked = 0usize;
            let mut i = 0;
            loop {
                if i == st.jobs.len() && (blocked >= LOOKAHEAD || !st.pull()) {
                    break;
                }
                let State { jobs, held, .. } = &mut *st;
                let job = &mut jobs[i];
                i += 1;
                if job.closed {
                    continue;
                }
                if !job.started {
                    if job
                        .holds
                        .iter()
                        .any(|h| held.contains(h) || wanted.contains(h))
                    {
                        // Later jobs may not overtake it on its holds.
                        wanted.extend_from_slice(&job.holds);
                        blocked += 1;
                        continue;
                    }
                    job.started = true;
                    held.extend_from_slice(&job.holds);
                }
                if let Some(item) = job.items.pop_front() {
                    let j = st.base + i - 1;
                    return Some((j, item));
                }
            }
            if blocked == 0 {
                // What is left is in the hands of other workers.
                return None;
            }
            st = self.cv.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// One item of job `job` (as [`Self::next`] numbered it) is done. When it was the job's last,
    /// `close` runs (outside the scheduler's lock: the workers of other jobs go on meanwhile),
    /// then the job's holds are released.
    pub fn done(&self, job: usize, close: impl FnOnce()) {
        let last = {
            let mut st = self.lock();
            let i = job - st.base;
            let j = &mut st.jobs[i];
            j.left = j.left.saturating_sub(1);
            j.left == 0 && j.items.is_empty()
        };
        if last {
            close();
            let mut st = self.lock();
            let i = job - st.base;
            let State { jobs, held, .. } = &mut *st;
            let j = &mut jobs[i];
            j.closed = true;
            for h in &j.holds {
                if let Some(k) = held.iter().position(|x| x == h) {
                    held.swap_remove(k);
                }
            }
            drop(st);
            self.cv.notify_all();
        }
    }

    /// Hands out nothing more (a failure): waiting workers return.
    pub fn stop(&self) {
        self.lock().stopped = true;
        self.cv.notify_all();
    }

    /// A guard for a worker: if the worker panics, the scheduler stops, so that the others do
    /// not wait for ever for a job that will never close (the panic then reaches the caller).
    pub fn stop_on_panic(&self) -> StopOnPanic<'_, I> {
        StopOnPanic(self)
    }
}

/// See [`Scheduler::stop_on_panic`].
pub struct StopOnPanic<'a, I>(&'a Scheduler<I>);

impl<I> Drop for StopOnPanic<'_, I> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.stop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Job, Scheduler};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;

    #[test]
    fn jobs_holding_the_same_id_never_overlap() {
        // Three phases of one bot, then a job of nobody's processes.
        let jobs = vec![
            Job {
                items: (0..5).collect(),
                holds: vec![7],
            },
            Job {
                items: (10..15).collect(),
                holds: vec![7],
            },
            Job {
                items: (20..25).collect(),
                holds: vec![7, 8],
            },
            Job {
                items: (30..33).collect(),
                holds: vec![],
            },
        ];
        let s = Scheduler::new(jobs.into_iter());
        let open = [
            AtomicUsize::new(0),
            AtomicUsize::new(0),
            AtomicUsize::new(0),
            AtomicUsize::new(0),
        ];
        let closed = Mutex::new(Vec::new());
        let seen = Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    while let Some((j, item)) = s.next() {
                        if j < 3 {
                            open[j].fetch_add(1, Ordering::SeqCst);
                            for (o, c) in open.iter().enumerate().take(3) {
                                if o != j {
                                    assert_eq!(c.load(Ordering::SeqCst), 0, "{o} open with {j}");
                                }
                            }
                        }
                        std::thread::sleep(std::time::Duration::from_millis(2));
                        seen.lock().unwrap().push(item);
                        if j < 3 {
                            open[j].fetch_sub(1, Ordering::SeqCst);
                        }
                        s.done(j, || closed.lock().unwrap().push(j));
                    }
                });
            }
        });
        let mut seen = seen.into_inner().unwrap();
        seen.sort_unstable();
        let want: Vec<i32> = (0..5).chain(10..15).chain(20..25).chain(30..33).collect();
        assert_eq!(seen, want);
        let closed = closed.into_inner().unwrap();
        let pos = |j| closed.iter().position(|&x| x == j).unwrap();
        assert!(pos(0) < pos(1) && pos(1) < pos(2), "{closed:?}");
    }

    #[test]
    fn a_blocked_job_is_not_overtaken_on_its_holds() {
        // Job 1 needs ids 1 and 2; job 0 holds 1. Job 2 (id 2) must wait for job 1.
        let s = Scheduler::new(
            vec![
                Job {
                    items: vec![0],
                    holds: vec![1],
                },
                Job {
                    items: vec![1],
                    holds: vec![1, 2],
                },
                Job {
                    items: vec![2],
                    holds: vec![2],
                },
            ]
            .into_iter(),
        );
        let (j, _) = s.next().unwrap();
        assert_eq!(j, 0);
        std::thread::scope(|scope| {
            let h = scope.spawn(|| s.next().map(|x| x.0));
            std::thread::sleep(std::time::Duration::from_millis(50));
            assert!(!h.is_finished(), "job 2 started before job 1");
            s.done(0, || {});
            assert_eq!(h.join().unwrap(), Some(1));
        });
    }
}
