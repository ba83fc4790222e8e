//! A search on several threads: the main search on this one, helpers on
//! others, all on one table, the first to finish giving the score.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering};

use super::book_scores::BookScores;
use super::negamax::{Root, Search};
use super::pool::{helpers_allowed, Escalation};
use super::table::Table;
use crate::core::Cancel;
use crate::games::connect_four::bits::Geometry;

/// Positions with fewer empty cells than this are searched on one thread
/// whatever [`Solver::set_threads`](super::Solver::set_threads) says: their searches take a few
/// milliseconds at most, less than the threads cost to start.
pub(super) const PARALLEL_EMPTY: i32 = 24;

/// Plies below the root within which the helpers of a parallel search
/// shuffle their move order.
const JITTER_PLIES: i32 = 8;

/// What a search runs with: the table, the helpers' handles on it, the
/// book, the node counter, the cancel flag, and the pool (the count of
/// its searches under way, and the threads it has).
pub(super) struct Context<'a> {
    pub(super) table: &'a mut Table,
    pub(super) helpers: &'a mut [Table],
    pub(super) book: Option<&'a BookScores>,
    pub(super) counter: Option<&'a AtomicU64>,
    pub(super) cancel: Option<&'a Cancel>,
    pub(super) pool: Option<(&'a AtomicUsize, usize)>,
}

/// How a search ended.
pub(super) struct Ended {
    /// The score (meaningless when stopped).
    pub(super) score: i32,
    /// The nodes of every thread.
    pub(super) nodes: u64,
    /// The nodes of the helpers alone.
    pub(super) helper_nodes: u64,
    /// True when the cancel flag stopped it.
    pub(super) stopped: bool,
}

/// Solves `root` on this thread with the context's table, and on one more
/// thread for each of its helpers. In a
/// pool, helper `i` runs while the searches under way leave it a thread
/// ([`helpers_allowed`]: more than `i`): it stops once they take it, and
/// starts again once they give it back.
pub(super) fn search_together<G: Geometry + Send>(g: G, context: Context<'_>, root: Root) -> Ended {
    let Context {
        table,
        helpers,
        book,
        counter,
        cancel,
        pool,
    } = context;
    if helpers.is_empty() {
        let (score, nodes, stopped) = Search::new(g, table, book, counter, cancel).root(root);
        return Ended {
            score,
            nodes,
            helper_nodes: 0,
            stopped,
        };
    }
    // The first search to finish sets `done` and leaves its score.
    let done = AtomicBool::new(false);
    let score = AtomicI32::new(0);
    let escalate = Escalation::default();
    if table.is_populated() {
        // An earlier search paid for the mapping: the helpers start now.
        escalate.start();
    }
    let finish = |(s, nodes, stopped): (i32, u64, bool)| {
        if !stopped && !done.swap(true, Ordering::AcqRel) {
            score.store(s, Ordering::Release);
        }
        nodes
    };
    let (nodes, helper_nodes) = std::thread::scope(|scope| {
        let mut running = Vec::with_capacity(helpers.len());
        for (i, t) in helpers.iter_mut().enumerate() {
            let (done, finish, escalate) = (&done, &finish, &escalate);
            let allowed = move || {
                pool.is_none_or(|(busy, threads)| {
                    helpers_allowed(threads, busy.load(Ordering::Relaxed)) > i
                })
            };
            running.push(scope.spawn(move || {
                let mut nodes = 0;
                // Most searches end within milliseconds: the helpers join
                // only one that runs on, and while the pool has a thread
                // for them. A helper the pool takes its thread back from
                // waits to join again.
                while escalate.wait(done, allowed) {
                    // The table may have grown since this handle was made.
                    t.refresh();
                    let mut s = Search::new(g, t, book, counter, cancel);
                    s.halt = Some(done);
                    s.recall = pool.map(|(busy, threads)| (busy, threads, i));
                    s.jitter = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
                    s.jitter_until = root.moves + JITTER_PLIES;
                    let (score, n, stopped) = s.root(root);
                    nodes += finish((score, n, stopped));
                    if !stopped || cancel.is_some_and(Cancel::is_cancelled) {
                        break;
                    }
                }
                nodes
            }));
        }
        let mut s = Search::new(g, table, book, counter, cancel);
        s.halt = Some(&done);
        s.escalate = Some((&escalate, pool));
        let nodes = finish(s.root(root));
        // The main search ended (done, or cancelled): the helpers stop.
        done.store(true, Ordering::Release);
        escalate.wake();
        let mut helper_nodes = 0;
        for h in running {
            // A helper that panicked has already unwound; its nodes are lost.
            helper_nodes += h.join().unwrap_or(0);
        }
        (nodes + helper_nodes, helper_nodes)
    });
    let stopped = !done.load(Ordering::Acquire) || cancel.is_some_and(Cancel::is_cancelled);
    Ended {
        score: if stopped {
            0
        } else {
            score.load(Ordering::Acquire)
        },
        nodes,
        helper_nodes,
        stopped,
    }
}
