//! Ranks as threads of one process, for the tests of the solvers on ranks:
//! collectives through shared slots, and the farm's messages through
//! channels.

use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Barrier, Mutex};

use super::ranks::Exchange;
use super::SolveError;
use crate::solve::book::farm::Farm;
use crate::solve::book::BookError;

/// One rank of a job of threads.
pub(crate) struct Threads {
    rank: usize,
    size: usize,
    barrier: Arc<Barrier>,
    /// `slots[from][to]`: what `from` sends `to` in the current round.
    slots: Arc<Mutex<Vec<Vec<Vec<u64>>>>>,
    /// The farm's channels into every rank, and this rank's own.
    to: Vec<Sender<(usize, Vec<u64>)>>,
    inbox: Mutex<Receiver<(usize, Vec<u64>)>>,
}

/// Runs `f` on `ranks` threads, each a rank of one job; their results by
/// rank.
pub(crate) fn on_threads<T: Send>(ranks: usize, f: impl Fn(&Threads) -> T + Sync) -> Vec<T> {
    let barrier = Arc::new(Barrier::new(ranks));
    let slots = Arc::new(Mutex::new(vec![vec![Vec::new(); ranks]; ranks]));
    let (to, inboxes): (Vec<_>, Vec<_>) = (0..ranks).map(|_| mpsc::channel()).unzip();
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = inboxes
            .into_iter()
            .enumerate()
            .map(|(rank, inbox)| {
                let ex = Threads {
                    rank,
                    size: ranks,
                    barrier: barrier.clone(),
                    slots: slots.clone(),
                    to: to.clone(),
                    inbox: Mutex::new(inbox),
                };
                scope.spawn(move || f(&ex))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

impl Exchange for Threads {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.size
    }
    fn all_to_all(&self, outgoing: Vec<Vec<u64>>) -> Result<Vec<Vec<u64>>, SolveError> {
        self.barrier.wait();
        self.slots.lock().unwrap()[self.rank] = outgoing;
        self.barrier.wait();
        let incoming = {
            let slots = self.slots.lock().unwrap();
            (0..self.size)
                .map(|from| slots[from][self.rank].clone())
                .collect()
        };
        self.barrier.wait();
        Ok(incoming)
    }
    fn sum(&self, x: u64) -> Result<u64, SolveError> {
        Ok(self.all_gather(vec![x])?.iter().sum())
    }
    fn all_gather(&self, items: Vec<u64>) -> Result<Vec<u64>, SolveError> {
        let incoming = self.all_to_all(vec![items; self.size])?;
        Ok(incoming.into_iter().flatten().collect())
    }
}

impl Farm for Threads {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.size
    }
    fn send(&self, to: usize, words: &[u64]) -> Result<(), BookError> {
        self.to[to]
            .send((self.rank, words.to_vec()))
            .map_err(|_| BookError::Farm("gone".into()))
    }
    fn receive_any(
        &self,
        patience: std::time::Duration,
    ) -> Result<Option<(usize, Vec<u64>)>, BookError> {
        match self.inbox.lock().unwrap().recv_timeout(patience) {
            Ok(m) => Ok(Some(m)),
            Err(mpsc::RecvTimeoutError::Timeout) => Ok(None),
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(BookError::Farm("gone".into())),
        }
    }
    fn receive_from(&self, from: usize) -> Result<Vec<u64>, BookError> {
        let (sender, words) = self
            .inbox
            .lock()
            .unwrap()
            .recv()
            .map_err(|_| BookError::Farm("gone".into()))?;
        assert_eq!(sender, from);
        Ok(words)
    }
}
