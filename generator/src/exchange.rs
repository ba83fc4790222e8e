//! The ranks of an MPI job (the `mpi` crate over Open MPI or another
//! implementation): their [`Exchange`], for the library's solvers over
//! ranks (`boardsolve::solve::ranks`), and their [`Farm`], for the books'
//! searches. It lives with the tool that runs under `mpirun`, so that the
//! library itself never links an MPI library.

use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::*;
use mpi::Count;

use boardsolve::solve::book::farm::Farm;
use boardsolve::solve::book::BookError;
use boardsolve::solve::ranks::Exchange;
use boardsolve::solve::SolveError;

/// The ranks of an MPI communicator.
pub struct MpiExchange {
    world: SimpleCommunicator,
}

impl MpiExchange {
    /// The ranks of `world`.
    pub fn new(world: SimpleCommunicator) -> MpiExchange {
        MpiExchange { world }
    }

    /// The communicator.
    pub fn world(&self) -> &SimpleCommunicator {
        &self.world
    }
}

/// A message length as MPI counts it, or an error past its 2^31 limit.
fn count(n: usize) -> Result<Count, SolveError> {
    Count::try_from(n).map_err(|_| SolveError::Exchange {
        reason: format!("a message of {n} words is past MPI's limit of 2^31"),
    })
}

/// The displacements of consecutive blocks of `counts` words.
fn displacements(counts: &[Count]) -> Result<Vec<Count>, SolveError> {
    let mut at = 0usize;
    counts
        .iter()
        .map(|&c| {
            let d = count(at)?;
            at += usize::try_from(c).unwrap_or(0);
            Ok(d)
        })
        .collect()
}

impl Exchange for MpiExchange {
    fn rank(&self) -> usize {
        usize::try_from(self.world.rank()).unwrap_or(0)
    }

    fn size(&self) -> usize {
        usize::try_from(self.world.size()).unwrap_or(1)
    }

    fn all_to_all(&self, outgoing: Vec<Vec<u64>>) -> Result<Vec<Vec<u64>>, SolveError> {
        let send_counts = outgoing
            .iter()
            .map(|v| count(v.len()))
            .collect::<Result<Vec<_>, _>>()?;
        let mut recv_counts = vec![0 as Count; send_counts.len()];
        self.world
            .all_to_all_into(&send_counts[..], &mut recv_counts[..]);
        let send_displs = displacements(&send_counts)?;
        let recv_displs = displacements(&recv_counts)?;
        let send: Vec<u64> = outgoing.into_iter().flatten().collect();
        let total: usize = recv_counts
            .iter()
            .map(|&c| usize::try_from(c).unwrap_or(0))
            .sum();
        let mut recv = vec![0u64; total];
        {
            let partition = Partition::new(&send[..], &send_counts[..], &send_displs[..]);
            let mut into = PartitionMut::new(&mut recv[..], &recv_counts[..], &recv_displs[..]);
            self.world.all_to_all_varcount_into(&partition, &mut into);
        }
        let mut incoming = Vec::with_capacity(recv_counts.len());
        let mut at = 0;
        for &c in &recv_counts {
            let c = usize::try_from(c).unwrap_or(0);
            incoming.push(recv[at..at + c].to_vec());
            at += c;
        }
        Ok(incoming)
    }

    fn sum(&self, x: u64) -> Result<u64, SolveError> {
        let mut total = 0u64;
        self.world
            .all_reduce_into(&x, &mut total, SystemOperation::sum());
        Ok(total)
    }

    fn all_gather(&self, items: Vec<u64>) -> Result<Vec<u64>, SolveError> {
        let mut counts = vec![0 as Count; self.size()];
        self.world
            .all_gather_into(&count(items.len())?, &mut counts[..]);
        let displs = displacements(&counts)?;
        let total: usize = counts
            .iter()
            .map(|&c| usize::try_from(c).unwrap_or(0))
            .sum();
        let mut all = vec![0u64; total];
        {
            let mut into = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
            self.world.all_gather_varcount_into(&items[..], &mut into);
        }
        Ok(all)
    }
}

/// The [`Farm`] of the ranks of an MPI job: point-to-point messages on a
/// communicator of their own, so they never meet the collective ones.
///
/// Waiting polls (`MPI_Iprobe`) and sleeps a little between polls once a
/// message is slow to come, rather than spinning in a blocking receive: a
/// waiting rank then leaves its core to the searches, which matters when
/// ranks share cores.
///
/// A send receives while it waits: two ranks sending each other a large
/// message at once (which MPI delivers only once the receiver asks for
/// it) would otherwise wait for each other for ever. What it receives is
/// queued for the next receive.
pub struct MpiFarm {
    comm: SimpleCommunicator,
    /// Messages received while sending, with their senders, in order.
    early: std::sync::Mutex<std::collections::VecDeque<(usize, Vec<u64>)>>,
}

