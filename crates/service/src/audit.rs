//! Audited results: a match played by a worker on another machine is checked before it counts
//! (crate `pitboss-audit`). The server draws its own sample of the match's hands, re-deals them
//! from the secret seed, replays the worker's action tape through the rules engine and compares
//! every chip; it also requires the claimed statistics to be the tape's sums and the mean and
//! standard error the ladder rates on to be those statistics' own. A result that fails is
//! refused: the match is failed with the reason (the ladder plans another match for the pair, on
//! another worker or the same; re-queuing the same seed would hand the forger the same deal) and
//! the worker is flagged for the operator (`/operator`, `/api/status`).

use pitboss_arena::BotStats;
use pitboss_audit::{Sampling, Setup};
use pitboss_rules::Preset;
use pitboss_store::{Files, Match, MatchState, Store};
use pitboss_worker::{deck_salt, summarize, Outcome};

use crate::{ServeConfig, ServiceError};

/// Whether a result needs an audit: it came from another machine (a named worker) or carries a
/// tape. The server's own threads are the server: their results are taken as they are.
pub fn needed(o: &Outcome) -> bool {
    !o.worker.is_empty() || !o.tape.is_empty()
}

/// Audits the result `o` of match `m` (with the service's `secret` and luck setting): `Ok` with
/// the hands replayed, or why it is refused.
///
/// # Errors
/// The reason, in words for the operator.
pub fn check(secret: &str, luck: bool, m: &Match, o: &Outcome) -> Result<Vec<u64>, String> {
    if o.tape.is_empty() {
        return Err("no action tape: a result from a worker must carry one".into());
    }
    let tape = o.tape_bytes()?;
    let stat = |s: &str, who: &str| {
        serde_json::from_str::<BotStats>(s).map_err(|e| format!("{who}'s statistics: {e}"))
    };
    let claimed = [stat(&o.stored.a_stats, "a")?, stat(&o.stored.b_stats, "b")?];
    let hands = u64::try_from(m.hands).map_err(|_| "a match of no hands".to_string())?;
    let seed = u64::try_from(m.seed).map_err(|_| "a negative seed".to_string())?;
    let setup = Setup::heads_up(&m.preset, seed, &deck_salt(secret, m.seed), hands, luck)
        .map_err(|e| e.to_string())?;
    let report = pitboss_audit::audit(&setup, &tape, &claimed, Sampling::default())
        .map_err(|e| e.to_string())?;
    if o.stored.played != m.hands || o.stored.units != claimed[0].units as i64 {
        return Err(format!(
            "{} hands and {} units claimed; the match has {} hands and the statistics {} units",
            o.stored.played, o.stored.units, m.hands, claimed[0].units
        ));
    }
    let unit = Preset::by_name(&m.preset)
        .map_err(|e| e.to_string())?
        .game
        .unit();
    let s = summarize(&claimed[0], unit, luck);
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-9 * y.abs().max(1.0);
    for (what, claimed, audited) in [
        ("mean", o.stored.mean, s.mean),
        ("standard error", o.stored.se, s.se),
        ("raw mean", o.stored.raw_mean, s.raw_mean),
    ] {
        if !close(claimed, audited) {
            return Err(format!(
                "the {what}: {claimed} claimed, the statistics give {audited}"
            ));
        }
    }
    Ok(report.sampled)
}

/// Admits the result of match `id` or refuses it (then the match is failed and its worker
/// flagged): `true` when it may be recorded.
///
/// # Errors
/// On a database failure, or when the service's secret cannot be read.
pub async fn admit(
    store: &Store,
    cfg: &ServeConfig,
    id: i64,
    o: &Outcome,
) -> Result<bool, ServiceError> {
    if !needed(o) {
        return Ok(true);
    }
    // Only a running or queued match takes a result (a retried one may be in already; a queued
    // one: the result of a job on a queue, played before a server restart re-queued its match).
    let Some(m) = store
        .match_by_id(id)
        .await?
        .filter(|m| matches!(m.state, MatchState::Running | MatchState::Queued))
    else {
        return Ok(true);
    };
    let secret = Files::new(&cfg.data)?.secret()?;
    let luck = cfg.luck_adjust;
    let (m, o2) = (m, o.clone());
    // A few milliseconds to a few hundred of CPU: off the scheduler's thread.
    let (m, verdict) = tokio::task::spawn_blocking(move || {
        let v = check(&secret, luck, &m, &o2);
        (m, v)
    })
    .await
    .map_err(|e| ServiceError::Audit {
        id,
        why: e.to_string(),
    })?;
    match verdict {
        Ok(sampled) => {
            tracing::debug!("match {id}: audited, {} hands replayed", sampled.len());
            Ok(true)
        }
        Err(why) => {
            let worker = if o.worker.is_empty() {
                &m.worker
            } else {
                &o.worker
            };
            tracing::warn!("match {id}: the result of worker {worker} is refused: {why}");
            store
                .fail_match(id, &format!("result refused by the audit: {why}"))
                .await?;
            store.flag_worker(worker, id, &why).await?;
            Ok(false)
        }
    }
}
