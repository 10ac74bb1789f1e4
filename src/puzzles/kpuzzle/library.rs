//! The KPuzzle definitions shipped inside the binary, run by name; written by
//! `scripts/kpuzzle-geometry.py` from the puzzles' geometry.

use std::sync::Arc;

use super::census::{self, Census, CountedBy, SymmetryCensus};
use super::classes::KClasses;
use super::definition::{Definition, Transformation};
use super::pattern_classes::PatternClasses;
use super::pattern_index::PatternIndex;
use super::relabel::{self, Kinds, Relabelling};
use super::symmetry::Symmetry;
use super::{KPuzzle, KPuzzleError, Variant, goal, group, symmetry};

/// `(name, file name, text)` of every shipped definition.
pub const SHIPPED: &crate::puzzles::description::Shipped = &[
    (
        "2x2x2",
        "2x2x2.kpuzzle.json",
        include_str!("library/2x2x2.kpuzzle.json"),
    ),
    (
        "pyraminx",
        "pyraminx.kpuzzle.json",
        include_str!("library/pyraminx.kpuzzle.json"),
    ),
    (
        "skewb",
        "skewb.kpuzzle.json",
        include_str!("library/skewb.kpuzzle.json"),
    ),
    (
        "compy",
        "compy.kpuzzle.json",
        include_str!("library/compy.kpuzzle.json"),
    ),
    (
        "3x3x3",
        "3x3x3.kpuzzle.json",
        include_str!("library/3x3x3.kpuzzle.json"),
    ),
    (
        "3x3x3-corners",
        "3x3x3-corners.kpuzzle.json",
        include_str!("library/3x3x3-corners.kpuzzle.json"),
    ),
    (
        "3x3x3-edges",
        "3x3x3-edges.kpuzzle.json",
        include_str!("library/3x3x3-edges.kpuzzle.json"),
    ),
    (
        "3x3x3-three-colour",
        "3x3x3-three-colour.kpuzzle.json",
        include_str!("library/3x3x3-three-colour.kpuzzle.json"),
    ),
    (
        "4x4x4-centres",
        "4x4x4-centres.kpuzzle.json",
        include_str!("library/4x4x4-centres.kpuzzle.json"),
    ),
];

/// The shipped definition named `name`: its file name and text.
#[must_use]
pub fn shipped(name: &str) -> Option<(&'static str, &'static str)> {
    crate::puzzles::description::shipped(SHIPPED, name)
}

/// Whether `name` (without options) is a KPuzzle's: a shipped name or a
/// `.kpuzzle.json` / `.json` path.
#[must_use]
pub fn is_kpuzzle_name(base: &str) -> bool {
    shipped(base).is_some() || base.ends_with(".json") || super::tws::is_tws_path(base)
}

/// Opens the KPuzzle `name` names: a shipped name or a path, with options
/// (`3x3x3 --orbits CORNERS`, `2x2x2 --metric quarter`).
///
/// # Errors
/// [`KPuzzleError`] if no shipped definition has this name, or it cannot be ranked.
///
/// ```
/// use antipode::Puzzle;
/// use antipode::puzzles::kpuzzle::library::open;
///
/// let cube = open("2x2x2").unwrap();
/// assert_eq!(cube.index_count(), 3_674_160);
/// assert_eq!(cube.group_order(), 3_674_160);
/// ```
pub fn open(name: &str) -> Result<KPuzzle, KPuzzleError> {
    let (base, mut variant) = Variant::parse(name)?;
    variant.symmetry = false;
    match open_variant(base, variant)? {
        Twisty::Plain(p) => Ok(*p),
        Twisty::Classes(c) => Ok(c.base().clone()),
    }
}

/// A twisty puzzle as a name opens it: its positions, or (`--symmetry`) their
/// symmetry classes.
#[derive(Debug, Clone)]
pub enum Twisty {
    /// One index per position.
    Plain(Box<KPuzzle>),
    /// One index per symmetry class.
    Classes(Box<KClasses>),
}

/// Opens the twisty puzzle `name` names, with `--symmetry` and `--up-to-rotation`.
///
/// # Errors
/// [`KPuzzleError`] if the name is neither shipped nor a readable definition file.
///
/// ```
/// use antipode::Puzzle;
/// use antipode::puzzles::kpuzzle::library::{Twisty, open_any};
///
/// let Twisty::Classes(p) = open_any("pyraminx --symmetry").unwrap() else { panic!() };
/// assert_eq!(p.symmetry_count(), 24); // the tetrahedron's 12 rotations and 12 mirrors
/// assert_eq!(p.positions(), 933_120);
/// ```
pub fn open_any(name: &str) -> Result<Twisty, KPuzzleError> {
    let (base, variant) = Variant::parse(name)?;
    open_variant(base, variant)
}

