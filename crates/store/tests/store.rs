//! The store on a real SQLite file, and on the PostgreSQL server of the machine (a database of
//! its own, made and dropped by the test) when one answers on 127.0.0.1:5432.

use pitboss_store::{
    hash_token, Imported, MatchKind, MatchState, NewMatch, Outcome, Store, VersionState,
};

fn outcome(mean: f64) -> Outcome {
    Outcome {
        units: 10,
        played: 20,
        mean,
        se: 1.5,
        raw_mean: mean * 2.0,
        elapsed_ms: 7,
        a_stats: "{}".into(),
        b_stats: "{}".into(),
        history: "hands/1.phhs.zst".into(),
    }
}

async fn exercise(s: &Store) {
    // Accounts: the token opens, its hash is what is kept, revocation closes.
    let (alice, tok) = s.create_account("alice", 10, 1 << 20).await.unwrap();
    assert!(tok.starts_with("pb_") && tok.len() == 67);
    assert_eq!(
        s.account_by_token(&tok).await.unwrap().unwrap().id,
        alice.id
    );
    assert!(s.account_by_token("pb_wrong").await.unwrap().is_none());
    assert!(s.create_account("alice", 1, 1).await.is_err());
    let (bob, bob_tok) = s.create_account("bob", 10, 1 << 20).await.unwrap();

    // Reference bots: version 1, active, idempotent.
    let r1 = s.ensure_reference("call").await.unwrap();
    assert_eq!(s.ensure_reference("call").await.unwrap(), r1);
    assert_eq!(r1.state, VersionState::Active);
    assert!(r1.reference());

    // Names belong to their first uploader; the house's names to nobody.
    let v1 = s
        .new_version(alice.id, "ab", &"a".repeat(64), 100)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((v1.number, v1.state), (1, VersionState::Pending));
    assert!(s
        .new_version(bob.id, "ab", &"b".repeat(64), 1)
        .await
        .unwrap()
        .is_err());
    assert!(s
        .new_version(bob.id, "call", &"b".repeat(64), 1)
        .await
        .unwrap()
        .is_err());
    let v2 = s
        .new_version(alice.id, "ab", &"c".repeat(64), 100)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(v2.number, 2);

    // Checks: oldest first; a fit version retires its predecessor.
    let c = s.claim_pending_version().await.unwrap().unwrap();
    assert_eq!(c.id, v1.id);
    assert_eq!(s.finish_check(v1.id, true, "ok").await.unwrap(), None);
    let c = s.claim_pending_version().await.unwrap().unwrap();
    assert_eq!(c.id, v2.id);
    assert!(s.claim_pending_version().await.unwrap().is_none());
    assert_eq!(
        s.finish_check(v2.id, true, "fine").await.unwrap(),
        Some(v1.id)
    );
    assert_eq!(
        s.version(v1.id).await.unwrap().unwrap().state,
        VersionState::Retired
    );
    assert_eq!(
        s.version(v2.id).await.unwrap().unwrap().state,
        VersionState::Active
    );
    assert_eq!(s.version_log(v2.id).await.unwrap(), "fine");
    // A failed check never plays.
    let v3 = s
        .new_version(alice.id, "ab", &"d".repeat(64), 1)
        .await
        .unwrap()
        .unwrap();
    s.claim_pending_version().await.unwrap();
    s.finish_check(v3.id, false, "crashed").await.unwrap();
    assert_eq!(
        s.version(v3.id).await.unwrap().unwrap().state,
        VersionState::Failed
    );
    assert_eq!(
        s.version(v2.id).await.unwrap().unwrap().state,
        VersionState::Active
    );

    // Matches: a result counts once, from running or queued (a queue's result may arrive after a
    // restart re-queued its match), never from done or failed; a restart re-queues.
    let nm = |a, b| NewMatch {
        preset: "27td-fl".into(),
        kind: MatchKind::Ladder,
        a,
        b,
        seed: 42,
        hands: 20,
    };
    let m0 = s.create_match(&nm(v2.id, r1.id)).await.unwrap();
    let m1 = s.create_match(&nm(v2.id, r1.id)).await.unwrap();
    let m2 = s.create_match(&nm(r1.id, v2.id)).await.unwrap();
    assert!(
        s.finish_match(m0, &outcome(1.0)).await.unwrap(),
        "queued: counted"
    );
    assert!(
        !s.finish_match(m0, &outcome(2.0)).await.unwrap(),
        "queued, then done: counted once"
    );
    s.fail_match(m0, "x").await.unwrap();
    assert_eq!(
        s.match_by_id(m0).await.unwrap().unwrap().state,
        MatchState::Done,
        "a done match stays done"
    );
    let c = s.claim_match("w1").await.unwrap().unwrap();
    assert_eq!((c.id, c.state, c.attempts), (m1, MatchState::Running, 1));
    assert!(s.finish_match(m1, &outcome(3.0)).await.unwrap());
    assert!(
        !s.finish_match(m1, &outcome(9.0)).await.unwrap(),
        "twice: counted once"
    );
    assert_eq!(
        s.match_by_id(m1)
            .await
            .unwrap()
            .unwrap()
            .outcome
            .unwrap()
            .mean,
        3.0
    );
    s.claim_match("w2").await.unwrap().unwrap();
    assert_eq!(s.requeue_running().await.unwrap(), (1, 0));
    let again = s.claim_match("w3").await.unwrap().unwrap();
    assert_eq!((again.id, again.attempts, again.seed), (m2, 2, 42));
    let done = s.done_after(0).await.unwrap();
    assert_eq!(done.iter().map(|m| m.id).collect::<Vec<_>>(), vec![m0, m1]);
    let c = s.counts().await.unwrap();
    assert_eq!((c.done, c.running, c.hands_total), (2, 1, 40));

    // Workers flagged by the audit: newest first, a hostile name kept as given.
    assert!(s.worker_flags(10).await.unwrap().is_empty());
    s.flag_worker("w1", m1, "hand 3 does not replay")
        .await
        .unwrap();
    s.flag_worker("<b>w2</b>", m2, "bot 0's net: 1 claimed, 0 from the tape")
        .await
        .unwrap();
    let f = s.worker_flags(10).await.unwrap();
    assert_eq!(
        f.iter()
            .map(|f| (f.worker.as_str(), f.match_id))
            .collect::<Vec<_>>(),
        vec![("<b>w2</b>", m2), ("w1", m1)]
    );
    assert_eq!(s.worker_flags(1).await.unwrap().len(), 1);

    // Quotas: uploads counted per account and window.
    s.record_upload(bob.id, 5).await.unwrap();
    s.record_upload(bob.id, 5).await.unwrap();
    let (n, first) = s.uploads_since(bob.id, 0).await.unwrap();
    assert_eq!(n, 2);
    assert!(first.is_some());
    assert_eq!(s.uploads_since(alice.id, 0).await.unwrap().0, 0);
    s.revoke_account("bob").await.unwrap();
    assert!(s.account_by_token(&bob_tok).await.unwrap().is_none());
    assert!(s.revoke_account("bob").await.is_err());

    // Names that differ only in case are one name: another account's, the house's, or the
    // owner's own bot (a new version of it).
    for name in ["AB", "Ab", "CALL", "Call"] {
        assert!(
            s.new_version(bob.id, name, &"d".repeat(64), 1)
                .await
                .unwrap()
                .is_err(),
            "{name} is taken"
        );
        let found = s.bot_by_name(name).await.unwrap().unwrap();
        assert_eq!(found.name, name.to_ascii_lowercase());
    }
    let v3 = s
        .new_version(alice.id, "AB", &"e".repeat(64), 100)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(v3.bot_name, "ab");
    assert!(v3.number > v2.number, "a new version of ab");

    // The hourly quota taken at once by many uploads: exactly `limit` slots.
    let (carol, _) = s.create_account("carol", 3, 1 << 20).await.unwrap();
    let tasks: Vec<_> = (0..12)
        .map(|_| {
            let s = s.clone();
            tokio::spawn(async move { s.reserve_upload(carol.id, 0, 3).await.unwrap() })
        })
        .collect();
    let mut taken = 0;
    for t in tasks {
        match t.await.unwrap() {
            None => taken += 1,
            Some(first) => assert!(first.is_some(), "a full window has an oldest upload"),
        }
    }
    assert_eq!(taken, 3, "12 uploads at once on a quota of 3");
    assert_eq!(s.uploads_since(carol.id, 0).await.unwrap().0, 3);

    worker_tokens(s).await;
}

