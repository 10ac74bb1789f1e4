//! How long the next level will take, guessed from the levels before it.
//!
//! A level's time follows its work, not its size, and the work is counted in
//! neighbours computed: a top-down level computes every neighbour of its frontier (the
//! last level's new states); a bottom-up level asks each state not found yet (holes of
//! the index left out) for its neighbours a group at a time, until one lies in the
//! frontier, so a question at a dense level stops after a group or two: with a share
//! `f` of the states in the frontier, group `j` is computed with probability about
//! `(1 - f)^(j · group)`. The seconds per neighbour stay within a small factor from one
//! level to the next while the work grows by the puzzle's branching factor, so the
//! guess is the work times the last rate of the same direction (of the other direction,
//! scaled by `BOTTOM_UP_PER_TOP_DOWN`, until one level of this one has run). The
//! whole run's rate so far says little about the next level: the big levels come last.
//! How close the guesses come on the FTO and the colour-neutral cross is in the
//! experiment log (`scripts/EXPERIMENTS.md`) and these tests.

use std::time::Duration;

use super::{Direction, LevelStats};
use crate::puzzle::Puzzle;

/// Levels shorter than this say little about the rate (start-up costs dominate).
const SHORTEST_MEASURE: Duration = Duration::from_millis(50);

/// A bottom-up neighbour's time over a top-down one's, for a level guessed from the
/// other direction's rate: the ratio differs by puzzle and machine (a question reads
/// the frontier where a top-down neighbour writes the table), and the middle of those
/// measured on the FTO and the colour-neutral cross (the experiment log) keeps each
/// of their guesses within 2x.
const BOTTOM_UP_PER_TOP_DOWN: f64 = 1.25;

/// Levels guessed to take this long or longer get their guess said at their start
/// (a line of progress); the guesses of shorter ones shift with start-up costs.
pub const SAY_GUESS_FROM: Duration = Duration::from_secs(10);

/// What the clock knows of a search before it runs: its index space and how its
/// states' neighbours are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchShape {
    /// The number of indices.
    pub indices: u64,
    /// Indices known never to be reached ([`Puzzle::never_reached`]).
    pub never_reached: u64,
    /// The most neighbours of a state ([`Puzzle::max_neighbours`]).
    pub moves: u32,
    /// How many neighbours a bottom-up question computes before it reads their
    /// answers ([`Puzzle::question_group`]).
    pub question_group: u32,
}

impl SearchShape {
    /// The shape of a search of `puzzle`.
    pub fn of<P: Puzzle + ?Sized>(puzzle: &P) -> SearchShape {
        SearchShape {
            indices: puzzle.index_count(),
            never_reached: puzzle.never_reached(),
            moves: puzzle.max_neighbours().max(1) as u32,
            question_group: puzzle.question_group().max(1) as u32,
        }
    }

    /// A search over `indices` known only by their number: work counted in states
    /// (a frontier state or a question, each one unit).
    #[must_use]
    pub fn states(indices: u64) -> SearchShape {
        SearchShape {
            indices,
            never_reached: 0,
            moves: 1,
            question_group: 1,
        }
    }

    /// The neighbours a bottom-up question computes on average when a share
    /// `frontier_share` of the states is in the frontier.
    fn neighbours_asked(&self, frontier_share: f64) -> f64 {
        let miss = (1.0 - frontier_share).clamp(0.0, 1.0);
        let (moves, group) = (self.moves, self.question_group.min(self.moves));
        let mut asked = 0.0;
        let mut first = 0;
        while first < moves {
            let size = group.min(moves - first);
            asked += f64::from(size) * miss.powi(first as i32);
            first += size;
        }
        asked
    }
}

/// The guess of each level's time from the levels before it.
///
/// ```
/// use std::time::Duration;
/// use antipode::driver::{Direction, LevelClock, LevelStats, SearchShape};
///
/// let mut clock = LevelClock::new(SearchShape::states(1_000_000));
/// let level = |depth, new_states, cumulative, seconds| LevelStats {
///     depth,
///     new_states,
///     cumulative,
///     elapsed: Duration::from_secs(seconds),
///     direction: Some(Direction::TopDown),
/// };
/// clock.level_finished(&level(0, 1, 1, 0), Duration::ZERO);
/// clock.level_started(Direction::TopDown);
/// clock.level_finished(&level(1, 100, 101, 1), Duration::from_secs(1));
/// // A frontier of 100 states took 10 seconds: one of 10,000 about 1,000.
/// clock.level_started(Direction::TopDown);
/// clock.level_finished(&level(2, 10_000, 10_101, 11), Duration::from_secs(10));
/// let guess = clock.level_started(Direction::TopDown).unwrap();
/// assert_eq!(guess.as_secs(), 1_000);
/// ```
#[derive(Debug, Clone)]
pub struct LevelClock {
    shape: SearchShape,
    /// The last level's new states and the states found so far.
    frontier: u64,
    cumulative: u64,
    /// Seconds per neighbour of the last measured level of each direction
    /// (top-down, bottom-up).
    per_unit: [Option<f64>; 2],
    /// The running level's direction and work.
    running: Option<(Direction, f64)>,
}

