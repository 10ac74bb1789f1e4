//! The facts of a search: map a depth array, search from the goal set, collect God's
//! number, the antipodes and the histogram. [`crate::Analyze`] runs it (in memory or
//! into a table file) with threads, progress and a stop token.

use std::time::Instant;

use serde::Serialize;

use crate::descent;
use crate::driver::Control;
use crate::engine::{self, EngineError, Finished, Histogram, Observer, Transport};
use crate::puzzle::Puzzle;
use crate::store::{ByteDepths, DepthRead, DepthStore, Depths, Encoding, StoreError};
use crate::sys;
use crate::units::{human_bytes, thousands};
use crate::with_depths;

/// At most this many antipodes are kept (all are counted).
pub const ANTIPODE_LIMIT: usize = 100_000;

/// The facts an analysis finds. The serialized field names are a stable interface.
#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    /// The puzzle's name.
    pub puzzle: String,
    /// Its goal (depth 0), in words or as a position: the goal set, or the `--from`
    /// position.
    pub goal: String,
    /// Size of the index space (every legal state).
    pub indices: u64,
    /// States reached from the goal set (the others cannot reach it).
    pub reachable: u64,
    /// Indices that number no state: a class index's slots that are not the one their
    /// class is numbered by ([`Puzzle::never_reached`]); neither reached nor
    /// unreachable.
    pub unused_slots: u64,
    /// States in the goal set (distance 0).
    pub goal_states: u64,
    /// The largest distance from the goal set.
    pub gods_number: u32,
    /// How many states lie at that distance.
    pub antipode_count: u64,
    /// The antipodes in one-line form (at most [`ANTIPODE_LIMIT`]), ascending index.
    pub antipodes: Vec<String>,
    /// How positions are written ([`crate::Notation::notation`]).
    pub notation: String,
    /// The first antipodes drawn as boards.
    #[serde(skip)]
    pub antipode_boards: Vec<String>,
    /// For each antipode drawn, moves that reach it from the goal set (as few as can,
    /// separated by spaces), found by descent of the depths just computed; empty where
    /// the depths were not at hand (a partitioned search).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub antipode_moves: Vec<String>,
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
    /// What the ranks of a partitioned search sent each other ([`analyze_partitioned`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exchange: Option<Exchange>,
    /// Where indices are symmetry classes (`--symmetry`): the positions behind them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub classes: Option<crate::puzzle::ClassCounts>,
}

