//! `antipode analyze PUZZLE --distributed`: this process as one rank of an MPI job
//! (`analysis::analyze_partitioned` over `antipode::mpi::Mpi`).

use anyhow::Result;

use antipode::analysis::Analysis;
use antipode::puzzles::AnyPuzzle;
use antipode::store::Encoding;

/// Runs this rank's part; the report on rank 0 (`None` on the others).
#[cfg(feature = "mpi")]
pub fn analyze(
    puzzle: &AnyPuzzle,
    encoding: Encoding,
    quiet: bool,
    boards: usize,
) -> Result<Option<Analysis>> {
    use antipode::engine::{Observer, Silent, Transport};
    use antipode::{Puzzle, analysis, with_puzzle};

    let mpi = antipode::mpi::Mpi::init()?;
    let leader = mpi.rank() == 0;
    let result = with_puzzle!(puzzle, p => {
        let printer = super::progress::LevelPrinter::new(quiet || !leader, p.index_count());
        let observer: &dyn Observer = if leader { &printer } else { &Silent };
        analysis::analyze_partitioned(p, encoding, &mpi, boards, observer)
    });
    match result {
        Ok(analysis) => Ok(leader.then_some(analysis)),
        Err(error) => {
            // The other ranks wait in a collective for this one: end them all.
            eprintln!("antipode: error: rank {}: {error}", mpi.rank());
            mpi.abort(1)
        }
    }
}

/// Without the `mpi` feature: says how to get it.
#[cfg(not(feature = "mpi"))]
pub fn analyze(
    _puzzle: &AnyPuzzle,
    _encoding: Encoding,
    _quiet: bool,
    _boards: usize,
) -> Result<Option<Analysis>> {
    anyhow::bail!(
        "this antipode was built without MPI: build it with `cargo build --release \
         --features mpi` (needs libopenmpi-dev and libclang-dev) and run `mpirun -np N \
         antipode analyze PUZZLE --distributed`"
    )
}
