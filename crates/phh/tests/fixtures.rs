//! Hand-checked PHH files: PokerKit's own triple-draw example, the six examples of
//! `scripts/pokerkit/examples` (each replays in PokerKit with matching stacks), edited copies that
//! contain an illegal action, and PokerKit-generated hands that hit docs/RULES.md's known differences.

use pitboss_phh::{read_file, replay, replay_with, Verdict};

fn verdict(name: &str) -> Vec<Verdict> {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    read_file(&path)
        .expect("fixture reads")
        .iter()
        .map(|h| replay(h).expect("fixture replays").verdict)
        .collect()
}

#[test]
fn pokerkit_examples_verify() {
    for f in [
        "pokerkit_arieh_yockey_2019.phh",
        "F2L3D.phh",
        "P2L3D.phh",
        "N2L3D.phh",
        "F7S8.phh",
        "P7S8.phh",
        "N7S8.phh",
    ] {
        assert_eq!(verdict(f), vec![Verdict::Verified], "{f}");
    }
}

fn rejected(name: &str) -> pitboss_phh::Rejection {
    match verdict(name).remove(0) {
        Verdict::Rejected(r) => r,
        Verdict::Verified => panic!("{name} verified"),
    }
}

#[test]
fn edited_hands_with_an_illegal_action_are_rejected() {
    let r = rejected("illegal_F7S8_raise_beyond_stack.phh");
    let a = r.action.expect("names the action");
    assert_eq!((a.index, a.text.as_str()), (6, "p2 cbr 11"));
    assert_eq!(r.known, None);
    let r = rejected("illegal_F2L3D_discard_not_held.phh");
    let a = r.action.expect("names the action");
    assert_eq!(a.index, 7);
    assert!(r.reason.contains("Ac"), "{}", r.reason);
}

#[test]
fn known_differences_are_named() {
    for (file, k) in [("pk_difference_1.phh", 1), ("pk_difference_5.phh", 5)] {
        let r = rejected(file);
        assert_eq!(r.known, Some(k), "{file}: {r}");
        assert!(r.action.is_some(), "{file}: {r}");
        assert!(
            r.reason
                .starts_with(&format!("known difference {k} with PokerKit 0.7.7:")),
            "{file}: {r}"
        );
    }
    for file in ["pk_difference_4.phh", "pk_difference_6.phh"] {
        let r = rejected(file);
        assert!(matches!(r.known, Some(4 | 6)), "{file}: {r}");
        assert!(r.reason.contains("finishing_stacks"), "{file}: {r}");
    }
}

/// PokerKit-dealt hands whose dealer reshuffled differently (2: discards of the drawer or of a
/// player not yet served; 3: seventh-street hole cards from folded hands): physically possible,
/// so they verify with a note; `--strict-dealing` (the house convention) rejects them, naming the
/// known difference.
#[test]
fn pokerkit_dealing_verifies_with_a_note_and_strict_dealing_rejects_it() {
    for (file, k, note) in [
        (
            "pk_difference_2.phh",
            2,
            "9c dealt to p3: a discard of a player not yet served",
        ),
        (
            "pk_difference_3.phh",
            3,
            "seventh street: the stub has 6 card(s) for 7 players",
        ),
    ] {
        let path = format!("{}/tests/fixtures/{file}", env!("CARGO_MANIFEST_DIR"));
        let hand = read_file(&path).expect("fixture reads").remove(0);
        let r = replay_with(&hand, false).expect("replays");
        assert_eq!(r.verdict, Verdict::Verified, "{file}");
        assert!(
            r.dealing_notes.iter().any(|n| n.contains(note)),
            "{file}: {:?}",
            r.dealing_notes
        );
        let strict = replay_with(&hand, true).expect("replays");
        let Verdict::Rejected(rej) = strict.verdict else {
            panic!("{file}: verified with --strict-dealing")
        };
        assert_eq!(rej.known, Some(k), "{file}: {rej}");
        assert!(strict.dealing_notes.is_empty(), "{file}");
    }
    // A card live in another hand stays impossible, whatever the convention.
    let path = format!(
        "{}/tests/fixtures/pk_difference_2.phh",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("'d dh p3 Ts7h9c'", "'d dh p3 Ts7h3s'");
    let hand = pitboss_phh::parse_str("edited", &text).unwrap().remove(0);
    let Verdict::Rejected(rej) = replay_with(&hand, false).unwrap().verdict else {
        panic!("3s, live in p1's hand, was dealt to p3")
    };
    assert!(rej.reason.contains("already live"), "{rej}");
}

/// `phh show --compact` lists the forced bets with the actions, so that a seat's lines account
/// for all it put in: the antes and blinds of a triple-draw hand, the antes and bring-in of a
/// stud hand.
#[test]
fn compact_lines_include_the_forced_bets() {
    let compact = |name: &str| {
        let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
        let h = &read_file(&path).expect("fixture reads")[0];
        pitboss_phh::show::render_compact(&replay(h).expect("replays"), "9")
    };
    let td = compact("F2L3D.phh");
    let td: Vec<&str> = td.lines().collect();
    assert_eq!(
        td[..6],
        [
            "[9] seat 1 antes 2",
            "[9] seat 2 antes 2",
            "[9] seat 3 antes 2",
            "[9] seat 1 posts the small blind 5",
            "[9] seat 2 posts the big blind 10",
            "[9] seat 3 raises to 20",
        ],
        "{td:#?}"
    );
    let stud = compact("F7S8.phh");
    let stud: Vec<&str> = stud.lines().collect();
    assert_eq!(
        stud[..4],
        [
            "[9] seat 1 antes 5",
            "[9] seat 2 antes 5",
            "[9] seat 3 antes 5",
            "[9] seat 3 brings in 5",
        ],
        "{stud:#?}"
    );
}
