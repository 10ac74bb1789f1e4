//! Worker threads for a job: a rayon pool of the size the caller asks for.

/// Why a job's worker threads could not start.
#[derive(Debug, thiserror::Error)]
pub enum PoolError {
    /// Zero threads were asked for.
    #[error("at least one worker thread is needed (threads = 0)")]
    NoThreads,
    /// The system refused the threads.
    #[error("cannot start worker threads: {0}")]
    Build(#[from] rayon::ThreadPoolBuildError),
}

/// Runs `job` on a rayon pool of `threads` workers (all cores when `None`); every
/// parallel loop inside it uses that pool.
///
/// # Errors
/// [`PoolError`] if `threads` is zero or the pool cannot start.
///
/// ```
/// let threads = antipode::pool::run_on(Some(2), rayon::current_num_threads).unwrap();
/// assert_eq!(threads, 2);
/// assert!(antipode::pool::run_on(Some(0), || ()).is_err());
/// ```
pub fn run_on<T: Send>(
    threads: Option<usize>,
    job: impl FnOnce() -> T + Send,
) -> Result<T, PoolError> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        if n == 0 {
            return Err(PoolError::NoThreads);
        }
        builder = builder.num_threads(n);
    }
    Ok(builder.build()?.install(job))
}
