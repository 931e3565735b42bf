//! Writes a standalone hand-viewer page (or its JSON) for one hand of a PHH file, for the
//! headless-browser tests (`crates/web/browser`): the page inlines `crates/web/assets/viewer.css`,
//! `viewer.js` and the frames, so that it opens from `file://` with no server.
//!
//! `cargo run --release -p pitboss-phh --example viewer_page -- FILE N [--json]
//!  [--audience players|spectator|seat:S] [--player K=NAME]... > page.html`
//!
//! `N` is the hand's 1-based position in the file; `--player K=NAME` renames player pK (the tests
//! give one a hostile name).

use std::process::ExitCode;

use pitboss_phh::frames::{frames_for, to_script_json, Audience};
use pitboss_phh::{read_file, replay};

const CSS: &str = include_str!("../../web/assets/viewer.css");
const JS: &str = include_str!("../../web/assets/viewer.js");

fn main() -> ExitCode {
    match run() {
        Ok(out) => {
            print!("{out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("viewer_page: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<String, Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (mut file, mut n, mut json) = (None, None, false);
    let mut audience = Audience::Players;
    let mut names: Vec<(usize, String)> = Vec::new();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--json" => json = true,
            "--audience" => {
                let v = args.next().ok_or("--audience needs a value")?;
                audience = match v.as_str() {
                    "players" => Audience::Players,
                    "spectator" => Audience::Spectator,
                    s => Audience::Seat(
                        s.strip_prefix("seat:")
                            .ok_or("--audience players|spectator|seat:S")?
                            .parse()?,
                    ),
                };
            }
            "--player" => {
                let v = args.next().ok_or("--player needs K=NAME")?;
                let (k, name) = v.split_once('=').ok_or("--player needs K=NAME")?;
                names.push((k.parse()?, name.to_string()));
            }
            _ if file.is_none() => file = Some(a),
            _ if n.is_none() => n = Some(a.parse::<usize>()?),
            _ => return Err(format!("unexpected argument {a}").into()),
        }
    }
    let file = file.ok_or("usage: viewer_page FILE N [--json] [--player K=NAME]")?;
    let n = n.unwrap_or(1);
    let hands = read_file(&file)?;
    let mut hand = hands
        .into_iter()
        .nth(n.checked_sub(1).ok_or("hands are numbered from 1")?)
        .ok_or(format!("{file} has no hand {n}"))?;
    let count = hand.hand.starting_stacks.len();
    let players = hand
        .hand
        .players
        .get_or_insert_with(|| (1..=count).map(|k| format!("p{k}")).collect());
    for (k, name) in names {
        *players
            .get_mut(k.checked_sub(1).ok_or("players are numbered from 1")?)
            .ok_or(format!("no player p{k}"))? = name;
    }
    let v = frames_for(&replay(&hand)?, audience);
    let data = to_script_json(&v);
    if json {
        return Ok(data + "\n");
    }
    Ok(format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>Pitboss hand viewer</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n\
         <div id=\"viewer\"></div>\n\
         <script type=\"application/json\" id=\"hand-data\">{data}</script>\n\
         <script>\n{JS}</script>\n</body>\n</html>\n"
    ))
}
