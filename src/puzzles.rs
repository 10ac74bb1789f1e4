//! The built-in puzzles, one module per family, and the one catalog that maps
//! command-line names to them.
//!
//! A family is one entry of [`FAMILIES`] (its name pattern, description, members for
//! `antipode list` and constructor) plus, for puzzles the engine analyzes, one variant
//! of [`AnyPuzzle`]. `list`, `analyze`, `lookup`, `solve`, table files and `verify`
//! all go through [`open`], so a new family touches this file and its own module only:
//! the module implements [`Puzzle`] (with its start position) and
//! [`crate::search::Solvable`].

pub mod blocks;
pub mod description;
pub mod kpuzzle;
pub mod notation;
pub mod oshidori;
pub mod peg;
pub mod sliding;

use crate::puzzle::{Notation, PositionError, Puzzle};
pub use blocks::{BlockPuzzle, Metric};
pub use kpuzzle::KPuzzle;
pub use oshidori::Oshidori;
use peg::PegBoard;
pub use sliding::SlidingPuzzle;

/// Why a puzzle name (or a goal given with it) was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CatalogError {
    /// No puzzle has that name.
    #[error("unknown puzzle `{0}` ({hint}`antipode list` shows them all)", hint = did_you_mean(.0))]
    Unknown(String),
    /// A family's name with unreadable parameters.
    #[error("bad parameter in `{name}`: expected `{pattern}`")]
    BadParameter {
        /// The name given.
        name: String,
        /// The family's pattern.
        pattern: &'static str,
    },
    /// Parameters the family cannot take.
    #[error("{0}")]
    OutOfRange(String),
    /// A goal the puzzle cannot take.
    #[error("bad goal: {0}")]
    Goal(String),
    /// A description file that cannot be read.
    #[error("{path}: {cause}")]
    File {
        /// The file.
        path: String,
        /// The system's reason.
        cause: String,
    },
    /// A description that is malformed or too large to index.
    #[error("{0}")]
    Description(String),
    /// An option the puzzle does not take.
    #[error("{0}")]
    Option(String),
    /// A peg solitaire board: searched by jumps, not over one ranked state space.
    #[error(
        "{0} is a peg solitaire board: it has no depth table (its moves cannot be undone); \
         `analyze {0} --table` writes its table of the boards that can still be solved"
    )]
    NotRanked(String),
    /// Not a sliding board (what pattern databases are built for).
    #[error("{0} is not a sliding board")]
    NotSliding(String),
}

/// A puzzle of any family the engine analyzes.
#[derive(Debug, Clone)]
pub enum AnyPuzzle {
    /// A sliding-tile board.
    Sliding(SlidingPuzzle),
    /// Oshidori (seed 003).
    Oshidori(Oshidori),
    /// A sliding-block puzzle from a description file.
    Blocks(Box<BlockPuzzle>),
    /// A twisty puzzle from a KPuzzle definition.
    KPuzzle(Box<KPuzzle>),
    /// A twisty puzzle's symmetry classes (`--symmetry`).
    KClasses(Box<kpuzzle::classes::KClasses>),
}

/// Runs `$body` with `$p` bound to (a reference to) the concrete puzzle inside a
/// borrowed [`AnyPuzzle`].
#[macro_export]
macro_rules! with_puzzle {
    ($any:expr, $p:ident => $body:expr) => {
        match $any {
            $crate::puzzles::AnyPuzzle::Sliding($p) => $body,
            $crate::puzzles::AnyPuzzle::Oshidori($p) => $body,
            $crate::puzzles::AnyPuzzle::Blocks($p) => {
                let $p = &**$p;
                $body
            }
            $crate::puzzles::AnyPuzzle::KPuzzle($p) => {
                let $p = &**$p;
                $body
            }
            $crate::puzzles::AnyPuzzle::KClasses($p) => {
                let $p = &**$p;
                $body
            }
        }
    };
}

