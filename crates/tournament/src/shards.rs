//! Shards: a deterministic slice of the units (unit index % count == index) for one machine, and
//! loading one or more tournament folders (shards of one tournament, or one whole run) with the
//! checks that make a merge safe: same plan everywhere, every shard present exactly once, every
//! unit found at most once.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::plan::{Plan, UnitSpec};
use super::unit::{read_unit, UnitResult};
use super::TournamentError;

/// Shard `index` of `count` (0-based index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Default for Shard {
    fn default() -> Shard {
        Shard { index: 0, count: 1 }
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Shard {
    /// Parses `I/N` (0 ≤ I < N).
    ///
    /// # Errors
    /// A message saying what is wrong.
    pub fn parse(s: &str) -> Result<Shard, String> {
        let (i, n) = s
            .split_once('/')
            .ok_or_else(|| format!("`{s}`: use I/N, e.g. 0/4"))?;
        let index: usize = i
            .trim()
            .parse()
            .map_err(|_| format!("`{s}`: I is not a number"))?;
        let count: usize = n
            .trim()
            .parse()
            .map_err(|_| format!("`{s}`: N is not a number"))?;
        if count == 0 || index >= count {
            return Err(format!("`{s}`: need 0 ≤ I < N"));
        }
        Ok(Shard { index, count })
    }

    /// The shard given by the environment of a job array, if any:
    /// `SLURM_ARRAY_TASK_ID` (minus `SLURM_ARRAY_TASK_MIN`) of `SLURM_ARRAY_TASK_COUNT`, or a
    /// Kubernetes Indexed Job's `JOB_COMPLETION_INDEX` of `PITBOSS_SHARDS` (set it to the Job's
    /// `completions`).
    ///
    /// # Errors
    /// A message naming the variable that is missing or bad.
    pub fn from_env(get: &dyn Fn(&str) -> Option<String>) -> Result<Option<Shard>, String> {
        let num = |k: &str| -> Result<Option<usize>, String> {
            get(k)
                .map(|v| {
                    v.trim()
                        .parse::<usize>()
                        .map_err(|_| format!("{k}={v} is not a number"))
                })
                .transpose()
        };
        let (index, count, var) = if let Some(id) = num("SLURM_ARRAY_TASK_ID")? {
            let min = num("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            let count = num("SLURM_ARRAY_TASK_COUNT")?
                .ok_or("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not")?;
            (
                id.checked_sub(min)
                    .ok_or("SLURM_ARRAY_TASK_ID < SLURM_ARRAY_TASK_MIN")?,
                count,
                "SLURM_ARRAY_TASK_ID",
            )
        } else if let Some(i) = num("JOB_COMPLETION_INDEX")? {
            let count = num("PITBOSS_SHARDS")?.ok_or(
                "JOB_COMPLETION_INDEX is set but PITBOSS_SHARDS (the Job's completions) is not",
            )?;
            (i, count, "JOB_COMPLETION_INDEX")
        } else {
            return Ok(None);
        };
        if count == 0 || index >= count {
            return Err(format!("{var} gives shard {index} of {count}"));
        }
        Ok(Some(Shard { index, count }))
    }

    /// Whether unit number `i` of the plan belongs to this shard.
    pub fn owns(&self, i: usize) -> bool {
        i % self.count == self.index
    }
}

/// One or more tournament folders, loaded and checked.
pub struct Loaded {
    pub plan: Plan,
    pub units: BTreeMap<String, UnitResult>,
    /// Each folder and its shard.
    pub dirs: Vec<(PathBuf, Shard)>,
}

/// Reads `DIR/plan.json`.
///
/// # Errors
/// [`TournamentError::NotATournament`] or [`TournamentError::BadPlan`].
pub fn read_plan(dir: &Path) -> Result<Plan, TournamentError> {
    let path = dir.join("plan.json");
    let bytes = std::fs::read(&path).map_err(|_| TournamentError::NotATournament {
        dir: dir.display().to_string(),
    })?;
    let plan: Plan = serde_json::from_slice(&bytes).map_err(|e| TournamentError::BadPlan {
        path: path.display().to_string(),
        why: e.to_string(),
    })?;
    if let Some(why) = plan.problem() {
        return Err(TournamentError::RefusedPlan {
            path: path.display().to_string(),
            why,
        });
    }
    Ok(plan)
}

/// Reads `DIR/shard.json` (absent: the whole tournament, 0/1).
///
/// # Errors
/// [`TournamentError::BadPlan`] for an unreadable file.
pub fn read_shard(dir: &Path) -> Result<Shard, TournamentError> {
    let path = dir.join("shard.json");
    match std::fs::read(&path) {
        Ok(b) => serde_json::from_slice(&b).map_err(|e| TournamentError::BadPlan {
            path: path.display().to_string(),
            why: e.to_string(),
        }),
        Err(_) => Ok(Shard::default()),
    }
}

/// Reads every finished unit of a folder that belongs to `plan` (ignores `.partial` files), each
/// checked: its checksum, the plan's settings hash, its place (file name and spec) and chip
/// conservation.
///
/// # Errors
/// I/O errors, unreadable units, or [`TournamentError::RefusedUnit`] naming the file and the
/// reason.
pub fn read_units(dir: &Path, plan: &Plan) -> Result<Vec<UnitResult>, TournamentError> {
    let by_id: BTreeMap<&str, &UnitSpec> = plan.units.iter().map(|u| (u.id.as_str(), u)).collect();
    let udir = dir.join("units");
    let mut out = Vec::new();
    let entries = match std::fs::read_dir(&udir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(TournamentError::io(&udir)(e)),
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    let settings = plan.settings_hash();
    for p in paths {
        let u = read_unit(&p)?;
        let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        if let Some(why) = u.problem(stem, by_id.get(u.id.as_str()).copied(), &settings) {
            return Err(TournamentError::RefusedUnit {
                path: p.display().to_string(),
                why,
            });
        }
        out.push(u);
    }
    Ok(out)
}

/// Loads folders that together hold one tournament: one whole run, or every shard of a sharded
/// run exactly once.
///
/// # Errors
/// Different plans, a shard missing or given twice, a unit found twice, unreadable files.
pub fn load_folders(dirs: &[PathBuf]) -> Result<Loaded, TournamentError> {
    let first = dirs.first().ok_or(TournamentError::NotATournament {
        dir: "(no folder given)".to_string(),
    })?;
    let plan = read_plan(first)?;
    let mut shards: Vec<(PathBuf, Shard)> = Vec::new();
    for d in dirs {
        let p = read_plan(d)?;
        if let Some(detail) = plan.difference(&p) {
            return Err(TournamentError::PlanMismatch {
                dir: d.display().to_string(),
                detail: format!("compared with {}: {detail}", first.display()),
            });
        }
        let s = read_shard(d)?;
        if let Some((d0, s0)) = shards.first() {
            if s0.count != s.count {
                return Err(TournamentError::ShardCounts {
                    first: d0.display().to_string(),
                    a: s0.count,
                    second: d.display().to_string(),
                    b: s.count,
                });
            }
        }
        if let Some((d0, _)) = shards.iter().find(|(_, s0)| s0.index == s.index) {
            return Err(TournamentError::DuplicateShard {
                index: s.index,
                count: s.count,
                first: d0.display().to_string(),
                second: d.display().to_string(),
            });
        }
        shards.push((d.clone(), s));
    }
    let count = shards[0].1.count;
    if let Some(index) = (0..count).find(|i| !shards.iter().any(|(_, s)| s.index == *i)) {
        return Err(TournamentError::MissingShard { index, count });
    }
    let mut units: BTreeMap<String, UnitResult> = BTreeMap::new();
    let mut from: BTreeMap<String, PathBuf> = BTreeMap::new();
    for (d, _) in &shards {
        for u in read_units(d, &plan)? {
            if let Some(prev) = from.get(&u.id) {
                return Err(TournamentError::DuplicateUnit {
                    id: u.id.clone(),
                    first: prev.display().to_string(),
                    second: d.display().to_string(),
                });
            }
            from.insert(u.id.clone(), d.clone());
            units.insert(u.id.clone(), u);
        }
    }
    Ok(Loaded {
        plan,
        units,
        dirs: shards,
    })
}

impl Loaded {
    /// For a missing unit: its shard and the folder that should hold it.
    pub fn locate(&self, u: &UnitSpec) -> (String, String) {
        let i = self
            .plan
            .units
            .iter()
            .position(|x| x.id == u.id)
            .unwrap_or(0);
        let count = self.dirs[0].1.count;
        let shard = Shard {
            index: i % count,
            count,
        };
        let dir = self
            .dirs
            .iter()
            .find(|(_, s)| *s == shard)
            .map_or_else(|| "?".to_string(), |(d, _)| d.display().to_string());
        (shard.to_string(), dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_from_flags_and_environment() {
        assert_eq!(Shard::parse("1/4"), Ok(Shard { index: 1, count: 4 }));
        assert!(Shard::parse("4/4").is_err());
        assert!(Shard::parse("x").is_err());
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                vars.iter()
                    .find(|(a, _)| *a == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        let slurm = env(&[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert_eq!(
            Shard::from_env(&slurm),
            Ok(Some(Shard { index: 3, count: 4 }))
        );
        let slurm1 = env(&[
            ("SLURM_ARRAY_TASK_ID", "4"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert_eq!(
            Shard::from_env(&slurm1),
            Ok(Some(Shard { index: 3, count: 4 }))
        );
        let k8s = env(&[("JOB_COMPLETION_INDEX", "2"), ("PITBOSS_SHARDS", "3")]);
        assert_eq!(
            Shard::from_env(&k8s),
            Ok(Some(Shard { index: 2, count: 3 }))
        );
        let bad = env(&[("JOB_COMPLETION_INDEX", "2")]);
        assert!(Shard::from_env(&bad)
            .unwrap_err()
            .contains("PITBOSS_SHARDS"));
        assert_eq!(Shard::from_env(&env(&[])), Ok(None));
    }
}