fn read_definition(base: &str) -> Result<Definition, KPuzzleError> {
    Ok(match shipped(base) {
        Some((file, text)) => Definition::from_json(file, text)?,
        None => {
            let text = std::fs::read_to_string(base).map_err(|e| {
                KPuzzleError::Definition(super::definition::DefinitionError {
                    file: base.into(),
                    key: String::new(),
                    message: e.to_string(),
                })
            })?;
            if super::tws::is_tws_path(base) {
                super::tws::read(base, &text)?
            } else {
                Definition::from_json(base, &text)?
            }
        }
    })
}

fn open_variant(base: &str, variant: Variant) -> Result<Twisty, KPuzzleError> {
    Ok(match prepare(base, variant)? {
        Prepared::Plain(puzzle) => Twisty::Plain(Box::new(puzzle)),
        Prepared::Symmetric(s) if !s.kinds.all_distinct() => {
            Twisty::Plain(Box::new(with_pattern_classes(s)))
        }
        Prepared::Symmetric(s) => Twisty::Classes(Box::new(class_index(s)?)),
    })
}

/// A census of the twisty puzzle `name` names, without a search: its positions, with
/// `--symmetry` its classes (Burnside's count) and the slots of its class index (or
/// why it has none), in seconds.
///
/// # Errors
/// [`KPuzzleError`] if the name is neither shipped nor a readable definition file, or
/// it has no symmetry.
///
/// ```
/// use antipode::puzzles::kpuzzle::library::census;
///
/// let corners = census("3x3x3-corners --symmetry").unwrap();
/// assert_eq!(corners.positions, Ok(88_179_840));
/// let classes = corners.symmetry.unwrap();
/// assert_eq!((classes.symmetries, classes.classes), (48, Some(1_841_970)));
/// ```
pub fn census(name: &str) -> Result<Census, KPuzzleError> {
    let (base, variant) = Variant::parse(name)?;
    let suffix = if variant.symmetry { " --symmetry" } else { "" };
    match prepare(base, variant)? {
        Prepared::Plain(puzzle) => {
            let (order, positions) = plain_positions(&puzzle);
            Ok(Census {
                puzzle: crate::Notation::name(&puzzle),
                positions,
                group_order: order,
                symmetry: None,
                indices: puzzle
                    .index_count_wide()
                    .filter(|&n| n <= u64::MAX as u128)
                    .ok_or_else(|| {
                        "more than 2^64 indices, too large for a table (pattern databases: \
                         `antipode pdb`)"
                            .to_string()
                    }),
            })
        }
        Prepared::Symmetric(s) => {
            let moves = compact_moves(&s.puzzle, &s.compact);
            let refs: Vec<&Transformation> = moves.iter().collect();
            let order = group::order(&refs, &s.compact.moduli);
            let relabelled: Vec<_> = s
                .actions
                .iter()
                .cloned()
                .zip(s.relabellings.iter().cloned())
                .collect();
            let by_orbits = match s.frame {
                None => {
                    census::burnside_by_orbits(&s.compact, &s.kinds, &moves, order, &relabelled)
                }
                Some(_) => None,
            };
            let rotations = s.rotation.iter().filter(|&&r| r).count();
            // Up to rotation, the positions are the rotations' classes.
            let by_orbits = match by_orbits {
                Some(count) if rotations > 1 => {
                    let rotating: Vec<_> = relabelled
                        .iter()
                        .zip(&s.rotation)
                        .filter(|(_, r)| **r)
                        .map(|(a, _)| a.clone())
                        .collect();
                    census::burnside_by_orbits(&s.compact, &s.kinds, &moves, order, &rotating).map(
                        |r| census::OrbitCount {
                            positions: r.classes,
                            classes: count.classes,
                        },
                    )
                }
                other => other,
            };
            let symmetries = s.actions.len() / rotations;
            let puzzle = format!("{}{suffix}", crate::Notation::name(&s.puzzle));
            let identical = !s.kinds.all_distinct();
            let (index, burnside) = if identical {
                (pattern_index_slots(s), None)
            } else if by_orbits.is_some() {
                // The classes are counted: the index's slots alone, without numbering
                // its classes where that is long.
                (class_index_slots(s).map(u128::from), None)
            } else {
                match class_index(s) {
                    // The index's own count walks every symmetric class (long on a
                    // large index): only where the orbits do not give the count.
                    Ok(index) => (
                        Ok(crate::Puzzle::index_count(&index).into()),
                        by_orbits.is_none().then(|| index.burnside_classes()),
                    ),
                    Err(e) => (Err(e), None),
                }
            };
            let (classes, counted_by) = match (by_orbits, burnside) {
                (Some(c), _) => (Some(c.classes), Some(CountedBy::Orbits)),
                (None, Some(classes)) => (Some(classes), Some(CountedBy::ClassIndex)),
                (None, None) => (None, None),
            };
            let positions = match by_orbits {
                Some(c) => Ok(c.positions),
                None if identical => Err(IDENTICAL_UNCOUNTED.into()),
                None => Ok(order),
            };
            Ok(Census {
                puzzle,
                positions,
                group_order: order,
                symmetry: Some(SymmetryCensus {
                    symmetries,
                    classes,
                    counted_by,
                }),
                indices: index.map_err(|e| e.to_string()),
            })
        }
    }
}

