//! External bots end to end: the misbehaving fixtures in `tests/fixtures/` against a built-in bot.
//! For each: the match completes, the fault is recorded with the right kind, chips are conserved,
//! the referee's memory stays bounded, and no process is left behind. The tests take a lock so
//! that "no child of this process remains" is meaningful (and the loaded machine is not loaded
//! further); none asserts on time — limits are generous, or tiny against a bot sleeping seconds.

#[path = "../../arena/tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use pitboss_arena::{run_match, BotFactory, MatchConfig, MatchFile, MatchResult, Referee};
use pitboss_external::{self as external, ExternalFactory, ExternalOptions, Limits, Report};
use pitboss_protocol::FaultKind;

static SERIAL: Mutex<()> = Mutex::new(());

fn fixture(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    format!("exec:python3 {}", p.display()).replacen("python3", python(), 1)
}

/// The system interpreter when there is one (shims such as pyenv's are resolved anyway).
fn python() -> &'static str {
    if Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    }
}

/// The folders a test made, removed when its thread ends — pass or panic (libtest runs each test
/// on a thread of its own): the suite leaves nothing in the temp directory.
struct Made(std::cell::RefCell<Vec<PathBuf>>);
impl Drop for Made {
    fn drop(&mut self) {
        for d in self.0.borrow().iter() {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}
thread_local! {
    static MADE: Made = const { Made(std::cell::RefCell::new(Vec::new())) };
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pitboss-ext-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    MADE.with(|m| m.0.borrow_mut().push(d.clone()));
    d
}

struct Run {
    result: MatchResult,
    reports: Vec<Option<Report>>,
    out: PathBuf,
}

impl Run {
    fn faults(&self, kind: FaultKind) -> u64 {
        let i = FaultKind::ALL.iter().position(|k| *k == kind).unwrap();
        self.result.stats.bots[0].faults[i]
    }

    fn total_faults(&self) -> u64 {
        self.result.stats.bots[0].fault_total()
    }

    fn log(&self) -> String {
        let dir = self.out.join("bots");
        let mut s = String::new();
        for e in std::fs::read_dir(dir).unwrap() {
            s.push_str(&std::fs::read_to_string(e.unwrap().path()).unwrap_or_default());
        }
        s
    }

    fn report(&self) -> &Report {
        self.reports[0].as_ref().unwrap()
    }
}

fn match_with(name: &str, game: &str, bot: &str, hands: u64, limits: Limits, sandbox: bool) -> Run {
    let out = tmp(name);
    let bots = vec![bot.to_string(), "call".to_string()];
    let cfg = MatchConfig::from_file(
        MatchFile {
            game: Some(game.into()),
            bots: Some(bots.clone()),
            hands: Some(hands),
            seed: Some(7),
            threads: Some(1),
            out: Some(out.clone()),
            history: Some(true),
            ..MatchFile::default()
        },
        |_| unreachable!(),
    )
    .unwrap();
    let opts = ExternalOptions {
        limits,
        sandbox,
        freeze_idle: false,
        transcript: true,
        out: out.clone(),
        ..ExternalOptions::default()
    };
    let factory = ExternalFactory::new(&bots, common::builtin, &opts).unwrap();
    let result = run_match(&cfg, &factory, &mut |_, _| {}).unwrap();
    let reports = factory.reports();
    drop(factory);
    let run = Run {
        result,
        reports,
        out,
    };
    assert_invariants(&run, hands);
    run
}

fn fixture_match(name: &str, hands: u64, limits: Limits) -> Run {
    match_with(name, "27td-fl", &fixture(name), hands, limits, true)
}

/// Limits for bots that answer: generous, so a loaded machine never turns them into timeouts.
fn generous() -> Limits {
    Limits {
        decision_ms: Some(5_000),
        bank_ms: Some(60_000),
        restarts: Some(2),
        startup_ms: Some(30_000),
        ..Limits::default()
    }
}

/// Limits for bots that do not answer: a short decision limit, no bank.
fn short() -> Limits {
    Limits {
        decision_ms: Some(200),
        bank_ms: Some(0),
        restarts: Some(2),
        startup_ms: Some(30_000),
        ..Limits::default()
    }
}

fn vm_hwm_kib() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    s.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap()
}

/// Children of this process, zombies included.
fn children() -> Vec<String> {
    let me = std::process::id().to_string();
    let mut kids = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid ...
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().collect();
        if f.get(1) == Some(&me.as_str()) {
            kids.push(stat.chars().take(80).collect());
        }
    }
    kids
}

