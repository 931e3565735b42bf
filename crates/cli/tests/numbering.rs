//! One numbering (issue #27): a hand and a seat go by the same number in `hands.csv`, `pitboss phh
//! show`, `match.log` and the `WARNING` lines — hands and seats from 1 — while the wire protocol
//! keeps counting from 0. Each test failed on the main branch before the change (`hands.csv`
//! counted hands from 0, `phh show` labelled players `p1`, `p2` in PokerKit's order and printed
//! seats from 0, fault reasons named seats from 0).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

fn pitboss() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pitboss"))
}

#[path = "common/tmp.rs"]
mod tmp;
use tmp::Tmp;

fn run(c: &mut Command) -> (i32, String, String) {
    let o = c.output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// One row of `hands.csv`.
#[derive(Debug, Clone)]
struct Row {
    hand: u64,
    button: u64,
    seat: u64,
    bot: String,
    net: i64,
    faults: String,
}

fn rows(out: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(out.join("hands.csv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("hand,deal,rotation,button,seat,bot,net,showdown,faults,adj_net")
    );
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            Row {
                hand: f[0].parse().unwrap(),
                button: f[3].parse().unwrap(),
                seat: f[4].parse().unwrap(),
                bot: f[5].to_string(),
                net: f[6].parse().unwrap(),
                faults: f[8].to_string(),
            }
        })
        .collect()
}

/// Plays a match with `--history` and returns its rows and its stderr.
fn history(out: &Tmp, game: &str, bots: &[&str], hands: u32, extra: &[&str]) -> (Vec<Row>, String) {
    let mut c = pitboss();
    c.args(["match", "--game", game, "--seed", "27"]);
    for b in bots {
        c.args(["--bot", b]);
    }
    c.args(["--hands", &hands.to_string(), "--history", "--out"])
        .arg(&out.0)
        .args(extra);
    let (code, _, err) = run(&mut c);
    assert_eq!(code, 0, "{err}");
    (rows(&out.0), err)
}

/// The seat lines of the table at the top of a shown hand: (seat, name).
fn table_of(shown: &str) -> Vec<(u64, String)> {
    shown
        .lines()
        .take_while(|l| !l.starts_with("  seat ") || l.contains("(p"))
        .filter(|l| l.starts_with("  seat ") && l.contains(" in the file)"))
        .map(|l| {
            let mut w = l.split_whitespace();
            assert_eq!(w.next(), Some("seat"));
            (
                w.next().unwrap().parse().unwrap(),
                w.next().unwrap().to_string(),
            )
        })
        .collect()
}

/// `seat S END (NET)` pairs of the `finishing stacks (net):` line: seat → net.
fn nets_of(shown: &str) -> BTreeMap<u64, i64> {
    let line = shown
        .lines()
        .find_map(|l| l.strip_prefix("finishing stacks (net): "))
        .unwrap_or_else(|| panic!("no finishing stacks in:\n{shown}"));
    line.split(", ")
        .map(|p| {
            let w: Vec<&str> = p.split_whitespace().collect();
            assert_eq!(w[0], "seat", "{line}");
            let net = w[3].trim_matches(|c| c == '(' || c == ')');
            (w[1].parse().unwrap(), net.parse().unwrap())
        })
        .collect()
}

#[test]
fn a_losing_hand_of_the_csv_opens_in_phh_show_with_the_number_the_csv_shows() {
    let out = Tmp::absent("td");
    // Three-handed triple draw: PHH's p1 is left of the button, so p-order and seat order differ.
    let (rows, _) = history(&out, "27td-fl", &["raise", "call", "random"], 60, &[]);
    assert_eq!(rows.len(), 3 * 60);
    assert_eq!(
        (rows[0].hand, rows.last().unwrap().hand),
        (1, 60),
        "hands from 1"
    );
    // The biggest loss of seat 2.
    let worst = rows
        .iter()
        .filter(|r| r.seat == 2)
        .min_by_key(|r| r.net)
        .unwrap()
        .clone();
    assert!(worst.net < 0, "{worst:?}");
    let n = worst.hand.to_string();
    let (code, shown, err) = run(pitboss()
        .args(["phh", "show"])
        .arg(out.0.join("hands.phhs"))
        .args(["--hand", &n]));
    assert_eq!(code, 0, "{err}");
    // The header names the hand once, by the CSV's number.
    let header = shown.lines().next().unwrap();
    assert!(header.starts_with(&format!("== hand {n} of ")), "{header}");
    // (Counted without the file's path: the temporary folder's name holds the test's process
    // id, which may contain the hand's number, as pid 860 and hand 60 once did.)
    let path = out.0.join("hands.phhs").display().to_string();
    assert_eq!(header.replace(&path, "").matches(&n).count(), 1, "{header}");
    assert!(!header.contains('['), "{header}");
    // Seat 2's result is the CSV's, and every other seat's too.
    let nets = nets_of(&shown);
    assert_eq!(nets[&2], worst.net, "{shown}");
    for r in rows.iter().filter(|r| r.hand == worst.hand) {
        assert_eq!(
            nets[&r.seat], r.net,
            "seat {} of hand {n}:\n{shown}",
            r.seat
        );
    }
    // The table lists seats 1, 2, 3 in seat order, each with the CSV's bot; the button is the
    // CSV's.
    let table = table_of(&shown);
    let want: Vec<(u64, String)> = {
        let mut v: Vec<(u64, String)> = rows
            .iter()
            .filter(|r| r.hand == worst.hand)
            .map(|r| (r.seat, r.bot.clone()))
            .collect();
        v.sort();
        v
    };
    assert_eq!(table, want, "{shown}");
    assert!(
        shown.contains(&format!("; button seat {}\n", worst.button)),
        "{shown}"
    );
    // Actions name seats as the table does: no PHH `pK` label outside the table.
    for l in shown.lines().skip(2 + 3) {
        assert!(
            !l.split_whitespace()
                .any(|w| w.len() == 2 && w.starts_with('p') && w[1..].parse::<u8>().is_ok()),
            "a PHH label in an action line: {l}\n{shown}"
        );
    }
    assert!(shown.contains("  seat 2 "), "{shown}");
}

