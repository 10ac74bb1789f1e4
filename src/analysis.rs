//! The facts of a search: map a depth array, search from the goal set, collect God's
//! number, the antipodes and the histogram. [`crate::Analyze`] runs it (in memory or
//! into a table file) with threads, progress and a stop token.

use std::time::Instant;

use serde::Serialize;

use crate::descent;
use crate::engine::{self, EngineError, Finished, Histogram, Observer};
use crate::puzzle::Puzzle;
use crate::store::{ByteDepths, DepthRead, DepthStore, StoreError};
use crate::sys;
use crate::units::{human_bytes, thousands};

/// At most this many antipodes are kept (all are counted).
pub const ANTIPODE_LIMIT: usize = 100_000;

/// The facts an analysis finds. The serialized field names are a stable interface.
#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    /// The puzzle's name.
    pub puzzle: String,
    /// Size of the index space (every legal state).
    pub indices: u64,
    /// States reached from the goal set (the others cannot reach it).
    pub reachable: u64,
    /// States in the goal set (distance 0).
    pub goal_states: u64,
    /// The largest distance from the goal set.
    pub gods_number: u32,
    /// How many states lie at that distance.
    pub antipode_count: u64,
    /// The antipodes in one-line form (at most [`ANTIPODE_LIMIT`]), ascending index.
    pub antipodes: Vec<String>,
    /// How positions are written ([`Puzzle::notation`]).
    pub notation: String,
    /// The first antipodes drawn as boards.
    #[serde(skip)]
    pub antipode_boards: Vec<String>,
    /// `histogram[d]`: the number of states at distance `d`.
    pub histogram: Vec<u64>,
    /// Wall time of the search.
    pub seconds: f64,
    /// Worker threads used.
    pub threads: usize,
    /// Peak resident memory of the process, in bytes (0 if unknown).
    pub peak_rss_bytes: u64,
    /// The order of the group the moves generate, where the puzzle knows it
    /// ([`Puzzle::group_order`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group_order: Option<u128>,
}

/// Why an analysis could not run.
#[derive(Debug, thiserror::Error)]
pub enum AnalyzeError {
    /// The depth array would not fit in this machine's memory.
    #[error(
        "{puzzle} has {} states: a full table needs {} at one byte per state, \
         more than this machine's {} of memory",
        thousands(*.indices),
        human_bytes(*.indices as f64),
        human_bytes(*.memory as f64)
    )]
    TooLarge {
        /// The puzzle's name.
        puzzle: String,
        /// Its index count.
        indices: u64,
        /// Physical memory.
        memory: u64,
    },
    /// The depth array could not be mapped.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The search failed.
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// Searches every state from the goal set into a fresh in-memory depth array, which
/// the caller can then query ([`ByteDepths::depth`]).
///
/// ```
/// use antipode::{Puzzle, analysis, engine::Silent, puzzles::BlockPuzzle};
/// use antipode::puzzles::blocks::library;
///
/// let (file, text) = library::shipped("goat").unwrap();
/// let goat = BlockPuzzle::from_text(file, text).unwrap();
/// let (depths, histogram) = analysis::search(&goat, &Silent).unwrap();
/// assert_eq!(histogram.gods_number(), 52);
/// let start = goat.start().unwrap();
/// assert_eq!(depths.depth(goat.rank(&start)), Some(20));
/// ```
pub fn search<P: Puzzle>(
    puzzle: &P,
    observer: &dyn Observer,
) -> Result<(ByteDepths, Histogram), AnalyzeError> {
    let indices = puzzle.index_count();
    if let Some(memory) = sys::total_memory_bytes().filter(|&memory| indices > memory) {
        return Err(AnalyzeError::TooLarge {
            puzzle: puzzle.name(),
            indices,
            memory,
        });
    }
    let store = ByteDepths::anonymous(indices)?;
    let histogram = engine::search(puzzle, &store, observer)?;
    Ok((store, histogram))
}

/// Runs a full analysis on the current rayon pool, drawing up to `boards` antipodes.
pub fn analyze<P: Puzzle>(
    puzzle: &P,
    boards: usize,
    observer: &dyn Observer,
) -> Result<Analysis, AnalyzeError> {
    let started = Instant::now();
    let (mut store, histogram) = search(puzzle, observer)?;
    Ok(summarize(
        puzzle, &mut store, histogram, None, boards, started,
    ))
}

/// The facts of a finished search: God's number, antipodes, histogram, resources.
/// `last_level`, if known, holds the indices of the deepest level (see
/// [`engine::SearchOptions::last_level`]); without it, stores with depths mod 3 find
/// the antipodes by descent. The store is borrowed uniquely: nothing writes it while
/// the antipodes are scanned.
pub fn summarize<P: Puzzle, S: DepthStore>(
    puzzle: &P,
    store: &mut S,
    histogram: Histogram,
    last_level: Option<Vec<u64>>,
    boards: usize,
    started: Instant,
) -> Analysis {
    let gods_number = histogram.gods_number();
    let expected = *histogram.0.last().unwrap_or(&0);
    let antipode_indices = match last_level {
        Some(mut indices) if indices.len() as u64 == expected && expected > 0 => {
            indices.truncate(ANTIPODE_LIMIT);
            indices
        }
        _ => antipodes(puzzle, &Finished::new(store), gods_number),
    };
    let seconds = started.elapsed().as_secs_f64();
    let states: Vec<P::State> = antipode_indices.iter().map(|&i| puzzle.unrank(i)).collect();
    Analysis {
        puzzle: puzzle.name(),
        indices: puzzle.index_count(),
        reachable: histogram.reachable(),
        goal_states: histogram.0.first().copied().unwrap_or(0),
        gods_number,
        antipode_count: *histogram.0.last().unwrap_or(&0),
        antipodes: states.iter().map(|s| puzzle.format_line(s)).collect(),
        notation: puzzle.notation(),
        antipode_boards: states
            .iter()
            .take(boards)
            .map(|s| puzzle.render_board(s))
            .collect(),
        histogram: histogram.0,
        seconds,
        threads: rayon::current_num_threads(),
        peak_rss_bytes: sys::peak_rss_bytes().unwrap_or(0),
        group_order: puzzle.group_order(),
    }
}

/// The first indices at distance `gods_number` (at most [`ANTIPODE_LIMIT`]). With depths mod
/// 3, the states holding that residue are candidates; a state at the largest distance
/// has no neighbour farther away, and those that pass that test are confirmed by
/// descent.
fn antipodes<P: Puzzle, S: DepthStore>(
    puzzle: &P,
    store: &Finished<'_, S>,
    gods_number: u32,
) -> Vec<u64> {
    let Some(p) = store.period() else {
        return store.indices_at_depth(gods_number, ANTIPODE_LIMIT);
    };
    let farther = (gods_number + 1) % p;
    store.filter_at_depth(gods_number, ANTIPODE_LIMIT, |store, candidates| {
        let mut local_maxima = Vec::new();
        puzzle.expand_sorted(candidates, |index, neighbours| {
            if neighbours.iter().all(|&n| store.value(n) != Some(farther)) {
                local_maxima.push(index);
            }
        });
        local_maxima.retain(|&index| descent::distance(puzzle, store, index) == Ok(gods_number));
        *candidates = local_maxima;
    })
}
