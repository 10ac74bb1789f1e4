//! Goal patterns as definitions write them: `ORBIT: pieces / orientations; ...`, `?` a
//! wildcard, patterns joined by `|` (what [`crate::puzzles::kpuzzle::goal`] searches from).
#![deny(clippy::cast_possible_truncation)]

use super::{Definition, DefinitionError, Orbit, Pattern};

/// One pattern of a goal set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoalPattern {
    /// Per flat position, the piece there, or `None` for any piece the pattern does
    /// not name.
    pub pieces: Vec<Option<u8>>,
    /// Per flat position, the orientation there, or `None` for any.
    pub orientation: Vec<Option<u8>>,
    /// Where it is written, as errors name it (`cube.tws: line 30`,
    /// `cube.kpuzzle.json: antipode.goals.cross`, `--goal`).
    pub place: String,
}

/// A named goal set of a definition (`antipode.goals`, `.tws` `Goal` blocks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoalSet {
    /// Its name.
    pub name: String,
    /// Its patterns, at least one.
    pub patterns: Vec<GoalPattern>,
}

fn wildcard(token: &str) -> bool {
    matches!(token, "?" | "_" | "*")
}

/// One entry of a goal pattern: `None` for a wildcard (`?`, also `_` or `*`), else
/// what `parse` reads, or the error `bad` words.
pub(crate) fn entry(
    token: &str,
    parse: impl FnOnce(&str) -> Option<u8>,
    bad: impl FnOnce() -> String,
) -> Result<Option<u8>, String> {
    if wildcard(token) {
        Ok(None)
    } else {
        parse(token).map(Some).ok_or_else(bad)
    }
}

/// Reads a goal set written as text: patterns `ORBIT: pieces / orientations; ...`
/// joined by `|`, `?` a wildcard; `file` and `key` name it in errors.
///
/// # Errors
/// [`DefinitionError`] if the text is empty, names an orbit or piece the definition
/// has not, or names a piece more often than the orbit holds it.
pub fn parse_goal(
    definition: &Definition,
    text: &str,
    file: &str,
    key: &str,
) -> Result<Vec<GoalPattern>, DefinitionError> {
    let members: Vec<&str> = text.split('|').map(str::trim).collect();
    let error = |key: String, message: String| DefinitionError {
        file: file.to_string(),
        key,
        message,
    };
    if members.iter().all(|m| m.is_empty()) {
        return Err(error(
            key.to_string(),
            "an empty goal set: give at least one pattern".into(),
        ));
    }
    let several = members.len() > 1;
    members
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let key = if several {
                format!(
                    "{key}{}pattern {}",
                    if key.is_empty() { "" } else { " " },
                    i + 1
                )
            } else {
                key.to_string()
            };
            let place = if key.is_empty() {
                file.to_string()
            } else {
                format!("{file}: {key}")
            };
            if text.is_empty() {
                return Err(error(key, "an empty pattern between `|`".into()));
            }
            let pattern =
                parse_pattern(definition, text, place).map_err(|m| error(key.clone(), m))?;
            check_counts(&definition.orbits, &definition.default, &pattern)
                .map_err(|m| error(key, m))?;
            Ok(pattern)
        })
        .collect()
}

/// One pattern's text.
fn parse_pattern(
    definition: &Definition,
    text: &str,
    place: String,
) -> Result<GoalPattern, String> {
    let positions = definition.positions();
    let mut pattern = GoalPattern {
        pieces: vec![None; positions],
        orientation: vec![None; positions],
        place,
    };
    let mut seen = vec![false; definition.orbits.len()];
    for block in text.split(';').map(str::trim).filter(|b| !b.is_empty()) {
        let Some((name, body)) = block.split_once(':') else {
            return Err(format!("`{block}`: expected ORBIT: pieces / orientations"));
        };
        let name = name.trim();
        let Some(k) = definition.orbits.iter().position(|o| o.name == name) else {
            let names: Vec<&str> = definition.orbits.iter().map(|o| o.name.as_str()).collect();
            return Err(format!("no orbit `{name}` (orbits: {})", names.join(", ")));
        };
        if std::mem::replace(&mut seen[k], true) {
            return Err(format!("orbit {name} is written twice"));
        }
        let orbit = &definition.orbits[k];
        let (pieces, twists) = match body.split_once('/') {
            Some((p, t)) => (p, Some(t)),
            None => (body, None),
        };
        let pieces: Vec<&str> = pieces.split_whitespace().collect();
        if pieces.len() != orbit.pieces {
            return Err(format!(
                "{name}: {} pieces for an orbit of {}",
                pieces.len(),
                orbit.pieces
            ));
        }
        let labels = &definition.default.pieces[orbit.offset..orbit.offset + orbit.pieces];
        for (i, token) in pieces.iter().enumerate() {
            pattern.pieces[orbit.offset + i] = entry(
                token,
                |t| t.parse::<u8>().ok().filter(|x| labels.contains(x)),
                || format!("{name}: `{token}` is not one of its pieces (or `?`)"),
            )?;
        }
        let twists: Vec<&str> = match twists {
            Some(t) => t.split_whitespace().collect(),
            None if orbit.orientations == 1 => vec!["0"; orbit.pieces],
            None => {
                return Err(format!(
                    "{name}: give the orientations after `/` (`?` for any)"
                ));
            }
        };
        if twists.len() != orbit.pieces {
            return Err(format!(
                "{name}: {} orientations for an orbit of {}",
                twists.len(),
                orbit.pieces
            ));
        }
        let modulus = orbit.orientations.max(1);
        for (i, token) in twists.iter().enumerate() {
            pattern.orientation[orbit.offset + i] = entry(
                token,
                |t| t.parse::<u8>().ok().filter(|&o| o < modulus),
                || {
                    format!(
                        "{name}: orientation `{token}` is not 0 to {} (or `?`)",
                        modulus - 1
                    )
                },
            )?;
        }
    }
    Ok(pattern)
}

/// A pattern names each piece at most as often as its orbit holds it: the wildcards
/// take the pieces left, and must have as many as they are.
pub(crate) fn check_counts(
    orbits: &[Orbit],
    solved: &Pattern,
    pattern: &GoalPattern,
) -> Result<(), String> {
    for orbit in orbits {
        let range = orbit.offset..orbit.offset + orbit.pieces;
        let mut held = [0usize; 256];
        for &label in &solved.pieces[range.clone()] {
            held[label as usize] += 1;
        }
        let mut named = [0usize; 256];
        for piece in pattern.pieces[range].iter().flatten() {
            named[*piece as usize] += 1;
        }
        if let Some(label) = (0..256).find(|&l| named[l] > held[l]) {
            return Err(format!(
                "{}: piece {label} is named {} times but the orbit holds {}: its wildcards \
                 have no piece to spare",
                orbit.name, named[label], held[label]
            ));
        }
    }
    Ok(())
}

/// `pattern` as text, orbit by orbit, `?` for its wildcards.
#[must_use]
pub fn goal_text(definition: &Definition, pattern: &GoalPattern) -> String {
    let show = |x: Option<u8>| x.map_or("?".to_string(), |x| x.to_string());
    definition.orbits_text(
        "; ",
        |p| show(pattern.pieces[p]),
        |p| show(pattern.orientation[p]),
    )
}
