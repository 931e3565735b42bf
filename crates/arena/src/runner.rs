//! Matches: hands scheduled over seat rotations (and duplicate deals), played in fixed-size blocks
//! by worker threads, merged in block order. A block's bots come fresh from the factory with seeds
//! derived from the match seed (per block and seat rotation), so the same seed gives the same
//! hands and the same files for any number of threads.
//!
//! **Duplicate matches with bots that run as processes are played in phases.** Deal `d` is played
//! in every seat rotation, each by other processes of the same bot; were they alive at the same
//! time, the process that saw `d` from one seat could pass the cards to the one about to play it
//! from another through any channel two processes on one machine share (the jail closes those it
//! can; CPU time, caches and memory pressure cannot be closed). So the blocks are taken in chunks
//! (up to [`CHUNK_HANDS`] hands, fewer with `history`, whose records wait in memory), and a chunk
//! is played rotation by rotation: every worker plays blocks of the chunk in rotation 0, each
//! with processes of that phase only (the factory's *lane* of the phase); when the last block of
//! the phase is done, every process of the phase is ended ([`BotFactory::end_lane`]: none goes
//! back to a pool) and only then does rotation 1 begin ([`crate::phases`]). A block's rotations
//! are recorded apart, hand by hand, and put back into hand order when the last one is in, so the
//! files are byte-identical to those of the same match played block by block: bots are seeded
//! per block and rotation and see the same hands in the same order either way, the statistics are
//! integer sums, and the luck adjustment is seeded per deal. (With processes that play `K` tables
//! at once, protocol 1.1, table `j` of a phase plays the `j`-th, `j + K`-th, … hand of the block's
//! rotation: in-process opponents that draw random numbers then make other choices than at the
//! tables of a block played whole — as with another `K`; for a seed and a `K` the files are the
//! same for any number of threads.) In-process bots have no processes and are played block by
//! block. Progress is reported after every block or rotation of a block, with the hands played so
//! far.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use pitboss_cards::{Deck, DeckKey};
use pitboss_protocol::{FaultKind, MatchStart};
use pitboss_rules::{Event, Seat, Table};

use crate::config::MatchConfig;
use crate::convert;
use crate::output::{write_atomic_in, AtomicFile};
use crate::phases::{Job, Scheduler};
use crate::player::{Fault, Player};
use crate::referee::Referee;
use crate::stats::MatchStats;
use crate::summary::{self, SummaryRow};

/// Creates the players of one table.
pub trait BotFactory: Sync {
    /// Bot `index` of the match's list, for one block of hands, seeded with `seed`, for `lane`:
    /// in duplicate matches each phase (a chunk of deals in one seat rotation) is a lane of its
    /// own, and a factory must never let one instance (one process) play in two lanes — it would
    /// see both sides of a deal.
    ///
    /// # Errors
    /// A [`Fault`] when the bot cannot be started (the caller records it and the seat forfeits).
    fn create(&self, index: usize, seed: u64, lane: usize) -> Result<Box<dyn Player>, Fault>;

    /// Hands (tables) one process of bot `index` plays at once (protocol 1.1); `usize::MAX` for
    /// an in-process bot, which is created per table.
    fn concurrency(&self, _index: usize) -> usize {
        usize::MAX
    }

    /// Whether some bot runs as processes that outlive a block (then a duplicate match is played
    /// in phases: see the module docs).
    fn has_processes(&self) -> bool {
        false
    }

    /// The phase of `lane` is over: every process of that lane is ended now, and a player of the
    /// lane that finishes later must end its process instead of keeping it for another block.
    fn end_lane(&self, _lane: usize) {}

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
    /// With [`MatchConfig::tape`]: the action tape of every hand, uncompressed ([`crate::tape`]).
    pub tape: Option<Vec<u8>>,
    /// Per bot, its first [`ILLEGAL_NOTES`] illegal actions in hand order, each with the hand,
    /// the seat and the rules' reason (`hand 3, seat 1: illegal: ...`): the referee judges them,
    /// so no report of the bot's process has them, and a bot author needs the reason, not a count.
    pub illegal: Vec<Vec<String>>,
}

