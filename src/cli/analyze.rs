//! `antipode analyze`: the full breadth-first search and its report.

use anyhow::{Context, Result, bail};

use antipode::analysis;
use antipode::puzzles::{self, BuiltIn};
use antipode::report::{self, Format};

use super::progress::LevelPrinter;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Puzzle name (see `antipode list`), e.g. `8puzzle`, `goat`, `sliding:2x5`.
    puzzle: String,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Draw at most N antipodes as boards (text format).
    #[arg(long, value_name = "N", default_value_t = 8)]
    show: usize,
    /// Another goal for sliding boards, e.g. `0 1 2/3 4 5/6 7 8` (blank first).
    #[arg(long, value_name = "POSITION")]
    goal: Option<String>,
    /// No progress lines on standard error.
    #[arg(long, short)]
    quiet: bool,
}

pub fn run(args: Args) -> Result<()> {
    let mut puzzle = puzzles::lookup(&args.puzzle)?;
    if let Some(goal) = &args.goal {
        match puzzle {
            BuiltIn::Sliding(p) => {
                let goal = p.parse_goal(goal).context("bad --goal")?;
                puzzle = BuiltIn::Sliding(p.with_goal(goal));
            }
            _ => bail!("--goal is only for sliding-tile boards"),
        }
    }
    let printer = LevelPrinter::new(args.quiet);
    let analysis = super::with_threads(
        args.threads,
        || antipode::with_puzzle!(&puzzle, p => analysis::analyze(p, args.show, &printer)),
    )??;
    super::print(&report::render(&analysis, args.format))
}
