//! A partition of a sliding board's tiles into patterns, and the lower bound it gives:
//! the sum of the patterns' database entries (additive, since each database counts
//! only its own tiles' moves), and on square boards whose goal is symmetric about the
//! main diagonal the larger of that sum and the same sum over the reflected position.
//!
//! ```no_run
//! use antipode::pdb::{BuildSettings, Partition};
//! use antipode::puzzles::sliding::BoardShape;
//!
//! // Korf's goal: the blank top-left.
//! let board = BoardShape::new(4, 4)?.with_goal("0 1 2 3/4 5 6 7/8 9 10 11/12 13 14 15")?;
//! let tiles = Partition::split(4, 4, board.goal(), "7-8")?;
//! let settings = BuildSettings::default();
//! let tables = antipode::persist::TABLES_DIR.as_ref();
//! let partition = Partition::open_or_build(tables, &board, &tiles, &settings, &mut |_| {})?;
//! let position = [14, 13, 15, 7, 11, 12, 9, 5, 6, 0, 2, 1, 4, 8, 10, 3];
//! assert!(partition.estimate(&position) <= 57);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::StopToken;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::build::{self, BuildControl};
use super::checkpoint::CheckpointFile;
use super::file::{self, EntryRef, Pdb};
use super::pattern::{MAX_CELLS, Pattern};
use super::{Board, PdbError};
use crate::driver::{LevelStats, Observer};
use crate::table::header;
use crate::table::lock::WriteLock;

/// Most patterns in a partition.
pub const MAX_PATTERNS: usize = 8;

/// The databases of a partition, opened.
pub struct Partition {
    dbs: Vec<Pdb>,
    cells: usize,
    /// `pattern_of[tile]`: the pattern holding the tile (`NONE` for the blank).
    pattern_of: [u8; MAX_CELLS],
    /// With a symmetric goal: `cell_map[cell]` is the cell reflected about the main
    /// diagonal, `tile_map[tile]` the tile whose goal cell is the reflection of
    /// `tile`'s.
    reflection: Option<([u8; MAX_CELLS], [u8; MAX_CELLS])>,
}

const NONE: u8 = u8::MAX;

/// How the missing databases of a partition are built.
#[derive(Debug, Clone, Copy)]
pub struct BuildSettings<'a> {
    /// A build saves its progress beside the database at most this often (and no
    /// more often than keeps the checkpoints to about 3% of the build); an
    /// interrupted build resumes from its last checkpoint. `Some(ZERO)`: after every
    /// level; `None`: no checkpoints.
    pub checkpoint_every: Option<Duration>,
    /// Once set (by Ctrl-C, say), a build stops after the level it is expanding and
    /// saves its progress.
    pub stop: Option<&'a StopToken>,
}

/// Checkpoints of database builds wait at least this long: the largest build here
/// (tiles 8-15 of the 15-puzzle, about 90 s) writes 1.5 GB per checkpoint.
pub const CHECKPOINT_EVERY: Duration = Duration::from_secs(30);

impl Default for BuildSettings<'_> {
    fn default() -> Self {
        BuildSettings {
            checkpoint_every: Some(CHECKPOINT_EVERY),
            stop: None,
        }
    }
}

/// What happens while a partition's databases are opened or built.
#[derive(Debug, Clone)]
pub enum PartitionEvent {
    /// A database is being built (it was not in the folder).
    Building {
        /// Its tiles.
        tiles: Vec<u8>,
        /// Its file.
        path: PathBuf,
        /// Placements.
        placements: u64,
    },
    /// A build goes on from its checkpoint.
    Resumed {
        /// The checkpoint.
        checkpoint: PathBuf,
        /// The last level it holds.
        depth: u32,
    },
    /// A level of a build finished.
    Level {
        /// Distance.
        depth: u32,
        /// Placements first reached.
        placements: u64,
    },
    /// A database was built and written.
    Built {
        /// Its file.
        path: PathBuf,
        /// Its file's size in bytes.
        bytes: u64,
        /// Seconds the build and write took.
        seconds: f64,
    },
    /// A database was found in the folder and opened.
    Opened {
        /// Its file.
        path: PathBuf,
    },
}

