//! Issue 23 item 7 and the last part of item 10: `pitboss submit` takes only what it means to from
//! a bot's folder (regular files and folders inside it, within a file count and a total length),
//! refuses everything else by name before any of the bot's code runs, and `registry.toml` changes
//! only when the gauntlet succeeded: a refused bot, a failed gauntlet or a submit killed with
//! SIGKILL mid-gauntlet leave it byte for byte as it was, with no half-written entry (or one the
//! next submit removes).
//!
//! Besides what the suite relies on (main.rs), these rely on: `submit --max-files`; the registry's
//! `entries/NAME/`, `incoming/` (staged entries) and `pending.toml` (a submission in flight);
//! `tournament/plan.json` holding `"seed": 1,` and `tournament/units/` files named after the bots;
//! the texts `registry.toml is unchanged`, `undid the interrupted submission of NAME` and
//! `N units played, M reused`.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::harness::*;

/// A small gauntlet (one game, few deals); the registry starts with no bots.
const SMALL: &str = "[settings]\nname = \"hostile\"\ngames = [\"27td-fl\"]\ndeals = 20\nbatch = 10\nseed = 1\nbootstrap = 10\n";

fn new_registry(a: &Arena, settings: &str) -> Vec<u8> {
    std::fs::create_dir_all(&a.registry).unwrap();
    std::fs::write(a.registry.join("registry.toml"), settings).unwrap();
    settings.as_bytes().to_vec()
}

fn submit(a: &Arena, bot: &str, name: &str, flags: &[&str], limit: Duration) -> Run {
    let mut c = a.pitboss();
    c.args(["submit", bot, "--name", name, "--threads", "1"])
        .args(flags)
        .arg("--registry")
        .arg(&a.registry);
    a.run(c, limit)
}

/// Every file (not folder) under `dir`, and the disk it takes.
fn files_under(dir: &Path) -> (Vec<PathBuf>, u64) {
    use std::os::unix::fs::MetadataExt;
    let (mut files, mut bytes) = (Vec::new(), 0);
    let Ok(rd) = std::fs::read_dir(dir) else {
        return (files, bytes);
    };
    for e in rd.flatten() {
        let m = e.path().symlink_metadata().unwrap();
        if m.is_dir() {
            let (f, b) = files_under(&e.path());
            files.extend(f);
            bytes += b;
        } else {
            bytes += m.blocks() * 512;
            files.push(e.path());
        }
    }
    (files, bytes)
}

/// The registry is as it was: `registry.toml` byte for byte, no entry of `name`, and (when given)
/// no file holding `secret`; then [`settled`].
fn unchanged(f: &mut Findings, a: &Arena, before: &[u8], name: &str, secret: Option<&str>) {
    as_before(f, a, before, name, secret);
    settled(f, a);
}

/// `registry.toml` byte for byte as before, no `entries/<name>`, no file holding `secret`.
fn as_before(f: &mut Findings, a: &Arena, before: &[u8], name: &str, secret: Option<&str>) {
    let now = std::fs::read(a.registry.join("registry.toml")).unwrap_or_default();
    f.check(now == before, || {
        format!(
            "registry.toml changed:\n--- before\n{}\n--- after\n{}",
            String::from_utf8_lossy(before),
            String::from_utf8_lossy(&now)
        )
    });
    let entry = a.registry.join("entries").join(name);
    f.check(!entry.exists(), || format!("{} exists", entry.display()));
    if let Some(s) = secret {
        let (files, _) = files_under(&a.registry);
        for p in files {
            let text = std::fs::read(&p).unwrap_or_default();
            f.check(!String::from_utf8_lossy(&text).contains(s), || {
                format!("the secret was copied into the registry: {}", p.display())
            });
        }
    }
}

/// No submission in flight: nothing staged in `incoming/`, no `pending.toml`.
fn settled(f: &mut Findings, a: &Arena) {
    let (files, _) = files_under(&a.registry.join("incoming"));
    f.check(files.is_empty(), || format!("staged files left: {files:?}"));
    let pending = a.registry.join("pending.toml");
    f.check(!pending.exists(), || format!("{} left", pending.display()));
}

/// The submission was refused promptly, by name, before the bot ran.
fn refused(f: &mut Findings, run: &Run, what: &[&str]) {
    f.check(run.status.is_some(), || {
        format!(
            "submit did not return within its bound ({:.0?})",
            run.elapsed
        )
    });
    f.check(run.status.is_some_and(|s| !s.success()), || {
        "submit did not refuse the folder".into()
    });
    for w in what {
        f.check(run.text.contains(w), || {
            format!("the refusal does not say {w:?}")
        });
    }
    f.check(!run.text.contains("conformance check passed"), || {
        "the bot's code ran (its check) before its files were vetted".into()
    });
}

