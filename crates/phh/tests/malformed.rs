//! Malformed input gives a typed error naming the file, hand and action, never a panic.

use pitboss_phh::{parse_str, replay, PhhError};

const GOOD: &str = include_str!("fixtures/F2L3D.phh");

fn replay_text(text: &str) -> Result<pitboss_phh::Verdict, PhhError> {
    let hands = parse_str("t.phh", text)?;
    let mut last = None;
    for h in &hands {
        last = Some(replay(h)?.verdict);
    }
    Ok(last.expect("at least one hand"))
}

#[test]
fn broken_toml_is_a_toml_error() {
    let e = replay_text("variant = 'F2L3D\nantes = [").unwrap_err();
    assert!(matches!(e, PhhError::Toml { .. }), "{e}");
    assert!(e.to_string().starts_with("t.phh: not valid TOML"), "{e}");
}

#[test]
fn unknown_variant_is_named() {
    let e = replay_text(&GOOD.replace("'F2L3D'", "'NT'")).unwrap_err();
    assert!(
        matches!(e, PhhError::UnknownVariant { ref code, .. } if code == "NT"),
        "{e}"
    );
    assert!(e.to_string().contains("unknown variant `NT`"), "{e}");
}

#[test]
fn a_bad_card_names_the_action() {
    let e = replay_text(&GOOD.replace("'d dh p2 8hKcJd4s9d'", "'d dh p2 8hKcJd4s1d'")).unwrap_err();
    match e {
        PhhError::Action {
            index,
            ref text,
            ref why,
            ..
        } => {
            assert_eq!(index, 2);
            assert_eq!(text, "d dh p2 8hKcJd4s1d");
            assert!(why.contains("`1d` is not a card"), "{why}");
        }
        e => panic!("{e}"),
    }
}

#[test]
fn missing_and_mistyped_fields_are_named() {
    let e = replay_text(&GOOD.replace("small_bet = 10\n", "")).unwrap_err();
    assert!(e.to_string().contains("small_bet"), "{e}");
    let e = replay_text(&GOOD.replace("antes = [2, 2, 2]", "antes = 'two'")).unwrap_err();
    assert!(e.to_string().contains("`antes`"), "{e}");
    let e = replay_text(&GOOD.replace(
        "starting_stacks = [34, 12, 280]",
        "starting_stacks = [34, -12, 280]",
    ))
    .unwrap_err();
    assert!(e.to_string().contains("negative"), "{e}");
    let e = replay_text(&GOOD.replace("'p1 f'", "'p9 f'")).unwrap_err();
    assert!(e.to_string().contains("no player p9"), "{e}");
    let e = replay_text("[1]\nvariant = 'F2L3D'\n").unwrap_err();
    assert!(e.to_string().contains("hand [1]"), "{e}");
    assert!(replay_text("").is_err());
    assert!(replay_text("x = 1").is_err());
}

/// Deterministic byte mutations of a valid file: whatever happens, no panic.
#[test]
fn mutated_files_never_panic() {
    let base = GOOD.as_bytes();
    let alphabet = b"0123456789pdhsbcmf?[]'\" =,#\nAKQJT";
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut outcomes = [0usize; 3];
    for _ in 0..3000 {
        let mut b = base.to_vec();
        for _ in 0..1 + next() % 4 {
            let i = (next() % b.len() as u64) as usize;
            match next() % 3 {
                0 => b[i] = alphabet[(next() % alphabet.len() as u64) as usize],
                1 => {
                    b.remove(i);
                }
                _ => b.insert(i, alphabet[(next() % alphabet.len() as u64) as usize]),
            }
        }
        let Ok(text) = String::from_utf8(b) else {
            continue;
        };
        match replay_text(&text) {
            Ok(pitboss_phh::Verdict::Verified) => outcomes[0] += 1,
            Ok(_) => outcomes[1] += 1,
            Err(_) => outcomes[2] += 1,
        }
    }
    // Most mutations must be caught one way or another.
    assert!(outcomes[1] + outcomes[2] > outcomes[0], "{outcomes:?}");
}
