//! `pitboss serve --queue` with `pitboss worker`s on real NATS JetStream (no mocks): the machine's
//! NATS at 127.0.0.1:4222 with a stream prefix of each test's own, and a private `nats-server`
//! for the test that stops it. Each run plays a fixed list of matches (`plan = false`, matches
//! inserted with fixed seeds) and its results — per match: mean, standard error, statistics —
//! must equal a fault-free run of the same matches by `pitboss serve`'s local workers, and so must
//! the final leaderboard (`/api/leaderboard`).

mod common;
mod forger;

use std::time::Duration;

use common::db::{self, all_done, counts, matches, wait_for, Db};
use common::fixture::{
    assert_same_board, baseline, done_rows, fixed, leaderboard, prepare, results, worker_midway,
    Fixed,
};
use common::nats::{free_port, nats_server, Streams, NATS};
use common::proc::{get_text, http_get, pitboss, serve, wait_line, worker, worker_token, Killed};
use common::tmp::Tmp;
use forger::Tamper;
use pitboss_store::{MatchState, Store};

/// `pitboss serve --queue URL --stream PREFIX` on `data`, with the fixed runs' flags.
fn serve_queue(data: &std::path::Path, url: &str, p: &str, extra: &[&str]) -> (Killed, String) {
    let mut args = vec!["--no-sandbox", "--queue", url, "--stream", p];
    args.extend_from_slice(extra);
    serve(data, &args)
}

