//! The plan of a tournament: its resolved settings and the list of work units, written first as
//! `plan.json` so that a resumed, sharded or merged run can prove it is the same tournament.
//!
//! A work unit is (game, table, batch of duplicate deals). Deal `d` of game `g` uses the same deck
//! at every table (common card sequences), and a unit's seeds depend only on the game, the names
//! at the table and the batch — not on the rest of the field — so a unit result stays valid when
//! bots are added (the registry's gauntlet relies on this).
//!
//! `plan.json` carries a SHA-256 checksum of its content, so an edited plan (a changed seed, say)
//! is refused instead of silently changing the deals of a resumed run; unit files carry the hash of
//! the plan's settings (see [`Plan::settings_hash`]) and their own checksum.

use pitboss_cards::{DeckKey, Salt};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::config::{Format, TournamentConfig};
use pitboss_arena::runner::derive_seed;

/// One unit of work.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitSpec {
    /// `<game>~<bot>~<bot>...~<batch>`; also the file name `units/<id>.json`.
    pub id: String,
    pub game: String,
    /// Bot names in table order (the first is the pairing's subject for SPRT).
    pub bots: Vec<String>,
    pub batch: u64,
    pub first_deal: u64,
    pub deals: u64,
}

/// A table of one game: the bots (indices into the config's list) that meet there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableSpec {
    pub game: usize,
    pub bots: Vec<usize>,
}

/// Format version of `plan.json` and the unit files (2: checksums and the settings hash).
pub const PLAN_VERSION: u32 = 2;

/// SHA-256 of `bytes` in lowercase hexadecimal.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The plan: settings and units in canonical order (batch-major, so that early batches of every
/// table come first and SPRT can stop pairings early).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub version: u32,
    pub config: TournamentConfig,
    pub units: Vec<UnitSpec>,
    /// SHA-256 of the rest of the plan ([`Plan::content_hash`]).
    #[serde(default)]
    pub checksum: String,
}

/// FNV-1a of a string, to turn names into seeds.
pub fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The deal seed of a game.
pub fn game_seed(seed: u64, game: &str) -> u64 {
    derive_seed(seed, fnv(game), 0x6761_6d65)
}

/// The deck key of `game`: deal `d` is `Deck::with_key(&key, d)` at every table. Salted when the
/// tournament has a salt.
pub fn game_key(seed: u64, salt: Option<&Salt>, game: &str) -> DeckKey {
    DeckKey::new(game_seed(seed, game), salt)
}

/// The seed of the bot at `position` of a table for one batch.
pub fn bot_seed(seed: u64, game: &str, bots: &[String], batch: u64, position: usize) -> u64 {
    let table = derive_seed(game_seed(seed, game), fnv(&bots.join("\u{0}")), 1);
    derive_seed(table, batch, position as u64)
}

/// The tables of the tournament, per game in the config's game order.
pub fn tables(cfg: &TournamentConfig) -> Vec<TableSpec> {
    let n = cfg.bots.len();
    let k = cfg.table_size;
    let sets: Vec<Vec<usize>> = match (cfg.format, cfg.tables) {
        (Format::Ring, Some(count)) => balanced_tables(n, k, count, cfg.seed),
        _ => subsets(n, k),
    };
    (0..cfg.games.len())
        .flat_map(|g| {
            sets.iter().map(move |s| TableSpec {
                game: g,
                bots: s.clone(),
            })
        })
        .collect()
}

/// Every `k`-subset of `0..n` in lexicographic order.
fn subsets(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut cur: Vec<usize> = (0..k).collect();
    if k > n {
        return out;
    }
    loop {
        out.push(cur.clone());
        let Some(i) = (0..k).rev().find(|&i| cur[i] < n - k + i) else {
            return out;
        };
        cur[i] += 1;
        for j in i + 1..k {
            cur[j] = cur[j - 1] + 1;
        }
    }
}

/// `count` random tables where every bot sits about equally often (counts differ by at most one):
/// each table takes the `k` bots that have played least, ties broken by a seeded random key.
fn balanced_tables(n: usize, k: usize, count: usize, seed: u64) -> Vec<Vec<usize>> {
    let mut played = vec![0u64; n];
    (0..count)
        .map(|t| {
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by_key(|&b| (played[b], derive_seed(seed, t as u64, b as u64)));
            let mut table: Vec<usize> = order[..k].to_vec();
            table.sort_unstable();
            for &b in &table {
                played[b] += 1;
            }
            table
        })
        .collect()
}

