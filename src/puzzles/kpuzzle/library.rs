//! The KPuzzle definitions shipped inside the binary, run by name; written by
//! `scripts/kpuzzle-geometry.py` from the puzzles' geometry.

use std::sync::Arc;

use super::census::{self, Census, CountedBy, SymmetryCensus};
use super::classes::KClasses;
use super::definition::{Definition, Transformation};
use super::pattern_classes::PatternClasses;
use super::relabel::{self, Kinds, Relabelling};
use super::symmetry::Symmetry;
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
            let symmetries = s.actions.len();
            let puzzle = format!("{} --symmetry", crate::Notation::name(&s.puzzle));
            let identical = !s.kinds.all_distinct();
            let index = class_index(s);
            let (classes, counted_by) = match (by_orbits, &index) {
                (Some(c), _) => (Some(c.classes), Some(CountedBy::Orbits)),
                (None, Ok(index)) => (Some(index.burnside_classes()), Some(CountedBy::ClassIndex)),
                (None, Err(_)) => (None, None),
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
                indices: index
                    .map(|index| crate::Puzzle::index_count(&index).into())
                    .map_err(|e| e.to_string()),
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

/// Why a goal of identical pieces has no class index yet.
const IDENTICAL_INDEX: &str = "symmetry classes: no class index yet for a goal whose pieces \
    look alike (the census counts them)";

/// The symmetries of `plain`'s moves (over `compact`'s positions): the definition's
/// rotations closed under composition, each checked against the goal's `kinds`, or
/// else every one the moves have.
fn symmetries_of(
    definition: &Definition,
    plain: &KPuzzle,
    compact: &symmetry::Compact,
    kinds: &Kinds,
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
        for (name, t) in &named {
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
        count,
        indices,
    );
    s.puzzle.with_pattern_classes(classes)
}

/// The class index of `s`: distinct pieces in order only, so far.
fn class_index(s: Symmetric) -> Result<KClasses, KPuzzleError> {
    if !s.kinds.all_distinct() {
        return Err(KPuzzleError::Option(IDENTICAL_INDEX.into()));
    }
    s.puzzle
        .compact()
        .map_err(|e| KPuzzleError::Option(e.to_string()))?;
    KClasses::new(s.puzzle, s.compact, s.actions, &s.unheld_moves, s.frame)
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
    let compact = plain.kept().map_err(option)?;
    let kinds = Kinds::of_goal(&compact, plain.goal())
        .map_err(|m| option(symmetry::SymmetryError::Goal(m)))?;
    let moves = compact_moves(&plain, &compact);
    let symmetries = symmetries_of(&definition, &plain, &compact, &kinds, &moves)?;
    // The symmetries of the moves that map the goal onto itself, kinds relabelled.
    let (symmetries, _): (Vec<Symmetry>, Vec<Relabelling>) = symmetries
        .into_iter()
        .filter_map(|s| {
            let r = relabel::relabelling(&s, &kinds, &compact.moduli).ok()?;
            Some((s, r))
        })
        .unzip();
    let mut actions = symmetry::distinct_actions(&symmetries, &moves, &compact.moduli);
    if !kinds.all_distinct() && variant.up_to_rotation {
        // A frame holds one piece home: none is alone of its kind to hold.
        plain.compact().map_err(option)?;
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
    Ok(Prepared::Symmetric(Symmetric {
        puzzle,
        compact,
        kinds,
        actions,
        relabellings,
        unheld_moves: moves,
        frame,
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
        assert!(c.indices.is_err());
        // twips #113: the positions of identical pieces are the patterns.
        assert_eq!(census("4x4x4-centres").unwrap().positions, Ok(735_471));
    }
}
