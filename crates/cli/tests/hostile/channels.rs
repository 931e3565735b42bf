//! Issue 23: kernel objects two jails share (items 1, 2 and 10), and paths the bot's build can
//! turn into links (item 3).

use crate::harness::*;

/// Every attack of `lock_channel.py`.
const LOCK_ATTACKS: [&str; 11] = [
    "lock-record-shared",
    "lock-record-own",
    "lock-ofd-own",
    "lock-ofd-shared",
    "lock-flock",
    "lock-lease",
    "watch-dnotify",
    "watch-inotify",
    "watch-fanotify",
    "x32-socket",
    "x32-getpid",
];

fn attacks() -> Vec<&'static str> {
    if std::env::consts::ARCH == "x86_64" {
        LOCK_ATTACKS.to_vec()
    } else {
        LOCK_ATTACKS[..7].to_vec()
    }
}

/// Item 1: the two seat rotations of a duplicate deal are played by different processes of the
/// same bot; byte-range locks on the bot's own script (and on /etc/passwd, which every jail
/// binds) carried the cards of a deal from one rotation to the other.
#[test]
fn locks_carry_no_card_between_the_rotations_of_a_duplicate_deal() {
    let _g = lock();
    let a = Arena::new("lockdup");
    let bot = a.exec("lock_channel.py", &["role=dup".into()]);
    let run = a.run_match(&[bot, "call".into()], 40, &["--duplicate"], secs(90));
    assert_match(&a, &run, 40, &attacks());
}

/// Item 2: two colluders at one table, through locks on a system file and on their script.
#[test]
fn locks_carry_no_card_between_colluders() {
    let _g = lock();
    let a = Arena::new("lockcol");
    let bot = |role: &str| a.exec("lock_channel.py", &[format!("role={role}")]);
    let run = a.run_match(
        &[bot("A"), bot("B")],
        30,
        &["--decision-ms", "5000"],
        secs(90),
    );
    assert_match(&a, &run, 30, &attacks());
}

/// Item 3: `read = ["build/p0", ...]` names nothing when the manifest is vetted; the build makes
/// each a link to a secret of the referee. The links are refused when the bot's processes are
/// prepared (a fault that names the path), never followed: the bot never starts, the match still
/// completes with every hand, and nothing of the targets is read.
#[test]
fn a_read_path_the_build_turns_into_a_link_is_refused_at_spawn() {
    let _g = lock();
    let a = Arena::new("readlink");
    std::fs::create_dir_all(&a.registry).unwrap();
    std::fs::write(
        a.registry.join("registry.toml"),
        "[settings]\nname = \"hostile\"\ngames = [\"27td-fl\"]\ndeals = 20\nbatch = 10\nseed = 1\nbootstrap = 10\n",
    )
    .unwrap();
    let targets = [
        a.out.join("config.toml"),
        a.out.clone(),
        a.registry.join("registry.toml"),
        a.registry.join("tournament"),
    ];
    let text: Vec<String> = targets.iter().map(|t| t.display().to_string()).collect();
    std::fs::write(a.bots.join("targets.txt"), text.join("\n")).unwrap();
    let m = a.manifest("read_link.toml", &[]);
    let mut f = Findings::default();

    // match: the bot's seat forfeits, the match completes, the refusal names the link.
    let run = a.run_match(
        &[m.display().to_string(), "call".into()],
        10,
        &[],
        secs(120),
    );
    f.of_match(&a, &run, 10, &[]);
    let log = std::fs::read_to_string(a.out.join("match.log")).unwrap_or_default();
    let said = format!("{}{log}{}", run.text, run.logs());
    f.check(
        said.contains("build/p0") && said.contains("symbolic link"),
        || "match: no fault naming build/p0 as a link".into(),
    );

    // check: not fit, and it says why.
    let out = a.root.join("check-out");
    let mut c = a.pitboss();
    c.arg("check")
        .arg(&m)
        .args(["--game", "27td-fl", "--hands", "10", "--out"])
        .arg(&out);
    let run = a.run(c, secs(120));
    f.check(run.status.is_some_and(|s| !s.success()), || {
        "check: a bot whose read path is a link was found fit".into()
    });
    f.check(run.text.contains("build/p0"), || {
        "check: the refusal does not name build/p0".into()
    });
    f.no_success("check: bot logs", &run.logs(), &[]);

    // submit: refused, and the registry's settings unchanged.
    let before = std::fs::read(a.registry.join("registry.toml")).unwrap();
    let mut c = a.pitboss();
    c.arg("submit")
        .arg(&m)
        .args(["--name", "readlink", "--threads", "1", "--registry"])
        .arg(&a.registry);
    let run = a.run(c, secs(300));
    f.check(run.status.is_some_and(|s| !s.success()), || {
        "submit: accepted a bot whose read path is a link".into()
    });
    let sub_logs = walk_text(&a.registry) + &walk_text(&a.tmp);
    f.no_success("submit: registry and logs", &sub_logs, &[]);
    let after = std::fs::read(a.registry.join("registry.toml")).unwrap_or_default();
    f.check(before == after, || "submit: registry.toml changed".into());
    f.clean(&a, &run);
    f.assert(&run);
}

