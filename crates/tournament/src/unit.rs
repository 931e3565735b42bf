//! Playing one work unit and its result file `units/<id>.json`: integer sums per bot and each
//! bot's net per duplicate deal (what the bootstrap, SPRT and charts need), written atomically.

use std::path::{Path, PathBuf};

use pitboss_protocol::MatchStart;
use pitboss_rules::{Event, Preset, Seat, TableSetup};
use serde::{Deserialize, Serialize};

use pitboss_cards::Deck;
use pitboss_luck::Model;

use super::history::{self, Recorder};
use super::plan::{bot_seed, game_key, sha256_hex, UnitSpec};
use super::TournamentError;
use pitboss_arena::convert;
use pitboss_arena::multi::{self, Hands, SharedProcess};
use pitboss_arena::player::{Fault, Player};
use pitboss_arena::referee::Referee;
use pitboss_arena::runner::{slot, Forfeited, ILLEGAL_NOTES};
use pitboss_arena::stats::BotStats;

/// Starts bots from their specs.
pub trait EntrantFactory: Sync {
    /// A player for `spec`, seeded with `seed`, for seat rotation `lane` (one instance never
    /// plays two rotations of a deal: see [`pitboss_arena::BotFactory::create`]).
    ///
    /// # Errors
    /// A [`Fault`] when the bot cannot be started (its seat then forfeits every hand).
    fn create(&self, spec: &str, seed: u64, lane: usize) -> Result<Box<dyn Player>, Fault>;

    /// Tables one process of `spec` plays at once (protocol 1.1 `concurrency`); `usize::MAX` for
    /// an in-process bot, which is created per table. See [`pitboss_arena::BotFactory::concurrency`].
    fn concurrency(&self, _spec: &str) -> usize {
        usize::MAX
    }

    /// The process of `spec` for `lane` that plays several tables of a unit at once (only asked
    /// when [`EntrantFactory::concurrency`] is finite).
    ///
    /// # Errors
    /// A [`Fault`] when the bot cannot be started.
    fn create_multi(&self, spec: &str, _lane: usize) -> Result<SharedProcess, Fault> {
        Err(Fault::new(
            pitboss_protocol::FaultKind::Handshake,
            format!("{spec} plays one table per process"),
        ))
    }

    /// Whether `spec` runs as processes that outlive a unit (its units are then played in phases
    /// kept apart in time: see [`crate::runner`]).
    fn is_process(&self, _spec: &str) -> bool {
        false
    }

    /// The phase of `lane` is over: every process of that lane is ended now, and none is kept
    /// for later (see [`pitboss_arena::BotFactory::end_lane`]).
    fn end_lane(&self, _lane: usize) {}
}

impl<T: EntrantFactory + ?Sized> EntrantFactory for &T {
    fn create(&self, spec: &str, seed: u64, lane: usize) -> Result<Box<dyn Player>, Fault> {
        (**self).create(spec, seed, lane)
    }
    fn concurrency(&self, spec: &str) -> usize {
        (**self).concurrency(spec)
    }
    fn create_multi(&self, spec: &str, lane: usize) -> Result<SharedProcess, Fault> {
        (**self).create_multi(spec, lane)
    }
    fn is_process(&self, spec: &str) -> bool {
        (**self).is_process(spec)
    }
    fn end_lane(&self, lane: usize) {
        (**self).end_lane(lane)
    }
}

/// Gives each game of a tournament its own [`EntrantFactory`]. The runner plays the games one
/// after another and drops a game's factory when its units are done, so a bot process never
/// plays two games: every process gets the `match_start` of the one game it plays.
pub trait GameFactories {
    /// The factory for the units of `game`.
    ///
    /// # Errors
    /// [`TournamentError::Bots`] when the bots cannot be prepared.
    fn for_game(&self, game: &str) -> Result<Box<dyn EntrantFactory + '_>, TournamentError>;
}

/// One factory for every game: for factories that start a fresh bot for every unit and keep no
/// process (in-process bots).
pub struct SameForAll<F>(pub F);

impl<F: EntrantFactory> GameFactories for SameForAll<F> {
    fn for_game(&self, _game: &str) -> Result<Box<dyn EntrantFactory + '_>, TournamentError> {
        Ok(Box::new(&self.0))
    }
}

