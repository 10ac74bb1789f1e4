//! KPuzzle definitions, the cubing community's JSON for twisty puzzles (cubing.js):
//! read, checked, and flattened into transformations of one array of positions.
//!
//! ```json
//! {
//!   "name": "2x2x2",
//!   "orbits": [{ "orbitName": "CORNERS", "numPieces": 8, "numOrientations": 3 }],
//!   "defaultPattern": { "CORNERS": { "pieces": [0, 1, 2, 3, 4, 5, 6, 7],
//!                                    "orientation": [0, 0, 0, 0, 0, 0, 0, 0] } },
//!   "moves": { "U": { "CORNERS": { "permutation": [1, 2, 3, 0, 4, 5, 6, 7],
//!                                  "orientationDelta": [0, 0, 0, 0, 0, 0, 0, 0] } } },
//!   "derivedMoves": { "U2": "U U" },
//!   "antipode": { "moves": ["U", "R", "F"], "projections": { "corners": "CORNERS" },
//!                 "symmetries": { "y": { "CORNERS": { "permutation": [1, 2, 3, 0, 5, 6, 7, 4],
//!                                                     "orientationDelta": [0, 0, 0, 0, 0, 0, 0, 0] } } } }
//! }
//! ```
//!
//! A move sends the piece at `permutation[i]` to position `i` and adds
//! `orientationDelta[i]` to its orientation (mod `numOrientations`, at most
//! [`MAX_ORIENTATIONS`]); an orbit a move
//! leaves out is left alone. Pieces with the same number in `defaultPattern` are
//! identical; `orientationMod` 1 for every piece of an orbit means its orientation is
//! not seen. The optional `antipode` object (other readers ignore it) names the move
//! set published figures count (`moves`), projections for pattern databases, and
//! whole-puzzle rotations that generate the group `--symmetry` uses (`symmetries`, in
//! the form of moves; without it the symmetries are found from the moves), and goal
//! sets `--goal NAME` searches from (`goals`: a name to one pattern or a list, in the
//! text form of [`super::goal`], `"cross": "EDGES: ? ? ? ? 4 5 6 7 ? ? ? ? / ? ? ? ? 0
//! 0 0 0 ? ? ? ?"`). Every problem is reported with the file and the key it is under.
#![deny(clippy::cast_possible_truncation)]

mod goals;

pub use goals::{GoalPattern, GoalSet, goal_text, parse_goal};
pub(crate) use goals::{check_counts, entry as goal_entry};

use crate::puzzles::description::byte;
use std::collections::{BTreeMap, HashMap};
use std::fmt;

use serde::Deserialize;
use serde::de::{MapAccess, Visitor};

/// Why a definition was refused: the file and the key, and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {key}{}{message}", if key.is_empty() { "" } else { ": " })]
pub struct DefinitionError {
    /// The file (or shipped name).
    pub file: String,
    /// The JSON key, dotted (`moves.R.CORNERS.permutation`); empty for the whole file.
    pub key: String,
    /// What is wrong.
    pub message: String,
}

/// The most positions over all orbits (a search node holds them in fixed arrays).
pub const MAX_POSITIONS: usize = 64;

/// The most orientations an orbit may have: orientations are bytes, and the sum of
/// two of them (each below the count) must fit one before it is reduced.
pub const MAX_ORIENTATIONS: u64 = 128;

/// One orbit: a kind of piece, its number of places and of orientations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Orbit {
    /// `orbitName`.
    pub name: String,
    /// `numPieces`.
    pub pieces: usize,
    /// `numOrientations` (1 where `orientationMod` hides it).
    pub orientations: u8,
    /// Its first position in the flat arrays.
    pub offset: usize,
}

/// A position of every orbit, flattened: `pieces[p]` and `orientation[p]` for every
/// position `p` (orbit by orbit).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Pattern {
    /// The piece at each position.
    pub pieces: Vec<u8>,
    /// Its orientation.
    pub orientation: Vec<u8>,
}

/// A move as a transformation of the flat positions: the piece at `permutation[p]`
/// comes to `p`, its orientation plus `delta[p]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Transformation {
    /// Where each position's piece comes from (flat indices).
    pub permutation: Vec<u8>,
    /// The orientation added at each position.
    pub delta: Vec<u8>,
}

impl Transformation {
    /// The transformation that moves nothing.
    #[must_use]
    pub fn identity(positions: usize) -> Transformation {
        Transformation {
            permutation: (0..positions as u64).map(byte).collect(),
            delta: vec![0; positions],
        }
    }

