//! Live progress on standard error: a line per finished level (with its states per
//! second), a line before each level guessed to take a while with that guess
//! ([`LevelClock`]), and, once the run is older than two seconds, a progress bar of the
//! running level with the rate so far and the guess. A level on disk adds its pass,
//! block and bucket bytes so far to the bar, and off a terminal a line per pass once
//! the level runs long. The bar is drawn only on a terminal; the lines always (unless
//! quiet).

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use antipode::driver::{BlockStep, LevelClock, SAY_GUESS_FROM, SearchShape};
use antipode::engine::{Direction, LevelStats, Observer};
use antipode::units::{compact, human_bytes, human_duration, thousands};

/// Runs shorter than this show no bar.
const BAR_AFTER: Duration = Duration::from_secs(2);

/// The share of a task's units done before its time left is guessed.
const GUESS_AFTER: f64 = 0.02;

/// Prints BFS progress to standard error (or nothing, when quiet).
pub struct LevelPrinter {
    quiet: bool,
    /// Each level's guessed time, from the levels before it.
    clock: Mutex<LevelClock>,
    bar: Mutex<Option<ProgressBar>>,
    /// When the first level started.
    started: std::sync::OnceLock<Instant>,
    /// States and time when the last level finished.
    last: Mutex<(u64, Duration)>,
    /// Time spent writing checkpoints since the last level finished.
    checkpoints: Mutex<Duration>,
    /// What the level on disk just run moved: its blocks and bucket bytes.
    moved: Mutex<Option<(usize, u64, u64)>>,
    /// The running level: its depth, its direction's name, when it started and the
    /// bar's message at its start (a level on disk adds its block to it).
    level: Mutex<Option<RunningLevel>>,
}

/// What the progress of a running level says of it.
struct RunningLevel {
    depth: u32,
    direction: &'static str,
    started: Instant,
    message: String,
}

impl LevelPrinter {
    pub fn new(quiet: bool, shape: SearchShape) -> LevelPrinter {
        LevelPrinter {
            quiet,
            clock: Mutex::new(LevelClock::new(shape)),
            bar: Mutex::new(None),
            started: std::sync::OnceLock::new(),
            last: Mutex::new((0, Duration::ZERO)),
            checkpoints: Mutex::new(Duration::ZERO),
            moved: Mutex::new(None),
            level: Mutex::new(None),
        }
    }
}

/// The seconds left of a task of `units` units at its rate so far, once
/// [`GUESS_AFTER`] of them are done.
fn seconds_left(units: u64, done: u64, elapsed: Duration) -> Option<f64> {
    let reached = done as f64 / units.max(1) as f64;
    if reached < GUESS_AFTER || elapsed.is_zero() || done >= units {
        return None;
    }
    let rate = done as f64 / elapsed.as_secs_f64();
    Some((units - done) as f64 / rate)
}

fn per_second(states: u64, time: Duration) -> String {
    let rate = states as f64 / time.as_secs_f64().max(1e-9);
    format!("{} states/s", compact(rate))
}

