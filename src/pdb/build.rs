//! Building an additive pattern database: a breadth-first search over placements of
//! the pattern's tiles, where only their moves count.
//!
//! The search state is a placement plus the blank's *region*: the free cells (not
//! under a pattern tile) that the blank can reach without moving a pattern tile.
//! Moves of the other tiles cost nothing, so everything inside a region is one state;
//! a pattern tile next to the region moving into it costs one move, and leaves the
//! blank where the tile was. Each level is the set of (placement, region) states first
//! reached at that many pattern moves, and a placement's entry is the first level that
//! reaches it in any region: the fewest pattern moves from the goal, whatever the
//! other tiles and the blank do. Sums over disjoint patterns are admissible.
//!
//! A region is named by its lowest free cell, as that cell's ordinal among the free
//! cells (`0..cells - k`), so the regions seen of a placement are one small bit set.
//! Per placement the memory holds one word with two such sets (seen, and reached by
//! the level being expanded, so that a child costs one memory access), one set of
//! the current level, and the byte entry: 4 bytes per placement when `cells - k <= 8`
//! (2.2 GB for 8 tiles of the 15-puzzle), 7 up to 16. This was chosen over a 0-1 BFS
//! over (placement, blank cell), which needs `cells - k` states per placement where
//! almost every placement has one region.
//!
//! A level walks its states in rank order, so each placement comes from the last by
//! adding to its digits ([`Cursor`]), not by dividing; the words sit in huge pages
//! (children land anywhere in them); and the sweep after a level visits only the
//! chunks the level wrote to.
//!
//! With a [`CheckpointFile`], the search saves its state now and then (and when asked
//! to stop) and a later build of the same database resumes from it.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use rayon::prelude::*;

use super::checkpoint::{CheckpointFile, Saved};
use super::children::Children;
use super::pattern::Pattern;
#[cfg(target_arch = "x86_64")]
use crate::StopToken;
use crate::cpu::Popcnt;
use crate::driver::{self, Control, Interrupted, Next, Observer};
use crate::rank::partial::Cursor;

/// Placements handed to a thread at a time.
const CHUNK: usize = 1 << 14;

/// A finished database in memory: per placement, the fewest pattern moves plus one,
/// and the placements per distance. An entry is 0 only for a placement that no
/// solvable position has: when the pattern leaves out the blank and a single tile,
/// that tile and the blank cannot change the permutation's parity (swapping them is
/// a move), so half the placements are never reached.
#[derive(Debug, Clone)]
pub struct Entries {
    /// `entries[rank] = distance + 1`.
    pub entries: Vec<u8>,
    /// Placements at each distance.
    pub histogram: Vec<u64>,
}

/// How a build keeps its progress and when it stops early.
#[derive(Debug, Clone, Copy, Default)]
pub struct BuildControl<'a> {
    /// Where the build saves its state, and resumes from when the file holds a
    /// checkpoint of the same database; `None`: no checkpoints.
    pub checkpoint: Option<&'a CheckpointFile>,
    /// A checkpoint waits at least this long after the start or the last one, and at
    /// least [`crate::driver::CHECKPOINT_SHARE`] times as long as the last one took
    /// ([`crate::driver::Pacing`]); zero: one after every level.
    pub every: Duration,
    /// Once set (by Ctrl-C, say), the build stops after the level it is expanding,
    /// with a checkpoint.
    pub stop: Option<&'a StopToken>,
}

/// Why a build did not finish.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The arrays could not be allocated.
    #[error("no memory for the search: {0}")]
    Memory(std::io::Error),
    /// A checkpoint could not be read or written.
    #[error("checkpoint {path}: {cause}")]
    Checkpoint {
        /// The checkpoint file.
        path: PathBuf,
        /// The system's reason.
        cause: std::io::Error,
    },
    /// A checkpoint could not be written; the one before it (if any) is kept.
    #[error(
        "writing checkpoint {path} failed: {cause}; the previous checkpoint, if any, is \
         kept: run the same command again to resume from it"
    )]
    CheckpointWrite {
        /// The checkpoint file.
        path: PathBuf,
        /// The system's reason.
        cause: std::io::Error,
    },
    /// Stopped by [`BuildControl::stop`]: the checkpoint, if any, holds the levels
    /// done.
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
}

