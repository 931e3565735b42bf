//! `pitboss check BOT`: is this bot fit for a tournament? Starts it, runs the handshake, then a
//! short heads-up match against a reference bot in every game it claims, and says in plain
//! language what is wrong: the serde error and the offending line for a bad reply, the rule for an
//! illegal action, the observed latency for slow replies, the stderr tail of a crash.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use pitboss_cards::Deck;
use pitboss_protocol::{FaultKind, MatchStart};
use pitboss_rules::{Preset, Seat};

use super::player::{BuiltinFn, ExternalFactory, ExternalOptions, Report, TRANSCRIPT_CAP};
use super::session::TranscriptCap;
use super::spec::{BotSpec, SpecError};
use pitboss_arena::player::Player;
use pitboss_arena::referee::Referee;
use pitboss_arena::runner::BotFactory;

/// What `check` was asked to do.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// One preset only (default: the fixed-, pot- and no-limit presets of every game the bot
    /// claims).
    pub game: Option<String>,
    pub hands: u64,
    /// The reference opponent (a built-in name).
    pub opponent: String,
    pub external: ExternalOptions,
    /// Accept a manifest that reads outside its own folder (the operator's explicit choice).
    pub allow_read_outside: bool,
}

/// The verdict.
#[derive(Clone, Debug, Default)]
pub struct CheckReport {
    /// Plain-language lines, in order.
    pub lines: Vec<String>,
    /// Problems found (0: fit for a tournament).
    pub problems: usize,
    /// Fault details already printed (a bot that crashes the same way in every preset shows
    /// its traceback once, not six times).
    shown: std::collections::BTreeSet<String>,
}

impl CheckReport {
    fn say(&mut self, s: impl Into<String>) {
        self.lines.push(s.into());
    }

    fn problem(&mut self, s: impl Into<String>) {
        self.problems += 1;
        self.lines.push(format!("PROBLEM: {}", s.into()));
    }

    pub fn fit(&self) -> bool {
        self.problems == 0
    }
}

fn explain(kind: FaultKind) -> &'static str {
    match kind {
        FaultKind::Timeout => "no reply in time (decision limit plus what was left of the time bank)",
        FaultKind::Malformed => "replies the referee could not read (not JSON, a misspelt or missing field, or an id that answers no request)",
        FaultKind::UnknownMessage => "messages of a type the protocol does not have",
        FaultKind::Illegal => "illegal actions (the rules refused them)",
        FaultKind::LineTooLong => "a line longer than the limit",
        FaultKind::Crash => "the process exited or crashed",
        FaultKind::ClosedStdout => "the bot closed its stdout",
        FaultKind::Handshake => "the handshake failed",
        FaultKind::Forfeit => "decisions forfeited after the restarts were used up",
    }
}

