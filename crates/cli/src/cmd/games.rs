//! The games a command plays, from `--game` flags: a preset name or `all` for the six, shared by
//! `compare` and `submit` so that both accept the same words.

use pitboss_arena::ConfigError;

/// The six presets, in the rules crate's order.
pub fn all() -> Vec<String> {
    pitboss_rules::PRESETS
        .iter()
        .map(|p| p.name.to_string())
        .collect()
}

/// The games asked for, each once, in the order first named (`all`: the six); empty when none.
///
/// # Errors
/// A word that is neither a preset nor `all`, named with the flag.
pub fn presets(asked: &[String], flag: &'static str) -> Result<Vec<String>, ConfigError> {
    let mut out: Vec<String> = Vec::new();
    for g in asked {
        let names = if g == "all" {
            all()
        } else {
            pitboss_rules::Preset::by_name(g).map_err(|e| ConfigError {
                key: flag,
                why: format!("{e} (or `all`)"),
            })?;
            vec![g.clone()]
        };
        for n in names {
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    Ok(out)
}