impl AnyPuzzle {
    /// The puzzle that a search from the position `root` (one-line form) runs over:
    /// the puzzle itself, or where its indices are symmetry classes, the classes under
    /// the symmetries that fix `root` ([`kpuzzle::classes::KClasses::fixing`]), so
    /// that the search measures the distance to `root` and not to its images; where
    /// the identity alone fixes it, the positions themselves (the puzzle the classes
    /// are taken of). A root that does not parse is left to the caller's parse, which
    /// says why.
    ///
    /// # Errors
    /// [`CatalogError::Option`] if the classes under that subgroup cannot be indexed.
    ///
    /// ```
    /// use antipode::puzzles::{self, AnyPuzzle};
    ///
    /// let pyraminx = puzzles::lookup("pyraminx --symmetry").unwrap();
    /// let AnyPuzzle::KClasses(classes) = pyraminx.clone().fixing("U").unwrap() else {
    ///     unreachable!()
    /// };
    /// assert_eq!(classes.symmetry_count(), 3); // of 24
    /// // Only the identity fixes U L: its positions.
    /// assert!(matches!(pyraminx.fixing("U L").unwrap(), AnyPuzzle::KPuzzle(_)));
    /// ```
    pub fn fixing(self, root: &str) -> Result<AnyPuzzle, CatalogError> {
        if let AnyPuzzle::KPuzzle(puzzle) = &self
            && puzzle.pattern_classes().is_some()
        {
            let Ok(root) = Notation::parse(&**puzzle, root) else {
                return Ok(self);
            };
            return Ok(AnyPuzzle::KPuzzle(Box::new(
                puzzle.fixing_pattern_classes(&root),
            )));
        }
        let AnyPuzzle::KClasses(classes) = &self else {
            return Ok(self);
        };
        let Ok(root) = Notation::parse(&**classes, root) else {
            return Ok(self);
        };
        let fixing = classes
            .fixing(&root)
            .map_err(|e| CatalogError::Option(e.to_string()))?;
        if fixing.symmetry_count() == 1 {
            return Ok(AnyPuzzle::KPuzzle(Box::new(classes.base().clone())));
        }
        Ok(AnyPuzzle::KClasses(Box::new(fixing)))
    }

    /// The index of a position given as cells (row by row, the tile in each, 0 the
    /// blank), for programs that hold boards as bytes rather than text. Sliding boards
    /// only; the cells are checked ([`sliding::BoardShape::check_cells`]).
    ///
    /// # Errors
    /// [`PositionError`] if the cells are not a legal state of this puzzle.
    ///
    /// ```
    /// use antipode::Notation;
    /// let puzzle = antipode::puzzles::lookup("8puzzle").unwrap();
    /// let index = puzzle.rank_cells(&[8, 6, 7, 2, 5, 4, 3, 0, 1]).unwrap();
    /// antipode::with_puzzle!(&puzzle, p => {
    ///     use antipode::Puzzle;
    ///     assert_eq!(p.format_line(&p.unrank(index)), "867/254/301");
    /// });
    /// assert!(puzzle.rank_cells(&[1, 2, 3]).is_err());
    /// ```
    pub fn rank_cells(&self, cells: &[u8]) -> Result<u64, PositionError> {
        match self {
            AnyPuzzle::Sliding(p) => {
                sliding::BoardShape::of(p).check_cells(cells)?;
                Ok(p.rank(&sliding::Board::from_cells(cells)))
            }
            _ => Err(PositionError::Malformed(format!(
                "{} positions are given as text; cells are read for sliding boards",
                self.name()
            ))),
        }
    }

    /// The puzzle's command-line name.
    #[must_use]
    pub fn name(&self) -> String {
        with_puzzle!(self, p => p.name())
    }

    /// The puzzle's number of indices.
    #[must_use]
    pub fn index_count(&self) -> u64 {
        with_puzzle!(self, p => p.index_count())
    }

    /// The same puzzle counted in another move metric (sliding-block puzzles only).
    ///
    /// # Errors
    /// [`CatalogError`] if the puzzle has no such metric (only sliding-block puzzles
    /// have several).
    pub fn with_metric(self, metric: Metric) -> Result<AnyPuzzle, CatalogError> {
        match self {
            AnyPuzzle::Blocks(p) => Ok(AnyPuzzle::Blocks(Box::new(p.with_metric(metric)))),
            AnyPuzzle::KClasses(p) => Err(CatalogError::Option(format!(
                "the metric {} is for sliding-block puzzles; {} is a twisty puzzle: \
                 its metrics are half and quarter",
                metric.name(),
                p.base().base_name()
            ))),
            AnyPuzzle::KPuzzle(p) => Err(CatalogError::Option(format!(
                "the metric {} is for sliding-block puzzles; {} is a twisty puzzle: \
                 its metrics are half and quarter",
                metric.name(),
                p.base_name()
            ))),
            other => Err(CatalogError::Option(format!(
                "a move metric is for sliding-block puzzles from description files, not {}",
                other.name()
            ))),
        }
    }

