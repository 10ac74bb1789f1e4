//! MPI between the ranks of a partitioned search (the `antipode-mpi` binary, package
//! `mpi/`): rsmpi over the system's MPI library (OpenMPI on Debian: `libopenmpi-dev`,
//! `openmpi-bin`). [`Mpi`] is the [`Transport`] of
//! `antipode::analysis::analyze_partitioned` when the ranks are processes started by
//! `mpirun`.

use std::cell::RefCell;
use std::ops::Range;

use mpi::Count;
use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use antipode::engine::Transport;

/// Why MPI could not be started.
#[derive(Debug, thiserror::Error)]
pub enum MpiError {
    /// The process was not started by `mpirun` (no launcher in its environment).
    #[error(
        "--distributed runs as the ranks of an MPI job: start it with \
         `mpirun -np N antipode-mpi analyze PUZZLE --distributed`"
    )]
    NotLaunched,
    /// `MPI_Init` failed or ran before.
    #[error("MPI could not be initialized")]
    Init,
}

/// This process's end of `MPI_COMM_WORLD`.
pub struct Mpi {
    // Finalizes MPI when dropped, after the communicator.
    world: SimpleCommunicator,
    _universe: Universe,
    send: RefCell<Vec<u32>>,
}

/// Words per `MPI_Bcast` call of [`Transport::share`] (counts are 32-bit).
const SHARE_PIECE: usize = 1 << 24;

impl Mpi {
    /// Initializes MPI in a process that `mpirun` (OpenMPI, MPICH or another PMI
    /// launcher) started.
    ///
    /// # Errors
    /// [`MpiError::NotLaunched`] outside `mpirun`; [`MpiError::Init`] if `MPI_Init`
    /// fails or ran before.
    pub fn init() -> Result<Mpi, MpiError> {
        let launched = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"]
            .iter()
            .any(|v| std::env::var_os(v).is_some());
        if !launched {
            return Err(MpiError::NotLaunched);
        }
        let universe = mpi::initialize().ok_or(MpiError::Init)?;
        Ok(Mpi {
            world: universe.world(),
            _universe: universe,
            send: RefCell::new(Vec::new()),
        })
    }

    /// Ends every rank of the job with `code` (after an error on this rank, so that
    /// no other rank waits for it forever).
    pub fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }
}

fn count(n: usize) -> Count {
    Count::try_from(n).expect("batches are far below 2^31 indices")
}

fn displacements(counts: &[Count]) -> Vec<Count> {
    counts
        .iter()
        .scan(0, |at, &c| {
            let here = *at;
            *at += c;
            Some(here)
        })
        .collect()
}

impl Transport for Mpi {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn ranks(&self) -> usize {
        self.world.size() as usize
    }

    fn exchange(&self, outboxes: &[Vec<u32>], inbox: &mut Vec<u32>, more: bool) -> bool {
        let send_counts: Vec<Count> = outboxes.iter().map(|o| count(o.len())).collect();
        // Every rank tells every other the size of its batch and whether it has more.
        let told: Vec<Count> = send_counts
            .iter()
            .flat_map(|&c| [c, more as Count])
            .collect();
        let mut heard = vec![0 as Count; 2 * outboxes.len()];
        self.world.all_to_all_into(&told[..], &mut heard[..]);
        let receive_counts: Vec<Count> = heard.iter().step_by(2).copied().collect();
        let any_more = heard.iter().skip(1).step_by(2).any(|&m| m != 0);
        let total: usize = receive_counts.iter().map(|&c| c as usize).sum();
        inbox.clear();
        inbox.resize(total, 0);
        let receive_displs = displacements(&receive_counts);
        // One buffer goes out: the only outbox with indices in it as it is (always so
        // with two ranks), else all of them copied into one.
        let mut filled = outboxes.iter().filter(|o| !o.is_empty());
        let mut send = self.send.borrow_mut();
        let (buffer, send_displs) = match (filled.next(), filled.next()) {
            (Some(only), None) => (&only[..], vec![0 as Count; outboxes.len()]),
            (None, _) => (&[][..], vec![0 as Count; outboxes.len()]),
            _ => {
                send.clear();
                outboxes.iter().for_each(|o| send.extend_from_slice(o));
                (&send[..], displacements(&send_counts))
            }
        };
        let outgoing = Partition::new(buffer, &send_counts[..], &send_displs[..]);
        let mut incoming =
            PartitionMut::new(&mut inbox[..], &receive_counts[..], &receive_displs[..]);
        self.world
            .all_to_all_varcount_into(&outgoing, &mut incoming);
        any_more
    }

    fn sum(&self, local: u64) -> u64 {
        let mut total = 0u64;
        self.world
            .all_reduce_into(&local, &mut total, SystemOperation::sum());
        total
    }

    fn gather(&self, local: &[u64]) -> Vec<u64> {
        let mut counts = vec![0 as Count; self.ranks()];
        self.world
            .all_gather_into(&count(local.len()), &mut counts[..]);
        let displs = displacements(&counts);
        let mut all = vec![0u64; counts.iter().map(|&c| c as usize).sum()];
        let mut partition = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
        self.world.all_gather_varcount_into(local, &mut partition);
        all
    }

    fn share(&self, words: &mut [u64], parts: &[Range<usize>]) {
        // One broadcast per rank's part (in pieces: counts are 32-bit), not an
        // all-gather, whose displacements would be 32-bit too.
        for (rank, part) in parts.iter().enumerate() {
            let root = self.world.process_at_rank(rank as mpi::Rank);
            for piece in words[part.clone()].chunks_mut(SHARE_PIECE) {
                root.broadcast_into(piece);
            }
        }
    }
}
