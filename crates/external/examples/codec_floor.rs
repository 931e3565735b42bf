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
//! cargo run --release -p pitboss-external --example codec_floor -- TRANSCRIPT [REPEAT]
//! ```

use std::time::Instant;

use pitboss_protocol::encode::{ActLine, HandEndLine, HandStartLine};
use pitboss_protocol::{sdk, ActRequest, Action, Bot, HandEnd, HandStart};

#[derive(serde::Deserialize)]
struct ActIn {
    id: u64,
    table: Option<u32>,
    hand: u64,
    events: Vec<pitboss_protocol::Event>,
    legal: pitboss_protocol::LegalActions,
    clock: pitboss_protocol::Clock,
}

#[derive(serde::Deserialize)]
struct TableOf {
    table: Option<u32>,
}

enum Out {
    Act(ActIn),
    Start(Option<u32>, HandStart),
    End(Option<u32>, HandEnd),
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
    let text = std::fs::read_to_string(&path).expect("transcript");
    let mut to_bot = Vec::new();
    let mut replies = Vec::new();
    let mut outs = Vec::new();
    for l in text.lines() {
        let mut parts = l.splitn(3, ' ');
        let (_, dir, line) = (parts.next(), parts.next(), parts.next().unwrap_or(""));
        match dir {
            Some(">") => {
                to_bot.extend_from_slice(line.as_bytes());
                to_bot.push(b'\n');
                let v: serde_json::Value = serde_json::from_str(line).expect("json");
                let table = serde_json::from_str::<TableOf>(line).expect("json").table;
                match v["type"].as_str() {
                    Some("act") => outs.push(Out::Act(serde_json::from_str(line).expect("act"))),
                    Some("hand_start") => outs.push(Out::Start(
                        table,
                        serde_json::from_value(v).expect("hand_start"),
                    )),
                    Some("hand_end") => outs.push(Out::End(
                        table,
                        serde_json::from_value(v).expect("hand_end"),
                    )),
                    _ => {}
                }
            }
            Some("<") if line.contains("\"action\"") => replies.push(line.as_bytes().to_vec()),
            _ => {}
        }
    }
    let decisions = outs.iter().filter(|o| matches!(o, Out::Act(_))).count() as f64;
    assert!(decisions > 0.0, "no act request in {path}");
    let mut best = [f64::MAX; 3];
    let mut buf = Vec::with_capacity(1 << 20);
    for _ in 0..repeat {
        let t = Instant::now();
        buf.clear();
        for o in &outs {
            match o {
                Out::Act(a) => ActLine {
                    id: a.id,
                    table: a.table,
                    hand: a.hand,
                    events: &a.events,
                    view: None,
                    legal: &a.legal,
                    clock: a.clock,
                }
                .write(&mut buf),
                Out::Start(table, h) => HandStartLine { table: *table, h }.write(&mut buf),
                Out::End(table, h) => HandEndLine { table: *table, h }.write(&mut buf),
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