/// The order of the group `puzzle`'s moves generate on the positions it keeps, and
/// its positions: that order where its pieces are distinct, else the patterns counted
/// orbit by orbit (or why not).
fn plain_positions(puzzle: &KPuzzle) -> (u128, Result<u128, String>) {
    let Ok(compact) = puzzle.kept() else {
        return (
            puzzle.group_order(),
            Err(
                "not counted: the projection keeps part of an orbit (its blanks look \
                 alike); its indices are below"
                    .into(),
            ),
        );
    };
    let moves = compact_moves(puzzle, &compact);
    let refs: Vec<&Transformation> = moves.iter().collect();
    let order = group::order(&refs, &compact.moduli);
    let positions = match Kinds::of_goal(&compact, puzzle.goal()) {
        Ok(kinds) if !kinds.all_distinct() => {
            let identity = identity_symmetry(&compact, &kinds);
            census::burnside_by_orbits(&compact, &kinds, &moves, order, &identity)
                .map(|count| count.positions)
                .ok_or_else(|| IDENTICAL_UNCOUNTED.to_string())
        }
        _ => Ok(order),
    };
    (order, positions)
}

/// Why a census of identical pieces has no positions.
const IDENTICAL_UNCOUNTED: &str = "not counted: its pieces look alike and its moves are not \
    of the shape the census counts orbit by orbit";

/// Why a goal of identical pieces has no class index.
const IDENTICAL_INDEX: &str = "symmetry classes: no class index for this goal whose pieces \
    look alike (the census counts them)";

/// The symmetries of `plain`'s moves (over `compact`'s positions): the definition's
/// rotations closed under composition, each checked against the goal's `kinds` (but
/// `up_to_rotation`), or else every one the moves have.
fn symmetries_of(
    definition: &Definition,
    plain: &KPuzzle,
    compact: &symmetry::Compact,
    (kinds, up_to_rotation): (&Kinds, bool),
    moves: &[Transformation],
) -> Result<Vec<Symmetry>, KPuzzleError> {
    let option = |e: symmetry::SymmetryError| KPuzzleError::Option(e.to_string());
    Ok(if definition.symmetries.is_empty() {
        let generators: Vec<usize> = plain
            .turns()
            .iter()
            .enumerate()
            .filter(|(_, t)| t.amount == 1)
            .map(|(k, _)| k)
            .collect();
        symmetry::symmetries_with_mirrors(moves, &generators, compact).map_err(option)?
    } else {
        let named: Vec<(String, Transformation)> = definition
            .symmetries
            .iter()
            .map(|(n, t)| (n.clone(), compact.restrict(t)))
            .collect();
        // An error names where the rotation is written.
        let placed = |e: symmetry::SymmetryError| {
            let place = match &e {
                symmetry::SymmetryError::NotASymmetry { name, .. } => definition
                    .symmetries
                    .iter()
                    .position(|(n, _)| n == name)
                    .and_then(|k| definition.symmetry_places.get(k)),
                _ => None,
            };
            match place {
                Some(place) => KPuzzleError::Option(format!("{place}: {e}")),
                None => option(e),
            }
        };
        // Up to rotation a rotation keeps the colours: it need not map the goal's
        // kinds onto kinds.
        for (name, t) in named.iter().filter(|_| !up_to_rotation) {
            relabel::relabelling(&Symmetry::plain(t.clone()), kinds, &compact.moduli).map_err(
                |why| {
                    placed(symmetry::SymmetryError::NotASymmetry {
                        name: name.clone(),
                        why: format!("{why} of the goal"),
                    })
                },
            )?;
        }
        symmetry::close(&named, moves, &compact.moduli)
            .map_err(placed)?
            .into_iter()
            .map(symmetry::Symmetry::plain)
            .collect()
    })
}

/// The puzzle of `s` (a goal of identical pieces) with one index per class of
/// patterns ([`PatternClasses`]).
fn with_pattern_classes(s: Symmetric) -> KPuzzle {
    let (puzzle, classes) = pattern_classes(s);
    puzzle.with_pattern_classes(classes)
}

/// The plain puzzle of `s` (a goal of identical pieces) and its classes of patterns,
/// not yet indexed.
fn pattern_classes(s: Symmetric) -> (KPuzzle, PatternClasses) {
    let moves = compact_moves(&s.puzzle, &s.compact);
    let refs: Vec<&Transformation> = moves.iter().collect();
    let order = group::order(&refs, &s.compact.moduli);
    let symmetries: Vec<(Symmetry, Relabelling)> =
        s.actions.into_iter().zip(s.relabellings).collect();
    let count = census::burnside_by_orbits(&s.compact, &s.kinds, &moves, order, &symmetries);
    let indices = crate::Puzzle::index_count(&s.puzzle);
    let classes = PatternClasses::new(
        s.compact,
        &s.kinds,
        s.puzzle.goal(),
        symmetries,
        s.rotation,
        count,
        indices,
    );
    (s.puzzle, classes)
}