impl Plan {
    /// The plan of a validated config.
    pub fn new(cfg: &TournamentConfig) -> Plan {
        let tables = tables(cfg);
        let batches = cfg.deals.div_ceil(cfg.batch);
        let mut units = Vec::new();
        for b in 0..batches {
            for t in &tables {
                let game = &cfg.games[t.game];
                let bots: Vec<String> = t.bots.iter().map(|&i| cfg.bots[i].name.clone()).collect();
                let first_deal = b * cfg.batch;
                units.push(UnitSpec {
                    id: format!("{game}~{}~{b:05}", bots.join("~")),
                    game: game.clone(),
                    bots,
                    batch: b,
                    first_deal,
                    deals: cfg.batch.min(cfg.deals - first_deal),
                });
            }
        }
        let mut plan = Plan {
            version: PLAN_VERSION,
            config: cfg.clone(),
            units,
            checksum: String::new(),
        };
        plan.checksum = plan.content_hash();
        plan
    }

    /// SHA-256 of the version, settings and units (everything but the checksum).
    pub fn content_hash(&self) -> String {
        let v = serde_json::json!([self.version, &self.config, &self.units]);
        sha256_hex(&serde_json::to_vec(&v).expect("serializes"))
    }

    /// SHA-256 of the version and the settings without the field of bots: what a unit result
    /// depends on besides its own spec. Unit files carry it, so a unit of another tournament (or
    /// of this one before `plan.json` was edited) is refused; the registry's gauntlet, which adds
    /// bots to the field, keeps it.
    pub fn settings_hash(&self) -> String {
        let mut c = serde_json::to_value(&self.config).expect("serializes");
        c.as_object_mut().map(|o| o.remove("bots"));
        let v = serde_json::json!([self.version, c]);
        sha256_hex(&serde_json::to_vec(&v).expect("serializes"))
    }

    /// Why the plan cannot be trusted, if it cannot: another format version, a luck model this
    /// version does not know, or a checksum that does not match the content.
    pub fn problem(&self) -> Option<String> {
        if self.version != PLAN_VERSION {
            return Some(format!(
                "format version {} (this pitboss reads {PLAN_VERSION}); rerun the tournament in a new folder",
                self.version
            ));
        }
        if let Some(m) = &self.config.luck_model {
            if pitboss_luck::Model::by_name(Some(m), pitboss_rules::Variant::StudHiLo).is_none() {
                return Some(format!(
                    "its luck model \"{m}\" is unknown to this pitboss (it knows \"{}\"); use \
                     the pitboss that made it",
                    pitboss_luck::MODEL_NAME
                ));
            }
        }
        (self.checksum != self.content_hash()).then(|| {
            "its checksum does not match its content: the file was edited (a changed seed, salt, \
             setting or unit list would change the deals); restore it, or start a new folder"
                .to_string()
        })
    }

    /// The tables, in the order of the plan.
    pub fn tables(&self) -> Vec<TableSpec> {
        tables(&self.config)
    }

    /// Batches per table.
    pub fn batches(&self) -> u64 {
        self.config.deals.div_ceil(self.config.batch)
    }

    /// The unit of table `t` (index into [`Plan::tables`]) and batch `b`.
    pub fn unit(&self, t: usize, b: u64) -> &UnitSpec {
        let per_batch = self.units.len() / self.batches() as usize;
        &self.units[b as usize * per_batch + t]
    }

    /// The first difference between two plans' settings, in words, if any.
    pub fn difference(&self, other: &Plan) -> Option<String> {
        let a = serde_json::to_value(&self.config).expect("serializes");
        let b = serde_json::to_value(&other.config).expect("serializes");
        if let (Some(a), Some(b)) = (a.as_object(), b.as_object()) {
            for (k, va) in a {
                let vb = b.get(k);
                if Some(va) != vb {
                    return Some(format!(
                        "{k}: {} here, {} there",
                        va,
                        vb.map_or("nothing".to_string(), ToString::to_string)
                    ));
                }
            }
        }
        if self.version != other.version {
            return Some(format!(
                "plan version {} vs {}",
                self.version, other.version
            ));
        }
        (self.units != other.units).then(|| "the unit lists differ".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subsets_are_lexicographic_and_complete() {
        assert_eq!(
            subsets(4, 2),
            vec![
                vec![0, 1],
                vec![0, 2],
                vec![0, 3],
                vec![1, 2],
                vec![1, 3],
                vec![2, 3]
            ]
        );
        assert_eq!(subsets(5, 3).len(), 10);
    }

    #[test]
    fn balanced_tables_are_balanced() {
        let t = balanced_tables(7, 3, 14, 5);
        let mut count = [0; 7];
        for table in &t {
            assert_eq!(table.len(), 3);
            for &b in table {
                count[b] += 1;
            }
        }
        assert_eq!(count, [6; 7]);
        assert_ne!(t, balanced_tables(7, 3, 14, 6));
    }
}
