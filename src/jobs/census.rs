//! `analyze --count`: what a search would face, without the search.

use crate::puzzle::Puzzle;
use crate::puzzles::kpuzzle::{self, census::Census as TwistyCensus};
use crate::puzzles::{self, CatalogError, Opened, Options};
use crate::with_puzzle;

/// A census: a twisty puzzle's positions, classes and class index, or another
/// puzzle's indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Census {
    /// A twisty puzzle (with `--symmetry`, its classes).
    Twisty(TwistyCensus),
    /// A puzzle whose positions a search counts: the indices it numbers.
    Ranked {
        /// Its name.
        puzzle: String,
        /// The indices of its ranking.
        indices: u64,
    },
}

/// The census of the puzzle `name` names with `options`: for a twisty puzzle its
/// positions and, with `options.symmetry`, Burnside's count of its classes and its
/// class index's slots ([`kpuzzle::library::census`]); for another puzzle the indices
/// a search numbers.
///
/// # Errors
/// [`CatalogError`] if the puzzle cannot be opened, or is peg solitaire (searched by
/// jumps, without indices).
///
/// ```
/// use antipode::jobs::{Census, census};
/// use antipode::puzzles::Options;
///
/// let options = Options { symmetry: true, ..Options::default() };
/// let Census::Twisty(cube) = census("2x2x2", &options)? else { unreachable!() };
/// assert_eq!(cube.positions, Ok(3_674_160));
/// # Ok::<(), antipode::puzzles::CatalogError>(())
/// ```
pub fn census(name: &str, options: &Options) -> Result<Census, CatalogError> {
    let twisty = kpuzzle::Variant::parse(name)
        .is_ok_and(|(base, _)| kpuzzle::library::is_kpuzzle_name(base));
    if twisty {
        return kpuzzle::library::census(&options.name(name)?)
            .map(Census::Twisty)
            .map_err(|e| CatalogError::Description(e.to_string()));
    }
    let plain = Options {
        symmetry: false,
        ..options.clone()
    };
    match puzzles::open_options(name, &plain)? {
        Opened::Peg(board) => Err(CatalogError::Option(format!(
            "{} is peg solitaire, searched by jumps without indices: `antipode list` shows \
             the memory its search needs",
            board.name()
        ))),
        Opened::Ranked(puzzle) if options.symmetry => Err(CatalogError::Option(format!(
            "{} is not a twisty puzzle: a census of symmetry classes is for twisty puzzles \
             (KPuzzle and .tws definitions)",
            with_puzzle!(&puzzle, p => crate::Notation::name(p))
        ))),
        Opened::Ranked(puzzle) => Ok(Census::Ranked {
            puzzle: with_puzzle!(&puzzle, p => crate::Notation::name(p)),
            indices: with_puzzle!(&puzzle, p => p.index_count()),
        }),
    }
}
