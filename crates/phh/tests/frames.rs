//! The hand viewer's frames (`pitboss_phh::frames`): two hands checked fact by fact (a stud
//! hi/lo hand with side pots and a split, a six-handed triple-draw hand with a reshuffle), hostile
//! player names, and the invariants of `common::views` on random hands of all six presets.

mod common;

use common::play::play;
use common::views::check;
use pitboss_phh::frames::{frames, frames_for, to_script_json, Audience, Viewer};
use pitboss_phh::{parse_str, phh_from_events, read_file, replay, HandRecord, Replayed};
use pitboss_rules::PRESETS;

fn sample(name: &str) -> Replayed {
    let path = format!("{}/tests/viewer/{name}", env!("CARGO_MANIFEST_DIR"));
    let hands = read_file(&path).expect("sample reads");
    replay(&hands[0]).expect("sample replays")
}

fn cards(v: &Viewer, step: usize, seat: usize) -> Vec<String> {
    v.steps[step].seats[seat]
        .cards
        .iter()
        .map(|c| c.card.clone().unwrap_or_else(|| "??".into()))
        .collect()
}

fn step_with(v: &Viewer, text: &str) -> usize {
    v.steps
        .iter()
        .position(|s| s.text.contains(text))
        .unwrap_or_else(|| panic!("no step says `{text}`"))
}

#[test]
fn stud8_hand_step_by_step() {
    let r = sample("stud8.phh");
    let v = check(&r);
    let h = &v.header;
    assert_eq!((h.game.as_str(), h.code.as_str()), ("stud8", "F7S/8"));
    assert_eq!(h.structure, "fixed-limit");
    assert_eq!((h.stakes.ante, h.stakes.bring_in), (40, 50));
    assert_eq!(h.button, None);
    let names: Vec<&str> = h.players.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["ann", "bob", "cy", "dee"]);
    // Antes first: 4 x 40.
    assert_eq!((v.steps[0].street.as_str(), v.steps[0].pot), ("antes", 160));
    assert_eq!(v.steps[0].seats[3].stack, 426 - 40);
    // Third street: two down, one up, for every seat.
    assert_eq!(v.steps[1].street, "third street");
    for s in &v.steps[1].seats {
        let ups: Vec<bool> = s.cards.iter().map(|c| c.up).collect();
        assert_eq!(ups, [false, false, true]);
        assert!(s.cards.iter().all(|c| c.new));
    }
    assert_eq!(cards(&v, 1, 0), ["4h", "3d", "5s"]);
    let b = step_with(&v, "p1 (ann) brings in for 50");
    assert_eq!((v.steps[b].pot, v.steps[b].seats[0].bet), (210, 50));
    assert_eq!(v.steps[b].actor, Some(0));
    let c = step_with(&v, "p3 (cy) completes to 200");
    assert_eq!(v.steps[c].seats[2].bet, 200);
    let allin = step_with(&v, "p4 (dee) calls 186, all-in");
    assert!(v.steps[allin].seats[3].all_in);
    assert_eq!(v.steps[allin].seats[3].stack, 0);
    // Fourth street: bets are cleared, one more up card each.
    let d4 = step_with(&v, "fourth street is dealt face up");
    assert!(v.steps[d4].seats.iter().all(|s| s.bet == 0));
    assert_eq!(cards(&v, d4, 1), ["Kd", "Qh", "6h", "Ad"]);
    // Seventh street's card is down.
    let d7 = step_with(&v, "seventh street is dealt face down");
    assert!(v.steps[d7].seats.iter().all(|s| !s.cards[6].up));
    let f = step_with(&v, "p2 (bob) folds");
    assert!(v.steps[f].seats[1].folded);
    // The result: ann scoops the low halves with 6-5-4-3-2, cy the highs and the last side pot.
    let last = v.steps.last().unwrap();
    assert_eq!(last.street, "result");
    let stacks: Vec<u64> = last.seats.iter().map(|s| s.stack).collect();
    assert_eq!(stacks, [1450, 9489, 6745, 0]);
    let res = last.result.as_ref().unwrap();
    assert_eq!((res[0].won, res[0].net), (1450, 625));
    assert_eq!((res[2].won, res[2].net), (2281, 1041));
    assert_eq!(res[1].made, []); // folded
    let low = res[0].made.iter().find(|m| m.kind == "low").unwrap();
    assert_eq!(low.name, "6-5-4-3-2");
    assert_eq!(res[2].made[0].name, "straight");
    assert!(res[0].awards.iter().all(|a| a.share == "low"));
    assert!(last.text.contains("p1 (ann) wins 1450"), "{}", last.text);
}

#[test]
fn stud8_spectator_sees_up_cards_and_shown_hands_only() {
    let r = sample("stud8.phh");
    let v = frames_for(&r, Audience::Spectator);
    assert_eq!(cards(&v, 1, 0), ["??", "??", "5s"]);
    let last = v.steps.len() - 1;
    // cy showed; bob folded and never did.
    assert_eq!(
        cards(&v, last, 2),
        ["9c", "6c", "Kc", "8h", "7c", "Ts", "7h"]
    );
    assert_eq!(
        cards(&v, last, 1),
        ["??", "??", "6h", "Ad", "7s", "2c", "??"]
    );
    let me = frames_for(&r, Audience::Seat(1));
    assert_eq!(
        cards(&me, last, 1),
        ["Kd", "Qh", "6h", "Ad", "7s", "2c", "Td"]
    );
    assert_eq!(cards(&me, 1, 0), ["??", "??", "5s"]);
}