/// The regions of one placement: those seen (low half of a word) and those reached
/// by the level being expanded (high half), in one atomic word so that a child costs
/// one memory access. Three widths, by the number of free cells.
///
/// # Safety
/// Implementors must be valid when all their bytes are zero (no region), and need
/// an alignment of at most a page ([`WordArray`] casts zeroed pages to them).
unsafe trait RegionWord: Send + Sync {
    /// Bits per half.
    const HALF: u32;
    /// One half: a region set.
    type Half: Copy + Default + Send + Sync;
    fn half(bits: u64) -> Self::Half;
    fn bits(half: Self::Half) -> u32;
    fn load(&self) -> u64;
    fn or(&self, bits: u64);
    fn get(&mut self) -> u64;
    fn set(&mut self, bits: u64);
}

macro_rules! region_word {
    ($atomic:ty, $int:ty, $half:ty) => {
        // SAFETY: an atomic integer of zero bytes is the integer 0; its alignment is
        // its size, at most 8.
        unsafe impl RegionWord for $atomic {
            const HALF: u32 = <$int>::BITS / 2;
            type Half = $half;
            #[inline(always)]
            fn half(bits: u64) -> $half {
                bits as $half
            }
            #[inline(always)]
            fn bits(half: $half) -> u32 {
                half as u32
            }
            #[inline(always)]
            fn load(&self) -> u64 {
                <$atomic>::load(self, Ordering::Relaxed) as u64
            }
            #[inline(always)]
            fn or(&self, bits: u64) {
                self.fetch_or(bits as $int, Ordering::Relaxed);
            }
            #[inline(always)]
            fn get(&mut self) -> u64 {
                *self.get_mut() as u64
            }
            #[inline(always)]
            fn set(&mut self, bits: u64) {
                *self.get_mut() = bits as $int;
            }
        }
    };
}

region_word!(AtomicU16, u16, u8);
region_word!(AtomicU32, u32, u16);
region_word!(AtomicU64, u64, u32);

/// The region words of every placement, all zero at first, in an anonymous mapping
/// with transparent huge pages asked for: children land all over the array, and with
/// 4 KiB pages nearly every one of them would cost a TLB miss too.
struct WordArray<W> {
    map: memmap2::MmapMut,
    len: usize,
    words: std::marker::PhantomData<W>,
}

impl<W: RegionWord> WordArray<W> {
    /// `len` zero words.
    fn zeroed(len: usize) -> std::io::Result<WordArray<W>> {
        let bytes = len.checked_mul(size_of::<W>()).ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::OutOfMemory, "too many placements")
        })?;
        let map = memmap2::MmapMut::map_anon(bytes.max(1))?;
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        Ok(WordArray {
            map,
            len,
            words: std::marker::PhantomData,
        })
    }
}

impl<W> WordArray<W> {
    /// The words as bytes (native byte order), for checkpoints.
    fn bytes(&self) -> &[u8] {
        &self.map[..self.len * size_of::<W>()]
    }

    /// The words as bytes to fill from a checkpoint.
    fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.map[..self.len * size_of::<W>()]
    }
}

impl<W: RegionWord> std::ops::Deref for WordArray<W> {
    type Target = [W];
    fn deref(&self) -> &[W] {
        // SAFETY: the mapping holds `len * size_of::<W>()` bytes, is page-aligned (at
        // least W's alignment) and starts zeroed, a valid W (RegionWord's contract);
        // every later write goes through W itself.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr().cast::<W>(), self.len) }
    }
}

