//! The opening book in one process: every position of at most `--depth`
//! moves, searched past the book, for games too large to solve completely.
//! A checkpoint beside the output lets an interrupted build resume.

use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use boardsolve::core::Solved;
use boardsolve::registry::AnyGame;
use boardsolve::solve::book::{self, BookOptions};

use crate::args::Args;
use crate::failure::Failure;
use crate::local::Local;

/// Builds `game`'s book of `depth` on this process's worker threads and
/// writes `output`, resuming from the checkpoint a killed run left.
pub fn run(args: &Args, game: &AnyGame, output: &Path, depth: u32) -> Result<(), Failure> {
    let path = book::checkpoint_path(output, depth);
    let run = Local::start(
        args,
        game,
        output,
        Some(depth),
        format!(
            "generator: interrupted: the positions searched so far are kept in {} (saved \
             every few seconds); run the same command again to resume",
            path.display()
        ),
    )?;
    let t0 = Instant::now();
    book::check_checkpoint_path(&path).map_err(anyhow::Error::new)?;
    let mut options = BookOptions::new(depth);
    options.checkpoint = Some(path.clone());
    options.searchers = run.pool.current_num_threads();
    if let Some(bits) = args.table_bits {
        options.table_bits = bits;
    }
    let solution = run
        .pool
        .install(|| game.build_book(&options, &run.bars))
        .context("this game has no opening book")?
        .map(Solved::from)
        .with_context(|| format!("building the {} opening book", game.label()))?;
    let solved = t0.elapsed();
    run.finish(&solution, Some(&path), t0, solved)
}
