//! Each puzzle family's solvers: what joins a family's rules ([`crate::puzzles`]) to
//! the generic machinery, the searches of [`crate::search`], the pattern databases of
//! [`crate::pdb`] and the table files of [`crate::table`]. A puzzle's module knows its
//! rules, ranking and notation; how it is searched is here.
//!
//! | family | here |
//! |---|---|
//! | sliding boards | [`sliding`]: IDA* with the Manhattan distance (boards of at most 16 cells packed in a word), with additive pattern databases, and the boards' shape as a database's [`crate::pdb::Board`] |
//! | sliding blocks | [`blocks`]: IDA* over the arrangements |
//! | Oshidori | [`oshidori`]: IDA* over stone moves |
//! | twisty puzzles | [`kpuzzle`]: IDA* with the depth tables of projections as heuristics |
//! | peg solitaire | [`peg`]: the level sweep over bit sets of boards, its checkpoint, the table of solvable boards, the optimal solver and the reports |

pub mod blocks;
pub mod kpuzzle;
pub mod oshidori;
pub mod peg;
pub mod sliding;
