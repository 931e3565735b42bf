//! The example bot on the raw protocol (version 1, one table per process, full messages), without
//! the SDK: the same strategy as `main.rs`, and the JSON lines handled here. It speaks the protocol
//! of `protocol.md` on stdin/stdout using the `pitboss-protocol` types.
//!
//! The loop is the whole protocol: answer `hello` with a hello, answer `act` with an action
//! echoing the request id, ignore the notifications, exit at `match_end` or end of input.

use std::io::{BufRead, BufWriter, Write};

use pitboss_cards::{Card, Rank};
use pitboss_protocol::{
    ActRequest, Action, ActionReply, Bot, Clock, FromBot, HelloReply, LegalActions, Phase,
    SeatView, ToBot, PROTOCOL_VERSION,
};
use serde::Deserialize;

/// The part of an `act` request this bot uses. Parsing only that (the events are skipped) is
/// several times faster than the full tagged [`ToBot`] message.
#[derive(Deserialize)]
struct Decision {
    id: u64,
    hand: u64,
    view: SeatView,
    legal: LegalActions,
    clock: Clock,
}

/// Lowball rank value: deuce 2 .. ace 14 (aces are high in deuce-to-seven).
fn value(c: Card) -> u8 {
    c.rank().index() + 2
}

/// A tiny strategy for both games.
#[derive(Default)]
struct Example {
    stud: bool,
}

impl Example {
    /// Triple draw: cards to throw — pairs and anything above 8 (keeping 5 distinct low ones).
    fn discards(&self, cards: &[Card]) -> Vec<Card> {
        let mut keep: Vec<Card> = Vec::new();
        let mut sorted = cards.to_vec();
        sorted.sort_by_key(|c| value(*c));
        for c in sorted {
            if value(c) <= 8 && !keep.iter().any(|k| k.rank() == c.rank()) {
                keep.push(c);
            }
        }
        cards
            .iter()
            .filter(|c| !keep.contains(c))
            .copied()
            .collect()
    }

    /// Hand strength from 0 (junk) to 2 (strong).
    fn strength(&self, r: &ActRequest) -> u8 {
        let cards: Vec<Card> = r
            .view
            .cards
            .iter()
            .copied()
            .chain(r.view.seats[r.view.seat as usize].up.iter().copied())
            .collect();
        if self.stud {
            let lows = cards
                .iter()
                .filter(|c| value(**c) <= 8 || c.rank() == Rank::Ace)
                .count();
            let mut ranks: Vec<Rank> = cards.iter().map(|c| c.rank()).collect();
            ranks.sort();
            let paired = ranks.windows(2).any(|w| w[0] == w[1]);
            u8::from(lows >= 3) + u8::from(paired && ranks.iter().any(|r| *r >= Rank::Ten))
        } else {
            let throw = self.discards(&r.view.cards).len();
            match throw {
                0 => 2,
                1 => 1,
                _ => 0,
            }
        }
    }
}

impl Bot for Example {
    fn match_start(&mut self, m: &pitboss_protocol::MatchStart) {
        self.stud = m.game.variant == "stud-hi-lo";
    }

    fn act(&mut self, r: &ActRequest) -> Action {
        let l = &r.legal;
        if r.view.phase == Phase::Draw && l.discard.is_some() {
            return Action::Discard {
                cards: self.discards(&r.view.cards),
            };
        }
        if l.bring_in.is_some() {
            return Action::BringIn;
        }
        let s = self.strength(r);
        if let Some(raise) = l.raise {
            if s == 2 {
                return Action::Raise { to: raise.min_to };
            }
        }
        if l.check {
            return Action::Check;
        }
        if s == 0 && l.fold && r.view.round >= 2 {
            return Action::Fold;
        }
        Action::Call
    }
}

fn main() {
    let stdin = std::io::stdin().lock();
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut bot = Example::default();
    for line in stdin.lines() {
        let Ok(line) = line else { break };
        if line.starts_with(r#"{"type":"act","#) {
            if let Ok(d) = serde_json::from_str::<Decision>(&line) {
                let req = ActRequest {
                    id: d.id,
                    hand: d.hand,
                    events: Vec::new(),
                    view: d.view,
                    legal: d.legal,
                    clock: d.clock,
                };
                let reply = FromBot::Action(ActionReply {
                    id: req.id,
                    table: None,
                    action: bot.act(&req),
                });
                if serde_json::to_writer(&mut out, &reply).is_err()
                    || out.write_all(b"\n").is_err()
                    || out.flush().is_err()
                {
                    break;
                }
                continue;
            }
        }
        let msg: ToBot = match serde_json::from_str(&line) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("cannot read {line:?}: {e}");
                continue;
            }
        };
        let reply = match msg {
            ToBot::Hello(h) => FromBot::Hello(HelloReply {
                id: h.id,
                protocol: PROTOCOL_VERSION,
                name: "rust-example-raw".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
                games: vec!["triple-draw".into(), "stud-hi-lo".into()],
                ..HelloReply::default()
            }),
            ToBot::MatchStart(m) => {
                bot.match_start(&m);
                continue;
            }
            ToBot::HandStart(h) => {
                bot.hand_start(&h);
                continue;
            }
            ToBot::Act(r) => FromBot::Action(ActionReply {
                id: r.id,
                table: None,
                action: bot.act(&r),
            }),
            ToBot::HandEnd(h) => {
                bot.hand_end(&h);
                continue;
            }
            ToBot::MatchEnd(_) => break,
        };
        if serde_json::to_writer(&mut out, &reply).is_err()
            || out.write_all(b"\n").is_err()
            || out.flush().is_err()
        {
            break;
        }
    }
}
