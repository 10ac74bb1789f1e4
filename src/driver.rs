//! The one level loop of every level-by-level build: the engine's breadth-first
//! search ([`crate::engine::Bfs`], and through it the table builds), the pattern
//! databases' build ([`crate::pdb`]), peg solitaire's sweeps
//! ([`crate::solvers::peg::levels`], [`crate::solvers::peg::table`]), its moves
//! histogram and the components of an index space ([`crate::components`]).
//!
//! A build is a small implementation of [`Levels`]: it starts (seeds the first
//! level, or resumes saved ones), computes one level at a time, and saves what it has
//! done. [`run`] owns everything around that:
//!
//! - **stop**: one [`StopToken`], checked between levels (and handed to the build, which
//!   may check it within a level); a stopped run saves its complete levels and ends
//!   with the one interrupted error, [`Interrupted`];
//! - **progress**: one interface, [`Observer`]: levels started and finished, work
//!   done within a level, checkpoints written, levels resumed;
//! - **checkpoint pacing**: one rule ([`Pacing`]): a checkpoint waits at least
//!   [`Control::checkpoint_every`] after the start or the last one, and at least
//!   [`CHECKPOINT_SHARE`] times as long as the last one took, so that writing them
//!   takes about 3% of a run; zero means after every level;
//! - **resume**: the levels a build's [`Levels::start`] found saved are reported as
//!   resumed ([`Observer::resumed`]) and the loop goes on from the next one.
//!
//! Bidirectional search ([`crate::search`]) meets two frontiers in the middle and stays
//! a solver of its own.
//!
//! ```
//! use antipode::driver::{self, Control, Levels, Next, Start};
//!
//! /// Counts the numbers 1..=n reached from 1 by doubling and adding one, level by level.
//! struct Doubling { n: u64, seen: Vec<bool>, frontier: Vec<u64> }
//!
//! impl Levels for Doubling {
//!     type Error = driver::Interrupted;
//!     fn start(&mut self, _: &Control<'_>) -> Result<Start, Self::Error> {
//!         self.seen[1] = true;
//!         self.frontier = vec![1];
//!         Ok(Start::fresh(1))
//!     }
//!     fn next_level(&mut self, _: &Control<'_>) -> Result<Next, Self::Error> {
//!         let mut next = Vec::new();
//!         for &k in &self.frontier {
//!             for child in [2 * k, k + 1] {
//!                 if child <= self.n && !self.seen[child as usize] {
//!                     self.seen[child as usize] = true;
//!                     next.push(child);
//!                 }
//!             }
//!         }
//!         self.frontier = next;
//!         Ok(match self.frontier.len() as u64 {
//!             0 => Next::Done,
//!             found => Next::found(found),
//!         })
//!     }
//! }
//!
//! let mut doubling = Doubling { n: 10, seen: vec![false; 11], frontier: Vec::new() };
//! let levels = driver::run(&mut doubling, &Control::default()).unwrap();
//! assert_eq!(levels, [1, 1, 2, 3, 3]);
//! ```

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::StopToken;

mod level_clock;
pub use level_clock::{LevelClock, SAY_GUESS_FROM, SearchShape};

/// How one level was computed.
///
/// ```
/// use antipode::engine::{Bfs, Direction};
///
/// // A large frontier and few unseen states left: look for parents bottom-up.
/// assert_eq!(Bfs::choose_direction(1_000, 10, 100), Direction::BottomUp);
/// assert_eq!(Bfs::choose_direction(1, 1_000_000, 1_000_000), Direction::TopDown);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// The frontier's neighbours were marked.
    TopDown,
    /// Unseen states looked for a neighbour in the frontier.
    BottomUp,
}

/// What one finished level found.
///
/// ```
/// use std::sync::Mutex;
/// use antipode::driver::Control;
/// use antipode::engine::{self, LevelStats, Observer};
/// use antipode::{Puzzle, puzzles::SlidingPuzzle, store::ByteDepths};
///
/// struct Levels(Mutex<Vec<(u32, u64)>>);
/// impl Observer for Levels {
///     fn level_finished(&self, stats: &LevelStats) {
///         self.0.lock().unwrap().push((stats.depth, stats.new_states));
///     }
/// }
/// let board = SlidingPuzzle::new(2, 3).unwrap();
/// let store = ByteDepths::anonymous(board.index_count()).unwrap();
/// let levels = Levels(Mutex::new(Vec::new()));
/// engine::search(&board, &store, &Control::new(&levels, None)).unwrap();
/// let levels = levels.0.into_inner().unwrap();
/// assert_eq!(levels[..3], [(0, 1), (1, 2), (2, 3)]);
/// assert_eq!(levels.last(), Some(&(21, 1)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LevelStats {
    /// The level's number (the depth of the states found).
    pub depth: u32,
    /// How many states have this depth.
    pub new_states: u64,
    /// How many states have this depth or less.
    pub cumulative: u64,
    /// Time since the run started.
    pub elapsed: Duration,
    /// How the level was computed (`None` for the first level, or a build without
    /// directions).
    pub direction: Option<Direction>,
}

