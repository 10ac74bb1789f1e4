//! The KPuzzle definitions shipped inside the binary, run by name; written by
//! `scripts/kpuzzle-geometry.py` from the puzzles' geometry.

use std::sync::Arc;

use super::classes::KClasses;
use super::definition::{Definition, Transformation};
use super::{KPuzzle, KPuzzleError, Variant, symmetry};

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
    let definition = read_definition(base)?;
    let plain_variant = Variant {
        symmetry: false,
        up_to_rotation: false,
        ..variant.clone()
    };
    let plain = KPuzzle::new(base, Arc::new(definition.clone()), plain_variant)?;
    if !variant.symmetry && !variant.up_to_rotation {
        return Ok(Twisty::Plain(Box::new(plain)));
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
        return Ok(Twisty::Plain(Box::new(puzzle)));
    }
    Ok(Twisty::Classes(Box::new(KClasses::new(
        puzzle, compact, actions, &moves, frame,
    )?)))
}