/// Passes a build's progress on as events.
struct LevelReport<'a> {
    report: std::sync::Mutex<&'a mut (dyn FnMut(PartitionEvent) + Send)>,
    checkpoint: PathBuf,
}

impl LevelReport<'_> {
    fn send(&self, event: PartitionEvent) {
        if let Ok(mut report) = self.report.lock() {
            report(event);
        }
    }
}

impl Observer for LevelReport<'_> {
    fn resumed(&self, levels: &[u64]) {
        self.send(PartitionEvent::Resumed {
            checkpoint: self.checkpoint.clone(),
            depth: levels.len() as u32 - 1,
        });
        for (depth, &placements) in levels.iter().enumerate() {
            let depth = depth as u32;
            self.send(PartitionEvent::Level { depth, placements });
        }
    }

    fn level_finished(&self, stats: &LevelStats) {
        self.send(PartitionEvent::Level {
            depth: stats.depth,
            placements: stats.new_states,
        });
    }
}

impl Partition {
    /// The tiles of a partition given by sizes such as `7-8` or `6-6-3`: the board's
    /// tiles in the order of their goal cells (row by row, the blank skipped), cut
    /// into groups of those sizes, which must add up to all the tiles.
    ///
    /// # Errors
    /// [`PdbError`] if the sizes are not numbers or do not add up to the board's tiles.
    pub fn split(
        rows: usize,
        cols: usize,
        goal: &[u8],
        sizes: &str,
    ) -> Result<Vec<Vec<u8>>, PdbError> {
        let tiles: Vec<u8> = goal.iter().copied().filter(|&t| t != 0).collect();
        if goal.len() != rows * cols {
            return Err(PdbError::Board { rows, cols });
        }
        let sizes: Vec<usize> = sizes
            .split('-')
            .map(|s| s.trim().parse::<usize>().ok().filter(|&n| n > 0))
            .collect::<Option<_>>()
            .ok_or_else(|| {
                PdbError::Tiles(format!(
                    "a partition is sizes such as 7-8 or 5-5-5, not `{sizes}`"
                ))
            })?;
        if sizes.iter().sum::<usize>() != tiles.len() {
            return Err(PdbError::Tiles(format!(
                "the sizes add up to {}, the board has {} tiles",
                sizes.iter().sum::<usize>(),
                tiles.len()
            )));
        }
        let mut groups = Vec::new();
        let mut rest = &tiles[..];
        for size in sizes {
            let (group, after) = rest.split_at(size);
            groups.push(group.to_vec());
            rest = after;
        }
        Ok(groups)
    }

    /// The file name of a pattern's database in a tables folder: puzzle, tiles, and
    /// the first digits of the definition's digest (which also covers the goal).
    pub fn file_name(puzzle: &str, pattern: &Pattern, goal: &[u8]) -> String {
        let digest = header::definition_digest(&file::definition(pattern, goal));
        let tiles: Vec<String> = pattern.tiles().iter().map(u8::to_string).collect();
        format!("{puzzle}-pdb-{}-{}.table", tiles.join("."), &digest[..8])
    }