#[test]
fn every_hand_shown_has_the_csv_numbers_and_nets_in_stud_and_duplicate() {
    let out = Tmp::absent("stud");
    let (rows, _) = history(
        &out,
        "stud8-fl",
        &["hilo", "random", "call"],
        36,
        &["--duplicate"],
    );
    let (code, shown, err) = run(pitboss()
        .args(["phh", "show"])
        .arg(out.0.join("hands.phhs")));
    assert_eq!(code, 0, "{err}");
    let blocks: Vec<&str> = shown.split("\n== ").collect();
    assert_eq!(blocks.len(), 36);
    for (k, block) in blocks.iter().enumerate() {
        let hand = k as u64 + 1;
        let header = block.lines().next().unwrap().trim_start_matches("== ");
        assert!(header.starts_with(&format!("hand {hand} of ")), "{header}");
        let nets = nets_of(block);
        let csv: BTreeMap<u64, i64> = rows
            .iter()
            .filter(|r| r.hand == hand)
            .map(|r| (r.seat, r.net))
            .collect();
        assert_eq!(nets, csv, "hand {hand}:\n{block}");
    }
    // Compact lines carry the same number and the same seat labels.
    let (code, compact, err) = run(pitboss()
        .args(["phh", "show", "--compact", "--hand", "36"])
        .arg(out.0.join("hands.phhs")));
    assert_eq!(code, 0, "{err}");
    assert!(!compact.is_empty());
    assert!(
        compact.lines().all(|l| l.starts_with("[36] seat ")),
        "{compact}"
    );
}

/// A bot that answers an illegal raise (to 1 chip) whenever the protocol seats it in seat 0, and
/// plays the minimal bot of protocol.md §11 otherwise.
const ILLEGAL_IN_WIRE_SEAT_0: &str = r#"import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        reply = {"type": "hello", "id": msg["id"], "protocol": 1, "name": "seatzero"}
    elif msg["type"] == "act":
        legal = msg["legal"]
        if legal["discard"] is not None:
            action = {"type": "discard", "cards": []}
        elif msg["view"]["seat"] == 0:
            action = {"type": "raise", "to": 1}
        elif legal["bring_in"] is not None:
            action = {"type": "bring_in"}
        elif legal["check"]:
            action = {"type": "check"}
        else:
            action = {"type": "call"} if legal["call"] is not None else {"type": "fold"}
        reply = {"type": "action", "id": msg["id"], "action": action}
    elif msg["type"] == "match_end":
        break
    else:
        continue
    print(json.dumps(reply), flush=True)
"#;