    /// The same puzzle with the goal `text` (one position in the puzzle's syntax).
    /// Only sliding boards take another goal; the others accept their own goal summary.
    ///
    /// # Errors
    /// [`CatalogError`] if the puzzle takes no other goal or `goal` is not one of its
    /// positions.
    pub fn with_goal(self, text: &str) -> Result<AnyPuzzle, CatalogError> {
        match self {
            AnyPuzzle::Sliding(p) => {
                let goal = p
                    .parse_goal(text)
                    .map_err(|e| CatalogError::Goal(e.to_string()))?;
                Ok(AnyPuzzle::Sliding(p.with_goal(goal)))
            }
            other => {
                if with_puzzle!(&other, p => p.goal_summary()) == text {
                    Ok(other)
                } else {
                    Err(CatalogError::Goal(format!(
                        "another goal is only for sliding-tile boards, not {}",
                        other.name()
                    )))
                }
            }
        }
    }
}

/// What a name opens: a ranked puzzle for the engine, or a peg solitaire board that
/// is searched by jumps.
#[derive(Debug, Clone)]
pub enum Opened {
    /// A puzzle with a ranked state space.
    Ranked(AnyPuzzle),
    /// A peg solitaire board.
    Peg(PegBoard),
}

/// A line of `antipode list`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CatalogEntry {
    /// Command-line name (or pattern, for a family's parameter range).
    pub name: String,
    /// What it is.
    pub description: String,
    /// The number of indices (states) of a full table; `None` for puzzles searched
    /// forward, a family's whole range, or more than 2^64.
    pub indices: Option<u64>,
    /// Whether `pdb` builds pattern databases for it (and `solve --pdb` uses them):
    /// the way on when a full table is too large.
    pub databases: bool,
    /// Puzzles searched forward (peg solitaire): the memory `analyze` needs, in bytes.
    pub search_bytes: Option<u64>,
}

/// One family of puzzles.
pub struct Family {
    /// The names it takes: a name, or a pattern such as `sliding:RxC`.
    pub pattern: &'static str,
    /// What the family is.
    pub description: &'static str,
    /// The range of its parameters (empty for a family without parameters).
    pub parameters: &'static str,
    /// The puzzle a name denotes; `None` if the name is not this family's.
    open: fn(&str) -> Option<Result<Opened, CatalogError>>,
    /// The lines the family shows in `antipode list`.
    entries: fn() -> Vec<CatalogEntry>,
}

/// The sliding boards `antipode list` names (any `sliding:RxC` up to 16 cells works).
const LISTED_BOARDS: [(usize, usize); 10] = [
    (2, 2),
    (2, 3),
    (2, 4),
    (3, 3),
    (2, 5),
    (2, 6),
    (3, 4),
    (2, 7),
    (2, 8),
    (4, 4),
];

/// The shipped puzzles' names and the sliding boards' short names.
fn known_names() -> Vec<&'static str> {
    let mut names = vec!["8puzzle", "11puzzle", "15puzzle", "24puzzle", "oshidori"];
    for shipped in [
        peg::library::SHIPPED,
        kpuzzle::library::SHIPPED,
        blocks::library::SHIPPED,
    ] {
        names.extend(shipped.iter().map(|&(name, _, _)| name));
    }
    names
}

