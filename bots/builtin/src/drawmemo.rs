//! A memo of triple-draw keep equities shared by every `equity`/`adaptive` bot in the process.
//!
//! Why: a best keep compares about six keeps by Monte Carlo, a few hundred samples each — far too
//! slow to repeat at every decision of millions of hands. In deuce-to-seven a keep's worth depends
//! almost only on its ranks, the draws left and what the opponents drew, so the equity is computed
//! once per such key on a canonical hand (kept ranks in rotating suits, thrown cards as the highest
//! free ranks) and remembered. The sampler's seed is a hash of the key, so a value is a pure
//! function of its key: which thread computes it first, and in which order, changes nothing.
//!
//! Each thread keeps its own copy of the values it has used in front of the shared memo: a read
//! lock is an atomic write to one cache line, and with two referee threads every lookup moved
//! that line between cores (a match of `equity` against `adaptive` took 60% more CPU a hand
//! with two threads than with one, nearly all of it in the lock).

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{LazyLock, RwLock};

use pitboss_cards::{Card, CardSet, Rank, Suit};
use pitboss_equity::draw::{self, DrawOpponent, DrawSpot};
use pitboss_equity::Config;

/// Samples per key (a one-off cost per key per process).
const SAMPLES: u32 = 1000;
/// Entries kept at most; past it values are computed but not stored.
const CAP: usize = 1 << 21;

/// Kept ranks (sorted, 15 = none), whether a five-card keep is a flush, this seat's draws left,
/// and each opponent's (latest draw, 6 = none; draws left; bar of its model, 15 = default), sorted.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Key {
    kept: [u8; 5],
    flush: bool,
    left: u8,
    opps: [(u8, u8, u8); 7],
}

/// FNV-1a over a key's bytes: the keys are the process's own, not an adversary's, and SipHash
/// was a tenth of a lookup.
#[derive(Default)]
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

type Map = HashMap<Key, f64, BuildHasherDefault<Fnv>>;

static MEMO: LazyLock<RwLock<Map>> = LazyLock::new(|| RwLock::new(Map::default()));

thread_local! {
    /// This thread's copy of what it has looked up (see the module's documentation).
    static LOCAL: RefCell<Map> = RefCell::new(Map::default());
}

/// Remembers `v` for `k` in this thread's copy, within the cap.
fn keep_local(k: Key, v: f64) {
    LOCAL.with_borrow_mut(|m| {
        if m.len() < CAP {
            m.insert(k, v);
        }
    });
}

fn key(keep: CardSet, left: u8, opps: &[DrawOpponent]) -> Key {
    let mut kept = [15u8; 5];
    for (slot, c) in kept.iter_mut().zip(keep.iter()) {
        *slot = c.rank().index();
    }
    kept.sort_unstable();
    let b = keep.bits();
    let flush = keep.len() == 5 && (0..4).any(|s| (b >> (16 * s) & 0x1fff).count_ones() == 5);
    let mut o = [(15u8, 15u8, 15u8); 7];
    for (slot, d) in o.iter_mut().zip(opps) {
        *slot = (d.drew.unwrap_or(6), d.draws_left, d.bar.unwrap_or(15));
    }
    o.sort_unstable();
    Key {
        kept,
        flush,
        left,
        opps: o,
    }
}

/// The canonical hand of a key: kept ranks in rotating suits (all clubs for a flush), the thrown
/// cards the highest ranks the keep does not hold.
fn canonical(k: &Key) -> (CardSet, CardSet) {
    let mut hand = CardSet::EMPTY;
    let mut keep = CardSet::EMPTY;
    let mut used = 0u16;
    let mut suit = 0u8;
    for &r in k.kept.iter().filter(|&&r| r < 13) {
        let mut s = if k.flush { 0 } else { suit };
        // A pair in the keep (only a pat hand can hold one) needs another suit.
        while hand.contains(Card::new(Rank::from_index(r), Suit::from_index(s))) {
            s = (s + 1) % 4;
        }
        let c = Card::new(Rank::from_index(r), Suit::from_index(s));
        hand.insert(c);
        keep.insert(c);
        used |= 1 << r;
        suit = (suit + 1) % 4;
    }
    let mut r = 12u8;
    while hand.len() < 5 {
        if used & 1 << r == 0 {
            hand.insert(Card::new(Rank::from_index(r), Suit::from_index(suit)));
            suit = (suit + 1) % 4;
        }
        r = r.saturating_sub(1);
    }
    (hand, keep)
}

fn hash(k: &Key) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |b: u8| {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    };
    k.kept.iter().for_each(|&b| eat(b));
    eat(u8::from(k.flush));
    eat(k.left);
    for &(a, b, bar) in &k.opps {
        eat(a);
        eat(b);
        // Only a narrowed model adds to the hash (the default keys keep their seeds).
        if bar != 15 {
            eat(bar);
        }
    }
    h
}

/// The equity of keeping `keep` with `left` draws to come against `opps`; `None` when the engine
/// refuses the query.
pub fn keep_equity(keep: CardSet, left: u8, opps: &[DrawOpponent], afs: bool) -> Option<f64> {
    let k = key(keep, left, opps);
    if !afs {
        if let Some(v) = LOCAL.with_borrow(|m| m.get(&k).copied()) {
            return Some(v);
        }
        if let Some(v) = MEMO.read().ok().and_then(|m| m.get(&k).copied()) {
            keep_local(k, v);
            return Some(v);
        }
    }
    let (hand, keep) = canonical(&k);
    let spot = DrawSpot {
        hand,
        draws_left: left,
        opponents: opps.to_vec(),
        dead: CardSet::EMPTY,
        ace_five_straight: afs,
    };
    let cfg = Config {
        samples: SAMPLES,
        exact_limit: 0,
        seed: hash(&k),
    };
    let keep = if left == 0 { hand } else { keep };
    let v = draw::equity(&spot, keep, &cfg).ok()?.share;
    if !afs {
        if let Ok(mut m) = MEMO.write() {
            if m.len() < CAP {
                m.insert(k, v);
            }
        }
        keep_local(k, v);
    }
    Some(v)
}
