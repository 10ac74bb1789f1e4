//! `antipode pdb`: builds the pattern databases of a partition as table files, and
//! `solve --pdb`: IDA* bounded by them.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};

use antipode::Puzzle;
use antipode::pdb::{Partition, PartitionEvent};
use antipode::puzzles::sliding::pdb_search::PdbSpace;
use antipode::puzzles::{AnyPuzzle, Opened, SlidingPuzzle};
use antipode::solve::ida;
use antipode::units::{human_bytes, thousands};

use super::solve::{BatchLine, PdbOptions, Solved, batch_positions};
use super::{Format, PuzzleArgs};

/// Where databases are kept unless `--dir` says otherwise.
const TABLES: &str = "tables";

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    puzzle: PuzzleArgs,
    /// Split the tiles, in goal order, into patterns of these sizes, e.g. 7-8, 6-6-3,
    /// 5-5-5.
    #[arg(long, value_name = "SIZES", conflicts_with = "pattern")]
    partition: Option<String>,
    /// One pattern's tiles, e.g. 1,2,3,4,5,6,7 (repeat for several).
    #[arg(long, value_name = "TILES")]
    pattern: Vec<String>,
    /// Folder of the database files.
    #[arg(long, value_name = "DIR", default_value = TABLES)]
    dir: PathBuf,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Quiet: no progress on stderr.
    #[arg(short, long)]
    quiet: bool,
}

#[derive(serde::Serialize)]
struct Database {
    tiles: Vec<u8>,
    path: String,
    placements: u64,
    max_distance: usize,
    bits: u32,
    entry_base: String,
    bytes: u64,
}

pub fn run(args: Args) -> Result<()> {
    let board = sliding_board(&args.puzzle)?;
    let goal = board.goal().cells().to_vec();
    let patterns = match (&args.partition, args.pattern.is_empty()) {
        (Some(sizes), _) => Partition::split(board.rows(), board.cols(), &goal, sizes)?,
        (None, false) => args
            .pattern
            .iter()
            .map(|list| parse_tiles(list))
            .collect::<Result<_>>()?,
        (None, true) => bail!("give --partition SIZES (e.g. 7-8) or --pattern TILES"),
    };
    let started = Instant::now();
    let quiet = args.quiet;
    let partition =
        super::with_threads(args.threads, || open(&board, &args.dir, &patterns, quiet))??;
    let mut text = String::new();
    for db in partition.databases() {
        let header = db.header();
        let info = header.pattern.as_ref().context("a pattern database")?;
        let row = Database {
            tiles: info.tiles.clone(),
            path: args
                .dir
                .join(Partition::file_name(&board.name(), db.pattern(), &goal))
                .display()
                .to_string(),
            placements: header.indices,
            max_distance: header.histogram.len().saturating_sub(1),
            bits: header.encoding.bits(),
            entry_base: format!("{:?}", info.base).to_lowercase(),
            bytes: 4096 + header.payload_bytes,
        };
        text.push_str(&format!(
            "tiles {:<24} {:>13} placements  max {:>2}  {} bits ({} base)  {:>10}  {}\n",
            row.tiles
                .iter()
                .map(u8::to_string)
                .collect::<Vec<_>>()
                .join(","),
            thousands(row.placements),
            row.max_distance,
            row.bits,
            row.entry_base,
            human_bytes(row.bytes as f64),
            row.path
        ));
    }
    text.push_str(&format!(
        "{} database(s) ready in {:.1} s\n",
        partition.databases().len(),
        started.elapsed().as_secs_f64()
    ));
    super::print(&text)
}

/// The sliding board a command names.
fn sliding_board(puzzle: &PuzzleArgs) -> Result<SlidingPuzzle> {
    match puzzle.open()? {
        Opened::Ranked(AnyPuzzle::Sliding(board)) => Ok(board),
        Opened::Ranked(other) => bail!(
            "pattern databases are for sliding boards, not {}",
            other.name()
        ),
        Opened::Peg(board) => bail!(
            "pattern databases are for sliding boards, not {}",
            board.name()
        ),
    }
}

/// `1,2,3`: a pattern's tiles.
fn parse_tiles(list: &str) -> Result<Vec<u8>> {
    list.split(',')
        .map(|t| {
            t.trim()
                .parse::<u8>()
                .with_context(|| format!("--pattern: `{t}` is not a tile number"))
        })
        .collect()
}

