//! `query`: answer positions from a solved-game database, without solving.
//!
//! This file only parses the command line ([`args`]) and hands it to the
//! module of its command; [`failure`] turns what went wrong into the exit
//! status.

mod args;
mod ask;
mod batch;
mod failure;
mod info;
mod lines;
mod pack;
mod play;
mod reply;
mod serve;
mod source;
mod spinner;
mod stats;
mod verify;

use std::io::{self, IsTerminal};
use std::process::ExitCode;

use boardsolve::cli::EXIT_USAGE;
use clap::FromArgMatches;

use args::{Cli, ColorWhen, Command};

/// Ends the program on what clap says: help and version on stdout (exit 0,
/// or 1 if stdout cannot take them), usage errors on stderr (exit 2).
fn clap_exit(e: &clap::Error) -> ExitCode {
    if e.use_stderr() {
        let _ = e.print();
        return ExitCode::from(EXIT_USAGE);
    }
    ExitCode::from(boardsolve::cli::print_help(
        "query",
        &e.render().to_string(),
    ))
}

fn main() -> ExitCode {
    let cli = match args::command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m))
    {
        Ok(cli) => cli,
        Err(e) => return clap_exit(&e),
    };
    let result = match &cli.command {
        None => ask::run(&cli.db, &cli.ask, cli.color.enabled()),
        Some(Command::Verify { quiet }) => verify::run(&cli.db, *quiet),
        Some(Command::Info) => info::run(&cli.db),
        Some(Command::Pack(args)) => pack::run_pack(&cli.db, args),
        Some(Command::Unpack(args)) => pack::run_unpack(&cli.db, args),
        Some(Command::Stats(args)) => stats::run(&cli.db, args),
        Some(Command::Serve(args)) => serve::run(&cli.db, args),
        // A scripted session (stdin not a terminal) is not coloured unless
        // asked.
        Some(Command::Play(args)) => play::run(
            &cli.db,
            args,
            cli.color.enabled() && (cli.color == ColorWhen::Always || io::stdin().is_terminal()),
        ),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(f) => f.exit(),
    }
}
