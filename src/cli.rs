//! The command line: one module per subcommand, all thin layers over the library.

mod analyze;
mod census;
mod distributed;
mod list;
mod lookup;
#[cfg(feature = "mpi")]
mod mpi;
mod pdb;
mod plot;
mod progress;
mod solve;
mod table_files;

use anyhow::{Context, Result, bail};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Parser, Subcommand};

use antipode::puzzles::{self, Opened};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use antipode::StopToken;
use antipode::store::Encoding;

/// Exhaustive state-space analysis of puzzles: God's number, antipodes, depth tables.
#[derive(Debug, Parser)]
#[command(
    name = "antipode",
    version,
    about,
    after_help = "Start with `antipode list` (the puzzles) and `antipode analyze 8puzzle`; \
                  `antipode help COMMAND` shows a command's options and examples."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the puzzles with their sizes, table sizes and whether they fit this machine.
    #[command(after_help = EXAMPLES_LIST)]
    List(list::Args),
    /// Breadth-first search of every state from the goal: God's number, antipodes,
    /// histogram (optionally into a table file).
    #[command(after_help = EXAMPLES_ANALYZE)]
    Analyze(analyze::Args),
    /// Exact distances of positions, from a table file.
    #[command(after_help = EXAMPLES_LOOKUP)]
    Lookup(lookup::Args),
    /// Optimal solutions from a position: by search (IDA*; bidirectional BFS for
    /// sliding blocks; BFS for peg solitaire) or, with --table, by descending a table.
    #[command(after_help = EXAMPLES_SOLVE)]
    Solve(solve::Args),
    /// Build pattern databases as table files (what `solve --pdb` uses): a partition
    /// of a sliding board's tiles, or a twisty puzzle's projections; an interrupted
    /// build resumes.
    #[command(after_help = EXAMPLES_PDB)]
    Pdb(pdb::Args),
    /// Check a table file: descent property, level counts, checksum.
    #[command(after_help = EXAMPLES_VERIFY)]
    Verify(table_files::VerifyArgs),
    /// Show a table file's header.
    #[command(after_help = "Example:\n  antipode info tables/8puzzle-8bit.table\n")]
    Info(table_files::InfoArgs),
    /// Draw depth histograms (of table files or JSON reports) as an SVG picture.
    #[command(after_help = EXAMPLES_PLOT)]
    Plot(plot::Args),
    /// Print a shell completion script (bash, zsh, fish).
    Completions(CompletionsArgs),
}

const EXAMPLES_LIST: &str = "Examples:
  antipode list                  the puzzles, their sizes and what fits this machine
  antipode list --format json
";
const EXAMPLES_ANALYZE: &str = "Examples:
  antipode analyze 8puzzle                        God's number 31, 2 antipodes
  antipode analyze 11puzzle --table --bits 2      into tables/11puzzle-2bit.table
  antipode analyze klotski --from start           the start's component
  antipode analyze 3x3x3-corners --symmetry       one entry per symmetry class
  antipode analyze english33 --symmetry           peg solitaire: boards per jump
  antipode analyze my-puzzle.toml --format json   your own puzzle (README: the format)
";
const EXAMPLES_LOOKUP: &str = "Examples:
  antipode lookup 8puzzle --table tables/8puzzle-8bit.table 867254301
  antipode lookup 2x2x2 --table tables/2x2x2-8bit.table \"R U R' U'\"
  antipode lookup 8puzzle --table tables/8puzzle-8bit.table < positions.txt
";
const EXAMPLES_SOLVE: &str = "Examples:
  antipode solve 8puzzle 867254301 --all          every optimal solution
  antipode solve goat --boards                    from its start, every board drawn
  antipode solve 8puzzle - < positions.txt        a batch: LENGTH NODES SECONDS POSITION
  antipode solve 15puzzle --pdb 7-8 \"...\"         IDA* with pattern databases
  antipode solve hoppers --first 0-6 --boards     peg solitaire: holes numbered, boards drawn
  antipode solve 8puzzle 867254301 --table tables/8puzzle-8bit.table
";
const EXAMPLES_PDB: &str = "Examples:
  antipode pdb 15puzzle --partition 7-8           two databases in tables/ (about 90 s)
  antipode pdb 24puzzle --partition 6-6-6-6
  antipode pdb 3x3x3 --orbits corners,edges6a,edges6b