fn assert_invariants(run: &Run, hands: u64) {
    assert_eq!(run.result.hands, hands, "the match completes");
    let net: i128 = run.result.stats.bots.iter().map(|b| b.net).sum();
    assert_eq!(net, 0, "chips are conserved");
    assert!(
        external::live_groups().is_empty(),
        "live groups {:?}",
        external::live_groups()
    );
    let kids = children();
    assert!(kids.is_empty(), "processes left behind: {kids:?}");
    let hwm = vm_hwm_kib();
    assert!(hwm < 200 * 1024, "referee memory VmHWM {hwm} KiB");
}

#[test]
fn crash_mid_hand_restarts_then_forfeits() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let run = fixture_match("crash.py", 60, generous());
    assert!(run.faults(FaultKind::Crash) >= 3, "{:?}", run.report());
    assert!(run.faults(FaultKind::Forfeit) > 0);
    let r = run.report();
    assert_eq!(r.restarts, 2);
    assert!(r.forfeited);
    assert_eq!(r.spawns, 3);
    assert!(r.faults[0].detail.contains("status 3"), "{}", r.faults[0]);
    assert!(r.faults[0].detail.contains("boom"), "{}", r.faults[0]);
}

#[test]
fn exit_at_once_is_a_handshake_fault_then_forfeit() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let run = fixture_match("exit_at_once.py", 30, generous());
    // The first start and two restarts fail; decisions while down are penalised too.
    assert!(run.faults(FaultKind::Handshake) >= 3, "{:?}", run.report());
    assert!(run.faults(FaultKind::Forfeit) > 0);
    let r = run.report();
    assert!(r.forfeited);
    assert_eq!((r.restarts, r.spawns), (2, 3));
    assert!(r.faults[0].detail.contains("not today"), "{}", r.faults[0]);
}

#[test]
fn never_answering_times_out_then_is_restarted_then_forfeits() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let run = fixture_match("silent.py", 40, short());
    // Three timeouts in a row stop the process; the restarts go the same way; then it forfeits
    // instead of costing every remaining decision its full limit.
    assert!(run.faults(FaultKind::Timeout) >= 3, "{:?}", run.report());
    let r = run.report();
    assert_eq!(r.restarts, 2, "{r:?}");
    assert!(r.forfeited);
    assert_eq!(
        run.total_faults(),
        run.faults(FaultKind::Timeout) + run.faults(FaultKind::Forfeit)
    );
}

#[test]
fn late_answers_time_out_and_are_discarded() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let run = fixture_match("slow.py", 12, short());
    assert!(run.faults(FaultKind::Timeout) > 0);
    assert_eq!(
        run.total_faults(),
        run.faults(FaultKind::Timeout) + run.faults(FaultKind::Forfeit)
    );
}

#[test]
fn a_reply_sent_before_its_request_is_a_fault() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let run = fixture_match("early.py", 20, generous());
    let r = run.report();
    assert!(run.faults(FaultKind::Malformed) > 0, "{r:?}");
    assert!(
        r.faults.iter().any(|f| f.detail.contains("before request")),
        "{r:?}"
    );
}

#[test]
fn a_stale_reply_flood_is_a_fault_and_the_log_stays_capped() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let run = fixture_match("stale_flood.py", 30, generous());
    let r = run.report();
    assert!(
        r.faults.iter().any(|f| f.detail.contains("stale replies")),
        "{r:?}"
    );
    let log = std::fs::metadata(run.out.join("bots/1-stale_flood.log"))
        .unwrap()
        .len();
    assert!(log < 2 * 1024 * 1024, "log of {log} bytes");
}

#[test]
fn garbage_is_malformed() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let run = fixture_match("garbage.py", 20, generous());
    assert!(run.faults(FaultKind::Malformed) > 0);
    assert_eq!(run.total_faults(), run.faults(FaultKind::Malformed));
    assert!(
        run.log().contains("this is not json"),
        "the raw line is in the log"
    );
}

#[test]
fn misspelt_field_is_malformed_with_the_serde_error() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let bot = fixture("garbage.py") + " field";
    let run = match_with("garbage-field", "stud8-fl", &bot, 20, generous(), true);
    assert!(run.faults(FaultKind::Malformed) > 0);
    let d = &run.report().faults[0].detail;
    assert!(d.contains("acton"), "{d}");
    let bot = fixture("garbage.py") + " type";
    let run = match_with("garbage-type", "27td-fl", &bot, 20, generous(), true);
    assert!(run.faults(FaultKind::UnknownMessage) > 0);
}

