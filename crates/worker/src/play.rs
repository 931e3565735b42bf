//! A ladder match: duplicate (every deal from both seats, so the cards cancel out), luck-adjusted
//! (the ladder rates on the adjusted result, whose variance is several times smaller), with the
//! deck salted from the service's secret and the match's seed — so a match re-run after a crash
//! deals the very same cards, and nobody who learns a seed can deal them.

use pitboss_arena::{run_match, BotStats, MatchConfig, MatchFile};
use pitboss_cards::Salt;
use pitboss_external::{ExternalFactory, ExternalOptions};
use sha2::{Digest, Sha256};

use crate::{bot_dir, BotRef, Outcome, Settings};

/// Why a match could not be played.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// An uploaded version could not be set up for the match: its build failed (it passed at
    /// its check: a build may look at the clock, or at files its author changes), or its
    /// manifest was refused. The message is public (the match page); `detail`, with the
    /// build's own output, is for the owner's log only.
    #[error("{label} could not be built or started for this match (its owner's log says why)")]
    Bot {
        version: i64,
        label: String,
        detail: String,
    },
    /// The house failed (files, the referee).
    #[error("{0}")]
    House(String),
}

impl From<String> for PlayError {
    fn from(s: String) -> PlayError {
        PlayError::House(s)
    }
}

/// The version of `bots` a spec error names (by its manifest's path), if an uploaded one.
fn blame(s: &Settings, bots: [&BotRef; 2], e: pitboss_arena::spec::SpecError) -> PlayError {
    use pitboss_arena::spec::SpecError as E;
    let path = match &e {
        E::Build { path, .. }
        | E::Manifest { path, .. }
        | E::ReadsOutside { path, .. }
        | E::Read { path, .. }
        | E::Toml { path, .. } => Some(path.as_str()),
        _ => None,
    };
    match bots
        .into_iter()
        .find(|b| b.builtin.is_empty() && path == Some(spec(s, b).as_str()))
    {
        Some(b) => PlayError::Bot {
            version: b.version,
            label: b.label.clone(),
            detail: printable(&e.to_string()),
        },
        None => PlayError::House(printable(&e.to_string())),
    }
}

/// `text` with every control character but newlines and tabs written as `\u{..}`: a build's
/// output goes to logs, pages and terminals.
fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// The deck salt of the match with `seed`.
pub fn deck_salt(secret: &str, seed: i64) -> Salt {
    let mut h = Sha256::new();
    h.update(b"pitboss service deck salt\0");
    h.update(secret.as_bytes());
    h.update(seed.to_le_bytes());
    Salt(h.finalize().into())
}

fn spec(s: &Settings, b: &BotRef) -> String {
    if b.builtin.is_empty() {
        bot_dir(&s.files, b.version)
            .join("bot.toml")
            .display()
            .to_string()
    } else {
        b.builtin.clone()
    }
}

/// Mean and standard error of per-unit values from their count, sum and sum of squares.
fn mean_se(n: u64, sum: f64, sq: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 0.0);
    }
    let nf = n as f64;
    let mean = sum / nf;
    if n < 2 {
        return (mean, 0.0);
    }
    let var = ((sq - sum * sum / nf) / (nf - 1.0)).max(0.0);
    (mean, (var / nf).sqrt())
}

/// The numbers the ladder rates a match on, from bot `a`'s statistics.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// a's mean per duplicate unit in mbb/hand: luck-adjusted when every hand was adjusted.
    pub mean: f64,
    pub se: f64,
    /// The same without the luck adjustment.
    pub raw_mean: f64,
}

/// [`Summary`] of bot statistics `st` in a game whose unit (big blind, or stud small bet) is
/// `unit` chips; `luck`: the service rates on luck-adjusted results. The server computes it again
/// from an audited result's statistics, so a worker cannot claim a mean its hands do not give.
pub fn summarize(st: &BotStats, unit: u64, luck: bool) -> Summary {
    let unit = unit as f64;
    // Per unit, in mbb/hand: a unit is one deal from both seats (2 hands).
    let per = 2.0 * unit;
    let (raw, _) = mean_se(
        st.units,
        st.unit_net as f64 * 1000.0 / per,
        st.unit_sq as f64 * 1e6 / (per * per),
    );
    let (mean, se) = if luck && st.adj_hands == st.hands && st.hands > 0 {
        // Thousandths of a chip: already milli.
        mean_se(
            st.units,
            st.adj_unit_net as f64 / per,
            st.adj_unit_sq as f64 / (per * per),
        )
    } else {
        mean_se(
            st.units,
            st.unit_net as f64 * 1000.0 / per,
            st.unit_sq as f64 * 1e6 / (per * per),
        )
    };
    Summary {
        mean,
        se,
        raw_mean: raw,
    }
}

/// Plays match `id`.
///
/// # Errors
/// [`PlayError::Bot`] when an uploaded version cannot be built or started for it,
/// [`PlayError::House`] when the match cannot be set up or its files written (a bot's faults
/// while playing are not errors: they are in its statistics).
pub fn play(
    s: &Settings,
    id: i64,
    preset: &str,
    seed: i64,
    hands: i64,
    a: &BotRef,
    b: &BotRef,
) -> Result<Outcome, PlayError> {
    play_salted(s, deck_salt(&s.secret, seed), id, preset, seed, hands, a, b)
}