/// The slots of the class index of `s` (a goal of identical pieces), counted
/// without building its tables.
fn pattern_index_slots(s: Symmetric) -> Result<u128, KPuzzleError> {
    let (puzzle, classes) = pattern_classes(s);
    match PatternIndex::new(&puzzle, &classes, false) {
        Some(index) => Ok(index.index_count().into()),
        None => Err(KPuzzleError::Option(IDENTICAL_INDEX.into())),
    }
}

/// Whether `s` can have a class index: distinct pieces in order only, so far.
fn indexable(s: &Symmetric) -> Result<(), KPuzzleError> {
    if !s.kinds.all_distinct() {
        return Err(KPuzzleError::Option(IDENTICAL_INDEX.into()));
    }
    s.puzzle
        .compact()
        .map(|_| ())
        .map_err(|e| KPuzzleError::Option(e.to_string()))
}

/// The class index of `s`.
fn class_index(s: Symmetric) -> Result<KClasses, KPuzzleError> {
    indexable(&s)?;
    KClasses::new(s.puzzle, s.compact, s.actions, &s.unheld_moves, s.frame)
}

/// The slots [`class_index`] would take, counted without it where that is long.
fn class_index_slots(s: Symmetric) -> Result<u64, KPuzzleError> {
    indexable(&s)?;
    KClasses::index_slots(&s.puzzle, s.compact, s.actions, &s.unheld_moves, s.frame)
}

/// The moves of `puzzle` over `compact`'s positions.
fn compact_moves(puzzle: &KPuzzle, compact: &symmetry::Compact) -> Vec<Transformation> {
    puzzle
        .turn_transformations()
        .iter()
        .map(|t| compact.restrict(t))
        .collect()
}

/// The identity alone, as a census of positions takes it.
fn identity_symmetry(compact: &symmetry::Compact, kinds: &Kinds) -> Vec<(Symmetry, Relabelling)> {
    let identity = Symmetry::plain(Transformation::identity(compact.len()));
    let relabelling = relabel::relabelling(&identity, kinds, &compact.moduli)
        .expect("the identity relabels nothing");
    vec![(identity, relabelling)]
}

/// A twisty puzzle up to its class index: its positions, or the parts its classes are
/// indexed from.
#[allow(clippy::large_enum_variant)] // one value per opening, moved once
enum Prepared {
    Plain(KPuzzle),
    Symmetric(Symmetric),
}

/// What [`KClasses::new`] is built from.
struct Symmetric {
    /// The puzzle (held in its frame, if any).
    puzzle: KPuzzle,
    compact: symmetry::Compact,
    /// The goal's kinds of pieces.
    kinds: Kinds,
    /// One symmetry per action, the identity first.
    actions: Vec<symmetry::Symmetry>,
    /// How each action relabels the kinds.
    relabellings: Vec<Relabelling>,
    /// Which actions are rotations of the whole puzzle that keep the colours (the
    /// identity alone but up to rotation with identical pieces).
    rotation: Vec<bool>,
    /// The moves over the compact positions, before a frame holds a piece.
    unheld_moves: Vec<Transformation>,
    frame: Option<symmetry::Frame>,
}