/// What a unit produced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitResult {
    pub id: String,
    pub game: String,
    pub bots: Vec<String>,
    pub batch: u64,
    pub first_deal: u64,
    pub deals: u64,
    /// Per table position.
    pub stats: Vec<BotStats>,
    /// `net[position][deal]`: chips won over the deal's seat rotations.
    pub net: Vec<Vec<i64>>,
    /// `adj[position][deal]`: the luck-adjusted `net`, in thousandths of a chip (plans with
    /// `luck_adjust`; empty otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub adj: Vec<Vec<i64>>,
    /// `illegal[position]`: the rules' reasons for that bot's first illegal actions in the unit
    /// (at most [`ILLEGAL_NOTES`], hand order: `hand 812, seat 2: illegal: ...`, hands numbered
    /// from 1 over the table as in its history file). A fault count alone does not tell a bot's
    /// author what to fix. Absent from the file when no bot acted illegally.
    #[serde(default, skip_serializing_if = "no_notes")]
    pub illegal: Vec<Vec<String>>,
    /// [`Plan::settings_hash`](super::Plan::settings_hash) of the plan that made the unit.
    #[serde(default)]
    pub plan: String,
    /// SHA-256 of the rest of the file ([`UnitResult::content_hash`]).
    #[serde(default)]
    pub checksum: String,
    /// The PHH records of the hands kept (`history` of [`play_unit`]), in hand order; never in
    /// the unit's file: the runner writes them to the table's history file
    /// ([`crate::history::path`]).
    #[serde(skip)]
    pub history: Vec<u8>,
}

fn no_notes(v: &[Vec<String>]) -> bool {
    v.iter().all(Vec::is_empty)
}

/// Each position's first [`ILLEGAL_NOTES`] notes of several parts of a unit, in hand order.
fn first_notes(n: usize, parts: &[&[Vec<(u64, String)>]]) -> Vec<Vec<String>> {
    (0..n)
        .map(|bot| {
            let mut all: Vec<&(u64, String)> =
                parts.iter().filter_map(|p| p.get(bot)).flatten().collect();
            all.sort_by_key(|(k, _)| *k);
            all.into_iter()
                .take(ILLEGAL_NOTES)
                .map(|(_, line)| line.clone())
                .collect()
        })
        .collect()
}

impl UnitResult {
    /// SHA-256 of the JSON of everything but the checksum.
    pub fn content_hash(&self) -> String {
        let mut c = self.clone();
        c.checksum = String::new();
        sha256_hex(&serde_json::to_vec(&c).expect("serializes"))
    }

    /// Binds the result to the plan's settings hash and sets its checksum.
    pub fn seal(&mut self, plan: &str) {
        plan.clone_into(&mut self.plan);
        self.checksum = self.content_hash();
    }

    /// Why this result, read from `units/<stem>.json`, is not a result of `spec` in a plan with
    /// settings hash `plan`, if it is not: a wrong checksum (an edited file), another plan, another
    /// place in this plan, or chips that do not sum to zero.
    pub fn problem(&self, stem: &str, spec: Option<&UnitSpec>, plan: &str) -> Option<String> {
        if self.checksum != self.content_hash() {
            return Some("its checksum does not match its content: the file was edited".into());
        }
        if self.plan != plan {
            return Some(
                "it was made by another plan (its settings hash differs from plan.json's): a unit \
                 of another tournament, or plan.json was changed"
                    .into(),
            );
        }
        if self.id != stem {
            return Some(format!(
                "it holds unit {} (a file moved or copied from another place)",
                self.id
            ));
        }
        if !spec.is_some_and(|s| self.matches(s)) {
            return Some("not a unit of this folder's plan".into());
        }
        if self.stats.len() != self.bots.len() {
            return Some("the statistics do not have one entry per bot".into());
        }
        for d in 0..self.deals as usize {
            let sum: i128 = self.net.iter().map(|v| i128::from(v[d])).sum();
            if sum != 0 {
                return Some(format!(
                    "chips are not conserved: the nets of deal {} sum to {sum}",
                    self.first_deal + d as u64
                ));
            }
        }
        for (p, (s, v)) in self.stats.iter().zip(&self.net).enumerate() {
            let total: i128 = v.iter().map(|&x| i128::from(x)).sum();
            if s.net != total || s.unit_net != total {
                return Some(format!(
                    "position {p}: net {} and unit net {} disagree with the per-deal nets ({total})",
                    s.net, s.unit_net
                ));
            }
        }
        if !self.adj.is_empty() {
            if self.adj.len() != self.bots.len()
                || self.adj.iter().any(|v| v.len() as u64 != self.deals)
            {
                return Some("the adjusted results do not have one entry per bot and deal".into());
            }
            for d in 0..self.deals as usize {
                let sum: i128 = self.adj.iter().map(|v| i128::from(v[d])).sum();
                if sum != 0 {
                    return Some(format!(
                        "chips are not conserved: the adjusted nets of deal {} sum to {sum}",
                        self.first_deal + d as u64
                    ));
                }
            }
        }
        None
    }

