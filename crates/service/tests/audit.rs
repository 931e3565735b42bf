//! The service's audit of results from other machines, on a real store and real matches played by
//! the worker code with its tape on: a genuine result is admitted; forged ones are refused, the
//! match failed with the reason and the worker flagged; the server's own results pass untouched.

use pitboss_service::audit::{admit, check, needed};
use pitboss_service::ServeConfig;
use pitboss_store::{Files, MatchKind, MatchState, NewMatch, Store};
use pitboss_worker::{BotRef, Outcome, Settings};

fn bot(v: &pitboss_store::Version) -> BotRef {
    BotRef {
        version: v.id,
        label: v.label(),
        builtin: v.spec.clone(),
        sha256: String::new(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn genuine_results_are_admitted_and_forged_ones_refused_and_flagged() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path();
    let store = Store::open_dir(data).await.unwrap();
    let cfg = ServeConfig::load(data, "127.0.0.1:0".parse().unwrap()).unwrap();
    let files = Files::new(data).unwrap();
    let secret = files.secret().unwrap();
    let settings = Settings {
        files,
        secret: secret.clone(),
        sandbox: false,
        luck_adjust: cfg.luck_adjust,
        threads: 2,
        check_hands: 10,
        history: false,
        history_hands: 0,
        tape: true,
        scratch: false,
    };
    let a = store.ensure_reference("random").await.unwrap();
    let b = store.ensure_reference("call").await.unwrap();
    let new = |seed| NewMatch {
        preset: "27td-fl".into(),
        kind: MatchKind::Ladder,
        a: a.id,
        b: b.id,
        seed,
        hands: 2_000,
    };
    let play = |id, seed| {
        let mut o = pitboss_worker::play(&settings, id, "27td-fl", seed, 2_000, &bot(&a), &bot(&b))
            .unwrap();
        o.worker = "remote-7".into();
        o
    };
    let m1 = store.create_match(&new(77)).await.unwrap();
    let m2 = store.create_match(&new(78)).await.unwrap();
    store.claim_match("remote-7").await.unwrap().unwrap();
    store.claim_match("remote-8").await.unwrap().unwrap();
    let row1 = store.match_by_id(m1).await.unwrap().unwrap();
    let row2 = store.match_by_id(m2).await.unwrap().unwrap();
    let good = play(m1, 77);
    let other = play(m2, 78);
    assert!(needed(&good) && !good.tape.is_empty());

    // Genuine: the default sample of 64 hands replays.
    let sampled = check(&secret, cfg.luck_adjust, &row1, &good).unwrap();
    assert_eq!(sampled.len(), 64);
    check(&secret, cfg.luck_adjust, &row2, &other).unwrap();

    // Forgeries, each refused with its reason.
    let forged = |f: &dyn Fn(&mut Outcome)| {
        let mut o = good.clone();
        f(&mut o);
        check(&secret, cfg.luck_adjust, &row1, &o).unwrap_err()
    };
    let stats = |s: &str, f: &dyn Fn(&mut pitboss_arena::BotStats)| {
        let mut st: pitboss_arena::BotStats = serde_json::from_str(s).unwrap();
        f(&mut st);
        serde_json::to_string(&st).unwrap()
    };
    let why = forged(&|o| o.stored.mean += 50.0);
    assert!(why.contains("the mean"), "{why}");
    let why = forged(&|o| o.stored.se /= 2.0);
    assert!(why.contains("standard error"), "{why}");
    let why =
        forged(&|o| o.stored.a_stats = stats(&o.stored.a_stats, &|s| s.adj_unit_net += 100_000));
    assert!(why.contains("adj_unit_net"), "{why}");
    let why = forged(&|o| o.tape.clear());
    assert!(why.contains("no action tape"), "{why}");
    let why = forged(&|o| o.tape = "not base64!".into());
    assert!(why.contains("base64"), "{why}");
    let why = forged(&|o| o.stored.played -= 2);
    assert!(why.contains("hands"), "{why}");
    // Another match's genuine result (its tape and statistics) sent for this one.
    let why = check(&secret, cfg.luck_adjust, &row1, &other).unwrap_err();
    assert!(
        why.contains("replay") || why.contains("chips") || why.contains("luck"),
        "{why}"
    );
    // The right match under another server's secret: the cards differ.
    assert!(check("another secret", cfg.luck_adjust, &row1, &good).is_err());

    // Through the scheduler's door: the genuine one is admitted...
    assert!(admit(&store, &cfg, m1, &good).await.unwrap());
    assert!(store.finish_match(m1, &good.stored).await.unwrap());
    assert!(store.worker_flags(10).await.unwrap().is_empty());
    // ... a forged one is refused: the match failed with the reason, the worker flagged.
    let mut bad = other.clone();
    bad.worker = "remote-8".into();
    bad.stored.b_stats = stats(&bad.stored.b_stats, &|s| s.net -= 1_000);
    assert!(!admit(&store, &cfg, m2, &bad).await.unwrap());
    let m = store.match_by_id(m2).await.unwrap().unwrap();
    assert_eq!(m.state, MatchState::Failed);
    assert!(
        m.error.starts_with("result refused by the audit: "),
        "{}",
        m.error
    );
    assert!(m.outcome.is_none());
    let flags = store.worker_flags(10).await.unwrap();
    assert_eq!(flags.len(), 1);
    assert_eq!(
        (flags[0].worker.as_str(), flags[0].match_id),
        ("remote-8", m2)
    );
    assert!(flags[0].reason.contains("net"), "{}", flags[0].reason);

    // The server's own result (no worker, no tape) is not audited.
    let mut local = good.clone();
    local.worker.clear();
    local.tape.clear();
    assert!(!needed(&local));
    assert!(admit(&store, &cfg, m1, &local).await.unwrap());
    store.close().await;
}