    /// Its pieces and twists.
    #[must_use]
    pub fn parts(&self) -> (&[u8], &[u8]) {
        (&self.permutation, &self.delta)
    }

    /// `self` then `next`.
    #[must_use]
    pub fn then(&self, next: &Transformation, moduli: &[u8]) -> Transformation {
        let permutation = next
            .permutation
            .iter()
            .map(|&from| self.permutation[from as usize])
            .collect();
        let delta = next
            .permutation
            .iter()
            .zip(&next.delta)
            .zip(moduli)
            .map(|((&from, &d), &m)| (self.delta[from as usize] + d) % m)
            .collect();
        Transformation { permutation, delta }
    }

    /// The inverse transformation.
    #[must_use]
    pub fn inverse(&self, moduli: &[u8]) -> Transformation {
        let mut permutation = vec![0u8; self.permutation.len()];
        let mut delta = vec![0u8; self.permutation.len()];
        for (to, &from) in self.permutation.iter().enumerate() {
            permutation[from as usize] = byte(to as u64);
            let m = moduli[from as usize];
            delta[from as usize] = (m - self.delta[to] % m) % m;
        }
        Transformation { permutation, delta }
    }

    /// Whether it moves nothing.
    #[must_use]
    pub fn is_identity(&self) -> bool {
        self.permutation
            .iter()
            .enumerate()
            .all(|(p, &from)| from as usize == p)
            && self.delta.iter().all(|&d| d == 0)
    }

    /// Whether position `p` is moved or twisted.
    #[must_use]
    pub fn moves(&self, p: usize) -> bool {
        self.permutation[p] as usize != p || self.delta[p] != 0
    }

    /// `pattern` after this transformation.
    #[must_use]
    pub fn apply(&self, pattern: &Pattern, moduli: &[u8]) -> Pattern {
        let mut after = pattern.clone();
        self.apply_into(pattern, moduli, &mut after);
        after
    }

    /// `pattern` after this transformation, written over `after` (as long as it).
    pub fn apply_into(&self, pattern: &Pattern, moduli: &[u8], after: &mut Pattern) {
        for (p, (&from, &d)) in self.permutation.iter().zip(&self.delta).enumerate() {
            after.pieces[p] = pattern.pieces[from as usize];
            after.orientation[p] = (pattern.orientation[from as usize] + d) % moduli[p];
        }
    }
}

/// A checked KPuzzle definition.
#[derive(Debug, Clone)]
pub struct Definition {
    /// `name`.
    pub name: String,
    /// `antipode.title`, or the name.
    pub title: String,
    /// The orbits, in the file's order.
    pub orbits: Vec<Orbit>,
    /// `defaultPattern`, the solved state.
    pub default: Pattern,
    /// Every move, the file's `moves` in order then `derivedMoves`.
    pub moves: Vec<(String, Transformation)>,
    /// How many of `moves` are the file's `moves` (the others are derived).
    pub base_moves: usize,
    /// `antipode.moves`: the move set published figures count, if given.
    pub default_moves: Option<Vec<String>>,
    /// `antipode.projections`: names for projections (`corners` = `CORNERS`).
    pub projections: Vec<(String, String)>,
    /// The orientations of each flat position's orbit.
    pub moduli: Vec<u8>,
    /// Whole-puzzle rotations the file names (`antipode.symmetries`, or a `.tws`
    /// file's `Rotation` blocks), which generate the symmetry group `--symmetry` uses;
    /// empty: found from the moves.
    pub symmetries: Vec<(String, Transformation)>,
    /// Where each of `symmetries` is written, as errors name it (`cube.tws: line 21`,
    /// `cube.kpuzzle.json: antipode.symmetries.x`).
    pub symmetry_places: Vec<String>,
    /// Named goal sets (`antipode.goals`, a `.tws` file's `Goal` blocks), which
    /// `--goal NAME` searches from instead of the solved state.
    pub goals: Vec<GoalSet>,
}

