//! Tournaments through the library: SPRT decisions with a known edge and error rates between
//! identical bots, plan checks on resume, and determinism for any thread count.

use std::path::PathBuf;

use pitboss_arena::{Fault, InProcess, Player};
use pitboss_tournament as tournament;
use pitboss_tournament::sprt::{Decision, SprtConfig};
use pitboss_tournament::{
    load_folders, EntrantEntry, EntrantFactory, RunMode, SameForAll, Shard, Standings,
    TournamentConfig, TournamentError, TournamentFile,
};

struct Builtins;

impl EntrantFactory for Builtins {
    fn create(&self, spec: &str, seed: u64, _lane: usize) -> Result<Box<dyn Player>, Fault> {
        Ok(Box::new(InProcess(
            pitboss_bots::builtin(spec, seed).expect("a built-in bot"),
        )))
    }
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pitboss-tour-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn bots(specs: &[(&str, &str)]) -> Option<Vec<EntrantEntry>> {
    Some(
        specs
            .iter()
            .map(|(n, s)| EntrantEntry::Named {
                name: n.to_string(),
                spec: s.to_string(),
            })
            .collect(),
    )
}

fn config(f: TournamentFile, out: &std::path::Path) -> TournamentConfig {
    TournamentConfig::from_file(
        TournamentFile {
            out: Some(out.to_path_buf()),
            // Explicit: without one a tournament draws a random seed.
            seed: f.seed.or(Some(1)),
            ..f
        },
        || unreachable!(),
    )
    .expect("valid config")
}

fn standings(cfg: &TournamentConfig) -> Standings {
    tournament::run(
        cfg,
        &cfg.out,
        Shard::default(),
        RunMode::Resume,
        &SameForAll(Builtins),
        &mut |_| {},
    )
    .expect("runs");
    let l = load_folders(std::slice::from_ref(&cfg.out)).expect("loads");
    Standings::compute(&l.plan, &l.units, &|u| l.locate(u)).expect("complete")
}

#[test]
fn sprt_stops_a_pairing_with_a_known_edge_with_the_right_decision() {
    for (order, want) in [
        ([("lowball", "lowball"), ("random", "random")], Decision::H1),
        ([("random", "random"), ("lowball", "lowball")], Decision::H0),
    ] {
        let out = tmp(&format!("edge-{}", order[0].0));
        let cfg = config(
            TournamentFile {
                games: Some(vec!["27td-fl".into()]),
                bots: bots(&order),
                deals: Some(50_000),
                batch: Some(100),
                threads: Some(2),
                sprt: Some(SprtConfig {
                    m0: -20.0,
                    m1: 20.0,
                    alpha: 0.05,
                    beta: 0.05,
                }),
                ..TournamentFile::default()
            },
            &out,
        );
        let s = standings(&cfg);
        let t = &s.tables[0];
        assert_eq!(t.decision, want, "{order:?}");
        assert!(t.batches < 10, "took {} batches", t.batches);
        let _ = std::fs::remove_dir_all(&out);
    }
}

/// Identical bots (two seeded random players; `call` against `call` is exactly 0 on every
/// duplicate deal, so the test never decides): testing at the H0 boundary, H1 is accepted about α
/// of the time; at the H1 boundary, H0 about β of the time.
#[test]
fn sprt_error_rates_between_identical_bots_stay_near_alpha_and_beta() {
    let (alpha, beta) = (0.1, 0.1);
    let trials = 60;
    let mut wrong = [0u32; 2];
    let mut decided = [0u32; 2];
    let out = tmp("identical");
    for (k, (m0, m1)) in [(0.0, 250.0), (-250.0, 0.0)].into_iter().enumerate() {
        for seed in 0..trials {
            let _ = std::fs::remove_dir_all(&out);
            let cfg = config(
                TournamentFile {
                    games: Some(vec!["27td-fl".into()]),
                    bots: bots(&[("a", "random"), ("b", "random")]),
                    deals: Some(20_000),
                    batch: Some(100),
                    seed: Some(1000 * k as u64 + seed),
                    threads: Some(1),
                    bootstrap: Some(0),
                    sprt: Some(SprtConfig {
                        m0,
                        m1,
                        alpha,
                        beta,
                    }),
                    ..TournamentFile::default()
                },
                &out,
            );
            let d = standings(&cfg).tables[0].decision;
            decided[k] += u32::from(d != Decision::Undecided);
            let bad = if k == 0 { Decision::H1 } else { Decision::H0 };
            wrong[k] += u32::from(d == bad);
        }
    }
    let _ = std::fs::remove_dir_all(&out);
    eprintln!("wrong decisions {wrong:?}, decided {decided:?} of {trials}");
    // Binomial(60, ≤ 0.1): mean ≤ 6, sd ≈ 2.3; 15 is about 4 sd above.
    assert!(wrong[0] <= 15, "type I errors {} of {trials}", wrong[0]);
    assert!(wrong[1] <= 15, "type II errors {} of {trials}", wrong[1]);
    assert!(decided.iter().all(|&d| d >= 50), "decided {decided:?}");
}

#[test]
fn results_do_not_depend_on_threads_and_resume_refuses_another_plan() {
    let f = |threads| TournamentFile {
        games: Some(vec!["27td-fl".into(), "stud8-fl".into()]),
        bots: bots(&[("r", "random"), ("c", "call"), ("h", "hilo")]),
        deals: Some(600),
        batch: Some(100),
        threads: Some(threads),
        ..TournamentFile::default()
    };
    let (a, b) = (tmp("threads1"), tmp("threads2"));
    let sa = standings(&config(f(1), &a));
    let sb = standings(&config(f(2), &b));
    assert_eq!(sa, sb);
    let other = config(
        TournamentFile {
            deals: Some(700),
            ..f(1)
        },
        &a,
    );
    let e = tournament::run(
        &other,
        &a,
        Shard::default(),
        RunMode::Resume,
        &SameForAll(Builtins),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(
        matches!(&e, TournamentError::PlanMismatch { detail, .. } if detail.contains("deals")),
        "{e}"
    );
    let e = tournament::run(
        &config(f(1), &a),
        &a,
        Shard { index: 1, count: 2 },
        RunMode::Resume,
        &SameForAll(Builtins),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(matches!(e, TournamentError::ShardMismatch { .. }), "{e}");
    for d in [a, b] {
        let _ = std::fs::remove_dir_all(d);
    }
}

#[test]
fn ring_tables_cover_every_subset_and_conserve_chips() {
    let out = tmp("ring");
    let cfg = config(
        TournamentFile {
            games: Some(vec!["stud8-fl".into()]),
            bots: bots(&[
                ("r", "random"),
                ("c", "call"),
                ("h", "hilo"),
                ("x", "raise"),
            ]),
            format: Some("ring".into()),
            table_size: Some(3),
            deals: Some(200),
            batch: Some(100),
            threads: Some(2),
            ..TournamentFile::default()
        },
        &out,
    );
    let s = standings(&cfg);
    assert_eq!(s.tables.len(), 4);
    for t in &s.tables {
        let total: i128 = t.stats.iter().map(|b| b.net).sum();
        assert_eq!(total, 0);
        assert!(t.stats.iter().all(|b| b.hands == 600));
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// A unit file edited by someone who also recomputes its checksum is still refused when its chips
/// do not sum to zero.
#[test]
fn a_resealed_unit_that_creates_chips_is_refused() {
    use pitboss_tournament::shards::{read_plan, read_units};
    use pitboss_tournament::unit::{read_unit, unit_path};
    let out = tmp("conservation");
    let cfg = config(
        TournamentFile {
            bots: bots(&[("r", "random"), ("c", "call")]),
            deals: Some(100),
            batch: Some(50),
            threads: Some(1),
            ..TournamentFile::default()
        },
        &out,
    );
    standings(&cfg);
    let plan = read_plan(&out).expect("plan");
    let path = unit_path(&out, &plan.units[0].id);
    let mut u = read_unit(&path).expect("unit");
    u.net[0][3] += 1_000_000_000_000_000;
    u.stats[0].net += 1_000_000_000_000_000;
    u.stats[0].unit_net += 1_000_000_000_000_000;
    u.seal(&plan.settings_hash());
    std::fs::write(&path, serde_json::to_vec(&u).unwrap()).unwrap();
    let e = read_units(&out, &plan).unwrap_err();
    let text = e.to_string();
    assert!(
        matches!(e, TournamentError::RefusedUnit { .. })
            && text.contains(&path.display().to_string())
            && text.contains("chips are not conserved: the nets of deal 3 sum to 1000000000000000"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn luck_adjusted_tournaments_are_recorded_in_the_plan_and_give_the_same_standings_for_any_threads()
{
    let run = |threads: usize, name: &str| {
        let out = tmp(name);
        let cfg = config(
            TournamentFile {
                games: Some(vec!["stud8-fl".into(), "27td-fl".into()]),
                bots: bots(&[("hilo", "hilo"), ("raise", "raise"), ("lowball", "lowball")]),
                deals: Some(300),
                batch: Some(100),
                threads: Some(threads),
                luck_adjust: Some(true),
                ..TournamentFile::default()
            },
            &out,
        );
        assert!(cfg.luck_adjust);
        let s = standings(&cfg);
        let plan = std::fs::read_to_string(out.join("plan.json")).unwrap();
        assert!(plan.contains("\"luck_adjust\": true"), "{plan}");
        // The value model is recorded, and a model this version does not know is refused by name
        // (a later model must not be mixed into a resumed tournament).
        let model = format!("\"luck_model\": \"{}\"", pitboss_luck::MODEL_NAME);
        assert!(plan.contains(&model), "{plan}");
        std::fs::write(
            out.join("plan.json"),
            plan.replace(&model, "\"luck_model\": \"allin99\""),
        )
        .unwrap();
        let err = load_folders(std::slice::from_ref(&out))
            .err()
            .expect("refused");
        assert!(err.to_string().contains("allin99"), "{err}");
        let _ = std::fs::remove_dir_all(&out);
        s
    };
    let a = run(1, "luck-1");
    for t in &a.tables {
        assert_eq!(t.adj.len(), 2);
        for d in 0..300 {
            assert_eq!(t.adj[0][d] + t.adj[1][d], 0, "adjusted chips conserved");
        }
        assert!(
            t.adj_mbb_units(0).unwrap() != t.mbb_units(0),
            "the adjustment changes results"
        );
        assert_eq!(t.stats[0].adj_hands, t.stats[0].hands);
    }
    assert_eq!(a, run(2, "luck-2"));
}

/// In-process bots as if some ran as processes: their tables are then played in phases (a chunk
/// of batches in one seat rotation, a lane each). Checks, as it goes, that a bot never has two
/// lanes open at once and that no player is created for a lane after its end.
struct AsProcesses {
    processes: Vec<&'static str>,
    /// Open lanes per spec; every lane ended.
    open: std::sync::Mutex<std::collections::HashMap<String, std::collections::BTreeSet<usize>>>,
    ended: std::sync::Mutex<std::collections::BTreeSet<usize>>,
}

impl AsProcesses {
    fn new(processes: Vec<&'static str>) -> AsProcesses {
        AsProcesses {
            processes,
            open: Default::default(),
            ended: Default::default(),
        }
    }
}

impl Drop for AsProcesses {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let open = self.open.lock().unwrap();
            assert!(
                open.values().all(|l| l.is_empty()),
                "lanes never ended: {open:?}"
            );
        }
    }
}

/// A fresh [`AsProcesses`] for every game (as the binary has a fresh factory per game), counting
/// the lanes ended.
struct PerGame {
    processes: Vec<&'static str>,
    ended: std::sync::atomic::AtomicUsize,
}

impl tournament::GameFactories for PerGame {
    fn for_game(&self, _game: &str) -> Result<Box<dyn EntrantFactory + '_>, TournamentError> {
        Ok(Box::new(Counted(
            AsProcesses::new(self.processes.clone()),
            &self.ended,
        )))
    }
}

struct Counted<'a>(AsProcesses, &'a std::sync::atomic::AtomicUsize);

impl EntrantFactory for Counted<'_> {
    fn create(&self, spec: &str, seed: u64, lane: usize) -> Result<Box<dyn Player>, Fault> {
        self.0.create(spec, seed, lane)
    }
    fn is_process(&self, spec: &str) -> bool {
        self.0.is_process(spec)
    }
    fn end_lane(&self, lane: usize) {
        self.1.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.0.end_lane(lane);
    }
}

impl EntrantFactory for AsProcesses {
    fn create(&self, spec: &str, seed: u64, lane: usize) -> Result<Box<dyn Player>, Fault> {
        if self.is_process(spec) {
            assert!(
                !self.ended.lock().unwrap().contains(&lane),
                "{spec}: a player of lane {lane} after its end"
            );
            let mut open = self.open.lock().unwrap();
            let lanes = open.entry(spec.to_string()).or_default();
            lanes.insert(lane);
            assert_eq!(lanes.len(), 1, "{spec}: lanes {lanes:?} open at once");
        }
        Builtins.create(spec, seed, lane)
    }
    fn is_process(&self, spec: &str) -> bool {
        self.processes.contains(&spec)
    }
    fn end_lane(&self, lane: usize) {
        assert!(
            self.ended.lock().unwrap().insert(lane),
            "lane {lane} ended twice"
        );
        for lanes in self.open.lock().unwrap().values_mut() {
            lanes.remove(&lane);
        }
    }
}

/// Tables with bots that run as processes are played in phases and put together unit by unit:
/// the unit files are those of units played whole, for any thread count, with SPRT too.
#[test]
fn phases_give_the_units_of_whole_units() {
    let units = |dir: &std::path::Path| {
        let mut v: Vec<(String, String)> = std::fs::read_dir(dir.join("units"))
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read_to_string(e.path()).unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    };
    for sprt in [false, true] {
        let f = |threads| TournamentFile {
            games: Some(vec!["27td-fl".into(), "stud8-fl".into()]),
            bots: bots(&[
                ("r", "random"),
                ("c", "call"),
                ("h", "hilo"),
                ("l", "lowball"),
            ]),
            deals: Some(700),
            batch: Some(100),
            threads: Some(threads),
            luck_adjust: Some(true),
            sprt: sprt.then_some(SprtConfig {
                m0: -200.0,
                m1: 200.0,
                alpha: 0.2,
                beta: 0.2,
            }),
            ..TournamentFile::default()
        };
        let whole = tmp(&format!("whole-{sprt}"));
        let want = standings(&config(f(2), &whole));
        for threads in [1, 3] {
            let out = tmp(&format!("phased-{sprt}-{threads}"));
            let cfg = config(f(threads), &out);
            let field = PerGame {
                processes: vec!["random", "hilo"],
                ended: Default::default(),
            };
            tournament::run(
                &cfg,
                &out,
                Shard::default(),
                RunMode::Resume,
                &field,
                &mut |_| {},
            )
            .expect("runs");
            let l = load_folders(std::slice::from_ref(&out)).expect("loads");
            let got = Standings::compute(&l.plan, &l.units, &|u| l.locate(u)).expect("complete");
            assert_eq!(got, want, "sprt {sprt}, {threads} threads");
            if !sprt {
                assert_eq!(units(&out), units(&whole), "{threads} threads");
            }
            let ended = field.ended.load(std::sync::atomic::Ordering::Relaxed);
            assert!(ended >= 2 * 2 * 5, "{ended} phases");
            let _ = std::fs::remove_dir_all(&out);
        }
        let _ = std::fs::remove_dir_all(&whole);
    }
}

/// Names in a plan are checked when the tournament is configured, but a plan can be edited by hand:
/// every report escapes them again. A name that would be a spreadsheet formula is a text cell in
/// both CSV files, `|` and backticks cannot break `leaderboard.md`'s tables, HTML is escaped, and
/// no control character reaches any file or the terminal table.
#[test]
fn hostile_names_in_a_plan_are_escaped_in_every_report() {
    let out = tmp("hostile-names");
    let cfg = config(
        TournamentFile {
            games: Some(vec!["27td-fl".into()]),
            bots: bots(&[("a", "call"), ("b", "random")]),
            deals: Some(20),
            batch: Some(10),
            threads: Some(1),
            ..TournamentFile::default()
        },
        &out,
    );
    let st = standings(&cfg);
    let mut plan = load_folders(std::slice::from_ref(&cfg.out))
        .expect("loads")
        .plan;
    plan.config.bots[0].name = "=cmd|' /C calc'!A0".into();
    plan.config.bots[1].name = "\u{1b}[2J|`x`<b>x</b>".into();
    plan.config.name = "<script>\u{1b}]0;t\u{7} | # title".into();
    let report = tournament::report::Report::build(&plan, &st);
    let dir = out.join("report");
    report.write(&dir).expect("writes");
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    for f in [
        "leaderboard.csv",
        "crosstable.csv",
        "leaderboard.md",
        "report.html",
    ] {
        let text = read(f);
        assert!(
            !text.contains(['\u{1b}', '\u{7}']),
            "{f}: a control character\n{text}"
        );
    }
    assert!(!report.text_table().contains('\u{1b}'));
    for f in ["leaderboard.csv", "crosstable.csv"] {
        let text = read(f);
        let mut r = csv::Reader::from_reader(text.as_bytes());
        let head = r.headers().unwrap().clone();
        for rec in r.records() {
            let rec = rec.unwrap();
            for (k, v) in head.iter().zip(rec.iter()) {
                if k == "bot" || k == "opponent" {
                    assert!(!v.starts_with(['=', '+', '-', '@']), "{f}: {k} = {v:?}");
                }
            }
        }
    }
    let md = read("leaderboard.md");
    assert!(md.contains("\\|\\`x\\`\\<b\\>"), "{md}");
    let html = read("report.html");
    assert!(
        !html.contains("<script>") && !html.contains("<b>x"),
        "{html}"
    );
    // The parts that name bots: the chart's legend, each bot's own view, the play statistics.
    for part in [
        "[2J|`x`&lt;b&gt;x&lt;/b&gt;</span>",
        "[2J|`x`&lt;b&gt;x&lt;/b&gt;</h3>",
        "[2J|`x`&lt;b&gt;x&lt;/b&gt;</a></td>",
    ] {
        assert!(html.contains(part), "{part} not in {html}");
    }
    let _ = std::fs::remove_dir_all(&out);
}
