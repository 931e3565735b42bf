//! The CPU floor of the 1.1 protocol's messages, without pipes or processes: from a transcript
//! of one bot process (`pitboss match ... --transcript`, file `transcripts/*.txt`), times
//!
//! * the referee's side: writing every `act`, `hand_start` and `hand_end` line the transcript
//!   holds (`pitboss_protocol::encode`, as `Mux` does) and reading every reply
//!   (`pitboss_protocol::parse_reply`);
//! * the bot's side: the Rust SDK's whole loop (`sdk::run_on`: read, parse, keep the view, a
//!   passive decision, write the reply) over the same input, in memory.
//!
//! It prints nanoseconds per decision for each, so that what a pipe-connected match costs
//! beyond them (the referee's rules and statistics, system calls, wake-ups) can be told apart.
//!
//! ```text
//! cargo run --release -p pitboss-external --example codec_floor -- TRANSCRIPT [REPEAT] [STYLE]
//! ```
//!
//! STYLE `compact` or `terse` writes the transcript's messages again in that style (the bot's
//! side then reads those bytes), so that one transcript compares the two; without it the lines
//! are used as they are.

use std::time::Instant;

use pitboss_protocol::encode::{ActLine, HandEndLine, HandStartLine};
use pitboss_protocol::{sdk, ActRequest, Action, Bot, HandEnd, HandStart};

/// An `act` of the transcript; `terse` when its events and legal actions were token strings
/// (protocol 1.2), which the referee side then writes again.
struct ActIn {
    id: u64,
    table: Option<u32>,
    hand: u64,
    events: Vec<pitboss_protocol::Event>,
    legal: pitboss_protocol::LegalActions,
    clock: pitboss_protocol::Clock,
    terse: bool,
}

fn act_in(v: &serde_json::Value) -> ActIn {
    use pitboss_protocol::terse;
    let terse = v["events"].is_string();
    let (events, legal) = if terse {
        let mut events = Vec::new();
        terse::parse_events(v["events"].as_str().unwrap(), &mut events).expect("events");
        let legal = terse::parse_legal(v["legal"].as_str().expect("legal")).expect("legal");
        (events, legal)
    } else {
        (
            serde_json::from_value(v["events"].clone()).expect("events"),
            serde_json::from_value(v["legal"].clone()).expect("legal"),
        )
    };
    ActIn {
        id: v["id"].as_u64().expect("id"),
        table: v["table"].as_u64().map(|t| t as u32),
        hand: v["hand"].as_u64().expect("hand"),
        events,
        legal,
        clock: serde_json::from_value(v["clock"].clone()).expect("clock"),
        terse,
    }
}

/// A `hand_end` of the transcript, terse or not.
fn hand_end_in(v: &serde_json::Value) -> (HandEnd, bool) {
    let terse = v["events"].is_string();
    let mut events = Vec::new();
    if terse {
        pitboss_protocol::terse::parse_events(v["events"].as_str().unwrap(), &mut events)
            .expect("events");
    } else {
        events = serde_json::from_value(v["events"].clone()).expect("events");
    }
    let h = HandEnd {
        hand: v["hand"].as_u64().expect("hand"),
        events,
        net: serde_json::from_value(v["net"].clone()).expect("net"),
    };
    (h, terse)
}

#[derive(serde::Deserialize)]
struct TableOf {
    table: Option<u32>,
}

enum Out {
    Act(ActIn),
    Start(Option<u32>, HandStart),
    End(Option<u32>, HandEnd, bool),
    /// `hello`, `match_start`, `match_end`: passed on as they are.
    Raw(Vec<u8>),
}

/// Appends the line of `o` (terse or not as it says).
fn write(o: &Out, buf: &mut Vec<u8>) {
    match o {
        Out::Act(a) => ActLine {
            id: a.id,
            table: a.table,
            hand: a.hand,
            events: &a.events,
            view: None,
            legal: &a.legal,
            clock: a.clock,
            terse: a.terse,
        }
        .write(buf),
        Out::Start(table, h) => HandStartLine { table: *table, h }.write(buf),
        Out::End(table, h, terse) => HandEndLine {
            table: *table,
            h,
            terse: *terse,
        }
        .write(buf),
        Out::Raw(line) => {
            buf.extend_from_slice(line);
            buf.push(b'\n');
        }
    }
}