#[test]
fn triple_draw_hand_step_by_step() {
    let r = sample("27td.phh");
    let v = check(&r);
    let h = &v.header;
    assert_eq!((h.game.as_str(), h.code.as_str()), ("27td", "F2L3D"));
    // p6 (fay) is on the button, seat 0; p1 (ann) is left of it.
    assert_eq!(h.button, Some(0));
    assert_eq!(h.players[0].name, "fay");
    assert_eq!(h.players[1].name, "ann");
    let first = &v.steps[0];
    assert_eq!((first.street.as_str(), first.pot), ("blinds", 150));
    assert!(first.text.contains("p1 (ann) posts the small blind 50"));
    assert_eq!((first.seats[1].bet, first.seats[2].bet), (50, 100));
    assert_eq!(v.steps[1].street, "deal");
    assert!(v.steps[1].seats.iter().all(|s| s.cards.len() == 5));
    assert_eq!(cards(&v, 1, 1), ["7c", "8h", "4s", "Qh", "8s"]);
    // The first draw: ann throws 7c 8h and gets Qd Ac at the end of her hand.
    let d = step_with(&v, "p1 (ann) discards 2 (7c 8h), draws 2 (Qd Ac)");
    assert_eq!(v.steps[d].street, "draw 1");
    assert_eq!(cards(&v, d, 1), ["4s", "Qh", "8s", "Qd", "Ac"]);
    let seat = &v.steps[d].seats[1];
    assert_eq!(seat.discards.len(), 1);
    assert_eq!(seat.discards[0].draw, 1);
    assert!(seat.bet == 0 && v.steps[d].pot == 810);
    // The stub ran out while dee was served in the second draw.
    let s = step_with(&v, "the stub ran out: 25 mucked cards");
    assert!(
        v.steps[s].text.starts_with("p4 (dee) discards 3"),
        "{}",
        v.steps[s].text
    );
    assert_eq!(v.steps[s].street, "draw 2");
    let pat = step_with(&v, "p1 (ann) stands pat");
    assert_eq!(v.steps[pat].street, "draw 3");
    assert_eq!(
        v.steps[pat].seats[1].discards[2].cards,
        Vec::<Option<String>>::new()
    );
    let last = v.steps.last().unwrap();
    let res = last.result.as_ref().unwrap();
    let eve = &res[5];
    assert_eq!((eve.won, eve.finishing_stack), (2286, 4073));
    assert_eq!(eve.made[0].kind, "deuce-to-seven");
    assert_eq!(eve.made[0].name, "Q-T-9-5-3 (high card)");
    // A spectator sees the count of a draw, not the cards.
    let sp = frames_for(&r, Audience::Spectator);
    assert_eq!(sp.steps[d].text, "p1 (ann) discards 2, draws 2");
    assert_eq!(sp.steps[d].seats[1].discards[0].cards, [None, None]);
}

#[test]
fn hostile_names_stay_data() {
    let text = std::fs::read_to_string(format!(
        "{}/tests/viewer/stud8.phh",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
    .replace("'bob'", "'</script><script>alert(1)</script><!--'");
    let hands = parse_str("hostile.phh", &text).expect("reads");
    let v = frames(&replay(&hands[0]).expect("replays"));
    assert_eq!(
        v.header.players[1].name,
        "</script><script>alert(1)</script><!--"
    );
    assert!(v
        .steps
        .iter()
        .any(|s| s.text.contains("p2 (</script><script>")));
    let json = to_script_json(&v);
    assert!(!json.contains('<') && !json.contains("</"));
    let back: Viewer = serde_json::from_str(&json).unwrap();
    assert_eq!(back.header.players[1].name, v.header.players[1].name);
}

#[test]
fn random_hands_of_every_preset_keep_the_invariants() {
    let mut community = 0;
    for (preset, _) in PRESETS.iter().enumerate() {
        for k in 0..60 {
            let p = play(7, k, preset);
            let names: Vec<String> = (0..p.setup.stacks.len()).map(|i| format!("b{i}")).collect();
            let phh = phh_from_events(&HandRecord {
                game: &p.setup.game,
                stacks: &p.setup.stacks,
                button: p.setup.button,
                events: p.hand.events(),
                names: Some(&names),
                hand: Some(k as i64),
            });
            let text = pitboss_phh::to_toml(&phh);
            let hands = parse_str("random.phh", &text).expect("reads");
            let r = replay(&hands[0]).expect("replays");
            let v = check(&r);
            community += usize::from(v.steps.iter().any(|s| s.community.is_some()));
        }
    }
    assert!(community > 0, "some stud hands needed the community card");
}

#[test]
fn a_rejected_hand_stops_where_the_replay_did() {
    let path = format!(
        "{}/tests/fixtures/illegal_F7S8_raise_beyond_stack.phh",
        env!("CARGO_MANIFEST_DIR")
    );
    let r = replay(&read_file(&path).unwrap()[0]).unwrap();
    let v = frames(&r);
    assert!(!v.header.verified);
    assert!(v.header.problem.as_deref().unwrap().contains("p2 cbr 11"));
    let last = v.steps.last().unwrap();
    assert!(
        last.text.starts_with("the replay stops here: action 6"),
        "{}",
        last.text
    );
    assert_eq!(last.result, None);
    let total: u64 = v.header.players.iter().map(|p| p.starting_stack).sum();
    for s in &v.steps {
        assert_eq!(s.seats.iter().map(|x| x.stack).sum::<u64>() + s.pot, total);
    }
}
