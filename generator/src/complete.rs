//! The complete solve in one process: every reachable position of the game
//! solved and written, for the games and boards small enough for that.

use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use boardsolve::registry::AnyGame;

use crate::args::Args;
use crate::failure::Failure;
use crate::local::Local;

/// Solves `game` completely on this process's worker threads and writes
/// `output`.
pub fn run(args: &Args, game: &AnyGame, output: &Path) -> Result<(), Failure> {
    let run = Local::start(
        args,
        game,
        output,
        None,
        format!(
            "generator: interrupted: nothing was written under {}; a complete solve starts \
             again from the beginning",
            output.display()
        ),
    )?;
    let t0 = Instant::now();
    let solution = run
        .pool
        .install(|| game.solve(&run.bars))
        .with_context(|| format!("solving {}", game.label()))?;
    let solved = t0.elapsed();
    run.finish(&solution, None, t0, solved)
}