/// The match id a worker's line `… match ID (delivery N): running` names.
fn match_of(line: &str) -> i64 {
    line.split("match ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// Every match done once: done, none failed or pending, every hand counted once.
fn assert_counted_once(db: &Db, n: i64, hands: i64) {
    let c = counts(db);
    assert_eq!((c.done, c.failed, c.running, c.queued), (n, 0, 0, 0));
    assert_eq!(c.hands_total, hands * n);
}

#[test]
fn a_worker_killed_mid_match_loses_nothing_and_counts_nothing_twice() {
    let tmp = Tmp::new("q-kill");
    let ms = fixed(&[11, 12, 13]);
    // The reference bots are quick (some 100,000 hands a second on a quiet core): long enough to
    // be killed in.
    let hands = 100_000;
    let want = baseline(&tmp, &ms, hands);
    let data = tmp.join("data");
    let db = Db::dir(&data);
    prepare(&data, &db, &ms, hands);
    let p = Streams::new("kill");
    let (_s, addr) = serve_queue(&data, NATS, &p, &["--ack-wait", "2"]);
    let tok = worker_token(&data, "w", &[]);
    let (mut a, arx) = worker(
        NATS,
        &p,
        &addr,
        &tok,
        "a",
        &tmp.join("cache-a"),
        &["--slots", "1"],
    );
    let id = match_of(&wait_line(
        &arx,
        |l| l.contains("(delivery 1): running"),
        60,
    ));
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        matches(&db)[&id].state != MatchState::Done,
        "the match ended before the kill; make it longer"
    );
    a.kill_now(); // SIGKILL, mid-match
    let (_b, brx) = worker(
        NATS,
        &p,
        &addr,
        &tok,
        "b",
        &tmp.join("cache-b"),
        &["--slots", "2"],
    );
    // The killed worker's job comes to the other one after the ack wait.
    wait_line(
        &brx,
        |l| l.contains(&format!("match {id} (delivery 2)")),
        120,
    );
    wait_for(&db, "every match", 300, all_done(ms.len()));
    assert_eq!(
        results(&db),
        want.rows,
        "the run with a kill differs from the fault-free one"
    );
    assert_counted_once(&db, 3, hands);
    assert_same_board(&leaderboard(&addr, 3), &want.board);
    // The hand viewer has each match's hands, sent along with the results.
    for id in matches(&db).keys() {
        assert!(data.join(format!("hands/{id}.phhs.zst")).is_file());
    }
}

#[test]
fn nats_stopped_and_restarted_loses_nothing() {
    let tmp = Tmp::new("q-nats");
    let ms = fixed(&[21, 22, 23, 24]);
    let hands = 100_000;
    let want = baseline(&tmp, &ms, hands);
    let data = tmp.join("data");
    let db = Db::dir(&data);
    prepare(&data, &db, &ms, hands);
    let store = tmp.join("nats");
    let port = free_port();
    let url = format!("nats://127.0.0.1:{port}");
    let mut n = nats_server(port, &store);
    let (_s, addr) = serve_queue(&data, &url, "r", &["--ack-wait", "3"]);
    let _w = worker_midway(&data, &db, ms.len(), (&url, "r", &addr), "NATS stopped");
    // Stop NATS (SIGTERM: its own shutdown) while matches play, and start it again.
    unsafe { libc::kill(n.id() as i32, libc::SIGTERM) };
    let _ = n.wait();
    std::thread::sleep(Duration::from_secs(3));
    let _n2 = nats_server(port, &store);
    wait_for(
        &db,
        "every match after the restart",
        300,
        all_done(ms.len()),
    );
    assert_eq!(
        results(&db),
        want.rows,
        "the run across a NATS restart differs"
    );
    assert_counted_once(&db, 4, hands);
    assert_same_board(&leaderboard(&addr, 4), &want.board);
}

#[test]
fn a_worker_on_another_engine_refuses_and_the_job_is_parked() {
    let tmp = Tmp::new("q-old");
    let data = tmp.join("data");
    let db = Db::dir(&data);
    prepare(&data, &db, &fixed(&[31]), 200);
    let p = Streams::new("old");
    let (_s, addr) = serve_queue(&data, NATS, &p, &["--ack-wait", "2", "--max-attempts", "2"]);
    let tok = worker_token(&data, "w", &[]);
    let (_w, rx) = worker(
        NATS,
        &p,
        &addr,
        &tok,
        "old",
        &tmp.join("cache"),
        &["--engine-version", "0.0.1+engine.0"],
    );
    let l = wait_line(&rx, |l| l.contains("refused"), 60);
    assert!(l.contains("0.0.1+engine.0") && l.contains("engine"), "{l}");
    wait_for(&db, "the parked match's failure", 120, |m| {
        m.values().all(|m| m.state == MatchState::Failed)
    });
    let m = matches(&db).into_values().next().unwrap();
    assert!(m.error.contains("parked"), "{}", m.error);
    assert!(m.error.contains("refused by worker old"), "{}", m.error);
    assert!(m.error.contains("0.0.1+engine.0"), "{}", m.error);
    assert!(m.outcome.is_none(), "a refused job is never played");
    assert!(!data.join(format!("hands/{}.phhs.zst", m.id)).exists());
    // The operator sees why.
    let page = String::from_utf8(http_get(&addr, "/operator", None).1).unwrap();
    assert!(page.contains("parked"), "{page}");
}

#[test]
fn a_job_whose_workers_all_vanish_is_parked_after_its_attempts() {
    let tmp = Tmp::new("q-park");
    let data = tmp.join("data");
    let db = Db::dir(&data);
    prepare(&data, &db, &fixed(&[41]), 60_000);
    let p = Streams::new("park");
    let (_s, addr) = serve_queue(&data, NATS, &p, &["--ack-wait", "1", "--max-attempts", "2"]);
    let tok = worker_token(&data, "w", &[]);
    let cache = tmp.join("cache");
    for attempt in 1..=2 {
        let (mut w, rx) = worker(NATS, &p, &addr, &tok, &format!("w{attempt}"), &cache, &[]);
        wait_line(
            &rx,
            |l| l.contains(&format!("(delivery {attempt}): running")),
            60,
        );
        w.kill_now();
    }
    let (_w, rx) = worker(NATS, &p, &addr, &tok, "w3", &cache, &[]);
    let l = wait_line(&rx, |l| l.contains("parked"), 60);
    assert!(l.contains("delivered 3 times"), "{l}");
    wait_for(&db, "the parked match's failure", 60, |m| {
        m.values().all(|m| m.state == MatchState::Failed)
    });
    let m = matches(&db).into_values().next().unwrap();
    assert!(
        m.error.contains("delivered 3 times without a result"),
        "{}",
        m.error
    );
}

#[test]
fn bundles_are_served_to_worker_tokens_only() {
    use sha2::Digest;
    let tmp = Tmp::new("q-bundles");
    let data = tmp.join("data");
    prepare(&data, &Db::dir(&data), &[], 2);
    let bytes = b"not really a bundle".to_vec();
    let sha = hex_of(&sha2::Sha256::digest(&bytes));
    pitboss_store::Files::new(&data)
        .unwrap()
        .put_bundle(&sha, &bytes)
        .unwrap();
    let author = db::rt().block_on(async {
        let s = Store::open_dir(&data).await.unwrap();
        let t = s.create_account("alice", 10, 1 << 20).await.unwrap().1;
        s.close().await;
        t
    });
    let (_s, addr) = serve(&data, &[]);
    let tok = worker_token(&data, "w", &[]);
    let path = format!("/api/bundles/{sha}");
    assert_eq!(http_get(&addr, &path, None).0, 401);
    assert_eq!(
        http_get(&addr, &path, Some(&author)).0,
        401,
        "an author's token"
    );
    assert_eq!(http_get(&addr, &path, Some("pbw_forged")).0, 401);
    assert_eq!(http_get(&addr, &path, Some(&tok)), (200, bytes));
    assert_eq!(
        http_get(&addr, "/api/bundles/..%2f..%2fsecret", Some(&tok)).0,
        400
    );
    let zeros = format!("/api/bundles/{}", "0".repeat(64));
    assert_eq!(http_get(&addr, &zeros, Some(&tok)).0, 404);
    // Revoked: no more.
    let o = pitboss()
        .args(["token", "worker", "revoke", "w", "--data"])
        .arg(&data)
        .output()
        .unwrap();
    assert!(o.status.success());
    assert_eq!(http_get(&addr, &path, Some(&tok)).0, 401);
}

fn hex_of(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn forged_results_are_refused_their_worker_flagged_and_the_honest_ones_count() {
    let tmp = Tmp::new("q-forge");
    // 60 hands: fewer than the audit's smallest sample (64), so every hand is replayed and one
    // forged chip is always found (on a long match, the sample finds it with its odds).
    let hands = 60;
    let ms = fixed(&[51, 52, 53, 54, 55]);
    let data = tmp.join("data");
    let db = Db::dir(&data);
    prepare(&data, &db, &ms, hands);
    let p = Streams::new("forge");
    let (_s, addr) = serve_queue(&data, NATS, &p, &[]);
    // The forger takes the first two jobs, before any honest worker runs.
    let forged = forger::forge(
        NATS,
        &p,
        "forger",
        &tmp.join("cache-forger"),
        &[Tamper::MoveChip, Tamper::Mean],
    );
    let tok = worker_token(&data, "w", &[]);
    let (_w, _) = worker(
        NATS,
        &p,
        &addr,
        &tok,
        "honest",
        &tmp.join("cache"),
        &["--slots", "2"],
    );
    wait_for(&db, "every match done or failed", 120, |m| {
        m.values()
            .all(|m| matches!(m.state, MatchState::Done | MatchState::Failed))
    });
    let all = matches(&db);
    for f in &forged {
        let m = &all[&f.id];
        assert_eq!(
            m.state,
            MatchState::Failed,
            "forged match {} was taken",
            f.id
        );
        assert!(m.outcome.is_none());
        assert!(
            m.error.starts_with("result refused by the audit: "),
            "{}",
            m.error
        );
        match f.tamper {
            Tamper::MoveChip => assert!(
                m.error.contains("chips recorded") && m.error.contains("replayed"),
                "{}",
                m.error
            ),
            Tamper::Mean => assert!(
                m.error.contains(&format!(
                    "the mean: {} claimed",
                    f.honest.stored.mean + 100.0
                )),
                "{}",
                m.error
            ),
        }
    }
    // The worker is flagged, for each refusal, on the operator's page and in the status.
    let (code, status) = get_text(&addr, "/api/status", None);
    assert_eq!(code, 200);
    let status: serde_json::Value = serde_json::from_str(&status).unwrap();
    let flags = status["worker_flags"].as_array().unwrap();
    assert_eq!(flags.len(), 2, "{status:#}");
    for f in &forged {
        let flag = flags
            .iter()
            .find(|x| x["match_id"] == f.id)
            .unwrap_or_else(|| panic!("no flag for match {}: {status:#}", f.id));
        assert_eq!(flag["worker"], "forger");
        assert!(all[&f.id].error.ends_with(flag["reason"].as_str().unwrap()));
    }
    let (_, page) = get_text(&addr, "/operator", None);
    let flagged = page
        .split("Flagged workers")
        .nth(1)
        .expect("the flags' section");
    assert_eq!(flagged.matches("<td>forger</td>").count(), 2, "{flagged}");
    for f in &forged {
        assert!(flagged.contains(&format!("#{}", f.id)), "{flagged}");
    }
    assert!(
        !flagged.contains("honest"),
        "the honest worker flagged: {flagged}"
    );
    // The honest worker's matches (and the board they make) are a fault-free run of theirs.
    let honest: Vec<Fixed> = all
        .values()
        .filter(|m| m.state == MatchState::Done)
        .map(|m| *ms.iter().find(|x| x.0 == m.seed).unwrap())
        .collect();
    assert_eq!(honest.len(), ms.len() - 2);
    let board = leaderboard(&addr, honest.len() as u64);
    let want = baseline(&tmp, &honest, hands);
    assert_eq!(
        done_rows(&db),
        want.rows,
        "the honest matches differ from a fault-free run"
    );
    assert_same_board(&board, &want.board);
}

#[test]
fn the_server_killed_while_workers_play_loses_nothing_and_counts_nothing_twice() {
    let tmp = Tmp::new("q-serve-kill");
    let ms = fixed(&[61, 62, 63, 64]);
    let hands = 60_000;
    let want = baseline(&tmp, &ms, hands);
    let data = tmp.join("data");
    let db = Db::dir(&data);
    prepare(&data, &db, &ms, hands);
    let p = Streams::new("servekill");
    let (mut s, addr) = serve_queue(&data, NATS, &p, &["--ack-wait", "3"]);
    let _w = worker_midway(&data, &db, ms.len(), (NATS, &p, &addr), "the kill");
    s.kill_now(); // SIGKILL, with matches running on the worker
    let (_s2, addr) = serve_queue(&data, NATS, &p, &["--ack-wait", "3"]);
    wait_for(
        &db,
        "every match after the restart",
        300,
        all_done(ms.len()),
    );
    assert_eq!(
        results(&db),
        want.rows,
        "the run across a server kill differs"
    );
    assert_counted_once(&db, 4, hands);
    assert_same_board(&leaderboard(&addr, 4), &want.board);
}