    /// Opens the databases of `patterns` (disjoint tile lists) of `board` from `dir`,
    /// building and writing the ones that are missing as `settings` say; `report`
    /// hears what happens. Every pattern is checked before anything is built.
    ///
    /// # Errors
    /// [`PdbError`] if a database cannot be opened or built (no room, a failed write, a
    /// stop).
    pub fn open_or_build(
        dir: &Path,
        board: &impl Board,
        patterns: &[Vec<u8>],
        settings: &BuildSettings<'_>,
        report: &mut (dyn FnMut(PartitionEvent) + Send),
    ) -> Result<Partition, PdbError> {
        if patterns.is_empty() || patterns.len() > MAX_PATTERNS {
            return Err(PdbError::Tiles(format!(
                "a partition has 1 to {MAX_PATTERNS} patterns"
            )));
        }
        let (rows, cols, goal) = (board.rows(), board.cols(), board.goal());
        let mut pattern_of = [NONE; MAX_CELLS];
        let mut checked = Vec::new();
        for (p, tiles) in patterns.iter().enumerate() {
            checked.push(Pattern::new(rows, cols, goal, tiles)?);
            for &t in tiles {
                if pattern_of[t as usize] != NONE {
                    return Err(PdbError::Tiles(format!("tile {t} is in two patterns")));
                }
                pattern_of[t as usize] = p as u8;
            }
        }
        let mut dbs = Vec::new();
        for pattern in checked {
            let path = dir.join(Self::file_name(&board.name(), &pattern, goal));
            if path.exists() {
                // A build killed between writing the database and removing its
                // checkpoint leaves the checkpoint behind: it is of no more use.
                let digest = header::definition_digest(&file::definition(&pattern, goal));
                let _ = CheckpointFile::beside(&path, &digest).remove();
                report(PartitionEvent::Opened { path: path.clone() });
            } else {
                build_database(dir, &path, board, &pattern, settings, report)?;
            }
            dbs.push(Pdb::open(&path, &pattern, goal)?);
        }
        Ok(Partition {
            dbs,
            cells: rows * cols,
            pattern_of,
            reflection: reflection(rows, cols, goal),
        })
    }

    /// The opened databases.
    #[must_use]
    pub fn databases(&self) -> &[Pdb] {
        &self.dbs
    }

    /// Whether the bound also takes the position reflected about the main diagonal.
    #[must_use]
    pub fn reflects(&self) -> bool {
        self.reflection.is_some()
    }

    /// Board cells.
    #[must_use]
    pub fn cells(&self) -> usize {
        self.cells
    }

    /// The tile whose place in the reflected position a move of `tile` changes (the
    /// reflection pairs tiles; `tile` itself without one).
    #[must_use]
    pub fn reflected_tile(&self, tile: u8) -> u8 {
        match &self.reflection {
            Some((_, tile_map)) => tile_map[tile as usize % MAX_CELLS],
            None => tile,
        }
    }

    /// The reflection of `cell` about the main diagonal (`cell` itself without a
    /// reflection).
    #[must_use]
    pub fn reflected_cell(&self, cell: u8) -> u8 {
        match &self.reflection {
            Some((cell_map, _)) => cell_map[cell as usize % MAX_CELLS],
            None => cell,
        }
    }

    /// The pattern holding `tile`, if any.
    #[inline(always)]
    #[must_use]
    pub fn pattern_of(&self, tile: u8) -> Option<usize> {
        let p = self.pattern_of[tile as usize % MAX_CELLS];
        (p != NONE).then_some(p as usize)
    }

    /// Pattern `p`'s distance with the tiles on `places_of[tile]`.
    #[inline(always)]
    #[must_use]
    pub fn part(&self, p: usize, places_of: &[u8; MAX_CELLS]) -> u32 {
        self.entry(p, self.locate(p, places_of))
    }

    /// Pattern `p`'s distance in the reflected position, where tile `t` stands on
    /// the reflection of the cell of `tile_map[t]`; 0 without a reflection.
    #[inline(always)]
    #[must_use]
    pub fn reflected_part(&self, p: usize, places_of: &[u8; MAX_CELLS]) -> u32 {
        self.locate_reflected(p, places_of)
            .map_or(0, |entry| self.entry(p, entry))
    }

    /// Where pattern `p`'s entry with the tiles on `places_of[tile]` lies: for
    /// [`prefetch`](Self::prefetch) and [`entry`](Self::entry).
    #[inline(always)]
    #[must_use]
    pub fn locate(&self, p: usize, places_of: &[u8; MAX_CELLS]) -> EntryRef {
        let db = &self.dbs[p];
        let mut places = [0u8; MAX_CELLS];
        let tiles = db.pattern().tiles();
        for (place, &t) in places.iter_mut().zip(tiles) {
            *place = places_of[t as usize % MAX_CELLS];
        }
        db.locate(&places[..tiles.len()])
    }

