//! What the helpers of a parallel search and its pool share: how many
//! helpers the pool's idle threads allow, and where the helpers wait until
//! the main search needs them.

use std::sync::atomic::{AtomicBool, Ordering};

/// The helpers each of `running` searches may start in a pool of
/// `threads` threads: the idle threads, shared evenly.
pub(super) fn helpers_allowed(threads: usize, running: usize) -> usize {
    let running = running.max(1);
    threads.saturating_sub(running) / running
}

/// Where the helpers of a parallel search wait, asleep, until its main
/// search has run long enough to need them, or has ended.
#[derive(Default)]
pub(super) struct Escalation {
    started: std::sync::Mutex<bool>,
    woken: std::sync::Condvar,
}

impl Escalation {
    /// Lets the helpers go.
    pub(super) fn start(&self) {
        *self.started.lock().unwrap_or_else(|p| p.into_inner()) = true;
        self.woken.notify_all();
    }

    /// Wakes the helpers after the main search ended (`done` set), so that
    /// they return.
    pub(super) fn wake(&self) {
        let _guard = self.started.lock().unwrap_or_else(|p| p.into_inner());
        self.woken.notify_all();
    }

    /// Waits for [`Escalation::start`] and for `allowed` (true), or for
    /// `done` (false). `allowed` changes by itself (the pool's searches
    /// come and go): while it says no, the wait looks again every
    /// [`JOIN_CHECK`].
    pub(super) fn wait(&self, done: &AtomicBool, allowed: impl Fn() -> bool) -> bool {
        let mut started = self.started.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if done.load(Ordering::Acquire) {
                return false;
            }
            if !*started {
                started = self.woken.wait(started).unwrap_or_else(|p| p.into_inner());
            } else if allowed() {
                return true;
            } else {
                started = self
                    .woken
                    .wait_timeout(started, JOIN_CHECK)
                    .unwrap_or_else(|p| p.into_inner())
                    .0;
            }
        }
    }
}

/// How often a helper waiting for a thread of its pool looks whether one
/// is free.
const JOIN_CHECK: std::time::Duration = std::time::Duration::from_millis(5);
