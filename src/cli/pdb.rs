//! `antipode pdb`: builds the pattern databases of a partition as table files, and
//! `solve --pdb`: IDA* bounded by them.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use anyhow::{Context, Result, bail};

use antipode::pdb::{BuildError, BuildSettings, Partition, PartitionEvent, PdbError, tile_list};
use antipode::puzzles::{self, Opened, sliding::BoardShape};
use antipode::table::header::HEADER_BYTES;
use antipode::units::{human_bytes, thousands};

use super::PuzzleArgs;

/// Set by Ctrl-C: a database build stops after its level and saves its progress.
static STOP: AtomicBool = AtomicBool::new(false);

/// Whether databases are being opened or built (else Ctrl-C ends the process).
static BUILDING: AtomicBool = AtomicBool::new(false);

/// Where databases are kept unless `--dir` says otherwise.
pub(super) const TABLES: &str = "tables";

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

pub fn run(args: Args) -> Result<()> {
    let board = sliding_board(&args.puzzle, "pattern databases are")?;
    let goal = board.goal().to_vec();
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
        text.push_str(&format!(
            "tiles {:<24} {:>13} placements  max {:>2}  {} bits ({} base)  {:>10}  {}\n",
            tile_list(&info.tiles),
            thousands(header.indices),
            header.histogram.len().saturating_sub(1),
            header.encoding.bits(),
            format!("{:?}", info.base).to_lowercase(),
            human_bytes((HEADER_BYTES as u64 + header.payload_bytes) as f64),
            db.path().display()
        ));
    }
    text.push_str(&format!(
        "{} database(s) ready in {:.1} s\n",
        partition.databases().len(),
        started.elapsed().as_secs_f64()
    ));
    super::print(&text)
}

/// The sliding board a command names, with its goal: any board of up to 32 cells (the
/// 24-puzzle too, which is too large for a full table); `what` names what asks for it
/// in the refusal of another puzzle.
pub(super) fn sliding_board(puzzle: &PuzzleArgs, what: &str) -> Result<BoardShape> {
    let Some(shape) = puzzles::board_shape(&puzzle.puzzle) else {
        // Not a sliding board's name: say what it is.
        let name = match puzzle.open()? {
            Opened::Ranked(p) => p.name(),
            Opened::Peg(board) => board.name().to_string(),
        };
        bail!("{what} for sliding boards, not {name}");
    };
    let shape = shape?;
    if puzzle.metric.is_some() {
        bail!(
            "--metric is for sliding-block puzzles from description files, not {}",
            shape.name()
        );
    }
    match &puzzle.goal {
        None => Ok(shape),
        Some(goal) => Ok(shape.with_goal(goal).context("--goal")?),
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
pub(super) fn open(
    board: &BoardShape,
    dir: &Path,
    patterns: &[Vec<u8>],
    quiet: bool,
) -> Result<Partition> {
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
                tile_list(&tiles),
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
            PartitionEvent::Resumed { checkpoint, depth } => eprintln!(
                "  resuming from {} (distances up to {depth} done)",
                checkpoint.display()
            ),
            PartitionEvent::Opened { .. } => {}
        }
    };
    // Ctrl-C stops a build with a checkpoint; after the databases are open (while
    // `solve --pdb` searches, say) it ends the process as usual.
    ctrlc::set_handler(|| {
        if BUILDING.load(Ordering::Relaxed) {
            STOP.store(true, Ordering::Relaxed);
        } else {
            std::process::exit(130);
        }
    })
    .context("cannot install the Ctrl-C handler")?;
    BUILDING.store(true, Ordering::Relaxed);
    let settings = BuildSettings {
        stop: Some(&STOP),
        ..BuildSettings::default()
    };
    let opened = Partition::open_or_build(dir, board, patterns, &settings, &mut report);
    BUILDING.store(false, Ordering::Relaxed);
    match opened {
        Err(PdbError::Build {
            cause:
                BuildError::Interrupted {
                    depth,
                    checkpoint: Some(checkpoint),
                },
            path,
        }) => bail!(
            "interrupted: the build of {} is saved up to distance {depth} in {}; run the \
             same command again to resume",
            path.display(),
            checkpoint.display()
        ),
        other => Ok(other?),
    }
}
