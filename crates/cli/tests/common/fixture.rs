//! Fixed-seed runs: a data folder whose ladder plans nothing (`plan = false`) holds a fixed list
//! of matches with fixed seeds under a fixed secret, so that two runs — one with a fault, one
//! without — must give the same results, match by match, and the same leaderboard.

use std::path::Path;
use std::time::{Duration, Instant};

use pitboss_store::{MatchKind, MatchState, NewMatch};
use serde_json::Value;

use super::db::{self, Db};
use super::proc::{get_text, serve, wait_line, worker, worker_token, Killed};
use super::tmp::Tmp;

/// The service's secret in every fixed run (the deck salts derive from it).
pub const SECRET: &str = "5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed";

/// A match of a fixed run: its seed and preset (`call` against `raise`).
pub type Fixed = (i64, &'static str);

/// `seeds` in turn in triple draw (fixed limit) and stud hi/lo (no limit).
pub fn fixed(seeds: &[i64]) -> Vec<Fixed> {
    seeds
        .iter()
        .enumerate()
        .map(|(i, s)| (*s, if i % 2 == 0 { "27td-fl" } else { "stud8-nl" }))
        .collect()
}

/// A data folder with the fixed secret and `plan = false`, and the matches `ms` of `hands`
/// hands each in the store `db` (the folder's own SQLite file, or a database URL), in order.
pub fn prepare(data: &Path, db: &Db, ms: &[Fixed], hands: i64) {
    std::fs::create_dir_all(data).unwrap();
    std::fs::write(data.join("secret"), SECRET).unwrap();
    std::fs::write(
        data.join("ladder.toml"),
        "plan = false\npresets = [\"27td-fl\", \"stud8-nl\"]\nreferences = [\"call\", \"raise\"]\n\
         history_hands = 4\n",
    )
    .unwrap();
    db::rt().block_on(async {
        let s = match db {
            Db::Dir(d) => pitboss_store::Store::open_dir(d).await.unwrap(),
            Db::Url(u) => pitboss_store::Store::open(u).await.unwrap(),
        };
        let a = s.ensure_reference("call").await.unwrap().id;
        let b = s.ensure_reference("raise").await.unwrap().id;
        for (seed, preset) in ms {
            s.create_match(&NewMatch {
                preset: (*preset).into(),
                kind: MatchKind::Ladder,
                a,
                b,
                seed: *seed,
                hands,
            })
            .await
            .unwrap();
        }
        s.close().await;
    });
}

/// What must not differ between two runs of a match: seed, preset, mean, standard error, raw
/// mean, units, hands, both bots' statistics.
pub type Row = (i64, String, f64, f64, f64, i64, i64, String, String);

/// The [`Row`] of every done match, in the order of their ids.
pub fn done_rows(db: &Db) -> Vec<Row> {
    db::done(&db::matches(db))
        .values()
        .map(|m| {
            let o = m.outcome.clone().unwrap();
            (
                m.seed,
                m.preset.clone(),
                o.mean,
                o.se,
                o.raw_mean,
                o.units,
                o.played,
                o.a_stats,
                o.b_stats,
            )
        })
        .collect()
}

/// [`done_rows`], every match being done.
pub fn results(db: &Db) -> Vec<Row> {
    for m in db::matches(db).values() {
        assert_eq!(m.state, MatchState::Done, "match {}: {}", m.id, m.error);
    }
    done_rows(db)
}

/// `/api/leaderboard` once its board counts `n` finished matches, without what tells two runs
/// apart whatever they played (`generation`, `updated_at`).
pub fn leaderboard(addr: &str, n: u64) -> Value {
    let t = Instant::now();
    loop {
        let (code, body) = get_text(addr, "/api/leaderboard", None);
        assert_eq!(code, 200, "{body}");
        let mut v: Value = serde_json::from_str(&body).unwrap();
        if v["matches"] == n {
            let o = v.as_object_mut().unwrap();
            o.remove("generation");
            o.remove("updated_at");
            return v;
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the board never counted {n} matches: {body}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Two leaderboards are the same: every count and name equal, every rating equal but for
/// the last bits of a float (the board sums matches in the order they finished, which differs
/// between runs).
pub fn assert_same_board(got: &Value, want: &Value) {
    fn same(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
                let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
                (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0)
            }
            (Value::Array(x), Value::Array(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
            }
            (Value::Object(x), Value::Object(y)) => {
                x.len() == y.len() && x.iter().all(|(k, a)| y.get(k).is_some_and(|b| same(a, b)))
            }
            _ => a == b,
        }
    }
    assert!(
        same(got, want),
        "the leaderboard differs from the fault-free run's:\n{got:#}\nwant:\n{want:#}"
    );
}

/// A fault-free run's results and leaderboard.
pub struct Baseline {
    pub rows: Vec<Row>,
    pub board: Value,
}

/// The fault-free run: the matches `ms` on `pitboss serve`'s own local workers, in a data
/// folder beneath `tmp`.
pub fn baseline(tmp: &Tmp, ms: &[Fixed], hands: i64) -> Baseline {
    let data = tmp.join("baseline");
    let db = Db::dir(&data);
    prepare(&data, &db, ms, hands);
    let (_server, addr) = serve(&data, &["--no-sandbox", "--workers", "2"]);
    db::wait_for(&db, "the fault-free run", 300, db::all_done(ms.len()));
    Baseline {
        rows: results(&db),
        board: leaderboard(&addr, ms.len() as u64),
    }
}

/// A worker "w" of two slots for the fixed run in `data` (queue `url`, stream prefix `prefix`,
/// server `addr`), returned once it is playing and before any of the `n` matches has ended, so
/// that a fault (`fault`, named in the failure) strikes in the middle of matches; its stderr
/// lines.
pub fn worker_midway(
    data: &Path,
    db: &Db,
    n: usize,
    (url, prefix, addr): (&str, &str, &str),
    fault: &str,
) -> (Killed, std::sync::mpsc::Receiver<String>) {
    let tok = worker_token(data, "w", &[]);
    let cache = data
        .parent()
        .expect("a data folder in a temporary one")
        .join("cache");
    let (w, rx) = worker(url, prefix, addr, &tok, "w", &cache, &["--slots", "2"]);
    wait_line(&rx, |l| l.contains("running"), 60);
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        !db::all_done(n)(&db::matches(db)),
        "every match ended before {fault}; make them longer"
    );
    (w, rx)
}