#[test]
fn a_100_mb_line_is_too_long_and_memory_stays_bounded() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let run = fixture_match("huge.py", 10, generous());
    assert!(run.faults(FaultKind::LineTooLong) > 0, "{:?}", run.report());
    // assert_invariants checked VmHWM < 200 MiB; a buffered 100 MB line would also show here:
    assert!(vm_hwm_kib() < 100 * 1024);
}

#[test]
fn stderr_flood_is_capped_and_harmless() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let run = fixture_match("stderr_flood.py", 30, generous());
    assert_eq!(run.total_faults(), 0, "{:?}", run.report());
    let log = std::fs::metadata(run.out.join("bots/1-stderr_flood.log"))
        .unwrap()
        .len();
    assert!(
        log < external::player::LOG_CAP + 64 * 1024,
        "log {log} bytes"
    );
    assert!(run.log().contains("dropped (log cap reached)"));
}

#[test]
fn illegal_actions_are_penalised() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let run = fixture_match("illegal.py", 20, generous());
    assert!(run.faults(FaultKind::Illegal) > 0);
    assert_eq!(run.total_faults(), run.faults(FaultKind::Illegal));
    let hands = std::fs::read_to_string(run.out.join("hands.csv")).unwrap();
    assert!(
        hands.contains(",illegal"),
        "per-hand records name the fault"
    );
}

#[test]
fn wrong_request_id_is_a_fault() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let run = fixture_match("wrong_id.py", 20, generous());
    assert!(run.faults(FaultKind::Malformed) > 0);
    assert!(run.report().faults[0].detail.contains("answers no request"));
}

#[test]
fn forked_child_holding_stdout_is_killed_and_reaped() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let run = fixture_match("fork.py", 20, generous());
    assert!(run.faults(FaultKind::Crash) > 0, "{:?}", run.report());
    // assert_invariants: no child of this process (the grandchildren were reparented to us as
    // subreaper) and no live group remain.
}

#[test]
fn sandbox_denies_reading_the_output_folder() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if external::jail::features().mode == external::jail::Mode::Fallback
        && external::jail::landlock_fallback::support()
            .landlock
            .is_none()
    {
        eprintln!("skipped: no jail here");
        return;
    }
    let out = tmp("read_output.py");
    let bot = format!("{} {}", fixture("read_output.py"), out.display());
    let run = match_with("read_output.py", "27td-fl", &bot, 10, generous(), true);
    assert!(run.log().contains("READ DENIED"), "{}", run.log());
    assert_eq!(run.total_faults(), 0);
    // Without the sandbox the same bot can read it, and cheats visibly.
    let out = tmp("read_output-nosandbox");
    let bot = format!("{} {}", fixture("read_output.py"), out.display());
    let run = match_with(
        "read_output-nosandbox",
        "27td-fl",
        &bot,
        10,
        generous(),
        false,
    );
    assert!(run.log().contains("READ ALLOWED"), "{}", run.log());
    assert!(run.faults(FaultKind::Illegal) > 0);
}

#[test]
fn sandbox_denies_tcp_to_localhost() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let fb = external::jail::landlock_fallback::support();
    if external::jail::features().mode == external::jail::Mode::Fallback
        && !fb.netns
        && fb.landlock.is_none()
    {
        eprintln!("skipped: no network isolation here");
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let bot = format!("{} {port}", fixture("tcp.py"));
    let run = match_with("tcp.py", "27td-fl", &bot, 10, generous(), true);
    assert!(run.log().contains("CONNECT DENIED"), "{}", run.log());
    assert_eq!(run.total_faults(), 0);
    assert!(
        listener.accept().is_err(),
        "no connection reached the listener"
    );
}