Pattern databases are for sliding boards (up to 32 cells) and twisty puzzles.
";
const EXAMPLES_VERIFY: &str = "Examples:
  antipode verify tables/8puzzle-8bit.table
  antipode verify tables/english33-solvable.table
";
const EXAMPLES_PLOT: &str = "Examples:
  antipode plot tables/11puzzle-8bit.table --out 11puzzle.svg
  antipode plot a.json b.json --out both.svg      two reports overlaid
";

#[derive(Debug, clap::Args)]
struct CompletionsArgs {
    /// The shell.
    shell: Shell,
}

/// The shells `antipode completions` writes scripts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Shell {
    Bash,
    Zsh,
    Fish,
}

/// Writes the completion script of `shell` to standard output.
fn completions(args: CompletionsArgs) -> Result<()> {
    let shell = match args.shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command(), "antipode", &mut script);
    print(&String::from_utf8(script).context("the completion script is UTF-8")?)
}

/// Output formats; each subcommand accepts the ones it can write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    /// For people: aligned text, boards. (Each subcommand accepts only the formats it
    /// lists in its help; the others never reach its code.)
    Text,
    /// One JSON object, for scripts.
    Json,
    /// Rows, for spreadsheets.
    Csv,
    /// Tab-separated rows with a header.
    Tsv,
}

impl Format {
    fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Tsv => "tsv",
        }
    }

    /// A clap parser that accepts exactly `allowed`.
    fn parser(allowed: &'static [Format]) -> impl TypedValueParser<Value = Format> {
        PossibleValuesParser::new(allowed.iter().map(|f| f.name())).map(|name| {
            [Format::Text, Format::Json, Format::Csv, Format::Tsv]
                .into_iter()
                .find(|f| f.name() == name)
                .expect("clap accepted one of the names")
        })
    }

    /// The library's report format.
    fn report(self) -> antipode::report::Format {
        match self {
            Format::Text => antipode::report::Format::Text,
            Format::Json => antipode::report::Format::Json,
            Format::Csv | Format::Tsv => antipode::report::Format::Csv,
        }
    }
}

/// The puzzle of a command: its name and, for sliding boards, another goal.
#[derive(Debug, clap::Args)]
struct PuzzleArgs {
    /// Puzzle name (see `antipode list`), e.g. `8puzzle`, `goat`, `sliding:2x5`,
    /// `klotski`, `english33`, `2x2x2`, or the path of a description file
    /// (`my-puzzle.toml`, `my-board.toml`, `cube.kpuzzle.json`).
    puzzle: String,
    /// Another goal for sliding boards, e.g. `0 1 2/3 4 5/6 7 8` (blank first); for
    /// peg solitaire `one-peg`, a hole number or a board; for twisty puzzles a goal
    /// set: a name from the definition (`3x3x3 --goal cross-pair`) or patterns
    /// `ORBIT: pieces / orientations; ...` with `?` for any, joined by `|`.
    #[arg(long, value_name = "GOAL")]
    goal: Option<String>,
    /// Move metric: of a sliding-block puzzle, overriding its description, step (one
    /// piece, one cell), line (one piece, any distance in one direction) or path
    /// (one piece, anywhere in one motion); of a twisty puzzle, half (every power of
    /// a move is one move, the default) or quarter (only quarter turns).
    #[arg(long, value_name = "METRIC", value_parser = ["step", "line", "path", "half", "quarter"])]
    metric: Option<String>,
    /// Twisty puzzles: the moves that generate the puzzle, e.g. `U,R,F` (default:
    /// the definition's).
    #[arg(long, value_name = "MOVES")]
    moves: Option<String>,
    /// Twisty puzzles whose pieces fix no frame (the FTO without its centres):
    /// positions that differ by a whole-puzzle rotation are one position (a
    /// reference piece is held home).
    #[arg(long)]
    up_to_rotation: bool,
}

impl PuzzleArgs {
    /// The options as the library takes them, with `symmetry` classes or not.
    pub(crate) fn options(&self, symmetry: bool) -> puzzles::Options {
        puzzles::Options {
            goal: self.goal.clone(),
            metric: self.metric.clone(),
            moves: self
                .moves
                .as_ref()
                .map(|m| m.split(',').map(String::from).collect()),
            up_to_rotation: self.up_to_rotation,
            symmetry,
        }
    }