#[test]
fn submit_refuses_links_out_of_the_bot_folder() {
    let _g = lock();
    let a = Arena::new("subln");
    let before = new_registry(&a, SMALL);
    let m = a.manifest("submit_copy.toml", &[]);
    // A root-only file outside the folder (owned by whoever runs the test: root, or with a
    // non-root referee its own user, which may read it: the link is refused all the same).
    let secret = format!("ROOT-ONLY-SECRET-{}", a.tag);
    let target = a.root.join("root-only.txt");
    std::fs::write(&target, &secret).unwrap();
    std::fs::set_permissions(&target, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    // SAFETY: getuid has no preconditions.
    let root = unsafe { libc::getuid() } == 0;
    eprintln!(
        "referee {}: the link's target is owned by uid {}",
        if root { "as root" } else { "not root" },
        // SAFETY: as above.
        unsafe { libc::getuid() }
    );
    std::os::unix::fs::symlink(&target, a.bots.join("notes.txt")).unwrap();
    let run = submit(&a, &m.display().to_string(), "hostile", &[], secs(120));
    let mut f = Findings::default();
    refused(&mut f, &run, &["\"notes.txt\"", "symbolic link"]);
    unchanged(&mut f, &a, &before, "hostile", Some(&secret));
    f.clean(&a, &run);
    f.assert(&run);
}

#[test]
fn submit_refuses_fifos_and_proc_files_without_hanging() {
    let _g = lock();
    let mut f = Findings::default();
    let mut last = None;
    for (case, what) in [
        ("fifo", &["\"pipe\"", "fifo"][..]),
        ("kmsg", &["\"kmsg\"", "symbolic link"][..]),
    ] {
        let a = Arena::new(&format!("sub{case}"));
        let before = new_registry(&a, SMALL);
        let m = a.manifest("submit_copy.toml", &[]);
        if case == "fifo" {
            let p = std::ffi::CString::new(a.bots.join("pipe").display().to_string()).unwrap();
            // SAFETY: a valid C string.
            assert_eq!(unsafe { libc::mkfifo(p.as_ptr(), 0o644) }, 0);
        } else {
            std::os::unix::fs::symlink("/proc/kmsg", a.bots.join("kmsg")).unwrap();
        }
        // The bound: a referee that reads the fifo (or /proc/kmsg as root) waits forever.
        let run = submit(&a, &m.display().to_string(), "hostile", &[], secs(90));
        let n = f.0.len();
        refused(&mut f, &run, what);
        unchanged(&mut f, &a, &before, "hostile", None);
        f.clean(&a, &run);
        for x in &mut f.0[n..] {
            *x = format!("{case}: {x}");
        }
        last = Some(run);
    }
    f.assert(&last.unwrap());
}

#[test]
fn submit_refuses_a_sparse_gigabyte_without_reading_it() {
    let _g = lock();
    let a = Arena::new("subsparse");
    let before = new_registry(&a, SMALL);
    let m = a.manifest("submit_copy.toml", &[]);
    // 1 GiB by length, no disk: refused by its length, never read.
    std::fs::File::create(a.bots.join("weights.bin"))
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let run = submit(&a, &m.display().to_string(), "hostile", &[], secs(300));
    let mut f = Findings::default();
    refused(
        &mut f,
        &run,
        &["\"weights.bin\"", "1073741824 bytes", "--max-size-mb"],
    );
    unchanged(&mut f, &a, &before, "hostile", None);
    let (files, disk) = files_under(&a.registry);
    f.check(disk < 1 << 20, || {
        format!("the registry takes {disk} bytes of disk: {files:?}")
    });
    f.check(run.hwm_kib < 64 * 1024, || {
        format!("referee VmHWM {} KiB: the file was read", run.hwm_kib)
    });
    f.clean(&a, &run);
    f.assert(&run);
}

#[test]
fn submit_refuses_too_many_files() {
    let _g = lock();
    let a = Arena::new("submany");
    let before = new_registry(&a, SMALL);
    let m = a.manifest("submit_copy.toml", &[]);
    let data = a.bots.join("data");
    std::fs::create_dir_all(&data).unwrap();
    for i in 0..10_001 {
        std::fs::write(data.join(format!("{i}")), "").unwrap();
    }
    let run = submit(&a, &m.display().to_string(), "hostile", &[], secs(120));
    let mut f = Findings::default();
    refused(&mut f, &run, &["more than 10000 files", "--max-files"]);
    unchanged(&mut f, &a, &before, "hostile", None);
    f.clean(&a, &run);
    // The operator's limit: the folder without data/ holds some twenty files, over 5.
    std::fs::remove_dir_all(&data).unwrap();
    let run = submit(
        &a,
        &m.display().to_string(),
        "hostile",
        &["--max-files", "5"],
        secs(120),
    );
    refused(&mut f, &run, &["more than 5 files"]);
    unchanged(&mut f, &a, &before, "hostile", None);
    f.clean(&a, &run);
    f.assert(&run);
}

#[test]
fn a_failed_check_or_gauntlet_leaves_the_registry_as_it_was() {
    let _g = lock();
    let a = Arena::new("subfail");
    new_registry(&a, SMALL);
    let mut f = Findings::default();
    for b in ["call", "random"] {
        let run = submit(&a, b, b, &[], secs(120));
        f.check(run.status.is_some_and(|s| s.success()), || {
            format!("submitting {b} failed:\n{}", run.text)
        });
    }
    let before = std::fs::read(a.registry.join("registry.toml")).unwrap();
    // A bot that fails its check.
    let dead = format!(
        "exec:{} {}",
        python(),
        a.bots.join("no-such-bot.py").display()
    );
    let run = submit(&a, &dead, "dead", &[], secs(120));
    f.check(run.status.is_some_and(|s| !s.success()), || {
        "a bot that fails its check was accepted".into()
    });
    unchanged(&mut f, &a, &before, "dead", None);
    // A gauntlet that fails: its plan was edited (refused by its checksum).
    let plan = a.registry.join("tournament/plan.json");
    let good = std::fs::read_to_string(&plan).unwrap();
    let bad = good.replacen("\"seed\": 1,", "\"seed\": 2,", 1);
    assert_ne!(good, bad, "plan.json has no \"seed\": 1");
    std::fs::write(&plan, bad).unwrap();
    let run = submit(&a, "raise", "maniac", &[], secs(120));
    f.check(run.status.is_some_and(|s| !s.success()), || {
        "the gauntlet on an edited plan succeeded".into()
    });
    f.check(run.text.contains("registry.toml is unchanged"), || {
        "the failure does not say the registry is unchanged".into()
    });
    unchanged(&mut f, &a, &before, "maniac", None);
    // Once the plan is restored, the same submission goes through.
    std::fs::write(&plan, good).unwrap();
    let run = submit(&a, "raise", "maniac", &[], secs(120));
    f.check(run.status.is_some_and(|s| s.success()), || {
        "the submission after the failed one did not go through".into()
    });
    let toml = std::fs::read_to_string(a.registry.join("registry.toml")).unwrap();
    f.check(toml.contains("name = \"maniac\""), || {
        format!("maniac not registered:\n{toml}")
    });
    f.check(
        a.registry.join("entries/maniac/entry.toml").exists(),
        || "no entries/maniac/entry.toml".into(),
    );
    f.clean(&a, &run);
    f.assert(&run);
}

#[test]
fn a_submit_killed_mid_gauntlet_changes_nothing_and_the_next_one_works() {
    let _g = lock();
    let a = Arena::new("subkill");
    // A gauntlet long enough to be killed in: one pairing of 400 units.
    new_registry(
        &a,
        "[settings]\nname = \"hostile\"\ngames = [\"27td-fl\"]\ndeals = 40000\nbatch = 100\nseed = 1\nbootstrap = 10\n",
    );
    let mut f = Findings::default();
    let run = submit(&a, "call", "call", &[], secs(120));
    f.check(run.status.is_some_and(|s| s.success()), || {
        format!("submitting call failed:\n{}", run.text)
    });
    let before = std::fs::read(a.registry.join("registry.toml")).unwrap();
    let units = a.registry.join("tournament/units");
    let mut c = a.pitboss();
    c.args([
        "submit",
        "raise",
        "--name",
        "maniac",
        "--threads",
        "1",
        "--registry",
    ])
    .arg(&a.registry)
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    let mut child = c.spawn().unwrap();
    let start = Instant::now();
    let mut killed_after = None;
    while start.elapsed() < secs(120) {
        let n = std::fs::read_dir(&units)
            .map(|d| {
                d.flatten()
                    .filter(|e| e.file_name().to_string_lossy().contains("maniac"))
                    .count()
            })
            .unwrap_or(0);
        if n >= 1 {
            child.kill().unwrap();
            killed_after = Some(n);
            break;
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = child.kill();
    let status = child.wait().unwrap();
    eprintln!("submit killed after {killed_after:?} units of maniac: {status:?}");
    f.check(killed_after.is_some(), || {
        "the gauntlet ended (or never started) before it could be killed".into()
    });
    // What the killed submission staged stays until the next one.
    as_before(&mut f, &a, &before, "maniac", None);
    // The next submission (another bot under that name) tidies up, replays every unit of the
    // pairing (none of the killed run's results is reused) and registers it.
    let run = submit(&a, "random", "maniac", &[], secs(300));
    f.check(run.status.is_some_and(|s| s.success()), || {
        "the submission after the killed one failed".into()
    });
    f.check(
        run.text
            .contains("undid the interrupted submission of maniac"),
        || "the next submission did not undo the killed one".into(),
    );
    f.check(run.text.contains("400 units played, 0 reused"), || {
        "results of the killed submission were reused".into()
    });
    let toml = std::fs::read_to_string(a.registry.join("registry.toml")).unwrap();
    f.check(
        toml.contains("name = \"maniac\"") && toml.contains("spec = \"random\""),
        || format!("maniac (random) not registered:\n{toml}"),
    );
    settled(&mut f, &a);
    f.clean(&a, &run);
    f.assert(&run);
}
