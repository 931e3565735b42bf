//! Round trip: random legal hands in all six presets, played through the engine with a seeded
//! deck, written as PHH, read back and replayed must verify with identical finishing stacks and
//! an identical event record. Also streams hands through the `.phhs` writer.

mod common;

use common::play::play;
use pitboss_phh::{parse_str, phh_from_events, replay, to_toml, HandRecord, PhhsWriter, Verdict};
use pitboss_rules::{Event, PRESETS};

fn record(p: &common::play::Played, k: u64) -> pitboss_phh::PhhHand {
    let names: Vec<String> = (0..p.setup.stacks.len())
        .map(|i| format!("bot-{i}"))
        .collect();
    phh_from_events(&HandRecord {
        game: &p.setup.game,
        stacks: &p.setup.stacks,
        button: p.setup.button,
        events: p.hand.events(),
        names: Some(&names),
        hand: Some(k as i64),
    })
}

#[test]
fn random_hands_round_trip_with_identical_events_and_stacks() {
    let mut community = 0;
    let mut side_pots = 0;
    for (preset, _) in PRESETS.iter().enumerate() {
        for k in 0..250 {
            let p = play(7, k, preset);
            let phh = record(&p, k);
            let text = to_toml(&phh);
            let hands = parse_str("mem.phh", &text).expect("our own TOML parses");
            assert_eq!(hands.len(), 1);
            assert_eq!(hands[0].hand, phh, "fields survive TOML");
            let r = replay(&hands[0]).expect("replays");
            assert_eq!(r.verdict, Verdict::Verified, "{text}");
            let net: Vec<i64> = p.hand.net().map(|(_, v)| v).collect();
            let want: Vec<u64> = r
                .players
                .seat_of
                .iter()
                .map(|&s| (p.setup.stacks[usize::from(s)] as i64 + net[usize::from(s)]) as u64)
                .collect();
            assert_eq!(r.finishing_stacks.as_ref(), Some(&want));
            assert_eq!(phh.finishing_stacks.as_ref(), Some(&want));
            assert_eq!(r.events, p.hand.events(), "event record differs\n{text}");
            community += p
                .hand
                .events()
                .iter()
                .any(|e| matches!(e, Event::Community { .. })) as u32;
            side_pots +=
                p.hand
                    .events()
                    .iter()
                    .any(|e| matches!(e, Event::Award { pot: 1.., .. })) as u32;
        }
    }
    // The generator reaches the interesting situations.
    assert!(community > 10, "community cards: {community}");
    assert!(side_pots > 50, "side pots: {side_pots}");
}

#[test]
fn phhs_stream_holds_every_hand_in_order() {
    let mut w = PhhsWriter::new(Vec::new());
    let mut written = Vec::new();
    for k in 0..40 {
        let p = play(3, k, (k % 6) as usize);
        let phh = record(&p, k);
        w.write_hand(&phh).unwrap();
        written.push(phh);
    }
    assert_eq!(w.hands(), 40);
    let bytes = w.finish().unwrap();
    let text = String::from_utf8(bytes).unwrap();
    assert!(text.starts_with("[1]\n"));
    let hands = parse_str("mem.phhs", &text).unwrap();
    assert_eq!(hands.len(), 40);
    for (h, want) in hands.iter().zip(&written) {
        assert_eq!(&h.hand, want);
        assert_eq!(replay(h).unwrap().verdict, Verdict::Verified);
    }
}

#[test]
fn a_changed_finishing_stack_is_caught() {
    let p = play(11, 5, 0);
    let mut phh = record(&p, 5);
    let f = phh.finishing_stacks.as_mut().unwrap();
    f[0] += 1;
    f[1] -= 1;
    let hands = parse_str("mem.phh", &to_toml(&phh)).unwrap();
    match replay(&hands[0]).unwrap().verdict {
        Verdict::Rejected(r) => assert!(r.reason.contains("finishing_stacks"), "{r}"),
        v => panic!("not caught: {v:?}"),
    }
}

/// Player names are data: whatever a name holds (terminal escapes, quotes of both kinds, a
/// newline, a backslash, a formula), the `players` field is a TOML string that reads back as the
/// same name and leaves no raw control byte in the file.
#[test]
fn hostile_player_names_are_toml_strings() {
    let p = play(7, 1, 0);
    let hostile = [
        "\u{1b}[2J\u{1b}]0;pwned\u{7}",
        "a'b\"c\\d",
        "evil\nplayers = ['x']",
        "=cmd|' /C calc'!A0",
        "''' triple",
    ];
    let names: Vec<String> = (0..p.setup.stacks.len())
        .map(|i| hostile[i % hostile.len()].to_string())
        .collect();
    let phh = phh_from_events(&HandRecord {
        game: &p.setup.game,
        stacks: &p.setup.stacks,
        button: p.setup.button,
        events: p.hand.events(),
        names: Some(&names),
        hand: Some(1),
    });
    let text = to_toml(&phh);
    assert!(
        !text.chars().any(|c| c.is_control() && c != '\n'),
        "a raw control character:\n{text}"
    );
    let hands = parse_str("mem.phh", &text).expect("our own TOML parses");
    assert_eq!(hands[0].hand, phh, "names survive TOML\n{text}");
    assert_eq!(
        replay(&hands[0]).expect("replays").verdict,
        Verdict::Verified
    );
}
