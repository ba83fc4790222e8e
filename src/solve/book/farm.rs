//! The deepest layer's searches farmed out to other ranks (processes that
//! share nothing, such as an MPI job's), with dynamic load balancing.
//!
//! Rank 0 builds the book as one process does; its searches and those of
//! every other rank draw the next few states from one counter, so a rank
//! that meets a long search simply takes fewer states (one search can take
//! 1,000 times another's time, and fixed slices would leave ranks idle).
//! The other ranks only search: rank 0 sends each a batch of keys, and the
//! rank sends back their values with its request for the next batch. A
//! rank always has a second request in flight, so it never waits for its
//! next batch while rank 0 answers. Rank 0 gathers every value and keeps
//! them in its checkpoint, so a job run again resumes where it stopped.
//!
//! The messages, lists of `u64` words between rank 0 and rank `r`:
//! - `r` to 0: [`ASK`] (one more batch, please) followed by the results of
//!   the batch just searched, if any: the batch's first place in the work
//!   list and one [`encode`]d value per state; or [`DONE`] when `r` has
//!   seen the end of the work and all its requests have been answered.
//! - 0 to `r`: a batch (its first place in the work list, then its keys),
//!   or an empty list once the work is all handed out.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;

use super::{BookError, BookGame, BookOptions};
use crate::core::Value;

/// Point-to-point messages between the ranks of a job, for the farm. Rank 0
/// hands out work and calls [`Farm::receive_any`]; the others call
/// [`Farm::receive_from`]`(0)`. Only one thread of a process uses it.
pub trait Farm: Sync {
    /// This rank's number, `0..size()`.
    fn rank(&self) -> usize;

    /// The number of ranks.
    fn size(&self) -> usize;

    /// Sends `words` to rank `to`.
    fn send(&self, to: usize, words: &[u64]) -> Result<(), BookError>;

    /// The next message from any rank, with its sender.
    fn receive_any(&self) -> Result<(usize, Vec<u64>), BookError>;

    /// The next message from rank `from`.
    fn receive_from(&self, from: usize) -> Result<Vec<u64>, BookError>;
}

/// A request for a batch, with the results of the last one (if any).
pub const ASK: u64 = 1;
/// The last message of a searching rank.
pub const DONE: u64 = 2;

/// A value as one word: the net score's 32 bits, then the remoteness.
pub fn encode(v: Value) -> u64 {
    u64::from(v.net as u32) << 32 | u64::from(v.remoteness)
}

/// The value [`encode`] made a word of.
pub fn decode(word: u64) -> Value {
    Value {
        net: (word >> 32) as u32 as i32,
        remoteness: word as u32,
    }
}

/// Rank 0's side: answers every other rank's requests with the next states
/// of `todo` (places in `keys`) from the shared counter `next`, `batch` at a
/// time, and passes the values they send back to `found`, until every
/// rank is done. A value that cannot be passed on (rank 0 has stopped on an
/// error) is dropped, and the counter's end stops the other ranks. Adds the
/// bytes of every message, in and out, to `traffic`.
pub(super) fn serve(
    farm: &dyn Farm,
    keys: &[u64],
    todo: &[usize],
    next: &AtomicUsize,
    batch: usize,
    found: &mpsc::Sender<Vec<(usize, Value)>>,
    traffic: &AtomicU64,
) -> Result<(), BookError> {
    let mut done = 0;
    let mut reply: Vec<u64> = Vec::with_capacity(batch + 1);
    while done + 1 < farm.size() {
        let (from_rank, message) = farm.receive_any()?;
        traffic.fetch_add(8 * message.len() as u64, Ordering::Relaxed);
        match message.split_first() {
            Some((&DONE, _)) => {
                done += 1;
                continue;
            }
            Some((&ASK, results)) => {
                if let Some((&first, values)) = results.split_first() {
                    let first = usize::try_from(first).unwrap_or(usize::MAX);
                    let batch: Option<Vec<(usize, Value)>> = values
                        .iter()
                        .enumerate()
                        .map(|(j, &w)| {
                            let place = todo.get(first.checked_add(j)?)?;
                            Some((*place, decode(w)))
                        })
                        .collect();
                    let batch = batch.ok_or_else(|| {
                        BookError::Farm(format!(
                            "rank {from_rank} sent values past the end of the work"
                        ))
                    })?;
                    // Rank 0 may have stopped on an error: then nothing
                    // more is wanted.
                    let _ = found.send(batch);
                }
            }
            _ => {
                return Err(BookError::Farm(format!(
                    "rank {from_rank} sent a message the farm does not know"
                )))
            }
        }
        let from = next.fetch_add(batch, Ordering::Relaxed);
        reply.clear();
        if from < todo.len() {
            let to = (from + batch).min(todo.len());
            reply.push(from as u64);
            reply.extend(todo[from..to].iter().map(|&i| keys[i]));
        }
        traffic.fetch_add(8 * reply.len() as u64, Ordering::Relaxed);
        farm.send(from_rank, &reply)?;
    }
    Ok(())
}

