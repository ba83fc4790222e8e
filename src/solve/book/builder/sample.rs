//! A timed sample of a book's searches: a few positions searched on the
//! build's threads, with tables made as the build makes them, so that
//! `generator` can scale its estimate of a build by what this machine,
//! loaded as it is now, makes of the same kind of work.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Barrier;
use std::time::{Duration, Instant};

use crate::core::platform::thread_cpu_time;
use crate::solve::book::{BookError, BookGame};

/// What a timed sample of searches took, added up over its threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchTimes {
    /// The searches' wall times: this grows with whatever slows a thread
    /// down, other processes on its core included.
    pub wall: Duration,
    /// The search threads' processor time, where the system tells it.
    pub cpu: Option<Duration>,
}

/// Searches each of `states` (canonical, with moves) once, on `threads`
/// threads (at most one a state) taking the states in turn, with the
/// searchers the book builder would make for them and tables of
/// `2^table_bits` entries, mapped before the clock starts. The times are
/// added up over the threads, so that on an idle machine they are about
/// the same whatever the number of threads.
pub(crate) fn time_searches<G: BookGame>(
    game: &G,
    states: &[u64],
    table_bits: u32,
    threads: usize,
) -> Result<SearchTimes, BookError> {
    let n = threads.clamp(1, states.len().max(1));
    game.check_tables(n, table_bits)?;
    let mut searchers = game.searchers(n, table_bits)?;
    game.prefault(&mut searchers);
    let next = AtomicUsize::new(0);
    // The threads start together, as a build's do.
    let ready = Barrier::new(searchers.len());
    let per_thread = std::thread::scope(|scope| {
        let handles: Vec<_> = searchers
            .into_iter()
            .map(|mut searcher| {
                let (next, ready) = (&next, &ready);
                scope.spawn(move || {
                    ready.wait();
                    let cpu = thread_cpu_time();
                    let mut wall = Duration::ZERO;
                    while let Some(&state) = states.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let t = Instant::now();
                        std::hint::black_box(game.search(&mut searcher, state));
                        wall += t.elapsed();
                    }
                    let cpu = cpu.zip(thread_cpu_time()).map(|(a, b)| b.saturating_sub(a));
                    (wall, cpu)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().map_err(|_| BookError::SearchThread))
            .collect::<Result<Vec<_>, _>>()
    })?;
    Ok(SearchTimes {
        wall: per_thread.iter().map(|t| t.0).sum(),
        cpu: per_thread.iter().map(|t| t.1).sum(),
    })
}