impl Definition {
    /// Reads and checks the JSON text of a definition; `file` names it in errors.
    ///
    /// # Errors
    /// [`DefinitionError`] if the text is not KPuzzle JSON or its orbits, moves or
    /// start state do not agree.
    pub fn from_json(file: &str, text: &str) -> Result<Definition, DefinitionError> {
        let reader = Reader { file };
        let raw: RawDefinition = serde_json::from_str(text).map_err(|e| {
            let message = e.to_string();
            // serde_json ends its messages with " at line L column C".
            let message = message
                .rsplit_once(" at line ")
                .map_or(message.as_str(), |(m, _)| m)
                .to_string();
            reader.error(&format!("line {}", e.line()), message)
        })?;
        let mut orbits = reader.orbits(&raw.orbits)?;
        let default = reader.default_pattern(&raw.default_pattern, &mut orbits)?;
        let moduli = moduli_of(&orbits);
        let mut moves = reader.transformations("moves", &raw.moves, &raw.orbits, &orbits)?;
        if moves.is_empty() {
            return Err(reader.error("moves", "no move".into()));
        }
        let base_moves = moves.len();
        let derived = raw.derived_moves.map(|d| d.0).unwrap_or_default();
        reader.derived_moves(&derived, &mut moves, &moduli)?;
        let extension = raw.antipode.unwrap_or_default();
        let symmetries = match &extension.symmetries {
            Some(named) => {
                reader.transformations("antipode.symmetries", named, &raw.orbits, &orbits)?
            }
            None => Vec::new(),
        };
        if let Some(names) = &extension.moves {
            for name in names {
                if !moves.iter().any(|(n, _)| n == name) {
                    return Err(reader.error("antipode.moves", format!("unknown move `{name}`")));
                }
            }
        }
        let definition = Definition {
            title: extension.title.unwrap_or_else(|| raw.name.clone()),
            name: raw.name,
            orbits,
            default,
            moves,
            base_moves,
            default_moves: extension.moves,
            projections: extension.projections.map(|p| p.0).unwrap_or_default(),
            moduli,
            symmetry_places: symmetries
                .iter()
                .map(|(name, _)| format!("{}: antipode.symmetries.{name}", reader.file))
                .collect(),
            symmetries,
            goals: Vec::new(),
        };
        let mut definition = definition;
        definition.goals = reader.goals(&definition, extension.goals)?;
        // Every named projection is checked now, not when a database is first asked of it.
        for (name, _) in &definition.projections {
            if let Err(e) = super::project(&definition, name) {
                let message = e.to_string();
                let message = message
                    .split_once(": ")
                    .map_or(message.as_str(), |(_, m)| m);
                return Err(reader.error(&format!("antipode.projections.{name}"), message.into()));
            }
        }
        Ok(definition)
    }

    /// Per-position text as patterns are written, `ORBIT: pieces / orientations`
    /// orbit by orbit (no orientations for an orbit that has none), joined by
    /// `separator`.
    pub fn orbits_text(
        &self,
        separator: &str,
        piece: impl Fn(usize) -> String,
        twist: impl Fn(usize) -> String,
    ) -> String {
        self.orbits
            .iter()
            .map(|orbit| {
                let range = orbit.offset..orbit.offset + orbit.pieces;
                let pieces: Vec<String> = range.clone().map(&piece).collect();
                if orbit.orientations == 1 {
                    format!("{}: {}", orbit.name, pieces.join(" "))
                } else {
                    let twists: Vec<String> = range.map(&twist).collect();
                    format!(
                        "{}: {} / {}",
                        orbit.name,
                        pieces.join(" "),
                        twists.join(" ")
                    )
                }
            })
            .collect::<Vec<_>>()
            .join(separator)
    }

    /// The number of flat positions.
    #[must_use]
    pub fn positions(&self) -> usize {
        self.default.pieces.len()
    }

    /// The move named `name`.
    #[must_use]
    pub fn find_move(&self, name: &str) -> Option<&Transformation> {
        self.moves.iter().find(|(n, _)| n == name).map(|(_, t)| t)
    }

    /// The orbit named `name`.
    #[must_use]
    pub fn orbit(&self, name: &str) -> Option<&Orbit> {
        self.orbits.iter().find(|o| o.name == name)
    }
}

/// Checks a definition's parts, naming the file and key of what is wrong.
struct Reader<'a> {
    file: &'a str,
}

