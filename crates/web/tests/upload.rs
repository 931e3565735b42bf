//! `POST /api/bots` and its refusals, each with its status and JSON, and none leaving a file in
//! tmp/ or bundles/ or a version row behind.

mod common;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use common::*;

async fn version_rows(w: &World) -> usize {
    w.store.versions().await.unwrap().len()
}

/// The refusal left nothing behind.
async fn nothing_left(w: &World, rows: usize) {
    assert_eq!(leftovers(w), Vec::<String>::new());
    assert_eq!(version_rows(w).await, rows);
}

#[tokio::test]
async fn an_upload_makes_a_pending_version_and_wakes_the_scheduler() {
    let w = world().await;
    let woken = w.wake.notified();
    let a = upload(&w.app, Some(&w.bob), None, bundle(Some("bobbot"))).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.body);
    let j = a.json();
    assert_eq!(j["bot"], "bobbot");
    assert_eq!(j["version"], 1);
    assert_eq!(j["state"], "pending");
    assert_eq!(j["url"], "/bots/bobbot");
    assert_eq!(a.headers[header::LOCATION], "/bots/bobbot");
    tokio::time::timeout(std::time::Duration::from_secs(1), woken)
        .await
        .expect("the scheduler was woken");
    // The bundle is kept by its hash; tmp/ is empty; a second upload is version 2.
    let bot = w.store.bot_by_name("bobbot").await.unwrap().unwrap();
    let vs = w.store.bot_versions(bot.id).await.unwrap();
    assert_eq!(vs.len(), 1);
    assert!(w.files.bundle(&vs[0].sha256).is_file());
    assert!(std::fs::read_dir(w.dir.path().join("tmp"))
        .unwrap()
        .next()
        .is_none());
    let a = upload(&w.app, Some(&w.bob), Some("bobbot"), bundle(None)).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.body);
    assert_eq!(a.json()["version"], 2);
    // ?name= wins over the manifest's.
    let a = upload(
        &w.app,
        Some(&w.bob),
        Some("other-name"),
        bundle(Some("bobbot")),
    )
    .await;
    assert_eq!(a.json()["bot"], "other-name");
}

#[tokio::test]
async fn no_token_or_a_wrong_one_is_401() {
    let w = world().await;
    let rows = version_rows(&w).await;
    for token in [None, Some("pb_wrong"), Some("")] {
        let a = upload(&w.app, token, None, bundle(Some("x"))).await;
        assert_eq!(a.status, StatusCode::UNAUTHORIZED, "{token:?}");
        assert!(a.json()["error"].is_string());
        assert!(a.headers.contains_key(header::WWW_AUTHENTICATE));
    }
    // A login cookie does not open the API.
    let a = send(
        &w.app,
        Request::post("/api/bots")
            .header(header::COOKIE, "pb_session=1.99999999999999.00")
            .body(Body::from(bundle(Some("x"))))
            .unwrap(),
    )
    .await;
    assert_eq!(a.status, StatusCode::UNAUTHORIZED);
    // The token is never echoed.
    let a = upload(
        &w.app,
        Some("pb_guessed_token_123"),
        None,
        bundle(Some("x")),
    )
    .await;
    assert!(!a.body.contains("pb_guessed_token_123"));
    nothing_left(&w, rows).await;
}

#[tokio::test]
async fn a_token_in_the_url_is_refused() {
    let w = world().await;
    for uri in [
        format!("/api/bots?token={}", w.bob),
        format!("/api/status?access_token={}", w.bob),
        format!("/?TOKEN={}", w.bob),
    ] {
        let a = send(
            &w.app,
            Request::post(&uri)
                .body(Body::from(bundle(Some("x"))))
                .unwrap(),
        )
        .await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{uri}");
        assert!(!a.body.contains(&w.bob));
    }
    assert!(w.store.bot_by_name("x").await.unwrap().is_none());
}