impl Observer for LevelPrinter {
    fn level_started(&self, depth: u32, direction: Direction, work_units: u64) {
        if self.quiet {
            return;
        }
        let guess = self
            .clock
            .lock()
            .expect("progress lock")
            .level_started(direction);
        let bar = ProgressBar::with_draw_target(Some(work_units), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template(
                "depth {prefix} [{bar:30}] {percent:>3}% {elapsed}  {msg}",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        let direction = match direction {
            Direction::TopDown => "top-down",
            Direction::BottomUp => "bottom-up",
        };
        bar.set_prefix(format!("{depth:>3} {direction}"));
        let (states, elapsed) = *self.last.lock().expect("progress lock");
        let mut message = String::new();
        if elapsed > Duration::ZERO {
            message = format!("{} so far", per_second(states, elapsed));
            if let Some(guess) = guess {
                message.push_str(&format!(
                    ", this level {}",
                    human_duration(guess.as_secs_f64())
                ));
            }
            bar.set_message(message.clone());
        }
        *self.level.lock().expect("progress lock") = Some(RunningLevel {
            depth,
            direction,
            started: Instant::now(),
            message,
        });
        if let Some(guess) = guess.filter(|&g| g >= SAY_GUESS_FROM) {
            eprintln!(
                "depth {depth:>3}  {direction}: {} (guessed from the levels before it)",
                human_duration(guess.as_secs_f64())
            );
        } else if guess.is_none() && depth > 1 && self.started.get().is_none() {
            // A resumed table's first level: nothing timed to guess from, and off a
            // terminal no bar shows, so say at least that it began.
            eprintln!("depth {depth:>3}  {direction}: started (resumed; no level timed yet)");
        }
        self.started.get_or_init(Instant::now);
        *self.bar.lock().expect("progress lock") = Some(bar);
    }

    fn work_done(&self, units: u64) {
        if self.quiet {
            return;
        }
        if let Some(bar) = self.bar.lock().expect("progress lock").as_ref() {
            bar.inc(units);
            let long_run = self.started.get().is_some_and(|s| s.elapsed() > BAR_AFTER);
            if bar.is_hidden() && long_run {
                // Hidden again by indicatif when standard error is not a terminal.
                bar.set_draw_target(ProgressDrawTarget::stderr());
            }
        }
    }

    fn checkpoint_written(&self, levels: usize, bytes: u64, took: Duration) {
        self.note_checkpoint(levels, bytes, took);
    }

    fn blocks_moved(&self, blocks: usize, written: u64, read: u64) {
        *self.moved.lock().expect("progress lock") = Some((blocks, written, read));
    }

    /// The bar says the block and the bytes so far; off a terminal, where no bar
    /// shows, a level running for [`SAY_GUESS_FROM`] or more says each pass it ends.
    fn block_started(&self, step: &BlockStep) {
        if self.quiet {
            return;
        }
        let level = self.level.lock().expect("progress lock");
        let Some(level) = level.as_ref() else {
            return;
        };
        if let Some(bar) = self.bar.lock().expect("progress lock").as_ref() {
            bar.set_message(match level.message.as_str() {
                "" => step.to_string(),
                message => format!("{message}; {step}"),
            });
        }
        let running = level.started.elapsed();
        if step.block == 0
            && step.pass > 1
            && running >= SAY_GUESS_FROM
            && !std::io::stderr().is_terminal()
        {
            eprintln!(
                "depth {:>3}  {}: pass {}/{} done after {:.1} s; buckets {} out, {} in",
                level.depth,
                level.direction,
                step.pass - 1,
                step.passes,
                running.as_secs_f64(),
                human_bytes(step.written as f64),
                human_bytes(step.read as f64)
            );
        }
    }

    fn level_finished(&self, stats: &LevelStats) {
        if self.quiet {
            return;
        }
        if let Some(bar) = self.bar.lock().expect("progress lock").take() {
            bar.finish_and_clear();
        }
        *self.level.lock().expect("progress lock") = None;
        let direction = match stats.direction {
            None => "goal",
            Some(Direction::TopDown) => "top-down",
            Some(Direction::BottomUp) => "bottom-up",
        };
        let mut last = self.last.lock().expect("progress lock");
        // The level's own time: a checkpoint written after it is reported apart.
        let checkpoints = std::mem::take(&mut *self.checkpoints.lock().expect("progress lock"));
        let level_time = stats
            .elapsed
            .saturating_sub(last.1)
            .saturating_sub(checkpoints);
        let rate = if level_time >= Duration::from_millis(50) {
            format!("  {}", per_second(stats.new_states, level_time))
        } else {
            String::new()
        };
        self.clock
            .lock()
            .expect("progress lock")
            .level_finished(stats, level_time);
        *last = (stats.cumulative, stats.elapsed);
        let moved = match self.moved.lock().expect("progress lock").take() {
            Some((blocks, written, read)) => format!(
                "  on disk: {blocks} blocks, buckets {} out, {} in",
                human_bytes(written as f64),
                human_bytes(read as f64)
            ),
            None => String::new(),
        };
        eprintln!(
            "depth {:>3}  new {:>14}  total {:>15}  {:>8.3} s  {direction}{rate}{moved}",
            stats.depth,
            thousands(stats.new_states),
            thousands(stats.cumulative),
            stats.elapsed.as_secs_f64()
        );
    }
}

impl LevelPrinter {
    fn note_checkpoint(&self, levels: usize, bytes: u64, took: Duration) {
        *self.checkpoints.lock().expect("progress lock") += took;
        if self.quiet {
            return;
        }
        if let Some(bar) = self.bar.lock().expect("progress lock").take() {
            bar.finish_and_clear();
        }
        // A table built on disk syncs the pages it wrote: no count of bytes.
        let written = match bytes {
            0 => "synced".to_string(),
            bytes => human_bytes(bytes as f64),
        };
        eprintln!(
            "checkpoint: levels 0-{} on disk, {written} in {:.1} s",
            levels.saturating_sub(1),
            took.as_secs_f64()
        );
    }
}

/// A job measured in units of work (a check of every entry, the boards of every peg
/// count): its bar, with the rate and the time left, on standard error; cleared when
/// dropped. It hears the job as an [`Observer`] of one level.
pub struct TaskBar {
    what: String,
    unit: &'static str,
    quiet: bool,
    bar: Mutex<Option<ProgressBar>>,
}

impl TaskBar {
    /// A bar for `what`, counting `unit`s (nothing when `quiet`).
    pub fn new(quiet: bool, what: &str, unit: &'static str) -> TaskBar {
        TaskBar {
            what: what.to_string(),
            unit,
            quiet,
            bar: Mutex::new(None),
        }
    }
}

impl Observer for TaskBar {
    fn level_started(&self, _depth: u32, _direction: Direction, work_units: u64) {
        if self.quiet {
            return;
        }
        let bar = ProgressBar::new(work_units);
        bar.set_style(
            ProgressStyle::with_template("{msg} [{bar:30}] {percent:>3}% {elapsed}  {prefix}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        bar.set_message(self.what.clone());
        *self.bar.lock().expect("progress lock") = Some(bar);
    }

    fn work_done(&self, units: u64) {
        if let Some(bar) = self.bar.lock().expect("progress lock").as_ref() {
            bar.inc(units);
            let elapsed = bar.elapsed();
            let mut rate = per_second(bar.position(), elapsed).replace("states", self.unit);
            if let Some(left) = seconds_left(bar.length().unwrap_or(0), bar.position(), elapsed) {
                rate.push_str(&format!(", {} left", human_duration(left)));
            }
            bar.set_prefix(rate);
        }
    }
}

impl Drop for TaskBar {
    fn drop(&mut self) {
        if let Some(bar) = self.bar.lock().expect("progress lock").take() {
            bar.finish_and_clear();
        }
    }
}

/// A job without a measure of its progress (a search for solutions, a check of a
/// file): a spinner with what it does and the time so far on standard error, drawn
/// on a terminal from the first second on; cleared when dropped.
pub struct Working {
    bar: Option<ProgressBar>,
}

impl Working {
    /// Starts the spinner with `what` (nothing when `quiet`).
    pub fn start(quiet: bool, what: &str) -> Working {
        if quiet {
            return Working { bar: None };
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("valid template"),
        );
        bar.set_message(what.to_string());
        bar.enable_steady_tick(Duration::from_millis(250));
        Working { bar: Some(bar) }
    }
}

impl Drop for Working {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Prints a line per level of a peg solitaire sweep: `WHAT with N pegs: B boards`,
/// level `d` having `first_pegs` - `d` pegs (forward, by jumps) or `first_pegs` + `d`
/// (backward, from the goal).
pub struct PegLevels {
    quiet: bool,
    what: &'static str,
    first_pegs: u32,
    forward: bool,
}

impl PegLevels {
    pub fn forward(quiet: bool, start_pegs: u32) -> PegLevels {
        PegLevels {
            quiet,
            what: "reachable",
            first_pegs: start_pegs,
            forward: true,
        }
    }

    pub fn backward(quiet: bool, goal_pegs: u32) -> PegLevels {
        PegLevels {
            quiet,
            what: "solvable",
            first_pegs: goal_pegs,
            forward: false,
        }
    }
}

impl Observer for PegLevels {
    fn level_finished(&self, stats: &LevelStats) {
        if self.quiet {
            return;
        }
        let pegs = match self.forward {
            true => self.first_pegs - stats.depth,
            false => self.first_pegs + stats.depth,
        };
        let boards = thousands(stats.new_states);
        eprintln!("{} with {pegs:>2} pegs: {boards} boards", self.what);
    }

    fn resumed(&self, levels: &[u64]) {
        if !self.quiet {
            eprintln!("resumed after {} level(s)", levels.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_left_follows_the_rate_so_far() {
        let ten = Duration::from_secs(10);
        assert_eq!(seconds_left(100, 50, ten), Some(10.0));
        assert_eq!(seconds_left(1000, 10, ten), None, "too early to guess");
        assert_eq!(seconds_left(100, 100, ten), None, "done");
        assert_eq!(human_duration(0.4), "<1 s");
        assert_eq!(human_duration(42.0), "~42 s");
        assert_eq!(human_duration(600.0), "~10 min");
        assert_eq!(human_duration(7200.0), "~2.0 h");
        assert_eq!(human_duration(3.0 * 86400.0), "~3.0 days");
    }
}
