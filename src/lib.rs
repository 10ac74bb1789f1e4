//! antipode: exhaustive state-space analysis of puzzles, as a library. These pages are
//! the architecture guide; the `antipode` binary (cargo feature `cli`, on by default)
//! is a thin layer over [`jobs`].
//!
//! Every reachable state of a puzzle gets an index from a minimal perfect hash
//! ([`rank`], [`puzzles`]); a level-by-level breadth-first search from the goal
//! ([`engine`]) fills a depth array ([`store`]); out come God's number, the antipodes
//! and the depth histogram ([`analysis`], [`report`]), and optionally a table file
//! that other programs read ([`table`]).
//!
//! ```
//! use antipode::{Analyze, puzzles::SlidingPuzzle};
//!
//! let eight = SlidingPuzzle::new(3, 3).unwrap();
//! let report = Analyze::new(&eight).run().unwrap();
//! assert_eq!(report.gods_number, 31);
//! assert_eq!(report.antipodes, ["647/850/321", "867/254/301"]);
//! ```
//!
//! # Where things are
//!
//! | you look for | it is in |
//! |---|---|
//! | what a command does, as a call | [`jobs`]: [`Analyze`], [`jobs::Solve`], [`jobs::Databases`], [`jobs::verify_file`], [`jobs::lookup()`] |
//! | the one trait every puzzle implements | [`Puzzle`] (index count, rank/unrank, goal set, successors, the hot path [`Puzzle::expand_sorted`], its fold [`Puzzle::expand_sorted_fold`] and a bottom-up level's question [`Puzzle::expand_until_hit`]) over its supertrait [`Notation`] (name, start, reading and writing positions, which boards too large to rank implement alone) |
//! | where a puzzle is defined | [`puzzles`]: the catalog (names, families) and one module per family: [`puzzles::sliding`], [`puzzles::oshidori`], [`puzzles::blocks`] (description files; the shipped ones in `src/puzzles/blocks/library/`), [`puzzles::peg`] (description files too, in `src/puzzles/peg/library/`), [`puzzles::kpuzzle`] (KPuzzle JSON definitions, the shipped ones in `src/puzzles/kpuzzle/library/`, written by `scripts/kpuzzle-geometry.py`; twsearch's `.tws` files, [`puzzles::kpuzzle::tws`]; goal sets with wildcards, [`puzzles::kpuzzle::goal`]) |
//! | where ranking lives | [`rank`] (permutations, combinations and their table strategies, kinds of identical pieces, multisets, partial permutations), which each family composes into its index ([`puzzles::sliding`], [`puzzles::blocks`], [`puzzles::kpuzzle::ranking`], [`puzzles::peg`]) |
//! | symmetry classes | [`puzzles::kpuzzle::symmetry`] (the group, found from the moves or a `.tws` file's `Rotation` blocks; positions up to rotation, [`puzzles::kpuzzle::symmetry::Frame`]) and [`puzzles::kpuzzle::classes`] (one index per class: a [`Puzzle`] the engine runs unchanged; positions per depth from classes); the census without a search, Burnside's count of the classes, in [`puzzles::kpuzzle::census`] ([`jobs::census()`], `analyze --count`); goals of identical pieces: each symmetry's relabelling of the kinds in [`puzzles::kpuzzle::relabel`], their classes in [`puzzles::kpuzzle::pattern_classes`], numbered by the tight index of [`puzzles::kpuzzle::pattern_index`] |
//! | where the BFS runs | [`engine`]: [`engine::Bfs`] (one level of the search at a time) over an [`engine::Executor`] ([`engine::Threads`]: this process's cores; [`engine::Partitioned`]: one MPI rank's slice, the `antipode-mpi` binary of `mpi/`; [`engine::OnDisk`]: a table larger than `--memory`, a block in memory at a time (the same slice of each part a puzzle's moves keep to, [`Puzzle::disk_regions`]), the neighbours for other blocks in bucket files); how each level runs is decided once per level in `engine/strategy.rs` (its doc is the decision table) |
//! | the level loop of every build | [`driver`]: [`driver::run`] drives a [`driver::Levels`] (seed or resume, one level, save) and owns stopping ([`StopToken`], [`driver::Interrupted`]), progress ([`driver::Observer`]) and checkpoint pacing ([`driver::Pacing`]); the engine's search, the table builds, the pattern databases, peg solitaire's sweeps and the components all run through it |
//! | depth arrays | [`store`]: one byte per state, or two bits (depth mod 3); [`store::DepthStore`] is what every store does, [`store::PackedMarks`] the two-bit store's fast paths |
//! | table files | [`table`] (format: `tables/README.md`; built in memory and copied at checkpoints, or with its levels on disk, `src/table/disk_build.rs`, whose least time a level [`table::disk_rate`] tells from the disk's measured rate), exact distances and solutions by descent in [`descent`]; a partitioned search's table in shards and its manifest: [`table::shards`], written by [`table::build_sharded`] |
//! | how files reach the disk | [`persist`]: atomic replace (a sibling, synced, renamed, the folder synced), sibling paths, and the one checkpoint format of resumable builds ([`persist::checkpoint`]) |
//! | pattern databases | [`pdb`]: built by a BFS over (placement, blank region), summed by [`pdb::Partition`]; twisty puzzles: depth tables of projections ([`jobs::Projections`]), maximized by [`solvers::kpuzzle`] |
//! | how each family is searched | [`solvers`]: IDA* spaces of sliding boards (with pattern databases), sliding blocks, Oshidori and twisty puzzles; peg solitaire's level sweep, checkpoint, table and optimal solver ([`solvers::peg`]) |
//! | searches without a table | [`search`]: IDA*, IDDFS, bidirectional BFS |
//! | other languages, MPI, model checking | crates of their own over this library: `bindings/c` (a C library and its header `antipode.h`; in this workspace, `cargo build --release -p antipode-c`), `bindings/python` (the Python package, PyO3 and numpy; a workspace of its own); `mpi/`, the `antipode-mpi` binary (the command line's sources with an MPI [`engine::Transport`]); `loom/`, the engine's lanes protocol (`src/engine/lanes/protocol.rs`) under loom's model checker |
//!
//! # How data flows
//!
//! ```text
//! command line ──> jobs ──> puzzles (rules, ranking) ──> engine (BFS by levels)
//!                                                            │
//!                      report <── analysis <── store (depth array) ──> table file
//! ```
//!
//! `antipode analyze 11puzzle --table` parses its arguments (`src/cli/analyze.rs`),
//! opens the puzzle by name ([`puzzles::open_with`]) and runs an [`Analyze`] job: a
//! rayon pool of the asked size ([`pool`]), the table path (its default from
//! [`jobs::default_table_path`]), the stop token that Ctrl-C sets ([`StopToken`]). The
//! job creates or resumes the file ([`table::build`]), which runs the engine's search
//! ([`engine::Bfs`]) through the level-loop driver ([`driver::run`]) on an in-memory
//! array and writes it to the file at the driver's checkpoints; the level loop asks
//! the puzzle for the neighbours of ascending runs of frontier indices and marks them
//! in the store. When the last level is done, [`analysis::summarize`] finds God's
//! number and the antipodes, and the command prints [`report::render`]. Progress goes
//! to a [`driver::Observer`]: the library never prints.
//!
//! # Layers
//!
//! Modules import only downwards (a test, `tests/it/house.rs`, checks that no module
//! or source file imports itself through others): [`jobs`] on top; then [`solvers`],
//! each family's searches; then, side by side, [`puzzles`] (rules, ranking and
//! notation: it imports none of [`table`], [`pdb`], [`search`] and [`report`], which a
//! test checks too) and the machinery that knows no particular puzzle, [`pdb`],
//! [`search`], [`table`], [`analysis`], [`report`]; then [`engine`], [`descent`],
//! [`store`], [`rank`], [`persist`], [`driver`] and [`puzzle`]. The engine knows levels, storage
//! and threads, nothing of any particular puzzle; a puzzle knows its rules and its
//! ranking, nothing of files, searches or threads.
//!
//! # How the pieces work
//!
//! - **Ranking.** A sliding board's index is `blank cell * H + r`, where `r` ranks the
//!   tile order (row-major, blank skipped) among the `H = (n-1)!/2` orders of the
//!   parity the blank's row allows: the index space is exactly `n!/2`. A sliding-block
//!   puzzle's index is `arrangement * M` + the multiset rank of what the free cells
//!   hold (big pieces placed first, enumerated; empty cells and 1x1 pieces ranked in
//!   mixed radix). Oshidori's is `blank place * M` + the rank of the stones' order
//!   among the `M = (2K)!/2^K` arrangements of the multiset. Every index is a legal
//!   state ([`Puzzle::unrank`] is total); legal states need not be reachable, and
//!   reports keep `indices` and `reachable` apart. A twisty puzzle's index is its parts'
//!   ranks in mixed radix ([`puzzles::kpuzzle::ranking`]): per part of places that
//!   exchange pieces, a Lehmer code (halved where the moves fix its parity, alone or
//!   with another part's) times the orientations, the last implied where every move
//!   keeps their sum; identical pieces and a projection's blanks as combinations or a
//!   partial permutation.
//! - **Hot path inside the puzzle.** The engine hands a puzzle ascending indices;
//!   sliding boards walk them with a shared prefix of Lehmer digits and tables for the
//!   rest, so a neighbour costs a few table reads, no unranking; sliding-block puzzles
//!   walk one arrangement of the big pieces at a time; twisty puzzles move each
//!   coordinate (an arrangement, the orientations) by table.
//! - **Engine.** Direction-optimizing BFS (Beamer et al. 2012): top-down levels mark
//!   the frontier's unseen neighbours, bottom-up levels look for a neighbour in the
//!   frontier once the frontier outgrows the unseen states. Bipartite puzzles scan
//!   only the half of the array a level can hold. Work is cut into chunks of 131,072
//!   indices, and sparse levels visit only the chunks that hold their frontier.
//! - **Storage.** One byte per state (exact) or two bits holding the depth mod 3,
//!   enough for a BFS because neighbours' depths differ by at most one; exact
//!   distances come back by descent. Arrays are anonymous `memmap2` mappings with
//!   transparent huge pages; a table being read is the file, mapped.
//! - **Tables.** One writer at a time (a `flock` held for the run). At a checkpoint
//!   the whole array goes to the payload copy the header does not name, then the
//!   header (a spare twin first) names it with the levels done; the complete flag and
//!   the CRC-32 come last. A table names its puzzle by the SHA-256 of the puzzle's
//!   canonical definition, and the index range it covers (a whole table covers all;
//!   a partitioned search writes one shard per rank, with collective checkpoints).
//! - **Pattern databases.** Additive: per placement of a pattern's tiles, the fewest
//!   moves of those tiles while the others move for free. IDA* sums them over a
//!   partition and takes the larger of that and the reflected sum.
//! - **IDA\*.** One generic walk ([`search::ida`]) plays moves in place and cuts the
//!   tree into subtrees for the threads; a space may walk on its own below a subtree's
//!   root ([`search::SearchSpace::own_walk`]) if it visits the same nodes in the same
//!   order: boards of up to 16 cells walk packed into one `u64`
//!   (`solvers/sliding/packed_walk.rs`), pattern-database searches look up a child's
//!   reflected entry only when its direct sum is within the limit. Property tests hold
//!   both to the generic walk's nodes and solutions.
//! - **Peg solitaire** (boards from description files) goes one jump, one peg, per
//!   level ([`solvers::peg::levels`]): a board with k pegs is ranked among the k-subsets
//!   of the holes by the two halves of its mask (two table lookups), each level a bit
//!   set of `C(holes, k)` bits marked with atomic ORs; forward from the start for the
//!   counts, backward from the goal for the boards that can still be solved (the
//!   solver's pruning and the peg tables of [`solvers::peg::table`]).
//! - **Safety.** `unsafe` is confined to the stores (atomic views of mapped bytes,
//!   scans whose callers own the range), the SIMD scans, the POPCNT paths (behind a
//!   token only CPU detection creates) and the system calls; `Cargo.toml` denies
//!   undocumented `unsafe` blocks.
//!
//! A new puzzle family is one module under `src/puzzles/` (it implements [`Puzzle`]
//! and [`search::Solvable`]) plus its entry in the catalog ([`puzzles`]: a family, a
//! variant of [`puzzles::AnyPuzzle`] and its arm of [`with_puzzle!`]); every command
//! and table then follows.

pub mod analysis;
pub mod components;
mod cpu;
pub mod descent;
mod divisor;
pub mod driver;
pub mod engine;
mod grid;
pub mod jobs;
pub mod pdb;
pub mod persist;
#[cfg(feature = "plot")]
pub mod plot;
pub mod pool;
pub mod puzzle;
pub mod puzzles;
pub mod rank;
pub mod report;
pub mod search;
pub mod solvers;
mod stop;
pub mod store;
pub mod sys;
pub mod table;
pub mod units;

pub use jobs::Analyze;
pub use puzzle::{Notation, PositionError, Puzzle, Segment, Successor, Translations};
pub use stop::StopToken;

/// README.md's Rust example, compiled and run as a doc test (its shell examples run in
/// `tests/it/readme.rs`).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExamples;
