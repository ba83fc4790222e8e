//! Progress reports of long work: the solvers report, the command-line
//! tools draw bars.

/// Receives progress reports from long-running work. All methods default to
/// doing nothing.
pub trait Progress: Sync {
    /// A new phase starts, with `total` units of work.
    fn start_phase(&self, _name: &str, _total: u64) {}
    /// `n` more units of the current phase are done.
    fn advance(&self, _n: u64) {}
    /// The current phase is over.
    fn finish_phase(&self) {}
    /// Something the user should know about the work (that it resumes an
    /// interrupted run, say), one line.
    fn note(&self, _message: &str) {}
    /// A short status shown beside the current phase's bar (bytes
    /// exchanged so far, say), replacing the last one.
    fn status(&self, _message: &str) {}
    /// True when whoever waits for the work no longer wants it: work that
    /// checks stops soon after, with an error saying it was interrupted.
    fn cancelled(&self) -> bool {
        false
    }
}

/// A [`Progress`] that reports nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}
