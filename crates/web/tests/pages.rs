//! The pages and the read API from a board built by hand: what they show, and the live updates
//! (the event stream, a page rendered again for a new board).

mod common;

use std::sync::Arc;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use common::*;
use http_body_util::BodyExt;
use tower::ServiceExt;

#[tokio::test]
async fn the_leaderboard_shows_the_board() {
    let w = world().await;
    let a = get(&w.app, "/").await;
    assert_eq!(a.status, StatusCode::OK);
    assert!(a.headers[header::CONTENT_TYPE]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    for s in [
        "alicebot.v1",
        "+31.2",
        "± 7.0",
        "provisional",
        "/presets/fl-27td",
        "/bots/alicebot",
        "/assets/live.js",
        "data-live=\"board\"",
    ] {
        assert!(a.body.contains(s), "{s} missing");
    }
    let p = get(&w.app, &format!("/presets/{}", PRESETS[0])).await;
    assert_eq!(p.status, StatusCode::OK);
    assert!(
        p.body.contains("Crosstable") && p.body.contains("+22.0"),
        "{}",
        p.body
    );
    assert_eq!(
        get(&w.app, "/presets/nope").await.status,
        StatusCode::NOT_FOUND
    );
    let j = get(&w.app, "/api/leaderboard").await.json();
    assert_eq!(j["tables"]["overall"][0]["label"], "alicebot.v1");
    assert_eq!(j["tables"]["overall"][0]["rank"], 1);
    assert_eq!(j["tables"]["overall"][2]["provisional"], true);
    let j = get(&w.app, &format!("/api/leaderboard?preset={}", PRESETS[1]))
        .await
        .json();
    assert_eq!(j["rows"][0]["rating"], 31.25);
    assert_eq!(
        get(&w.app, "/api/leaderboard?preset=nope").await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn a_new_board_changes_the_page_and_the_event_stream_says_so() {
    let w = world().await;
    let r = w
        .app
        .clone()
        .oneshot(Request::get("/events").body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(r.headers()[header::CONTENT_TYPE], "text/event-stream");
    let mut body = r.into_body();
    let first = body.frame().await.unwrap().unwrap().into_data().unwrap();
    assert_eq!(String::from_utf8_lossy(&first), "event: board\ndata: 1\n\n");
    let before = get(&w.app, "/").await.body;
    let mut b = w.board.clone();
    b.generation = 2;
    b.tables.get_mut("overall").unwrap()[0].rating = Some(99.5);
    w.board_tx.send(Arc::new(b)).unwrap();
    let next = body.frame().await.unwrap().unwrap().into_data().unwrap();
    assert_eq!(String::from_utf8_lossy(&next), "event: board\ndata: 2\n\n");
    let after = get(&w.app, "/").await.body;
    assert!(before.contains("+31.2") && !before.contains("+99.5"));
    assert!(
        after.contains("+99.5"),
        "the page is rendered again for the new generation"
    );
    let frag = get(&w.app, "/?fragment=board").await.body;
    assert!(frag.contains("+99.5") && !frag.contains("<html"));
    assert_eq!(
        get(&w.app, "/api/leaderboard").await.json()["tables"]["overall"][0]["rating"],
        99.5
    );
}

#[tokio::test]
async fn the_bot_page_shows_versions_crosstable_stats_and_matches() {
    let w = world().await;
    let a = get(&w.app, "/bots/alicebot").await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
    for s in [
        "alicebot.v1",
        "active",
        "not yet known",
        "[-1.0, +7.0]",
        "Crosstable",
        "+21.0",
        "+22.0",
        "+20.0",
        "+17.0",
        "VPIP",
        "40.0%",
        "Won at showdown",
        "55.0%",
        "Fold to a bet",
        "timeout",
        "<svg",
        "<polyline",
        &format!("/matches/{}", w.match_id),
        "+12.5",
    ] {
        assert!(a.body.contains(s), "{s} missing");
    }
    assert_eq!(
        get(&w.app, "/bots/nobody").await.status,
        StatusCode::NOT_FOUND
    );
    let j = get(&w.app, "/api/bots/alicebot").await.json();
    assert_eq!(j["versions"][0]["state"], "active");
    assert_eq!(j["versions"][0]["predecessor"]["verdict"], "not yet known");
    assert_eq!(j["crosstable"].as_array().unwrap().len(), 4);
    assert_eq!(j["versions"][0]["stats"]["vpip"], 0.4);
}

#[tokio::test]
async fn the_match_page_and_the_history() {
    let w = world().await;
    let m = w.match_id;
    let a = get(&w.app, &format!("/matches/{m}")).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
    for s in [
        "alicebot.v1",
        "fl-27td",
        "+12.5",
        "[+6.6, +18.4]",
        "hands.phhs",
        &format!("/matches/{m}/hands/2"),
    ] {
        assert!(a.body.contains(s), "{s} missing");
    }
    let d = get(&w.app, &format!("/matches/{m}/hands.phhs")).await;
    assert_eq!(d.status, StatusCode::OK);
    assert!(d.body.contains("variant = 'F7S/8'") && d.body.contains("[2]"));
    assert!(d.headers[header::CONTENT_DISPOSITION]
        .to_str()
        .unwrap()
        .contains("attachment"));
    let z = w
        .app
        .clone()
        .oneshot(
            Request::get(format!("/matches/{m}/hands.phhs.zst"))
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    let bytes = z.into_body().collect().await.unwrap().to_bytes();
    assert_eq!(
        String::from_utf8(zstd::decode_all(&bytes[..]).unwrap()).unwrap(),
        d.body
    );
    // The failed match has no history.
    assert_eq!(
        get(&w.app, &format!("/matches/{}/hands.phhs", m + 1))
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        get(&w.app, "/matches/999").await.status,
        StatusCode::NOT_FOUND
    );
    let j = get(&w.app, &format!("/api/matches/{m}")).await.json();
    assert_eq!(j["result"]["mean"], 12.5);
    assert_eq!(j["history"], format!("/matches/{m}/hands.phhs"));
}

#[tokio::test]
async fn the_hand_viewer_has_the_frames_of_each_game() {
    let w = world().await;
    let m = w.match_id;
    for (n, game) in [(1, "27td"), (2, "stud8")] {
        let page = get(&w.app, &format!("/matches/{m}/hands/{n}")).await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.body);
        assert!(
            page.body.contains("/assets/viewer.js") && page.body.contains("/assets/viewer.css")
        );
        assert!(page.body.contains("id=\"hand-data\""));
        let j = get(&w.app, &format!("/api/matches/{m}/hands/{n}"))
            .await
            .json();
        assert_eq!(j["header"]["game"], game);
        assert!(j["steps"].as_array().unwrap().len() > 5);
    }
    assert_eq!(
        get(&w.app, &format!("/matches/{m}/hands/3")).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        get(&w.app, &format!("/matches/{m}/hands/0")).await.status,
        StatusCode::NOT_FOUND
    );
    for f in ["viewer.js", "viewer.css", "live.js", "style.css"] {
        assert_eq!(
            get(&w.app, &format!("/assets/{f}")).await.status,
            StatusCode::OK
        );
    }
}

#[tokio::test]
async fn the_operator_page_and_status() {
    let w = world().await;
    let a = get(&w.app, "/operator").await;
    assert_eq!(a.status, StatusCode::OK);
    assert!(a.body.contains("Matches done") && a.body.contains("Hands per second"));
    let j = get(&w.app, "/api/status").await.json();
    assert_eq!(j["queue"]["done"], 1);
    assert_eq!(j["queue"]["failed"], 1);
    assert_eq!(j["queue"]["hands_total"], 2);
}

#[tokio::test]
async fn the_worker_of_a_running_match_shows_on_the_operator_page_and_status() {
    let w = world().await;
    let id = w
        .store
        .create_match(&pitboss_store::NewMatch {
            preset: PRESETS[1].into(),
            kind: pitboss_store::MatchKind::Ladder,
            a: w.alice_version,
            b: w.refs[0],
            seed: SEED,
            hands: 2,
        })
        .await
        .unwrap();
    // Handed to a queue: no worker has started it yet.
    w.store.claim_match("").await.unwrap().unwrap();
    let a = get(&w.app, "/operator").await;
    assert!(a.body.contains("waiting for a worker"), "{}", a.body);
    // Its worker said it started the job's third delivery (a hostile name stays text).
    let name = format!("w3{XSS}");
    assert!(w.store.match_started(id, &name, 3).await.unwrap());
    let a = get(&w.app, "/operator").await;
    assert!(!a.body.contains("waiting for a worker"), "{}", a.body);
    assert!(!a.body.contains(XSS), "a worker's name is text");
    assert!(a.body.contains("w3&lt;script&gt;"), "{}", a.body);
    assert!(
        a.body.contains(r#"<td class="delivery">3</td>"#),
        "{}",
        a.body
    );
    let j = get(&w.app, "/api/status").await.json();
    let r = &j["running"][0];
    assert_eq!(r["match"], id);
    assert_eq!(r["worker"], name.as_str());
    assert_eq!(r["delivery"], 3);
    assert_eq!(r["preset"], PRESETS[1]);
    assert_eq!(
        (r["a"].as_i64(), r["b"].as_i64()),
        (Some(w.alice_version), Some(w.refs[0]))
    );
    assert!(r["started_at"].as_i64().is_some());
}

#[tokio::test]
async fn workers_flagged_by_the_audit_show_on_the_operator_page_and_status() {
    let w = world().await;
    let a = get(&w.app, "/operator").await;
    assert!(a.body.contains("No result has been refused"), "{}", a.body);
    assert_eq!(
        get(&w.app, "/api/status").await.json()["worker_flags"],
        serde_json::json!([])
    );
    w.store
        .flag_worker(XSS, w.match_id, &format!("hand 3 does not replay: {XSS}"))
        .await
        .unwrap();
    let a = get(&w.app, "/operator").await;
    assert!(a.body.contains("Flagged workers"));
    assert!(!a.body.contains("No result has been refused"));
    assert!(!a.body.contains(XSS), "a worker's name is text");
    assert!(a.body.contains("hand 3 does not replay"));
    assert!(a.body.contains(&format!("/matches/{}", w.match_id)));
    let j = get(&w.app, "/api/status").await.json();
    assert_eq!(j["worker_flags"][0]["worker"], XSS);
    assert_eq!(j["worker_flags"][0]["match_id"], w.match_id);
}

#[tokio::test]
async fn the_leaderboards_need_no_database() {
    // Rendered from the board alone: with the database closed they still answer, while a page
    // that reads the database fails (so the closing is real).
    let w = world().await;
    w.store.close().await;
    for uri in [
        "/".to_string(),
        "/?fragment=board".into(),
        format!("/presets/{}", PRESETS[0]),
        "/api/leaderboard".into(),
        format!("/api/leaderboard?preset={}", PRESETS[1]),
    ] {
        let a = get(&w.app, &uri).await;
        assert_eq!(a.status, StatusCode::OK, "{uri}: {}", a.body);
    }
    let a = get(&w.app, "/operator").await;
    assert_eq!(a.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert!(
        !a.body.contains("pitboss.db"),
        "internal errors name no path"
    );
}
