//! Hand histories of a tournament (`pitboss tournament --history`): the PHH records of the first
//! hands of each pairing, one file per table, `hands/<game>~<bot>~<bot>.phhs`, beside `units/`.
//!
//! Why only the first hands, and only of a pairing's first work unit: a tournament plays millions
//! of hands, and their histories (200–500 bytes a hand) would weigh more than everything else in
//! the folder; a sample is what a person opens to see how a bot plays. Keeping them to batch 0
//! means the file is written by the one unit that plays them, in the folder (or shard folder) that
//! played it, whole or not at all, and a resumed run never appends to it.
//!
//! Hand `k` of a pairing (deal `k / n`, seat rotation `k % n`, counted from 0) is written as
//! `[k+1]` with `hand = k+1`: the `N`-th hand of the file is hand `N`, the number
//! `pitboss phh show FILE --hand N` takes.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use pitboss_rules::{Event, Game};

use super::plan::{Plan, UnitSpec};
use super::TournamentError;

/// How many hands of each pairing `--history` keeps unless told (about 200 KB a pairing: 400–500
/// bytes a hand in the fixed-limit games).
pub const DEFAULT_HANDS: u64 = 500;

/// The folder of the history files in a tournament folder.
pub const FOLDER: &str = "hands";

/// A table's name without its batch: `<game>~<bot>~<bot>...` (a unit id is this and `~<batch>`).
pub fn table_id(u: &UnitSpec) -> String {
    format!("{}~{}", u.game, u.bots.join("~"))
}

/// The history file of the table of unit `u` in tournament folder `dir`.
pub fn path(dir: &Path, u: &UnitSpec) -> PathBuf {
    dir.join(FOLDER).join(format!("{}.phhs", table_id(u)))
}

/// The link to the history file of the table of `u`, relative to the tournament folder, with
/// every byte but `A-Z a-z 0-9 . _ ~ + -` percent-encoded (a plan edited by hand may name a bot
/// anything; valid names pass unchanged).
pub fn href(u: &UnitSpec) -> String {
    let mut s = format!("{FOLDER}/");
    for b in format!("{}.phhs", table_id(u)).bytes() {
        if b.is_ascii_alphanumeric() || b"._~+-".contains(&b) {
            s.push(b as char);
        } else {
            let _ = write!(s, "%{b:02X}");
        }
    }
    s
}

/// The units of `plan` whose tables may have a history file: each table's first unit (batch 0),
/// in table order.
pub fn first_units(plan: &Plan) -> impl Iterator<Item = &UnitSpec> {
    plan.units.iter().filter(|u| u.batch == 0)
}

/// Copies the history files that the folders `dirs` (one tournament folder, or its shard
/// folders) hold into `out/hands/`, so that the report written into `out` links to files beside
/// it. Returns how many tables have a history in `out`.
///
/// # Errors
/// I/O errors naming the file.
pub fn gather(dirs: &[PathBuf], plan: &Plan, out: &Path) -> Result<usize, TournamentError> {
    let mut found = 0;
    for u in first_units(plan) {
        let to = path(out, u);
        let from = dirs.iter().map(|d| path(d, u)).find(|p| p.is_file());
        let Some(from) = from else { continue };
        let same = match (from.canonicalize(), to.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        if !same {
            let folder = out.join(FOLDER);
            std::fs::create_dir_all(&folder).map_err(TournamentError::io(&folder))?;
            let bytes = std::fs::read(&from).map_err(TournamentError::io(&from))?;
            pitboss_arena::output::write_atomic(&to, &bytes).map_err(TournamentError::io(&to))?;
        }
        found += 1;
    }
    Ok(found)
}

/// The PHH records of the hands of one unit (or one seat rotation of it) that are kept: hand `k`
/// with `k < keep`. Records are kept with their hand number so that the rotations of a unit played
/// in phases are put back in hand order ([`Recorder::merge`]).
pub(crate) struct Recorder {
    keep: u64,
    game: Game,
    stacks: Vec<u64>,
    /// The bots' names in table order.
    bots: Vec<String>,
    names_by_seat: Vec<String>,
    hands: Vec<(u64, String)>,
}

impl Recorder {
    pub(crate) fn new(keep: u64, game: Game, stacks: Vec<u64>, bots: Vec<String>) -> Recorder {
        Recorder {
            keep,
            game,
            stacks,
            names_by_seat: vec![String::new(); bots.len()],
            bots,
            hands: Vec::new(),
        }
    }

    /// Hand `k` of the pairing, played in seat rotation `rotation` with the button at `button`.
    pub(crate) fn hand(&mut self, k: u64, rotation: usize, button: usize, events: &[Event]) {
        if k >= self.keep {
            return;
        }
        let n = self.bots.len();
        for (seat, name) in self.names_by_seat.iter_mut().enumerate() {
            name.clone_from(&self.bots[(seat + n - rotation) % n]);
        }
        let rec = pitboss_phh::HandRecord {
            game: &self.game,
            stacks: &self.stacks,
            button,
            events,
            names: Some(&self.names_by_seat),
            hand: Some(k as i64 + 1),
        };
        let text = format!(
            "[{}]\n{}\n",
            k + 1,
            pitboss_phh::to_toml(&pitboss_phh::phh_from_events(&rec))
        );
        self.hands.push((k, text));
    }

    /// The records of several rotations of one unit, together.
    pub(crate) fn merge(parts: impl Iterator<Item = Recorder>) -> Vec<(u64, String)> {
        parts.flat_map(|r| r.hands).collect()
    }

    pub(crate) fn into_hands(self) -> Vec<(u64, String)> {
        self.hands
    }
}

/// The file's bytes: the records in hand order.
pub(crate) fn bytes(mut hands: Vec<(u64, String)>) -> Vec<u8> {
    hands.sort_by_key(|h| h.0);
    hands.into_iter().flat_map(|h| h.1.into_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(bots: &[&str]) -> UnitSpec {
        UnitSpec {
            id: String::new(),
            game: "27td-fl".into(),
            bots: bots.iter().map(|s| s.to_string()).collect(),
            batch: 0,
            first_deal: 0,
            deals: 1,
        }
    }

    #[test]
    fn links_are_percent_encoded() {
        assert_eq!(href(&spec(&["a.1", "b+2"])), "hands/27td-fl~a.1~b+2.phhs");
        assert_eq!(
            href(&spec(&["x\"><script>", "y z"])),
            "hands/27td-fl~x%22%3E%3Cscript%3E~y%20z.phhs"
        );
    }
}