/// Receives progress from a running build. Called from worker threads, hence `Sync`.
/// The library never prints; a front end renders these events.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use antipode::driver::Control;
/// use antipode::engine::{self, Observer};
/// use antipode::{Puzzle, puzzles::SlidingPuzzle, store::ByteDepths};
///
/// /// Counts the work units done, as a progress bar would.
/// #[derive(Default)]
/// struct Units(AtomicU64);
/// impl Observer for Units {
///     fn work_done(&self, units: u64) {
///         self.0.fetch_add(units, Ordering::Relaxed);
///     }
/// }
/// let board = SlidingPuzzle::new(2, 3).unwrap();
/// let store = ByteDepths::anonymous(board.index_count()).unwrap();
/// let units = Units::default();
/// engine::search(&board, &store, &Control::new(&units, None)).unwrap();
/// assert!(units.0.load(Ordering::Relaxed) > 0);
/// ```
pub trait Observer: Sync {
    /// A level starts; `work_units` calls of [`Observer::work_done`] will follow in total.
    fn level_started(&self, _depth: u32, _direction: Direction, _work_units: u64) {}
    /// Some units of the current level are done.
    fn work_done(&self, _units: u64) {}
    /// A level is finished.
    fn level_finished(&self, _stats: &LevelStats) {}
    /// The completed levels (`levels` of them) were made durable: `bytes` written in
    /// `took`. Called before the last of those levels is reported finished: a level
    /// reported finished after a checkpoint is in it.
    fn checkpoint_written(&self, _levels: usize, _bytes: u64, _took: Duration) {}
    /// The run goes on from saved levels: `levels[d]` states at level `d`.
    fn resumed(&self, _levels: &[u64]) {}
    /// A level on disk ([`crate::engine::OnDisk`]) went through `blocks` blocks and
    /// moved `written` and `read` bytes of buckets (called before the level is
    /// reported finished).
    fn blocks_moved(&self, _blocks: usize, _written: u64, _read: u64) {}
    /// A level on disk ([`crate::engine::OnDisk`]) turns to a block of one of its
    /// passes; `step` says which, and the bucket bytes the level has moved so far.
    fn block_started(&self, _step: &BlockStep) {}
}

/// Where a level on disk is: the pass, the block of that pass and the bucket bytes
/// moved since the level started ([`Observer::block_started`]).
///
/// ```
/// use antipode::driver::BlockStep;
///
/// let step = BlockStep { pass: 2, passes: 2, block: 2, blocks: 9, written: 1 << 30, read: 0 };
/// assert_eq!(step.to_string(), "pass 2/2, block 3/9, 1.0 GiB out, 0 B in");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockStep {
    /// The pass over the blocks, from 1: a top-down level makes two, a bottom-up three.
    pub pass: usize,
    /// The level's passes.
    pub passes: usize,
    /// The block, from 0.
    pub block: usize,
    /// The blocks of the index.
    pub blocks: usize,
    /// Bucket bytes written to disk since the level started.
    pub written: u64,
    /// Bucket bytes read back since the level started.
    pub read: u64,
}

impl std::fmt::Display for BlockStep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "pass {}/{}, block {}/{}, {} out, {} in",
            self.pass,
            self.passes,
            self.block + 1,
            self.blocks,
            crate::units::human_bytes(self.written as f64),
            crate::units::human_bytes(self.read as f64)
        )
    }
}

/// An observer that ignores everything.
///
/// ```
/// use antipode::driver::Control;
/// use antipode::engine::{self, Silent};
/// use antipode::{Puzzle, puzzles::SlidingPuzzle, store::ByteDepths};
///
/// let board = SlidingPuzzle::new(2, 3).unwrap();
/// let store = ByteDepths::anonymous(board.index_count()).unwrap();
/// // Silent is the default control's observer.
/// let control = Control { observer: &Silent, ..Control::default() };
/// assert_eq!(engine::search(&board, &store, &control).unwrap().gods_number(), 21);
/// ```
pub struct Silent;

impl Observer for Silent {}