/// How many illegal actions of each bot a match keeps the reasons of ([`MatchResult::illegal`]).
pub const ILLEGAL_NOTES: usize = 3;

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

/// A block's records in hand order, ready to be written.
struct Block {
    index: u64,
    /// The block's statistics; for a block put together from its rotations, only the duplicate
    /// units (the rest was added as each rotation came in).
    stats: MatchStats,
    hands_csv: Vec<u8>,
    phhs: Vec<u8>,
    tape: Vec<u8>,
    notes: Vec<Note>,
}

/// An illegal action: hand (0-based), bot, the line for people.
type Note = (u64, usize, String);

/// What a worker played: a whole block, or one seat rotation of a block of a duplicate match.
pub(crate) struct Part {
    block: u64,
    rotation: Option<usize>,
    hands: u64,
    stats: MatchStats,
    hands_csv: Vec<u8>,
    phhs: Vec<u8>,
    tape: Vec<u8>,
    notes: Vec<Note>,
    /// One rotation: where each hand's records end and each hand's result per bot.
    split: Option<Split>,
}

/// The records of one rotation of a block, hand by hand, to be put back into hand order.
#[derive(Default)]
struct Split {
    /// With `history`.
    csv_ends: Vec<usize>,
    phh_ends: Vec<usize>,
    /// With `tape`.
    tape_ends: Vec<usize>,
    /// `n` per hand: each bot's net, and its luck-adjusted result (milli-chips) when adjusted.
    nets: Vec<i64>,
    adjs: Vec<i64>,
}

/// A block, or one seat rotation of it, and the lane of the phase that plays it.
#[derive(Clone, Copy)]
struct Item {
    block: u64,
    rotation: Option<usize>,
    lane: usize,
}

/// The most hands of a chunk of a duplicate match played in phases (see the module docs): fewer
/// chunks mean fewer process starts (one per worker, bot and phase); the memory a chunk holds is
/// each hand's result per bot, 8 bytes a bot (16 with the luck adjustment).
pub const CHUNK_HANDS: u64 = 1 << 20;

/// With `history`, the hand records a chunk may hold in memory while its later rotations are
/// played (estimated from [`HISTORY_BYTES_PER_SEAT`]).
pub const CHUNK_HISTORY_BYTES: u64 = 128 << 20;

/// Bytes of `hands.csv` and PHH text a hand takes per seat, at most about (measured: 160–250 with
/// `random` players, 390 with two `rust-example` bots in triple draw, whose hands are long).
const HISTORY_BYTES_PER_SEAT: u64 = 512;

