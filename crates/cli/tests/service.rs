//! `pitboss serve` as a process: killed with SIGKILL at arbitrary moments while it plays, then
//! restarted — no finished match is lost or changed, none is counted twice, and the matches cut
//! short are played again from their seed to the very result a first run gives.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::db::{self, done, matches, wait_for, Db};
use common::fresh::assert_as_played_again;
use common::proc::{get_text, pitboss, serve as serve_with, Killed};
use common::tmp::Tmp;
use pitboss_store::{Files, MatchState, Store};

/// `pitboss serve` on `data` with 400-hand matches.
fn serve(data: &Path, extra: &[&str]) -> (Killed, String) {
    let mut args = vec!["--hands-per-match", "400"];
    args.extend_from_slice(extra);
    serve_with(data, &args)
}

#[test]
fn kill_9_loses_no_finished_match_and_counts_none_twice() {
    let tmp = Tmp::new("svc-kill");
    let data = tmp.join("data");
    let db = Db::dir(&data);
    let mut cut_short: Vec<i64> = Vec::new();
    for round in 0..4u64 {
        let (mut child, _) = serve(&data, &[]);
        let before = db::try_matches(&db).map_or(0, |m| done(&m).len());
        wait_for(&db, "matches to finish", 120, |m| {
            done(m).len() >= before + 5
        });
        std::thread::sleep(Duration::from_millis(13 * round));
        let seen = done(&matches(&db));
        child.kill_now(); // SIGKILL
        let after = matches(&db);
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
    wait_for(&db, "the interrupted matches", 120, |m| {
        cut_short
            .iter()
            .all(|id| m.get(id).is_some_and(|x| x.state == MatchState::Done))
    });
    child.kill_now();
    let all = matches(&db);
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
    assert_as_played_again(&data, &db, &[again]);
}

fn token(data: &Path, name: &str) -> String {
    let o = pitboss()
        .args(["token", "create", name, "--data"])
        .arg(data)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap().trim().to_string()
}

fn upload(addr: &str, folder: &Path, token: &str, name: &str) -> std::process::Output {
    pitboss()
        .arg("upload")
        .arg(folder)
        .args(["--server", &format!("http://{addr}"), "--name", name])
        .env("PITBOSS_TOKEN", token)
        .output()
        .unwrap()
}

fn version_state(addr: &str, bot: &str, n: usize) -> Option<String> {
    let (code, body) = get_text(addr, &format!("/api/bots/{bot}"), None);
    if code != 200 {
        return None;
    }
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    v["versions"]
        .as_array()?
        .iter()
        .find(|x| x["number"] == n)
        .and_then(|x| x["state"].as_str().map(str::to_string))
}

fn wait_until(what: &str, ok: impl Fn() -> bool) {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(180) {
        if ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    panic!("timed out waiting for {what}");
}

#[test]
fn an_upload_is_checked_plays_and_its_next_version_plays_it_head_to_head() {
    let tmp = Tmp::new("svc-upload");
    let data = tmp.join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(
        data.join("ladder.toml"),
        "presets = [\"27td-fl\", \"stud8-fl\"]\nreferences = [\"call\", \"random\"]\n\
         hands_per_match = 200\ncheck_hands = 20\nworkers = 2\n",
    )
    .unwrap();
    let (_server, addr) = serve(&data, &[]);
    let alice = token(&data, "alice");
    let bob = token(&data, "bob");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let simple = repo.join("bots/python/simple");

    let o = upload(&addr, &simple, &alice, "simple");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    wait_until("version 1 active", || {
        version_state(&addr, "simple", 1).as_deref() == Some("active")
    });
    // Another account cannot take the name.
    let o = upload(&addr, &simple, &bob, "simple");
    assert_eq!(
        o.status.code(),
        Some(6),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("403"));

    let o = upload(&addr, &simple, &alice, "simple");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    wait_until("version 2 active, version 1 retired", || {
        version_state(&addr, "simple", 2).as_deref() == Some("active")
            && version_state(&addr, "simple", 1).as_deref() == Some("retired")
    });
    wait_until("a head-to-head match of the two versions", || {
        db::try_matches(&Db::dir(&data)).is_some_and(|m| {
            m.values().any(|m| {
                m.state == MatchState::Done && m.kind == pitboss_store::MatchKind::Predecessor
            })
        })
    });
    let (_, body) = get_text(&addr, "/api/bots/simple", None);
    assert!(body.contains("\"predecessor\""), "{body}");

    // A bot that cannot start fails its check, never plays, and only its owner reads the log.
    let broken = data.join("broken-src");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(
        broken.join("bot.toml"),
        "name = \"broken\"\ncommand = [\"python3\", \"bot.py\"]\n",
    )
    .unwrap();
    std::fs::write(
        broken.join("bot.py"),
        "import sys\nprint('<b>broken on purpose</b>', file=sys.stderr)\nsys.exit(3)\n",
    )
    .unwrap();
    let o = upload(&addr, &broken, &alice, "broken");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    wait_until("the broken version failed", || {
        version_state(&addr, "broken", 1).as_deref() == Some("failed")
    });
    let log = "/api/bots/broken/versions/1/log";
    let (code, body) = get_text(&addr, log, Some(&alice));
    assert_eq!(code, 200, "{body}");
    assert!(
        body.contains("NOT FIT") && body.contains("broken on purpose"),
        "{body}"
    );
    assert_ne!(
        get_text(&addr, log, Some(&bob)).0,
        200,
        "another account reads the log"
    );
    assert_ne!(get_text(&addr, log, None).0, 200, "anyone reads the log");
    let broken_id = db::rt().block_on(async {
        let s = Store::open_dir(&data).await.unwrap();
        let id = s.bot_by_name("broken").await.unwrap().unwrap().id;
        let v = s.versions().await.unwrap();
        s.close().await;
        v.iter().find(|v| v.bot == id).unwrap().id
    });
    assert!(
        matches(&Db::dir(&data))
            .values()
            .all(|m| m.a != broken_id && m.b != broken_id),
        "a failed version played"
    );
}