    /// The puzzle named, with its goal and metric.
    fn open(&self) -> Result<Opened> {
        self.open_classes(false)
    }

    /// The puzzle named, or with `symmetry` (twisty puzzles) its symmetry classes.
    fn open_classes(&self, symmetry: bool) -> Result<Opened> {
        Ok(puzzles::open_options(
            &self.puzzle,
            &self.options(symmetry),
        )?)
    }

    /// The puzzle's name, with the twisty puzzles' options (`--moves`, `--metric
    /// half|quarter`, `--up-to-rotation`) written into it as their names carry them.
    fn name(&self) -> Result<String> {
        Ok(self.options(false).name(&self.puzzle)?)
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
    use clap::FromArgMatches;
    let parsed = command()
        .try_get_matches()
        .and_then(|matches| Cli::from_arg_matches(&matches));
    let cli = match parsed {
        Ok(cli) => cli,
        // Help and version go to stdout as clap prints them.
        Err(e) if !e.use_stderr() => e.exit(),
        // Usage errors become one line, like every other error.
        Err(e) => bail!(one_line(&e.to_string())),
    };
    let interrupt = Interrupt::install()?;
    match cli.command {
        Command::List(args) => list::run(args),
        Command::Analyze(args) => analyze::run(args, &interrupt),
        Command::Lookup(args) => lookup::run(args),
        Command::Solve(args) => solve::run(args, &interrupt),
        Command::Pdb(args) => pdb::run(args, &interrupt),
        Command::Verify(args) => table_files::verify(args),
        Command::Info(args) => table_files::info(args),
        Command::Plot(args) => plot::run(args),
        Command::Completions(args) => completions(args),
    }
}

/// The command line's definition, with the puzzle help of `pdb` narrowed to the
/// puzzles it takes.
fn command() -> clap::Command {
    use clap::CommandFactory;
    Cli::command().mut_subcommand("pdb", |pdb| {
        pdb.mut_arg("puzzle", |puzzle| {
            puzzle.help(
                "A sliding board (`15puzzle`, `24puzzle`, `sliding:RxC`; up to 32 cells) or a \
                 twisty puzzle (`3x3x3`, `2x2x2`, a KPuzzle or .tws file)",
            )
        })
    })
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
    Ok(antipode::pool::run_on(threads, job)?)
}

/// Ctrl-C: asks the armed job (a table or database build, which then saves its
/// complete levels) to stop, and ends the process as usual when none is armed.
struct Interrupt {
    token: StopToken,
    armed: Arc<AtomicBool>,
}

impl Interrupt {
    /// Installs the handler.
    fn install() -> Result<Interrupt> {
        let token = StopToken::new();
        let armed = Arc::new(AtomicBool::new(false));
        let (handler_token, handler_armed) = (token.clone(), armed.clone());
        ctrlc::set_handler(move || {
            if handler_armed.load(Ordering::Relaxed) {
                handler_token.stop();
            } else {
                // Nothing is being written: the job ends here, with one line.
                eprintln!("\nantipode: interrupted");
                std::process::exit(130);
            }
        })
        .context("cannot install the Ctrl-C handler")?;
        Ok(Interrupt { token, armed })
    }

    /// From now on Ctrl-C stops the job holding the returned token.
    fn arm(&self) -> StopToken {
        self.armed.store(true, Ordering::Relaxed);
        self.token.clone()
    }

    /// From now on Ctrl-C ends the process.
    fn disarm(&self) {
        self.armed.store(false, Ordering::Relaxed);
    }
}

/// A `--checkpoint-every` value: seconds, fractions allowed, 0 for every level.
fn seconds(text: &str) -> std::result::Result<std::time::Duration, String> {
    text.parse::<f64>()
        .ok()
        .and_then(|s| std::time::Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| format!("`{text}` is not a number of seconds (0 or more)"))
}

/// A `--threads` value: a whole number of worker threads, at least one.
fn thread_count(text: &str) -> std::result::Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{text}` is not a number of threads")),
    }
}

/// Writes `text` to standard output.
fn print(text: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_command_line_is_consistent() {
        super::command().debug_assert();
    }
}