/// Blocks per chunk of a duplicate match played in phases.
fn chunk_blocks(cfg: &MatchConfig, bsize: u64) -> u64 {
    let n = cfg.bots.len() as u64;
    let hands = if cfg.history {
        CHUNK_HANDS.min(CHUNK_HISTORY_BYTES / (HISTORY_BYTES_PER_SEAT * n))
    } else {
        CHUNK_HANDS
    };
    (hands / bsize).max(1)
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
/// `cfg.out`. `progress` is called after each block (or rotation of a block, see the module docs)
/// with the totals so far and the hands played.
///
/// # Errors
/// [`ArenaError`] when the output cannot be written.
pub fn run_match(
    cfg: &MatchConfig,
    factory: &dyn BotFactory,
    progress: &mut dyn FnMut(&MatchStats, u64),
) -> Result<MatchResult, ArenaError> {
    run_match_in_chunks(cfg, factory, None, progress)
}

/// [`run_match`] with chunks of at most `chunk_hands` hands (rounded to whole blocks) when the
/// match is played in phases (`None`: the default, see [`CHUNK_HANDS`]). The files do not
/// depend on it; it is there for tests of the phases.
///
/// # Errors
/// [`ArenaError`] when the output cannot be written.
pub fn run_match_in_chunks(
    cfg: &MatchConfig,
    factory: &dyn BotFactory,
    chunk_hands: Option<u64>,
    progress: &mut dyn FnMut(&MatchStats, u64),
) -> Result<MatchResult, ArenaError> {
    let start = Instant::now();
    std::fs::create_dir_all(&cfg.out).map_err(io(&cfg.out))?;
    let config_path = cfg.out.join("config.toml");
    let text = toml::to_string(cfg).expect("a config serializes");
    // It holds the deck salt: the owner's alone.
    crate::output::write_secret_in(&config_path, text.as_bytes(), cfg.scratch)
        .map_err(io(&config_path))?;
    let n = cfg.bots.len();
    let table = cfg.table_setup().validate().expect("validated config");
    let bsize = block_size(n);
    let blocks = cfg.hands.div_ceil(bsize);
    let phased = cfg.duplicate && factory.has_processes();
    let sched = if phased {
        // Chunk `c`, rotation `r` is the phase of lane `c · n + r`; every phase holds id 0 (all
        // bots sit at the one table), so phases follow one another.
        let chunk = chunk_hands.map_or_else(|| chunk_blocks(cfg, bsize), |h| (h / bsize).max(1));
        Scheduler::new((0..blocks.div_ceil(chunk)).flat_map(move |c| {
            let blocks = c * chunk..((c + 1) * chunk).min(blocks);
            (0..n).map(move |r| Job {
                items: blocks
                    .clone()
                    .map(|block| Item {
                        block,
                        rotation: Some(r),
                        lane: c as usize * n + r,
                    })
                    .collect(),
                holds: vec![0],
            })
        }))
    } else {
        Scheduler::new((0..blocks).map(|block| Job {
            items: vec![Item {
                block,
                rotation: None,
                lane: 0,
            }],
            holds: Vec::new(),
        }))
    };
    let (tx, rx) = mpsc::sync_channel::<Part>(cfg.threads * 2);
    let hands_path = cfg.out.join("hands.csv");
    let phhs_path = cfg.out.join(history_phhs_name(cfg));
    let mut phhs_file = if cfg.history {
        let f = AtomicFile::create(&phhs_path)
            .map_err(io(&phhs_path))?
            .synced_unless(cfg.scratch);
        Some(if cfg.zstd {
            PhhsOut::Zstd(zstd::Encoder::new(f, 3).map_err(io(&phhs_path))?)
        } else {
            PhhsOut::Plain(f)
        })
    } else {
        None
    };
    let mut hands_file = if cfg.history {
        let mut f = AtomicFile::create(&hands_path)
            .map_err(io(&hands_path))?
            .synced_unless(cfg.scratch);
        f.write_all(b"hand,deal,rotation,button,seat,bot,net,showdown,faults,adj_net\n")
            .map_err(io(&hands_path))?;
        Some(f)
    } else {
        None
    };
    let mut total = MatchStats::new(n);
    // Reserved once (a hand takes 20 to 50 bytes): no copy as it grows.
    let mut tape = cfg.tape.then(|| {
        let luck = cfg.luck_adjust == Some(true);
        crate::tape::header(n, luck, cfg.hands, (cfg.hands.min(1 << 22) * 48) as usize)
    });
    let mut done = 0u64;
    let mut illegal: Vec<Vec<String>> = vec![Vec::new(); n];
    let k = crate::multi::tables(factory, n);
    std::thread::scope(|scope| -> Result<(), ArenaError> {
        for _ in 0..cfg
            .threads
            .min((blocks * if phased { n as u64 } else { 1 }) as usize)
            .max(1)
        {
            let tx = tx.clone();
            let sched = &sched;
            scope.spawn(move || {
                let _stop = sched.stop_on_panic();
                while let Some((job, item)) = sched.next() {
                    let part = if k > 1 {
                        crate::multi::play_block(
                            cfg,
                            factory,
                            &table,
                            item.block,
                            bsize,
                            k,
                            item.rotation,
                            item.lane,
                        )
                    } else {
                        play_block(
                            cfg,
                            factory,
                            &table,
                            item.block,
                            bsize,
                            item.rotation,
                            item.lane,
                        )
                    };
                    let sent = tx.send(part);
                    // The last block of a phase ends its processes before the next phase starts.
                    sched.done(job, || {
                        if item.rotation.is_some() {
                            factory.end_lane(item.lane);
                        }
                    });
                    if sent.is_err() {
                        sched.stop();
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut pending = BTreeMap::new();
        let mut rotations: HashMap<u64, Vec<Option<Part>>> = HashMap::new();
        let mut want = 0u64;
        for part in rx {
            done += part.hands;
            let block = match part.split {
                None => Block {
                    index: part.block,
                    stats: part.stats,
                    hands_csv: part.hands_csv,
                    phhs: part.phhs,
                    tape: part.tape,
                    notes: part.notes,
                },
                Some(_) => {
                    // Everything but the duplicate units counts as soon as it is played.
                    total.merge(&part.stats);
                    let b = part.block;
                    let r = part.rotation.expect("a rotation of a block");
                    let slots = rotations
                        .entry(b)
                        .or_insert_with(|| (0..n).map(|_| None).collect());
                    slots[r] = Some(part);
                    if slots.iter().any(Option::is_none) {
                        progress(&total, done);
                        continue;
                    }
                    let parts = rotations.remove(&b).expect("just filled");
                    assemble(cfg, b, parts.into_iter().flatten().collect())
                }
            };
            pending.insert(block.index, block);
            while let Some(block) = pending.remove(&want) {
                total.merge(&block.stats);
                if let Some(f) = hands_file.as_mut() {
                    f.write_all(&block.hands_csv).map_err(io(&hands_path))?;
                }
                if let Some(f) = phhs_file.as_mut() {
                    f.write_all(&block.phhs).map_err(io(&phhs_path))?;
                }
                if let Some(t) = tape.as_mut() {
                    t.extend_from_slice(&block.tape);
                }
                for (_, bot, line) in block.notes {
                    if illegal[bot].len() < ILLEGAL_NOTES {
                        illegal[bot].push(line);
                    }
                }
                want += 1;
            }
            progress(&total, done);
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
    write_atomic_in(&summary_path, &csv_bytes, cfg.scratch).map_err(io(&summary_path))?;
    Ok(MatchResult {
        stats: total,
        rows,
        hands: done,
        elapsed: start.elapsed(),
        tape,
        illegal,
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

/// Plays block `b`: hands `b * bsize ..` with fresh bots; with `rotation`, only the hands of that
/// seat rotation (a phase of a duplicate match), with players of the phase's `lane`.
fn play_block(
    cfg: &MatchConfig,
    factory: &dyn BotFactory,
    table: &Table,
    b: u64,
    bsize: u64,
    rotation: Option<usize>,
    lane: usize,
) -> Part {
    let n = cfg.bots.len();
    let key: DeckKey = cfg.deck_key();
    let mut rec = Recorder::new(cfg, table, rotation.is_some());
    // The seeds of a rotation's players are those it has when the block is played whole.
    let rotations: Vec<usize> = match rotation {
        Some(r) => vec![r],
        None => (0..if cfg.duplicate { n } else { 1 }).collect(),
    };
    let mut lane_players: Vec<Vec<Box<dyn Player>>> = rotations
        .iter()
        .map(|&r| {
            players(factory, n, rotation.map_or(r, |_| lane), |i| {
                derive_seed(cfg.seed, b, (r * n + i) as u64)
            })
        })
        .collect();
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
    // A block starts at a multiple of n², so hand k is in rotation k % n.
    let (from, step) = rotation.map_or((first, 1), |r| (first + r as u64, n as u64));
    for k in (from..last).step_by(step as usize) {
        let s = slot(k, n, cfg.duplicate);
        let t = table.with_button(Seat(s.button as u8));
        let lane = match rotation {
            Some(_) => 0,
            None if cfg.duplicate => s.rotation,
            None => 0,
        };
        let players = &mut lane_players[lane];
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
    rec.part(b, rotation)
}

/// Puts the rotations of block `b` (`parts[r]`: rotation `r`) back into hand order: hand
/// `deal · n + r` of the block is hand `deal` of rotation `r`. The returned block's statistics are
/// only its duplicate units (the rest came with each rotation).
fn assemble(cfg: &MatchConfig, b: u64, parts: Vec<Part>) -> Block {
    let n = cfg.bots.len();
    let luck = cfg.luck_adjust == Some(true);
    let deals = parts[0].hands as usize;
    let mut stats = MatchStats::new(n);
    let mut hands_csv = Vec::with_capacity(parts.iter().map(|p| p.hands_csv.len()).sum());
    let mut phhs = Vec::with_capacity(parts.iter().map(|p| p.phhs.len()).sum());
    let mut tape = Vec::with_capacity(parts.iter().map(|p| p.tape.len()).sum());
    let splits: Vec<&Split> = parts
        .iter()
        .map(|p| p.split.as_ref().expect("a rotation"))
        .collect();
    let mut unit = vec![0i64; n];
    let mut adj = vec![0i64; n];
    for d in 0..deals {
        unit.fill(0);
        adj.fill(0);
        for (p, sp) in parts.iter().zip(&splits) {
            let from = |ends: &[usize]| if d == 0 { 0 } else { ends[d - 1] };
            if cfg.history {
                hands_csv.extend_from_slice(&p.hands_csv[from(&sp.csv_ends)..sp.csv_ends[d]]);
                phhs.extend_from_slice(&p.phhs[from(&sp.phh_ends)..sp.phh_ends[d]]);
            }
            if cfg.tape {
                tape.extend_from_slice(&p.tape[from(&sp.tape_ends)..sp.tape_ends[d]]);
            }
            for bot in 0..n {
                unit[bot] += sp.nets[d * n + bot];
                if luck {
                    adj[bot] += sp.adjs[d * n + bot];
                }
            }
        }
        for (bot, s) in stats.bots.iter_mut().enumerate() {
            s.add_unit(unit[bot]);
            if luck {
                s.add_adjusted_unit(adj[bot]);
            }
        }
    }
    let mut notes: Vec<Note> = parts.into_iter().flat_map(|p| p.notes).collect();
    notes.sort_by_key(|&(k, ..)| k);
    Block {
        index: b,
        stats,
        hands_csv,
        phhs,
        tape,
        notes,
    }
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
    /// With `tape`: the block's hands' action tape ([`crate::tape`]).
    tape: Option<Vec<u8>>,
    names_by_seat: Vec<String>,
    /// The bots' names as `hands.csv` fields (escaped once: no formula, quoted if need be).
    csv_names: Vec<String>,
    stacks: Vec<u64>,
    game: pitboss_rules::Game,
    unit_net: Vec<i64>,
    luck: Option<Luck>,
    /// Recording one seat rotation: each hand's records and results kept apart.
    split: Option<Split>,
    hands: u64,
    /// The block's first illegal actions, at most [`ILLEGAL_NOTES`] a bot.
    notes: Vec<Note>,
}

/// The luck adjustment's state in a block: the adjuster, and the adjusted results (milli-chips)
/// per bot for the current unit.
struct Luck {
    hands: pitboss_luck::HandAdjuster,
    unit_adj: Vec<i64>,
}

impl<'a> Recorder<'a> {
    /// The recorder of a block; `split`: of one seat rotation of a block of a duplicate match,
    /// whose duplicate units are summed when its rotations are put together ([`assemble`]).
    pub(crate) fn new(cfg: &'a MatchConfig, table: &Table, split: bool) -> Recorder<'a> {
        let n = cfg.bots.len();
        Recorder {
            split: split.then(Split::default),
            hands: 0,
            notes: Vec::new(),
            cfg,
            stats: MatchStats::new(n),
            hands_csv: Vec::new(),
            phhs: Vec::new(),
            tape: cfg.tape.then(|| Vec::with_capacity(64 * 1024)),
            names_by_seat: vec![String::new(); n],
            csv_names: (0..n)
                .map(|i| crate::name::csv_field(cfg.name(i)).into_owned())
                .collect(),
            stacks: (0..n).map(|s| table.stack(Seat(s as u8))).collect(),
            game: *table.game(),
            unit_net: vec![0i64; n],
            luck: (cfg.luck_adjust == Some(true)).then(|| Luck {
                hands: pitboss_luck::HandAdjuster::new(
                    pitboss_luck::Adjuster::new(table.game(), cfg.luck_model()).with_stacks(
                        &(0..n)
                            .map(|s| table.stack(Seat(s as u8)))
                            .collect::<Vec<_>>(),
                    ),
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
        let keep = cfg.history && cfg.history_hands.is_none_or(|h| k < h);
        if keep {
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
        if let Some(t) = self.tape.as_mut() {
            let adj = self.luck.as_ref().map(|l| l.hands.last());
            crate::tape::encode_hand(t, events, net, adj);
        }
        for f in faults.iter().filter(|f| f.kind == FaultKind::Illegal) {
            let bot = (f.seat.index() + n - s.rotation) % n;
            if self.notes.iter().filter(|(_, b, _)| *b == bot).count() < ILLEGAL_NOTES {
                self.notes.push((k, bot, f.note(k)));
            }
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
            if keep {
                let faults: Vec<&str> = faults
                    .iter()
                    .filter(|f| f.seat == seat)
                    .map(|f| f.kind.name())
                    .collect();
                // One numbering for people (docs/REFERENCE.md, *Numbering*): hands, deals,
                // the button and seats from 1, as in the hand histories (`[k + 1]`, `seats`);
                // the rotation is a shift (0: bot 1 in seat 1), not an ordinal.
                let _ = write!(
                    self.hands_csv,
                    "{},{},{},{},{},{},{net},{},{},",
                    k + 1,
                    s.deal + 1,
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
        self.hands += 1;
        if let Some(sp) = self.split.as_mut() {
            if cfg.history {
                sp.csv_ends.push(self.hands_csv.len());
                sp.phh_ends.push(self.phhs.len());
            }
            if let Some(t) = &self.tape {
                sp.tape_ends.push(t.len());
            }
            sp.nets.extend_from_slice(&self.unit_net);
            self.unit_net.fill(0);
            if let Some(l) = self.luck.as_mut() {
                sp.adjs.extend_from_slice(&l.unit_adj);
                l.unit_adj.fill(0);
            }
            return;
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

    /// What was recorded: block `block`, or its rotation `rotation`.
    pub(crate) fn part(self, block: u64, rotation: Option<usize>) -> Part {
        Part {
            block,
            rotation,
            hands: self.hands,
            stats: self.stats,
            hands_csv: self.hands_csv,
            phhs: self.phhs,
            tape: self.tape.unwrap_or_default(),
            notes: self.notes,
            split: self.split,
        }
    }
}

/// The players of `n` bots for `lane`, bot `i` seeded with `seed(i)` (a seat whose bot cannot
/// start forfeits).
pub(crate) fn players(
    factory: &dyn BotFactory,
    n: usize,
    lane: usize,
    seed: impl Fn(usize) -> u64,
) -> Vec<Box<dyn Player>> {
    (0..n)
        .map(|i| {
            factory
                .create(i, seed(i), lane)
                .unwrap_or_else(|f| Box::new(Forfeited(f)))
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