impl Reader<'_> {
    fn error(&self, key: &str, message: String) -> DefinitionError {
        DefinitionError {
            file: self.file.into(),
            key: key.into(),
            message,
        }
    }

    fn check_length(
        &self,
        values: &[u64],
        pieces: usize,
        key: &str,
    ) -> Result<(), DefinitionError> {
        if values.len() == pieces {
            Ok(())
        } else {
            Err(self.error(
                key,
                format!("{} entries for an orbit of {pieces} pieces", values.len()),
            ))
        }
    }

    /// The orbits, numbered into flat positions.
    fn orbits(&self, raw: &[RawOrbit]) -> Result<Vec<Orbit>, DefinitionError> {
        let mut orbits: Vec<Orbit> = Vec::new();
        let mut offset = 0usize;
        for (i, orbit) in raw.iter().enumerate() {
            let key = format!("orbits[{i}]");
            if orbit.num_pieces == 0 {
                return Err(self.error(&key, "numPieces is 0".into()));
            }
            let orientations = u8::try_from(orbit.num_orientations)
                .ok()
                .filter(|&o| (1..=MAX_ORIENTATIONS).contains(&u64::from(o)));
            let Some(orientations) = orientations else {
                return Err(self.error(
                    &key,
                    format!(
                        "numOrientations {} is out of range 1..={MAX_ORIENTATIONS}",
                        orbit.num_orientations
                    ),
                ));
            };
            if orbits.iter().any(|o| o.name == orbit.orbit_name) {
                return Err(
                    self.error(&key, format!("orbit `{}` is named twice", orbit.orbit_name))
                );
            }
            // Summed without wrapping: a huge numPieces is refused, not folded back.
            let end = usize::try_from(orbit.num_pieces)
                .ok()
                .and_then(|pieces| offset.checked_add(pieces))
                .filter(|&end| end <= MAX_POSITIONS);
            let Some(end) = end else {
                return Err(self.error(
                    "orbits",
                    format!("more than {MAX_POSITIONS} pieces in all orbits"),
                ));
            };
            orbits.push(Orbit {
                name: orbit.orbit_name.clone(),
                pieces: end - offset,
                orientations,
                offset,
            });
            offset = end;
        }
        if orbits.is_empty() {
            return Err(self.error("orbits", "no orbit".into()));
        }
        Ok(orbits)
    }

    /// The solved state; an orbit whose `orientationMod` hides orientations gets 1.
    /// `antipode.goals`: each set's patterns read against the definition.
    fn goals(
        &self,
        definition: &Definition,
        raw: Option<Ordered<RawGoal>>,
    ) -> Result<Vec<GoalSet>, DefinitionError> {
        let mut sets = Vec::new();
        for (name, raw) in raw.map(|r| r.0).unwrap_or_default() {
            let key = format!("antipode.goals.{name}");
            check_goal_name(&name).map_err(|m| self.error(&key, m))?;
            let patterns = match raw {
                RawGoal::One(text) => parse_goal(definition, &text, self.file, &key)?,
                RawGoal::Several(texts) => {
                    if texts.is_empty() {
                        return Err(
                            self.error(&key, "an empty goal set: give at least one pattern".into())
                        );
                    }
                    let mut patterns = Vec::new();
                    for (i, text) in texts.iter().enumerate() {
                        patterns.extend(parse_goal(
                            definition,
                            text,
                            self.file,
                            &format!("{key}[{i}]"),
                        )?);
                    }
                    patterns
                }
            };
            sets.push(GoalSet { name, patterns });
        }
        Ok(sets)
    }

    fn default_pattern(
        &self,
        raw: &BTreeMap<String, RawOrbitPattern>,
        orbits: &mut [Orbit],
    ) -> Result<Pattern, DefinitionError> {
        let positions: usize = orbits.iter().map(|o| o.pieces).sum();
        let mut default = Pattern {
            pieces: vec![0; positions],
            orientation: vec![0; positions],
        };
        for name in raw.keys() {
            if !orbits.iter().any(|o| o.name == *name) {
                return Err(self.error(
                    &format!("defaultPattern.{name}"),
                    format!("no orbit is named `{name}`"),
                ));
            }
        }
        for orbit in orbits.iter_mut() {
            let key = format!("defaultPattern.{}", orbit.name);
            let Some(data) = raw.get(&orbit.name) else {
                return Err(self.error(&key, "missing".into()));
            };
            self.orbit_pattern(&key, data, orbit, &mut default)?;
        }
        Ok(default)
    }

    /// One orbit of the solved state, into `default`.
    fn orbit_pattern(
        &self,
        key: &str,
        data: &RawOrbitPattern,
        orbit: &mut Orbit,
        default: &mut Pattern,
    ) -> Result<(), DefinitionError> {
        self.check_length(&data.pieces, orbit.pieces, &format!("{key}.pieces"))?;
        self.check_length(
            &data.orientation,
            orbit.pieces,
            &format!("{key}.orientation"),
        )?;
        if let Some(modulus) = &data.orientation_mod {
            self.check_length(modulus, orbit.pieces, &format!("{key}.orientationMod"))?;
            if modulus.iter().all(|&m| m == 1) {
                orbit.orientations = 1;
            } else if !modulus.iter().all(|&m| m == 0) {
                return Err(self.error(
                    &format!("{key}.orientationMod"),
                    "only all 0 (orientations seen) or all 1 (not seen) is supported".into(),
                ));
            }
        }
        for (i, (&piece, &twist)) in data.pieces.iter().zip(&data.orientation).enumerate() {
            if piece >= orbit.pieces as u64 {
                return Err(self.error(
                    &format!("{key}.pieces[{i}]"),
                    format!("piece {piece} is out of range 0..{}", orbit.pieces),
                ));
            }
            if twist >= orbit.orientations as u64 && orbit.orientations > 1 {
                return Err(self.error(
                    &format!("{key}.orientation[{i}]"),
                    format!(
                        "orientation {twist} is out of range 0..{}",
                        orbit.orientations
                    ),
                ));
            }
            default.pieces[orbit.offset + i] = byte(piece);
            default.orientation[orbit.offset + i] = if orbit.orientations == 1 {
                0
            } else {
                byte(twist)
            };
        }
        Ok(())
    }

    /// The file's `moves`, in its order.
    /// Named transformations in the form of `moves` (`section` names them in errors).
    fn transformations(
        &self,
        section: &str,
        named: &Ordered<Ordered<RawOrbitTransformation>>,
        raw_orbits: &[RawOrbit],
        orbits: &[Orbit],
    ) -> Result<Vec<(String, Transformation)>, DefinitionError> {
        let positions = orbits.iter().map(|o| o.pieces).sum();
        let mut moves: Vec<(String, Transformation)> = Vec::new();
        for (name, orbits_moved) in &named.0 {
            let key = format!("{section}.{name}");
            check_move_name(name).map_err(|m| self.error(&key, m))?;
            let mut t = Transformation::identity(positions);
            for (orbit_name, data) in &orbits_moved.0 {
                let key = format!("{key}.{orbit_name}");
                let Some(k) = orbits.iter().position(|o| o.name == *orbit_name) else {
                    return Err(self.error(&key, format!("no orbit is named `{orbit_name}`")));
                };
                let declared = raw_orbits[k].num_orientations;
                self.orbit_move(&key, data, &orbits[k], declared, &mut t)?;
            }
            moves.push((name.clone(), t));
        }
        Ok(moves)
    }

    /// One orbit of a move, into `t`; `declared` is the orbit's `numOrientations`.
    fn orbit_move(
        &self,
        key: &str,
        data: &RawOrbitTransformation,
        orbit: &Orbit,
        declared: u64,
        t: &mut Transformation,
    ) -> Result<(), DefinitionError> {
        self.check_length(
            &data.permutation,
            orbit.pieces,
            &format!("{key}.permutation"),
        )?;
        self.check_length(
            &data.orientation_delta,
            orbit.pieces,
            &format!("{key}.orientationDelta"),
        )?;
        let mut seen = vec![false; orbit.pieces];
        for &from in &data.permutation {
            let first_time = usize::try_from(from)
                .ok()
                .filter(|&from| from < orbit.pieces)
                .is_some_and(|from| !std::mem::replace(&mut seen[from], true));
            if !first_time {
                return Err(self.error(
                    &format!("{key}.permutation"),
                    format!(
                        "{:?} is not a permutation of 0..{}",
                        data.permutation, orbit.pieces
                    ),
                ));
            }
        }
        for (i, (&from, &d)) in data
            .permutation
            .iter()
            .zip(&data.orientation_delta)
            .enumerate()
        {
            if d >= declared {
                return Err(self.error(
                    &format!("{key}.orientationDelta[{i}]"),
                    format!("{d} is out of range 0..{declared}"),
                ));
            }
            t.permutation[orbit.offset + i] = byte((orbit.offset as u64) + from);
            t.delta[orbit.offset + i] = byte(d % u64::from(orbit.orientations));
        }
        Ok(())
    }

    /// `derivedMoves`: move sequences over the moves (and other derived moves),
    /// appended to `moves` in the order of rounds over the list that each take the
    /// entries whose moves are all known by then. Each entry is resolved once, by a
    /// walk down the entries it names (however they are listed).
    fn derived_moves(
        &self,
        derived: &[(String, String)],
        moves: &mut Vec<(String, Transformation)>,
        moduli: &[u8],
    ) -> Result<(), DefinitionError> {
        let key = |i: usize| format!("derivedMoves.{}", derived[i].0);
        let base: HashMap<&str, usize> = moves
            .iter()
            .enumerate()
            .map(|(i, (n, _))| (n.as_str(), i))
            .collect();
        let mut named: HashMap<&str, usize> = HashMap::new();
        for (i, (name, _)) in derived.iter().enumerate() {
            check_move_name(name).map_err(|m| self.error(&key(i), m))?;
            if base.contains_key(name.as_str()) || named.insert(name, i).is_some() {
                return Err(self.error(&key(i), format!("`{name}` is already a move")));
            }
        }
        // Each entry's tokens: a base move or a derived entry, with its amount.
        enum Part {
            Base(usize),
            Derived(usize),
        }
        let mut parts: Vec<Vec<(Part, i64)>> = Vec::with_capacity(derived.len());
        for (i, (_, alg)) in derived.iter().enumerate() {
            let mut entry = Vec::new();
            for token in alg.split_whitespace() {
                let (name, amount) = split_amount(token).map_err(|m| self.error(&key(i), m))?;
                let part = match (base.get(name), named.get(name)) {
                    (Some(&b), _) => Part::Base(b),
                    (_, Some(&d)) => Part::Derived(d),
                    _ => {
                        return Err(
                            self.error(&key(i), format!("unknown move `{name}` in `{alg}`"))
                        );
                    }
                };
                entry.push((part, amount));
            }
            parts.push(entry);
        }
        // Depth-first with an explicit stack (a chain of thousands would overflow
        // the call stack); `round` is the round of the old repeated scan.
        let mut resolved: Vec<Option<(Transformation, usize)>> = vec![None; derived.len()];
        let mut on_stack = vec![false; derived.len()];
        for start in 0..derived.len() {
            let mut stack = vec![start];
            while let Some(&i) = stack.last() {
                if resolved[i].is_some() {
                    stack.pop();
                    continue;
                }
                on_stack[i] = true;
                let waiting = parts[i].iter().find_map(|(part, _)| match part {
                    Part::Derived(d) if resolved[*d].is_none() => Some(*d),
                    _ => None,
                });
                if let Some(d) = waiting {
                    if on_stack[d] {
                        return Err(self.error(
                            &key(d),
                            "derived moves refer to each other in a circle".into(),
                        ));
                    }
                    stack.push(d);
                    continue;
                }
                let mut t = Transformation::identity(moduli.len());
                let mut round = 0;
                for (part, amount) in &parts[i] {
                    let m = match part {
                        Part::Base(b) => &moves[*b].1,
                        Part::Derived(d) => {
                            let (m, r) = resolved[*d].as_ref().expect("resolved first");
                            round = round.max(r + usize::from(*d > i));
                            m
                        }
                    };
                    t = t.then(&power(m, *amount, moduli), moduli);
                }
                resolved[i] = Some((t, round));
                on_stack[i] = false;
                stack.pop();
            }
        }
        let mut order: Vec<usize> = (0..derived.len()).collect();
        order.sort_by_key(|&i| (resolved[i].as_ref().map(|r| r.1), i));
        for i in order {
            let (t, _) = resolved[i].take().expect("every entry resolved");
            moves.push((derived[i].0.clone(), t));
        }
        Ok(())
    }
}