/// `did you mean `NAME`? ` for the known name closest to `name` (letters and digits
/// compared, case ignored), or nothing when none is close.
fn did_you_mean(name: &str) -> String {
    let plain = |s: &str| -> String {
        s.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let wanted = plain(name);
    known_names()
        .into_iter()
        .map(|known| {
            (
                strsim::normalized_damerau_levenshtein(&wanted, &plain(known)),
                known,
            )
        })
        .filter(|&(score, _)| score >= 0.7)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map_or(String::new(), |(_, known)| {
            format!("did you mean `{known}`? ")
        })
}

/// Every family, in the order `antipode list` shows them.
pub static FAMILIES: &[Family] = &[
    Family {
        pattern: "sliding:RxC",
        description: "sliding tiles on R x C cells (8puzzle, 11puzzle, 15puzzle: 3x3, 3x4, 4x4)",
        parameters: "R, C >= 2 and R*C <= 16",
        open: open_sliding,
        entries: || {
            LISTED_BOARDS
                .iter()
                .map(|&(r, c)| {
                    let p = SlidingPuzzle::new(r, c).expect("listed sizes are valid");
                    let description = if p.name().starts_with("sliding:") {
                        format!("sliding tiles {r}x{c}")
                    } else {
                        format!("sliding tiles {r}x{c} (also `sliding:{r}x{c}`)")
                    };
                    CatalogEntry {
                        databases: true,
                        ..ranked_entry(p.name(), description, p.index_count())
                    }
                })
                .chain(std::iter::once(CatalogEntry {
                    name: "24puzzle".into(),
                    description: "sliding tiles 5x5, 25!/2 = 7.8e24 states".into(),
                    indices: None,
                    databases: true,
                    search_bytes: None,
                }))
                .collect()
        },
    },
    Family {
        pattern: "oshidori:K",
        description: "Oshidori: K kinds of two stones and two blanks in a row; \
                      `oshidori` is the classic B W B W B W . . (seed 003)",
        parameters: "K = 1..9",
        open: open_oshidori,
        entries: || {
            let classic = Oshidori::classic();
            vec![
                ranked_entry(
                    "oshidori".into(),
                    "Oshidori, B W B W B W . . (seed 003)".into(),
                    classic.index_count(),
                ),
                CatalogEntry {
                    name: format!("oshidori:1..{}", oshidori::MAX_KINDS),
                    description: "Oshidori with K kinds of two stones, (2K+1) (2K)!/2^K indices"
                        .into(),
                    indices: None,
                    databases: false,
                    search_bytes: None,
                },
            ]
        },
    },
    Family {
        pattern: "hoppers, english33, ..., PEG.toml",
        description: "peg solitaire boards from description files, searched by jumps from \
                      the start: the shipped ones by name, any other by its path",
        parameters: "a description file with `lattice` or `directions` (README: the format)",
        open: open_peg,
        entries: || {
            peg::library::SHIPPED
                .iter()
                .map(|&(name, _, _)| {
                    let board = PegBoard::shipped(name).expect("shipped descriptions are valid");
                    CatalogEntry {
                        name: name.into(),
                        description: format!(
                            "{} (peg solitaire; searched by jumps)",
                            board.title()
                        ),
                        indices: None,
                        databases: false,
                        search_bytes: Some(peg::two_levels_bytes(
                            board.holes(),
                            1,
                            board.start().count_ones(),
                        )),
                    }
                })
                .collect()
        },
    },
    Family {
        pattern: "2x2x2, ..., FILE.kpuzzle.json",
        description: "twisty puzzles from KPuzzle definitions (cubing.js's JSON): the shipped \
                      ones by name, any other by its path; --moves, --metric quarter",
        parameters: "a KPuzzle definition (README: twisty puzzles)",
        open: open_kpuzzle,
        entries: || {
            kpuzzle::library::SHIPPED
                .iter()
                .map(|&(name, _, _)| {
                    let p = kpuzzle::library::open(name).expect("shipped definitions are valid");
                    CatalogEntry {
                        name: name.into(),
                        description: format!(
                            "{} (moves {})",
                            p.title(),
                            p.generator_names().join(", ")
                        ),
                        indices: p.index_count_wide().and_then(|n| u64::try_from(n).ok()),
                        databases: true,
                        search_bytes: None,
                    }
                })
                .collect()
        },
    },
    Family {
        pattern: "klotski, ..., FILE.toml",
        description: "sliding-block puzzles from description files: the shipped ones by \
                      name, any other by its path",
        parameters: "a description file (README: the format)",
        open: open_blocks,
        entries: || {
            blocks::library::SHIPPED
                .iter()
                .map(|&(name, file, text)| {
                    let p =
                        BlockPuzzle::from_text(file, text).expect("shipped descriptions are valid");
                    ranked_entry(
                        name.into(),
                        format!("{} ({} metric)", p.title(), p.metric().name()),
                        p.index_count(),
                    )
                })
                .collect()
        },
    },
];

fn ranked_entry(name: String, description: String, indices: u64) -> CatalogEntry {
    CatalogEntry {
        name,
        description,
        indices: Some(indices),
        databases: false,
        search_bytes: None,
    }
}

/// The rows and columns a sliding board's name asks for (`None`: not such a name).
fn sliding_size(name: &str) -> Option<Result<(usize, usize), CatalogError>> {
    Some(Ok(match name {
        "8puzzle" => (3, 3),
        "11puzzle" => (3, 4),
        "15puzzle" => (4, 4),
        "24puzzle" => (5, 5),
        _ => {
            let size = name.strip_prefix("sliding:")?;
            let parsed = size
                .split_once(['x', 'X'])
                .and_then(|(r, c)| Some((r.parse::<usize>().ok()?, c.parse::<usize>().ok()?)));
            match parsed {
                Some(size) => size,
                None => {
                    return Some(Err(CatalogError::BadParameter {
                        name: name.into(),
                        pattern: "sliding:RxC (e.g. sliding:3x4)",
                    }));
                }
            }
        }
    }))
}

fn open_sliding(name: &str) -> Option<Result<Opened, CatalogError>> {
    Some(sliding_size(name)?.and_then(|(rows, cols)| {
        SlidingPuzzle::new(rows, cols)
            .map(|p| Opened::Ranked(AnyPuzzle::Sliding(p)))
            .map_err(|e| CatalogError::OutOfRange(e.to_string()))
    }))
}

/// The shape of the sliding board `name` names, up to
/// [`sliding::MAX_SHAPE_CELLS`] cells (the 24-puzzle too: pattern databases need no
/// full ranking); `None` if `name` is not a sliding board's.
#[must_use]
pub fn board_shape(name: &str) -> Option<Result<sliding::BoardShape, CatalogError>> {
    Some(sliding_size(name)?.and_then(|(rows, cols)| {
        sliding::BoardShape::new(rows, cols).map_err(|e| CatalogError::OutOfRange(e.to_string()))
    }))
}

fn open_blocks(name: &str) -> Option<Result<Opened, CatalogError>> {
    let ranked = |p| Opened::Ranked(AnyPuzzle::Blocks(Box::new(p)));
    let description = |e: blocks::BlocksError| CatalogError::Description(e.to_string());
    if let Some((file, text)) = blocks::library::shipped(name) {
        return Some(
            BlockPuzzle::from_text(file, text)
                .map(ranked)
                .map_err(description),
        );
    }
    if !name.ends_with(".toml") && !name.contains('/') {
        return None;
    }
    let text = match std::fs::read_to_string(name) {
        Ok(text) => text,
        Err(e) => {
            return Some(Err(CatalogError::File {
                path: name.into(),
                cause: e.to_string(),
            }));
        }
    };
    Some(
        BlockPuzzle::from_text(name, &text)
            .map(ranked)
            .map_err(description),
    )
}

/// A peg solitaire board: a shipped one by name, or a description file (a `.toml`
/// with a `lattice` or `directions` key; other `.toml` files are sliding blocks').
fn open_peg(name: &str) -> Option<Result<Opened, CatalogError>> {
    let description = |e: description::DescriptionError| CatalogError::Description(e.to_string());
    if let Some((file, text)) = peg::library::shipped(name) {
        return Some(
            PegBoard::from_text(file, text)
                .map(Opened::Peg)
                .map_err(description),
        );
    }
    if !name.ends_with(".toml") && !name.contains('/') {
        return None;
    }
    let text = std::fs::read_to_string(name).ok()?;
    let keys: toml::Table = toml::from_str(&text).ok()?;
    if !keys.contains_key("lattice") && !keys.contains_key("directions") {
        return None;
    }
    Some(
        PegBoard::from_text(name, &text)
            .map(Opened::Peg)
            .map_err(description),
    )
}

/// A twisty puzzle: a shipped KPuzzle definition or a `.json` file, with options
/// (`3x3x3 --orbits CORNERS`, `2x2x2 --metric quarter`).
fn open_kpuzzle(name: &str) -> Option<Result<Opened, CatalogError>> {
    let base = name.split(" --").next().unwrap_or_default();
    if !kpuzzle::library::is_kpuzzle_name(base) {
        return None;
    }
    Some(open_ranked_kpuzzle(name))
}

/// Opens a KPuzzle whose states can be numbered in 64 bits.
fn open_ranked_kpuzzle(name: &str) -> Result<Opened, CatalogError> {
    let description = |e: kpuzzle::KPuzzleError| CatalogError::Description(e.to_string());
    let p = match kpuzzle::library::open_any(name).map_err(description)? {
        kpuzzle::library::Twisty::Classes(classes) => {
            return Ok(Opened::Ranked(AnyPuzzle::KClasses(classes)));
        }
        kpuzzle::library::Twisty::Plain(p) => *p,
    };
    let indices = p.index_count_wide();
    match p.layout() {
        Err(e) => Err(CatalogError::Description(e.to_string())),
        Ok(_) if indices.is_none_or(|n| n > u64::MAX as u128) => {
            Err(CatalogError::Description(format!(
                "{} has {} indices, more than a table can number (2^64): solve it with \
             pattern databases of its projections (`solve {} --pdb ...`, `pdb {} --orbits ...`)",
                p.base_name(),
                crate::units::thousands_wide(indices.unwrap_or_default()),
                p.base_name(),
                p.base_name(),
            )))
        }
        Ok(_) => Ok(Opened::Ranked(AnyPuzzle::KPuzzle(Box::new(p)))),
    }
}

fn open_oshidori(name: &str) -> Option<Result<Opened, CatalogError>> {
    if name == "oshidori" {
        return Some(Ok(Opened::Ranked(AnyPuzzle::Oshidori(Oshidori::classic()))));
    }
    let kinds = name.strip_prefix("oshidori:")?;
    let Ok(k) = kinds.parse::<usize>() else {
        return Some(Err(CatalogError::BadParameter {
            name: name.into(),
            pattern: "oshidori:K (e.g. oshidori:4)",
        }));
    };
    Some(
        Oshidori::with_kinds(k)
            .map(|p| Opened::Ranked(AnyPuzzle::Oshidori(p)))
            .map_err(|e| CatalogError::OutOfRange(e.to_string())),
    )
}

/// Opens the puzzle a command-line name denotes.
///
/// # Errors
/// [`CatalogError`] if no puzzle, shipped definition or description file has this name,
/// or the file does not define a puzzle.
pub fn open(name: &str) -> Result<Opened, CatalogError> {
    FAMILIES
        .iter()
        .find_map(|family| (family.open)(name))
        .unwrap_or_else(|| Err(CatalogError::Unknown(name.into())))
}

/// The sliding board `name` names (any board of up to 32 cells: the 24-puzzle too,
/// which is too large for a full table), with the goal `goal` if given.
///
/// # Errors
/// [`CatalogError`] if the name is not a board size such as `sliding:3x4`, or the board
/// is too large to rank.
///
/// ```
/// let board = antipode::puzzles::sliding_board("24puzzle", None).unwrap();
/// assert_eq!(board.cells(), 25);
/// assert!(antipode::puzzles::sliding_board("goat", None).is_err());
/// ```
pub fn sliding_board(name: &str, goal: Option<&str>) -> Result<sliding::BoardShape, CatalogError> {
    let Some(shape) = board_shape(name) else {
        // Not a sliding board's name: say what it is.
        let name = match open(name)? {
            Opened::Ranked(p) => p.name(),
            Opened::Peg(board) => board.name().to_string(),
        };
        return Err(CatalogError::NotSliding(name));
    };
    let shape = shape?;
    match goal {
        None => Ok(shape),
        Some(goal) => shape
            .with_goal(goal)
            .map_err(|e| CatalogError::Option(format!("the goal: {e}"))),
    }
}

/// Opens the puzzle `name` denotes with, optionally, another goal (sliding boards) and
/// another move metric (sliding-block puzzles), as the command line's `--goal` and
/// `--metric` ask.
///
/// # Errors
/// [`CatalogError`] as [`open`], and if the goal or metric does not apply.
///
/// ```
/// use antipode::puzzles::{self, Metric, Opened};
///
/// let Opened::Ranked(klotski) = puzzles::open_with("klotski", None, Some(Metric::Step)).unwrap()
/// else { unreachable!() };
/// assert_eq!(klotski.name(), "klotski");
/// assert!(puzzles::open_with("goat", Some("1 2 3"), None).is_err());
/// ```
pub fn open_with(
    name: &str,
    goal: Option<&str>,
    metric: Option<Metric>,
) -> Result<Opened, CatalogError> {
    let mut opened = open(name)?;
    if let Some(metric) = metric {
        opened = match opened {
            Opened::Ranked(p) => Opened::Ranked(p.with_metric(metric)?),
            Opened::Peg(board) => {
                return Err(CatalogError::Option(format!(
                    "a move metric is for sliding-block puzzles from description files, not {}",
                    board.name()
                )));
            }
        };
    }
    match (goal, opened) {
        (None, opened) => Ok(opened),
        (Some(goal), Opened::Ranked(p)) => {
            Ok(Opened::Ranked(p.with_goal(goal).map_err(|e| {
                CatalogError::Option(format!("the goal: {e}"))
            })?))
        }
        (Some(goal), Opened::Peg(board)) => {
            let goal = board
                .parse_goal(goal)
                .map_err(|e| CatalogError::Option(format!("the goal: {e}")))?;
            Ok(Opened::Peg(board.with_goal(goal)))
        }
    }
}

/// How to open a puzzle beyond its name, as a command's options or a binding's
/// keyword arguments give it: another goal, another move metric, the generators and
/// the symmetry classes of a twisty puzzle ([`open_options`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// Another goal: a position of a sliding board or a block puzzle, a peg board's
    /// goal (`one-peg`, a hole number or a board), a twisty puzzle's goal set (a name
    /// from its definition, or patterns with `?` wildcards joined by `|`).
    pub goal: Option<String>,
    /// Another move metric: `step`, `line` or `path` for sliding-block puzzles,
    /// `half` or `quarter` for twisty puzzles.
    pub metric: Option<String>,
    /// A twisty puzzle's generators (default: its definition's).
    pub moves: Option<Vec<String>>,
    /// A twisty puzzle whose pieces fix no frame: positions that differ by a
    /// whole-puzzle rotation are one.
    pub up_to_rotation: bool,
    /// A twisty puzzle's symmetry classes: one index per class of positions.
    pub symmetry: bool,
}