// SAFETY: MPI is initialised at `Threading::Serialized` or above (see
// `MpiFarm::new`), and the farm's protocol has one thread per process use
// the communicator at a time: rank 0's serving thread, while its other
// threads make no MPI call, and the one searching thread on other ranks.
unsafe impl Send for MpiFarm {}
// SAFETY: as for `Send`: MPI is initialised for calls from any thread one
// at a time, and the protocol never has two threads of a process use the
// communicator at once; `early` is behind its own mutex.
unsafe impl Sync for MpiFarm {}

impl MpiFarm {
    /// A farm over the ranks of `world` (a duplicate of it). MPI must have
    /// been initialised with `Threading::Serialized` or `Multiple`: rank 0
    /// serves from a thread of its own.
    pub fn new(world: &SimpleCommunicator) -> MpiFarm {
        MpiFarm {
            comm: world.duplicate(),
            early: std::sync::Mutex::new(std::collections::VecDeque::new()),
        }
    }

    /// The queue of messages received early.
    fn early(&self) -> std::sync::MutexGuard<'_, std::collections::VecDeque<(usize, Vec<u64>)>> {
        self.early
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Receives the message `status` announces.
    fn take(&self, status: &mpi::point_to_point::Status) -> (usize, Vec<u64>) {
        let from = status.source_rank();
        let (words, _) = self.comm.process_at_rank(from).receive_vec::<u64>();
        (usize::try_from(from).unwrap_or(0), words)
    }

    /// Waits for a message from `source` (any rank if `None`), for at most
    /// about `patience` if given.
    fn wait(
        &self,
        source: Option<usize>,
        patience: Option<std::time::Duration>,
    ) -> Result<Option<(usize, Vec<u64>)>, BookError> {
        let deadline = patience.map(|p| std::time::Instant::now() + p);
        {
            let mut early = self.early();
            let first = early
                .iter()
                .position(|(from, _)| source.is_none_or(|s| s == *from));
            if let Some(message) = first.and_then(|i| early.remove(i)) {
                return Ok(Some(message));
            }
        }
        let mut polls = 0u32;
        loop {
            let status = match source {
                Some(r) => self.comm.process_at_rank(rank_of(r)?).immediate_probe(),
                None => self.comm.any_process().immediate_probe(),
            };
            if let Some(status) = status {
                return Ok(Some(self.take(&status)));
            }
            if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                return Ok(None);
            }
            polls += 1;
            if polls < 1000 {
                std::thread::yield_now();
            } else {
                let micros = (u64::from(polls - 1000) * 10).min(1000);
                std::thread::sleep(std::time::Duration::from_micros(micros.max(20)));
            }
        }
    }
}

/// A rank's number as MPI takes it.
fn rank_of(r: usize) -> Result<mpi::Rank, BookError> {
    mpi::Rank::try_from(r).map_err(|_| BookError::Farm(format!("no rank {r}")))
}

impl Farm for MpiFarm {
    fn rank(&self) -> usize {
        usize::try_from(self.comm.rank()).unwrap_or(0)
    }

    fn size(&self) -> usize {
        usize::try_from(self.comm.size()).unwrap_or(1)
    }

    fn send(&self, to: usize, words: &[u64]) -> Result<(), BookError> {
        let to = self.comm.process_at_rank(rank_of(to)?);
        mpi::request::scope(|scope| {
            let mut request = to.immediate_send(scope, words);
            let mut polls = 0u32;
            loop {
                match request.test() {
                    Ok(_) => return,
                    Err(pending) => request = pending,
                }
                if let Some(status) = self.comm.any_process().immediate_probe() {
                    let message = self.take(&status);
                    self.early().push_back(message);
                    continue;
                }
                polls += 1;
                if polls < 1000 {
                    std::thread::yield_now();
                } else {
                    std::thread::sleep(std::time::Duration::from_micros(50));
                }
            }
        });
        Ok(())
    }

    fn receive_any(
        &self,
        patience: std::time::Duration,
    ) -> Result<Option<(usize, Vec<u64>)>, BookError> {
        self.wait(None, Some(patience))
    }

    fn receive_from(&self, from: usize) -> Result<Vec<u64>, BookError> {
        match self.wait(Some(from), None)? {
            Some((_, words)) => Ok(words),
            None => Err(BookError::Farm(format!("no message from rank {from}"))),
        }
    }
}
