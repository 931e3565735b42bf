//! A service in miniature for the router's tests: a store on a temporary SQLite file with
//! accounts, reference bots, an uploaded bot, matches (one with a kept hand history of a
//! triple-draw and a stud hand), and a board built by hand. Hostile strings are planted where
//! the service lets strangers put text: an account name, a reference bot's name, a build log, a
//! fault kind, a match error, a PHH player name.

#![allow(dead_code)]

use std::io::Write;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{header, HeaderMap, Request, StatusCode};
use http_body_util::BodyExt;
use pitboss_store::{Files, MatchKind, NewMatch, Outcome, Store};
use pitboss_web::board::{
    Board, Comparison, Cross, PlayStats, RatingPoint, RatingRow, VersionView, OVERALL,
};
use pitboss_web::{router, AppState, WebSettings};
use tokio::sync::{watch, Notify};
use tower::ServiceExt;

pub const XSS: &str = "<script>alert(1)</script>";
/// The seed of every match: no answer may contain it.
pub const SEED: i64 = 918_273_645_546_372;
pub const PRESETS: [&str; 2] = ["fl-27td", "fl-stud8"];

pub struct World {
    pub dir: tempfile::TempDir,
    pub store: Store,
    pub files: Files,
    pub app: axum::Router,
    pub board_tx: watch::Sender<Arc<Board>>,
    pub wake: Arc<Notify>,
    pub alice: String,
    pub bob: String,
    /// Quota 2 an hour, 4 KiB bundles.
    pub tight: String,
    pub alice_version: i64,
    pub refs: [i64; 2],
    pub match_id: i64,
    pub board: Board,
}

pub async fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_dir(dir.path()).await.unwrap();
    let files = Files::new(dir.path()).unwrap();
    let (alice_acc, alice) = store.create_account(XSS, 100, 1 << 20).await.unwrap();
    let (_, bob) = store.create_account("bob", 100, 1 << 20).await.unwrap();
    let (_, tight) = store.create_account("tight", 2, 4096).await.unwrap();
    let r1 = store.ensure_reference("call").await.unwrap();
    let r2 = store.ensure_reference(XSS).await.unwrap();
    let v = store
        .new_version(alice_acc.id, "alicebot", &"a".repeat(64), 10)
        .await
        .unwrap()
        .unwrap();
    store.claim_pending_version().await.unwrap();
    store
        .finish_check(v.id, true, &format!("build ok\nsecret-build-log {XSS}\n"))
        .await
        .unwrap();

    // Match 1: done, with a kept history; match 2: failed with a hostile error.
    let m1 = store
        .create_match(&NewMatch {
            preset: PRESETS[0].into(),
            kind: MatchKind::Ladder,
            a: v.id,
            b: r1.id,
            seed: SEED,
            hands: 2,
        })
        .await
        .unwrap();
    store.claim_match("local-1").await.unwrap();
    let history = Files::history_rel(m1);
    write_history(&files, &history);
    store
        .finish_match(
            m1,
            &Outcome {
                units: 1,
                played: 2,
                mean: 12.5,
                se: 3.0,
                raw_mean: 20.0,
                elapsed_ms: 1500,
                a_stats: "{}".into(),
                b_stats: "{}".into(),
                history,
            },
        )
        .await
        .unwrap();
    let m2 = store
        .create_match(&NewMatch {
            preset: PRESETS[1].into(),
            kind: MatchKind::Ladder,
            a: v.id,
            b: r2.id,
            seed: SEED,
            hands: 2,
        })
        .await
        .unwrap();
    store.claim_match("local-2").await.unwrap();
    store
        .fail_match(m2, &format!("bot crashed: {XSS}"))
        .await
        .unwrap();

    let board = board(&store, v.id, [r1.id, r2.id]).await;
    let (board_tx, board_rx) = watch::channel(Arc::new(board.clone()));
    let wake = Arc::new(Notify::new());
    let app = router(AppState {
        store: store.clone(),
        files: files.clone(),
        board: board_rx,
        wake: wake.clone(),
        settings: WebSettings {
            uploads_per_hour: 100,
            max_bundle_bytes: 1 << 20,
            presets: PRESETS.iter().map(|p| p.to_string()).collect(),
        },
    });
    World {
        dir,
        store,
        files,
        app,
        board_tx,
        wake,
        alice,
        bob,
        tight,
        alice_version: v.id,
        refs: [r1.id, r2.id],
        match_id: m1,
        board,
    }
}

/// hands/ID.phhs.zst: the viewer's triple-draw and stud fixtures, a player renamed to XSS.
fn write_history(files: &Files, rel: &str) {
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/../phh/tests/viewer/");
    let td = std::fs::read_to_string(format!("{fixtures}27td.phh")).unwrap();
    let stud = std::fs::read_to_string(format!("{fixtures}stud8.phh")).unwrap();
    let text = format!("[1]\n{td}\n[2]\n{stud}\n").replace("'ann'", &format!("'{XSS}'"));
    let path = files.resolve(rel).unwrap();
    let mut f = std::fs::File::create(path).unwrap();
    f.write_all(&zstd::encode_all(text.as_bytes(), 3).unwrap())
        .unwrap();
}

