//! Issue 23 item 5: limits hold in both modes, and `check` says which are in force.

use crate::harness::*;

/// With a non-root referee no cgroup is delegated here: the memory and process limits fall back
/// to rlimits, in force by default (before, only a manifest's `memory_mb` set any), and `check`
/// names them; as root, the cgroup limits. The attacks themselves (3 GiB touched, 2,000 forks)
/// are `memory_is_limited_per_process` and `a_fork_bomb_is_contained`, run in both modes.
#[test]
fn check_says_which_limits_are_in_force() {
    let _g = lock();
    let a = Arena::new("limits");
    let bot = a.exec("lock_channel.py", &["role=dup".into()]);
    let mut c = a.pitboss();
    c.arg("check")
        .arg(&bot)
        .args(["--game", "27td-fl", "--hands", "10", "--out"])
        .arg(a.root.join("check-out"));
    let run = a.run(c, secs(120));
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let want: &[&str] = if root {
        &["limits on the whole process tree", "cgroup", "64 processes"]
    } else {
        &["RLIMIT_AS", "1024 MiB", "RLIMIT_NPROC", "64 processes"]
    };
    for w in want {
        assert!(
            run.text.contains(w),
            "check does not say {w:?}:\n{}",
            run.text
        );
    }
    let mut f = Findings::default();
    f.clean(&a, &run);
    f.assert(&run);
}