/// Every card string anywhere in a JSON value.
fn cards_in(v: &serde_json::Value, out: &mut Vec<pitboss_cards::Card>) {
    match v {
        serde_json::Value::String(s) => {
            let parsed: Result<Vec<pitboss_cards::Card>, _> =
                s.split_whitespace().map(str::parse).collect();
            if let Ok(cs) = parsed {
                out.extend(cs);
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| cards_in(x, out)),
        serde_json::Value::Object(o) => o.values().for_each(|x| cards_in(x, out)),
        _ => {}
    }
}

#[test]
fn spy_never_receives_a_hidden_card() {
    use pitboss_cards::{Card, Deck};
    use pitboss_rules::{Event, Seat};
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for game in ["27td-fl", "stud8-fl", "27td-nl"] {
        let out = tmp(&format!("spy-{game}"));
        std::fs::create_dir_all(&out).unwrap();
        let log = out.join("spy.jsonl");
        let bots = vec![
            format!("{} {}", fixture("spy.py"), log.display()),
            "random".to_string(),
        ];
        let cfg = MatchConfig::from_file(
            MatchFile {
                game: Some(game.into()),
                bots: Some(bots.clone()),
                seed: Some(3),
                ..MatchFile::default()
            },
            |_| out.clone(),
        )
        .unwrap();
        let opts = ExternalOptions {
            limits: generous(),
            sandbox: false,
            out: out.clone(),
            ..ExternalOptions::default()
        };
        let factory = ExternalFactory::new(&bots, common::builtin, &opts).unwrap();
        let table = cfg.table_setup().validate().unwrap();
        let mut players = vec![
            factory.create(0, 1, 0).unwrap(),
            factory.create(1, 2, 0).unwrap(),
        ];
        let start = pitboss_protocol::MatchStart {
            game: pitboss_arena::convert::game_info(&cfg.game()),
            hands: 300,
            decision_ms: 0,
            bank_ms: 0,
        };
        for p in players.iter_mut() {
            p.match_start(&start).unwrap();
        }
        let mut referee = Referee::new();
        // Per hand: (spy seat, cards the spy may see, others' cards it must never see).
        let mut truth = Vec::new();
        for k in 0..300u64 {
            let t = table.with_button(Seat((k % 2) as u8));
            let spy_seat = Seat(0);
            referee.play(&t, Deck::for_hand(11, k), k, &mut players);
            let hand = referee.hand();
            let mut may = Vec::<Card>::new();
            let mut hidden = Vec::<Card>::new();
            for e in hand.events() {
                match *e {
                    Event::Deal {
                        seat,
                        card: Some(c),
                        up,
                    } => {
                        if up || seat == spy_seat {
                            may.push(c)
                        } else {
                            hidden.push(c)
                        }
                    }
                    Event::Community { card } => may.push(card),
                    Event::Show { cards, .. } => may.extend(cards.iter()),
                    Event::Discard {
                        seat,
                        cards: Some(cs),
                        ..
                    } if seat == spy_seat => may.extend(cs.iter()),
                    _ => {}
                }
            }
            hidden.retain(|c| !may.contains(c));
            assert!(referee.faults.is_empty(), "{:?}", referee.faults);
            truth.push((may, hidden));
        }
        for p in players.iter_mut() {
            p.finish();
        }
        drop(players);
        drop(factory);
        let text = std::fs::read_to_string(&log).unwrap();
        let mut hand = None;
        let mut checked = 0;
        for line in text.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            if let Some(h) = v.get("hand").and_then(|h| h.as_u64()) {
                hand = Some(h);
            }
            let Some(h) = hand else { continue };
            if v["type"] == "match_start" || v["type"] == "hello" {
                continue;
            }
            let mut seen = Vec::new();
            cards_in(&v, &mut seen);
            let (may, hidden) = &truth[h as usize];
            for c in seen {
                assert!(
                    !hidden.contains(&c),
                    "{game} hand {h}: hidden card {c} in {line}"
                );
                assert!(
                    may.contains(&c),
                    "{game} hand {h}: card {c} not visible to the spy"
                );
                checked += 1;
            }
        }
        assert!(checked > 1000, "{game}: only {checked} cards checked");
        let _ = std::fs::remove_dir_all(&out);
    }
    assert!(children().is_empty());
}

fn gone(pid: i32) -> bool {
    // SAFETY: signal 0 only checks for existence.
    unsafe { libc::kill(pid, 0) != 0 }
}

fn pids_in_log(run_out: &Path) -> Vec<i32> {
    let mut pids = Vec::new();
    for e in std::fs::read_dir(run_out.join("bots")).unwrap().flatten() {
        let text = std::fs::read_to_string(e.path()).unwrap_or_default();
        for l in text.lines() {
            if let Some(rest) = l.strip_prefix("[pitboss] process ") {
                if let Some((pid, _)) = rest.split_once(" started") {
                    pids.push(pid.parse().unwrap());
                }
            }
        }
    }
    pids
}

#[test]
fn freeze_idle_match_with_a_manifest_bot_completes() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bots/python/simple/bot.toml");
    let out = tmp("freeze");
    let bots = vec![manifest.display().to_string(), "random".to_string()];
    let cfg = MatchConfig::from_file(
        MatchFile {
            game: Some("stud8-fl".into()),
            bots: Some(bots.clone()),
            hands: Some(300),
            seed: Some(3),
            threads: Some(2),
            out: Some(out.clone()),
            ..MatchFile::default()
        },
        |_| unreachable!(),
    )
    .unwrap();
    let mut opts = ExternalOptions::from_config(&cfg);
    opts.freeze_idle = true;
    opts.limits = generous();
    let factory = ExternalFactory::new(&bots, common::builtin, &opts).unwrap();
    let result = run_match(&cfg, &factory, &mut |_, _| {}).unwrap();
    drop(factory);
    assert_eq!(result.stats.bots[0].fault_total(), 0);
    let run = Run {
        result,
        reports: Vec::new(),
        out: out.clone(),
    };
    assert_invariants(&run, 300);
    let pids = pids_in_log(&out);
    assert!(!pids.is_empty());
    assert!(pids.iter().all(|p| gone(*p)));
}

