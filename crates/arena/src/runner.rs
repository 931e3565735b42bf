//! Matches: hands scheduled over seat rotations (and duplicate deals), played in fixed-size blocks
//! by worker threads, merged in block order. A block's bots come fresh from the factory with seeds
//! derived from the match seed, so the same seed gives the same hands and the same files for any
//! number of threads.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use pitboss_cards::{Deck, DeckKey};
use pitboss_protocol::MatchStart;
use pitboss_rules::{Event, Seat, Table};

use crate::config::MatchConfig;
use crate::convert;
use crate::output::{write_atomic, AtomicFile};
use crate::player::{Fault, Player};
use crate::referee::Referee;
use crate::stats::MatchStats;
use crate::summary::{self, SummaryRow};

/// Creates the players of one table.
pub trait BotFactory: Sync {
    /// Bot `index` of the match's list, for one block of hands, seeded with `seed`, for `lane`:
    /// in duplicate matches each seat rotation is a lane of its own, and a factory must never
    /// let one instance (one process) play in two lanes — it would see both sides of a deal.
    ///
    /// # Errors
    /// A [`Fault`] when the bot cannot be started (the caller records it and the seat forfeits).
    fn create(&self, index: usize, seed: u64, lane: usize) -> Result<Box<dyn Player>, Fault>;

    /// Hands (tables) one process of bot `index` plays at once (protocol 1.1); `usize::MAX` for
    /// an in-process bot, which is created per table.
    fn concurrency(&self, _index: usize) -> usize {
        usize::MAX
    }

    /// The process of bot `index` for `lane` that plays several tables of a worker at once
    /// (only asked when [`BotFactory::concurrency`] is finite).
    ///
    /// # Errors
    /// A [`Fault`] when the bot cannot be started.
    fn create_multi(
        &self,
        index: usize,
        _lane: usize,
    ) -> Result<crate::multi::SharedProcess, Fault> {
        Err(Fault::new(
            pitboss_protocol::FaultKind::Handshake,
            format!("bot {index} plays one table per process"),
        ))
    }
}

/// Where hand `k` of a match is played from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// The deal: the deck of the hand is `Deck::with_key(key, deal)` (see [`MatchConfig::deck_key`]).
    pub deal: u64,
    /// Bot `b` sits in seat `(b + rotation) % n`.
    pub rotation: usize,
    pub button: usize,
}

/// The schedule: without duplicate, hand `k` has its own deal, the button moves every hand and the
/// bots rotate every `n` hands (so over `n²` hands every bot plays every position equally often);
/// with duplicate, deal `k / n` is played in the `n` rotations in a row with the same button.
pub fn slot(k: u64, n: usize, duplicate: bool) -> Slot {
    let n64 = n as u64;
    if duplicate {
        let deal = k / n64;
        Slot {
            deal,
            rotation: (k % n64) as usize,
            button: (deal % n64) as usize,
        }
    } else {
        Slot {
            deal: k,
            rotation: ((k / n64) % n64) as usize,
            button: (k % n64) as usize,
        }
    }
}

