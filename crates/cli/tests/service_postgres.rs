//! `pitboss serve --database postgres://…` on a private PostgreSQL server of the test's own
//! (initdb into a temporary folder, a free port), stopped and started again under a playing
//! server — results wait and are written when it is back:
//! - with the server's own workers, then a SIGKILL of the server: no finished match lost or
//!   changed, none counted twice, none failed, each the result an uninterrupted run of its seed
//!   gives;
//! - with the server on a NATS JetStream queue and a `pitboss worker`: the fixed matches all
//!   done once, their results and the leaderboard those of a fault-free run of the same seeds.

mod common;

use std::path::Path;
use std::time::Duration;

use common::db::{all_done, counts, done, matches, wait_for, Db};
use common::fixture::{
    assert_same_board, baseline, fixed, leaderboard, prepare, results, worker_midway,
};
use common::fresh::assert_as_played_again;
use common::nats::{Streams, NATS};
use common::pg::Postgres;
use common::proc::{serve as serve_with, wait_line, Killed};
use common::tmp::Tmp;
use pitboss_store::MatchState;

fn serve(data: &Path, url: &str) -> Killed {
    serve_with(data, &["--database", url, "--hands-per-match", "400"]).0
}

#[test]
fn postgres_restarted_under_a_playing_server_and_a_sigkill_lose_nothing() {
    let tmp = Tmp::new("pg-local");
    let pgs = Postgres::new(&tmp.join("pg"));
    let db = Db::Url(pgs.url());
    let data = tmp.join("data");
    let mut child = serve(&data, &pgs.url());
    wait_for(&db, "matches to finish", 120, |m| done(m).len() >= 5);
    let before = done(&matches(&db));
    pgs.stop();
    // The server plays on; its results wait for the database.
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the server died with PostgreSQL"
    );
    pgs.start();
    wait_for(&db, "matches after the restart", 120, |m| {
        done(m).len() >= before.len() + 5
    });
    let after = matches(&db);
    for (id, m) in &before {
        assert_eq!(after.get(id), Some(m), "match {id} changed or vanished");
    }
    child.kill_now();
    let cut: Vec<i64> = matches(&db)
        .values()
        .filter(|m| m.state == MatchState::Running)
        .map(|m| m.id)
        .collect();
    let mut child = serve(&data, &pgs.url());
    wait_for(&db, "the interrupted matches", 120, |m| {
        cut.iter()
            .all(|id| m.get(id).is_some_and(|x| x.state == MatchState::Done))
    });
    child.kill_now();
    let all = matches(&db);
    assert!(
        all.values().all(|m| m.state != MatchState::Failed),
        "a match failed: {:?}",
        all.values().find(|m| m.state == MatchState::Failed)
    );
    let done = done(&all);
    for m in done.values() {
        assert_eq!(m.outcome.as_ref().unwrap().played, 400, "match {}", m.id);
    }
    // Each as a fault-free run of its seed gives it (400 hands: a few milliseconds each).
    assert_as_played_again(&data, &db, &done.values().collect::<Vec<_>>());
}

#[test]
fn postgres_restarted_under_a_server_on_a_queue_loses_nothing() {
    let tmp = Tmp::new("pg-queue");
    let ms = fixed(&[71, 72, 73, 74]);
    let hands = 60_000;
    // The fault-free run: the same matches, seeds and secret on SQLite and local workers.
    let want = baseline(&tmp, &ms, hands);
    let pgs = Postgres::new(&tmp.join("pg"));
    let url = pgs.url();
    let db = Db::Url(url.clone());
    let data = tmp.join("data");
    prepare(&data, &db, &ms, hands);
    let p = Streams::new("pgq");
    let (mut server, addr) = serve_with(
        &data,
        &[
            "--no-sandbox",
            "--database",
            &url,
            "--queue",
            NATS,
            "--stream",
            &p,
            "--ack-wait",
            "3",
        ],
    );
    let (_w, wrx) = worker_midway(
        &data,
        &db,
        ms.len(),
        (NATS, &p, &addr),
        "PostgreSQL stopped",
    );
    pgs.stop();
    // A result comes while the database is away: the server must keep it until it is back.
    wait_line(&wrx, |l| l.ends_with(": done"), 120);
    std::thread::sleep(Duration::from_secs(1));
    assert!(
        server.try_wait().unwrap().is_none(),
        "the server died with PostgreSQL"
    );
    pgs.start();
    wait_for(
        &db,
        "every match after the restart",
        300,
        all_done(ms.len()),
    );
    assert_eq!(
        results(&db),
        want.rows,
        "the run across a PostgreSQL restart differs"
    );
    let c = counts(&db);
    assert_eq!((c.done, c.failed, c.running, c.queued), (4, 0, 0, 0));
    assert_eq!(c.hands_total, hands * ms.len() as i64);
    assert_same_board(&leaderboard(&addr, ms.len() as u64), &want.board);
}