/// Worker tokens: found by hash, listed, revoked; a data folder's old file imported once.
async fn worker_tokens(s: &Store) {
    let w1 = s.create_worker_token("w1").await.unwrap();
    assert!(w1.starts_with("pbw_") && w1.len() == 68, "{w1}");
    assert!(s.create_worker_token("w1").await.is_err(), "a taken name");
    assert!(s.create_worker_token("../x").await.is_err(), "a bad name");
    assert_eq!(s.worker_by_token(&w1).await.unwrap().as_deref(), Some("w1"));
    assert_eq!(s.worker_by_token("pbw_nope").await.unwrap(), None);
    assert_eq!(s.worker_by_token("").await.unwrap(), None);
    assert!(
        s.account_by_token(&w1).await.unwrap().is_none(),
        "a worker token is no account's"
    );

    // The file of an older version: one line new, one a name the database has (it keeps its
    // own token), two that are not `NAME SHA256`.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(pitboss_store::WORKER_TOKENS_FILE);
    std::fs::write(
        &file,
        format!(
            "old1 {}\nw1 {}\nbroken\nbad/name {}\n",
            hash_token("pbw_old1"),
            hash_token("pbw_other"),
            hash_token("pbw_x")
        ),
    )
    .unwrap();
    let n = s.import_worker_tokens(dir.path()).await.unwrap();
    assert_eq!(
        n,
        Imported {
            imported: 1,
            skipped: 3
        }
    );
    assert!(!file.exists());
    assert!(dir
        .path()
        .join(pitboss_store::WORKER_TOKENS_IMPORTED)
        .exists());
    assert_eq!(
        s.worker_by_token("pbw_old1").await.unwrap().as_deref(),
        Some("old1")
    );
    assert_eq!(s.worker_by_token("pbw_other").await.unwrap(), None);
    assert_eq!(s.worker_by_token(&w1).await.unwrap().as_deref(), Some("w1"));
    assert_eq!(
        s.import_worker_tokens(dir.path()).await.unwrap(),
        Imported::default(),
        "once"
    );
    let names: Vec<String> = s
        .worker_tokens()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, ["old1", "w1"]);

    assert!(s.revoke_worker_token("w1").await.unwrap());
    assert_eq!(s.worker_by_token(&w1).await.unwrap(), None);
    assert!(!s.revoke_worker_token("w1").await.unwrap());
    let again = s.create_worker_token("w1").await.unwrap();
    assert_ne!(again, w1, "a revoked name may be given a new token");
    assert_eq!(
        s.worker_by_token(&again).await.unwrap().as_deref(),
        Some("w1")
    );
}

