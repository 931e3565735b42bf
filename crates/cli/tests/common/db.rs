//! The service's store, read from outside the server (the test's own connection).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pitboss_store::{Match, MatchState, QueueCounts, Store};

/// Where a server's store is: a data folder's SQLite file, or a database URL.
#[derive(Clone, Debug)]
pub enum Db {
    Dir(PathBuf),
    Url(String),
}

impl Db {
    pub fn dir(p: &Path) -> Db {
        Db::Dir(p.to_path_buf())
    }

    /// Opened, or `None` when it cannot be now (PostgreSQL stopped; no database file yet).
    pub async fn open(&self) -> Option<Store> {
        match self {
            Db::Dir(d) if !d.join("pitboss.db").exists() => None,
            Db::Dir(d) => Store::open_dir(d).await.ok(),
            Db::Url(u) => Store::open(u).await.ok(),
        }
    }
}

/// A runtime for one call into the store.
pub fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Every match by id, or `None` when the store cannot be read now.
pub fn try_matches(db: &Db) -> Option<BTreeMap<i64, Match>> {
    rt().block_on(async {
        let s = db.open().await?;
        let all = s.recent_matches(None, 1_000_000).await.ok();
        s.close().await;
        Some(all?.into_iter().map(|m| (m.id, m)).collect())
    })
}

/// Every match by id.
pub fn matches(db: &Db) -> BTreeMap<i64, Match> {
    try_matches(db).expect("the store reads")
}

/// The finished ones.
pub fn done(all: &BTreeMap<i64, Match>) -> BTreeMap<i64, Match> {
    all.iter()
        .filter(|(_, m)| m.state == MatchState::Done)
        .map(|(k, v)| (*k, v.clone()))
        .collect()
}

/// Whether exactly `n` matches are done.
pub fn all_done(n: usize) -> impl Fn(&BTreeMap<i64, Match>) -> bool {
    move |m| done(m).len() == n
}

/// Polls the store until `ok`, for at most `secs` seconds.
pub fn wait_for(db: &Db, what: &str, secs: u64, ok: impl Fn(&BTreeMap<i64, Match>) -> bool) {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(secs) {
        if try_matches(db).is_some_and(|m| ok(&m)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("timed out waiting for {what}: {:#?}", try_matches(db));
}

/// The store's counts (done, failed, hands in all, …).
pub fn counts(db: &Db) -> QueueCounts {
    rt().block_on(async {
        let s = db.open().await.expect("the store opens");
        let c = s.counts().await.unwrap();
        s.close().await;
        c
    })
}