impl LevelClock {
    /// A clock for a search of shape `shape`.
    #[must_use]
    pub fn new(shape: SearchShape) -> LevelClock {
        LevelClock {
            shape,
            frontier: 0,
            cumulative: 0,
            per_unit: [None, None],
            running: None,
        }
    }

    /// The neighbours a level in `direction` computes, about.
    fn work(&self, direction: Direction) -> f64 {
        let shape = &self.shape;
        match direction {
            Direction::TopDown => self.frontier as f64 * f64::from(shape.moves),
            Direction::BottomUp => {
                let reachable = shape.indices.saturating_sub(shape.never_reached).max(1);
                let open = reachable.saturating_sub(self.cumulative);
                let share = self.frontier as f64 / reachable as f64;
                open as f64 * shape.neighbours_asked(share)
            }
        }
    }

    /// A level in `direction` starts: its guessed time, once a level long enough to
    /// measure has run.
    pub fn level_started(&mut self, direction: Direction) -> Option<Duration> {
        let work = self.work(direction);
        self.running = Some((direction, work));
        let (same, other) = match direction {
            Direction::TopDown => (
                self.per_unit[0],
                self.per_unit[1].map(|rate| rate / BOTTOM_UP_PER_TOP_DOWN),
            ),
            Direction::BottomUp => (
                self.per_unit[1],
                self.per_unit[0].map(|rate| rate * BOTTOM_UP_PER_TOP_DOWN),
            ),
        };
        let per_unit = same.or(other)?;
        Some(Duration::from_secs_f64(work * per_unit))
    }

