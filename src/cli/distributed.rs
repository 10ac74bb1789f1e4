//! `antipode analyze PUZZLE --distributed [--table DIR]`: this process as one rank of
//! an MPI job (`analysis::analyze_partitioned` or, with a table,
//! `analysis::analyze_partitioned_table`, over `super::mpi::Mpi`).

use std::path::PathBuf;

use anyhow::Result;

use antipode::analysis::Analysis;
use antipode::puzzles::AnyPuzzle;
use antipode::store::Encoding;

/// A table in shards to write.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub struct ShardedTable {
    /// Its folder.
    pub dir: PathBuf,
    /// Entries, overwriting.
    pub options: antipode::table::BuildOptions,
    /// The least time between two checkpoints (`None`: the default pacing).
    pub checkpoint_every: Option<std::time::Duration>,
}

/// What one rank runs.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub struct Run {
    /// The entries in memory.
    pub encoding: Encoding,
    /// No progress lines.
    pub quiet: bool,
    /// Antipodes drawn as boards.
    pub boards: usize,
    /// Where to write the table, if anywhere.
    pub table: Option<ShardedTable>,
}

/// Runs this rank's part; the report on rank 0 (`None` on the others).
#[cfg(feature = "mpi")]
pub fn analyze(puzzle: &AnyPuzzle, run: &Run) -> Result<Option<Analysis>> {
    use antipode::engine::{Observer, Silent, Transport};
    use antipode::{analysis, with_puzzle};

    let mpi = super::mpi::Mpi::init()?;
    let leader = mpi.rank() == 0;
    let shape = with_puzzle!(puzzle, p => antipode::driver::SearchShape::of(p));
    let printer = super::progress::LevelPrinter::new(run.quiet || !leader, shape);
    let observer: &dyn Observer = if leader { &printer } else { &Silent };
    let result = match &run.table {
        None => analysis::analyze_partitioned_any(puzzle, run.encoding, &mpi, run.boards, observer),
        Some(table) => {
            let mut control = antipode::driver::Control::new(observer, None);
            if let Some(every) = table.checkpoint_every {
                control = control.every(every);
            }
            analysis::analyze_partitioned_table_any(
                puzzle,
                &table.dir,
                &table.options,
                &mpi,
                run.boards,
                &control,
            )
        }
    };
    match result {
        Ok(analysis) => {
            if leader
                && !run.quiet
                && let Some(table) = &run.table
            {
                eprintln!(
                    "table {} complete: {} shards and {}",
                    table.dir.display(),
                    mpi.ranks(),
                    antipode::table::shards::MANIFEST
                );
            }
            Ok(leader.then_some(analysis))
        }
        Err(error) => {
            // Every rank has its own line; then the job ends (a rank that failed alone
            // would leave the others waiting in a collective).
            // One write: the ranks share mpirun's stderr.
            let line = format!("antipode: error: rank {}: {error}\n", mpi.rank());
            let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
            mpi.abort(1)
        }
    }
}

/// Without MPI (the plain `antipode` binary): says how to get it.
#[cfg(not(feature = "mpi"))]
pub fn analyze(_puzzle: &AnyPuzzle, _run: &Run) -> Result<Option<Analysis>> {
    anyhow::bail!(
        "this antipode was built without MPI: build `cargo build --release -p antipode-mpi` \
         (needs libopenmpi-dev and libclang-dev) and run `mpirun -np N \
         target/release/antipode-mpi analyze PUZZLE --distributed`"
    )
}