    /// Whether this result is the one `spec` asks for.
    pub fn matches(&self, spec: &UnitSpec) -> bool {
        self.id == spec.id
            && self.game == spec.game
            && self.bots == spec.bots
            && self.batch == spec.batch
            && self.first_deal == spec.first_deal
            && self.deals == spec.deals
            && self.net.len() == spec.bots.len()
            && self.net.iter().all(|v| v.len() as u64 == spec.deals)
    }
}

/// The path of a unit's file in a tournament folder.
pub fn unit_path(dir: &Path, id: &str) -> PathBuf {
    dir.join("units").join(format!("{id}.json"))
}

/// Reads a unit file.
///
/// # Errors
/// [`TournamentError::Io`] or [`TournamentError::BadUnit`] naming the file.
pub fn read_unit(path: &Path) -> Result<UnitResult, TournamentError> {
    let bytes = std::fs::read(path).map_err(TournamentError::io(path))?;
    serde_json::from_slice(&bytes).map_err(|e| TournamentError::BadUnit {
        path: path.display().to_string(),
        why: e.to_string(),
    })
}

/// Plays a unit: every deal of the batch in every seat rotation, bots fresh from the factory.
/// The result is not sealed yet ([`UnitResult::seal`]). `luck`: luck-adjust with the plan's
/// value model (its recorded name, see `Model::by_name`; checked known when the plan was read).
///
/// When every external bot of the unit plays several tables per process (protocol 1.1), the
/// unit's hands are dealt to that many tables at once, as a match block is: table `j` plays hands
/// `j, j + K, …`, each table has its own in-process bots (table 0 with the seeds of the one-table
/// path), and the hands are recorded in hand order, so a bot whose decisions depend only on the
/// hand gives the same unit whatever its concurrency.
///
/// `table_index` is the index of the unit's table (pairing) in the plan. Every table of a game
/// plays the same deals, so a bot process that played deal `d` at one table must never play it
/// again at another, where it may sit in another seat and know the cards dealt to its opponent:
/// the factory's pools are keyed by table and seat rotation together (`lane = table · n +
/// rotation`), so a process only ever returns to later batches of its own table and rotation.
/// (The runner plays units of bots that run as processes rotation by rotation instead, with
/// [`play_unit_part`]: see [`crate::runner`].)
///
/// `history`: the PHH records of the pairing's hands numbered below it are kept in
/// [`UnitResult::history`] (only a batch-0 unit has such hands: see [`crate::history`]).
#[allow(clippy::too_many_arguments)]
pub fn play_unit(
    seed: u64,
    salt: Option<&pitboss_cards::Salt>,
    spec: &UnitSpec,
    specs: &[&str],
    table_index: usize,
    factory: &dyn EntrantFactory,
    luck: Option<Option<&str>>,
    history: u64,
) -> UnitResult {
    let n = spec.bots.len();
    let play = Play {
        seed,
        salt,
        spec,
        specs,
        factory,
        luck,
        history,
    };
    play.part(None, |r| table_index * n + r).result(spec)
}

