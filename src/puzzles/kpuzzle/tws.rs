//! twsearch's definition format (the ksolve `.tws` text): `Name`, `Set NAME PIECES
//! ORIENTATIONS`, a `Solved` block, `Move NAME` blocks and `Rotation NAME` blocks,
//! each block a list of sets, each set a line of pieces and optionally a line of
//! orientations, closed by `End`; `#` starts a comment.
//!
//! As ksolve writes them, pieces are numbered from 1 and a move's orientation line is
//! indexed by the position a piece comes *from*; `MoveTransformation` blocks (twsearch's
//! newer form) number pieces from 0 and index orientations by the position a piece
//! goes *to*, as KPuzzle JSON does. Sets a block leaves out do not move. `Rotation`
//! blocks name the puzzle's whole-puzzle rotations, which `--symmetry` uses. `Goal NAME`
//! blocks (antipode's own) are goal patterns numbered as `Solved` is, `?` for any piece
//! or orientation, sets left out all `?`; blocks of one name are one goal set, which
//! `--goal NAME` searches from ([`super::goal`]).
//!
//! ```
//! use antipode::puzzles::kpuzzle::tws;
//!
//! let text = "Name Triangle\nSet P 3 1\nSolved\nP\n1 2 3\nEnd\n\
//!             Move A\nP\n2 3 1\nEnd\n";
//! let definition = tws::read("triangle.tws", text).unwrap();
//! assert_eq!(definition.moves[0].1.permutation, [1, 2, 0]);
//! let bad = tws::read("bad.tws", "Set P 3 1\nSolved\nP\n1 2 2 2\nEnd\n").unwrap_err();
//! assert_eq!(bad.to_string(), "bad.tws: line 4: 4 entries for a set of 3 pieces");
//! ```
#![deny(clippy::cast_possible_truncation)]

use super::definition::{
    Definition, DefinitionError, MAX_ORIENTATIONS, MAX_POSITIONS, Orbit, Pattern, Transformation,
};
use super::definition::{GoalPattern, GoalSet, check_counts, goal_entry};
use super::definition::{check_goal_name, moduli_of};
use crate::puzzles::description::byte;

/// Whether `base` (a name without options) is the path of a `.tws` file.
#[must_use]
pub fn is_tws_path(base: &str) -> bool {
    base.ends_with(".tws")
}

/// How a block's numbers are read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    /// ksolve's: pieces from 1, a move's orientations indexed by the source position.
    Ksolve,
    /// twsearch's newer one: pieces from 0, orientations indexed by the target.
    Zero,
}

/// What a block defines.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Solved,
    Move,
    Rotation,
}

struct Lines<'a> {
    file: &'a str,
    lines: Vec<(usize, Vec<&'a str>)>,
    next: usize,
}

impl<'a> Lines<'a> {
    fn new(file: &'a str, text: &'a str) -> Lines<'a> {
        let lines = text
            .lines()
            .enumerate()
            .map(|(i, line)| {
                let line = line.split('#').next().unwrap_or_default();
                (i + 1, line.split_whitespace().collect::<Vec<_>>())
            })
            .filter(|(_, tokens)| !tokens.is_empty())
            .collect();
        Lines {
            file,
            lines,
            next: 0,
        }
    }

    fn error(&self, line: usize, message: String) -> DefinitionError {
        DefinitionError {
            file: self.file.into(),
            key: if line == 0 {
                String::new()
            } else {
                format!("line {line}")
            },
            message,
        }
    }

    fn next(&mut self) -> Option<(usize, Vec<&'a str>)> {
        let line = self.lines.get(self.next).cloned();
        self.next += 1;
        line
    }

    fn peek(&self) -> Option<&(usize, Vec<&'a str>)> {
        self.lines.get(self.next)
    }

    /// The last line read, for errors at the end of the file.
    fn last_line(&self) -> usize {
        self.lines.last().map_or(0, |(n, _)| *n)
    }
}

