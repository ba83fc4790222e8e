//! How a run fails: an error with the exit status it ends the program with,
//! and the one place that reports it.

use std::process::ExitCode;

use boardsolve::cli::{EXIT_FAILURE, EXIT_SUCCESS, EXIT_USAGE};

/// A failure with its exit status, so that every mode reports its errors
/// the same way and a usage error keeps its status 2.
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
        eprintln!("generator: error: {:#}", self.error);
        ExitCode::from(self.code)
    }
}

/// A usage error (exit status 2): flags that cannot work together, or not
/// with this game.
pub fn usage(message: impl std::fmt::Display) -> Failure {
    Failure {
        code: EXIT_USAGE,
        error: anyhow::anyhow!("{message}"),
    }
}