impl<W: RegionWord> std::ops::DerefMut for WordArray<W> {
    fn deref_mut(&mut self) -> &mut [W] {
        // SAFETY: as in `deref`; `&mut self` makes the slice the only access.
        unsafe { std::slice::from_raw_parts_mut(self.map.as_mut_ptr().cast::<W>(), self.len) }
    }
}

/// Bytes of memory a build of `pattern` holds per placement (the region word, the
/// current level's regions and the entry).
#[must_use]
pub fn bytes_per_placement(pattern: &Pattern) -> u64 {
    let word = word_bytes(pattern);
    word + word / 2 + 1
}

/// Builds the database of `pattern` on the current rayon pool.
///
/// # Errors
/// [`BuildError::Memory`] if the arrays cannot be allocated.
pub fn build(pattern: &Pattern, progress: &dyn Observer) -> Result<Entries, BuildError> {
    build_with(pattern, progress, &BuildControl::default())
}

/// [`build`], resuming from and saving checkpoints, and stopping, as `control` says.
///
/// # Errors
/// [`BuildError`] if the arrays cannot be allocated, a checkpoint cannot be read or
/// written, or `control.stop` ends the build ([`BuildError::Interrupted`], with a
/// checkpoint if there is a file).
pub fn build_with(
    pattern: &Pattern,
    progress: &dyn Observer,
    control: &BuildControl<'_>,
) -> Result<Entries, BuildError> {
    match word_bytes(pattern) {
        2 => bfs::<AtomicU16>(pattern, progress, control),
        4 => bfs::<AtomicU32>(pattern, progress, control),
        _ => bfs::<AtomicU64>(pattern, progress, control),
    }
}

/// Bytes of a placement's region word: two region sets of one bit per free cell.
fn word_bytes(pattern: &Pattern) -> u64 {
    match pattern.cells() - pattern.tiles().len() {
        0..=8 => 2,
        9..=16 => 4,
        _ => 8,
    }
}

/// Bytes of a checkpoint of `pattern`'s build (an entry and a word per placement),
/// beside a header of a few hundred bytes.
#[must_use]
pub fn checkpoint_bytes(pattern: &Pattern) -> u64 {
    pattern
        .placements()
        .count()
        .saturating_mul(1 + word_bytes(pattern))
}

/// Which build of the expansion loop this CPU runs.
#[derive(Debug, Clone, Copy)]
enum Cpu {
    /// With the POPCNT instruction (ranks and regions count bits all the time).
    #[cfg(target_arch = "x86_64")]
    Popcnt(Popcnt),
    /// Portable.
    Any,
}

impl Cpu {
    fn detect() -> Cpu {
        #[cfg(target_arch = "x86_64")]
        if let Some(popcnt) = Popcnt::detect() {
            return Cpu::Popcnt(popcnt);
        }
        Cpu::Any
    }
}

/// What a level's expansion writes: per placement the region word, per chunk of
/// [`CHUNK`] placements whether any of its words got a new region (the sweep after
/// the level visits only those chunks).
struct Marks<'a, W> {
    words: &'a [W],
    touched: &'a [AtomicBool],
}