/// Reads a `.tws` text; `file` names it in errors (`FILE: line N: ...`).
///
/// # Errors
/// [`DefinitionError`] if the text is not a `.tws` definition this reader understands
/// (the error names the line).
pub fn read(file: &str, text: &str) -> Result<Definition, DefinitionError> {
    let mut lines = Lines::new(file, text);
    let mut name = None;
    let mut orbits: Vec<Orbit> = Vec::new();
    let mut solved: Option<Pattern> = None;
    let mut moves: Vec<(String, Transformation)> = Vec::new();
    let mut rotations: Vec<(String, Transformation)> = Vec::new();
    let mut rotation_places: Vec<String> = Vec::new();
    let mut goals: Vec<GoalSet> = Vec::new();
    while let Some((n, tokens)) = lines.next() {
        let arity = |count: usize, form: &str| {
            if tokens.len() == count {
                Ok(())
            } else {
                Err(lines.error(n, format!("expected `{form}`")))
            }
        };
        match tokens[0] {
            "Name" => {
                if tokens.len() < 2 {
                    return Err(lines.error(n, "expected `Name NAME`".into()));
                }
                name = Some(tokens[1..].join(" "));
            }
            "Set" => {
                arity(4, "Set NAME PIECES ORIENTATIONS")?;
                if solved.is_some() || !moves.is_empty() {
                    return Err(lines.error(n, "`Set` after the solved state or a move".into()));
                }
                orbits.push(set_line(&lines, n, &tokens, &orbits)?);
            }
            "Solved" | "StartState" => {
                arity(1, tokens[0])?;
                if solved.is_some() {
                    return Err(lines.error(n, "a second solved state".into()));
                }
                solved = Some(solved_block(&mut lines, &orbits, tokens[0])?);
            }
            "Move" | "MoveTransformation" | "Rotation" => {
                arity(2, &format!("{} NAME", tokens[0]))?;
                if solved.is_none() {
                    return Err(lines.error(n, format!("`{}` before `Solved`", tokens[0])));
                }
                let (name, t) = move_block(&mut lines, n, &tokens, &orbits, &moves, &rotations)?;
                if tokens[0] == "Rotation" {
                    rotations.push((name, t));
                    rotation_places.push(format!("{file}: line {n}"));
                } else {
                    moves.push((name, t));
                }
            }
            "Goal" => {
                arity(2, "Goal NAME")?;
                let Some(solved) = &solved else {
                    return Err(lines.error(n, "`Goal` before `Solved`".into()));
                };
                add_goal(&mut lines, (n, tokens[1]), &orbits, solved, &mut goals)?;
            }
            other => {
                return Err(lines.error(
                    n,
                    format!(
                        "`{other}`: antipode reads Name, Set, Solved, Move, MoveTransformation, \
                         Rotation and Goal blocks"
                    ),
                ));
            }
        }
    }
    if orbits.is_empty() {
        return Err(lines.error(0, "no `Set`".into()));
    }
    let Some(default) = solved else {
        return Err(lines.error(0, "no `Solved` block".into()));
    };
    if moves.is_empty() {
        return Err(lines.error(0, "no `Move`".into()));
    }
    let moduli = moduli_of(&orbits);
    let name = name.unwrap_or_else(|| {
        std::path::Path::new(file)
            .file_stem()
            .map_or(file.to_string(), |s| s.to_string_lossy().into_owned())
    });
    Ok(Definition {
        title: name.clone(),
        name,
        orbits,
        default,
        base_moves: moves.len(),
        moves,
        default_moves: None,
        projections: Vec::new(),
        symmetries: rotations,
        symmetry_places: rotation_places,
        moduli,
        goals,
    })
}

/// A `Solved` block (pieces from 1) or a `StartState` block (from 0).
fn solved_block(
    lines: &mut Lines<'_>,
    orbits: &[Orbit],
    keyword: &str,
) -> Result<Pattern, DefinitionError> {
    let style = if keyword == "Solved" {
        Style::Ksolve
    } else {
        Style::Zero
    };
    let (pieces, orientation) = block(lines, orbits, Kind::Solved, style)?;
    Ok(Pattern {
        pieces,
        orientation,
    })
}

/// A `Move`, `MoveTransformation` or `Rotation` block: its name and transformation.
fn move_block(
    lines: &mut Lines<'_>,
    n: usize,
    tokens: &[&str],
    orbits: &[Orbit],
    moves: &[(String, Transformation)],
    rotations: &[(String, Transformation)],
) -> Result<(String, Transformation), DefinitionError> {
    let move_name = tokens[1].to_string();
    if moves.iter().chain(rotations).any(|(m, _)| *m == move_name) {
        return Err(lines.error(n, format!("`{move_name}` is defined twice")));
    }
    let (kind, style) = match tokens[0] {
        "Move" => (Kind::Move, Style::Ksolve),
        "MoveTransformation" => (Kind::Move, Style::Zero),
        _ => (Kind::Rotation, Style::Ksolve),
    };
    let (permutation, delta) = block(lines, orbits, kind, style)?;
    let t = Transformation { permutation, delta };
    if kind == Kind::Move && t.is_identity() {
        return Err(lines.error(n, format!("move `{move_name}` moves nothing")));
    }
    Ok((move_name, t))
}

