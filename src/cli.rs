//! The command line: one module per subcommand, all thin layers over the library.

mod analyze;
mod list;
mod lookup;
mod peg;
mod progress;
mod solve;
mod table_files;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};

use antipode::puzzles::{self, BuiltIn};
use antipode::store::Encoding;

/// Exhaustive state-space analysis of puzzles: God's number, antipodes, depth tables.
#[derive(Debug, Parser)]
#[command(name = "antipode", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the built-in puzzles with their sizes and memory needs.
    List,
    /// Breadth-first search of every state from the goal: God's number, antipodes,
    /// histogram.
    Analyze(analyze::Args),
    /// Exact distances of positions, from a table file.
    Lookup(lookup::Args),
    /// An optimal solution from a position, by descending a table file.
    Solve(solve::Args),
    /// Check a table file: descent property, level counts, checksum.
    Verify(table_files::VerifyArgs),
    /// Show a table file's header.
    Info(table_files::InfoArgs),
}

/// The puzzle of a command: its name and, for sliding boards, another goal.
#[derive(Debug, clap::Args)]
struct PuzzleArgs {
    /// Puzzle name (see `antipode list`), e.g. `8puzzle`, `goat`, `sliding:2x5`.
    puzzle: String,
    /// Another goal for sliding boards, e.g. `0 1 2/3 4 5/6 7 8` (blank first).
    #[arg(long, value_name = "POSITION")]
    goal: Option<String>,
}

impl PuzzleArgs {
    fn resolve(&self) -> Result<BuiltIn> {
        let puzzle = puzzles::lookup(&self.puzzle)?;
        match (&self.goal, puzzle) {
            (None, puzzle) => Ok(puzzle),
            (Some(goal), BuiltIn::Sliding(p)) => {
                let goal = p.parse_goal(goal).context("bad --goal")?;
                Ok(BuiltIn::Sliding(p.with_goal(goal)))
            }
            (Some(_), _) => bail!("--goal is only for sliding-tile boards"),
        }
    }
}

/// Bits per state of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Bits {
    /// Exact depth, one byte per state.
    #[value(name = "8")]
    Eight,
    /// Depth mod 3, two bits per state.
    #[value(name = "2")]
    Two,
}

impl Bits {
    fn encoding(self) -> Encoding {
        match self {
            Bits::Eight => Encoding::Byte,
            Bits::Two => Encoding::Mod3,
        }
    }
}

/// Parses the command line and runs the subcommand.
pub fn run() -> Result<()> {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Help and version go to stdout as clap prints them.
        Err(e) if !e.use_stderr() => e.exit(),
        // Usage errors become one line, like every other error.
        Err(e) => bail!(one_line(&e.to_string())),
    };
    match cli.command {
        Command::List => list::run(),
        Command::Analyze(args) => analyze::run(args),
        Command::Lookup(args) => lookup::run(args),
        Command::Solve(args) => solve::run(args),
        Command::Verify(args) => table_files::verify(args),
        Command::Info(args) => table_files::info(args),
    }
}

/// Folds clap's multi-line usage error into one line, without its "error:" prefix
/// and its pointer to `--help`.
fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("For more information"))
        .map(|l| l.trim_start_matches("error: "))
        .collect::<Vec<_>>()
        .join(" ")
}

/// True if the error is a closed standard output (e.g. `antipode list | head -1`).
pub fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error
        .chain()
        .filter_map(|e| e.downcast_ref::<std::io::Error>())
        .any(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
}

/// Runs `job` on a rayon pool of `threads` workers (all cores when `None`).
fn with_threads<T: Send>(threads: Option<usize>, job: impl FnOnce() -> T + Send) -> Result<T> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        if n == 0 {
            bail!("--threads must be at least 1");
        }
        builder = builder.num_threads(n);
    }
    let pool = builder.build().context("cannot start worker threads")?;
    Ok(pool.install(job))
}

/// Writes `text` to standard output.
fn print(text: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}