fn prepare(base: &str, variant: Variant) -> Result<Prepared, KPuzzleError> {
    let definition = read_definition(base)?;
    let plain_variant = Variant {
        symmetry: false,
        up_to_rotation: false,
        ..variant.clone()
    };
    let plain = KPuzzle::new(base, Arc::new(definition.clone()), plain_variant)?;
    if !variant.symmetry && !variant.up_to_rotation {
        return Ok(Prepared::Plain(plain));
    }
    let option = |e: symmetry::SymmetryError| KPuzzleError::Option(e.to_string());
    let compact = kept_positions(&plain)?;
    let kinds = Kinds::of_goal(&compact, plain.goal())
        .map_err(|m| option(symmetry::SymmetryError::Goal(m)))?;
    let moves = compact_moves(&plain, &compact);
    let rotating = variant.up_to_rotation && !kinds.all_distinct();
    let of_moves = symmetries_of(&definition, &plain, &compact, (&kinds, rotating), &moves)?;
    // The symmetries of the moves that map the goal onto itself, kinds relabelled.
    let (symmetries, _): (Vec<Symmetry>, Vec<Relabelling>) = of_moves
        .iter()
        .filter_map(|s| {
            let r = relabel::relabelling(s, &kinds, &compact.moduli).ok()?;
            Some((s.clone(), r))
        })
        .unzip();
    let mut actions = symmetry::distinct_actions(&symmetries, &moves, &compact.moduli);
    if !kinds.all_distinct() && variant.up_to_rotation {
        // No piece is alone of its kind for a frame to hold home: the rotations
        // (colours kept) join the symmetries as a group of their own.
        let named = !definition.symmetries.is_empty();
        return rotation_classes(
            plain,
            compact,
            kinds,
            (&of_moves, named),
            actions,
            &variant,
            moves,
        );
    }
    let frame = if variant.up_to_rotation {
        let plain: Vec<Transformation> = symmetries
            .iter()
            .filter(|s| !s.mirror)
            .map(|s| s.s.clone())
            .collect();
        let frame = symmetry::Frame::new(&plain, &moves, &compact).map_err(option)?;
        actions.retain(|s| frame.normalized_by(s, &compact.moduli));
        Some(frame)
    } else {
        None
    };
    keep_goal_symmetries(&plain, (&kinds, &compact), &definition, &mut actions)?;
    if variant.symmetry && actions.len() < 2 {
        return Err(option(symmetry::SymmetryError::None(
            crate::Notation::name(&plain),
        )));
    }
    let puzzle = if let Some(frame) = &frame {
        let mut framed = definition.clone();
        for (_, t) in framed.moves.iter_mut() {
            let local = compact.restrict(t);
            let r = frame.reference;
            let slot = local.permutation[r] as usize * compact.moduli[r].max(1) as usize
                + local.delta[r] as usize;
            if frame.bring_home.get(slot).copied().flatten().is_none() {
                continue;
            }
            let held = frame.normalize(&local, &compact.moduli);
            for (i, &p) in compact.kept.iter().enumerate() {
                t.permutation[p] = compact.kept[held.permutation[i] as usize] as u8;
                t.delta[p] = held.delta[i];
            }
        }
        let held_variant = Variant {
            symmetry: false,
            ..variant.clone()
        };
        KPuzzle::new(base, Arc::new(framed), held_variant)?
    } else {
        plain
    };
    if !variant.symmetry {
        return Ok(Prepared::Plain(puzzle));
    }
    let relabellings = actions
        .iter()
        .map(|s| relabel::relabelling(s, &kinds, &compact.moduli).expect("kept above"))
        .collect();
    let mut rotation = vec![false; actions.len()];
    rotation[0] = true;
    Ok(Prepared::Symmetric(Symmetric {
        puzzle,
        compact,
        kinds,
        actions,
        relabellings,
        rotation,
        unheld_moves: moves,
        frame,
    }))
}

/// The positions `plain`'s symmetries act on (whole orbits).
fn kept_positions(plain: &KPuzzle) -> Result<symmetry::Compact, KPuzzleError> {
    plain.kept().map_err(|e| match plain.goal_patterns() {
        Some(_) => KPuzzleError::Option(format!("--goal with --symmetry: {e}")),
        None => KPuzzleError::Option(e.to_string()),
    })
}

/// With a goal set (`--goal`): only the symmetries in `actions` that map it onto
/// itself kept, which keep the distances to it.
///
/// # Errors
/// If its pieces look alike, or no symmetry but the identity is kept.
fn keep_goal_symmetries(
    plain: &KPuzzle,
    (kinds, compact): (&Kinds, &symmetry::Compact),
    definition: &Definition,
    actions: &mut Vec<Symmetry>,
) -> Result<(), KPuzzleError> {
    let Some(patterns) = plain.goal_patterns() else {
        return Ok(());
    };
    if !kinds.all_distinct() {
        return Err(KPuzzleError::Option(
            "--goal with --symmetry: the goal set leaves pieces that look alike \
             (name every piece of the orbits it keeps, or analyze it without)"
                .into(),
        ));
    }
    actions.retain(|s| goal::maps_onto_itself(s, patterns, compact, definition));
    if actions.len() < 2 {
        return Err(KPuzzleError::Option(
            "--goal with --symmetry: no symmetry but the identity maps the goal set onto \
             itself"
                .into(),
        ));
    }
    Ok(())
}

/// `r` with each orbit's pieces twisted alike so that it keeps the orbit's twist sum
/// (what a rotation of the whole puzzle does), or `None` if no such twist does;
/// an error where more than one does (the rotation is not known: the definition
/// must name it).
fn keeping_twist_sums(
    mut r: Symmetry,
    compact: &symmetry::Compact,
) -> Result<Option<Symmetry>, KPuzzleError> {
    let mut orbits: Vec<u8> = compact.orbit.clone();
    orbits.dedup();
    for orbit in orbits {
        let places: Vec<usize> = (0..compact.len())
            .filter(|&i| compact.orbit[i] == orbit)
            .collect();
        let m = u32::from(compact.moduli[places[0]]);
        if m < 2 {
            continue;
        }
        let sum: u32 = places.iter().map(|&i| u32::from(r.s.delta[i])).sum();
        let n = places.len() as u32;
        let twists: Vec<u32> = (0..m).filter(|t| (sum + n * t).is_multiple_of(m)).collect();
        match twists[..] {
            [] => return Ok(None),
            [t] => {
                for &i in &places {
                    r.s.delta[i] = ((u32::from(r.s.delta[i]) + t) % m) as u8;
                }
            }
            _ => {
                return Err(KPuzzleError::Option(
                    "--up-to-rotation: the rotations of pieces that look alike and twist \
                     are not known from the moves (a twist of a whole orbit keeps its \
                     sum): name them in the definition (antipode.symmetries, or .tws \
                     Rotation blocks)"
                        .into(),
                ));
            }
        }
    }
    Ok(Some(r))
}

