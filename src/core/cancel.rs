//! Stopping a search from another thread.
//!
//! A [`Cancel`] is a flag shared by handles (and, where the platform has a
//! clock, an optional deadline). Whoever runs the work calls
//! [`Cancel::run`]: every search started inside it, on this thread,
//! checks the flag every few thousand nodes (well under a millisecond of
//! work) and, once it is set, unwinds and makes its caller fail with the
//! error of a stopped search: [`OracleError::Stopped`] at the oracle's
//! level, [`crate::QueryError::Stopped`] at the analysis's. Any other
//! thread holding a clone stops the work with [`Cancel::cancel`]. What a
//! stopped search leaves in its transposition table is only what it had
//! proved: the next search is as exact as ever.
//!
//! ```
//! use boardsolve::core::Cancel;
//!
//! let cancel = Cancel::new();
//! let stopper = cancel.clone();
//! // Another thread (a time-out, a client that went away, Ctrl-C):
//! std::thread::spawn(move || stopper.cancel()).join().unwrap();
//! // The searches `run` starts see the flag.
//! let stopped = cancel.run(|| Cancel::current().is_some_and(|c| c.is_cancelled()));
//! assert!(stopped);
//! ```
//!
//! [`OracleError::Stopped`]: super::OracleError::Stopped

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A request to stop searches, shared between the thread that runs them
/// and any other (clones are handles on the same flag).
///
/// Once cancelled it stays cancelled: make a new one for the next piece of
/// work.
#[derive(Clone, Debug, Default)]
pub struct Cancel {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    flag: AtomicBool,
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    deadline: Option<std::time::Instant>,
}

thread_local! {
    /// The [`Cancel`] of the innermost [`Cancel::run`] on this thread.
    static CURRENT: RefCell<Option<Cancel>> = const { RefCell::new(None) };
}

impl Cancel {
    /// A flag not yet set, without a deadline.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// A flag that also counts as set from `deadline` on. (Not in a
    /// browser's WebAssembly, which has no clock.)
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    pub fn with_deadline(deadline: std::time::Instant) -> Cancel {
        Cancel {
            inner: Arc::new(Inner {
                flag: AtomicBool::new(false),
                deadline: Some(deadline),
            }),
        }
    }

    /// [`Cancel::with_deadline`] `limit` from now (a limit too large to
    /// add to the clock is no deadline).
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    pub fn with_time_limit(limit: std::time::Duration) -> Cancel {
        match std::time::Instant::now().checked_add(limit) {
            Some(deadline) => Cancel::with_deadline(deadline),
            None => Cancel::new(),
        }
    }

    /// The deadline, if any.
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    pub fn deadline(&self) -> Option<std::time::Instant> {
        self.inner.deadline
    }

    /// Asks every search that checks this flag to stop. Cheap, and
    /// callable from any thread, any number of times.
    pub fn cancel(&self) {
        self.inner.flag.store(true, Ordering::Relaxed);
    }

    /// True once [`Cancel::cancel`] was called on any handle, or the
    /// deadline has passed.
    #[inline]
    pub fn is_cancelled(&self) -> bool {
        if self.inner.flag.load(Ordering::Relaxed) {
            return true;
        }
        #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
        if let Some(deadline) = self.inner.deadline {
            if std::time::Instant::now() >= deadline {
                // Later checks need not read the clock.
                self.cancel();
                return true;
            }
        }
        false
    }

    /// Runs `f` with this flag as the current thread's
    /// ([`Cancel::current`]): the searches `f` starts on this thread stop
    /// soon after the flag is set, and make the calls that wanted their
    /// answers fail as stopped. Calls nest; the outer flag is back when `f`
    /// returns or unwinds.
    pub fn run<T>(&self, f: impl FnOnce() -> T) -> T {
        struct Restore(Option<Cancel>);
        impl Drop for Restore {
            fn drop(&mut self) {
                let previous = self.0.take();
                let _ = CURRENT.try_with(|c| *c.borrow_mut() = previous);
            }
        }
        let previous = CURRENT.with(|c| c.borrow_mut().replace(self.clone()));
        let _restore = Restore(previous);
        f()
    }

    /// The flag of the innermost [`Cancel::run`] on this thread, if any.
    pub fn current() -> Option<Cancel> {
        CURRENT.try_with(|c| c.borrow().clone()).ok().flatten()
    }

    /// A guard that cancels this flag when it is dropped, unless
    /// [`CancelOnDrop::disarm`] was called first: held by whatever waits
    /// for the answer (an HTTP handler's future, say), it stops the search
    /// when the waiting ends early (a client gone, a future dropped).
    pub fn on_drop(&self) -> CancelOnDrop {
        CancelOnDrop {
            cancel: Some(self.clone()),
        }
    }

    /// True when `self` and `other` are handles on the same flag.
    pub fn same_as(&self, other: &Cancel) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

/// Cancels its [`Cancel`] when dropped (see [`Cancel::on_drop`]).
#[derive(Debug)]
#[must_use = "the flag is cancelled as soon as the guard is dropped"]
pub struct CancelOnDrop {
    cancel: Option<Cancel>,
}

impl CancelOnDrop {
    /// Drops the guard without cancelling: the answer came.
    pub fn disarm(mut self) {
        self.cancel = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(c) = self.cancel.take() {
            c.cancel();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_set_anywhere_is_seen_everywhere() {
        let c = Cancel::new();
        assert!(!c.is_cancelled());
        let other = c.clone();
        std::thread::spawn(move || other.cancel())
            .join()
            .expect("thread");
        assert!(c.is_cancelled());
        assert!(!Cancel::new().is_cancelled());
    }

    #[test]
    fn run_installs_the_flag_for_its_thread_only_and_nests() {
        assert!(Cancel::current().is_none());
        let outer = Cancel::new();
        let inner = Cancel::new();
        outer.run(|| {
            assert!(Cancel::current().is_some_and(|c| c.same_as(&outer)));
            inner.run(|| {
                assert!(Cancel::current().is_some_and(|c| c.same_as(&inner)));
                std::thread::spawn(|| assert!(Cancel::current().is_none()))
                    .join()
                    .expect("thread");
            });
            assert!(Cancel::current().is_some_and(|c| c.same_as(&outer)));
        });
        assert!(Cancel::current().is_none());
        // Restored after a panic too.
        let caught = std::panic::catch_unwind(|| outer.run(|| panic!("inside")));
        assert!(caught.is_err());
        assert!(Cancel::current().is_none());
    }

    #[test]
    fn a_deadline_cancels_by_itself() {
        let c = Cancel::with_time_limit(std::time::Duration::ZERO);
        assert!(c.is_cancelled());
        let later = Cancel::with_time_limit(std::time::Duration::from_secs(3600));
        assert!(!later.is_cancelled());
        assert!(!Cancel::with_time_limit(std::time::Duration::MAX).is_cancelled());
    }

    #[test]
    fn a_guard_cancels_unless_disarmed() {
        let c = Cancel::new();
        c.on_drop().disarm();
        assert!(!c.is_cancelled());
        drop(c.on_drop());
        assert!(c.is_cancelled());
    }
}