/// `t` applied `amount` times (`amount` may be negative: the inverse), by repeated
/// squaring: a scramble's `R1000000000` takes thirty compositions, not a billion.
#[must_use]
pub fn power(t: &Transformation, amount: i64, moduli: &[u8]) -> Transformation {
    let mut base = if amount < 0 {
        t.inverse(moduli)
    } else {
        t.clone()
    };
    let mut out = Transformation::identity(t.permutation.len());
    let mut left = amount.unsigned_abs();
    while left > 0 {
        if left & 1 == 1 {
            out = out.then(&base, moduli);
        }
        left >>= 1;
        if left > 0 {
            base = base.then(&base, moduli);
        }
    }
    out
}

/// A move token of the cubing notation split into its move and amount: `R` 1, `R2`
/// 2, `R'` -1, `R2'` -2, `2R` (a move whose name starts with a digit) 1.
///
/// # Errors
/// A message if the text is not a power such as `2` or `'`.
pub fn split_amount(token: &str) -> Result<(&str, i64), String> {
    let (body, sign) = match token.strip_suffix('\'') {
        Some(body) => (body, -1),
        None => (token, 1),
    };
    let digits = body.len() - body.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (name, amount) = body.split_at(body.len() - digits);
    if name.is_empty() {
        return Err(format!("`{token}` names no move"));
    }
    let amount: i64 = if amount.is_empty() {
        1
    } else {
        amount
            .parse()
            .ok()
            .filter(|&a: &i64| a <= 1000)
            .ok_or_else(|| format!("`{token}`: amount out of range"))?
    };
    Ok((name, sign * amount))
}

