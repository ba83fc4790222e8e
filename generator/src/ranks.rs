//! Generation over the ranks of an MPI job (feature `mpi`): `mpirun -n K
//! generator ...` writes the same file as `generator ...` alone.
//!
//! Every rank solves its share ([`AnyGame::solve_on_ranks`]); then rank 0
//! writes the file, its own stretch of records first, then each other
//! rank's, received in bounded chunks, so no rank ever holds the whole
//! table. Rank 0 alone draws progress and prints the summary. An error on
//! any rank is printed with the rank's number and ends the whole job.

use std::path::Path;
use std::time::Instant;

use anyhow::{anyhow, Context};
use boardsolve::bars::Bars;
use boardsolve::cli::{EXIT_FAILURE, EXIT_USAGE};
use boardsolve::core::{NoProgress, Progress};
use boardsolve::db::writer::SortedStream;
use boardsolve::registry::AnyGame;
use boardsolve::solve::mpi::MpiExchange;
use boardsolve::solve::ranks::Exchange;
use mpi::topology::Communicator;
use mpi::traits::*;

use crate::Failure;

/// Records per message when a rank sends its stretch to rank 0.
const CHUNK: usize = 1 << 20;

/// Prints an error naming the rank and ends every rank of the job.
fn abort(ex: &MpiExchange, code: u8, error: &anyhow::Error) -> ! {
    eprintln!("generator: rank {}: error: {error:#}", ex.rank());
    ex.world().abort(i32::from(code))
}

/// Solves `game` on the ranks of `ex` and writes `output` from rank 0.
pub fn run(
    ex: &MpiExchange,
    game: &AnyGame,
    output: &Path,
    quiet: bool,
    json: bool,
) -> Result<(), Failure> {
    let rank = ex.rank();
    let t0 = Instant::now();
    let bars = Bars::new(quiet || rank != 0);
    let progress: &dyn Progress = if rank == 0 { &bars } else { &NoProgress };
    let part = match game.solve_on_ranks(ex, progress) {
        None => {
            // Every rank finds the same: a plain usage error, no abort.
            return Err(Failure {
                code: EXIT_USAGE,
                error: anyhow!(
                    "{} is not generated over MPI ranks; run generator without mpirun",
                    game.label()
                ),
            });
        }
        Some(Err(e)) => abort(
            ex,
            EXIT_FAILURE,
            &anyhow::Error::new(e).context(format!("solving {}", game.label())),
        ),
        Some(Ok(part)) => part,
    };
    let solved = t0.elapsed();
    let world = ex.world();
    if rank != 0 {
        let root = world.process_at_rank(0);
        root.send(&(part.records.len() as u64));
        for chunk in part.records.chunks(CHUNK) {
            root.send(chunk);
        }
        world.barrier();
        return Ok(());
    }
    let written = (|| -> anyhow::Result<()> {
        let desc = game.game().descriptor();
        let mut stream = SortedStream::create(output, desc, part.layout, part.start, true)?;
        stream.append(&part.records)?;
        for r in 1..world.size() {
            let from = world.process_at_rank(r);
            let (count, _) = from.receive::<u64>();
            let mut got = 0u64;
            while got < count {
                let (chunk, _) = from.receive_vec::<u64>();
                got += chunk.len() as u64;
                stream.append(&chunk)?;
            }
        }
        stream.finish()?;
        Ok(())
    })()
    .with_context(|| format!("writing {}", output.display()));
    if let Err(e) = written {
        abort(ex, EXIT_FAILURE, &e);
    }
    world.barrier();
    let total = t0.elapsed();

    // The summary, with the start's value from the file just written.
    let (db, _) = AnyGame::open(output).context("reading back the file written")?;
    let g = game.present();
    let start = g.start();
    let start_value = boardsolve::analysis::stored_value(g, &db, start, g.canonical(start))
        .context("the start position")?;
    crate::emit(&crate::summary(
        &crate::Summary {
            output,
            game,
            start_value,
            records: part.total_records,
            layer_sizes: Some(part.layer_sizes),
            complete: true,
            bytes: std::fs::metadata(output).map_or(0, |m| m.len()),
            ranks: Some(world.size() as usize),
            solved,
            total,
        },
        json,
    ))
}