/// The traffic of a partitioned search (`--distributed`).
#[derive(Debug, Clone, Serialize)]
pub struct Exchange {
    /// The number of ranks.
    pub ranks: usize,
    /// Indices sent to other ranks per level (level 1 first), over every rank, in
    /// bytes.
    pub bytes_per_level: Vec<u64>,
    /// Their sum.
    pub bytes_total: u64,
    /// Each rank's peak resident memory, in bytes (0 if unknown).
    pub peak_rss_bytes_per_rank: Vec<u64>,
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
    /// A search in memory cannot use this encoding.
    #[error("a search in memory keeps 8-bit or 2-bit entries, not {} bits", .0.bits())]
    Encoding(Encoding),
    /// Writing a table (in shards) failed.
    #[error(transparent)]
    Table(#[from] crate::table::TableError),
    /// The position a search was to start from.
    #[error("start: {0}")]
    Position(#[from] crate::puzzle::PositionError),
}

/// Searches every state from the goal set into a fresh in-memory depth array, which
/// the caller can then query ([`ByteDepths::depth`]).
///
/// # Errors
/// [`AnalyzeError`] if the depth array cannot be allocated or the search fails
/// ([`crate::engine::EngineError`]).
///
/// ```
/// use antipode::{Notation, Puzzle, analysis, driver::Control, puzzles::BlockPuzzle};
/// use antipode::puzzles::blocks::library;
///
/// let (file, text) = library::shipped("goat").unwrap();
/// let goat = BlockPuzzle::from_text(file, text).unwrap();
/// let (depths, histogram) = analysis::search(&goat, &Control::default()).unwrap();
/// assert_eq!(histogram.gods_number(), 52);
/// let start = goat.start().unwrap();
/// assert_eq!(depths.depth(goat.rank(&start)), Some(20));
/// ```
pub fn search<P: Puzzle>(
    puzzle: &P,
    control: &Control<'_>,
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
    let histogram = engine::search(puzzle, &store, control)?;
    Ok((store, histogram))
}

/// Runs a full analysis on the current rayon pool, drawing up to `boards` antipodes;
/// progress goes to `control`'s observer and its stop token ends the search within a
/// level ([`crate::engine::EngineError::Interrupted`]).
///
/// # Errors
/// [`AnalyzeError`] if the depth array cannot be allocated or the search fails
/// ([`crate::engine::EngineError`]).
pub fn analyze<P: Puzzle>(
    puzzle: &P,
    boards: usize,
    control: &Control<'_>,
) -> Result<Analysis, AnalyzeError> {
    let started = Instant::now();
    let (mut store, histogram) = search(puzzle, control)?;
    Ok(summarize(
        puzzle, &mut store, histogram, None, boards, started,
    ))
}

/// The facts of a finished search: God's number, antipodes, histogram, resources.
/// `last_level`, if known, holds the indices of the deepest level (see
/// [`engine::Bfs::capture_last_level`]); without it, stores with depths mod 3 find
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
    let finished = Finished::new(store);
    let classes = puzzle.class_counts(&histogram.0, &antipode_indices, &|index| {
        descent::distance(puzzle, &finished, index).ok()
    });
    let antipode_moves = antipode_indices
        .iter()
        .take(boards)
        .map(|&index| {
            descent::moves_from_goal(puzzle, &finished, &puzzle.unrank(index)).map_or_else(
                |e| format!("({e})"),
                |moves| match moves.len() {
                    0 => "(none: it is in the goal set)".to_string(),
                    _ => {
                        let words: Vec<String> = moves.iter().map(ToString::to_string).collect();
                        words.join(" ")
                    }
                },
            )
        })
        .collect();
    let mut analysis = summarize_indices(puzzle, histogram, &antipode_indices, boards, started);
    analysis.classes = classes;
    analysis.antipode_moves = antipode_moves;
    analysis
}

/// The report of a finished search whose antipodes' indices are known.
fn summarize_indices<P: Puzzle>(
    puzzle: &P,
    histogram: Histogram,
    antipode_indices: &[u64],
    boards: usize,
    started: Instant,
) -> Analysis {
    let gods_number = histogram.gods_number();
    let seconds = started.elapsed().as_secs_f64();
    let states: Vec<P::State> = antipode_indices.iter().map(|&i| puzzle.unrank(i)).collect();
    Analysis {
        puzzle: puzzle.name(),
        goal: puzzle.goal_summary(),
        indices: puzzle.index_count(),
        reachable: histogram.reachable(),
        unused_slots: puzzle.never_reached(),
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
        antipode_moves: Vec::new(),
        histogram: histogram.0,
        seconds,
        threads: rayon::current_num_threads(),
        peak_rss_bytes: sys::peak_rss_bytes().unwrap_or(0),
        group_order: puzzle.group_order(),
        exchange: None,
        classes: None,
    }
}

/// [`analyze_partitioned`] of a puzzle opened by name: dispatched here, so that the
/// partitioned search is compiled once, in this library, for every kind of puzzle.
///
/// # Errors
/// As [`analyze_partitioned`].
pub fn analyze_partitioned_any(
    puzzle: &crate::puzzles::AnyPuzzle,
    encoding: Encoding,
    transport: &dyn Transport,
    boards: usize,
    observer: &dyn Observer,
) -> Result<Analysis, AnalyzeError> {
    crate::with_puzzle!(puzzle, p => analyze_partitioned(p, encoding, transport, boards, observer))
}

/// [`analyze_partitioned_table`] of a puzzle opened by name (see
/// [`analyze_partitioned_any`]).
///
/// # Errors
/// As [`analyze_partitioned_table`].
pub fn analyze_partitioned_table_any(
    puzzle: &crate::puzzles::AnyPuzzle,
    dir: &std::path::Path,
    options: &crate::table::BuildOptions,
    transport: &dyn Transport,
    boards: usize,
    control: &Control<'_>,
) -> Result<Analysis, AnalyzeError> {
    crate::with_puzzle!(puzzle, p => {
        analyze_partitioned_table(p, dir, options, transport, boards, control)
    })
}

/// One rank's part of an analysis partitioned over the ranks `transport` connects
/// ([`engine::Partitioned`]): this rank holds its slice of the depths (`encoding`),
/// all ranks exchange neighbours level by level, and every rank returns the same
/// report (the antipodes gathered from their owners, the traffic in
/// [`Analysis::exchange`]). With [`engine::Alone`] it is an analysis in one process.
///
/// # Errors
/// [`AnalyzeError`] if this rank's slice cannot be allocated, the encoding has no
/// store, or the search or an exchange between ranks fails.
///
/// ```
/// use antipode::{analysis, engine, puzzles::SlidingPuzzle, store::Encoding};
///
/// let eight = SlidingPuzzle::new(3, 3).unwrap();
/// let ranks = engine::InProcessRanks::new(3);
/// let reports: Vec<_> = std::thread::scope(|scope| {
///     let runs: Vec<_> = (0..3)
///         .map(|r| {
///             let rank = ranks.rank(r);
///             let eight = &eight;
///             scope.spawn(move || {
///                 analysis::analyze_partitioned(eight, Encoding::Mod3, &rank, 0, &engine::Silent)
///             })
///         })
///         .collect();
///     runs.into_iter().map(|run| run.join().unwrap().unwrap()).collect()
/// });
/// assert!(reports.iter().all(|r| r.gods_number == 31 && r.antipode_count == 2));
/// ```
pub fn analyze_partitioned<P: Puzzle>(
    puzzle: &P,
    encoding: Encoding,
    transport: &dyn Transport,
    boards: usize,
    observer: &dyn Observer,
) -> Result<Analysis, AnalyzeError> {
    let started = Instant::now();
    let slices = engine::Slices::new(puzzle.index_count(), transport.ranks());
    let range = slices.range(transport.rank());
    let mut depths = Depths::anonymous(encoding, range.end - range.start)?
        .ok_or(AnalyzeError::Encoding(encoding))?;
    let uneven = puzzle.uneven_classes();
    let (histogram, local_antipodes, sent, uneven_depths) = with_depths!(&mut depths, s => {
        let mut executor = engine::Partitioned::new(puzzle, &*s, transport);
        if let Some(indices) = &uneven {
            executor.watch(indices);
        }
        let bfs = engine::Bfs::with_executor(Box::new(&mut executor));
        let histogram = bfs.run(&Control::new(observer, None))?;
        let gods_number = histogram.gods_number();
        let antipodes = executor.last_level_indices(gods_number, ANTIPODE_LIMIT);
        let uneven_depths = uneven.is_some().then(|| executor.watched_depths(gods_number));
        (histogram, antipodes, executor.bytes_sent().to_vec(), uneven_depths)
    });
    let found = RankFound {
        histogram,
        local_antipodes,
        sent,
        uneven_depths,
    };
    Ok(partitioned_report(
        puzzle, transport, found, boards, started,
    ))
}

/// The class counts of a partitioned search of a class puzzle: every rank's depths
/// of the uneven classes of its slice ([`Puzzle::uneven_classes`]) gathered.
fn gathered_class_counts<P: Puzzle>(
    puzzle: &P,
    transport: &dyn Transport,
    classes: &[u64],
    antipodes: &[u64],
    local: &[(u64, u32)],
) -> Option<crate::puzzle::ClassCounts> {
    // One word each: the index (below 2^56; the largest class index is some 2^38)
    // over its depth in the low byte.
    let words: Vec<u64> = local.iter().map(|&(i, d)| i << 8 | u64::from(d)).collect();
    let mut depths: Vec<(u64, u32)> = transport
        .gather(&words)
        .iter()
        .map(|&w| (w >> 8, (w & 0xff) as u32))
        .collect();
    depths.sort_unstable();
    puzzle.class_counts(classes, antipodes, &|index| {
        depths
            .binary_search_by_key(&index, |&(i, _)| i)
            .ok()
            .map(|k| depths[k].1)
    })
}

/// [`analyze_partitioned`] into a table in shards: rank `transport.rank()` writes
/// `dir/shard-RANK-of-RANKS.table` and rank 0 the folder's `manifest.toml`
/// ([`crate::table::build_sharded`]); run again with the same ranks, it resumes from
/// the last level every shard made durable. `options.encoding` is the entries';
/// `control` the observer and the checkpoints' pacing (no stop token: see
/// [`crate::table::TableError::PartitionedStop`]).
///
/// # Errors
/// [`AnalyzeError`] if a shard cannot be created, resumed or written
/// ([`crate::table::TableError`]), or the search fails.
///
/// ```
/// use antipode::{Notation, Puzzle, analysis, driver::Control, engine, puzzles::SlidingPuzzle, store::Encoding, table};
///
/// let dir = tempfile::tempdir().unwrap();
/// let folder = dir.path().join("8puzzle");
/// let eight = SlidingPuzzle::new(3, 3).unwrap();
/// let options = table::BuildOptions { encoding: Encoding::Mod3, ..Default::default() };
/// let ranks = engine::InProcessRanks::new(2);
/// std::thread::scope(|scope| {
///     for r in 0..2 {
///         let (rank, eight, folder, options) = (ranks.rank(r), &eight, &folder, &options);
///         scope.spawn(move || {
///             let report = analysis::analyze_partitioned_table(
///                 eight, folder, options, &rank, 0, &Control::default(),
///             );
///             assert_eq!(report.unwrap().gods_number, 31);
///         });
///     }
/// });
/// // One process reads the shards through the manifest, as one table.
/// let table = table::Table::open(&folder).unwrap();
/// let position = eight.parse("867254301").unwrap();
/// assert_eq!(table.distance(&eight, &position).unwrap(), 31);
/// ```
pub fn analyze_partitioned_table<P: Puzzle>(
    puzzle: &P,
    dir: &std::path::Path,
    options: &crate::table::BuildOptions,
    transport: &dyn Transport,
    boards: usize,
    control: &Control<'_>,
) -> Result<Analysis, AnalyzeError> {
    let started = Instant::now();
    let built =
        crate::table::build_sharded(puzzle, dir, options, transport, control, ANTIPODE_LIMIT)?;
    let uneven_depths = match puzzle.uneven_classes() {
        Some(indices) => Some(uneven_depths_in_table(puzzle, dir, transport, &indices)?),
        None => None,
    };
    let found = RankFound {
        histogram: built.histogram,
        local_antipodes: built.last_level,
        sent: built.bytes_sent,
        uneven_depths,
    };
    Ok(partitioned_report(
        puzzle, transport, found, boards, started,
    ))
}

/// The depths of the uneven classes of this rank's slice, by descent in the complete
/// table in `dir` (the folder every rank wrote its shard to; a resumed search cannot
/// tell them as its levels find them). Every rank fails if one does.
fn uneven_depths_in_table<P: Puzzle>(
    puzzle: &P,
    dir: &std::path::Path,
    transport: &dyn Transport,
    indices: &[u64],
) -> Result<Vec<(u64, u32)>, crate::table::TableError> {
    let range =
        engine::Slices::new(puzzle.index_count(), transport.ranks()).range(transport.rank());
    let local = crate::table::Table::open(dir).and_then(|table| {
        let table = table.for_puzzle(puzzle)?;
        let mut depths = Vec::new();
        for &index in indices.iter().filter(|i| range.contains(i)) {
            match table.distance_of_index(index) {
                Ok(depth) => depths.push((index, depth)),
                // A slot of the index that no position reaches has no depth.
                Err(crate::table::TableError::Descent(crate::descent::DescentError::Unreached)) => {
                }
                Err(e) => return Err(e),
            }
        }
        Ok(depths)
    });
    let failed = transport.gather(&[u64::from(local.is_err())]);
    match (local, failed.iter().position(|&f| f == 1)) {
        (Err(e), _) => Err(e),
        (Ok(_), Some(rank)) => Err(crate::table::TableError::OtherRank {
            path: dir.to_owned(),
            rank,
        }),
        (Ok(depths), None) => Ok(depths),
    }
}

/// What one rank of a partitioned search found.
struct RankFound {
    /// The whole search's histogram (the same on every rank).
    histogram: Histogram,
    /// The states of the last level in this rank's slice: how many, and the first.
    local_antipodes: (u64, Vec<u64>),
    /// Bytes this rank sent per level.
    sent: Vec<u64>,
    /// The depths of the uneven classes of this rank's slice, if the puzzle has
    /// classes ([`Puzzle::uneven_classes`]).
    uneven_depths: Option<Vec<(u64, u32)>>,
}

/// The report of a partitioned search, the same on every rank: the antipodes gathered
/// from their owners, the traffic gathered from every rank.
fn partitioned_report<P: Puzzle>(
    puzzle: &P,
    transport: &dyn Transport,
    found: RankFound,
    boards: usize,
    started: Instant,
) -> Analysis {
    let RankFound {
        histogram,
        local_antipodes,
        sent,
        uneven_depths,
    } = found;
    let sent = &sent[..];
    // Every rank's candidates; they are the antipodes when there are exactly as many
    // as the last level holds (else, with depths mod 3, older levels of the same code
    // are among them, and the list is left empty).
    let (local_count, local_antipodes) = local_antipodes;
    let mut antipode_indices = transport.gather(&local_antipodes);
    if transport.sum(local_count) != *histogram.0.last().unwrap_or(&0) {
        antipode_indices.clear();
    }
    let levels = sent.len().max(1);
    let all_sent = transport.gather(sent);
    let bytes_per_level: Vec<u64> = (0..sent.len())
        .map(|level| all_sent.iter().skip(level).step_by(levels).sum())
        .collect();
    let peak = transport.gather(&[sys::peak_rss_bytes().unwrap_or(0)]);
    let mut report = summarize_indices(
        puzzle,
        histogram,
        &antipode_indices[..antipode_indices.len().min(ANTIPODE_LIMIT)],
        boards,
        started,
    );
    if let Some(local) = &uneven_depths {
        let antipodes = &antipode_indices[..antipode_indices.len().min(ANTIPODE_LIMIT)];
        report.classes =
            gathered_class_counts(puzzle, transport, &report.histogram, antipodes, local);
    }
    report.peak_rss_bytes = peak.iter().copied().max().unwrap_or(0);
    report.threads = transport.ranks();
    report.exchange = Some(Exchange {
        ranks: transport.ranks(),
        bytes_total: bytes_per_level.iter().sum(),
        bytes_per_level,
        peak_rss_bytes_per_rank: peak,
    });
    report
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
