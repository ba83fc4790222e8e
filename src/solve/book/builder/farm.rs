//! The deepest layer's searches over ranks (processes that share nothing,
//! such as an MPI job's), each rank searching the states it owns, with
//! dynamic load balancing.
//!
//! Every rank holds its own list of states to search (its share of the
//! deepest layer, [`super::build_book_on_ranks`]). Rank 0 deals the work: a rank asks
//! for more when it is free, and rank 0 answers with the next stretch of
//! the rank's own list (no keys travel), or, once that list is used up,
//! with states from a pool. The pool is filled by the ranks with the most
//! work left, which rank 0 asks to give up the back half of their lists
//! when some rank has run out: one search can take 1,000 times another's
//! time, and fixed shares would leave ranks idle. A stretch starts at a
//! few states (neighbours in a list share their subtrees) and doubles
//! while a rank's stretches take under [`QUICK`], so that cheap searches
//! do not cost a request each. A rank always has a
//! second request in flight, so it never waits while rank 0 answers. Every
//! value found goes to rank 0 for the checkpoint, so a job run again
//! resumes where it stopped; a value of a state searched by another rank
//! than its owner goes back to the owner after the search.
//!
//! The messages, lists of `u64` words between rank 0 and rank `r`:
//! - `r` to 0: [`ASK`] (one more stretch, please) followed, after the
//!   first, by the microseconds the stretch just searched took and its
//!   records (key and value, packed by the game's record layout); [`RELEASED`] followed by the keys `r` gives up
//!   for the pool; or [`DONE`] when all its requests have been answered.
//! - 0 to `r`: [`OWN`] `from to give_from give_to`: search your list's
//!   places `from..to`, and give up (send as [`RELEASED`]) the places
//!   `give_from..give_to`, an empty range when nothing is asked; [`POOL`]
//!   followed by keys to search; or an empty list once all work is dealt.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::{Condvar, Mutex};

use crate::core::Value;
use crate::solve::book::BookError;

/// Point-to-point messages between the ranks of a job, for the farm. Rank 0
/// deals work and calls [`Farm::receive_any`]; the others call
/// [`Farm::receive_from`]`(0)`. Only one thread of a process uses it.
pub trait Farm: Sync {
    /// This rank's number, `0..size()`.
    fn rank(&self) -> usize;

    /// The number of ranks.
    fn size(&self) -> usize;

    /// Sends `words` to rank `to`.
    fn send(&self, to: usize, words: &[u64]) -> Result<(), BookError>;

    /// The next message from any rank, with its sender, or `None` when
    /// none has come within about `patience`.
    fn receive_any(
        &self,
        patience: std::time::Duration,
    ) -> Result<Option<(usize, Vec<u64>)>, BookError>;

    /// The next message from rank `from`.
    fn receive_from(&self, from: usize) -> Result<Vec<u64>, BookError>;
}

/// A request for work, with the records of the last stretch (if any).
pub(crate) const ASK: u64 = 1;
/// The last message of a searching rank.
pub(crate) const DONE: u64 = 2;
/// States a rank gives up for the pool.
pub(crate) const RELEASED: u64 = 3;
/// A stretch of the asking rank's own list (and what to give up).
pub(crate) const OWN: u64 = 4;
/// States from the pool.
pub(crate) const POOL: u64 = 5;

/// Requests a rank keeps in flight: one being answered while it searches.
pub(crate) const IN_FLIGHT: usize = 2;

/// A rank whose stretches take less than this gets stretches twice as long.
pub(crate) const QUICK: std::time::Duration = std::time::Duration::from_millis(20);

/// A rank whose stretches take more than this gets stretches half as long
/// (down to the first size).
pub(crate) const SLOW: std::time::Duration = std::time::Duration::from_millis(200);

/// The longest stretch dealt.
const MAX_STRETCH: usize = 1 << 16;

/// A value as one word: the net score's 32 bits, then the remoteness.
pub(crate) fn encode(v: Value) -> u64 {
    u64::from(v.net as u32) << 32 | u64::from(v.remoteness)
}

/// The value [`encode`] made a word of.
pub(crate) fn decode(word: u64) -> Value {
    Value {
        net: (word >> 32) as u32 as i32,
        remoteness: word as u32,
    }
}

/// What a rank is dealt.
#[derive(Debug, PartialEq)]
pub(super) enum Work {
    /// Places of its own list to search, and places to give up.
    Own(Range<usize>, Range<usize>),
    /// States of the pool.
    Pool(Vec<u64>),
    /// Nothing now: other ranks are giving up work for the pool.
    Wait,
    /// Nothing ever again.
    End,
}

