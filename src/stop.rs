//! Asking a long job to stop: a flag shared between the job and whoever may want it
//! to end (a Ctrl-C handler, a timer, another thread).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A stop request that can be cloned and sent to other threads. Searches check it
/// between work items; a table or database build that sees it saves its complete
/// levels and returns an `Interrupted` error, and the same job resumes from there.
///
/// ```
/// let token = antipode::StopToken::new();
/// let handler = token.clone(); // e.g. moved into a Ctrl-C handler
/// assert!(!token.is_stopped());
/// handler.stop();
/// assert!(token.is_stopped());
/// ```
#[derive(Debug, Clone, Default)]
pub struct StopToken(Arc<AtomicBool>);

impl StopToken {
    /// A token not yet stopped.
    #[must_use]
    pub fn new() -> StopToken {
        StopToken::default()
    }

    /// Asks every job holding this token to stop.
    pub fn stop(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether a stop was asked for.
    #[must_use]
    pub fn is_stopped(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}