#[test]
fn fault_reasons_name_the_seat_and_hand_as_hands_csv_does() {
    let bot = Tmp::absent("bot");
    std::fs::create_dir_all(&bot.0).unwrap();
    let script = bot.0.join("seatzero.py");
    std::fs::write(&script, ILLEGAL_IN_WIRE_SEAT_0).unwrap();
    let spec = format!("exec:python3 {}", script.display());
    // A match: the CSV puts every fault in seat 1 (the wire's seat 0).
    let out = Tmp::absent("log");
    let (rows, _) = history(&out, "27td-fl", &[&spec, "call"], 40, &[]);
    let faulted: Vec<&Row> = rows
        .iter()
        .filter(|r| r.faults.contains("illegal"))
        .collect();
    assert!(!faulted.is_empty(), "the bot never faulted");
    assert!(faulted.iter().all(|r| r.seat == 1), "{faulted:?}");
    // match.log gives the rules' reason for its first illegal actions (three), each with the hand
    // and seat the CSV gives it.
    let log = std::fs::read_to_string(out.0.join("match.log")).unwrap();
    let lines: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("illegal: seat 1 tried `raise to 1`"))
        .collect();
    assert_eq!(lines.len(), 3.min(faulted.len()), "{log}");
    for l in &lines {
        let hand: u64 = l
            .trim_start()
            .strip_prefix("fault: hand ")
            .and_then(|r| r.split(',').next())
            .and_then(|h| h.parse().ok())
            .unwrap_or_else(|| panic!("no hand in {l:?}"));
        assert!(l.contains(", seat 1: illegal: "), "{l}");
        assert!(
            faulted.iter().any(|r| r.hand == hand),
            "{l}: hand {hand} has no fault in hands.csv"
        );
    }
    // (An unfit bot's check keeps its folder: in a temp root of the test's own, removed.)
    let chk = Tmp::absent("check");
    // `check` says the same seat, and hands as the CSV counts them: the bot sits in wire seat 0 in
    // its hands 0, 1, 4, 5, 8, ... (check alternates pairs of hands), hands 1, 2, 5, 6, 9, ... here.
    let (_, stdout, err) = run(pitboss()
        .args(["check", &spec, "--game", "27td-fl", "--hands", "20"])
        .env("TMPDIR", {
            std::fs::create_dir_all(&chk.0).unwrap();
            &chk.0
        }));
    let text = format!("{stdout}{err}");
    let reasons: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(" tried `raise to 1`"))
        .collect();
    assert!(!reasons.is_empty(), "{text}");
    for l in &reasons {
        assert!(l.contains(": seat 1 tried `raise to 1`"), "{l}");
        let hands = l.trim_start().split(": ").next().unwrap();
        let numbers: Vec<u64> = hands
            .trim_start_matches("hands ")
            .trim_start_matches("hand ")
            .split(", ")
            .filter_map(|h| h.parse().ok())
            .collect();
        assert!(!numbers.is_empty(), "{l}");
        assert!(
            numbers
                .iter()
                .all(|h| (1..=20).contains(h) && matches!(h % 4, 1 | 2)),
            "hands numbered from 1, in the bot's seat-1 hands: {l}"
        );
    }
}

/// A tournament names the rules' reasons for a bot's first illegal actions too (on the terminal,
/// in leaderboard.md and report.html), with the hand numbered over its table as the table's
/// history file numbers it; the reasons live in the unit files, so a resumed or merged
/// tournament reports the same.
#[test]
fn a_tournament_names_the_reasons_of_illegal_actions() {
    let bot = Tmp::absent("tbot");
    std::fs::create_dir_all(&bot.0).unwrap();
    let script = bot.0.join("seatzero.py");
    std::fs::write(&script, ILLEGAL_IN_WIRE_SEAT_0).unwrap();
    let spec = format!("exec:python3 {}", script.display());
    let out = Tmp::absent("tour");
    let (code, stdout, err) = run(pitboss()
        .args([
            "tournament",
            "--game",
            "27td-fl",
            "--bot",
            &spec,
            "--bot",
            "call",
        ])
        .args(["--deals", "30", "--batch", "10", "--seed", "4", "--out"])
        .arg(&out.0));
    assert_eq!(code, 0, "{err}");
    let shown: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("illegal action of "))
        .collect();
    assert_eq!(shown.len(), 3, "{stdout}");
    let mut hands = Vec::new();
    for l in &shown {
        assert!(
            l.contains(": 27td-fl against call, hand ")
                && l.contains(", seat 1: illegal: seat 1 tried `raise to 1`"),
            "{l}"
        );
        let hand: u64 = l
            .split(", hand ")
            .nth(1)
            .and_then(|r| r.split(',').next())
            .and_then(|h| h.parse().ok())
            .unwrap_or_else(|| panic!("no hand in {l:?}"));
        // 30 deals of two hands each, numbered from 1.
        assert!((1..=60).contains(&hand), "{l}");
        hands.push(hand);
    }
    assert!(
        hands.windows(2).all(|w| w[0] <= w[1]),
        "in hand order: {hands:?}"
    );
    let md = std::fs::read_to_string(out.0.join("leaderboard.md")).unwrap();
    assert_eq!(
        md.lines()
            .filter(|l| l.starts_with("- ") && l.contains("tried \\`raise to 1\\`"))
            .count(),
        3,
        "{md}"
    );
    let html = std::fs::read_to_string(out.0.join("report.html")).unwrap();
    assert!(html.contains("<h2>Illegal actions</h2>"), "{html}");
    assert_eq!(html.matches("tried `raise to 1`").count(), 3);
    // Resumed, every unit reused: the same reasons, from the unit files.
    let (code, again, err) = run(pitboss().args(["tournament", "--resume"]).arg(&out.0));
    assert_eq!(code, 0, "{err}");
    let again: Vec<&str> = again
        .lines()
        .filter(|l| l.starts_with("illegal action of "))
        .collect();
    assert_eq!(again, shown);
}