impl Options {
    /// The puzzle's name with the twisty options written into it as names carry them
    /// (`2x2x2 --symmetry --metric quarter`), or the name itself where none is asked
    /// for.
    ///
    /// # Errors
    /// [`CatalogError::Option`] if a twisty option is asked of another puzzle.
    pub fn name(&self, name: &str) -> Result<String, CatalogError> {
        let twisty_metric = self
            .metric
            .as_deref()
            .and_then(kpuzzle::TurnMetric::from_name);
        let twisty_goal = self.goal.as_ref().filter(|_| self.is_twisty(name));
        if self.moves.is_none()
            && twisty_metric.is_none()
            && !self.up_to_rotation
            && !self.symmetry
            && twisty_goal.is_none()
        {
            return Ok(name.to_string());
        }
        let (base, mut variant) =
            kpuzzle::Variant::parse(name).map_err(|e| CatalogError::Option(e.to_string()))?;
        if !kpuzzle::library::is_kpuzzle_name(base) {
            let asked = [
                (self.symmetry, "symmetry classes"),
                (self.moves.is_some(), "generators"),
                (twisty_metric.is_some(), "the half and quarter metrics"),
                (self.up_to_rotation, "positions up to rotation"),
            ];
            let what: Vec<&str> = asked
                .iter()
                .filter(|(on, _)| *on)
                .map(|(_, w)| *w)
                .collect();
            let peg = if self.symmetry {
                " and peg solitaire"
            } else {
                ""
            };
            return Err(CatalogError::Option(format!(
                "{name} is not a twisty puzzle: {} are for twisty puzzles (KPuzzle and .tws \
                 definitions){peg}",
                match what.split_last() {
                    Some((last, [])) => last.to_string(),
                    Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
                    None => String::new(),
                }
            )));
        }
        variant.up_to_rotation |= self.up_to_rotation;
        variant.symmetry |= self.symmetry;
        if let Some(moves) = &self.moves {
            variant.moves = Some(moves.iter().map(|m| m.trim().to_string()).collect());
        }
        if let Some(metric) = twisty_metric {
            variant.metric = metric;
        }
        if let Some(goal) = twisty_goal {
            variant.goal = Some(goal.trim().to_string());
        }
        Ok(format!("{base}{}", variant.suffix()))
    }

