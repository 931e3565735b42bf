//! Genuine results pass the audit; forged ones are refused, each for its own reason; the sample
//! is random and of its stated size.

mod common;

use common::{config, play};
use pitboss_arena::tape::{self, Tape, TapeError};
use pitboss_arena::BotStats;
use pitboss_audit::{audit, audit_hands, totals, Refusal, Sampling, Setup};
use pitboss_rules::Action;

fn all(n: u64) -> Vec<u64> {
    (0..n).collect()
}

fn unpack(z: &[u8]) -> Tape {
    Tape::parse(&tape::decompress(z, 1 << 30).unwrap()).unwrap()
}

/// The tape re-encoded after `edit`, with statistics made consistent with it (a careful forger
/// fixes its totals too), so that only the replay can tell.
fn forge(
    setup: &Setup,
    z: &[u8],
    claim: &[BotStats],
    edit: impl FnOnce(&mut Tape),
) -> (Vec<u8>, Vec<BotStats>) {
    let mut t = unpack(z);
    edit(&mut t);
    let sums = totals::from_tape(setup, &t).unwrap();
    let claim = claim
        .iter()
        .zip(sums)
        .map(|(c, s)| BotStats {
            faults: c.faults,
            vpip: c.vpip,
            ..s
        })
        .collect();
    (tape::compress(&t.encode()), claim)
}

#[test]
fn genuine_results_pass_in_every_game_with_every_hand_replayed() {
    for (preset, luck) in [
        ("27td-fl", true),
        ("stud8-nl", true),
        ("27td-nl", false),
        ("stud8-pl", false),
    ] {
        let cfg = config(preset, 600, 11, luck, true);
        let (z, stats) = play(&cfg);
        let setup = Setup::of(&cfg);
        let r =
            audit_hands(&setup, &z, &stats, &all(600)).unwrap_or_else(|e| panic!("{preset}: {e}"));
        assert_eq!(r.sampled.len(), 600);
        // The service's own setup (preset, seed, salt, luck) is the same as the match's.
        let service =
            Setup::heads_up(preset, 11, &pitboss_cards::Salt([9; 32]), 600, luck).unwrap();
        audit(&service, &z, &stats, Sampling::default()).unwrap();
        // The tape is small: a few bytes a hand, compressed.
        assert!(z.len() < 600 * 40, "{preset}: {} bytes", z.len());
        // Sent raw (job format 3), the same tape passes the same way.
        let raw = tape::decompress(&z, 1 << 30).unwrap();
        let r = audit_hands(&setup, &raw, &stats, &all(600)).unwrap();
        assert_eq!(r.sampled.len(), 600);
    }
}

#[test]
fn changed_totals_are_refused() {
    let cfg = config("27td-fl", 400, 3, true, true);
    let (z, stats) = play(&cfg);
    let setup = Setup::of(&cfg);
    for field in ["net", "unit_net", "adj_unit_net", "hands"] {
        let mut forged = stats.clone();
        match field {
            "net" => forged[0].net += 100,
            "unit_net" => forged[1].unit_net -= 100,
            "adj_unit_net" => forged[0].adj_unit_net += 5_000,
            _ => forged[0].hands -= 1,
        }
        let e = audit(&setup, &z, &forged, Sampling::default()).unwrap_err();
        assert!(
            matches!(e, Refusal::Totals { field: f, bot, .. } if f == field && bot == 1 + usize::from(field == "unit_net")),
            "{field}: {e}"
        );
    }
    // Other statistics (VPIP, faults, showdowns) are not derived from the nets: not refused.
    let mut other = stats.clone();
    other[0].vpip += 1;
    audit(&setup, &z, &other, Sampling::default()).unwrap();
}