/// Runs the check.
///
/// # Errors
/// [`SpecError`] when the spec itself cannot be used.
pub fn check(spec: &str, builtin: BuiltinFn, co: &CheckOptions) -> Result<CheckReport, SpecError> {
    // One transcript budget for the whole check (every game and table count), so that a check
    // writes at most that much whatever the bot sends.
    let mut co = co.clone();
    let cap = co
        .external
        .transcript_share
        .get_or_insert_with(|| TranscriptCap::new(TRANSCRIPT_CAP))
        .clone();
    let co = &co;
    let is_builtin = |s: &str| builtin(s, 1).is_some();
    let parsed = BotSpec::parse(spec, &is_builtin)?;
    if let BotSpec::External(e) = &parsed {
        let outside = e.reads_outside();
        if !outside.is_empty() && !co.allow_read_outside {
            return Err(SpecError::ReadsOutside {
                path: e
                    .manifest
                    .as_ref()
                    .map_or_else(|| spec.to_string(), |m| m.display().to_string()),
                outside,
            });
        }
    }
    let mut rep = CheckReport::default();
    if let BotSpec::External(e) = &parsed {
        rep.say(format!(
            "bot: {} — command {:?} in {}",
            e.name,
            e.command,
            e.dir.display()
        ));
    } else {
        rep.say(format!("bot: built-in `{spec}` (runs in-process)"));
    }
    rep.say(super::player::jail_description(co.external.sandbox));
    // Handshake alone first.
    let specs = || vec![parsed.clone(), BotSpec::Builtin(co.opponent.clone())];
    let hello = {
        let f = ExternalFactory::from_specs(specs(), builtin, &co.external)?;
        let mut p = f
            .create(0, 1, 0)
            .map_err(|e| SpecError::Unknown(e.to_string()))?;
        let r = p.match_start(&dummy_start());
        p.finish();
        drop(p);
        let report = f.reports()[0].clone();
        drop(f);
        match (r, report) {
            (Err(fault), _) => {
                rep.problem(format!("handshake: {}", fault.detail));
                verdict(&mut rep, co);
                return Ok(rep);
            }
            (Ok(()), Some(r)) => {
                for w in &r.warnings {
                    rep.say(format!("note: {w}"));
                }
                if let Some(c) = r.concurrency {
                    rep.say(format!(
                        "protocol 1.{}: concurrency {c}, {} messages",
                        if r.terse { 2 } else { 1 },
                        match (r.terse, r.compact) {
                            (true, _) => "terse",
                            (false, true) => "compact",
                            (false, false) => "full",
                        }
                    ));
                }
                Some(r)
            }
            (Ok(()), None) => None,
        }
    };
    let games: Vec<String> = match (&co.game, &hello) {
        (Some(g), _) => vec![g.clone()],
        (None, Some(h)) => {
            rep.say(format!(
                "handshake: ok — name {:?}, games {:?}",
                h.name,
                if h.games.is_empty() {
                    vec!["(both)".to_string()]
                } else {
                    h.games.clone()
                }
            ));
            let mut g = Vec::new();
            for claimed in &h.games {
                match claimed.as_str() {
                    "triple-draw" => g.extend(presets("27td")),
                    "stud-hi-lo" => g.extend(presets("stud8")),
                    other => rep.problem(format!(
                        "hello.games: unknown game {other:?} (use \"triple-draw\" and/or \"stud-hi-lo\")"
                    )),
                }
            }
            if h.games.is_empty() {
                g = presets("27td").chain(presets("stud8")).collect();
            }
            g
        }
        (None, None) => presets("27td").chain(presets("stud8")).collect(),
    };
    let concurrency = hello.as_ref().and_then(|h| h.concurrency).unwrap_or(1);
    // Built once, for the handshake: every match after it runs what that build left (a build per
    // match made 13 builds of a new Rust bot, about 80 s each on 2 cores).
    let parsed = match parsed {
        BotSpec::External(mut e) => {
            e.build = None;
            BotSpec::External(e)
        }
        builtin => builtin,
    };
    for game in games {
        play_game(&game, &parsed, builtin, co, &mut rep)?;
        if concurrency > 1 {
            play_concurrent(&game, &parsed, builtin, co, &mut rep)?;
        }
    }
    if cap.reached() {
        rep.problem(format!(
            "the transcripts reached their cap of {} MiB (the rest was not recorded): the bot \
             writes far more than a check's replies need (padded or stale lines)",
            cap.cap() >> 20
        ));
    }
    verdict(&mut rep, co);
    Ok(rep)
}

/// Every betting structure of a game: a bot claims games, not structures, and one that plays
/// fixed limit may still break on a pot- or no-limit raise range.
fn presets(game: &str) -> impl Iterator<Item = String> + '_ {
    ["fl", "pl", "nl"]
        .into_iter()
        .map(move |s| format!("{game}-{s}"))
}

/// Distinct fault details of one kind, each with the hands it came in.
type Examples = Vec<(String, Vec<u64>)>;