/// A `Set NAME PIECES ORIENTATIONS` line, checked against the sets before it.
fn set_line(
    lines: &Lines<'_>,
    n: usize,
    tokens: &[&str],
    orbits: &[Orbit],
) -> Result<Orbit, DefinitionError> {
    let set_name = tokens[1];
    if orbits.iter().any(|o| o.name == set_name) {
        return Err(lines.error(n, format!("set `{set_name}` is defined twice")));
    }
    let pieces: usize = number(lines, n, tokens[2])?;
    let orientations: u64 = number(lines, n, tokens[3])?;
    if pieces == 0 {
        return Err(lines.error(n, format!("set `{set_name}` has no piece")));
    }
    if !(1..=MAX_ORIENTATIONS).contains(&orientations) {
        return Err(lines.error(
            n,
            format!("{orientations} orientations: 1 to {MAX_ORIENTATIONS}"),
        ));
    }
    let offset = orbits.iter().map(|o| o.pieces).sum::<usize>();
    // Summed without wrapping: a huge count is refused, not folded back.
    if offset
        .checked_add(pieces)
        .is_none_or(|end| end > MAX_POSITIONS)
    {
        return Err(lines.error(n, format!("more than {MAX_POSITIONS} pieces in all sets")));
    }
    let Ok(orientations) = u8::try_from(orientations) else {
        return Err(lines.error(
            n,
            format!("{orientations} orientations: 1 to {MAX_ORIENTATIONS}"),
        ));
    };
    Ok(Orbit {
        name: set_name.to_string(),
        pieces,
        orientations,
        offset,
    })
}

fn number<T: std::str::FromStr>(
    lines: &Lines<'_>,
    n: usize,
    token: &str,
) -> Result<T, DefinitionError> {
    token
        .parse()
        .map_err(|_| lines.error(n, format!("`{token}` is not a number")))
}

/// A set's next line: as many entries as the set has pieces.
fn set_row<'a>(
    lines: &mut Lines<'a>,
    orbit: &Orbit,
) -> Result<(usize, Vec<&'a str>), DefinitionError> {
    let (n, tokens) = lines
        .next()
        .ok_or_else(|| lines.error(lines.last_line(), "the block has no `End`".into()))?;
    if tokens.len() != orbit.pieces {
        return Err(lines.error(
            n,
            format!(
                "{} entries for a set of {} pieces",
                tokens.len(),
                orbit.pieces
            ),
        ));
    }
    Ok((n, tokens))
}

/// The next set a block names (its line: the set's name alone), or `None` at the
/// block's `End`; `seen` marks the sets named so far (each once).
fn next_set(
    lines: &mut Lines<'_>,
    orbits: &[Orbit],
    seen: &mut [bool],
) -> Result<Option<usize>, DefinitionError> {
    let Some((n, tokens)) = lines.next() else {
        return Err(lines.error(lines.last_line(), "the block has no `End`".into()));
    };
    if tokens == ["End"] {
        return Ok(None);
    }
    let Some(k) = orbits.iter().position(|o| o.name == tokens[0]) else {
        return Err(lines.error(
            n,
            format!("`{}` is not a set (expected a set name or End)", tokens[0]),
        ));
    };
    if tokens.len() != 1 {
        return Err(lines.error(n, format!("expected the set name `{}` alone", tokens[0])));
    }
    if std::mem::replace(&mut seen[k], true) {
        return Err(lines.error(n, format!("set `{}` appears twice in the block", tokens[0])));
    }
    Ok(Some(k))
}