/// Plays the hands of one seat rotation of a unit — a unit of a phase (see [`crate::runner`]) —
/// with the processes of the phase's `lane`; [`merge_parts`] puts the unit's rotations together
/// into the result [`play_unit`] gives. A rotation's players are seeded as in [`play_unit`], and
/// see the same hands in the same order at one table (at several tables, protocol 1.1, table `j`
/// plays the `j`-th, `j + K`-th, … hand of the rotation).
#[allow(clippy::too_many_arguments)]
pub fn play_unit_part(
    seed: u64,
    salt: Option<&pitboss_cards::Salt>,
    spec: &UnitSpec,
    specs: &[&str],
    rotation: usize,
    lane: usize,
    factory: &dyn EntrantFactory,
    luck: Option<Option<&str>>,
    history: u64,
) -> UnitPart {
    let play = Play {
        seed,
        salt,
        spec,
        specs,
        factory,
        luck,
        history,
    };
    play.part(Some(rotation), |_| lane)
}

/// What a unit is played with.
struct Play<'a> {
    seed: u64,
    salt: Option<&'a pitboss_cards::Salt>,
    spec: &'a UnitSpec,
    specs: &'a [&'a str],
    factory: &'a dyn EntrantFactory,
    luck: Option<Option<&'a str>>,
    /// Hands of the pairing numbered below this have their PHH records kept.
    history: u64,
}

impl Play<'_> {
    /// The unit's hands (with `rotation`, only that seat rotation's), bots created for the
    /// factory's lane `pool(rotation)`.
    fn part(&self, rotation: Option<usize>, pool: impl Fn(usize) -> usize) -> UnitPart {
        let (seed, spec, specs, factory) = (self.seed, self.spec, self.specs, self.factory);
        let n = spec.bots.len();
        let preset = Preset::by_name(&spec.game).expect("validated game");
        let table = TableSetup {
            game: preset.game,
            stacks: vec![preset.stack; n],
            button: 0,
        }
        .validate()
        .expect("preset tables are valid");
        // The seed of bot `i` in seat rotation `lane`: lane 0 keeps the seeds of a single set.
        let lane_seed = |lane: usize, i: usize| {
            let seed = bot_seed(seed, &spec.game, &spec.bots, spec.batch, i);
            if lane == 0 {
                seed
            } else {
                pitboss_arena::runner::derive_seed(seed, lane as u64, 0x1A4E)
            }
        };
        let start = MatchStart {
            game: convert::game_info(&table.game().clone()),
            hands: spec.deals * n as u64,
            decision_ms: 0,
            bank_ms: 0,
        };
        let key = game_key(seed, self.salt, &spec.game);
        let mut acc = Tally::new(
            n,
            self.luck.map(|name| {
                let model = Model::by_name(name, preset.game.variant).unwrap_or(Model::Strength);
                let adjuster = pitboss_luck::Adjuster::new(&preset.game, model)
                    .with_stacks(&vec![preset.stack; n]);
                pitboss_luck::HandAdjuster::new(adjuster, key.side_seed(), n)
            }),
            spec.deals as usize,
            rotation.is_some(),
        );
        // Only hands of the pairing below `history` are kept; a unit has none past its first
        // hand's number.
        if self.history > spec.first_deal * n as u64 {
            acc.history = Some(Recorder::new(
                self.history,
                preset.game,
                vec![preset.stack; n],
                spec.bots.clone(),
            ));
        }
        let range = spec.first_deal * n as u64..(spec.first_deal + spec.deals) * n as u64;
        // The rotations played, and the rotation of each lane of players.
        let rots: Vec<usize> = match rotation {
            Some(r) => vec![r],
            None => (0..n).collect(),
        };
        let k = specs
            .iter()
            .map(|s| factory.concurrency(s))
            .min()
            .unwrap_or(1);
        if k != usize::MAX && k > 1 {
            let hands = Hands {
                table: &table,
                key: &key,
                n,
                duplicate: true,
                range: range.clone(),
                rotation,
            };
            let procs = multi::procs(
                rots.len(),
                n,
                |i| factory.concurrency(specs[i]),
                |i, lane| factory.create_multi(specs[i], pool(rots[lane])),
            );
            let tables = (0..k.min(hands.count() as usize))
                .map(|j| {
                    multi::table_players(&procs, j, |lane, i| {
                        let r = rots[lane];
                        let seed = match j {
                            0 => lane_seed(r, i),
                            _ => pitboss_arena::runner::derive_seed(
                                lane_seed(r, i),
                                j as u64,
                                0x7AB1,
                            ),
                        };
                        factory.create(specs[i], seed, pool(r))
                    })
                })
                .collect();
            let faults = multi::play_tables(&hands, &procs, tables, &start, &mut |hk, o| {
                acc.hand(hk, &o.events, &o.net, &o.faults)
            });
            for (i, kind) in faults {
                acc.stats[i].add_fault(kind);
            }
        } else {
            let mut lanes: Vec<Vec<Box<dyn Player>>> = rots
                .iter()
                .map(|&r| {
                    specs
                        .iter()
                        .enumerate()
                        .map(|(i, s)| {
                            factory
                                .create(s, lane_seed(r, i), pool(r))
                                .unwrap_or_else(|f| Box::new(Forfeited(f)))
                        })
                        .collect()
                })
                .collect();
            for players in &mut lanes {
                for (i, p) in players.iter_mut().enumerate() {
                    if let Err(f) = p.match_start(&start) {
                        acc.stats[i].add_fault(f.kind);
                    }
                }
            }
            let mut referee = Referee::new();
            let mut net = Vec::with_capacity(n);
            // Units start at a multiple of n: hand k is in rotation k % n.
            let (from, step) = rotation.map_or((range.start, 1), |r| (range.start + r as u64, n));
            for k in (from..range.end).step_by(step) {
                let s = slot(k, n, true);
                let t = table.with_button(Seat(s.button as u8));
                let players = &mut lanes[if rotation.is_some() { 0 } else { s.rotation }];
                players.rotate_right(s.rotation);
                referee.play(&t, Deck::with_key(&key, s.deal), k, players);
                players.rotate_left(s.rotation);
                let hand = referee.hand();
                net.clear();
                net.extend(hand.net());
                acc.hand(k, hand.events(), &net, &referee.faults);
            }
            for p in lanes.iter_mut().flatten() {
                p.finish();
            }
        }
        UnitPart {
            rotation,
            hands: acc.hands,
            tally: acc,
        }
    }
}

