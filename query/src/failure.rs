//! How a command fails: an error with the exit status it ends the program
//! with, and the one place that reports it.

use std::process::ExitCode;

use anyhow::Context;
use boardsolve::cli::{EXIT_DATABASE, EXIT_FAILURE, EXIT_SUCCESS, EXIT_USAGE};
use boardsolve_probe::whole::StatsError;
use boardsolve_probe::ProbeError;

/// A failure with its exit status.
pub struct Failure {
    /// The exit status.
    pub code: u8,
    /// What went wrong.
    pub error: anyhow::Error,
}

impl From<anyhow::Error> for Failure {
    fn from(error: anyhow::Error) -> Self {
        Failure {
            code: EXIT_FAILURE,
            error,
        }
    }
}

impl Failure {
    /// Reports the failure on stderr and gives its exit status.
    pub fn exit(self) -> ExitCode {
        // A closed pipe downstream is not an error worth reporting.
        if boardsolve::cli::is_broken_pipe(&*self.error) {
            return ExitCode::from(EXIT_SUCCESS);
        }
        eprintln!("query: error: {:#}", self.error);
        // Whatever command met it, a damaged database is exit 3.
        let code = if self.code == EXIT_FAILURE && blames_the_database(&self.error) {
            EXIT_DATABASE
        } else {
            self.code
        };
        ExitCode::from(code)
    }
}

/// A failure blamed on the database (exit status 3).
pub fn db_failure(e: impl Into<anyhow::Error>) -> Failure {
    Failure {
        code: EXIT_DATABASE,
        error: e.into(),
    }
}

/// A usage error (exit status 2).
pub fn usage(message: &str) -> Failure {
    Failure {
        code: EXIT_USAGE,
        error: anyhow::anyhow!("{message}"),
    }
}

/// Writes `text` to stdout. A closed stdout comes back as an error that
/// [`Failure::exit`] recognises and ends the program quietly on.
pub fn emit(text: &str) -> Result<(), Failure> {
    boardsolve::cli::emit(text).context("writing output")?;
    Ok(())
}

/// True when `e` comes from a damaged database (a contradiction among its
/// values, a value out of range, the start missing).
fn blames_the_database(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<ProbeError>().is_some_and(|e| match e {
            ProbeError::Corrupt { .. } => true,
            ProbeError::Stats(StatsError::Query(q)) => q.is_corrupt(),
            _ => false,
        })
    })
}
