//! The line on stderr, before any work, that says what the run is expected
//! to cost, so that a caller can stop a run too long for it at once.

use boardsolve::cli::duration;
use boardsolve::registry::{AnyGame, DatabaseKind, TimeScale};

use crate::output::bytes;

/// What the run is expected to cost, in one line for stderr. A long run's
/// figures, measured on the reference machine, are scaled to this one by a
/// timed sample of the same kind of work where the game declares one.
pub fn expectation(game: &AnyGame, book: Option<u32>, table_bits: u32, threads: usize) -> String {
    let what = match book {
        None => format!("solving {}", game.label()),
        Some(depth) => format!(
            "building the {} opening book of depth {depth}",
            game.label()
        ),
    };
    // The estimates are for each board's own database.
    let depth = book.unwrap_or(0);
    let estimate = match (book, game.database_kind()) {
        (None, DatabaseKind::Complete) | (Some(_), DatabaseKind::Book { .. }) => {
            game.estimate(depth, table_bits, threads)
        }
        _ => None,
    };
    let Some(e) = estimate else {
        return format!("generator: {what}: no estimate of its time for this size");
    };
    if e.wall_seconds(threads) < 1.0 {
        return format!(
            "generator: {what}: expect under a second and at most about {} of memory",
            bytes(e.peak_bytes)
        );
    }
    // Threads beyond the cores share them: the work goes no faster.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let running = threads.min(cores);
    let sample = if e.worth_sampling(running) {
        game.calibrate(depth, table_bits, running)
    } else {
        None
    };
    let (scale, source) = match sample {
        Some(Ok(t)) => (
            t.scale,
            format!(
                "as measured on a 2-core machine and scaled by a sample of the work, which took \
                 {:.2}x as long here",
                t.scale.wall
            ),
        ),
        Some(Err(err)) => (
            TimeScale::REFERENCE,
            format!("as measured on a 2-core machine (no sample of the work could run: {err})"),
        ),
        None => (
            TimeScale::REFERENCE,
            "as measured on a 2-core machine".to_owned(),
        ),
    };
    format!(
        "generator: {what}: expect about {} on {threads} thread{} ({} of CPU) and at most about \
         {} of memory, {source}",
        duration(e.wall_seconds_at(running, scale)),
        if threads == 1 { "" } else { "s" },
        duration(e.cpu_seconds_at(scale)),
        bytes(e.peak_bytes)
    )
}