/// SplitMix64: derives independent seeds from the match seed.
pub fn derive_seed(seed: u64, a: u64, b: u64) -> u64 {
    let mut z =
        seed ^ a.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ b.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What a match produced.
pub struct MatchResult {
    pub stats: MatchStats,
    pub rows: Vec<SummaryRow>,
    pub hands: u64,
    pub elapsed: Duration,
}

/// A failure to run or record a match.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    #[error("writing {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("summary.csv: {0}")]
    Csv(#[from] csv::Error),
}

pub(crate) struct Block {
    index: u64,
    stats: MatchStats,
    hands_csv: Vec<u8>,
    phhs: Vec<u8>,
}

/// Hands per block: a multiple of `n²` (so rotations and duplicate units never straddle blocks).
pub fn block_size(n: usize) -> u64 {
    let nn = (n * n) as u64;
    1024_u64.div_ceil(nn) * nn
}

fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> ArenaError + '_ {
    move |source| ArenaError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Runs a match, writing `config.toml`, `summary.csv` and (with `history`) `hands.csv` and the
/// PHH hand histories `hands.phhs` or `hands.phhs.zst` (hand `k` of the match is table `[k]`) into
/// `cfg.out`. `progress` is called after each block with the totals so far.
///
/// # Errors
/// [`ArenaError`] when the output cannot be written.
pub fn run_match(
    cfg: &MatchConfig,
    factory: &dyn BotFactory,
    progress: &mut dyn FnMut(&MatchStats, u64),
) -> Result<MatchResult, ArenaError> {
    let start = Instant::now();
    std::fs::create_dir_all(&cfg.out).map_err(io(&cfg.out))?;
    let config_path = cfg.out.join("config.toml");
    let text = toml::to_string(cfg).expect("a config serializes");
    // It holds the deck salt: the owner's alone.
    crate::output::write_secret(&config_path, text.as_bytes()).map_err(io(&config_path))?;
    let n = cfg.bots.len();
    let table = cfg.table_setup().validate().expect("validated config");
    let bsize = block_size(n);
    let blocks = cfg.hands.div_ceil(bsize);
    let next = AtomicU64::new(0);
    let (tx, rx) = mpsc::sync_channel::<Block>(cfg.threads * 2);
    let hands_path = cfg.out.join("hands.csv");
    let phhs_path = cfg.out.join(history_phhs_name(cfg));
    let mut phhs_file = if cfg.history {
        let f = AtomicFile::create(&phhs_path).map_err(io(&phhs_path))?;
        Some(if cfg.zstd {
            PhhsOut::Zstd(zstd::Encoder::new(f, 3).map_err(io(&phhs_path))?)
        } else {
            PhhsOut::Plain(f)
        })
    } else {
        None
    };
    let mut hands_file = if cfg.history {
        let mut f = AtomicFile::create(&hands_path).map_err(io(&hands_path))?;
        f.write_all(b"hand,deal,rotation,button,seat,bot,net,showdown,faults,adj_net\n")
            .map_err(io(&hands_path))?;
        Some(f)
    } else {
        None
    };
    let mut total = MatchStats::new(n);
    let mut done = 0u64;
    let k = crate::multi::tables(factory, n);
    std::thread::scope(|scope| -> Result<(), ArenaError> {
        for _ in 0..cfg.threads.min(blocks as usize).max(1) {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || loop {
                let b = next.fetch_add(1, Ordering::Relaxed);
                if b >= blocks {
                    break;
                }
                let block = if k > 1 {
                    crate::multi::play_block(cfg, factory, &table, b, bsize, k)
                } else {
                    play_block(cfg, factory, &table, b, bsize)
                };
                if tx.send(block).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut pending = BTreeMap::new();
        let mut want = 0u64;
        for block in rx {
            pending.insert(block.index, block);
            while let Some(block) = pending.remove(&want) {
                total.merge(&block.stats);
                if let Some(f) = hands_file.as_mut() {
                    f.write_all(&block.hands_csv).map_err(io(&hands_path))?;
                }
                if let Some(f) = phhs_file.as_mut() {
                    f.write_all(&block.phhs).map_err(io(&phhs_path))?;
                }
                done = ((want + 1) * bsize).min(cfg.hands);
                progress(&total, done);
                want += 1;
            }
        }
        Ok(())
    })?;
    if let Some(f) = hands_file {
        f.commit().map_err(io(&hands_path))?;
    }
    if let Some(f) = phhs_file {
        match f {
            PhhsOut::Plain(f) => f.commit(),
            PhhsOut::Zstd(z) => z.finish().and_then(AtomicFile::commit),
        }
        .map_err(io(&phhs_path))?;
    }
    let unit = cfg.game().unit();
    let per_unit = if cfg.duplicate { n as u64 } else { 1 };
    let rows: Vec<SummaryRow> = total
        .bots
        .iter()
        .enumerate()
        .map(|(i, s)| SummaryRow::new(cfg.name(i), s, unit, per_unit))
        .collect();
    let mut csv_bytes = Vec::new();
    summary::write_csv(&mut csv_bytes, &rows)?;
    let summary_path = cfg.out.join("summary.csv");
    write_atomic(&summary_path, &csv_bytes).map_err(io(&summary_path))?;
    Ok(MatchResult {
        stats: total,
        rows,
        hands: done,
        elapsed: start.elapsed(),
    })
}

/// The file name of a match's PHH histories: `hands.phhs`, or `hands.phhs.zst` with `zstd`.
pub fn history_phhs_name(cfg: &MatchConfig) -> &'static str {
    if cfg.zstd {
        "hands.phhs.zst"
    } else {
        "hands.phhs"
    }
}

/// Where the PHH histories go: plain, or through a zstd encoder (level 3: fast, and PHH text
/// compresses about tenfold).
enum PhhsOut {
    Plain(AtomicFile),
    Zstd(zstd::Encoder<'static, AtomicFile>),
}

impl Write for PhhsOut {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            PhhsOut::Plain(f) => f.write(buf),
            PhhsOut::Zstd(z) => z.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            PhhsOut::Plain(f) => f.flush(),
            PhhsOut::Zstd(z) => z.flush(),
        }
    }
}

/// Plays block `b`: hands `b * bsize ..` with fresh bots.
fn play_block(
    cfg: &MatchConfig,
    factory: &dyn BotFactory,
    table: &Table,
    b: u64,
    bsize: u64,
) -> Block {
    let n = cfg.bots.len();
    let key: DeckKey = cfg.deck_key();
    let mut rec = Recorder::new(cfg, table);
    let lanes = if cfg.duplicate { n } else { 1 };
    let mut lane_players = players_by_lane(factory, n, lanes, |lane, i| {
        derive_seed(cfg.seed, b, (lane * n + i) as u64)
    });
    let start = match_start(cfg, table);
    for players in &mut lane_players {
        for (i, p) in players.iter_mut().enumerate() {
            if let Err(f) = p.match_start(&start) {
                rec.stats.bots[i].add_fault(f.kind);
            }
        }
    }
    let mut referee = Referee::new();
    let mut net = Vec::with_capacity(n);
    let first = b * bsize;
    let last = ((b + 1) * bsize).min(cfg.hands);
    for k in first..last {
        let s = slot(k, n, cfg.duplicate);
        let t = table.with_button(Seat(s.button as u8));
        let players = &mut lane_players[if cfg.duplicate { s.rotation } else { 0 }];
        players.rotate_right(s.rotation);
        referee.play(&t, Deck::with_key(&key, s.deal), k, players);
        players.rotate_left(s.rotation);
        let hand = referee.hand();
        net.clear();
        net.extend(hand.net());
        rec.record(k, hand.events(), &net, &referee.faults);
    }
    for p in lane_players.iter_mut().flatten() {
        p.finish();
    }
    rec.block(b)
}

/// The `match_start` every player gets.
pub(crate) fn match_start(cfg: &MatchConfig, table: &Table) -> MatchStart {
    MatchStart {
        game: convert::game_info(&table.game().clone()),
        hands: cfg.hands,
        decision_ms: 0,
        bank_ms: 0,
    }
}

/// The records of one block, hand after hand in hand order.
pub(crate) struct Recorder<'a> {
    cfg: &'a MatchConfig,
    pub(crate) stats: MatchStats,
    hands_csv: Vec<u8>,
    phhs: Vec<u8>,
    names_by_seat: Vec<String>,
    /// The bots' names as `hands.csv` fields (escaped once: no formula, quoted if need be).
    csv_names: Vec<String>,
    stacks: Vec<u64>,
    game: pitboss_rules::Game,
    unit_net: Vec<i64>,
    luck: Option<Luck>,
}