/// `hand 3: `, `hands 1, 3, 4: `, `hands 7, 8, 9, … (193 hands): ` — or nothing when no hand is
/// known. `hands` are the protocol's (from 0); people read them from 1, as everywhere else
/// (docs/REFERENCE.md, *Numbering*).
fn hands_text(hands: &[u64]) -> String {
    let list = |h: &[u64]| {
        h.iter()
            .map(|k| (k + 1).to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match hands.len() {
        0 => String::new(),
        1 => format!("hand {}: ", hands[0] + 1),
        n if n <= 5 => format!("hands {}: ", list(hands)),
        n => format!("hands {}, … ({n} hands): ", list(&hands[..3])),
    }
}

fn verdict(rep: &mut CheckReport, co: &CheckOptions) {
    if rep.fit() {
        rep.say("verdict: FIT for a tournament");
    } else {
        rep.say(format!(
            "verdict: NOT FIT — {} problem(s); the bot's log and transcript are in {}",
            rep.problems,
            co.external.out.display()
        ));
    }
}

fn dummy_start() -> MatchStart {
    let preset = Preset::by_name("27td-fl").expect("preset");
    MatchStart {
        game: pitboss_arena::convert::game_info(&preset.game),
        hands: 0,
        decision_ms: 0,
        bank_ms: 0,
    }
}

/// Protocol 1.1: the same game with the tables the bot claims in flight at once (the match
/// runner's scheduling), so that out-of-order replies and hands that end while another table waits
/// are exercised; every fault is a problem, as in the one-table run.
fn play_concurrent(
    game: &str,
    spec: &BotSpec,
    builtin: BuiltinFn,
    co: &CheckOptions,
    rep: &mut CheckReport,
) -> Result<(), SpecError> {
    if Preset::by_name(game).is_err() {
        return Ok(());
    }
    let mut opts = co.external.clone();
    opts.out = co.external.out.join(format!("{game}-concurrent"));
    let f = ExternalFactory::from_specs(
        vec![spec.clone(), BotSpec::Builtin(co.opponent.clone())],
        builtin,
        &opts,
    )?;
    let k = f.concurrency(0) as u64;
    let cfg = pitboss_arena::MatchConfig::from_file(
        pitboss_arena::MatchFile {
            game: Some(game.to_string()),
            bots: Some(vec!["bot".into(), co.opponent.clone()]),
            hands: Some(co.hands.max(8 * k)),
            threads: Some(1),
            out: Some(opts.out.clone()),
            ..pitboss_arena::MatchFile::default()
        },
        |_| opts.out.clone(),
    )
    .map_err(|e| SpecError::Unknown(e.to_string()))?;
    let cfg = pitboss_arena::MatchConfig {
        salt: pitboss_cards::Salt::random().ok(),
        ..cfg
    };
    let result = pitboss_arena::run_match(&cfg, &f, &mut |_, _| {})
        .map_err(|e| SpecError::Unknown(e.to_string()))?;
    let report: Report = f.reports()[0].clone().unwrap_or_default();
    drop(f);
    rep.say(format!(
        "{game}, {k} tables at once: {} hands, {} decisions; up to {} requests in flight, {} \
         replies out of order, {} hands ended while another table waited",
        result.hands,
        report.decisions,
        report.max_in_flight,
        report.out_of_order,
        report.ended_while_waiting
    ));
    let bot = &result.stats.bots[0];
    for kind in FaultKind::ALL {
        let i = FaultKind::ALL.iter().position(|x| *x == kind).unwrap_or(0);
        let n = bot.faults[i];
        if n > 0 {
            rep.problem(format!(
                "{game}, {k} tables at once: {n} × {} — {}",
                kind.name(),
                explain(kind)
            ));
        }
    }
    for f in report.faults.iter().take(3) {
        rep.say(format!("    {f}"));
    }
    if report.restarts > 0 {
        rep.problem(format!(
            "{game}, {k} tables at once: restarted {} time(s)",
            report.restarts
        ));
    }
    Ok(())
}

fn play_game(
    game: &str,
    spec: &BotSpec,
    builtin: BuiltinFn,
    co: &CheckOptions,
    rep: &mut CheckReport,
) -> Result<(), SpecError> {
    let preset = match Preset::by_name(game) {
        Ok(p) => p,
        Err(e) => {
            rep.problem(format!("--game {game}: {e}"));
            return Ok(());
        }
    };
    let mut opts = co.external.clone();
    opts.out = co.external.out.join(game);
    let f = ExternalFactory::from_specs(
        vec![spec.clone(), BotSpec::Builtin(co.opponent.clone())],
        builtin,
        &opts,
    )?;
    let setup = pitboss_rules::TableSetup {
        game: preset.game,
        stacks: vec![preset.stack; 2],
        button: 0,
    };
    let table = setup.validate().expect("preset tables are valid");
    let mut players: Vec<Box<dyn Player>> = (0..2)
        .map(|i| f.create(i, 7 + i as u64, 0))
        .collect::<Result<_, _>>()
        .map_err(|e| SpecError::Unknown(e.to_string()))?;
    let start = MatchStart {
        game: pitboss_arena::convert::game_info(&preset.game),
        hands: co.hands,
        decision_ms: 0,
        bank_ms: 0,
    };
    // Per kind: its count and up to three distinct details, each with the hands it came in.
    let mut faults: BTreeMap<&'static str, (FaultKind, u64, Examples)> = BTreeMap::new();
    let mut add = |kind: FaultKind, hand: Option<u64>, detail: &str| {
        let e = faults.entry(kind.name()).or_insert((kind, 0, Vec::new()));
        e.1 += 1;
        if let Some(x) = e.2.iter_mut().find(|x| x.0 == detail) {
            // Hands come in order; several faults in one hand name it once.
            if let Some(h) = hand.filter(|h| x.1.last() != Some(h)) {
                x.1.push(h);
            }
        } else if e.2.len() < 3 {
            e.2.push((detail.to_string(), hand.into_iter().collect()));
        }
    };
    if let Err(fault) = players[0].match_start(&start) {
        add(fault.kind, None, &fault.detail);
    }
    let _ = players[1].match_start(&start);
    let mut referee = Referee::new();
    let mut net = 0i64;
    // Secret decks here too: a bot must not be able to tell a check from a match.
    let key = match pitboss_cards::Salt::random() {
        Ok(salt) => pitboss_cards::DeckKey::salted(0xC4EC, &salt),
        Err(_) => pitboss_cards::DeckKey::from_seed(0xC4EC),
    };
    for k in 0..co.hands {
        // The bot sits in seat 0 and 1 in turn, with the button on either.
        let swap = (k / 2) % 2 == 1;
        let t = table.with_button(Seat((k % 2) as u8));
        if swap {
            players.swap(0, 1);
        }
        referee.play(&t, Deck::with_key(&key, k), k, &mut players);
        if swap {
            players.swap(0, 1);
        }
        let me = Seat(u8::from(swap));
        for fault in referee.faults.iter().filter(|f| f.seat == me) {
            add(fault.kind, Some(k), &fault.detail);
        }
        net += referee
            .hand()
            .net()
            .find(|(s, _)| *s == me)
            .map_or(0, |(_, v)| v);
    }
    for p in players.iter_mut() {
        p.finish();
    }
    drop(players);
    let report: Report = f.reports()[0].clone().unwrap_or_default();
    drop(f);
    let mut line = format!(
        "{game}: {} hands against {}: net {net:+} chips",
        co.hands, co.opponent
    );
    if report.decisions > 0 {
        let _ = write!(
            line,
            "; {} decisions, mean reply {:.2} ms, slowest {:.2} ms",
            report.decisions,
            report.total_us as f64 / report.decisions as f64 / 1000.0,
            report.max_us as f64 / 1000.0
        );
    }
    rep.say(line);
    for (kind, count, examples) in faults.values() {
        rep.problem(format!(
            "{game}: {count} × {} — {}",
            kind.name(),
            explain(*kind)
        ));
        for (detail, hands) in examples {
            let at = hands_text(hands);
            if rep.shown.insert(detail.clone()) {
                rep.say(format!("    {at}{detail}"));
            } else {
                rep.say(format!("    {at}the same as above"));
            }
        }
    }
    if report.restarts > 0 {
        rep.problem(format!(
            "{game}: restarted {} time(s) after crashes",
            report.restarts
        ));
    }
    let limit = co
        .external
        .limits
        .decision_ms
        .or(match spec {
            BotSpec::External(e) => e.limits.decision_ms,
            BotSpec::Builtin(_) => None,
        })
        .unwrap_or(super::spec::DEFAULT_DECISION_MS);
    if report.max_us > limit * 1000 / 2 && !faults.contains_key("timeout") {
        rep.problem(format!(
            "{game}: slow replies — the slowest took {:.1} ms, more than half the {limit} ms decision limit",
            report.max_us as f64 / 1000.0
        ));
    }
    Ok(())
}