/// Rank 0's book of who has what left.
pub(super) struct Dealer {
    /// Per rank: the places of its own list not dealt yet.
    own: Vec<Range<usize>>,
    /// States given up by their ranks, for anyone.
    pool: VecDeque<u64>,
    /// States asked of ranks for the pool and not received yet.
    coming: usize,
    /// The fewest states dealt at a time.
    batch: usize,
    /// Per rank: the most states dealt to it at a time now.
    stretch: Vec<usize>,
}

impl Dealer {
    /// A dealer for ranks whose lists hold `lengths` states, dealing
    /// `batch` at a time at first.
    pub(super) fn new(lengths: &[usize], batch: usize) -> Dealer {
        Dealer {
            own: lengths.iter().map(|&n| 0..n).collect(),
            pool: VecDeque::new(),
            coming: 0,
            batch: batch.max(1),
            stretch: vec![batch.max(1); lengths.len()],
        }
    }

    /// Rank `r`'s last stretch took `took`: its next ones are longer if
    /// that was quick, shorter if slow.
    pub(super) fn took(&mut self, r: usize, took: std::time::Duration) {
        if let Some(s) = self.stretch.get_mut(r) {
            if took < QUICK {
                *s = (*s * 2).min(MAX_STRETCH);
            } else if took > SLOW {
                *s = (*s / 2).max(self.batch);
            }
        }
    }

    /// The next work for rank `r`. While some rank has run out of its own
    /// list and the pool runs low, the asking rank, if it has the most
    /// left (or at least half the most), gives up the back half of it.
    pub(super) fn deal(&mut self, r: usize) -> Work {
        let Some(mine) = self.own.get(r).cloned() else {
            return Work::End;
        };
        let stretch = self.stretch.get(r).copied().unwrap_or(self.batch);
        if !mine.is_empty() {
            let to = (mine.start + stretch).min(mine.end);
            let left = mine.end - to;
            let most = self.own.iter().map(Range::len).max().unwrap_or(0);
            let someone_out = self.own.iter().any(Range::is_empty);
            let low = self.pool.len() + self.coming < self.batch * self.own.len() * 2;
            let give = if someone_out && low && left >= 2 && 2 * left >= most {
                let cut = to + left / 2;
                self.coming += mine.end - cut;
                cut..mine.end
            } else {
                mine.end..mine.end
            };
            self.own[r] = to..give.start;
            return Work::Own(mine.start..to, give);
        }
        if !self.pool.is_empty() {
            let n = stretch.min(self.pool.len());
            return Work::Pool(self.pool.drain(..n).collect());
        }
        if self.coming > 0 || self.own.iter().any(|o| !o.is_empty()) {
            Work::Wait
        } else {
            Work::End
        }
    }

    /// States given up for the pool, as asked.
    pub(super) fn released(&mut self, keys: &[u64]) {
        self.coming = self.coming.saturating_sub(keys.len());
        self.pool.extend(keys);
    }

    /// Deals nothing more: every rank is told the end.
    pub(super) fn stop(&mut self) {
        for o in &mut self.own {
            o.start = o.end;
        }
        self.pool.clear();
        self.coming = 0;
    }

    /// Whether every state has been dealt and none will come.
    #[cfg(test)]
    pub(super) fn is_done(&self) -> bool {
        self.coming == 0 && self.pool.is_empty() && self.own.iter().all(Range::is_empty)
    }
}

/// Rank 0's dealer, shared by its serving thread and its own searchers,
/// which wait on `changed` when there is nothing for them yet.
pub(super) struct Table {
    pub(super) dealer: Mutex<Dealer>,
    pub(super) changed: Condvar,
}