    /// Whether `name` (with or without its options) names a twisty puzzle, whose
    /// goal `--goal` writes into its name.
    fn is_twisty(&self, name: &str) -> bool {
        kpuzzle::Variant::parse(name).is_ok_and(|(base, _)| kpuzzle::library::is_kpuzzle_name(base))
    }
}

/// Opens the puzzle `name` denotes with `options`: [`open_with`] after the twisty
/// options are written into the name.
///
/// # Errors
/// [`CatalogError`] as [`open_with`], and where an option does not apply to the
/// puzzle (symmetry classes of a sliding board, a metric the puzzle has not).
///
/// ```
/// use antipode::puzzles::{self, AnyPuzzle, Opened, Options};
///
/// let options = Options { symmetry: true, ..Options::default() };
/// let Opened::Ranked(AnyPuzzle::KClasses(classes)) = puzzles::open_options("pyraminx", &options).unwrap()
/// else { unreachable!() };
/// assert_eq!(classes.symmetry_count(), 24);
/// let refused = puzzles::open_options("8puzzle", &options).unwrap_err();
/// assert!(refused.to_string().starts_with("8puzzle is not a twisty puzzle"));
/// ```
pub fn open_options(name: &str, options: &Options) -> Result<Opened, CatalogError> {
    let name = options.name(name)?;
    let metric = match options.metric.as_deref() {
        None => None,
        Some(m) if kpuzzle::TurnMetric::from_name(m).is_some() => None,
        Some(m) => Some(Metric::from_name(m).ok_or_else(|| {
            CatalogError::Option(format!(
                "unknown metric `{m}`: step, line or path (sliding-block puzzles), half or \
                 quarter (twisty puzzles)"
            ))
        })?),
    };
    let goal = options
        .goal
        .as_deref()
        .filter(|_| !options.is_twisty(&name));
    open_with(&name, goal, metric)
}

