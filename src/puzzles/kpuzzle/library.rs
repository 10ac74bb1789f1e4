//! The KPuzzle definitions shipped inside the binary, run by name; written by
//! `scripts/kpuzzle-geometry.py` from the puzzles' geometry.

use std::sync::Arc;

use super::census::{self, Census, CountedBy, SymmetryCensus};
use super::classes::KClasses;
use super::definition::{Definition, Transformation};
use super::{KPuzzle, KPuzzleError, Variant, group, symmetry};

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
        Prepared::Symmetric(s) => Twisty::Classes(Box::new(KClasses::new(
            s.puzzle,
            s.compact,
            s.actions,
            &s.unheld_moves,
            s.frame,
        )?)),
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
/// assert_eq!(corners.positions, 88_179_840);
/// let classes = corners.symmetry.unwrap();
/// assert_eq!((classes.symmetries, classes.classes), (48, Some(1_841_970)));
/// ```
pub fn census(name: &str) -> Result<Census, KPuzzleError> {
    let (base, variant) = Variant::parse(name)?;
    match prepare(base, variant)? {
        Prepared::Plain(puzzle) => Ok(Census {
            puzzle: crate::Notation::name(&puzzle),
            positions: puzzle.group_order(),
            symmetry: None,
            indices: puzzle
                .index_count_wide()
                .filter(|&n| n <= u64::MAX as u128)
                .ok_or_else(|| {
                    "more than 2^64 indices, too large for a table (pattern databases: \
                     `antipode pdb`)"
                        .to_string()
                }),
        }),
        Prepared::Symmetric(s) => {
            let moves: Vec<Transformation> = s
                .puzzle
                .turn_transformations()
                .iter()
                .map(|t| s.compact.restrict(t))
                .collect();
            let refs: Vec<&Transformation> = moves.iter().collect();
            let positions = group::order(&refs, &s.compact.moduli);
            let by_orbits = match s.frame {
                None => census::burnside_by_orbits(&s.compact, &moves, positions, &s.actions),
                Some(_) => None,
            };
            let symmetries = s.actions.len();
            let puzzle = format!("{} --symmetry", crate::Notation::name(&s.puzzle));
            let index = KClasses::new(s.puzzle, s.compact, s.actions, &s.unheld_moves, s.frame);
            let (classes, counted_by) = match (by_orbits, &index) {
                (Some(c), _) => (Some(c), Some(CountedBy::Orbits)),
                (None, Ok(index)) => (Some(index.burnside_classes()), Some(CountedBy::ClassIndex)),
                (None, Err(_)) => (None, None),
            };
            Ok(Census {
                puzzle,
                positions,
                symmetry: Some(SymmetryCensus {
                    symmetries,
                    classes,
                    counted_by,
                }),
                indices: index
                    .map(|index| crate::Puzzle::index_count(&index).into())
                    .map_err(|e| e.to_string()),
            })
        }
    }
}

/// A twisty puzzle up to its class index: its positions, or the parts its classes are
/// indexed from.
enum Prepared {
    Plain(KPuzzle),
    Symmetric(Symmetric),
}

/// What [`KClasses::new`] is built from.
struct Symmetric {
    /// The puzzle (held in its frame, if any).
    puzzle: KPuzzle,
    compact: symmetry::Compact,
    /// One symmetry per action, the identity first.
    actions: Vec<symmetry::Symmetry>,
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
    let compact = plain.compact().map_err(option)?;
    let moves: Vec<Transformation> = plain
        .turn_transformations()
        .iter()
        .map(|t| compact.restrict(t))
        .collect();
    let symmetries = if definition.symmetries.is_empty() {
        let generators: Vec<usize> = plain
            .turns()
            .iter()
            .enumerate()
            .filter(|(_, t)| t.amount == 1)
            .map(|(k, _)| k)
            .collect();
        symmetry::symmetries_with_mirrors(&moves, &generators, &compact).map_err(option)?
    } else {
        let named: Vec<(String, Transformation)> = definition
            .symmetries
            .iter()
            .map(|(n, t)| (n.clone(), compact.restrict(t)))
            .collect();
        symmetry::close(&named, &moves, &compact.moduli)
            .map_err(option)?
            .into_iter()
            .map(symmetry::Symmetry::plain)
            .collect()
    };
    let mut actions = symmetry::distinct_actions(&symmetries, &moves, &compact.moduli);
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
    Ok(Prepared::Symmetric(Symmetric {
        puzzle,
        compact,
        actions,
        unheld_moves: moves,
        frame,
    }))
}