#[test]
fn a_changed_hand_net_is_refused_when_sampled() {
    let cfg = config("27td-fl", 400, 4, true, true);
    let (z, stats) = play(&cfg);
    let setup = Setup::of(&cfg);
    // Chips moved from one seat to the other in hand 101, totals fixed to match.
    let (fz, fstats) = forge(&setup, &z, &stats, |t| {
        t.hands[100].net[0] += 200;
        t.hands[100].net[1] -= 200;
    });
    let e = audit_hands(&setup, &fz, &fstats, &[7, 100, 300]).unwrap_err();
    // Numbered as hands.csv numbers them: hand 101 (tape index 100), seat 1 (engine seat 0).
    assert!(
        matches!(
            e,
            Refusal::Chips {
                hand: 101,
                seat: 1,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().starts_with("hand 101, seat 1: "), "{e}");
    // Not sampled, it passes: the sample is what catches a forged hand.
    audit_hands(&setup, &fz, &fstats, &[7, 99, 101, 300]).unwrap();
    // The same forgery sent raw: refused the same way.
    let raw = tape::decompress(&fz, 1 << 30).unwrap();
    let e = audit_hands(&setup, &raw, &fstats, &[7, 100, 300]).unwrap_err();
    assert!(matches!(e, Refusal::Chips { hand: 101, .. }), "{e}");
    // The forged net with the genuine totals: refused by the totals whatever is sampled.
    let e = audit_hands(&setup, &fz, &stats, &[]).unwrap_err();
    assert!(matches!(e, Refusal::Totals { .. }), "{e}");
    // A hand's nets that create chips are refused outright.
    let mut t = unpack(&z);
    t.hands[5].net[0] += 1;
    let err = audit_hands(&setup, &tape::compress(&t.encode()), &stats, &[]);
    assert!(
        matches!(err, Err(Refusal::Conservation { hand: 6, .. })),
        "{err:?}"
    );
}

#[test]
fn a_changed_luck_adjusted_result_is_refused_when_sampled() {
    let cfg = config("stud8-fl", 200, 5, true, true);
    let (z, stats) = play(&cfg);
    let setup = Setup::of(&cfg);
    let (fz, fstats) = forge(&setup, &z, &stats, |t| {
        let a = t.hands[42].adj.as_mut().unwrap();
        a[0] += 50_000;
        a[1] -= 50_000;
    });
    let e = audit_hands(&setup, &fz, &fstats, &[42]).unwrap_err();
    assert!(
        matches!(
            e,
            Refusal::Luck {
                hand: 43,
                seat: 1,
                ..
            }
        ),
        "{e}"
    );
}

/// A change to a tape.
type Edit<'a> = Box<dyn Fn(&mut Tape) + 'a>;

#[test]
fn illegal_or_misplaced_actions_are_refused() {
    let cfg = config("27td-nl", 200, 6, false, true);
    let (z, stats) = play(&cfg);
    let setup = Setup::of(&cfg);
    // A hand with a draw, and its first discard.
    let t = unpack(&z);
    let (k, d) = t
        .hands
        .iter()
        .enumerate()
        .find_map(|(k, h)| {
            let d = h
                .actions
                .iter()
                .position(|a| matches!(a, Action::Discard { .. }))?;
            Some((k, d))
        })
        .expect("a hand with a draw");
    // Aces and a king: no seat holds all five.
    let not_held: pitboss_cards::CardSet = (47..52).map(pitboss_cards::Card::from_index).collect();
    let cases: Vec<(&str, Edit<'_>)> = vec![
        (
            "a raise below the minimum",
            Box::new(|t| t.hands[k].actions[0] = Action::Raise { to: 1 }),
        ),
        (
            "an action after the end",
            Box::new(|t| t.hands[k].actions.push(Action::Fold)),
        ),
        (
            "a hand cut short",
            Box::new(|t| {
                t.hands[k].actions.pop();
            }),
        ),
        (
            "a discard of cards not held",
            Box::new(|t| {
                t.hands[k].actions[d] = Action::Discard { cards: not_held };
            }),
        ),
        (
            "a bet where a draw is due",
            Box::new(|t| {
                t.hands[k].actions[d] = Action::Raise { to: 200 };
            }),
        ),
    ];
    for (what, edit) in cases {
        let (fz, fstats) = forge(&setup, &z, &stats, |t| edit(t));
        let e = audit_hands(&setup, &fz, &fstats, &[k as u64]).unwrap_err();
        assert!(
            matches!(e, Refusal::Replay { hand, .. } if hand == k as u64 + 1),
            "{what}: {e}"
        );
        // Elsewhere in the match the same tape passes: only a replay of that hand can tell.
        let other = if k == 0 { 1 } else { 0 };
        audit_hands(&setup, &fz, &fstats, &[other]).unwrap();
    }
}

#[test]
fn a_tape_of_another_seed_is_refused() {
    let setup = Setup::of(&config("27td-fl", 400, 1, true, true));
    let (z, stats) = play(&config("27td-fl", 400, 2, true, true));
    // Genuine for seed 2, its totals consistent with it: the cards of seed 1 do not fit its actions.
    let e = audit(&setup, &z, &stats, Sampling::default()).unwrap_err();
    assert!(
        matches!(
            e,
            Refusal::Replay { .. } | Refusal::Chips { .. } | Refusal::Luck { .. }
        ),
        "{e}"
    );
    // Another salt (another server's secret) likewise.
    let mut other = setup.clone();
    other.key = pitboss_cards::DeckKey::new(2, Some(&pitboss_cards::Salt([8; 32])));
    assert!(audit(&other, &z, &stats, Sampling::default()).is_err());
}

#[test]
fn truncated_tapes_and_missing_hands_are_refused() {
    let cfg = config("stud8-fl", 200, 7, true, true);
    let (z, stats) = play(&cfg);
    let setup = Setup::of(&cfg);
    // The compressed bytes cut short.
    let e = audit(&setup, &z[..z.len() / 2], &stats, Sampling::default()).unwrap_err();
    assert!(matches!(e, Refusal::Tape(_)), "{e}");
    // The decompressed tape cut short, compressed again.
    let raw = tape::decompress(&z, 1 << 30).unwrap();
    let cut = tape::compress(&raw[..raw.len() - 3]);
    let e = audit(&setup, &cut, &stats, Sampling::default()).unwrap_err();
    assert!(matches!(e, Refusal::Tape(_)), "{e}");
    // Or sent raw, cut short; and a raw tape larger than any honest one of the match.
    let e = audit(&setup, &raw[..raw.len() - 3], &stats, Sampling::default()).unwrap_err();
    assert!(matches!(e, Refusal::Tape(_)), "{e}");
    let mut huge = raw.clone();
    huge.resize(setup.tape_limit() as usize + 1, 0);
    let e = audit(&setup, &huge, &stats, Sampling::default()).unwrap_err();
    assert!(matches!(e, Refusal::Tape(TapeError::TooLarge(_))), "{e}");
    // Whole hands missing, totals made consistent: the hand count gives it away.
    let (fz, fstats) = forge(&setup, &z, &stats, |t| t.hands.truncate(190));
    let e = audit(&setup, &fz, &fstats, Sampling::default()).unwrap_err();
    assert!(matches!(e, Refusal::Shape(_)), "{e}");
    // No tape at all, or garbage.
    assert!(audit(&setup, &[], &stats, Sampling::default()).is_err());
    assert!(audit(
        &setup,
        b"\x28\xb5\x2f\xfdgarbage",
        &stats,
        Sampling::default()
    )
    .is_err());
    // A tape without the luck-adjusted results of a match that adjusts.
    let (nz, _) = play(&config("stud8-fl", 200, 7, false, true));
    let e = audit(&setup, &nz, &stats, Sampling::default()).unwrap_err();
    assert!(matches!(e, Refusal::Shape(_)), "{e}");
}

#[test]
fn the_sample_is_random_of_its_size_and_catches_forgeries_at_the_expected_rate() {
    let cfg = config("27td-fl", 1_000, 8, false, true);
    let (z, stats) = play(&cfg);
    let setup = Setup::of(&cfg);
    let sampling = Sampling {
        min: 50,
        fraction: 0.0,
    };
    let a = audit(&setup, &z, &stats, sampling).unwrap();
    let b = audit(&setup, &z, &stats, sampling).unwrap();
    assert_eq!((a.sampled.len(), b.sampled.len()), (50, 50));
    assert_ne!(a.sampled, b.sampled, "two audits drew the same hands");
    assert!(
        a.sampled.iter().any(|&k| k >= 500),
        "not only the first hands: {:?}",
        a.sampled
    );
    assert_eq!(
        audit(&setup, &z, &stats, Sampling::default())
            .unwrap()
            .sampled
            .len(),
        64
    );
    // One forged hand in 1,000, 50 sampled: caught 5% of the time; 20 forged: 1 − 0.98^50 ≈ 64%.
    let (one, one_stats) = forge(&setup, &z, &stats, |t| {
        t.hands[321].net[0] += 100;
        t.hands[321].net[1] -= 100;
    });
    let (many, many_stats) = forge(&setup, &z, &stats, |t| {
        for k in (0..1_000).step_by(50) {
            t.hands[k].net[0] += 100;
            t.hands[k].net[1] -= 100;
        }
    });
    let runs = 400;
    let caught = |z: &[u8], s: &[BotStats]| {
        (0..runs)
            .filter(|_| audit(&setup, z, s, sampling).is_err())
            .count()
    };
    let c1 = caught(&one, &one_stats);
    let c20 = caught(&many, &many_stats);
    // Expected 20 of 400 (sd 4.4) and 256 of 400 (sd 9.6).
    assert!(
        (5..=40).contains(&c1),
        "one forged hand caught {c1} times in {runs}"
    );
    assert!(
        (215..=295).contains(&c20),
        "20 forged hands caught {c20} times in {runs}"
    );
}

/// Full tables, duplicate or not: the tape's sums are the match's own statistics (the sums step
/// the seats' rotation from hand to hand), whether the audit reads every hand's actions or a
/// few.
#[test]
fn genuine_results_pass_at_full_tables_duplicate_or_not() {
    for (preset, duplicate) in [("27td-fl", true), ("stud8-fl", false), ("27td-nl", false)] {
        let mut cfg = config(preset, 90, 5, true, true);
        cfg.bots = vec!["random".into(), "call".into(), "raise".into()];
        cfg.duplicate = duplicate;
        let r = pitboss_arena::run_match(
            &cfg,
            &common::Builtins(vec!["random", "call", "raise"]),
            &mut |_, _| {},
        )
        .expect("match");
        let _ = std::fs::remove_dir_all(&cfg.out);
        let raw = r.tape.expect("a tape");
        let setup = Setup::of(&cfg);
        for hands in [all(r.hands), vec![0, 44, 89], vec![]] {
            audit_hands(&setup, &raw, &r.stats.bots, &hands)
                .unwrap_or_else(|e| panic!("{preset}, duplicate {duplicate}: {e}"));
        }
        // One unit's net moved between two bots: the totals no longer add up.
        let mut forged = r.stats.bots.clone();
        forged[0].unit_net += 1;
        forged[1].unit_net -= 1;
        assert!(matches!(
            audit_hands(&setup, &raw, &forged, &[]),
            Err(Refusal::Totals { .. })
        ));
    }
}