#[test]
fn a_dropped_player_takes_its_process_with_it() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out = tmp("drop");
    let bots = vec![fixture("silent.py"), "call".to_string()];
    let opts = ExternalOptions {
        limits: generous(),
        sandbox: true,
        out: out.clone(),
        ..ExternalOptions::default()
    };
    let factory = ExternalFactory::new(&bots, common::builtin, &opts).unwrap();
    let player = factory.create(0, 1, 0).unwrap();
    let groups = external::live_groups();
    assert_eq!(groups.len(), 1);
    drop(player); // as the runner does when a worker unwinds: no finish()
    assert!(gone(groups[0]));
    assert!(external::live_groups().is_empty());
    drop(factory);
    assert!(children().is_empty());
}

#[test]
fn closing_stdout_is_a_fault_and_the_bot_is_restarted() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let run = fixture_match("close_stdout.py", 20, generous());
    assert!(
        run.faults(FaultKind::ClosedStdout) > 0,
        "{:?}",
        run.report()
    );
    assert!(run.report().restarts > 0);
}

#[test]
fn memory_limit_stops_a_hog() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let limits = Limits {
        memory_mb: Some(256),
        ..generous()
    };
    let run = fixture_match("hog.py", 10, limits);
    assert!(run.faults(FaultKind::Crash) > 0, "{:?}", run.report());
    assert!(
        run.report().faults[0].detail.contains("MemoryError"),
        "{}",
        run.report().faults[0]
    );
}

/// Protocol 1.1: the `multi.py` fixture in `mode`, 400 hands against `call`.
fn multi(mode: &str, limits: Limits) -> Run {
    multi_hands(mode, limits, 400)
}

fn multi_hands(mode: &str, limits: Limits, hands: u64) -> Run {
    let bot = format!("{} {mode}", fixture("multi.py"));
    match_with(
        &format!("multi-{mode}"),
        "27td-fl",
        &bot,
        hands,
        limits,
        true,
    )
}

/// `hands.csv` without the bot-name column (the names differ with the mode argument).
fn hands_without_names(run: &Run) -> String {
    let text = std::fs::read_to_string(run.out.join("hands.csv")).unwrap();
    text.lines()
        .map(|l| {
            let mut f: Vec<&str> = l.split(',').collect();
            f.remove(5);
            f.join(",")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_concurrent_bot_answering_out_of_order_plays_the_same_match_as_a_version_1_bot() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let v1 = multi("v1", generous());
    let ok = multi("ok", generous());
    let compact = multi("compact", generous());
    for run in [&v1, &ok, &compact] {
        assert_eq!(run.total_faults(), 0, "{:?}", run.report());
    }
    let expected = hands_without_names(&v1);
    assert!(expected.lines().count() > 400);
    assert_eq!(hands_without_names(&ok), expected);
    assert_eq!(hands_without_names(&compact), expected);
    assert_eq!(ok.result.stats.bots[0].net, v1.result.stats.bots[0].net);
    // One process played all four tables (the probe's process, reused).
    assert_eq!(ok.report().spawns, 1);
    let transcript = std::fs::read_to_string(ok.out.join("transcripts/1-multi.py-1.txt"))
        .or_else(|_| {
            let d = std::fs::read_dir(ok.out.join("transcripts")).unwrap();
            std::fs::read_to_string(d.into_iter().next().unwrap().unwrap().path())
        })
        .unwrap();
    assert!(transcript.contains(r#""table":3"#), "four tables in flight");
}

#[test]
fn a_concurrent_bot_late_on_one_table_times_out_there_only() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let limits = Limits {
        decision_ms: Some(500),
        bank_ms: Some(0),
        ..generous()
    };
    let run = multi("late", limits);
    assert_eq!(run.faults(FaultKind::Timeout), 1, "{:?}", run.report());
    assert_eq!(run.report().restarts, 0);
    assert!(run.log().contains("late reply to request"), "{}", run.log());
}

#[test]
fn a_concurrent_bot_crashing_mid_batch_faults_its_pending_tables_and_restarts() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let run = multi("crash", generous());
    let r = run.report();
    assert!(run.faults(FaultKind::Crash) >= 2, "{r:?}");
    assert!(r.restarts >= 1, "{r:?}");
    assert!(
        r.faults
            .iter()
            .any(|f| f.detail.contains("crashing with requests pending")),
        "{r:?}"
    );
}

#[test]
fn a_concurrent_bot_naming_another_table_is_malformed_on_that_table() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let run = multi("wrongtable", generous());
    assert_eq!(run.faults(FaultKind::Malformed), 1, "{:?}", run.report());
    assert_eq!(run.report().restarts, 0);
}

#[test]
fn a_concurrent_bot_answering_no_request_is_stopped_and_restarted() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for mode in ["unknownid", "noid", "flood", "bigflood"] {
        let run = multi(mode, generous());
        let r = run.report();
        assert!(run.faults(FaultKind::Malformed) >= 1, "{mode}: {r:?}");
        // Every process of the fixture does it once: stopped, restarted, until the restarts
        // are used up.
        assert!(r.restarts >= 1, "{mode}: {r:?}");
        assert_eq!(r.spawns, r.restarts + 1, "{mode}: {r:?}");
    }
}