#[tokio::test]
async fn another_accounts_name_is_403() {
    let w = world().await;
    let rows = version_rows(&w).await;
    // Alice's bot, by ?name= and by the manifest; the house's reference bot.
    let a = upload(&w.app, Some(&w.bob), Some("alicebot"), bundle(None)).await;
    assert_eq!(a.status, StatusCode::FORBIDDEN, "{}", a.body);
    assert!(a.json()["error"]
        .as_str()
        .unwrap()
        .contains("another account"));
    let a = upload(&w.app, Some(&w.bob), None, bundle(Some("alicebot"))).await;
    assert_eq!(a.status, StatusCode::FORBIDDEN);
    let a = upload(&w.app, Some(&w.bob), Some("call"), bundle(None)).await;
    assert_eq!(a.status, StatusCode::FORBIDDEN);
    nothing_left(&w, rows).await;
    // The owner may.
    let a = upload(&w.app, Some(&w.alice), None, bundle(Some("alicebot"))).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.body);
}

#[tokio::test]
async fn the_quota_is_429_with_retry_after() {
    let w = world().await;
    for k in 0..2 {
        let a = upload(&w.app, Some(&w.tight), None, bundle(Some(&format!("t{k}")))).await;
        assert_eq!(a.status, StatusCode::CREATED, "{}", a.body);
    }
    let rows = version_rows(&w).await;
    let a = upload(&w.app, Some(&w.tight), None, bundle(Some("t3"))).await;
    assert_eq!(a.status, StatusCode::TOO_MANY_REQUESTS, "{}", a.body);
    let retry: u64 = a.headers[header::RETRY_AFTER]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((3590..=3600).contains(&retry), "Retry-After {retry}");
    assert!(a.json()["error"].as_str().unwrap().contains("quota"));
    assert_eq!(version_rows(&w).await, rows);
    // Another account is not affected.
    let a = upload(&w.app, Some(&w.bob), None, bundle(Some("b1"))).await;
    assert_eq!(a.status, StatusCode::CREATED);
}