    /// Where pattern `p`'s entry in the reflected position lies ([`locate`](Self::locate),
    /// [`reflected_part`](Self::reflected_part)); `None` without a reflection.
    #[inline(always)]
    #[must_use]
    pub fn locate_reflected(&self, p: usize, places_of: &[u8; MAX_CELLS]) -> Option<EntryRef> {
        let (cell_map, tile_map) = self.reflection.as_ref()?;
        let db = &self.dbs[p];
        let mut places = [0u8; MAX_CELLS];
        let tiles = db.pattern().tiles();
        for (place, &t) in places.iter_mut().zip(tiles) {
            let source = tile_map[t as usize % MAX_CELLS];
            *place = cell_map[places_of[source as usize % MAX_CELLS] as usize % MAX_CELLS];
        }
        Some(db.locate(&places[..tiles.len()]))
    }

    /// Asks the processor to fetch pattern `p`'s entry `entry` into its caches.
    #[inline(always)]
    pub fn prefetch(&self, p: usize, entry: EntryRef) {
        self.dbs[p].prefetch(entry);
    }

    /// Pattern `p`'s distance at `entry`.
    #[inline(always)]
    #[must_use]
    pub fn entry(&self, p: usize, entry: EntryRef) -> u32 {
        self.dbs[p].distance_of(entry)
    }

    /// The cell of each tile of a position (`cells[c]` the tile on cell `c`).
    #[must_use]
    pub fn places_of(&self, cells: &[u8]) -> [u8; MAX_CELLS] {
        let mut places = [0u8; MAX_CELLS];
        for (cell, &t) in cells.iter().enumerate().take(self.cells) {
            places[t as usize % MAX_CELLS] = cell as u8;
        }
        places
    }

    /// The lower bound of a position (`cells[c]` the tile on cell `c`, 0 the blank).
    #[must_use]
    pub fn estimate(&self, cells: &[u8]) -> u32 {
        let places = self.places_of(cells);
        let direct: u32 = (0..self.dbs.len()).map(|p| self.part(p, &places)).sum();
        let reflected: u32 = (0..self.dbs.len())
            .map(|p| self.reflected_part(p, &places))
            .sum();
        direct.max(reflected)
    }
}

/// Builds the database of `pattern` into `path` (resuming from its checkpoint if
/// there is one) and removes the checkpoint.
fn build_database(
    dir: &Path,
    path: &Path,
    board: &impl Board,
    pattern: &Pattern,
    settings: &BuildSettings<'_>,
    report: &mut (dyn FnMut(PartitionEvent) + Send),
) -> Result<(), PdbError> {
    let goal = board.goal();
    let digest = header::definition_digest(&file::definition(pattern, goal));
    let checkpoint = CheckpointFile::beside(path, &digest);
    let checkpoints = settings.checkpoint_every.is_some();
    check_room(pattern, dir, checkpoints)?;
    std::fs::create_dir_all(dir).map_err(|cause| PdbError::Io {
        path: dir.to_owned(),
        cause,
    })?;
    // One build of a database at a time: its partial file is locked from here until
    // the database is in place (the checkpoint is written under the same lock).
    let partial = WriteLock::acquire(&file::partial_path(path))?;
    if path.exists() {
        // Another build finished it meanwhile.
        let _ = partial.remove();
        return Ok(());
    }
    report(PartitionEvent::Building {
        tiles: pattern.tiles().to_vec(),
        path: path.to_owned(),
        placements: pattern.placements().count(),
    });
    let started = std::time::Instant::now();
    let control = BuildControl {
        checkpoint: checkpoints.then_some(&checkpoint),
        every: settings.checkpoint_every.unwrap_or_default(),
        stop: settings.stop,
    };
    let built = {
        let levels = LevelReport {
            report: std::sync::Mutex::new(&mut *report),
            checkpoint: checkpoint.path().to_owned(),
        };
        match build::build_with(pattern, &levels, &control) {
            Ok(built) => built,
            Err(cause) => {
                let _ = partial.remove();
                return Err(PdbError::Build {
                    path: path.to_owned(),
                    cause,
                });
            }
        }
    };
    let text = board.format_line(goal);
    let header = file::write(partial, path, pattern, &board.name(), &text, goal, &built)?;
    if checkpoints {
        checkpoint.remove().map_err(|cause| PdbError::Io {
            path: checkpoint.path().to_owned(),
            cause,
        })?;
    }
    report(PartitionEvent::Built {
        path: path.to_owned(),
        bytes: header::HEADER_BYTES as u64 + header.payload_bytes,
        seconds: started.elapsed().as_secs_f64(),
    });
    Ok(())
}