/// The luck adjustment's state in a block: the adjuster, and the adjusted results (milli-chips)
/// per bot for the current unit.
struct Luck {
    hands: pitboss_luck::HandAdjuster,
    unit_adj: Vec<i64>,
}

impl<'a> Recorder<'a> {
    pub(crate) fn new(cfg: &'a MatchConfig, table: &Table) -> Recorder<'a> {
        let n = cfg.bots.len();
        Recorder {
            cfg,
            stats: MatchStats::new(n),
            hands_csv: Vec::new(),
            phhs: Vec::new(),
            names_by_seat: vec![String::new(); n],
            csv_names: (0..n)
                .map(|i| crate::name::csv_field(cfg.name(i)).into_owned())
                .collect(),
            stacks: (0..n).map(|s| table.stack(Seat(s as u8))).collect(),
            game: *table.game(),
            unit_net: vec![0i64; n],
            luck: (cfg.luck_adjust == Some(true)).then(|| Luck {
                hands: pitboss_luck::HandAdjuster::new(
                    pitboss_luck::Adjuster::new(table.game(), cfg.luck_model()),
                    cfg.deck_key().side_seed(),
                    n,
                ),
                unit_adj: vec![0; n],
            }),
        }
    }

    /// Records hand `k` of the match: its events, every seat's net and the faults.
    pub(crate) fn record(
        &mut self,
        k: u64,
        events: &[Event],
        net: &[(Seat, i64)],
        faults: &[crate::referee::SeatFault],
    ) {
        let cfg = self.cfg;
        let n = cfg.bots.len();
        let s = slot(k, n, cfg.duplicate);
        if cfg.history {
            for (seat, name) in self.names_by_seat.iter_mut().enumerate() {
                name.clear();
                name.push_str(cfg.name((seat + n - s.rotation) % n));
            }
            let rec = pitboss_phh::HandRecord {
                game: &self.game,
                stacks: &self.stacks,
                button: s.button,
                events,
                names: Some(&self.names_by_seat),
                hand: Some(k as i64 + 1),
            };
            let _ = write!(
                self.phhs,
                "[{}]\n{}\n",
                k + 1,
                pitboss_phh::to_toml(&pitboss_phh::phh_from_events(&rec))
            );
        }
        let showdown = events
            .iter()
            .any(|e| matches!(e, Event::Show { .. } | Event::Muck { .. }));
        if let Some(l) = self.luck.as_mut() {
            l.hands.hand(s.deal, events, net);
        }
        for &(seat, net) in net {
            let bot = (seat.index() + n - s.rotation) % n;
            self.stats.bots[bot].add_hand(seat, events, net);
            self.unit_net[bot] += net;
            if let Some(l) = self.luck.as_mut() {
                let m = l.hands.last()[seat.index()];
                self.stats.bots[bot].add_adjusted(m);
                l.unit_adj[bot] += m;
            }
            if cfg.history {
                let faults: Vec<&str> = faults
                    .iter()
                    .filter(|f| f.seat == seat)
                    .map(|f| f.kind.name())
                    .collect();
                let _ = write!(
                    self.hands_csv,
                    "{k},{},{},{},{},{},{net},{},{},",
                    s.deal,
                    s.rotation,
                    s.button + 1,
                    seat.index() + 1,
                    self.csv_names[bot],
                    u8::from(showdown),
                    faults.join(";")
                );
                if let Some(l) = &self.luck {
                    let m = l.hands.last()[seat.index()];
                    let sign = if m < 0 { "-" } else { "" };
                    let _ = write!(
                        self.hands_csv,
                        "{sign}{}.{:03}",
                        m.abs() / 1000,
                        m.abs() % 1000
                    );
                }
                self.hands_csv.push(b'\n');
            }
        }
        for f in faults {
            let bot = (f.seat.index() + n - s.rotation) % n;
            self.stats.bots[bot].add_fault(f.kind);
        }
        let unit_done = !cfg.duplicate || s.rotation == n - 1;
        if unit_done {
            for (bot, v) in self.unit_net.iter_mut().enumerate() {
                self.stats.bots[bot].add_unit(*v);
                *v = 0;
            }
            if let Some(l) = self.luck.as_mut() {
                for (bot, v) in l.unit_adj.iter_mut().enumerate() {
                    self.stats.bots[bot].add_adjusted_unit(*v);
                    *v = 0;
                }
            }
        }
    }

    pub(crate) fn block(self, index: u64) -> Block {
        Block {
            index,
            stats: self.stats,
            hands_csv: self.hands_csv,
            phhs: self.phhs,
        }
    }
}

/// The players of `n` bots for each of `lanes` lanes (a seat whose bot cannot start forfeits).
pub(crate) fn players_by_lane(
    factory: &dyn BotFactory,
    n: usize,
    lanes: usize,
    seed: impl Fn(usize, usize) -> u64,
) -> Vec<Vec<Box<dyn Player>>> {
    (0..lanes)
        .map(|lane| {
            (0..n)
                .map(|i| {
                    factory
                        .create(i, seed(lane, i), lane)
                        .unwrap_or_else(|f| Box::new(Forfeited(f)))
                })
                .collect()
        })
        .collect()
}

/// A seat whose bot could not be started: every decision is a forfeit fault.
pub struct Forfeited(pub Fault);

impl Player for Forfeited {
    fn match_start(&mut self, _m: &MatchStart) -> Result<(), Fault> {
        Err(self.0.clone())
    }
    fn hand_start(&mut self, _h: &pitboss_protocol::HandStart) -> Result<(), Fault> {
        Ok(())
    }
    fn act(
        &mut self,
        _r: &pitboss_protocol::ActRequest,
    ) -> Result<pitboss_protocol::Action, Fault> {
        Err(Fault::new(
            pitboss_protocol::FaultKind::Forfeit,
            self.0.detail.clone(),
        ))
    }
    fn hand_end(&mut self, _h: &pitboss_protocol::HandEnd) -> Result<(), Fault> {
        Ok(())
    }
    fn forfeited(&self) -> bool {
        true
    }
}
