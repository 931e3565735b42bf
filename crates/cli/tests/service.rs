//! `pitboss serve` as a process: killed with SIGKILL at arbitrary moments while it plays, then
//! restarted — no finished match is lost or changed, none is counted twice, and the matches cut
//! short are played again from their seed to the very result a first run gives.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pitboss_store::{Files, Match, MatchState, Store};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pitboss-svc-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Starts `pitboss serve` on a free port; returns the child once it listens.
fn serve(data: &Path, extra: &[&str]) -> (Child, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args(["serve", "--data"])
        .arg(data)
        .args(["--listen", "127.0.0.1:0", "--hands-per-match", "400"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(c.stderr.take().unwrap()).lines();
    let addr = loop {
        let l = lines.next().expect("serve printed its address").unwrap();
        if let Some(rest) = l.split("http://").nth(1) {
            break rest.split('/').next().unwrap().to_string();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    (c, addr)
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn matches(data: &Path) -> BTreeMap<i64, Match> {
    rt().block_on(async {
        let s = Store::open_dir(data).await.unwrap();
        let mut all = BTreeMap::new();
        for m in s.recent_matches(None, 1_000_000).await.unwrap() {
            all.insert(m.id, m);
        }
        s.close().await;
        all
    })
}

fn done(all: &BTreeMap<i64, Match>) -> BTreeMap<i64, Match> {
    all.iter()
        .filter(|(_, m)| m.state == MatchState::Done)
        .map(|(k, v)| (*k, v.clone()))
        .collect()
}

fn wait_for(data: &Path, what: &str, ok: impl Fn(&BTreeMap<i64, Match>) -> bool) {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(120) {
        if data.join("pitboss.db").exists() && ok(&matches(data)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("timed out waiting for {what}");
}

#[test]
fn kill_9_loses_no_finished_match_and_counts_none_twice() {
    let data = tmp("kill");
    let mut cut_short: Vec<i64> = Vec::new();
    for round in 0..4u64 {
        let (mut child, _) = serve(&data, &[]);
        let before = done(&matches(&data)).len();
        wait_for(&data, "matches to finish", |m| done(m).len() >= before + 5);
        std::thread::sleep(Duration::from_millis(13 * round));
        let seen = done(&matches(&data));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let after = matches(&data);
        for (id, m) in &seen {
            assert_eq!(
                after.get(id),
                Some(m),
                "match {id} changed or vanished with the kill"
            );
        }
        cut_short.extend(
            after
                .values()
                .filter(|m| m.state == MatchState::Running)
                .map(|m| m.id),
        );
    }
    assert!(!cut_short.is_empty(), "some match was running at a kill");
    // Restarted: every match cut short is played again and counted once.
    let (mut child, _) = serve(&data, &[]);
    wait_for(&data, "the interrupted matches", |m| {
        cut_short
            .iter()
            .all(|id| m.get(id).is_some_and(|x| x.state == MatchState::Done))
    });
    child.kill().unwrap();
    child.wait().unwrap();
    let all = matches(&data);
    let files = Files::new(&data).unwrap();
    for m in done(&all).values() {
        let o = m.outcome.as_ref().unwrap();
        assert_eq!(o.played, 400, "match {}: every hand counted once", m.id);
        assert_eq!(o.units, 200);
        let h = files.resolve(&o.history).unwrap();
        assert!(h.is_file(), "match {}: its history {}", m.id, h.display());
    }
    // A match played again after a kill gives what one uninterrupted run of its seed gives.
    let again = cut_short
        .iter()
        .map(|id| &all[id])
        .find(|m| m.attempts >= 2)
        .expect("a re-run match");
    let versions = rt().block_on(async {
        let s = Store::open_dir(&data).await.unwrap();
        let v = s.versions().await.unwrap();
        s.close().await;
        v
    });
    let bot = |id: i64| {
        let v = versions.iter().find(|v| v.id == id).unwrap();
        pitboss_worker::BotRef {
            version: id,
            label: v.label(),
            builtin: v.spec.clone(),
            sha256: String::new(),
        }
    };
    let settings = pitboss_worker::Settings {
        secret: files.secret().unwrap(),
        files,
        sandbox: true,
        luck_adjust: true,
        threads: 2,
        check_hands: 10,
        history: false,
        history_hands: 0,
    };
    let fresh = pitboss_worker::play(
        &settings,
        1_000_000 + again.id,
        &again.preset,
        again.seed,
        again.hands,
        &bot(again.a),
        &bot(again.b),
    )
    .unwrap();
    let kept = again.outcome.as_ref().unwrap();
    assert_eq!(
        (fresh.mean, fresh.se, &fresh.a_stats, &fresh.b_stats),
        (kept.mean, kept.se, &kept.a_stats, &kept.b_stats),
        "match {} re-run from its seed",
        again.id
    );
    let _ = std::fs::remove_dir_all(&data);
}