/// Refuses a build that would not fit the memory free now, or its file (and its
/// checkpoints, two at a time while one replaces the other) the disk.
fn check_room(pattern: &Pattern, dir: &Path, checkpoints: bool) -> Result<(), PdbError> {
    let placements = pattern.placements().count();
    let too_large = |what, needed, available| PdbError::TooLarge {
        tiles: super::tile_list(pattern.tiles()),
        placements,
        what,
        needed,
        available,
    };
    let memory = placements.saturating_mul(build::bytes_per_placement(pattern));
    if let Some(free) = crate::sys::available_memory_bytes().filter(|&free| memory > free) {
        return Err(too_large("memory", memory, free));
    }
    // The file holds at most a byte per placement; the folder may not exist yet.
    let mut file = header::HEADER_BYTES as u64 + placements;
    if checkpoints {
        file += 2 * build::checkpoint_bytes(pattern);
    }
    let existing = dir
        .ancestors()
        .find(|d| d.exists())
        .unwrap_or(Path::new("."));
    if let Some(free) = crate::sys::available_bytes(existing).filter(|&free| file > free) {
        return Err(too_large("disk", file, free));
    }
    Ok(())
}

/// The reflection about the main diagonal, when the board is square and it maps the
/// goal's blank onto itself (then it maps the goal onto a relabelled goal, and a
/// position's reflection, relabelled, is exactly as far from the goal).
fn reflection(rows: usize, cols: usize, goal: &[u8]) -> Option<([u8; MAX_CELLS], [u8; MAX_CELLS])> {
    if rows != cols {
        return None;
    }
    let mut cell_map = [0u8; MAX_CELLS];
    for (cell, mapped) in cell_map.iter_mut().enumerate().take(rows * cols) {
        *mapped = ((cell % cols) * cols + cell / cols) as u8;
    }
    let blank = goal.iter().position(|&t| t == 0)?;
    if cell_map[blank] as usize != blank {
        return None;
    }
    let mut tile_map = [0u8; MAX_CELLS];
    for (cell, &t) in goal.iter().enumerate() {
        tile_map[t as usize] = goal[cell_map[cell] as usize];
    }
    Some((cell_map, tile_map))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_follow_the_goal_order() {
        let korf: Vec<u8> = (0..16).collect();
        let split = Partition::split(4, 4, &korf, "7-8").unwrap();
        assert_eq!(split, vec![(1..8).collect::<Vec<u8>>(), (8..16).collect()]);
        let usual: Vec<u8> = (1..16).chain([0]).collect();
        assert_eq!(
            Partition::split(4, 4, &usual, "5-5-5").unwrap()[2],
            vec![11, 12, 13, 14, 15]
        );
        assert!(Partition::split(4, 4, &korf, "7-7").is_err());
        assert!(Partition::split(4, 4, &korf, "7-x").is_err());
        assert!(Partition::split(4, 4, &korf, "0-15").is_err());
    }

    #[test]
    fn the_reflection_maps_the_goal_onto_itself() {
        let korf: Vec<u8> = (0..16).collect();
        let (cells, tiles) = reflection(4, 4, &korf).unwrap();
        assert_eq!(cells[1], 4);
        assert_eq!(tiles[1], 4);
        assert_eq!(tiles[7], 13);
        assert!(reflection(3, 4, &(0..12).collect::<Vec<u8>>()).is_none());
        // A goal with the blank off the diagonal has no such symmetry.
        let mut off: Vec<u8> = (0..16).collect();
        off.swap(0, 1);
        assert!(reflection(4, 4, &off).is_none());
    }
}