/// Looks a puzzle with a ranked state space up by its command-line name.
///
/// # Errors
/// [`CatalogError`] if no puzzle of the catalog has this name.
pub fn lookup(name: &str) -> Result<AnyPuzzle, CatalogError> {
    match open(name)? {
        Opened::Ranked(puzzle) => Ok(puzzle),
        Opened::Peg(board) => Err(CatalogError::NotRanked(board.name().into())),
    }
}

/// Every line of `antipode list`, family by family.
#[must_use]
pub fn catalog() -> Vec<CatalogEntry> {
    FAMILIES
        .iter()
        .flat_map(|family| (family.entries)())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(lookup("8puzzle").unwrap().index_count(), 181_440);
        assert_eq!(lookup("sliding:3x4").unwrap().name(), "11puzzle");
        assert_eq!(lookup("sliding:2x5").unwrap().name(), "sliding:2x5");
        assert_eq!(lookup("oshidori:4").unwrap().index_count(), 22_680);
        assert!(matches!(lookup("nine"), Err(CatalogError::Unknown(_))));
        for (typed, meant) in [
            ("11puzle", "11puzzle"),
            ("15puzle", "15puzzle"),
            ("klotsky", "klotski"),
            ("8-puzzle", "8puzzle"),
            ("English33", "english33"),
        ] {
            let message = lookup(typed).err().unwrap().to_string();
            assert!(
                message.contains(&format!("did you mean `{meant}`?")),
                "{message}"
            );
        }
        let far = lookup("nine").err().unwrap().to_string();
        assert_eq!(
            far,
            "unknown puzzle `nine` (`antipode list` shows them all)"
        );
        assert!(matches!(
            lookup("sliding:3"),
            Err(CatalogError::BadParameter { .. })
        ));
        assert!(matches!(
            lookup("sliding:1x1"),
            Err(CatalogError::OutOfRange(_))
        ));
        assert!(matches!(
            lookup("sliding:5x5"),
            Err(CatalogError::OutOfRange(_))
        ));
        assert!(matches!(
            lookup("oshidori:x"),
            Err(CatalogError::BadParameter { .. })
        ));
        assert!(matches!(
            lookup("oshidori:10"),
            Err(CatalogError::OutOfRange(_))
        ));
        assert!(matches!(
            lookup("english33"),
            Err(CatalogError::NotRanked(_))
        ));
        assert!(matches!(open("hoppers"), Ok(Opened::Peg(_))));
    }

    #[test]
    fn every_listed_name_opens() {
        for entry in catalog().iter().filter(|e| !e.name.contains("..")) {
            if entry.indices.is_none() && kpuzzle::library::is_kpuzzle_name(&entry.name) {
                // Too large to number (the 3x3x3): solved by its projections.
                let p = kpuzzle::library::open(&entry.name).unwrap();
                assert!(p.index_count_wide().is_some_and(|n| n > u64::MAX as u128));
                assert!(open(&entry.name).is_err());
                continue;
            }
            if entry.indices.is_none() && entry.databases {
                // Too large to rank (the 24-puzzle): its shape takes pattern databases.
                assert!(matches!(board_shape(&entry.name), Some(Ok(_))));
                assert!(open(&entry.name).is_err());
                continue;
            }
            let opened = open(&entry.name).unwrap_or_else(|e| panic!("{}: {e}", entry.name));
            if let (Opened::Ranked(p), Some(indices)) = (opened, entry.indices) {
                assert_eq!(p.index_count(), indices, "{}", entry.name);
            }
        }
        for family in FAMILIES {
            assert!(
                catalog()
                    .iter()
                    .any(|e| family.pattern.contains(e.name.split(':').next().unwrap())),
                "{} lists nothing",
                family.pattern
            );
        }
    }
}
