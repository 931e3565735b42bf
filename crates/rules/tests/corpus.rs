//! The hand corpus: hand files written by hand from docs/RULES.md, each with its setup, the cards each
//! seat receives, the actions, and the expected payoffs and showdown. One generic driver runs them
//! all through the same engine as live play (cards dictated, as in a replay).
//!
//! File format (TOML), see `tests/corpus/README.md`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pitboss_cards::parse_cards;
use pitboss_rules::{
    Action, ApplyError, Dictated, Event, Game, Hand, Preset, Recipient, Seat, Share, Stakes,
    TableOptions, TableSetup,
};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CorpusHand {
    /// What the hand checks, with the docs/RULES.md line it comes from.
    #[allow(dead_code)]
    rule: String,
    game: String,
    stakes: Option<Stakes>,
    options: Option<TableOptions>,
    stacks: Vec<u64>,
    #[serde(default)]
    button: usize,
    /// Cards each seat receives in dealing order (`p1 = "..."`), and `board` for stud's community.
    cards: BTreeMap<String, String>,
    actions: Vec<String>,
    expect: Expect,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    /// Net chips per seat (required unless `deal_error` is given).
    net: Option<Vec<i64>>,
    /// The last action must fail with a deal error (a dictated card the rules do not allow) whose
    /// message contains this text; the hand stops there and only `reshuffles` is still checked.
    deal_error: Option<String>,
    /// Every award as `"p1 pot0 high 150"` (share: whole, high, low), in order.
    awards: Option<Vec<String>>,
    /// Seats that showed, in showing order.
    shown: Option<Vec<String>>,
    /// Seats that mucked.
    mucked: Option<Vec<String>>,
    /// Number of reshuffles.
    reshuffles: Option<usize>,
    /// Uncalled chips returned, as `"p1 100"`.
    returned: Option<Vec<String>>,
}

fn seat(s: &str) -> Seat {
    let n: u8 = s
        .strip_prefix('p')
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("bad seat `{s}`"));
    Seat(n - 1)
}

fn parse_action(words: &[&str]) -> Action {
    match words {
        ["fold"] => Action::Fold,
        ["check"] => Action::Check,
        ["call"] => Action::Call,
        ["bring-in"] => Action::BringIn,
        ["bet" | "raise" | "complete", to] => Action::Raise {
            to: to.parse().expect("amount"),
        },
        ["stand"] | ["discard"] => Action::Discard {
            cards: Default::default(),
        },
        ["discard", cards @ ..] => Action::Discard {
            cards: parse_cards(&cards.join(" "))
                .expect("cards")
                .iter()
                .collect(),
        },
        _ => panic!("unknown action `{}`", words.join(" ")),
    }
}