/// [`play`] with the deck salt given: a remote worker never holds the service's secret, so the
/// server derives the match's salt and sends it with the job.
///
/// # Errors
/// As [`play`].
#[allow(clippy::too_many_arguments)]
pub fn play_salted(
    s: &Settings,
    salt: Salt,
    id: i64,
    preset: &str,
    seed: i64,
    hands: i64,
    a: &BotRef,
    b: &BotRef,
) -> Result<Outcome, PlayError> {
    let out = s.files.match_dir(id);
    if out.exists() {
        // A run cut short by a kill: played again from its seed, from nothing.
        std::fs::remove_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    }
    let file = MatchFile {
        game: Some(preset.to_string()),
        bots: Some(vec![spec(s, a), spec(s, b)]),
        hands: Some(hands as u64),
        seed: Some(seed as u64),
        salt: Some(salt),
        duplicate: Some(true),
        threads: Some(s.threads),
        out: Some(out.clone()),
        history: Some(s.history),
        zstd: Some(true),
        sandbox: Some(s.sandbox),
        luck_adjust: Some(s.luck_adjust),
        ..MatchFile::default()
    };
    let mut cfg = MatchConfig::from_file(file, |_| out.clone()).map_err(|e| e.to_string())?;
    cfg.names = vec![a.label.clone(), b.label.clone()];
    cfg.history_hands = Some(s.history_hands);
    cfg.tape = s.tape;
    cfg.scratch = s.scratch;
    // A program in the bot's folder that is a link out of it (made by its build) is refused
    // here as in the check: a build may make a plain file while checked and a link afterwards,
    // and `match` would bind what the link leads to (and its installation).
    let opts = ExternalOptions {
        allow_read_outside: false,
        ..ExternalOptions::from_config(&cfg)
    };
    let factory = ExternalFactory::new(&cfg.bots, pitboss_bots::builtin, &opts)
        .map_err(|e| blame(s, [a, b], e))?;
    let res = run_match(&cfg, &factory, &mut |_, _| {}).map_err(|e| e.to_string())?;
    drop(factory);
    let st = &res.stats.bots[0];
    let Summary {
        mean,
        se,
        raw_mean: raw,
    } = summarize(st, res.rows[0].unit, s.luck_adjust);
    let history = if s.history {
        let from = out.join(pitboss_arena::runner::history_phhs_name(&cfg));
        let rel = pitboss_store::Files::history_rel(id);
        let to = s.files.root().join(&rel);
        std::fs::rename(&from, &to).map_err(|e| format!("{}: {e}", from.display()))?;
        rel
    } else {
        String::new()
    };
    let json = |x| serde_json::to_string(x).expect("statistics serialize");
    let outcome = Outcome {
        stored: pitboss_store::Outcome {
            units: st.units as i64,
            played: res.hands as i64,
            mean,
            se,
            raw_mean: raw,
            elapsed_ms: res.elapsed.as_millis() as i64,
            a_stats: json(&res.stats.bots[0]),
            b_stats: json(&res.stats.bots[1]),
            history,
        },
        // Raw: compressed when the result is serialized, once the worker's slot has moved on.
        tape: res
            .tape
            .map_or(crate::TapeField::Empty, crate::TapeField::Raw),
        worker: String::new(),
    };
    // The folder held the match's config (with its salt) and the bots' logs: gone, now that
    // the result and the history are kept.
    let _ = std::fs::remove_dir_all(&out);
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_standard_error_match_a_direct_computation() {
        let xs = [3.0, -1.0, 4.0, 1.0, -5.0];
        let n = xs.len() as f64;
        let m = xs.iter().sum::<f64>() / n;
        let var = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
        let (mm, se) = mean_se(5, xs.iter().sum(), xs.iter().map(|x| x * x).sum());
        assert!((mm - m).abs() < 1e-12);
        assert!((se - (var / n).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn a_failed_build_blames_its_version_and_keeps_its_output_private() {
        let dir = tempfile::tempdir().unwrap();
        let s = Settings {
            files: pitboss_store::Files::new(dir.path()).unwrap(),
            secret: "s".into(),
            sandbox: true,
            luck_adjust: true,
            threads: 1,
            check_hands: 10,
            history: false,
            history_hands: 0,
            tape: false,
            scratch: false,
        };
        let up = BotRef {
            version: 7,
            label: "flaky.v1".into(),
            builtin: String::new(),
            sha256: "a".repeat(64),
        };
        let call = BotRef {
            version: 1,
            label: "call".into(),
            builtin: "call".into(),
            sha256: String::new(),
        };
        let build = |path: String| pitboss_arena::spec::SpecError::Build {
            path,
            command: vec!["python3".into(), "build.py".into()],
            why: "exit status: 3\nSECRET-OUTPUT \u{1b}]0;pwned\u{7}".into(),
        };
        match blame(&s, [&call, &up], build(spec(&s, &up))) {
            PlayError::Bot {
                version, detail, ..
            } => {
                assert_eq!(version, 7);
                assert!(detail.contains("SECRET-OUTPUT"), "{detail}");
                assert!(
                    !detail.contains('\u{1b}') && !detail.contains('\u{7}'),
                    "{detail}"
                );
                assert!(detail.contains("\\u{1b}"), "{detail}");
            }
            other => panic!("{other:?}"),
        }
        let public = blame(&s, [&call, &up], build(spec(&s, &up))).to_string();
        assert!(
            !public.contains("SECRET-OUTPUT") && !public.contains("versions"),
            "{public}"
        );
        // Another path: the house's problem, not this version's.
        assert!(matches!(
            blame(&s, [&call, &up], build("/elsewhere/bot.toml".into())),
            PlayError::House(_)
        ));
    }

    #[test]
    fn salts_differ_by_seed_and_secret() {
        assert_ne!(deck_salt("a", 1).0, deck_salt("a", 2).0);
        assert_ne!(deck_salt("a", 1).0, deck_salt("b", 1).0);
        assert_eq!(deck_salt("a", 1).0, deck_salt("a", 1).0);
    }
}
