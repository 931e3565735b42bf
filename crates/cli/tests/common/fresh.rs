//! The fault-free run of matches a server played: each played again, uninterrupted, from its
//! seed by the worker's own code in this process, under the server's secret.

use std::path::Path;

use pitboss_store::{Files, Match};

use super::db::{self, Db};

/// Asserts that every match of `ms` (done, on the ladder's default settings: luck-adjusted)
/// kept the result one uninterrupted run of its seed gives; `data` is the server's data
/// folder (its secret), `db` its store (the versions).
pub fn assert_as_played_again(data: &Path, db: &Db, ms: &[&Match]) {
    let versions = db::rt().block_on(async {
        let s = db.open().await.expect("the store opens");
        let v = s.versions().await.unwrap();
        s.close().await;
        v
    });
    let bot = |id: i64| {
        let v = versions.iter().find(|v| v.id == id).unwrap();
        pitboss_worker::BotRef {
            version: id,
            label: v.label(),
            builtin: v.spec.clone(),
            sha256: String::new(),
        }
    };
    let files = Files::new(data).unwrap();
    let settings = pitboss_worker::Settings {
        secret: files.secret().unwrap(),
        files,
        sandbox: true,
        luck_adjust: true,
        threads: 2,
        check_hands: 10,
        history: false,
        history_hands: 0,
        tape: false,
        scratch: false,
    };
    for m in ms {
        let fresh = pitboss_worker::play(
            &settings,
            1_000_000 + m.id,
            &m.preset,
            m.seed,
            m.hands,
            &bot(m.a),
            &bot(m.b),
        )
        .unwrap()
        .stored;
        let kept = m.outcome.as_ref().expect("a done match");
        assert_eq!(
            (
                fresh.mean,
                fresh.se,
                fresh.played,
                &fresh.a_stats,
                &fresh.b_stats
            ),
            (
                kept.mean,
                kept.se,
                kept.played,
                &kept.a_stats,
                &kept.b_stats
            ),
            "match {} played again from its seed",
            m.id
        );
    }
}