    /// A level finished after `level_time` (its own time, checkpoints apart).
    pub fn level_finished(&mut self, stats: &LevelStats, level_time: Duration) {
        if let Some((direction, work)) = self.running.take()
            && work > 0.0
            && level_time >= SHORTEST_MEASURE
        {
            let slot = match direction {
                Direction::TopDown => 0,
                Direction::BottomUp => 1,
            };
            self.per_unit[slot] = Some(level_time.as_secs_f64() / work);
        }
        self.frontier = stats.new_states;
        self.cumulative = stats.cumulative;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The FTO by classes (`scripts/bench.sh fto`, 2026-11-30): per level its new
    /// classes, the classes so far, its direction and its time in seconds.
    const FTO: [(u64, u64, Direction, f64); 13] = [
        (1, 2, Direction::TopDown, 0.003),
        (6, 8, Direction::TopDown, 0.001),
        (56, 64, Direction::TopDown, 0.002),
        (726, 790, Direction::TopDown, 0.006),
        (9_266, 10_056, Direction::TopDown, 0.028),
        (117_338, 127_394, Direction::TopDown, 0.067),
        (1_464_652, 1_592_046, Direction::TopDown, 0.280),
        (17_818_056, 19_410_102, Direction::TopDown, 1.524),
        (202_730_572, 222_140_674, Direction::TopDown, 12.109),
        (1_691_383_974, 1_913_524_648, Direction::TopDown, 106.732),
        (2_831_817_507, 4_745_342_155, Direction::BottomUp, 765.436),
        (44_765_064, 4_790_107_219, Direction::BottomUp, 11.725),
        (29, 4_790_107_248, Direction::TopDown, 24.723),
    ];

    /// The FTO again (`scripts/bench.sh fto`, 2026-12-07, a faster machine and build):
    /// its top-down levels sped up more than its bottom-up ones (seconds between the
    /// level lines).
    const FTO_FASTER: [(u64, u64, Direction, f64); 13] = [
        (1, 2, Direction::TopDown, 0.001),
        (6, 8, Direction::TopDown, 0.0005),
        (56, 64, Direction::TopDown, 0.0005),
        (726, 790, Direction::TopDown, 0.001),
        (9_266, 10_056, Direction::TopDown, 0.003),
        (117_338, 127_394, Direction::TopDown, 0.023),
        (1_464_652, 1_592_046, Direction::TopDown, 0.151),
        (17_818_056, 19_410_102, Direction::TopDown, 0.858),
        (202_730_572, 222_140_674, Direction::TopDown, 7.963),
        (1_691_383_974, 1_913_524_648, Direction::TopDown, 62.326),
        (2_831_817_507, 4_745_342_155, Direction::BottomUp, 542.179),
        (44_765_064, 4_790_107_219, Direction::BottomUp, 8.687),
        (29, 4_790_107_248, Direction::TopDown, 15.004),
    ];

    #[test]
    fn every_long_level_of_the_fto_is_guessed_within_2x_at_its_start() {
        let shape = by_classes(5_266_710_720, 4_790_107_248, 16);
        assert_eq!(guess_within_2x(shape, 1, &FTO), 5);
        assert_eq!(guess_within_2x(shape, 1, &FTO_FASTER), 3);
    }

    /// The colour-neutral cross by classes (`scripts/bench.sh cn-cross`, 2026-11-30):
    /// per level its new classes, the classes so far, its direction and its time in
    /// seconds. At its first bottom-up level (6) the frontier holds 55% of the
    /// classes: most questions stop after their first group.
    const CN_CROSS: [(u64, u64, Direction, f64); 8] = [
        (9_646_189, 10_292_408, Direction::TopDown, 0.869),
        (100_831_033, 111_123_441, Direction::TopDown, 15.453),
        (856_947_022, 968_070_463, Direction::TopDown, 141.888),
        (4_993_242_690, 5_961_313_153, Direction::TopDown, 1064.427),
        (11_324_771_033, 17_286_084_186, Direction::TopDown, 5672.225),
        (3_146_365_175, 20_432_449_361, Direction::BottomUp, 624.728),
        (5_398_010, 20_437_847_371, Direction::BottomUp, 1.711),
        (5, 20_437_847_376, Direction::BottomUp, 0.102),
    ];

    /// A class index of `indices` slots for `classes` classes, `moves` moves, its
    /// questions asking four neighbours at a time.
    fn by_classes(indices: u64, classes: u64, moves: u32) -> SearchShape {
        SearchShape {
            indices,
            never_reached: indices - classes,
            moves,
            question_group: 4,
        }
    }

    /// Guesses each level of `levels` at its start; those of [`SAY_GUESS_FROM`] or
    /// more (the levels whose guess is printed) must come within 2x. Returns how
    /// many were checked.
    fn guess_within_2x(
        shape: SearchShape,
        goal: u64,
        levels: &[(u64, u64, Direction, f64)],
    ) -> usize {
        let mut clock = LevelClock::new(shape);
        let stats = |depth, new_states, cumulative, direction| LevelStats {
            depth,
            new_states,
            cumulative,
            elapsed: Duration::ZERO,
            direction: Some(direction),
        };
        clock.level_finished(&stats(0, goal, goal, Direction::TopDown), Duration::ZERO);
        let mut guessed = 0;
        for (depth, &(new, cumulative, direction, seconds)) in (1..).zip(levels) {
            let guess = clock.level_started(direction);
            if seconds >= SAY_GUESS_FROM.as_secs_f64() {
                let guess = guess.expect("levels before it measured").as_secs_f64();
                let ratio = guess / seconds;
                assert!(
                    (0.5..=2.0).contains(&ratio),
                    "depth {depth}: {guess:.0} s for {seconds} s"
                );
                guessed += 1;
            }
            let level_time = Duration::from_secs_f64(seconds);
            clock.level_finished(&stats(depth, new, cumulative, direction), level_time);
        }
        guessed
    }

    #[test]
    fn every_long_level_of_the_colour_neutral_cross_is_guessed_within_2x() {
        let shape = by_classes(20_451_262_464, 20_437_847_376, 18);
        assert_eq!(guess_within_2x(shape, 646_219, &CN_CROSS), 5);
    }

    #[test]
    fn a_question_at_a_dense_level_asks_a_group() {
        let shape = by_classes(100, 100, 18);
        assert_eq!(shape.neighbours_asked(1.0), 4.0);
        assert_eq!(shape.neighbours_asked(0.0), 18.0);
        let half = shape.neighbours_asked(0.5);
        assert!(
            (half - (4.0 + 4.0 / 16.0 + 4.0 / 256.0 + 4.0 / 4096.0 + 2.0 / 65536.0)).abs() < 1e-12
        );
        assert_eq!(SearchShape::states(100).neighbours_asked(0.3), 1.0);
    }

    #[test]
    fn no_guess_before_a_level_long_enough_to_measure() {
        let mut clock = LevelClock::new(SearchShape::states(100));
        assert_eq!(clock.level_started(Direction::TopDown), None);
        let stats = LevelStats {
            depth: 1,
            new_states: 10,
            cumulative: 11,
            elapsed: Duration::ZERO,
            direction: Some(Direction::TopDown),
        };
        clock.level_finished(&stats, Duration::from_millis(1));
        assert_eq!(clock.level_started(Direction::BottomUp), None);
    }
}