/// One block up to its `End`: pieces (or the permutation) and orientations (or the
/// deltas) of every position; sets it leaves out are the identity.
fn block(
    lines: &mut Lines<'_>,
    orbits: &[Orbit],
    kind: Kind,
    style: Style,
) -> Result<(Vec<u8>, Vec<u8>), DefinitionError> {
    let positions: usize = orbits.iter().map(|o| o.pieces).sum();
    let mut pieces: Vec<u8> = (0..positions)
        .map(|p| {
            let orbit = orbits
                .iter()
                .find(|o| (o.offset..o.offset + o.pieces).contains(&p));
            match kind {
                Kind::Solved => byte((p - orbit.map_or(0, |o| o.offset)) as u64),
                _ => byte(p as u64),
            }
        })
        .collect();
    let mut orientation = vec![0u8; positions];
    let mut seen = vec![false; orbits.len()];
    while let Some(k) = next_set(lines, orbits, &mut seen)? {
        set_rows(
            lines,
            &orbits[k],
            kind,
            style,
            &mut pieces,
            &mut orientation,
        )?;
    }
    Ok((pieces, orientation))
}

/// One set's lines of a block: its pieces (or permutation) and, when the next line is
/// numbers, its orientations, into `pieces` and `orientation`.
fn set_rows(
    lines: &mut Lines<'_>,
    orbit: &Orbit,
    kind: Kind,
    style: Style,
    pieces: &mut [u8],
    orientation: &mut [u8],
) -> Result<(), DefinitionError> {
    let base = u64::from(style == Style::Ksolve);
    let row = |lines: &mut Lines<'_>| -> Result<(usize, Vec<u64>), DefinitionError> {
        let (n, tokens) = set_row(lines, orbit)?;
        let values = tokens
            .iter()
            .map(|t| number::<u64>(lines, n, t))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((n, values))
    };
    let (n, values) = row(lines)?;
    let mut local = Vec::with_capacity(orbit.pieces);
    for &v in &values {
        let piece = v
            .checked_sub(base)
            .and_then(|piece| usize::try_from(piece).ok())
            .filter(|&piece| piece < orbit.pieces);
        let Some(piece) = piece else {
            return Err(lines.error(
                n,
                format!(
                    "{v} is not a piece of `{}` ({base} to {})",
                    orbit.name,
                    orbit.pieces as u64 - 1 + base
                ),
            ));
        };
        local.push(piece);
    }
    if kind != Kind::Solved {
        let mut used = vec![false; orbit.pieces];
        if local.iter().any(|&v| std::mem::replace(&mut used[v], true)) {
            return Err(lines.error(
                n,
                format!("not a permutation of the {} pieces", orbit.pieces),
            ));
        }
    }
    // An orientation line is a line of numbers; a set name or End starts the next.
    let has_twists = lines
        .peek()
        .is_some_and(|(_, t)| t[0].bytes().all(|b| b.is_ascii_digit()));
    let twists = if has_twists {
        let (n, twists) = row(lines)?;
        if let Some(&t) = twists.iter().find(|&&t| t >= u64::from(orbit.orientations)) {
            return Err(lines.error(
                n,
                format!("orientation {t} is not below {}", orbit.orientations),
            ));
        }
        twists.into_iter().map(byte).collect()
    } else {
        vec![0u8; orbit.pieces]
    };
    for i in 0..orbit.pieces {
        let p = orbit.offset + i;
        match kind {
            Kind::Solved => {
                pieces[p] = byte(local[i] as u64);
                orientation[p] = twists[i];
            }
            _ => {
                pieces[p] = byte((orbit.offset + local[i]) as u64);
                orientation[p] = match style {
                    Style::Ksolve => twists[local[i]],
                    Style::Zero => twists[i],
                };
            }
        }
    }
    Ok(())
}

/// A `Goal NAME` block (its line `n` and `name`) read and added to the set of its
/// name.
fn add_goal(
    lines: &mut Lines<'_>,
    (n, name): (usize, &str),
    orbits: &[Orbit],
    solved: &Pattern,
    goals: &mut Vec<GoalSet>,
) -> Result<(), DefinitionError> {
    check_goal_name(name).map_err(|m| lines.error(n, m))?;
    let pattern = goal_block(lines, n, orbits, solved)?;
    match goals.iter_mut().find(|g| g.name == name) {
        Some(set) => set.patterns.push(pattern),
        None => goals.push(GoalSet {
            name: name.to_string(),
            patterns: vec![pattern],
        }),
    }
    Ok(())
}

