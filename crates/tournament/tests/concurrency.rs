//! Units with bots that play several tables per process (protocol 1.1): the unit's hands are
//! spread over the tables, and a bot whose decisions depend only on the hand gives the same unit
//! as when it plays one table; a process that crashes mid-batch costs faults, not results.

use std::path::{Path, PathBuf};

use pitboss_arena::multi::SharedProcess;
use pitboss_arena::{BotFactory, Fault, Player};
use pitboss_external::{ExternalFactory, ExternalOptions, Limits};
use pitboss_tournament::plan::UnitSpec;
use pitboss_tournament::unit::{play_unit, EntrantFactory, UnitResult};

fn fixture(mode: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../external/tests/fixtures/multi.py");
    let python = if Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    };
    format!("exec:{python} {} {mode}", p.display())
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
    let d = std::env::temp_dir().join(format!("pitboss-tour-conc-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    MADE.with(|m| m.0.borrow_mut().push(d.clone()));
    d
}

/// The specs of a unit, started by an [`ExternalFactory`] (built-ins in-process).
struct Field {
    specs: Vec<String>,
    factory: ExternalFactory,
}

impl Field {
    /// `quick`: a decision limit of half a second and no bank, for a bot that is late on purpose.
    fn new(specs: &[String], out: &Path, quick: bool) -> Field {
        let opts = ExternalOptions {
            limits: Limits {
                decision_ms: Some(if quick { 500 } else { 5_000 }),
                bank_ms: Some(if quick { 0 } else { 60_000 }),
                restarts: Some(2),
                startup_ms: Some(30_000),
                ..Limits::default()
            },
            sandbox: false,
            transcript: true,
            out: out.to_path_buf(),
            ..ExternalOptions::default()
        };
        Field {
            specs: specs.to_vec(),
            factory: ExternalFactory::new(specs, pitboss_bots::builtin, &opts).unwrap(),
        }
    }

    fn index(&self, spec: &str) -> usize {
        self.specs.iter().position(|s| s == spec).unwrap()
    }
}

impl EntrantFactory for Field {
    fn create(&self, spec: &str, seed: u64, lane: usize) -> Result<Box<dyn Player>, Fault> {
        self.factory.create(self.index(spec), seed, lane)
    }
    fn concurrency(&self, spec: &str) -> usize {
        self.factory.concurrency(self.index(spec))
    }
    fn create_multi(&self, spec: &str, lane: usize) -> Result<SharedProcess, Fault> {
        self.factory.create_multi(self.index(spec), lane)
    }
}

fn unit(game: &str, deals: u64) -> UnitSpec {
    UnitSpec {
        id: format!("{game}~m~call~0"),
        game: game.into(),
        bots: vec!["m".into(), "call".into()],
        batch: 0,
        first_deal: 0,
        deals,
    }
}

/// Hands of a unit whose PHH records are kept (`--history`): fewer than a unit of 150 deals
/// holds, so that the cut is tested too; [`UnitResult::history`] takes part in every comparison.
const KEPT: u64 = 250;

fn play(name: &str, game: &str, mode: &str, deals: u64) -> (UnitResult, PathBuf) {
    let out = tmp(name);
    let specs = [fixture(mode), "call".to_string()];
    let field = Field::new(&specs, &out, mode == "late");
    let refs: Vec<&str> = specs.iter().map(String::as_str).collect();
    let u = play_unit(
        7,
        None,
        &unit(game, deals),
        &refs,
        0,
        &field,
        Some(None),
        KEPT,
    );
    field.factory.shutdown();
    (u, out)
}

fn transcripts(out: &Path) -> String {
    std::fs::read_dir(out.join("transcripts"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect()
}

#[test]
fn a_concurrent_bot_gives_the_units_of_a_one_table_bot() {
    for game in ["27td-fl", "stud8-fl"] {
        let (one, _) = play(&format!("v1-{game}"), game, "v1", 150);
        let (many, out) = play(&format!("compact-{game}"), game, "compact", 150);
        assert_eq!(many.stats[0].fault_total(), 0, "{:?}", many.stats[0]);
        assert_eq!(one.net, many.net, "{game}: nets per deal");
        assert_eq!(one.adj, many.adj, "{game}: luck-adjusted nets");
        assert_eq!(one.stats, many.stats, "{game}: statistics");
        assert_eq!(many.net[0].len(), 150);
        // The hands were really spread over the tables of one process per seat rotation.
        let t = transcripts(&out);
        assert!(t.contains(r#""table":3"#), "four tables in flight");
        let _ = std::fs::remove_dir_all(&out);
    }
}

#[test]
fn a_misbehaving_process_costs_faults_not_results() {
    // crash: exits mid-batch with requests pending; late: answers one table's request after its
    // deadline; wrongtable, unknownid, noid, flood: replies that name another table, answer no
    // request, carry no id, or repeat stale ids.
    for mode in ["crash", "late", "wrongtable", "unknownid", "noid", "flood"] {
        let (u, out) = play(mode, "27td-fl", mode, 200);
        assert!(
            u.stats[0].fault_total() > 0,
            "{mode}: the fault is recorded"
        );
        assert_eq!(
            u.stats[1].fault_total(),
            0,
            "{mode}: the opponent is not blamed"
        );
        assert_eq!(u.net[0].len(), 200, "{mode}: every deal has a result");
        for d in 0..200 {
            assert_eq!(
                u.net[0][d] + u.net[1][d],
                0,
                "{mode}: chips conserved in deal {d}"
            );
            assert_eq!(
                u.adj[0][d] + u.adj[1][d],
                0,
                "{mode}: adjusted results sum to zero"
            );
        }
        let hands: u64 = u.stats.iter().map(|s| s.hands).sum();
        assert_eq!(
            hands,
            2 * 2 * 200,
            "{mode}: every hand of both rotations counted"
        );
        let _ = std::fs::remove_dir_all(&out);
    }
}

/// A unit played in phases — rotation 0, its processes ended, then rotation 1, each on the tables
/// of one process — gives the unit played whole by a one-table bot.
#[test]
fn a_unit_played_rotation_by_rotation_gives_the_unit_played_whole() {
    use pitboss_arena::BotFactory;
    use pitboss_tournament::unit::{merge_parts, play_unit_part};
    for (game, mode) in [("27td-fl", "compact"), ("stud8-fl", "v1")] {
        let (whole, _) = play(&format!("whole-{game}"), game, "v1", 150);
        let out = tmp(&format!("parts-{game}-{mode}"));
        let specs = [fixture(mode), "call".to_string()];
        let field = Field::new(&specs, &out, false);
        let refs: Vec<&str> = specs.iter().map(String::as_str).collect();
        let spec = unit(game, 150);
        let parts = (0..2)
            .map(|r| {
                let p = play_unit_part(7, None, &spec, &refs, r, 40 + r, &field, Some(None), KEPT);
                field.factory.end_lane(40 + r);
                p
            })
            .collect();
        let merged = merge_parts(&spec, parts);
        assert_eq!(merged, whole, "{game} {mode}");
        // The kept hands of both rotations, back in hand order: [1], [2], ... [KEPT].
        let text = String::from_utf8(merged.history.clone()).unwrap();
        let heads: Vec<&str> = text.lines().filter(|l| l.starts_with('[')).collect();
        let want: Vec<String> = (1..=KEPT).map(|k| format!("[{k}]")).collect();
        assert_eq!(heads, want, "{game} {mode}");
        // One process per phase, none alive across the two.
        let ledger = field.factory.ledger();
        assert_eq!(ledger.len(), 2, "{ledger:?}");
        assert!(ledger[0].1.ended_us <= ledger[1].1.started_us, "{ledger:?}");
        assert_eq!(ledger[0].1.lanes, vec![40]);
        assert_eq!(ledger[1].1.lanes, vec![41]);
        field.factory.shutdown();
        let _ = std::fs::remove_dir_all(&out);
    }
}
