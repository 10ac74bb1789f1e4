//! How long the next level will take, guessed from the levels before it.
//!
//! A level's time follows its work, not its size: a top-down level expands its
//! frontier (the last level's new states), a bottom-up level looks at every index not
//! reached yet. The seconds per unit of work stay within a small factor from one
//! level to the next while the work itself grows by the puzzle's branching factor, so
//! the guess is the work times the last rate of the same direction (of the other
//! direction until one level of this one has run). The whole run's rate so far says
//! little about the next level: the big levels come last. How close the guesses come
//! on the FTO is in the experiment log (`scripts/EXPERIMENTS.md`) and this test.

use std::time::Duration;

use super::{Direction, LevelStats};

/// Levels shorter than this say little about the rate (start-up costs dominate).
const SHORTEST_MEASURE: Duration = Duration::from_millis(50);

/// The guess of each level's time from the levels before it.
///
/// ```
/// use std::time::Duration;
/// use antipode::driver::{Direction, LevelClock, LevelStats};
///
/// let mut clock = LevelClock::new(1_000_000);
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
    indices: u64,
    /// The last level's new states and the states found so far.
    frontier: u64,
    cumulative: u64,
    /// Seconds per unit of work of the last measured level of each direction
    /// (top-down, bottom-up).
    per_unit: [Option<f64>; 2],
    /// The running level's direction and work.
    running: Option<(Direction, u64)>,
}

impl LevelClock {
    /// A clock for a search over `indices` indices.
    #[must_use]
    pub fn new(indices: u64) -> LevelClock {
        LevelClock {
            indices,
            frontier: 0,
            cumulative: 0,
            per_unit: [None, None],
            running: None,
        }
    }

    fn work(&self, direction: Direction) -> u64 {
        match direction {
            Direction::TopDown => self.frontier,
            Direction::BottomUp => self.indices.saturating_sub(self.cumulative),
        }
    }

    /// A level in `direction` starts: its guessed time, once a level long enough to
    /// measure has run.
    pub fn level_started(&mut self, direction: Direction) -> Option<Duration> {
        let work = self.work(direction);
        self.running = Some((direction, work));
        let (same, other) = match direction {
            Direction::TopDown => (self.per_unit[0], self.per_unit[1]),
            Direction::BottomUp => (self.per_unit[1], self.per_unit[0]),
        };
        let per_unit = same.or(other)?;
        Some(Duration::from_secs_f64(work as f64 * per_unit))
    }

    /// A level finished after `level_time` (its own time, checkpoints apart).
    pub fn level_finished(&mut self, stats: &LevelStats, level_time: Duration) {
        if let Some((direction, work)) = self.running.take()
            && work > 0
            && level_time >= SHORTEST_MEASURE
        {
            let slot = match direction {
                Direction::TopDown => 0,
                Direction::BottomUp => 1,
            };
            self.per_unit[slot] = Some(level_time.as_secs_f64() / work as f64);
        }
        self.frontier = stats.new_states;
        self.cumulative = stats.cumulative;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The FTO by classes (`scripts/bench.sh fto`, 2026-11-29): per level its new
    /// states, the states so far, its direction and its time in seconds; 5,266,710,720
    /// indices.
    const FTO: [(u64, u64, Direction, f64); 13] = [
        (1, 2, Direction::TopDown, 0.001),
        (6, 8, Direction::TopDown, 0.001),
        (56, 64, Direction::TopDown, 0.001),
        (726, 790, Direction::TopDown, 0.001),
        (9_266, 10_056, Direction::TopDown, 0.004),
        (117_338, 127_394, Direction::TopDown, 0.039),
        (1_464_652, 1_592_046, Direction::TopDown, 0.298),
        (17_818_056, 19_410_102, Direction::TopDown, 3.063),
        (202_730_572, 222_140_674, Direction::TopDown, 25.350),
        (1_691_383_974, 1_913_524_648, Direction::TopDown, 207.815),
        (2_831_817_507, 4_745_342_155, Direction::TopDown, 1524.410),
        (44_765_064, 4_790_107_219, Direction::BottomUp, 677.094),
        (29, 4_790_107_248, Direction::TopDown, 51.650),
    ];

    #[test]
    fn every_long_level_of_the_fto_is_guessed_within_2x_at_its_start() {
        let mut clock = LevelClock::new(5_266_710_720);
        let stats = |depth, new_states, cumulative, direction| LevelStats {
            depth,
            new_states,
            cumulative,
            elapsed: Duration::ZERO,
            direction: Some(direction),
        };
        clock.level_finished(&stats(0, 1, 1, Direction::TopDown), Duration::ZERO);
        let mut guessed = 0;
        for (depth, &(new, cumulative, direction, seconds)) in (1..).zip(&FTO) {
            let guess = clock.level_started(direction);
            if seconds >= 1.0 {
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
        assert_eq!(guessed, 6);
    }

    #[test]
    fn no_guess_before_a_level_long_enough_to_measure() {
        let mut clock = LevelClock::new(100);
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