/// A `Goal NAME` block up to its `End`: per set, a line of pieces numbered as in
/// `Solved` and optionally a line of orientations, `?` a wildcard in either; sets it
/// leaves out are all wildcards.
fn goal_block(
    lines: &mut Lines<'_>,
    n: usize,
    orbits: &[Orbit],
    solved: &Pattern,
) -> Result<GoalPattern, DefinitionError> {
    let positions: usize = orbits.iter().map(|o| o.pieces).sum();
    let mut pattern = GoalPattern {
        pieces: vec![None; positions],
        orientation: vec![None; positions],
        place: format!("{}: line {n}", lines.file),
    };
    let mut seen = vec![false; orbits.len()];
    while let Some(k) = next_set(lines, orbits, &mut seen)? {
        let orbit = &orbits[k];
        let labels = &solved.pieces[orbit.offset..orbit.offset + orbit.pieces];
        let (r, pieces) = set_row(lines, orbit)?;
        for (i, token) in pieces.iter().enumerate() {
            pattern.pieces[orbit.offset + i] = goal_entry(
                token,
                |t| {
                    let v = t.parse::<u64>().ok()?.checked_sub(1)?;
                    u8::try_from(v).ok().filter(|l| labels.contains(l))
                },
                || format!("`{token}` is not a piece of `{}` (or `?`)", orbit.name),
            )
            .map_err(|m| lines.error(r, m))?;
        }
        let twists_follow = lines
            .peek()
            .is_some_and(|(_, t)| t[0] != "End" && !orbits.iter().any(|o| o.name == t[0]));
        if twists_follow {
            let (r, twists) = set_row(lines, orbit)?;
            for (i, token) in twists.iter().enumerate() {
                pattern.orientation[orbit.offset + i] = goal_entry(
                    token,
                    |t| t.parse::<u8>().ok().filter(|&o| o < orbit.orientations),
                    || {
                        format!(
                            "orientation `{token}` is not below {} (or `?`)",
                            orbit.orientations
                        )
                    },
                )
                .map_err(|m| lines.error(r, m))?;
            }
        } else {
            for i in 0..orbit.pieces {
                pattern.orientation[orbit.offset + i] = Some(0);
            }
        }
    }
    check_counts(orbits, solved, &pattern).map_err(|m| lines.error(n, m))?;
    Ok(pattern)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRIANGLE: &str = "Name T\nSet P 3 2\nSolved\nP\n1 2 3\nEnd\n\
                            Move A\nP\n2 3 1\n1 0 1\nEnd\nRotation X\nP\n1 2 3\nEnd\n";

    #[test]
    fn ksolve_orientations_follow_the_source_position() {
        let d = read("t.tws", TRIANGLE).unwrap();
        let a = &d.moves[0].1;
        assert_eq!(a.permutation, [1, 2, 0]);
        // The piece at position 0 comes from 1, whose twist (line entry 1) is 0.
        assert_eq!(a.delta, [0, 1, 1]);
        assert_eq!(d.symmetries.len(), 1);
        assert_eq!(d.name, "T");
    }

    #[test]
    fn bad_blocks_name_their_line() {
        let cases = [
            (
                "Set P 3 1\nSolved\nP\n1 2 3\nEnd\nMove A\nP\n1 1 2\nEnd\n",
                "line 8: not a permutation",
            ),
            (
                "Set P 3 1\nSolved\nP\n1 2 3\nEnd\nMove A\nQ\n1 2 3\nEnd\n",
                "line 7: `Q` is not a set",
            ),
            (
                "Set P 3 1\nSolved\nP\n1 2 3\n",
                "line 4: the block has no `End`",
            ),
            (
                "Set P 3 1\nSolved\nP\n1 2 3\nEnd\nIllegal\n",
                "line 6: `Illegal`",
            ),
            (
                "Set P 3 2\nSolved\nP\n1 2 3\n0 5 0\nEnd\n",
                "line 5: orientation 5",
            ),
            ("Set P 3 1\nSolved\nP\n1 2 3\nEnd\n", "no `Move`"),
            (
                "Set P 3 1\nSolved\nP\n1 2 3\nEnd\nMove A\nP\n1 2 3\nEnd\n",
                "line 6: move `A` moves nothing",
            ),
            // A count that would wrap the sum of the sets around is refused.
            (
                "Set P 2 1\nSet Q 18446744073709551615 1\nSolved\nP\n1 2\nEnd\n",
                "line 2: more than 64 pieces in all sets",
            ),
        ];
        for (text, expected) in cases {
            let e = read("x.tws", text).unwrap_err().to_string();
            assert!(e.starts_with("x.tws: ") && e.contains(expected), "{e}");
        }
    }
}
