//! A run in this one process, on a pool of worker threads: what the complete
//! solve and the book build share before and after their own work, so that
//! both check, warn, write and report alike.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;
use boardsolve::bars::Bars;
use boardsolve::core::Solved;
use boardsolve::db::pack::{pack_dense, pack_sorted, write_packed};
use boardsolve::registry::AnyGame;
use boardsolve::solve::book::BookOptions;
use rayon::ThreadPool;

use crate::args::Args;
use crate::estimate::expectation;
use crate::failure::{usage, Failure};
use crate::output::{emit, remove_checkpoint, solution_summary, summary};

/// A run under way in this process: what it was asked for, its worker
/// threads and its progress bars.
pub struct Local<'a> {
    /// The flags.
    pub args: &'a Args,
    /// The game and variant.
    pub game: &'a AnyGame,
    /// The file to write.
    pub output: &'a Path,
    /// The worker threads.
    pub pool: ThreadPool,
    /// The progress bars on stderr (hidden by `--quiet`).
    pub bars: Bars,
}

impl<'a> Local<'a> {
    /// Gets a run ready before any work: refuses an output that is not a
    /// file to replace, clears what a killed run left, starts the worker
    /// threads, sets `interrupted` as the note Ctrl-C prints, and prints the
    /// estimate of a run building the book of depth `book`, or solving
    /// completely when `None`.
    pub fn start(
        args: &'a Args,
        game: &'a AnyGame,
        output: &'a Path,
        book: Option<u32>,
        interrupted: String,
    ) -> Result<Local<'a>, Failure> {
        // Refuse a path that is not a file to replace before any work (the
        // writer checks again before writing).
        boardsolve::db::writer::check_target(output)
            .with_context(|| format!("output {}", output.display()))?;
        // Free the space a killed earlier run left behind now rather than
        // after the solve (the writer does it again before writing).
        boardsolve::db::writer::remove_stale_temporaries(output);
        let mut pool = rayon::ThreadPoolBuilder::new();
        if let Some(n) = args.threads {
            pool = pool.num_threads(n);
        }
        let pool = pool.build().context("cannot start worker threads")?;
        let bars = Bars::new(args.quiet);
        // Before the first word on stderr: a caller that saw it may
        // interrupt.
        boardsolve::cli::on_interrupt(interrupted);
        if !args.quiet {
            let threads = pool.current_num_threads();
            let table_bits = args.table_bits.unwrap_or(BookOptions::new(0).table_bits);
            eprintln!("{}", expectation(game, book, table_bits, threads));
        }
        Ok(Local {
            args,
            game,
            output,
            pool,
            bars,
        })
    }

    /// Writes `solution`, plain or packed, removes the book's `checkpoint`
    /// once the file is safe, and prints the summary of a run started at
    /// `t0` whose solve took `solved`.
    pub fn finish(
        &self,
        solution: &Solved,
        checkpoint: Option<&Path>,
        t0: Instant,
        solved: Duration,
    ) -> Result<(), Failure> {
        let (game, output) = (self.game, self.output);
        let desc = game.game().descriptor();
        let packed_bytes = match self.args.pack_options().map_err(usage)? {
            None => {
                boardsolve::db::write_database(output, desc, solution)
                    .with_context(|| format!("writing {}", output.display()))?;
                None
            }
            Some(options) => {
                let header = boardsolve::db::writer::header_for(desc, solution);
                let body = match solution {
                    Solved::Sorted(s) => pack_sorted(&header, &s.records, options, &self.bars),
                    Solved::Dense(d) => pack_dense(d.bytes(), game.game(), options, &self.bars),
                }
                .with_context(|| format!("packing {}", game.label()))?;
                write_packed(output, &header, &body)
                    .with_context(|| format!("writing {}", output.display()))?;
                Some(body.file_size())
            }
        };
        // The book is safely written: its checkpoint has served.
        if let Some(path) = checkpoint {
            remove_checkpoint(path);
        }
        let total = t0.elapsed();
        let mut summarised = solution_summary(output, game, solution, None, solved, total)?;
        if let Some(bytes) = packed_bytes {
            summarised.bytes = bytes;
            summarised.packed = true;
        }
        emit(&summary(&summarised, self.args.json))
    }
}