fn run(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let h: CorpusHand = toml::from_str(&text).map_err(|e| format!("parse: {e}"))?;
    let preset = Preset::by_name(&h.game).map_err(|e| e.to_string())?;
    let game = Game {
        stakes: h.stakes.unwrap_or(preset.game.stakes),
        options: h.options.unwrap_or(preset.game.options),
        ..preset.game
    };
    let setup = TableSetup {
        game,
        stacks: h.stacks.clone(),
        button: h.button,
    };
    let table = setup.validate().map_err(|e| format!("setup: {e}"))?;
    let mut source = Dictated::new();
    for (who, cards) in &h.cards {
        let to = if who == "board" {
            Recipient::Board
        } else {
            Recipient::Seat(seat(who))
        };
        // Word by word: a seat may legitimately receive a card twice (a reshuffle can give back
        // a card it threw in an earlier draw), which one `parse_cards` call would refuse.
        for word in cards.split_whitespace() {
            for c in parse_cards(word).map_err(|e| format!("cards of {who}: {e}"))? {
                source.push(to, c);
            }
        }
    }
    let mut hand = Hand::start(&table, source).map_err(|e| format!("deal: {e}"))?;
    let mut deal_failed = false;
    for (i, line) in h.actions.iter().enumerate() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = |m: String| format!("action {} `{line}`: {m}", i + 1);
        match words.as_slice() {
            // `? p1 raise 200..400`, `? p1 no-raise`, `? p1 call 50`, `? p1 check`, `? over`
            ["?", "over"] => {
                if !hand.is_over() {
                    return Err(at(format!("hand not over, {:?} to act", hand.to_act())));
                }
            }
            ["?", who, what @ ..] => {
                let legal = hand.legal().ok_or_else(|| at("hand is over".into()))?;
                if legal.seat != seat(who) {
                    return Err(at(format!("{} is to act", legal.seat)));
                }
                let ok = match what {
                    ["no-raise"] => legal.raise.is_none(),
                    ["raise", range] => {
                        let (a, b) = range.split_once("..").unwrap_or((range, range));
                        legal
                            .raise
                            .is_some_and(|r| r.min_to.to_string() == a && r.max_to.to_string() == b)
                    }
                    ["call", amount] => {
                        legal.call.map(|c| c.to_string()).as_deref() == Some(*amount)
                    }
                    ["check"] => legal.check,
                    ["no-fold"] => !legal.fold,
                    ["bring-in", amount] => {
                        legal.bring_in.map(|c| c.to_string()).as_deref() == Some(*amount)
                    }
                    _ => return Err(at("unknown assertion".into())),
                };
                if !ok {
                    return Err(at(format!("legal actions are {legal:?}")));
                }
            }
            // `! p1 raise 300`: must be refused, changing nothing.
            ["!", who, act @ ..] => {
                let before = hand.events().len();
                if hand.apply(seat(who), parse_action(act)).is_ok() {
                    return Err(at("illegal action was accepted".into()));
                }
                if hand.events().len() != before {
                    return Err(at("refused action changed the hand".into()));
                }
            }
            [who, act @ ..] => match hand.apply(seat(who), parse_action(act)) {
                Ok(_) => {}
                Err(ApplyError::Deal(e)) if h.expect.deal_error.is_some() => {
                    let want = h.expect.deal_error.as_deref().unwrap_or_default();
                    if i + 1 != h.actions.len() {
                        return Err(at(format!("deal error `{e}` before the last action")));
                    }
                    if !e.to_string().contains(want) {
                        return Err(at(format!(
                            "deal error `{e}`, expected one containing `{want}`"
                        )));
                    }
                    deal_failed = true;
                }
                Err(e) => return Err(at(e.to_string())),
            },
            [] => return Err(at("empty action".into())),
        }
    }
    let reshuffles = |events: &[Event]| {
        events
            .iter()
            .filter(|e| matches!(e, Event::Reshuffle { .. }))
            .count()
    };
    if let Some(want) = &h.expect.deal_error {
        if !deal_failed {
            return Err(format!("no deal error, expected one containing `{want}`"));
        }
        if let Some(want) = h.expect.reshuffles {
            let got = reshuffles(hand.events());
            if got != want {
                return Err(format!("{got} reshuffles, expected {want}"));
            }
        }
        return Ok(());
    }
    let outcome = hand.outcome().ok_or_else(|| {
        format!(
            "hand not over after all actions; {:?} to act",
            hand.to_act()
        )
    })?;
    let mut errors = Vec::new();
    let Some(net) = &h.expect.net else {
        return Err("expect.net is required".into());
    };
    if &outcome.net != net {
        errors.push(format!("net {:?}, expected {:?}", outcome.net, net));
    }
    if let Some(want) = &h.expect.awards {
        let got: Vec<String> = outcome
            .awards
            .iter()
            .map(|a| {
                let share = match a.share {
                    Share::Whole => "whole",
                    Share::High => "high",
                    Share::Low => "low",
                };
                format!("p{} pot{} {share} {}", a.seat.0 + 1, a.pot, a.amount)
            })
            .collect();
        if &got != want {
            errors.push(format!("awards {got:?}, expected {want:?}"));
        }
    }
    let events = hand.events();
    let list = |f: &dyn Fn(&Event) -> Option<String>| -> Vec<String> {
        events.iter().filter_map(f).collect()
    };
    if let Some(want) = &h.expect.shown {
        let got = list(&|e| match e {
            Event::Show { seat, .. } => Some(format!("p{}", seat.0 + 1)),
            _ => None,
        });
        if &got != want {
            errors.push(format!("shown {got:?}, expected {want:?}"));
        }
    }
    if let Some(want) = &h.expect.mucked {
        let got = list(&|e| match e {
            Event::Muck { seat } => Some(format!("p{}", seat.0 + 1)),
            _ => None,
        });
        if &got != want {
            errors.push(format!("mucked {got:?}, expected {want:?}"));
        }
    }
    if let Some(want) = h.expect.reshuffles {
        let got = reshuffles(events);
        if got != want {
            errors.push(format!("{got} reshuffles, expected {want}"));
        }
    }
    if let Some(want) = &h.expect.returned {
        let got = list(&|e| match e {
            Event::Return { seat, amount } => Some(format!("p{} {amount}", seat.0 + 1)),
            _ => None,
        });
        if &got != want {
            errors.push(format!("returned {got:?}, expected {want:?}"));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

fn corpus_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files = Vec::new();
    for dir in ["td", "stud"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for entry in entries {
            let p = entry.expect("entry").path();
            if p.extension().is_some_and(|e| e == "toml") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn every_corpus_hand_plays_out_as_written() {
    let files = corpus_files();
    let filter = std::env::var("CORPUS").unwrap_or_default();
    let mut failures = Vec::new();
    let mut ran = 0;
    for f in &files {
        if !f.to_string_lossy().contains(&filter) {
            continue;
        }
        ran += 1;
        if let Err(e) = run(f) {
            failures.push(format!("{}: {e}", f.display()));
        }
    }
    assert!(ran > 0, "no corpus hands found");
    assert!(
        failures.is_empty(),
        "{} of {ran} corpus hands failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("{ran} corpus hands passed");
}
