//! `generator`: solve a game completely, or build its opening book, and write
//! its database.
//!
//! This file only parses the command line ([`args`]), checks it against the
//! game ([`check`]) and hands it to the module of its mode: [`list`] for
//! `--list-games`, [`complete`] or [`book`] in one process, `ranks` on the
//! ranks of an MPI job (feature `mpi`); [`failure`] turns what went wrong
//! into the exit status.

mod args;
mod book;
mod check;
mod complete;
mod estimate;
#[cfg(feature = "mpi")]
mod exchange;
mod failure;
mod list;
mod local;
mod output;
#[cfg(feature = "mpi")]
mod ranks;

use std::path::PathBuf;
use std::process::ExitCode;

use boardsolve::cli::{EXIT_SUCCESS, EXIT_USAGE};
use boardsolve::registry::AnyGame;
use clap::FromArgMatches;

use args::Args;
use failure::{usage, Failure};

/// The MPI job this process is a rank of (none when no MPI launcher
/// started it: then it is one process, as without the feature).
#[cfg(feature = "mpi")]
type Job<'a> = Option<&'a mpi::environment::Universe>;

/// Without the `mpi` feature, always one process.
#[cfg(not(feature = "mpi"))]
type Job<'a> = Option<&'a ()>;

/// Ends the program on what clap says: help and version on stdout (exit 0,
/// or 1 if stdout cannot take them), usage errors on stderr (exit 2).
fn clap_exit(e: &clap::Error) -> ExitCode {
    if e.use_stderr() {
        let _ = e.print();
        return ExitCode::from(EXIT_USAGE);
    }
    ExitCode::from(boardsolve::cli::print_help(
        "generator",
        &e.render().to_string(),
    ))
}

/// Runs the mode the flags ask for: the list of games, or the game's
/// database written by the ranks of `job`, or by this process alone.
fn run(args: &Args, job: Job<'_>) -> Result<(), Failure> {
    if args.list_games {
        return list::run();
    }
    let game = AnyGame::new(&args.game, &args.variant).map_err(usage)?;
    check::options(args, &game)?;
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(game.default_file_name()));
    #[cfg(feature = "mpi")]
    if let Some(ex) = job.and_then(ranks::several) {
        return ranks::run(&ex, args, &game, &output);
    }
    #[cfg(not(feature = "mpi"))]
    let _ = job;
    match output::book_depth(&game, args.depth) {
        Some(depth) => book::run(args, &game, &output, depth),
        None => complete::run(args, &game, &output),
    }
}

fn main() -> ExitCode {
    let args = match args::command()
        .try_get_matches()
        .and_then(|m| Args::from_arg_matches(&m))
    {
        Ok(args) => args,
        Err(e) => return clap_exit(&e),
    };
    // The runtime lives until the program ends, after the error is told.
    #[cfg(feature = "mpi")]
    let universe = ranks::initialize();
    #[cfg(feature = "mpi")]
    let job = universe.as_ref();
    #[cfg(not(feature = "mpi"))]
    let job = None;
    match run(&args, job) {
        Ok(()) => ExitCode::from(EXIT_SUCCESS),
        Err(f) => f.exit(),
    }
}