async fn board(store: &Store, alice: i64, refs: [i64; 2]) -> Board {
    let mut b = Board {
        generation: 1,
        updated_at: 1_700_000_000_000,
        presets: PRESETS.iter().map(|p| p.to_string()).collect(),
        matches: 1,
        hands: 2,
        ..Board::default()
    };
    for v in store.versions().await.unwrap() {
        b.versions.insert(
            v.id,
            VersionView {
                id: v.id,
                label: v.label(),
                bot: v.bot_name.clone(),
                number: v.number,
                state: v.state.as_str().into(),
                reference: v.reference(),
                owner: v.owner,
                created_at: v.created_at,
            },
        );
    }
    let row = |version, rating: f64, rank, provisional| RatingRow {
        version,
        rating: Some(rating),
        low: Some(rating - 7.0),
        high: Some(rating + 7.0),
        matches: 4,
        hands: 400,
        provisional,
        rank,
    };
    for t in [OVERALL, PRESETS[0], PRESETS[1]] {
        b.tables.insert(
            t.into(),
            vec![
                row(alice, 31.25, Some(1), false),
                row(refs[0], 0.0, Some(2), false),
                row(refs[1], -4.5, None, true),
            ],
        );
    }
    for (p, mean) in [
        (None, 21.0),
        (Some(PRESETS[0]), 22.0),
        (Some(PRESETS[1]), 20.0),
    ] {
        b.cross.push(Cross {
            a: alice,
            b: refs[0],
            preset: p.map(Into::into),
            mean,
            low: mean - 5.0,
            high: mean + 5.0,
            matches: 2,
            hands: 200,
        });
    }
    b.cross.push(Cross {
        a: refs[1],
        b: alice,
        preset: None,
        mean: -17.0,
        low: -20.0,
        high: -14.0,
        matches: 1,
        hands: 100,
    });
    b.comparisons.insert(
        alice,
        Comparison {
            new: alice,
            old: refs[0],
            mean: 3.0,
            low: -1.0,
            high: 7.0,
            matches: 3,
            verdict: "not yet known".into(),
        },
    );
    b.stats.insert(
        alice,
        PlayStats {
            hands: 400,
            vpip: 0.4,
            aggression: 1.5,
            went_to_showdown: 0.3,
            won_at_showdown: 0.55,
            fold_to_bet: 0.2,
            faults: vec![(XSS.into(), 2), ("timeout".into(), 1)],
        },
    );
    b.history.insert(
        alice,
        vec![
            RatingPoint {
                at: 1_700_000_000_000,
                rating: 10.0,
                low: 0.0,
                high: 20.0,
            },
            RatingPoint {
                at: 1_700_000_600_000,
                rating: 31.25,
                low: 24.0,
                high: 38.0,
            },
        ],
    );
    b
}

/// A response's status, headers and body text.
pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: String,
}

impl Answer {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

pub async fn send(app: &axum::Router, req: Request<Body>) -> Answer {
    let r = app.clone().oneshot(req).await.unwrap();
    let status = r.status();
    let headers = r.headers().clone();
    let bytes = r.into_body().collect().await.unwrap().to_bytes();
    Answer {
        status,
        headers,
        body: String::from_utf8_lossy(&bytes).into_owned(),
    }
}

pub async fn get(app: &axum::Router, uri: &str) -> Answer {
    send(app, Request::get(uri).body(Body::empty()).unwrap()).await
}

pub async fn get_with(app: &axum::Router, uri: &str, name: header::HeaderName, v: &str) -> Answer {
    send(
        app,
        Request::get(uri)
            .header(name, v)
            .body(Body::empty())
            .unwrap(),
    )
    .await
}

/// `POST /api/bots[?name=]` with a bearer token (or none).
pub async fn upload(
    app: &axum::Router,
    token: Option<&str>,
    name: Option<&str>,
    body: Vec<u8>,
) -> Answer {
    let uri = match name {
        Some(n) => format!("/api/bots?name={n}"),
        None => "/api/bots".into(),
    };
    let mut req = Request::post(uri).header(header::CONTENT_TYPE, "application/octet-stream");
    if let Some(t) = token {
        req = req.header(header::AUTHORIZATION, format!("Bearer {t}"));
    }
    send(app, req.body(Body::from(body)).unwrap()).await
}

/// A tar.gz of a bot folder: bot.toml (named `name`, or no name) and bot.py.
pub fn bundle(name: Option<&str>) -> Vec<u8> {
    let mut b = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::default(),
    ));
    let manifest = match name {
        Some(n) => format!("name = \"{n}\"\ncommand = [\"python3\", \"bot.py\"]\n"),
        None => "command = [\"python3\", \"bot.py\"]\n".into(),
    };
    for (path, data) in [
        ("bot.toml", manifest.as_bytes()),
        ("bot.py", b"print('hi')\n".as_slice()),
    ] {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_entry_type(tar::EntryType::Regular);
        b.append_data(&mut h, path, data).unwrap();
    }
    b.into_inner().unwrap().finish().unwrap()
}

/// Files left in the data folder's tmp/ and bundles/.
pub fn leftovers(w: &World) -> Vec<String> {
    let mut out = Vec::new();
    for d in ["tmp", "bundles"] {
        for e in std::fs::read_dir(w.dir.path().join(d)).unwrap() {
            out.push(format!("{d}/{}", e.unwrap().file_name().to_string_lossy()));
        }
    }
    out
}
pub mod forms;