/// What [`play_unit_part`] played: one seat rotation of a unit (or the whole unit).
pub struct UnitPart {
    pub rotation: Option<usize>,
    /// Hands played.
    pub hands: u64,
    tally: Tally,
}

impl UnitPart {
    /// The result of a unit played whole.
    fn result(self, spec: &UnitSpec) -> UnitResult {
        let t = self.tally;
        let mut r = unit_result(spec, t.stats, t.net, t.adj);
        r.illegal = first_notes(spec.bots.len(), &[&t.illegal]);
        r.history = history::bytes(t.history.map(Recorder::into_hands).unwrap_or_default());
        r
    }
}

/// Puts the seat rotations of a unit together (`parts[r]`: rotation `r`, from
/// [`play_unit_part`]): the same result as [`play_unit`] (every sum is an integer sum, and each
/// deal's net is its rotations' nets added up).
///
/// # Panics
/// When `parts` are not the unit's `n` rotations in order.
pub fn merge_parts(spec: &UnitSpec, parts: Vec<UnitPart>) -> UnitResult {
    let n = spec.bots.len();
    assert!(
        parts.len() == n
            && parts
                .iter()
                .enumerate()
                .all(|(r, p)| p.rotation == Some(r) && p.tally.split),
        "the unit's rotations in order"
    );
    let deals = spec.deals as usize;
    let adjusted = parts[0].tally.luck.is_some();
    let mut stats = vec![BotStats::default(); n];
    let mut net = vec![Vec::with_capacity(deals); n];
    let mut adj = vec![Vec::with_capacity(deals); if adjusted { n } else { 0 }];
    for p in &parts {
        for (a, b) in stats.iter_mut().zip(&p.tally.stats) {
            a.merge(b);
        }
    }
    for d in 0..deals {
        for bot in 0..n {
            let v: i64 = parts.iter().map(|p| p.tally.net[bot][d]).sum();
            stats[bot].add_unit(v);
            net[bot].push(v);
            if adjusted {
                let a: i64 = parts.iter().map(|p| p.tally.adj[bot][d]).sum();
                stats[bot].add_adjusted_unit(a);
                adj[bot].push(a);
            }
        }
    }
    let mut r = unit_result(spec, stats, net, adj);
    let notes: Vec<&[Vec<(u64, String)>]> = parts.iter().map(|p| &p.tally.illegal[..]).collect();
    r.illegal = first_notes(n, &notes);
    r.history = history::bytes(Recorder::merge(
        parts.into_iter().filter_map(|p| p.tally.history),
    ));
    r
}

