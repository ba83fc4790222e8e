//! The search lane: a fixed number of threads, each running one search at
//! a time, fed by a bounded queue.
//!
//! However many clients ask, no more than `threads` searches run and no
//! more than `capacity` wait: past that a request is refused at once. A
//! request that waits longer than its deadline, or whose client goes, is
//! dropped from the queue unstarted, and a search under way is told to
//! stop through its cancellation flag. The threads run at a lower priority
//! than the threads that answer lookups, so lookups stay quick however
//! busy the searches keep the cores.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use boardsolve_probe::{Cancel, CancelOnDrop};
use tokio::sync::oneshot;

type Work = Box<dyn FnOnce(&Cancel) + Send>;

struct Job {
    work: Work,
    /// Set when the answer is no longer wanted; set by itself at the
    /// request's deadline.
    cancel: Cancel,
}

struct Queue {
    jobs: VecDeque<Job>,
    /// Searches under way, with their flags (set when the server stops).
    running: Vec<Cancel>,
}

struct Shared {
    queue: Mutex<Queue>,
    ready: Condvar,
    capacity: usize,
}

/// The pool; cheap to share.
pub struct Pool {
    shared: Arc<Shared>,
    threads: usize,
}

/// Why a search was not queued.
#[derive(Debug)]
pub struct Full;

/// A queued search's answer, to await. Dropping it (the request timed
/// out, or its client went) cancels the search.
pub struct Pending<T> {
    answer: oneshot::Receiver<T>,
    _cancel: CancelOnDrop,
}

impl<T> Pending<T> {
    /// The answer; `None` if the search was dropped unstarted (its deadline
    /// passed in the queue) or failed.
    pub async fn answer(&mut self) -> Option<T> {
        (&mut self.answer).await.ok()
    }
}

impl Pool {
    /// Starts `threads` search threads (each with a stack of `stack`
    /// bytes) behind a queue of `capacity` requests.
    pub fn new(threads: usize, capacity: usize, stack: usize) -> std::io::Result<Pool> {
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue {
                jobs: VecDeque::with_capacity(capacity),
                running: Vec::with_capacity(threads),
            }),
            ready: Condvar::new(),
            capacity,
        });
        for i in 0..threads {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name(format!("search-{i}"))
                .stack_size(stack)
                .spawn(move || worker(&shared))?;
        }
        Ok(Pool { shared, threads })
    }

    /// Queues `work`, to start before `deadline` or not at all; refused when
    /// every thread is busy and the queue is full.
    pub fn submit<T: Send + 'static>(
        &self,
        deadline: Instant,
        work: impl FnOnce(&Cancel) -> T + Send + 'static,
    ) -> Result<Pending<T>, Full> {
        let (tx, rx) = oneshot::channel();
        let cancel = Cancel::with_deadline(deadline);
        let job = Job {
            work: Box::new(move |c: &Cancel| {
                let _ = tx.send(work(c));
            }),
            cancel: cancel.clone(),
        };
        let mut q = self.shared.queue.lock().unwrap_or_else(|e| e.into_inner());
        // Requests given up on leave first, so they take no room.
        q.jobs.retain(|j| !j.cancel.is_cancelled());
        let idle = self.threads - q.running.len();
        if q.jobs.len() >= self.shared.capacity + idle {
            return Err(Full);
        }
        q.jobs.push_back(job);
        drop(q);
        self.shared.ready.notify_one();
        Ok(Pending {
            answer: rx,
            _cancel: cancel.on_drop(),
        })
    }

    /// The number of search threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Cancels every search, queued or under way (the server stops).
    pub fn cancel_all(&self) {
        let mut q = self.shared.queue.lock().unwrap_or_else(|e| e.into_inner());
        for j in q.jobs.drain(..) {
            j.cancel.cancel();
        }
        for c in &q.running {
            c.cancel();
        }
    }
}

fn worker(shared: &Shared) {
    lower_priority();
    loop {
        let job = {
            let mut q = shared.queue.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                match q.jobs.pop_front() {
                    // Given up on while it waited: never started.
                    Some(j) if j.cancel.is_cancelled() => continue,
                    Some(j) => {
                        q.running.push(j.cancel.clone());
                        break j;
                    }
                    None => q = shared.ready.wait(q).unwrap_or_else(|e| e.into_inner()),
                }
            }
        };
        let flag = job.cancel.clone();
        // A search that panics loses its answer (the request gets an
        // error), not the thread.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            (job.work)(&job.cancel);
        }));
        let mut q = shared.queue.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = q.running.iter().position(|c| c.same_as(&flag)) {
            q.running.swap_remove(i);
        }
    }
}

/// Lowers the calling thread's scheduling priority by 10 (`nice`), so
/// that the threads answering lookups get the cores first.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: getpriority and setpriority have no memory effects; on
    // Linux, PRIO_PROCESS with a thread id applies to that thread alone.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        let now = libc::getpriority(libc::PRIO_PROCESS, tid);
        libc::setpriority(libc::PRIO_PROCESS, tid, (now + 10).min(19));
    }
}