struct Passive;
impl Bot for Passive {
    fn act(&mut self, r: &ActRequest) -> Action {
        sdk::passive(&r.legal)
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("TRANSCRIPT");
    let repeat: u32 = args.next().map_or(5, |r| r.parse().expect("REPEAT"));
    let style: Option<bool> = args.next().map(|s| match s.as_str() {
        "terse" => true,
        "compact" => false,
        other => panic!("STYLE is compact or terse, not {other:?}"),
    });
    let text = std::fs::read_to_string(&path).expect("transcript");
    let mut to_bot = Vec::new();
    let mut replies = Vec::new();
    let mut outs = Vec::new();
    for l in text.lines() {
        let mut parts = l.splitn(3, ' ');
        let (_, dir, line) = (parts.next(), parts.next(), parts.next().unwrap_or(""));
        match dir {
            Some(">") => {
                let v: serde_json::Value = serde_json::from_str(line).expect("json");
                let table = serde_json::from_str::<TableOf>(line).expect("json").table;
                match v["type"].as_str() {
                    Some("act") => outs.push(Out::Act(act_in(&v))),
                    Some("hand_start") => outs.push(Out::Start(
                        table,
                        serde_json::from_value(v).expect("hand_start"),
                    )),
                    Some("hand_end") => {
                        let (h, terse) = hand_end_in(&v);
                        outs.push(Out::End(table, h, terse));
                    }
                    _ => outs.push(Out::Raw(line.as_bytes().to_vec())),
                }
            }
            Some("<") if line.contains("\"action\"") => replies.push(line.as_bytes().to_vec()),
            _ => {}
        }
    }
    if let Some(terse) = style {
        for o in &mut outs {
            match o {
                Out::Act(a) => a.terse = terse,
                Out::End(_, _, t) => *t = terse,
                _ => {}
            }
        }
    }
    for o in &outs {
        write(o, &mut to_bot);
    }
    let decisions = outs.iter().filter(|o| matches!(o, Out::Act(_))).count() as f64;
    assert!(decisions > 0.0, "no act request in {path}");
    let mut best = [f64::MAX; 3];
    let mut buf = Vec::with_capacity(1 << 20);
    for _ in 0..repeat {
        let t = Instant::now();
        buf.clear();
        for o in &outs {
            if !matches!(o, Out::Raw(_)) {
                write(o, &mut buf);
            }
            if buf.len() > 1 << 19 {
                buf.clear();
            }
        }
        best[0] = best[0].min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        for r in &replies {
            std::hint::black_box(pitboss_protocol::parse_reply(r).expect("reply"));
        }
        best[1] = best[1].min(t.elapsed().as_secs_f64());
        let mut sink = Vec::with_capacity(replies.len() * 64);
        let t = Instant::now();
        sdk::run_on(
            to_bot.as_slice(),
            &mut sink,
            &sdk::Options::new("floor"),
            || Passive,
        )
        .expect("runs");
        best[2] = best[2].min(t.elapsed().as_secs_f64());
    }
    let ns = |s: f64| s * 1e9 / decisions;
    println!(
        "{path}: {} lines to the bot, {decisions} decisions, {:.0} bytes to the bot per decision",
        outs.len(),
        to_bot.len() as f64 / decisions
    );
    println!(
        "referee: write the lines {:.0} ns, read the replies {:.0} ns per decision",
        ns(best[0]),
        ns(best[1])
    );
    println!(
        "Rust SDK: read, track the view, decide (passive), reply {:.0} ns per decision",
        ns(best[2])
    );
    println!(
        "together {:.0} ns per decision (best of {repeat})",
        ns(best[0] + best[1] + best[2])
    );
}