/// Expands `states` (rank, regions; empty region sets skipped): marks each child's
/// region as reached in `words` unless it is seen already.
fn expand_states<W: RegionWord>(
    cpu: Cpu,
    pattern: &Pattern,
    children: &Children<'_>,
    marks: &Marks<'_, W>,
    states: impl Iterator<Item = (u64, u32)>,
) {
    match cpu {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the token proves that the CPU has POPCNT.
        Cpu::Popcnt(popcnt) => unsafe {
            expand_states_popcnt(popcnt, pattern, children, marks, states)
        },
        Cpu::Any => expand_states_body(pattern, children, marks, states),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn expand_states_popcnt<W: RegionWord>(
    _: Popcnt,
    pattern: &Pattern,
    children: &Children<'_>,
    marks: &Marks<'_, W>,
    states: impl Iterator<Item = (u64, u32)>,
) {
    expand_states_body(pattern, children, marks, states);
}

#[inline(always)]
fn expand_states_body<W: RegionWord>(
    pattern: &Pattern,
    children: &Children<'_>,
    marks: &Marks<'_, W>,
    states: impl Iterator<Item = (u64, u32)>,
) {
    // States come in ascending rank order: the cursor steps between them.
    let mut cursor = Cursor::new(pattern.placements());
    for (rank, regions) in states {
        if regions == 0 {
            continue;
        }
        let places = cursor.seek(rank);
        children.expand(places, rank, regions, |to, region| {
            let word = &marks.words[to as usize];
            let bits = region as u64;
            if word.load() & (bits | bits << W::HALF) == 0 {
                word.or(bits << W::HALF);
                let touched = &marks.touched[to as usize / CHUNK];
                // Read first: the flag's cache line stays shared once it is set.
                if !touched.load(Ordering::Relaxed) {
                    touched.store(true, Ordering::Relaxed);
                }
            }
        });
    }
}

/// The state of a database build between levels.
struct Search<'a, W: RegionWord> {
    pattern: &'a Pattern,
    children: Children<'a>,
    cpu: Cpu,
    /// Per placement: 0 unseen, else its distance plus one.
    entries: Vec<u8>,
    /// Per placement: regions seen (low half) and reached by the level being
    /// expanded (high half).
    words: WordArray<W>,
    /// Regions reached at the current level, per placement (low half of a word).
    current: Vec<W::Half>,
    /// Per chunk: whether the level being expanded reached a new region there.
    touched: Vec<AtomicBool>,
    /// Per chunk: whether `current` holds any region there.
    occupied: Vec<bool>,
    /// The current level as a list (rank, regions) when it is small, else empty.
    frontier: Vec<(u64, u32)>,
}

/// Where a build starts: the last level done and the histogram up to it.
struct Start {
    depth: u32,
    histogram: Vec<u64>,
    resumed: bool,
}

impl<'a, W: RegionWord> Search<'a, W> {
    fn new(pattern: &'a Pattern) -> Result<Self, BuildError> {
        let count = pattern.placements().count() as usize;
        let chunks = count.div_ceil(CHUNK);
        Ok(Search {
            pattern,
            children: Children::new(pattern),
            cpu: Cpu::detect(),
            entries: vec![0u8; count],
            words: WordArray::<W>::zeroed(count).map_err(BuildError::Memory)?,
            current: Vec::new(),
            touched: (0..chunks).map(|_| AtomicBool::new(false)).collect(),
            occupied: vec![false; chunks],
            frontier: Vec::new(),
        })
    }

    fn count(&self) -> usize {
        self.entries.len()
    }

    /// Loads the checkpoint, if there is one of this build (a level just expanded:
    /// the sweep picks it up, over every chunk), else puts the goal at distance 0.
    fn start(&mut self, control: &BuildControl<'_>) -> Result<Start, BuildError> {
        let resumed = match control.checkpoint {
            Some(file) => {
                let loaded = file
                    .load(size_of::<W>(), &mut self.entries, self.words.bytes_mut())
                    .map_err(checkpoint_error(control))?;
                if loaded.is_none() && file.path().exists() {
                    // Not this build's, or damaged: what it may have filled in goes.
                    self.entries.fill(0);
                    self.words.bytes_mut().fill(0);
                    file.remove().map_err(checkpoint_error(control))?;
                }
                loaded
            }
            None => None,
        };
        if let Some(saved) = resumed {
            self.touched
                .iter()
                .for_each(|t| t.store(true, Ordering::Relaxed));
            self.current = vec![W::Half::default(); self.count()];
            return Ok(Start {
                depth: saved.depth,
                histogram: saved.histogram,
                resumed: true,
            });
        }
        let pattern = self.pattern;
        let goal_rank = pattern.placements().rank(pattern.homes()) as usize;
        let goal_free = pattern.all() & !mask(pattern.homes());
        let goal_region = self
            .children
            .region_name(pattern.blank_home() as u32, goal_free);
        self.entries[goal_rank] = 1;
        self.words[goal_rank].set(goal_region as u64);
        self.frontier = vec![(goal_rank as u64, goal_region)];
        Ok(Start {
            depth: 0,
            histogram: vec![1],
            resumed: false,
        })
    }

    /// Expands a level (the list `frontier`, or the regions in `current` in the
    /// chunks `occupied` says): marks each child's region as reached in `words` (high
    /// half) unless it is seen already, and the chunks written to in `touched`.
    fn expand(&self) {
        let (cpu, pattern, children) = (self.cpu, self.pattern, &self.children);
        let marks = Marks {
            words: &self.words,
            touched: &self.touched,
        };
        if self.frontier.is_empty() {
            let occupied = &self.occupied;
            self.current
                .par_chunks(CHUNK)
                .enumerate()
                .filter(|&(chunk, _)| occupied[chunk])
                .for_each(|(chunk, regions)| {
                    let states = regions
                        .iter()
                        .enumerate()
                        .map(|(offset, &r)| ((chunk * CHUNK + offset) as u64, W::bits(r)));
                    expand_states(cpu, pattern, children, &marks, states);
                });
        } else {
            self.frontier.par_chunks(CHUNK / 16).for_each(|states| {
                expand_states(cpu, pattern, children, &marks, states.iter().copied());
            });
        }
    }

    /// Makes the states new at `depth + 1` the next level: records their distance,
    /// moves the reached regions to the seen ones and into `current`. Only chunks the
    /// level touched change; the others drop what `current` held. Returns the new
    /// placements and the new states (placement and region).
    fn sweep(&mut self, depth: u32) -> (u64, u64) {
        let half = W::HALF;
        let stored = u8::try_from(depth + 2).expect("pattern distances stay below 254");
        let low = (1u64 << half) - 1;
        if self.current.is_empty() {
            self.current = vec![W::Half::default(); self.count()];
        }
        self.entries
            .par_chunks_mut(CHUNK)
            .zip(self.words.par_chunks_mut(CHUNK))
            .zip(self.current.par_chunks_mut(CHUNK))
            .zip(self.occupied.par_iter_mut().zip(&self.touched))
            .map(|(((entries, words), current), (occupied, touched))| {
                if !touched.swap(false, Ordering::Relaxed) {
                    if std::mem::take(occupied) {
                        current.fill(W::Half::default());
                    }
                    return (0, 0);
                }
                let (mut placements, mut states) = (0u64, 0u64);
                for ((entry, word), current) in entries.iter_mut().zip(words).zip(current) {
                    let bits = word.get();
                    let reached = (bits >> half) & !bits & low;
                    *current = W::half(reached);
                    if bits >> half != 0 {
                        word.set(bits & low | reached);
                        states += reached.count_ones() as u64;
                        if reached != 0 && *entry == 0 {
                            *entry = stored;
                            placements += 1;
                        }
                    }
                }
                *occupied = states != 0;
                (placements, states)
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    }

    /// The next level as a list when it holds at most one state in 64 placements.
    fn list_small_level(&mut self, states: u64) {
        self.frontier.clear();
        if states < self.count() as u64 / 64 {
            let occupied = &self.occupied;
            self.frontier = self
                .current
                .par_chunks(CHUNK)
                .enumerate()
                .filter(|&(chunk, _)| occupied[chunk])
                .flat_map_iter(|(chunk, regions)| {
                    regions
                        .iter()
                        .enumerate()
                        .filter(|&(_, &r)| W::bits(r) != 0)
                        .map(move |(offset, &r)| ((chunk * CHUNK + offset) as u64, W::bits(r)))
                })
                .collect();
        }
    }
}

/// The error of a checkpoint that cannot be read or written.
fn checkpoint_error(control: &BuildControl<'_>) -> impl Fn(std::io::Error) -> BuildError {
    let path = control
        .checkpoint
        .map(|c| c.path().to_owned())
        .unwrap_or_default();
    move |cause| BuildError::Checkpoint {
        path: path.clone(),
        cause,
    }
}

/// A database build as a build of the level-loop driver: each level sweeps the
/// regions reached into the next level and expands it; a checkpoint holds the search
/// right after an expansion.
struct DatabaseLevels<'s, 'a, 'c, W: RegionWord> {
    search: &'s mut Search<'a, W>,
    control: &'s BuildControl<'c>,
    /// The last level found (and expanded).
    depth: u32,
}

impl<W: RegionWord> driver::Levels for DatabaseLevels<'_, '_, '_, W> {
    type Error = BuildError;

    fn start(&mut self, _: &Control<'_>) -> Result<driver::Start, BuildError> {
        let Start {
            depth,
            histogram,
            resumed,
        } = self.search.start(self.control)?;
        self.depth = depth;
        Ok(match resumed {
            // The checkpoint holds the level expanded already.
            true => driver::Start::resumed(histogram),
            false => {
                self.search.expand();
                driver::Start::fresh(histogram[0])
            }
        })
    }

    fn next_level(&mut self, _: &Control<'_>) -> Result<Next, BuildError> {
        let (new_placements, new_states) = self.search.sweep(self.depth);
        if new_states == 0 {
            return Ok(Next::Done);
        }
        self.search.list_small_level(new_states);
        self.depth += 1;
        self.search.expand();
        Ok(Next::found(new_placements))
    }

    fn saves(&self) -> bool {
        self.control.checkpoint.is_some()
    }

    fn save(&mut self, levels: &[u64]) -> Result<u64, BuildError> {
        let Some(file) = self.control.checkpoint else {
            return Ok(0);
        };
        let saved = Saved {
            depth: self.depth,
            histogram: levels.to_vec(),
        };
        let (entries, words) = (&self.search.entries, self.search.words.bytes());
        file.save(&saved, size_of::<W>(), entries, words)
            .map_err(|cause| BuildError::CheckpointWrite {
                path: file.path().to_owned(),
                cause,
            })?;
        Ok((entries.len() + words.len()) as u64)
    }

    fn checkpoint_path(&self) -> Option<PathBuf> {
        self.control.checkpoint.map(|c| c.path().to_owned())
    }
}

#[inline(always)]
fn bfs<W: RegionWord>(
    pattern: &Pattern,
    progress: &dyn Observer,
    control: &BuildControl<'_>,
) -> Result<Entries, BuildError> {
    let mut search = Search::<W>::new(pattern)?;
    let driven = Control::new(progress, control.stop).every(control.every);
    let mut levels = DatabaseLevels {
        search: &mut search,
        control,
        depth: 0,
    };
    let mut histogram = driver::run(&mut levels, &driven)?;
    // Levels that reached new regions of old placements only end the histogram with
    // zeros; they are not distances of any placement.
    while histogram.last() == Some(&0) {
        histogram.pop();
    }
    Ok(Entries {
        entries: search.entries,
        histogram,
    })
}

/// The cells of `places` as a mask.
fn mask(places: &[u8]) -> u32 {
    places.iter().fold(0, |m, &p| m | 1 << p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_tile_needs_its_manhattan_distance() {
        // A single tile's fewest moves are its Manhattan distance to home: the blank
        // can always come round for free on a 3x3 board.
        let goal: Vec<u8> = vec![1, 2, 3, 4, 5, 6, 7, 8, 0];
        let pattern = Pattern::new(3, 3, &goal, &[5]).unwrap();
        let built = build(&pattern, &driver::Silent).unwrap();
        for cell in 0..9u8 {
            let rank = pattern.placements().rank(&[cell]) as usize;
            let (r, c) = (cell as i32 / 3, cell as i32 % 3);
            let distance = (r - 1).abs() + (c - 1).abs();
            assert_eq!(built.entries[rank] as i32 - 1, distance, "cell {cell}");
        }
        assert_eq!(built.histogram, vec![1, 4, 4]);
    }

    /// Stops the build once level `at` is reported; records a resume.
    struct StopAt<'a> {
        at: u32,
        stop: &'a crate::StopToken,
        resumed: std::sync::Mutex<Option<u32>>,
    }

    impl Observer for StopAt<'_> {
        fn resumed(&self, levels: &[u64]) {
            *self.resumed.lock().unwrap() = Some(levels.len() as u32 - 1);
        }
        fn level_finished(&self, stats: &driver::LevelStats) {
            if stats.depth == self.at {
                self.stop.stop();
            }
        }
    }

    #[test]
    fn an_interrupted_build_resumes_to_the_same_entries() {
        let goal: Vec<u8> = (1..16).chain([0]).collect();
        let pattern = Pattern::new(4, 4, &goal, &[1, 2, 5, 6, 9]).unwrap();
        let whole = build(&pattern, &driver::Silent).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let file = CheckpointFile::beside(&dir.path().join("db.table"), "digest");
        // Early levels go as lists, the widest as full arrays.
        for at in [0, 3, 9, 15] {
            // From the goal: no checkpoint of the previous round.
            file.remove().unwrap();
            let stop = crate::StopToken::new();
            let progress = StopAt {
                at,
                stop: &stop,
                resumed: Default::default(),
            };
            let control = BuildControl {
                checkpoint: Some(&file),
                every: Duration::from_secs(3600),
                stop: Some(&stop),
            };
            match build_with(&pattern, &progress, &control) {
                Err(BuildError::Interrupted(Interrupted { levels, checkpoint })) => {
                    let depth = levels.len() as u32 - 1;
                    assert_eq!((depth, checkpoint.as_deref()), (at, Some(file.path())));
                }
                other => panic!("stop at {at}: {other:?}"),
            }
            assert_eq!(*progress.resumed.lock().unwrap(), None, "stop at {at}");
            let stop = crate::StopToken::new();
            let progress = StopAt {
                at: u32::MAX,
                stop: &stop,
                resumed: Default::default(),
            };
            let control = BuildControl {
                stop: Some(&stop),
                ..control
            };
            let resumed = build_with(&pattern, &progress, &control).unwrap();
            assert_eq!(*progress.resumed.lock().unwrap(), Some(at));
            assert_eq!(resumed.histogram, whole.histogram, "stop at {at}");
            assert!(resumed.entries == whole.entries, "stop at {at}");
        }
        // A damaged checkpoint is dropped: the build starts over, and is right.
        file.remove().unwrap();
        let stop = crate::StopToken::new();
        let progress = StopAt {
            at: 7,
            stop: &stop,
            resumed: Default::default(),
        };
        let control = BuildControl {
            checkpoint: Some(&file),
            every: Duration::ZERO,
            stop: Some(&stop),
        };
        assert!(build_with(&pattern, &progress, &control).is_err());
        let mut bytes = std::fs::read(file.path()).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x40;
        std::fs::write(file.path(), &bytes).unwrap();
        let stop = crate::StopToken::new();
        let progress = StopAt {
            at: u32::MAX,
            stop: &stop,
            resumed: Default::default(),
        };
        let control = BuildControl {
            stop: Some(&stop),
            ..control
        };
        let rebuilt = build_with(&pattern, &progress, &control).unwrap();
        assert_eq!(*progress.resumed.lock().unwrap(), None);
        assert!(rebuilt.entries == whole.entries);
    }

    #[test]
    fn every_placement_is_reached() {
        let goal: Vec<u8> = (1..12).chain([0]).collect();
        let pattern = Pattern::new(3, 4, &goal, &[1, 2, 5, 6]).unwrap();
        let built = build(&pattern, &driver::Silent).unwrap();
        assert!(built.entries.iter().all(|&e| e > 0));
        assert_eq!(
            built.histogram.iter().sum::<u64>(),
            pattern.placements().count()
        );
    }
}