/// The most symmetries (rotations with the goal's symmetries) of a goal of identical
/// pieces up to rotation.
const MAX_ROTATION_GROUP: usize = 1 << 16;

/// Positions up to rotation of a goal of identical pieces: classes under the whole
/// puzzle's rotations (`of_moves` without mirrors, each keeping the colours; as the
/// definition names them, or found from the moves) and,
/// with `--symmetry`, the goal's own symmetries (`goal_symmetries`, kinds
/// relabelled): the group they generate.
fn rotation_classes(
    mut plain: KPuzzle,
    compact: symmetry::Compact,
    kinds: Kinds,
    (of_moves, definition_names_symmetries): (&[Symmetry], bool),
    goal_symmetries: Vec<Symmetry>,
    variant: &Variant,
    moves: Vec<Transformation>,
) -> Result<Prepared, KPuzzleError> {
    let option = |e: symmetry::SymmetryError| KPuzzleError::Option(e.to_string());
    // Rotations are found within orbits. One that exchanged two orbits of one shape
    // (half the FTO's rotations, which swap its two orbits of triangles) would put
    // each orbit's pieces where the moves never take them: pieces of two orbits are
    // different pieces, however alike they look, so such a rotation takes every
    // position out of the space and relates none of its positions to another.
    // A rotation takes each turn to a turn the same way round (a mirror reverses
    // them, even where no piece twists to tell).
    let amounts: Vec<_> = plain.turns().iter().map(|t| t.amount).collect();
    let rotations: Vec<Symmetry> = of_moves
        .iter()
        .filter(|s| {
            !s.mirror
                && symmetry::move_permutation(s, &moves, &compact.moduli)
                    .iter()
                    .enumerate()
                    .all(|(k, &to)| amounts[k] != 1 || amounts.get(to as usize) == Some(&1))
        })
        .cloned()
        .collect();
    let rotations = symmetry::distinct_actions(&rotations, &moves, &compact.moduli);
    // Found from the moves, a rotation is known up to a twist of a whole orbit (it
    // conjugates every move alike); the rotation itself keeps each orbit's twist sum.
    let rotations = if definition_names_symmetries {
        rotations
    } else {
        rotations
            .into_iter()
            .map(|r| keeping_twist_sums(r, &compact))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .flatten()
            .collect()
    };
    let mut generators: Vec<relabel::Action> = rotations
        .into_iter()
        .map(|s| (s, Relabelling::identity(&kinds)))
        .collect();
    if variant.symmetry {
        for s in goal_symmetries {
            let r = relabel::relabelling(&s, &kinds, &compact.moduli).expect("kept above");
            generators.push((s, r));
        }
    }
    let group = relabel::closure(&generators, &kinds, &compact.moduli, MAX_ROTATION_GROUP)
        .ok_or_else(|| {
            KPuzzleError::Option(format!(
                "more than {MAX_ROTATION_GROUP} rotations and symmetries together"
            ))
        })?;
    let rotation: Vec<bool> = group
        .iter()
        .map(|(s, r)| !s.mirror && r.is_identity())
        .collect();
    let rotations = rotation.iter().filter(|&&r| r).count();
    if variant.symmetry && group.len() == rotations {
        return Err(KPuzzleError::Option(format!(
            "{}: up to rotation, no symmetry is left: every symmetry of the goal is a \
             rotation of the whole puzzle",
            crate::Notation::name(&plain)
        )));
    }
    if rotations < 2 {
        return Err(option(symmetry::SymmetryError::Goal(
            "--up-to-rotation: the moves have no rotation of the whole puzzle".into(),
        )));
    }
    plain.variant.up_to_rotation = true;
    let (actions, relabellings) = group.into_iter().unzip();
    Ok(Prepared::Symmetric(Symmetric {
        puzzle: plain,
        compact,
        kinds,
        actions,
        relabellings,
        rotation,
        unheld_moves: moves,
        frame: None,
    }))
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, HashSet};

    use super::*;
    use crate::puzzle::Puzzle;
    use crate::puzzles::kpuzzle::definition::Pattern;

    /// The positions and the classes of `name`'s patterns, one by one: every pattern
    /// the moves reach (`every`: every index is one), and class by class the images
    /// of one under every symmetry (kinds relabelled).
    fn by_hand(name: &str, every: bool) -> (u128, u128) {
        let (base, variant) = Variant::parse(name).unwrap();
        let Prepared::Symmetric(s) = prepare(base, variant).unwrap() else {
            panic!("{name}: no symmetries")
        };
        let plain = s.puzzle.clone();
        let compact = &s.compact;
        let label_of_kind: HashMap<u16, (u8, u8)> = compact
            .kept
            .iter()
            .zip(&compact.orbit)
            .map(|(&p, &o)| {
                (
                    s.kinds.of[compact.kept.iter().position(|&q| q == p).unwrap()],
                    (o, plain.goal().pieces[p]),
                )
            })
            .collect();
        let kind_of_label: HashMap<(u8, u8), u16> =
            label_of_kind.iter().map(|(&k, &l)| (l, k)).collect();
        // The positions: a search by the plain puzzle's own neighbours, or (where
        // every index is one, as the plain search finds) all of its indices.
        let mut reached = vec![every; plain.index_count() as usize];
        let mut frontier = if every {
            Vec::new()
        } else {
            vec![plain.rank(plain.goal())]
        };
        if let Some(&goal) = frontier.first() {
            reached[goal as usize] = true;
        }
        while !frontier.is_empty() {
            let mut next = Vec::new();
            plain.expand_sorted(&frontier, |_, neighbours| {
                for &n in neighbours {
                    if !std::mem::replace(&mut reached[n as usize], true) {
                        next.push(n);
                    }
                }
            });
            next.sort_unstable();
            frontier = next;
        }
        let seen: HashSet<u64> = (0..reached.len() as u64)
            .filter(|&i| reached[i as usize])
            .collect();
        // Class by class: the images of a position not met yet under every symmetry
        // are its class.
        let mut met = HashSet::new();
        let mut classes = 0u128;
        for &index in &seen {
            if met.contains(&index) {
                continue;
            }
            classes += 1;
            let pattern = plain.unrank(index);
            let kinds: Vec<u16> = compact
                .kept
                .iter()
                .zip(&compact.orbit)
                .map(|(&p, &o)| kind_of_label[&(o, pattern.pieces[p])])
                .collect();
            let twists: Vec<u8> = compact
                .kept
                .iter()
                .map(|&p| pattern.orientation[p])
                .collect();
            for (sym, r) in s.actions.iter().zip(&s.relabellings) {
                let (k, t) = relabel::apply(sym, r, &compact.moduli, &kinds, &twists);
                let mut image: Pattern = pattern.clone();
                for (i, &p) in compact.kept.iter().enumerate() {
                    image.pieces[p] = label_of_kind[&k[i]].1;
                    image.orientation[p] = t[i];
                }
                let r = plain.rank(&image);
                assert!(seen.contains(&r), "{name}: a symmetry leaves the positions");
                met.insert(r);
            }
        }
        (seen.len() as u128, classes)
    }

    fn counted(name: &str) -> (u128, u128) {
        let c = census(name).unwrap();
        (c.positions.unwrap(), c.symmetry.unwrap().classes.unwrap())
    }

    #[test]
    fn classes_of_identical_pieces_are_counted_as_one_by_one() {
        // Two colours of centres (a symmetry keeps the U-D axis; every arrangement of
        // the colours is a position, 735,471, as the plain search finds in
        // tests/it) ...
        let centres = "4x4x4-centres --symmetry";
        assert_eq!(counted(centres), by_hand(centres, true));
        // ... and corners of two kinds that twist, with all six faces turning (a
        // symmetry may swap the kinds).
        let dir = std::env::temp_dir().join(format!("antipode-kinds-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("two-kinds.kpuzzle.json");
        let text = SHIPPED.iter().find(|s| s.0 == "2x2x2").unwrap().2.replace(
            "\"pieces\": [0, 1, 2, 3, 4, 5, 6, 7]",
            "\"pieces\": [0, 1, 0, 1, 1, 0, 1, 0]",
        );
        assert!(text.contains("[0, 1, 0, 1, 1, 0, 1, 0]"));
        std::fs::write(&path, text).unwrap();
        let name = format!("{} --moves U,D,R,L,F,B --symmetry", path.display());
        let hand = by_hand(&name, false);
        assert_eq!(counted(&name), hand);
        assert_eq!(hand.0, 70 * 3u128.pow(7));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Positions up to rotation per depth, by hand: the plain search's depths, each
    /// rotation class at the least depth of its patterns (a position's distance up to
    /// rotation is its distance to the nearest rotation of the goal).
    fn up_to_rotation_by_hand(plain: &KPuzzle, classes: &PatternClasses) -> Vec<u128> {
        let a = crate::analysis::analyze(plain, 0, &crate::driver::Control::default()).unwrap();
        let mut depth = vec![u8::MAX; plain.index_count() as usize];
        let goal = plain.rank(plain.goal());
        depth[goal as usize] = 0;
        let mut frontier = vec![goal];
        for d in 1.. {
            let mut next = Vec::new();
            plain.expand_sorted(&frontier, |_, neighbours| {
                for &n in neighbours {
                    if depth[n as usize] == u8::MAX {
                        depth[n as usize] = d;
                        next.push(n);
                    }
                }
            });
            if next.is_empty() {
                break;
            }
            next.sort_unstable();
            frontier = next;
        }
        assert_eq!(
            depth.iter().filter(|&&d| d != u8::MAX).count() as u64,
            a.reachable
        );
        let rotations: Vec<usize> = (0..classes.symmetry_count())
            .filter(|&k| classes.is_rotation(k))
            .collect();
        let mut by_depth = vec![0u128; 32];
        let mut image = plain.goal().clone();
        for index in 0..plain.index_count() {
            if depth[index as usize] == u8::MAX {
                continue;
            }
            let pattern = plain.unrank(index);
            let members: Vec<u64> = rotations
                .iter()
                .map(|&k| {
                    classes.image_into(&pattern, k, &mut image);
                    plain.rank(&image)
                })
                .collect();
            // Each class counted once (by its least rank), at its least depth.
            if members.iter().min() == Some(&index) {
                let least = members.iter().map(|&r| depth[r as usize]).min().unwrap();
                by_depth[least as usize] += 1;
            }
        }
        while by_depth.last() == Some(&0) {
            by_depth.pop();
        }
        by_depth
    }

    #[test]
    fn identical_pieces_up_to_rotation_are_rotation_classes() {
        let run = |name: &str| {
            let Twisty::Plain(p) = open_any(name).unwrap() else {
                panic!("{name}: pattern classes")
            };
            let a = crate::analysis::analyze(&*p, 0, &crate::driver::Control::default()).unwrap();
            (p, a)
        };
        // The 4x4x4's centres: the 24 rotations of the cube (a mirror reverses the
        // turns), every class one position up to rotation.
        let (centres, a) = run("4x4x4-centres --up-to-rotation");
        let classes = centres.pattern_classes().unwrap();
        // Each antipode's moves from the goal reach its class, though the descent
        // from it may end at a rotation of the goal.
        let shown =
            crate::analysis::analyze(&*centres, 18, &crate::driver::Control::default()).unwrap();
        assert_eq!(shown.antipode_moves.len(), 18);
        for (moves, antipode) in shown.antipode_moves.iter().zip(&shown.antipodes) {
            let reached = crate::Notation::parse(&*centres, moves).unwrap();
            let antipode = crate::Notation::parse(&*centres, antipode).unwrap();
            assert_eq!(centres.rank(&reached), centres.rank(&antipode), "{moves}");
        }
        assert_eq!(classes.rotation_count(), 24);
        assert_eq!(classes.symmetry_count(), 24);
        let expected = up_to_rotation_by_hand(&open("4x4x4-centres").unwrap(), classes);
        assert_eq!(a.classes.as_ref().unwrap().positions_by_depth, expected);
        assert_eq!(
            a.histogram
                .iter()
                .map(|&n| u128::from(n))
                .collect::<Vec<_>>(),
            expected
        );
        // Corners of two kinds that twist: the rotations, and with --symmetry the
        // goal's symmetries too (kinds swapped): the same positions up to rotation.
        let dir = std::env::temp_dir().join(format!("antipode-rotation-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("two-kinds.kpuzzle.json");
        let text = SHIPPED.iter().find(|s| s.0 == "2x2x2").unwrap().2.replace(
            "\"pieces\": [0, 1, 2, 3, 4, 5, 6, 7]",
            "\"pieces\": [0, 1, 0, 1, 1, 0, 1, 0]",
        );
        std::fs::write(&path, text).unwrap();
        let name = format!("{} --moves U,D,R,L,F,B", path.display());
        let (rotated, a) = run(&format!("{name} --up-to-rotation"));
        let classes = rotated.pattern_classes().unwrap();
        assert_eq!(classes.rotation_count(), 24);
        let expected = up_to_rotation_by_hand(&open(&name).unwrap(), classes);
        assert_eq!(a.classes.as_ref().unwrap().positions_by_depth, expected);
        let (symmetric, b) = run(&format!("{name} --up-to-rotation --symmetry"));
        let c = b.classes.as_ref().unwrap();
        assert!(symmetric.pattern_classes().unwrap().symmetry_count() > 24);
        assert_eq!(c.positions_by_depth, expected);
        assert!(b.reachable < a.reachable);
        assert_eq!(c.burnside_classes, b.reachable as u128);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_three_colour_cube_has_the_published_classes() {
        // B. Norskog (2011): 10,863,756,288,000 positions of the 3-colour cube and
        // 226,331,259,372 classes under the cube's 48 symmetries.
        let c = census("3x3x3-three-colour --symmetry").unwrap();
        assert_eq!(c.positions, Ok(10_863_756_288_000));
        assert_eq!(c.group_order, 43_252_003_274_489_856_000);
        let symmetry = c.symmetry.unwrap();
        assert_eq!(symmetry.symmetries, 48);
        assert_eq!(symmetry.classes, Some(226_331_259_372));
        // A tight index: the corners' classes (3,393) times the edges' arrangements
        // with twists (the last twist of each orbit implied), 1.064x the classes.
        assert_eq!(c.indices, Ok(240_778_137_600));
        // Its plain ranking numbers exactly the positions.
        assert_eq!(
            open("3x3x3-three-colour").unwrap().index_count_wide(),
            Some(10_863_756_288_000)
        );
        // twips #113: the positions of identical pieces are the patterns.
        assert_eq!(census("4x4x4-centres").unwrap().positions, Ok(735_471));
    }
}
