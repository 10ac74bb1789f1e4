//! Live progress on standard error: a line per finished level, and a progress bar for
//! levels that run longer than a second.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use antipode::engine::{Direction, LevelStats, Observer};
use antipode::units::thousands;

const BAR_AFTER: Duration = Duration::from_secs(1);

/// Prints BFS progress to standard error (or nothing, when quiet).
pub struct LevelPrinter {
    quiet: bool,
    bar: Mutex<Option<(ProgressBar, Instant)>>,
}

impl LevelPrinter {
    pub fn new(quiet: bool) -> LevelPrinter {
        LevelPrinter {
            quiet,
            bar: Mutex::new(None),
        }
    }
}

impl Observer for LevelPrinter {
    fn level_started(&self, depth: u32, direction: Direction, work_units: u64) {
        if self.quiet {
            return;
        }
        let bar = ProgressBar::with_draw_target(Some(work_units), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("depth {msg} [{bar:40}] {percent:>3}% {elapsed}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        bar.set_message(format!("{depth:>3} {direction:?}"));
        *self.bar.lock().expect("progress lock") = Some((bar, Instant::now()));
    }

    fn work_done(&self, units: u64) {
        if self.quiet {
            return;
        }
        if let Some((bar, started)) = self.bar.lock().expect("progress lock").as_ref() {
            bar.inc(units);
            if bar.is_hidden() && started.elapsed() > BAR_AFTER {
                bar.set_draw_target(ProgressDrawTarget::stderr());
            }
        }
    }

    fn level_finished(&self, stats: &LevelStats) {
        if self.quiet {
            return;
        }
        if let Some((bar, _)) = self.bar.lock().expect("progress lock").take() {
            bar.finish_and_clear();
        }
        let direction = match stats.direction {
            None => "goal",
            Some(Direction::TopDown) => "top-down",
            Some(Direction::BottomUp) => "bottom-up",
        };
        eprintln!(
            "depth {:>3}  new {:>14}  total {:>15}  {:>8.3} s  {direction}",
            stats.depth,
            thousands(stats.new_states),
            thousands(stats.cumulative),
            stats.elapsed.as_secs_f64()
        );
    }
}