fn unit_result(
    spec: &UnitSpec,
    stats: Vec<BotStats>,
    net: Vec<Vec<i64>>,
    adj: Vec<Vec<i64>>,
) -> UnitResult {
    UnitResult {
        id: spec.id.clone(),
        game: spec.game.clone(),
        bots: spec.bots.clone(),
        batch: spec.batch,
        first_deal: spec.first_deal,
        deals: spec.deals,
        stats,
        net,
        adj,
        illegal: Vec::new(),
        plan: String::new(),
        checksum: String::new(),
        history: Vec::new(),
    }
}

/// A unit's sums, hand by hand in hand order: statistics per bot, each bot's net per duplicate
/// deal, and the luck-adjusted results when the unit is adjusted.
///
/// With `split` (one seat rotation of the unit), a deal's net is this rotation's alone and no
/// duplicate unit is counted: [`merge_parts`] adds the rotations up.
struct Tally {
    n: usize,
    stats: Vec<BotStats>,
    net: Vec<Vec<i64>>,
    adj: Vec<Vec<i64>>,
    unit_net: Vec<i64>,
    unit_adj: Vec<i64>,
    luck: Option<pitboss_luck::HandAdjuster>,
    split: bool,
    hands: u64,
    /// With a history to keep: the records of the kept hands.
    history: Option<Recorder>,
    /// Per position, its first illegal actions: (hand, line).
    illegal: Vec<Vec<(u64, String)>>,
}

impl Tally {
    fn new(n: usize, luck: Option<pitboss_luck::HandAdjuster>, deals: usize, split: bool) -> Tally {
        let adjusted = luck.is_some();
        Tally {
            split,
            hands: 0,
            n,
            stats: vec![BotStats::default(); n],
            net: vec![Vec::with_capacity(deals); n],
            adj: vec![Vec::new(); if adjusted { n } else { 0 }],
            unit_net: vec![0; n],
            unit_adj: vec![0; n],
            luck,
            history: None,
            illegal: vec![Vec::new(); n],
        }
    }

    /// Hand `k` (deal `k / n`, rotation `k % n`), given in hand order.
    fn hand(
        &mut self,
        k: u64,
        events: &[Event],
        net: &[(Seat, i64)],
        faults: &[pitboss_arena::SeatFault],
    ) {
        let n = self.n;
        let s = slot(k, n, true);
        let milli = self.luck.as_mut().map(|l| l.hand(s.deal, events, net));
        if let Some(h) = self.history.as_mut() {
            h.hand(k, s.rotation, s.button, events);
        }
        for &(seat, chips) in net {
            let bot = (seat.index() + n - s.rotation) % n;
            self.stats[bot].add_hand(seat, events, chips);
            self.unit_net[bot] += chips;
            if let Some(m) = milli {
                self.stats[bot].add_adjusted(m[seat.index()]);
                self.unit_adj[bot] += m[seat.index()];
            }
        }
        for f in faults {
            let bot = (f.seat.index() + n - s.rotation) % n;
            self.stats[bot].add_fault(f.kind);
            if f.kind == pitboss_protocol::FaultKind::Illegal
                && self.illegal[bot].len() < ILLEGAL_NOTES
            {
                self.illegal[bot].push((k, f.note(k)));
            }
        }
        self.hands += 1;
        if self.split {
            for (bot, v) in self.unit_net.iter_mut().enumerate() {
                self.net[bot].push(*v);
                *v = 0;
            }
            for (bot, v) in self.unit_adj.iter_mut().enumerate().take(self.adj.len()) {
                self.adj[bot].push(*v);
                *v = 0;
            }
            return;
        }
        if s.rotation == n - 1 {
            for (bot, v) in self.unit_net.iter_mut().enumerate() {
                self.stats[bot].add_unit(*v);
                self.net[bot].push(*v);
                *v = 0;
            }
            for (bot, v) in self.unit_adj.iter_mut().enumerate().take(self.adj.len()) {
                self.stats[bot].add_adjusted_unit(*v);
                self.adj[bot].push(*v);
                *v = 0;
            }
        }
    }
}