#[tokio::test]
async fn an_oversized_bundle_is_413_with_or_without_a_length() {
    let w = world().await;
    let rows = version_rows(&w).await;
    // The tight account's limit is 4 KiB.
    let big = vec![0u8; 5000];
    let a = upload(&w.app, Some(&w.tight), None, big.clone()).await;
    assert_eq!(a.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", a.body);
    assert!(a.json()["error"].as_str().unwrap().contains("4096"));
    // Streamed with no Content-Length: refused while reading.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        (0..10).map(|_| Ok(vec![1u8; 1000])).collect();
    let body = Body::from_stream(futures_util::stream::iter(chunks));
    let a = send(
        &w.app,
        Request::post("/api/bots")
            .header(header::AUTHORIZATION, format!("Bearer {}", w.tight))
            .body(body)
            .unwrap(),
    )
    .await;
    assert_eq!(a.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", a.body);
    // The server's own limit (1 MiB) caps a generous account.
    let a = upload(&w.app, Some(&w.bob), None, vec![0u8; (1 << 20) + 1]).await;
    assert_eq!(a.status, StatusCode::PAYLOAD_TOO_LARGE);
    nothing_left(&w, rows).await;
}

fn raw_tar_entry(path: &[u8], kind: tar::EntryType, link: Option<&str>, data: &[u8]) -> Vec<u8> {
    let mut h = tar::Header::new_gnu();
    {
        let name = &mut h.as_old_mut().name;
        name[..path.len()].copy_from_slice(path);
    }
    h.set_size(data.len() as u64);
    h.set_mode(0o644);
    h.set_entry_type(kind);
    if let Some(l) = link {
        h.set_link_name(l).unwrap();
    }
    if kind == tar::EntryType::Char {
        h.set_device_major(1).unwrap();
        h.set_device_minor(3).unwrap();
    }
    h.set_cksum();
    let mut out = h.as_bytes().to_vec();
    out.extend_from_slice(data);
    out.resize(out.len().div_ceil(512) * 512, 0);
    out
}

/// A tar of bot.toml plus one hostile entry.
fn hostile_tar(entry: Vec<u8>) -> Vec<u8> {
    let manifest = b"name = \"evil\"\ncommand = [\"sh\"]\n";
    let mut out = raw_tar_entry(b"bot.toml", tar::EntryType::Regular, None, manifest);
    out.extend(entry);
    out.extend([0u8; 1024]);
    out
}

fn zip_bomb() -> Vec<u8> {
    use std::io::Write;
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .large_file(true);
    z.start_file("bot.toml", opts).unwrap();
    z.write_all(b"name = \"evil\"\ncommand = [\"sh\"]\n")
        .unwrap();
    z.start_file("zeros", opts).unwrap();
    let block = vec![0u8; 1 << 20];
    for _ in 0..300 {
        z.write_all(&block).unwrap();
    }
    z.finish().unwrap().into_inner()
}

#[tokio::test]
async fn hostile_archives_are_400_and_leave_nothing() {
    let w = world().await;
    let rows = version_rows(&w).await;
    let bomb = zip_bomb();
    assert!(
        bomb.len() < 1 << 20,
        "the bomb fits the size limit: {}",
        bomb.len()
    );
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "dotdot",
            hostile_tar(raw_tar_entry(
                b"../escape",
                tar::EntryType::Regular,
                None,
                b"x",
            )),
        ),
        (
            "absolute",
            hostile_tar(raw_tar_entry(
                b"/etc/escape",
                tar::EntryType::Regular,
                None,
                b"x",
            )),
        ),
        (
            "symlink",
            hostile_tar(raw_tar_entry(
                b"link",
                tar::EntryType::Symlink,
                Some("/etc/passwd"),
                b"",
            )),
        ),
        (
            "hardlink",
            hostile_tar(raw_tar_entry(
                b"hard",
                tar::EntryType::Link,
                Some("bot.toml"),
                b"",
            )),
        ),
        (
            "device",
            hostile_tar(raw_tar_entry(b"null", tar::EntryType::Char, None, b"")),
        ),
        (
            "fifo",
            hostile_tar(raw_tar_entry(b"pipe", tar::EntryType::Fifo, None, b"")),
        ),
        ("zip bomb", bomb),
        ("not an archive", b"#!/bin/sh\nrm -rf /\n".to_vec()),
        ("empty", Vec::new()),
    ];
    for (what, bytes) in cases {
        let a = upload(&w.app, Some(&w.bob), None, bytes).await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{what}: {}", a.body);
        let err = a.json()["error"].as_str().unwrap().to_string();
        // Refused by the unpacker for what it is, not for being unreadable.
        if !matches!(what, "not an archive" | "empty") {
            assert!(err.starts_with("bundle refused"), "{what}: {err}");
        }
        eprintln!("{what}: {err}");
        nothing_left(&w, rows).await;
    }
    assert!(w.store.bot_by_name("evil").await.unwrap().is_none());
    assert!(!std::path::Path::new("/etc/escape").exists());
}

#[tokio::test]
async fn names_outside_the_rules_are_400() {
    let w = world().await;
    let rows = version_rows(&w).await;
    for name in ["%3Cscript%3E", "..", "a%2Fb", "-lead", &"x".repeat(65)] {
        let a = upload(&w.app, Some(&w.bob), Some(name), bundle(None)).await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{name}: {}", a.body);
    }
    // A manifest with a hostile name, and one with none.
    let a = upload(&w.app, Some(&w.bob), None, bundle(Some("<img src=x>"))).await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST, "{}", a.body);
    let a = upload(&w.app, Some(&w.bob), None, bundle(None)).await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST, "{}", a.body);
    assert!(a.json()["error"].as_str().unwrap().contains("name"));
    nothing_left(&w, rows).await;
}