/// The one error of a build that was asked to stop: its complete levels are saved
/// (where the build saves anything) and the same job resumes from them.
///
/// ```
/// use antipode::driver::Interrupted;
///
/// let stopped = Interrupted { levels: vec![1, 2, 3], checkpoint: None };
/// assert_eq!(stopped.to_string(), "interrupted after 3 complete level(s)");
/// let saved = Interrupted { checkpoint: Some("t.table".into()), ..stopped };
/// assert_eq!(
///     saved.to_string(),
///     "interrupted: t.table holds 3 complete level(s); run the same command again to resume"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.describe())]
pub struct Interrupted {
    /// States per level of the complete levels.
    pub levels: Vec<u64>,
    /// Where they are saved, for builds that save to a file of their own.
    pub checkpoint: Option<PathBuf>,
}

impl Interrupted {
    fn describe(&self) -> String {
        let levels = self.levels.len();
        match &self.checkpoint {
            Some(path) => format!(
                "interrupted: {} holds {levels} complete level(s); run the same command again to resume",
                path.display()
            ),
            None => format!("interrupted after {levels} complete level(s)"),
        }
    }
}

/// Checkpoints take at most about 1/(1 + this) of a run: each writes everything.
pub const CHECKPOINT_SHARE: u32 = 30;

/// How a run is driven: whom to tell, when to stop, how often to save.
///
/// ```
/// use std::time::Duration;
/// use antipode::driver::Control;
///
/// let stop = antipode::StopToken::new();
/// let control = Control { stop: Some(&stop), ..Control::default() }.every(Duration::ZERO);
/// assert_eq!(control.checkpoint_every, Duration::ZERO);
/// ```
#[derive(Clone, Copy)]
pub struct Control<'a> {
    /// Receives the progress.
    pub observer: &'a dyn Observer,
    /// Once set, the run saves its complete levels and ends with [`Interrupted`].
    pub stop: Option<&'a StopToken>,
    /// The least time between two checkpoints (see [`Pacing`]); zero: after every
    /// level.
    pub checkpoint_every: Duration,
}

impl Default for Control<'_> {
    fn default() -> Self {
        Control {
            observer: &Silent,
            stop: None,
            checkpoint_every: Duration::from_secs(2),
        }
    }
}

impl<'a> Control<'a> {
    /// Progress to `observer`, stopped by `stop`, checkpoints at the default pacing
    /// (at most every 2 s).
    #[must_use]
    pub fn new(observer: &'a dyn Observer, stop: Option<&'a StopToken>) -> Self {
        Control {
            observer,
            stop,
            ..Control::default()
        }
    }

    /// The same control with checkpoints at most every `every`.
    #[must_use]
    pub fn every(self, every: Duration) -> Self {
        Control {
            checkpoint_every: every,
            ..self
        }
    }

    /// Whether a stop was asked for.
    #[must_use]
    pub fn stopped(&self) -> bool {
        self.stop.is_some_and(StopToken::is_stopped)
    }
}

/// The one pacing rule of checkpoints: due once `every` has passed since the start
/// or the last checkpoint, and [`CHECKPOINT_SHARE`] times the last one's duration.
///
/// ```
/// use std::time::Duration;
/// use antipode::driver::Pacing;
///
/// assert!(Pacing::new(Duration::ZERO).due());
/// assert!(!Pacing::new(Duration::from_secs(60)).due());
/// ```
#[derive(Debug, Clone)]
pub struct Pacing {
    every: Duration,
    last: Instant,
    cost: Duration,
}

impl Pacing {
    /// Pacing that starts now.
    #[must_use]
    pub fn new(every: Duration) -> Pacing {
        Pacing {
            every,
            last: Instant::now(),
            cost: Duration::ZERO,
        }
    }

    /// Whether a checkpoint is due.
    #[must_use]
    pub fn due(&self) -> bool {
        let wait = match self.every {
            every if every.is_zero() => every,
            every => every.max(self.cost * CHECKPOINT_SHARE),
        };
        self.last.elapsed() >= wait
    }

    /// A checkpoint that took `cost` just ended.
    pub fn saved(&mut self, cost: Duration) {
        self.cost = cost;
        self.last = Instant::now();
    }
}

/// Where a run starts: the complete levels it holds.
///
/// ```
/// use antipode::driver::Start;
///
/// assert_eq!(Start::fresh(4).levels, [4]);
/// assert!(Start::resumed(vec![1, 2]).resumed);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Start {
    /// States per complete level (a fresh run: the first level only).
    pub levels: Vec<u64>,
    /// Whether they were loaded from a checkpoint.
    pub resumed: bool,
}