#[test]
fn the_python_sdk_keeps_the_referees_view_from_the_events() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sdk = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bots/sdk/python/pitboss_sdk.py");
    let sdk = sdk.canonicalize().unwrap();
    for game in ["27td-fl", "27td-nl", "stud8-fl", "stud8-pl"] {
        let bot = format!("{} {}", fixture("sdk_verify.py"), sdk.display());
        let run = match_with(&format!("sdk-{game}"), game, &bot, 300, generous(), true);
        assert_eq!(run.total_faults(), 0, "{game}: {:?}", run.report());
        assert!(run.report().decisions > 300, "{game}");
    }
}

/// The Python SDK with terse messages (protocol 1.2) plays exactly the hands it plays with compact
/// ones, for the same seed, in both games and betting structures; with terse messages every view it
/// keeps from the tokens equals the view of the same events expanded into JSON objects (the
/// fixture checks after every event string), and the compact path is checked against the
/// referee's views by the test above.
#[test]
fn the_python_sdk_plays_the_same_hands_with_terse_messages() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sdk = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bots/sdk/python/pitboss_sdk.py");
    let sdk = sdk.canonicalize().unwrap();
    // Concurrency 4 on the multi-table path; 1 on the one-table path.
    for (game, tables) in [
        ("27td-fl", 4),
        ("27td-nl", 4),
        ("stud8-fl", 4),
        ("stud8-pl", 4),
        ("stud8-nl", 1),
    ] {
        let bot = |style: &str| {
            format!(
                "{} {} {style} {tables}",
                fixture("sdk_terse.py"),
                sdk.display()
            )
        };
        let terse = match_with(
            &format!("terse-{game}"),
            game,
            &bot("terse"),
            300,
            generous(),
            true,
        );
        let compact = match_with(
            &format!("compact-{game}"),
            game,
            &bot("compact"),
            300,
            generous(),
            true,
        );
        for (run, is_terse) in [(&terse, true), (&compact, false)] {
            assert_eq!(
                run.total_faults(),
                0,
                "{game}: {:?} {}",
                run.report(),
                run.log()
            );
            assert_eq!(run.report().terse, is_terse, "{game}");
            assert!(run.report().compact, "{game}");
        }
        assert_eq!(
            hands_without_names(&terse),
            hands_without_names(&compact),
            "{game}"
        );
        let transcript = std::fs::read_dir(terse.out.join("transcripts"))
            .unwrap()
            .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
            .collect::<String>();
        assert!(transcript.contains(r#""messages": "terse""#), "{game}");
        assert!(
            transcript.contains(r#","events":""#) && !transcript.contains(r#","events":["#),
            "{game}: terse events"
        );
    }
}

/// The Python SDK's `expand_events` turns terse tokens into exactly the JSON objects the referee
/// writes for the same events (every kind of token, both flags).
#[test]
fn the_python_sdk_expands_terse_events_into_the_referees_json() {
    let tokens = "D0Qd D1 U3Kc U2Ah R0 S0:50 B1:100! c0:50 c1:7! x1 b0:200 r1:400! p2:20 \
                  I3:5 I4:9! A4:10 A5:3! f1 X0:2:7hKd X0:0: X1:3 Z9 T1:100 W0:2c3c4s5h8h M1 \
                  $0:1:l:300 $1:0:w:7 $2:0:h:8 C7h E1:timeout";
    let mut events = Vec::new();
    pitboss_protocol::terse::parse_events(tokens, &mut events).unwrap();
    let mut json = Vec::new();
    for e in &events {
        if !json.is_empty() {
            json.push(b',');
        }
        pitboss_protocol::encode::event(&mut json, e);
    }
    let json = format!("[{}]", String::from_utf8(json).unwrap());
    let sdk = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bots/sdk/python");
    let script = format!(
        "import json, sys; sys.path.insert(0, {:?}); import pitboss_sdk as pb\n\
         got = pb.expand_events({tokens:?}); want = json.loads({json:?})\n\
         assert got == want, (got, want)\n\
         assert pb.expand_events('') == []\n\
         print(len(got))",
        sdk.display().to_string()
    );
    assert_eq!(python_output(&["-c", &script]), events.len().to_string());
}

/// What python3 prints (trimmed) when run with `args`; its stderr in the panic if it fails.
fn python_output<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> String {
    let out = std::process::Command::new(python())
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The Python SDK's hand-written fast paths say what the obvious code says: every reply it formats
/// by hand equals json.dumps of the action, terse legal strings parse into their fields, and the
/// `Legal` objects that decisions share cannot be changed (the fixture counts its checks).
#[test]
fn the_python_sdks_fast_paths_agree_with_json() {
    let sdk = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bots/sdk/python");
    let units = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sdk_units.py");
    let checks: u32 = python_output(&[units, sdk]).parse().unwrap();
    assert!(checks > 100, "{checks} checks");
}

/// A match of `bots` with `threads` workers, duplicate or not.
fn match_of(name: &str, bots: &[String], threads: usize, duplicate: bool) -> Run {
    let out = tmp(name);
    let cfg = MatchConfig::from_file(
        MatchFile {
            game: Some("stud8-fl".into()),
            bots: Some(bots.to_vec()),
            hands: Some(2100),
            seed: Some(9),
            threads: Some(threads),
            duplicate: Some(duplicate),
            out: Some(out.clone()),
            history: Some(true),
            ..MatchFile::default()
        },
        |_| unreachable!(),
    )
    .unwrap();
    let opts = ExternalOptions {
        limits: generous(),
        transcript: true,
        out: out.clone(),
        ..ExternalOptions::default()
    };
    let factory = ExternalFactory::new(bots, common::builtin, &opts).unwrap();
    let result = run_match(&cfg, &factory, &mut |_, _| {}).unwrap();
    let reports = factory.reports();
    drop(factory);
    let run = Run {
        result,
        reports,
        out,
    };
    assert_invariants(&run, 2100);
    run
}

#[test]
fn concurrency_with_threads_and_duplicate_gives_the_version_1_results() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let bot = |mode: &str| format!("{} {mode}", fixture("multi.py"));
    for (threads, duplicate) in [(2, false), (1, true)] {
        let v1 = match_of(
            "multi-v1-td",
            &[bot("v1"), "call".into()],
            threads,
            duplicate,
        );
        let ok = match_of(
            "multi-ok-td",
            &[bot("compact"), "call".into()],
            threads,
            duplicate,
        );
        assert_eq!(ok.total_faults(), 0, "{:?}", ok.report());
        assert_eq!(hands_without_names(&ok), hands_without_names(&v1));
        if duplicate {
            // One process per seat rotation (lane), never one for both.
            assert_eq!(ok.report().spawns, 2, "{:?}", ok.report());
        }
    }
}

#[test]
fn a_concurrent_bot_next_to_a_version_1_bot_plays_one_table_with_table_ids() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let bots = [
        format!("{} compact", fixture("multi.py")),
        format!("{} v1", fixture("multi.py")),
    ];
    let run = match_of("multi-mixed", &bots, 1, false);
    assert_eq!(
        run.result.stats.bots[0].fault_total(),
        0,
        "{:?}",
        run.reports
    );
    assert_eq!(
        run.result.stats.bots[1].fault_total(),
        0,
        "{:?}",
        run.reports
    );
    let dir = run.out.join("transcripts");
    let mut texts: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    texts.sort_by_key(|t| !t.contains(r#""concurrency":4"#));
    assert!(texts[0].contains(r#""table":0"#) && !texts[0].contains(r#""table":1"#));
    assert!(!texts[0].contains(r#""view""#), "compact messages");
    assert!(!texts[1].contains(r#""table""#), "version 1 messages");
}

#[test]
fn a_bot_keeps_a_bounded_number_of_idle_processes() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // Forty lanes (a tournament keeps processes apart per table and seat rotation): 40 processes
    // start, at most 32 stay idle when they are done (the rest get their match_end), so forty
    // players again reuse 32 and start 8.
    let out = tmp("idle-bound");
    let bots = vec![format!("{} v1", fixture("multi.py")), "call".to_string()];
    let opts = ExternalOptions {
        limits: generous(),
        sandbox: false,
        out: out.clone(),
        ..ExternalOptions::default()
    };
    let factory = ExternalFactory::new(&bots, common::builtin, &opts).unwrap();
    for round in 1..=2 {
        let mut players: Vec<_> = (0..40)
            .map(|lane| factory.create(0, 1, lane).unwrap())
            .collect();
        for p in &mut players {
            p.finish();
        }
        let spawns = factory.reports()[0].as_ref().unwrap().spawns;
        assert_eq!(spawns, if round == 1 { 40 } else { 48 }, "round {round}");
    }
    drop(factory);
    let _ = std::fs::remove_dir_all(&out);
}

/// A duplicate match in phases, small chunks, three workers: every process serves one lane (a
/// chunk in one seat rotation) and is gone before a process of another lane starts; a process
/// is never reused across lanes; the files are those of one chunk (and of a version 1 bot).
#[test]
fn duplicate_phases_keep_every_process_to_its_lane_and_time() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let play = |name: &str, mode: &str, chunk: Option<u64>| {
        let out = tmp(name);
        let bots = vec![
            format!("{} {mode}", fixture("multi.py")),
            "call".to_string(),
        ];
        let cfg = MatchConfig::from_file(
            MatchFile {
                game: Some("27td-fl".into()),
                bots: Some(bots.clone()),
                hands: Some(6000),
                seed: Some(3),
                threads: Some(3),
                duplicate: Some(true),
                out: Some(out.clone()),
                history: Some(true),
                ..MatchFile::default()
            },
            |_| unreachable!(),
        )
        .unwrap();
        let opts = ExternalOptions {
            limits: generous(),
            sandbox: false,
            out: out.clone(),
            ..ExternalOptions::default()
        };
        let factory = ExternalFactory::new(&bots, common::builtin, &opts).unwrap();
        let result =
            pitboss_arena::runner::run_match_in_chunks(&cfg, &factory, chunk, &mut |_, _| {})
                .unwrap();
        factory.shutdown();
        let ledger = factory.ledger();
        let csv = std::fs::read_to_string(out.join("bots/processes.csv")).unwrap();
        assert_eq!(csv.lines().count(), 1 + ledger.len(), "{csv}");
        let reports = factory.reports();
        drop(factory);
        let run = Run {
            result,
            reports,
            out,
        };
        assert_invariants(&run, 6000);
        assert_eq!(run.total_faults(), 0, "{:?}", run.report());
        (hands_without_names(&run), ledger, run.out)
    };
    let (one_chunk, ledger, out) = play("phases-one", "compact", None);
    assert!(ledger.iter().all(|(_, r)| r.lanes.len() <= 1));
    let _ = std::fs::remove_dir_all(out);
    // 6000 hands in blocks of 1024 and chunks of two blocks: three chunks, six phases.
    let (chunked, ledger, out) = play("phases-chunks", "compact", Some(2048));
    assert_eq!(chunked, one_chunk, "the files do not depend on the chunks");
    let lanes: std::collections::BTreeSet<usize> =
        ledger.iter().flat_map(|(_, r)| r.lanes.clone()).collect();
    assert_eq!(lanes, (0..6).collect(), "{ledger:?}");
    let served: u64 = ledger.iter().map(|(_, r)| r.hands).sum();
    assert_eq!(served, 6000);
    for (_, p) in &ledger {
        assert!(p.lanes.len() <= 1, "{p:?}");
        let lane = p.lanes.first().copied();
        // Lane c·2 + r: chunk c (hands 2048c ..), rotation r.
        for h in p.hand_numbers() {
            let lane = lane.expect("a process that served hands has a lane");
            assert_eq!(h % 2, (lane % 2) as u64, "{p:?}");
            assert_eq!(h / 2048, (lane / 2) as u64, "{p:?}");
        }
        for (_, q) in &ledger {
            let overlap = p.started_us < q.ended_us && q.started_us < p.ended_us;
            if overlap && p.hands > 0 && q.hands > 0 {
                assert_eq!(p.lanes, q.lanes, "alive together: {p:?} {q:?}");
            }
        }
    }
    let (v1, _, out2) = play("phases-v1", "v1", Some(2048));
    assert_eq!(v1, one_chunk, "a version 1 bot plays the same hands");
    for d in [out, out2] {
        let _ = std::fs::remove_dir_all(d);
    }
}
