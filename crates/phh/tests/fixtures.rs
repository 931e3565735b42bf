//! Hand-checked PHH files: PokerKit's own triple-draw example, the six examples of
//! `scripts/pokerkit/examples` (each replays in PokerKit with matching stacks), edited copies that
//! contain an illegal action, and PokerKit-generated hands that hit docs/RULES.md's known differences.

use pitboss_phh::{read_file, replay, Verdict};

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
    for (file, k) in [
        ("pk_difference_1.phh", 1),
        ("pk_difference_2.phh", 2),
        ("pk_difference_3.phh", 3),
        ("pk_difference_5.phh", 5),
    ] {
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