/// Opens (or builds, reporting on stderr unless `quiet`) the databases of `patterns`.
fn open(board: &SlidingPuzzle, dir: &Path, patterns: &[Vec<u8>], quiet: bool) -> Result<Partition> {
    let goal = board.goal();
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut report = |event: PartitionEvent| {
        if quiet {
            return;
        }
        match event {
            PartitionEvent::Building {
                tiles,
                path,
                placements,
            } => eprintln!(
                "building the pattern database of tiles {} ({} placements) into {}",
                tiles
                    .iter()
                    .map(u8::to_string)
                    .collect::<Vec<_>>()
                    .join(","),
                thousands(placements),
                path.display()
            ),
            PartitionEvent::Level { depth, placements } => {
                if terminal {
                    eprint!(
                        "\r  distance {depth:>3}: {:>13} placements",
                        thousands(placements)
                    )
                }
            }
            PartitionEvent::Built {
                path,
                bytes,
                seconds,
            } => eprintln!(
                "{}  built in {seconds:.1} s: {} ({})",
                if terminal { "\r" } else { "" },
                path.display(),
                human_bytes(bytes as f64)
            ),
            PartitionEvent::Opened { .. } => {}
        }
    };
    Ok(Partition::open_or_build(
        dir,
        &board.name(),
        &board.format_line(&goal),
        board.rows(),
        board.cols(),
        goal.cells(),
        patterns,
        &mut report,
    )?)
}

/// `solve BOARD [POSITION] --pdb SIZES`: one position, or a batch from stdin.
pub fn solve(
    board: &SlidingPuzzle,
    sizes: &str,
    position: &Option<String>,
    options: &PdbOptions,
) -> Result<()> {
    let goal = board.goal();
    let patterns = Partition::split(board.rows(), board.cols(), goal.cells(), sizes)?;
    let batch = match position.as_deref() {
        None | Some("-") => {
            if position.is_none() && std::io::IsTerminal::is_terminal(&std::io::stdin()) {
                bail!("give a POSITION, or positions one per line on standard input");
            }
            true
        }
        Some(_) => false,
    };
    let positions = if batch {
        if options.all || options.boards {
            bail!("a batch prints one line per position: no --all or --boards");
        }
        batch_positions()?
    } else {
        vec![(0, position.clone().unwrap_or_default())]
    };
    // Every position is read before a database is built.
    let starts = positions
        .iter()
        .map(|(number, text)| {
            if batch {
                board
                    .parse(text)
                    .with_context(|| format!("standard input, line {number}"))
            } else {
                Ok(board.parse(text)?)
            }
        })
        .collect::<Result<Vec<_>>>()?;
    let partition = super::with_threads(options.threads, || {
        open(board, Path::new(TABLES), &patterns, false)
    })??;
    let space = PdbSpace::new(board, &partition);
    for start in starts {
        let started = Instant::now();
        let found = super::with_threads(options.threads, || {
            ida::search(&space, &space.node(&start), options.all, options.max_length)
        })??;
        let seconds = started.elapsed().as_secs_f64();
        if batch {
            let line = BatchLine {
                position: board.format_line(&start),
                length: found.length as usize,
                nodes: found.nodes,
                seconds,
            };
            super::print(&line.render(options.format)?)?;
            continue;
        }
        let solutions: Vec<Vec<String>> = found
            .solutions
            .iter()
            .map(|moves| moves.iter().map(u8::to_string).collect())
            .collect();
        let text = match options.format {
            Format::Text => {
                let mut text = String::new();
                for (moves, nodes) in solutions.iter().zip(&found.paths) {
                    text.push_str(&moves.join(" "));
                    text.push('\n');
                    if options.boards {
                        text.push_str(&format!("\nstart\n{}", board.render_board(&start)));
                        for (k, (moved, node)) in moves.iter().zip(nodes).enumerate() {
                            text.push_str(&format!(
                                "\n{} move {moved}\n{}",
                                k + 1,
                                board.render_board(&space.board(node))
                            ));
                        }
                        text.push('\n');
                    }
                }
                text
            }
            _ => {
                serde_json::to_string_pretty(&Solved {
                    puzzle: board.name(),
                    start: board.format_line(&start),
                    length: found.length as usize,
                    solutions,
                    nodes: found.nodes,
                    seconds,
                })? + "\n"
            }
        };
        super::print(&text)?;
    }
    Ok(())
}