#[tokio::test]
async fn sqlite_store_keeps_the_rules() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open_dir(dir.path()).await.unwrap();
    exercise(&s).await;
    // Reopening migrates nothing twice and keeps everything.
    s.close().await;
    // Worker tokens are kept as hashes: the database's files hold the hash, never the token.
    let w = Store::open_dir(dir.path()).await.unwrap();
    let tok = w.create_worker_token("kept").await.unwrap();
    w.close().await;
    let mut bytes = Vec::new();
    for f in ["pitboss.db", "pitboss.db-wal"] {
        if let Ok(b) = std::fs::read(dir.path().join(f)) {
            bytes.extend(b);
        }
    }
    let has = |t: &str| bytes.windows(t.len()).any(|w| w == t.as_bytes());
    assert!(has(&hash_token(&tok)), "the hash is in the database");
    assert!(!has(&tok), "the token is not");
    let s = Store::open_dir(dir.path()).await.unwrap();
    assert_eq!(s.accounts().await.unwrap().len(), 3);
    let b = dir.path().join("copy.db");
    s.backup(&b).await.unwrap();
    assert!(s.backup(&b).await.is_err(), "a backup never overwrites");
    let copy = Store::open(&format!("sqlite://{}", b.display()))
        .await
        .unwrap();
    assert_eq!(copy.versions().await.unwrap().len(), 5);
}

/// The same bundle stored by many threads at once: every call succeeds, one whole file.
#[test]
fn one_bundle_stored_at_once_is_whole() {
    let dir = tempfile::tempdir().unwrap();
    let files = pitboss_store::Files::new(dir.path()).unwrap();
    let bytes: Vec<u8> = (0..1_000_000u32).map(|i| (i * 7 % 251) as u8).collect();
    for round in 0..20u8 {
        let sha = format!("{round:02x}").repeat(32);
        let start = std::sync::Barrier::new(8);
        let failed = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|sc| {
            for _ in 0..8 {
                sc.spawn(|| {
                    start.wait();
                    if files.put_bundle(&sha, &bytes).is_err() {
                        failed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                });
            }
        });
        assert_eq!(
            failed.into_inner(),
            0,
            "round {round}: a store of the bundle failed"
        );
        assert_eq!(std::fs::read(files.bundle(&sha)).unwrap(), bytes);
    }
    let tmp: Vec<_> = std::fs::read_dir(dir.path().join("tmp")).unwrap().collect();
    assert!(tmp.is_empty(), "temporary files left: {tmp:?}");
}

#[tokio::test]
async fn postgres_store_keeps_the_same_rules() {
    use sqlx::Executor;
    let admin_url = std::env::var("PITBOSS_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
    sqlx::any::install_default_drivers();
    let Ok(admin) = sqlx::AnyPool::connect(&admin_url).await else {
        eprintln!("no PostgreSQL at {admin_url}: skipped");
        return;
    };
    let db = format!("pitboss_store_test_{}", std::process::id());
    admin
        .execute(sqlx::AssertSqlSafe(format!("DROP DATABASE IF EXISTS {db}")))
        .await
        .unwrap();
    admin
        .execute(sqlx::AssertSqlSafe(format!("CREATE DATABASE {db}")))
        .await
        .unwrap();
    let url = match admin_url.rsplit_once('/') {
        Some((base, _)) => format!("{base}/{db}"),
        None => unreachable!(),
    };
    let s = Store::open(&url).await.unwrap();
    exercise(&s).await;
    s.close().await;
    admin
        .execute(sqlx::AssertSqlSafe(format!("DROP DATABASE {db}")))
        .await
        .unwrap();
}

#[tokio::test]
async fn the_database_file_is_its_users_alone() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("new");
    let s = Store::open_dir(&data).await.unwrap();
    s.create_account("x", 1, 1).await.unwrap();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&data), 0o700);
    for f in ["pitboss.db", "pitboss.db-wal", "pitboss.db-shm"] {
        let p = data.join(f);
        if p.exists() {
            assert_eq!(mode(&p), 0o600, "{f}");
        }
    }
}