impl Start {
    /// A fresh run whose first level holds `states`.
    #[must_use]
    pub fn fresh(states: u64) -> Start {
        Start {
            levels: vec![states],
            resumed: false,
        }
    }

    /// A run that goes on from saved levels.
    #[must_use]
    pub fn resumed(levels: Vec<u64>) -> Start {
        Start {
            levels,
            resumed: true,
        }
    }
}

/// What computing one level gave.
///
/// ```
/// use antipode::driver::Next;
///
/// assert_eq!(Next::found(3), Next::Level { states: 3, direction: None });
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// A complete level (a build may record zero states and go on).
    Level {
        /// Its states (or what the build counts per level).
        states: u64,
        /// How it was computed, if the build has directions.
        direction: Option<Direction>,
    },
    /// Nothing new: the run is complete.
    Done,
    /// The stop token ended the level before it was complete.
    Stopped,
}

impl Next {
    /// A level of `states` states, without a direction.
    #[must_use]
    pub fn found(states: u64) -> Next {
        Next::Level {
            states,
            direction: None,
        }
    }
}

/// One level-by-level build, as [`run`] drives it.
pub trait Levels {
    /// What the build fails with; a stop becomes one through `From<Interrupted>`.
    type Error: From<Interrupted>;

    /// Seeds the first level, or loads the saved levels to go on from.
    ///
    /// # Errors
    /// A checkpoint that cannot be read, a build that cannot begin.
    fn start(&mut self, control: &Control<'_>) -> Result<Start, Self::Error>;

    /// Computes the next level.
    ///
    /// # Errors
    /// Whatever the build can fail with.
    fn next_level(&mut self, control: &Control<'_>) -> Result<Next, Self::Error>;

    /// Whether the build saves checkpoints at all.
    fn saves(&self) -> bool {
        false
    }

    /// Makes the complete `levels` durable; returns the bytes written.
    ///
    /// # Errors
    /// The write failed (the previous checkpoint is kept).
    fn save(&mut self, _levels: &[u64]) -> Result<u64, Self::Error> {
        Ok(0)
    }

    /// Whether to save now, given the pacing's answer `due`: builds of several
    /// processes agree on one answer here.
    fn agree_to_save(&mut self, due: bool) -> bool {
        due
    }

    /// Where the checkpoints go, for the interrupted error.
    fn checkpoint_path(&self) -> Option<PathBuf> {
        None
    }
}

/// Runs `build` until a level finds nothing new; returns the states per level.
///
/// # Errors
/// The build's own errors, and [`Interrupted`] (converted into the build's error)
/// when `control.stop` is set: the complete levels are saved first.
pub fn run<L: Levels + ?Sized>(build: &mut L, control: &Control<'_>) -> Result<Vec<u64>, L::Error> {
    let started = Instant::now();
    let observer = control.observer;
    let Start {
        mut levels,
        resumed,
    } = build.start(control)?;
    let mut cumulative: u64 = levels.iter().sum();
    let mut run = Run {
        pacing: Pacing::new(control.checkpoint_every),
        // Levels the last checkpoint (or the resumed file) holds.
        saved: resumed.then_some(levels.len()),
    };
    if resumed {
        observer.resumed(&levels);
    } else {
        run.save(build, control, &levels, false)?;
        observer.level_finished(&LevelStats {
            depth: 0,
            new_states: cumulative,
            cumulative,
            elapsed: started.elapsed(),
            direction: None,
        });
    }
    let mut stopping = false;
    loop {
        stopping |= control.stopped();
        if stopping {
            run.save(build, control, &levels, true)?;
            return Err(Interrupted {
                levels,
                checkpoint: build.checkpoint_path(),
            }
            .into());
        }
        match build.next_level(control)? {
            Next::Level { states, direction } => {
                levels.push(states);
                cumulative += states;
                // A level reported finished is durable if a checkpoint was due.
                run.save(build, control, &levels, false)?;
                observer.level_finished(&LevelStats {
                    depth: levels.len() as u32 - 1,
                    new_states: states,
                    cumulative,
                    elapsed: started.elapsed(),
                    direction,
                });
            }
            Next::Done => return Ok(levels),
            Next::Stopped => stopping = true,
        }
    }
}

/// The checkpoints of one run.
struct Run {
    pacing: Pacing,
    /// How many levels the last checkpoint holds.
    saved: Option<usize>,
}

impl Run {
    /// Saves `levels` if the build saves, they are not saved yet, and a checkpoint
    /// is due (or `now`) by the pacing and the build's agreement.
    fn save<L: Levels + ?Sized>(
        &mut self,
        build: &mut L,
        control: &Control<'_>,
        levels: &[u64],
        now: bool,
    ) -> Result<(), L::Error> {
        if !build.saves() || self.saved == Some(levels.len()) {
            return Ok(());
        }
        if !build.agree_to_save(now || self.pacing.due()) {
            return Ok(());
        }
        let began = Instant::now();
        let bytes = build.save(levels)?;
        let took = began.elapsed();
        self.pacing.saved(took);
        self.saved = Some(levels.len());
        control
            .observer
            .checkpoint_written(levels.len(), bytes, took);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Levels of `sizes`, saved into `saved`; stops itself at level `stop_at`.
    struct Counted<'a> {
        sizes: Vec<u64>,
        done: usize,
        saved: Vec<Vec<u64>>,
        stop_at: Option<(usize, &'a StopToken)>,
    }

    impl Levels for Counted<'_> {
        type Error = Interrupted;
        fn start(&mut self, _: &Control<'_>) -> Result<Start, Interrupted> {
            Ok(match self.saved.last() {
                Some(levels) => {
                    self.done = levels.len();
                    Start::resumed(levels.clone())
                }
                None => {
                    self.done = 1;
                    Start::fresh(self.sizes[0])
                }
            })
        }
        fn next_level(&mut self, control: &Control<'_>) -> Result<Next, Interrupted> {
            if let Some((at, token)) = self.stop_at
                && at == self.done
            {
                token.stop();
            }
            if control.stopped() {
                return Ok(Next::Stopped);
            }
            let Some(&states) = self.sizes.get(self.done) else {
                return Ok(Next::Done);
            };
            self.done += 1;
            Ok(Next::found(states))
        }
        fn saves(&self) -> bool {
            true
        }
        fn save(&mut self, levels: &[u64]) -> Result<u64, Interrupted> {
            self.saved.push(levels.to_vec());
            Ok(levels.len() as u64)
        }
    }

    #[derive(Default)]
    struct Heard(Mutex<Vec<String>>);
    impl Observer for Heard {
        fn level_finished(&self, stats: &LevelStats) {
            let line = format!("level {} {}", stats.depth, stats.new_states);
            self.0.lock().unwrap().push(line);
        }
        fn checkpoint_written(&self, levels: usize, _: u64, _: Duration) {
            self.0.lock().unwrap().push(format!("saved {levels}"));
        }
        fn resumed(&self, levels: &[u64]) {
            self.0.lock().unwrap().push(format!("resumed {levels:?}"));
        }
    }

    #[test]
    fn a_stopped_run_saves_its_levels_and_resumes_to_the_same_levels() {
        let sizes = vec![1, 4, 9, 2];
        let whole = run(
            &mut Counted {
                sizes: sizes.clone(),
                done: 0,
                saved: Vec::new(),
                stop_at: None,
            },
            &Control::default(),
        )
        .unwrap();
        assert_eq!(whole, sizes);
        for at in 1..sizes.len() {
            let token = StopToken::new();
            let heard = Heard::default();
            let control = Control::new(&heard, Some(&token)).every(Duration::from_secs(3600));
            let mut build = Counted {
                sizes: sizes.clone(),
                done: 0,
                saved: Vec::new(),
                stop_at: Some((at, &token)),
            };
            let stopped = run(&mut build, &control).unwrap_err();
            assert_eq!(stopped.levels, sizes[..at]);
            // Only the stop's checkpoint: the pacing never came due.
            assert_eq!(build.saved, [sizes[..at].to_vec()]);
            build.stop_at = None;
            let heard = Heard::default();
            let control = Control::new(&heard, None).every(Duration::ZERO);
            assert_eq!(run(&mut build, &control).unwrap(), sizes);
            let heard = heard.0.into_inner().unwrap();
            assert_eq!(heard[0], format!("resumed {:?}", &sizes[..at]));
            assert_eq!(heard.len(), 1 + 2 * (sizes.len() - at));
        }
    }

    #[test]
    fn pacing_zero_saves_after_every_level_and_never_twice() {
        let heard = Heard::default();
        let control = Control::new(&heard, None).every(Duration::ZERO);
        let mut build = Counted {
            sizes: vec![1, 2, 3],
            done: 0,
            saved: Vec::new(),
            stop_at: None,
        };
        run(&mut build, &control).unwrap();
        assert_eq!(build.saved, [vec![1], vec![1, 2], vec![1, 2, 3]]);
        assert_eq!(
            heard.0.into_inner().unwrap(),
            [
                "saved 1",
                "level 0 1",
                "saved 2",
                "level 1 2",
                "saved 3",
                "level 2 3"
            ]
        );
    }
}
