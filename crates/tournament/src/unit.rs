//! Playing one work unit and its result file `units/<id>.json`: integer sums per bot and each
//! bot's net per duplicate deal (what the bootstrap, SPRT and charts need), written atomically.

use std::path::{Path, PathBuf};

use pitboss_protocol::MatchStart;
use pitboss_rules::{Preset, Seat, TableSetup};
use serde::{Deserialize, Serialize};

use pitboss_cards::Deck;
use pitboss_luck::Model;

use super::plan::{bot_seed, game_key, sha256_hex, UnitSpec};
use super::TournamentError;
use pitboss_arena::convert;
use pitboss_arena::player::{Fault, Player};
use pitboss_arena::referee::Referee;
use pitboss_arena::runner::{slot, Forfeited};
use pitboss_arena::stats::BotStats;

/// Starts bots from their specs.
pub trait EntrantFactory: Sync {
    /// A player for `spec`, seeded with `seed`, for seat rotation `lane` (one instance never
    /// plays two rotations of a deal: see [`pitboss_arena::BotFactory::create`]).
    ///
    /// # Errors
    /// A [`Fault`] when the bot cannot be started (its seat then forfeits every hand).
    fn create(&self, spec: &str, seed: u64, lane: usize) -> Result<Box<dyn Player>, Fault>;
}

impl<T: EntrantFactory + ?Sized> EntrantFactory for &T {
    fn create(&self, spec: &str, seed: u64, lane: usize) -> Result<Box<dyn Player>, Fault> {
        (**self).create(spec, seed, lane)
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
    /// [`Plan::settings_hash`](super::Plan::settings_hash) of the plan that made the unit.
    #[serde(default)]
    pub plan: String,
    /// SHA-256 of the rest of the file ([`UnitResult::content_hash`]).
    #[serde(default)]
    pub checksum: String,
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
pub fn play_unit(
    seed: u64,
    salt: Option<&pitboss_cards::Salt>,
    spec: &UnitSpec,
    specs: &[&str],
    factory: &dyn EntrantFactory,
    luck: Option<Option<&str>>,
) -> UnitResult {
    let luck_adjust = luck.is_some();
    let n = spec.bots.len();
    let preset = Preset::by_name(&spec.game).expect("validated game");
    let table = TableSetup {
        game: preset.game,
        stacks: vec![preset.stack; n],
        button: 0,
    }
    .validate()
    .expect("preset tables are valid");
    let mut stats = vec![BotStats::default(); n];
    // One set of players per seat rotation: lane 0 keeps the seeds of a single set.
    let mut lanes: Vec<Vec<Box<dyn Player>>> = (0..n)
        .map(|lane| {
            specs
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let seed = bot_seed(seed, &spec.game, &spec.bots, spec.batch, i);
                    let seed = if lane == 0 {
                        seed
                    } else {
                        pitboss_arena::runner::derive_seed(seed, lane as u64, 0x1A4E)
                    };
                    factory
                        .create(s, seed, lane)
                        .unwrap_or_else(|f| Box::new(Forfeited(f)))
                })
                .collect()
        })
        .collect();
    let start = MatchStart {
        game: convert::game_info(&table.game().clone()),
        hands: spec.deals * n as u64,
        decision_ms: 0,
        bank_ms: 0,
    };
    for players in &mut lanes {
        for (i, p) in players.iter_mut().enumerate() {
            if let Err(f) = p.match_start(&start) {
                stats[i].add_fault(f.kind);
            }
        }
    }
    let key = game_key(seed, salt, &spec.game);
    let mut referee = Referee::new();
    let mut net = vec![Vec::with_capacity(spec.deals as usize); n];
    let mut unit_net = vec![0i64; n];
    let mut adjuster = luck.map(|name| {
        let model = Model::by_name(name, preset.game.variant).unwrap_or(Model::Strength);
        pitboss_luck::Adjuster::new(&preset.game, model)
    });
    let side_seed = key.side_seed();
    let mut adj = vec![Vec::new(); if luck_adjust { n } else { 0 }];
    let (mut corrections, mut nets, mut milli) = (vec![0.0; n], vec![0i64; n], vec![0i64; n]);
    let mut unit_adj = vec![0i64; n];
    for d in spec.first_deal..spec.first_deal + spec.deals {
        for (r, players) in lanes.iter_mut().enumerate() {
            let k = d * n as u64 + r as u64;
            let s = slot(k, n, true);
            let t = table.with_button(Seat(s.button as u8));
            players.rotate_right(s.rotation);
            referee.play(&t, Deck::with_key(&key, s.deal), k, players);
            players.rotate_left(s.rotation);
            let hand = referee.hand();
            let events = hand.events();
            if let Some(a) = adjuster.as_mut() {
                a.seed_hand(side_seed, s.deal);
                a.hand(n, events, &mut corrections);
                for (v, (_, chips)) in nets.iter_mut().zip(hand.net()) {
                    *v = chips;
                }
                pitboss_luck::adjusted_milli(&nets, &corrections, &mut milli);
            }
            for (seat, chips) in hand.net() {
                let bot = (seat.index() + n - s.rotation) % n;
                stats[bot].add_hand(seat, events, chips);
                unit_net[bot] += chips;
                if adjuster.is_some() {
                    stats[bot].add_adjusted(milli[seat.index()]);
                    unit_adj[bot] += milli[seat.index()];
                }
            }
            for f in &referee.faults {
                let bot = (f.seat.index() + n - s.rotation) % n;
                stats[bot].add_fault(f.kind);
            }
        }
        for (bot, v) in unit_net.iter_mut().enumerate() {
            stats[bot].add_unit(*v);
            net[bot].push(*v);
            *v = 0;
        }
        for (bot, v) in unit_adj.iter_mut().enumerate().take(adj.len()) {
            stats[bot].add_adjusted_unit(*v);
            adj[bot].push(*v);
            *v = 0;
        }
    }
    for p in lanes.iter_mut().flatten() {
        p.finish();
    }
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
        plan: String::new(),
        checksum: String::new(),
    }
}
