//! The KPuzzle definitions shipped inside the binary, run by name; written by
//! `scripts/kpuzzle-geometry.py` from the puzzles' geometry.

use std::sync::Arc;

use super::definition::Definition;
use super::{KPuzzle, KPuzzleError, Variant};

/// `(name, file name, text)` of every shipped definition.
pub const SHIPPED: &[(&str, &str, &str)] = &[
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
pub fn shipped(name: &str) -> Option<(&'static str, &'static str)> {
    SHIPPED
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|&(_, file, text)| (file, text))
}

/// Whether `name` (without options) is a KPuzzle's: a shipped name or a
/// `.kpuzzle.json` / `.json` path.
pub fn is_kpuzzle_name(base: &str) -> bool {
    shipped(base).is_some() || base.ends_with(".json")
}

/// Opens the KPuzzle `name` names: a shipped name or a path, with options
/// (`3x3x3 --orbits CORNERS`, `2x2x2 --metric quarter`).
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
    let (base, variant) = Variant::parse(name)?;
    let definition = match shipped(base) {
        Some((file, text)) => Definition::from_json(file, text)?,
        None => {
            let text = std::fs::read_to_string(base).map_err(|e| {
                KPuzzleError::Definition(super::definition::DefinitionError {
                    file: base.into(),
                    key: String::new(),
                    message: e.to_string(),
                })
            })?;
            Definition::from_json(base, &text)?
        }
    };
    KPuzzle::new(base, Arc::new(definition), variant)
}