impl Table {
    /// The dealer, whatever a panicked thread left.
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, Dealer> {
        self.dealer
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The message that deals `work` (not [`Work::Wait`]) to a rank.
fn message(work: &Work) -> Vec<u64> {
    match work {
        Work::Own(search, give) => vec![
            OWN,
            search.start as u64,
            search.end as u64,
            give.start as u64,
            give.end as u64,
        ],
        Work::Pool(keys) => {
            let mut m = Vec::with_capacity(keys.len() + 1);
            m.push(POOL);
            m.extend_from_slice(keys);
            m
        }
        Work::Wait | Work::End => Vec::new(),
    }
}

/// How long rank 0's serving thread waits for a message before it looks
/// again at the requests waiting for the pool (rank 0's own searchers
/// fill it without a message).
const PATIENCE: std::time::Duration = std::time::Duration::from_millis(5);

/// Rank 0's serving side: answers every other rank's requests from `table`
/// (rank 0's own list's releases go straight to the pool), passes the
/// records they send, with their sender, to `found`, until every rank is
/// done. A request that finds nothing yet waits for the pool to fill.
/// Returns the bytes of every message, in and out.
pub(super) fn serve(
    farm: &dyn Farm,
    table: &Table,
    found: &std::sync::mpsc::Sender<(usize, Vec<u64>)>,
) -> Result<u64, BookError> {
    let mut traffic = 0u64;
    let mut done = 0;
    let mut parked: VecDeque<usize> = VecDeque::new();
    let reply = |to: usize, work: &Work, traffic: &mut u64| -> Result<(), BookError> {
        let m = message(work);
        *traffic += 8 * m.len() as u64;
        farm.send(to, &m)
    };
    while done + 1 < farm.size() {
        if let Some((from, m)) = farm.receive_any(PATIENCE)? {
            traffic += 8 * m.len() as u64;
            match m.split_first() {
                Some((&DONE, _)) => done += 1,
                Some((&RELEASED, keys)) => {
                    table.lock().released(keys);
                    table.changed.notify_all();
                }
                Some((&ASK, rest)) => {
                    if let Some((&micros, records)) = rest.split_first() {
                        table
                            .lock()
                            .took(from, std::time::Duration::from_micros(micros));
                        // Rank 0 may have stopped on an error: then nothing
                        // more is wanted.
                        let _ = found.send((from, records.to_vec()));
                    }
                    parked.push_back(from);
                }
                _ => {
                    return Err(BookError::Farm(format!(
                        "rank {from} sent a message the farm does not know"
                    )))
                }
            }
        }
        // Every waiting request that can be answered now; the others wait
        // for the pool.
        for _ in 0..parked.len() {
            let Some(r) = parked.pop_front() else {
                break;
            };
            let work = table.lock().deal(r);
            if work == Work::Wait {
                parked.push_back(r);
                continue;
            }
            reply(r, &work, &mut traffic)?;
            table.changed.notify_all();
        }
    }
    // Every rank is done: nothing was left waiting.
    Ok(traffic)
}

/// The work loop of rank 0's own searchers: deals from `table` to rank 0,
/// gives up what is asked straight to the pool from `keys` (rank 0's
/// list), and calls `search` on each state, until the end.
pub(super) fn search_here(
    table: &Table,
    keys: &[u64],
    mut search: impl FnMut(u64) -> Result<(), BookError>,
) -> Result<(), BookError> {
    let mut took = None;
    loop {
        let work = {
            let mut dealer = table.lock();
            if let Some(took) = took.take() {
                dealer.took(0, took);
            }
            loop {
                match dealer.deal(0) {
                    Work::Wait => {
                        // Woken when the pool or the end changes; the
                        // timeout only guards against a missed wake-up.
                        dealer = table
                            .changed
                            .wait_timeout(dealer, PATIENCE)
                            .unwrap_or_else(std::sync::PoisonError::into_inner)
                            .0;
                    }
                    Work::Own(search, give) => {
                        if !give.is_empty() {
                            dealer.released(keys.get(give).unwrap_or(&[]));
                            table.changed.notify_all();
                        }
                        break Work::Own(search, 0..0);
                    }
                    other => break other,
                }
            }
        };
        let t0 = std::time::Instant::now();
        match work {
            Work::Own(places, _) => {
                for &key in keys.get(places).unwrap_or(&[]) {
                    search(key)?;
                }
            }
            Work::Pool(states) => {
                for key in states {
                    search(key)?;
                }
            }
            Work::Wait | Work::End => return Ok(()),
        }
        took = Some(t0.elapsed());
    }
}

/// The side of every rank but 0: searches what rank 0 deals, from `keys`
/// (this rank's list) or the pool, with `search` (which gives the record
/// of a state's value), until the work is done.
pub(super) fn search_there(
    farm: &dyn Farm,
    keys: &[u64],
    mut search: impl FnMut(u64) -> Result<u64, BookError>,
) -> Result<(), BookError> {
    for _ in 0..IN_FLIGHT {
        farm.send(0, &[ASK])?;
    }
    let mut waiting = IN_FLIGHT;
    let mut records = Vec::new();
    let out_of_range = || BookError::Farm("rank 0 dealt places past this rank's list".into());
    while waiting > 0 {
        let work = farm.receive_from(0)?;
        waiting -= 1;
        let t0 = std::time::Instant::now();
        records.clear();
        records.extend_from_slice(&[ASK, 0]);
        match work.split_first() {
            // The end: the other answer is empty too.
            None => continue,
            Some((&OWN, &[from, to, give_from, give_to])) => {
                let place = |w: u64| usize::try_from(w).unwrap_or(usize::MAX);
                let (from, to) = (place(from), place(to));
                let (give_from, give_to) = (place(give_from), place(give_to));
                if give_from < give_to {
                    let given = keys.get(give_from..give_to).ok_or_else(out_of_range)?;
                    let mut m = Vec::with_capacity(given.len() + 1);
                    m.push(RELEASED);
                    m.extend_from_slice(given);
                    farm.send(0, &m)?;
                }
                let states = keys.get(from..to).ok_or_else(out_of_range)?;
                for &key in states {
                    records.push(search(key)?);
                }
            }
            Some((&POOL, states)) => {
                for &key in states {
                    records.push(search(key)?);
                }
            }
            Some(_) => {
                return Err(BookError::Farm(
                    "rank 0 sent a message the farm does not know".into(),
                ))
            }
        }
        records[1] = u64::try_from(t0.elapsed().as_micros()).unwrap_or(u64::MAX);
        farm.send(0, &records)?;
        waiting += 1;
    }
    farm.send(0, &[DONE])
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// Deals until the end, as ranks that search instantly and ask in
    /// turn would be dealt; returns every place each rank searched of
    /// each list, and the pool states each searched.
    fn deal_all(lengths: &[usize], batch: usize) -> Vec<Vec<(usize, usize)>> {
        let mut dealer = Dealer::new(lengths, batch);
        let mut searched: Vec<Vec<(usize, usize)>> = vec![Vec::new(); lengths.len()];
        // Pool states name their list and place: list * 1000 + place.
        let mut turn = 0;
        let mut idle = 0;
        while !dealer.is_done() {
            let r = turn % lengths.len();
            turn += 1;
            match dealer.deal(r) {
                Work::Own(places, give) => {
                    idle = 0;
                    searched[r].extend(places.map(|p| (r, p)));
                    let keys: Vec<u64> = give.map(|p| (r * 1000 + p) as u64).collect();
                    dealer.released(&keys);
                }
                Work::Pool(states) => {
                    idle = 0;
                    searched[r].extend(
                        states
                            .iter()
                            .map(|&s| (s as usize / 1000, s as usize % 1000)),
                    );
                }
                Work::Wait => {
                    idle += 1;
                    assert!(idle < 10 * lengths.len(), "nobody can move");
                }
                Work::End => {}
            }
        }
        searched
    }

    #[test]
    fn the_dealer_deals_every_state_once_and_shares_the_tail() {
        let lengths = [500, 40, 0, 300];
        let searched = deal_all(&lengths, 8);
        let mut all: Vec<(usize, usize)> = searched.iter().flatten().copied().collect();
        all.sort_unstable();
        let want: Vec<(usize, usize)> = lengths
            .iter()
            .enumerate()
            .flat_map(|(r, &n)| (0..n).map(move |p| (r, p)))
            .collect();
        assert_eq!(all, want);
        // The ranks with short lists searched others' states.
        assert!(searched[2].len() > 40, "{}", searched[2].len());
        assert!(searched[1].iter().any(|&(list, _)| list != 1));
    }

    #[test]
    fn the_dealer_ends_only_when_nothing_is_coming() {
        let mut dealer = Dealer::new(&[20, 0], 4);
        let Work::Own(_, give) = dealer.deal(0) else {
            panic!("rank 0 has work");
        };
        // Rank 1 is out, so rank 0 gives up half of what is left after
        // this stretch.
        assert_eq!(give, 12..20);
        assert_eq!(dealer.deal(1), Work::Wait);
        assert!(!dealer.is_done());
        dealer.released(&[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(dealer.deal(1), Work::Pool(vec![1, 2, 3, 4]));
    }

    #[test]
    fn quick_stretches_grow_and_slow_ones_shrink() {
        let mut dealer = Dealer::new(&[1000], 4);
        assert_eq!(dealer.deal(0), Work::Own(0..4, 1000..1000));
        dealer.took(0, QUICK / 2);
        assert_eq!(dealer.deal(0), Work::Own(4..12, 1000..1000));
        dealer.took(0, SLOW * 2);
        assert_eq!(dealer.deal(0), Work::Own(12..16, 1000..1000));
        dealer.took(0, SLOW * 2);
        assert_eq!(dealer.deal(0), Work::Own(16..20, 1000..1000));
    }
}