/// Requests a rank keeps in flight: one being answered while it searches.
const IN_FLIGHT: usize = 2;

/// The side of every rank but 0: searches the batches rank 0 sends until
/// the work is done. Call it on every other rank while rank 0 runs
/// [`build_book_farmed`](super::build_book_farmed) with the same options.
pub fn search_for_farm<G: BookGame>(
    game: &G,
    options: &BookOptions,
    farm: &dyn Farm,
) -> Result<(), BookError> {
    let mut searcher = game
        .searchers(1, options.table_bits)?
        .pop()
        .ok_or_else(|| BookError::Searcher("no searcher".into()))?;
    for _ in 0..IN_FLIGHT {
        farm.send(0, &[ASK])?;
    }
    let mut waiting = IN_FLIGHT;
    let mut last: Option<Value> = None;
    let mut message = Vec::new();
    while waiting > 0 {
        let work = farm.receive_from(0)?;
        waiting -= 1;
        let Some((&first, states)) = work.split_first() else {
            // The end of the work: the other answers are empty too.
            continue;
        };
        message.clear();
        message.push(ASK);
        message.push(first);
        for &state in states {
            let v = match last {
                Some(hint) => game.search_near(&mut searcher, state, hint),
                None => game.search(&mut searcher, state),
            };
            // As in the one-process search: a short game says nothing
            // about its neighbours' values.
            if v.remoteness > 2 {
                last = Some(v);
            }
            message.push(encode(v));
        }
        farm.send(0, &message)?;
        waiting += 1;
    }
    farm.send(0, &[DONE])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::NoProgress;
    use crate::games::connect_four::ConnectFour;
    use crate::games::dandelions::Dandelions;
    use crate::solve::book::{build_book, build_book_farmed};
    use std::sync::mpsc::{Receiver, Sender};
    use std::sync::Mutex;

    /// Ranks as threads of one process, with a channel into each.
    struct Threads {
        rank: usize,
        to: Vec<Sender<(usize, Vec<u64>)>>,
        inbox: Mutex<Receiver<(usize, Vec<u64>)>>,
    }

    impl Farm for Threads {
        fn rank(&self) -> usize {
            self.rank
        }
        fn size(&self) -> usize {
            self.to.len()
        }
        fn send(&self, to: usize, words: &[u64]) -> Result<(), BookError> {
            self.to[to]
                .send((self.rank, words.to_vec()))
                .map_err(|_| BookError::Farm("gone".into()))
        }
        fn receive_any(&self) -> Result<(usize, Vec<u64>), BookError> {
            self.inbox
                .lock()
                .unwrap()
                .recv()
                .map_err(|_| BookError::Farm("gone".into()))
        }
        fn receive_from(&self, from: usize) -> Result<Vec<u64>, BookError> {
            let (sender, words) = self.receive_any()?;
            assert_eq!(sender, from);
            Ok(words)
        }
    }

    /// The book of `game` built by rank 0 with `ranks - 1` threads searching
    /// for it, each rank with one searcher.
    fn farmed<G: BookGame>(game: &G, depth: u32, ranks: usize) -> crate::core::Solution {
        let (to, inboxes): (Vec<_>, Vec<_>) = (0..ranks).map(|_| mpsc::channel()).unzip();
        let mut options = BookOptions::new(depth);
        options.searchers = 1;
        options.table_bits = 20;
        let farms: Vec<Threads> = inboxes
            .into_iter()
            .enumerate()
            .map(|(rank, inbox)| Threads {
                rank,
                to: to.clone(),
                inbox: Mutex::new(inbox),
            })
            .collect();
        std::thread::scope(|scope| {
            for f in &farms[1..] {
                let options = &options;
                scope.spawn(move || search_for_farm(game, options, f).unwrap());
            }
            build_book_farmed(game, &options, Some(&farms[0]), &NoProgress).unwrap()
        })
    }

    #[test]
    fn farmed_books_are_the_one_process_books() {
        let c4 = ConnectFour::from_variant("5x4").unwrap();
        let dandelions = Dandelions::from_variant("4x4").unwrap();
        let mut options = BookOptions::new(4);
        options.table_bits = 20;
        let c4_book = build_book(&c4, &options, &NoProgress).unwrap();
        let dandelions_book = build_book(&dandelions, &options, &NoProgress).unwrap();
        for ranks in [1, 2, 3] {
            let got = farmed(&c4, 4, ranks);
            assert_eq!(
                got.records, c4_book.records,
                "Connect Four on {ranks} ranks"
            );
            let got = farmed(&dandelions, 4, ranks);
            assert_eq!(
                got.records, dandelions_book.records,
                "Dandelions on {ranks} ranks"
            );
        }
    }

    #[test]
    fn values_survive_a_word() {
        for v in [
            Value::TERMINAL,
            Value {
                net: -7,
                remoteness: 41,
            },
            Value {
                net: i32::MIN,
                remoteness: u32::MAX,
            },
            Value {
                net: i32::MAX,
                remoteness: 0,
            },
        ] {
            assert_eq!(decode(encode(v)), v);
        }
    }
}