/// Every text file under `dir` (logs of a submit's gauntlet), concatenated.
fn walk_text(dir: &std::path::Path) -> String {
    let mut s = String::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return s;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            s.push_str(&walk_text(&p));
        } else if p.extension().is_some_and(|x| x == "log") {
            s.push_str(&std::fs::read_to_string(&p).unwrap_or_default());
        }
    }
    s
}

/// Red team, issue 23: a `read` path outside the bot's folder (a match allows it, with a warning)
/// naming a registry another run made: this referee never registered it as protected, yet its
/// tournament's plan (with the salt) must not be readable. Refused because the folder holds a
/// salted plan; and the plan itself is the owner's alone (mode 0600).
#[test]
fn a_registry_this_referee_never_saw_is_never_readable() {
    let _g = lock();
    let a = Arena::new("otherreg");
    std::fs::create_dir_all(&a.registry).unwrap();
    std::fs::write(
        a.registry.join("registry.toml"),
        "[settings]\nname = \"hostile\"\ngames = [\"27td-fl\"]\ndeals = 20\nbatch = 10\nseed = 1\nbootstrap = 10\n",
    )
    .unwrap();
    for b in ["call", "random"] {
        let mut c = a.pitboss();
        c.args(["submit", b, "--name", b, "--threads", "1", "--registry"])
            .arg(&a.registry);
        a.run(c, secs(120));
    }
    let plan = a.registry.join("tournament/plan.json");
    let mut f = Findings::default();
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&plan).map(|m| m.permissions().mode() & 0o777);
        f.check(mode.as_ref().is_ok_and(|m| *m == 0o600), || {
            format!("{} has mode {mode:?} (octal), not 0600", plan.display())
        });
    }
    std::fs::write(a.bots.join("targets.txt"), plan.display().to_string()).unwrap();
    std::fs::write(
        a.bots.join("bot.toml"),
        format!(
            "name = \"otherreg\"\ncommand = [\"python3\", \"read_link.py\", {:?}]\nread = [{:?}]\n",
            a.tag,
            a.registry.display().to_string()
        ),
    )
    .unwrap();
    let m = a.bots.join("bot.toml");
    let run = a.run_match(
        &[m.display().to_string(), "call".into()],
        10,
        &[],
        secs(120),
    );
    f.of_match(&a, &run, 10, &[]);
    let log = std::fs::read_to_string(a.out.join("match.log")).unwrap_or_default();
    f.check(log.contains("a file of Pitboss's with a salt"), || {
        "match: no fault saying the registry holds a salt".into()
    });
    f.assert(&run);
}

/// Red team, round two: what a process leaves in the kernel's caches outlives it, so the phases of
/// a duplicate deal (its rotations never alive together) still leaked the other seat's down cards
/// by timing: failed lookups of made-up names (negative dentries), in the bot's folder or in
/// `/usr/share`, and pages of a sparse file the folder ships (74–86 of 74–86 exact). Between two
/// phases the referee now drops the bot's files' pages and, as root, the machine's page, dentry
/// and inode caches. A referee that is not root cannot drop the dentry cache: there only the
/// bot's own pages are required to be forgotten (protocol.md §9 says what remains).
#[test]
fn kernel_caches_carry_no_card_between_the_phases_of_a_duplicate_deal() {
    let _g = lock();
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let mut cases: Vec<(&str, Vec<String>)> = vec![("pages", vec!["mode=pages".into()])];
    if root {
        cases.push(("dentry-own", vec!["mode=dentry".into()]));
        cases.push((
            "dentry-usr",
            vec!["mode=dentry".into(), "dir=/usr/share".into()],
        ));
    } else {
        eprintln!(
            "not root: the dentry cache cannot be dropped between phases (documented); only \
             the bot's own pages are tested"
        );
    }
    let mut all = Findings::default();
    let mut last = None;
    for (name, args) in cases {
        let a = Arena::new(&format!("cache-{name}"));
        // A 1 TiB hole: the cells cost no disk.
        std::fs::File::create(a.bots.join("cells.bin"))
            .unwrap()
            .set_len(1 << 40)
            .unwrap();
        let bot = a.exec("cache_channel.py", &args);
        let mut c = a.pitboss();
        c.args([
            "match",
            "--game",
            "stud8-fl",
            "--threads",
            "1",
            "--duplicate",
        ])
        .args(["--bot", &bot, "--bot", "call", "--hands", "200", "--out"])
        .arg(&a.out);
        let run = a.run(c, secs(180));
        let mut f = Findings::default();
        let attack = if name == "pages" {
            "cache-pages"
        } else {
            "cache-dentry"
        };
        f.of_match(&a, &run, 200, &[attack]);
        for x in &mut f.0 {
            *x = format!("{name}: {x}");
        }
        all.0.extend(f.0);
        last = Some(run);
    }
    all.assert(&last.unwrap());
}