/// The orientations of each flat position's orbit.
pub(crate) fn moduli_of(orbits: &[Orbit]) -> Vec<u8> {
    orbits
        .iter()
        .flat_map(|o| std::iter::repeat_n(o.orientations, o.pieces))
        .collect()
}

/// A goal set's name is written after `--goal`: letters, digits, `-` and `_`.
pub(crate) fn check_goal_name(name: &str) -> Result<(), String> {
    if !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        Ok(())
    } else {
        Err(format!("goal name `{name}`: letters, digits, `-` and `_`"))
    }
}

/// A move's name must survive being written as a token.
fn check_move_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.ends_with(|c: char| c.is_ascii_digit());
    if ok {
        Ok(())
    } else {
        Err(format!(
            "move name `{name}`: letters, digits and `_`, not ending in a digit (R2 is R twice)"
        ))
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawDefinition {
    name: String,
    orbits: Vec<RawOrbit>,
    default_pattern: BTreeMap<String, RawOrbitPattern>,
    moves: Ordered<Ordered<RawOrbitTransformation>>,
    #[serde(default)]
    derived_moves: Option<Ordered<String>>,
    #[serde(default)]
    antipode: Option<RawExtension>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawOrbit {
    orbit_name: String,
    num_pieces: u64,
    num_orientations: u64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawOrbitPattern {
    pieces: Vec<u64>,
    orientation: Vec<u64>,
    #[serde(default)]
    orientation_mod: Option<Vec<u64>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawOrbitTransformation {
    permutation: Vec<u64>,
    orientation_delta: Vec<u64>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawExtension {
    title: Option<String>,
    moves: Option<Vec<String>>,
    projections: Option<Ordered<String>>,
    symmetries: Option<Ordered<Ordered<RawOrbitTransformation>>>,
    goals: Option<Ordered<RawGoal>>,
}

/// A named goal set: one pattern's text, or several.
#[derive(Deserialize)]
#[serde(untagged)]
enum RawGoal {
    One(String),
    Several(Vec<String>),
}

/// A JSON object read in the file's order (moves keep the order they are written in).
struct Ordered<T>(Vec<(String, T)>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Ordered<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct OrderedVisitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for OrderedVisitor<T> {
            type Value = Ordered<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered<T>, A::Error> {
                let mut entries: Vec<(String, T)> = Vec::new();
                while let Some((key, value)) = map.next_entry::<String, T>()? {
                    if entries.iter().any(|(k, _)| *k == key) {
                        return Err(serde::de::Error::custom(format!("`{key}` appears twice")));
                    }
                    entries.push((key, value));
                }
                Ok(Ordered(entries))
            }
        }
        deserializer.deserialize_map(OrderedVisitor(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = r#"{
      "name": "swap",
      "orbits": [{ "orbitName": "P", "numPieces": 3, "numOrientations": 2 }],
      "defaultPattern": { "P": { "pieces": [0, 1, 2], "orientation": [0, 0, 0] } },
      "moves": { "A": { "P": { "permutation": [1, 0, 2], "orientationDelta": [1, 1, 0] } } },
      "derivedMoves": { "B": "A A'" }
    }"#;

    #[test]
    fn reads_moves_and_derived_moves() {
        let d = Definition::from_json("swap.json", TWO).unwrap();
        assert_eq!(d.positions(), 3);
        let a = d.find_move("A").unwrap();
        assert!(!a.is_identity());
        assert!(d.find_move("B").unwrap().is_identity());
        let after = a.apply(&d.default, &d.moduli);
        assert_eq!(after.pieces, [1, 0, 2]);
        assert_eq!(after.orientation, [1, 1, 0]);
        assert_eq!(
            a.then(&a.inverse(&d.moduli), &d.moduli),
            Transformation::identity(3)
        );
    }

    fn refused(text: &str) -> String {
        Definition::from_json("bad.json", text)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn orbit_sizes_that_would_wrap_around_are_refused() {
        for pieces in [u64::MAX, u64::MAX - 2, u64::MAX - 1, 65, 1 << 32] {
            let bad = TWO.replace(
                r#""orbits": [{ "orbitName": "P", "numPieces": 3, "numOrientations": 2 }]"#,
                &format!(
                    r#""orbits": [{{ "orbitName": "P", "numPieces": 3, "numOrientations": 2 }},
                    {{ "orbitName": "Q", "numPieces": {pieces}, "numOrientations": 1 }}]"#
                ),
            );
            assert_ne!(bad, TWO);
            assert_eq!(
                refused(&bad),
                "bad.json: orbits: more than 64 pieces in all orbits",
                "{pieces}"
            );
        }
        let bad = TWO.replace(r#""numOrientations": 2"#, r#""numOrientations": 258"#);
        assert_eq!(
            refused(&bad),
            "bad.json: orbits[0]: numOrientations 258 is out of range 1..=128"
        );
    }

    #[test]
    fn errors_name_the_key() {
        let bad = TWO.replace("[1, 0, 2]", "[1, 1, 2]");
        assert_eq!(
            refused(&bad),
            "bad.json: moves.A.P.permutation: [1, 1, 2] is not a permutation of 0..3"
        );
        let bad = TWO.replace("[1, 1, 0]", "[1, 2, 0]");
        assert_eq!(
            refused(&bad),
            "bad.json: moves.A.P.orientationDelta[1]: 2 is out of range 0..2"
        );
        let bad = TWO.replace("\"A A'\"", "\"A C\"");
        assert_eq!(
            refused(&bad),
            "bad.json: derivedMoves.B: unknown move `C` in `A C`"
        );
        let bad = TWO.replace("[1, 0, 2], \"o", "[1, 0], \"o");
        assert_eq!(
            refused(&bad),
            "bad.json: moves.A.P.permutation: 2 entries for an orbit of 3 pieces"
        );
        assert!(refused("{").starts_with("bad.json: line 1: EOF"));
    }

    /// `count` derived moves, each naming the next (the last names `A`), listed
    /// last first when `reversed`.
    fn chain(count: usize, reversed: bool) -> String {
        let mut entries: Vec<String> = (0..count)
            .map(|i| match i + 1 < count {
                true => format!("\"D{i}x\": \"D{}x\"", i + 1),
                false => format!("\"D{i}x\": \"A\""),
            })
            .collect();
        if reversed {
            entries.reverse();
        }
        TWO.replace("\"B\": \"A A'\"", &entries.join(", "))
    }

    #[test]
    fn derived_moves_resolve_in_one_pass_in_any_order() {
        // 3,000 entries listed last first took 73 s when every round of a scan over
        // the list resolved one entry.
        let started = std::time::Instant::now();
        for reversed in [false, true] {
            let d = Definition::from_json("chain.json", &chain(3000, reversed)).unwrap();
            assert_eq!(d.find_move("D0x"), d.find_move("A"));
            // The rounds' order: entries that name only known moves come first.
            let names: Vec<&str> = d.moves[1..4].iter().map(|(n, _)| n.as_str()).collect();
            assert_eq!(names, ["D2999x", "D2998x", "D2997x"]);
        }
        assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
        let circle = chain(3, false).replace("\"D2x\": \"A\"", "\"D2x\": \"D0x\"");
        assert_eq!(
            refused(&circle),
            "bad.json: derivedMoves.D0x: derived moves refer to each other in a circle"
        );
        let rounds = TWO.replace(
            "\"B\": \"A A'\"",
            "\"X\": \"Y\", \"B\": \"A\", \"C\": \"B B\", \"Y\": \"C\"",
        );
        let d = Definition::from_json("order.json", &rounds).unwrap();
        let names: Vec<&str> = d.moves.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["A", "B", "C", "Y", "X"]);
    }

    #[test]
    fn a_power_takes_logarithmic_compositions() {
        let d = Definition::from_json("swap.json", TWO).unwrap();
        let a = d.find_move("A").unwrap();
        // A swaps two pieces and flips both: its order is 2.
        assert_eq!(power(a, 1_000_000_000_001, &d.moduli), *a);
        assert!(power(a, -4_000_000_000_000, &d.moduli).is_identity());
        assert_eq!(
            power(a, 3, &d.moduli),
            a.then(a, &d.moduli).then(a, &d.moduli)
        );
    }
}
