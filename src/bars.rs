//! Progress bars and spinners on stderr for the command-line tools.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

use crate::core::{Corrupted, NodeCounter, Oracle, Progress, Value};

/// A [`Progress`] that draws one indicatif bar per phase on stderr.
///
/// Bars are hidden when `quiet` is set, and indicatif draws nothing when
/// stderr is not a terminal, so piped output stays clean.
#[derive(Debug)]
pub struct Bars {
    quiet: bool,
    bar: Mutex<Option<ProgressBar>>,
}

impl Bars {
    /// Progress bars, or none at all when `quiet`.
    pub fn new(quiet: bool) -> Bars {
        Bars {
            quiet,
            bar: Mutex::new(None),
        }
    }

    fn with_bar(&self, f: impl FnOnce(&mut Option<ProgressBar>)) {
        // A poisoned lock only means another thread panicked while drawing.
        let mut guard = self.bar.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut guard);
    }
}

/// The time left, from the average pace of the phase so far: indicatif's
/// own estimate follows the recent pace, which swings by hours when the
/// cost of a unit of work varies as much as a book position's does.
fn eta(state: &ProgressState, w: &mut dyn std::fmt::Write) {
    let (done, total) = (state.pos(), state.len().unwrap_or(0));
    if done == 0 || done >= total {
        let _ = w.write_str("?");
        return;
    }
    let left = state.elapsed().as_secs_f64() * (total - done) as f64 / done as f64;
    let _ = w.write_str(&duration(left));
}

/// A duration as people read it: `45s`, `12m 5s`, `3h 20m`.
pub fn duration(seconds: f64) -> String {
    let s = seconds.round() as u64;
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m {}s", s / 60, s % 60),
        _ => format!("{}h {}m", s / 3600, s / 60 % 60),
    }
}

impl Progress for Bars {
    fn start_phase(&self, name: &str, total: u64) {
        let bar = if self.quiet {
            ProgressBar::hidden()
        } else {
            ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
        };
        if let Ok(style) = ProgressStyle::with_template(
            "{prefix:>12} [{bar:40}] {pos}/{len} {elapsed_precise} (eta {eta}) {msg}",
        ) {
            bar.set_style(style.with_key("eta", eta).progress_chars("=> "));
        }
        bar.set_prefix(name.to_owned());
        self.with_bar(|b| {
            if let Some(old) = b.replace(bar) {
                old.finish();
            }
        });
    }

    fn advance(&self, n: u64) {
        self.with_bar(|b| {
            if let Some(b) = b {
                b.inc(n);
            }
        });
    }

    fn finish_phase(&self) {
        self.with_bar(|b| {
            if let Some(b) = b.take() {
                b.finish();
            }
        });
    }

    fn note(&self, message: &str) {
        if self.quiet {
            return;
        }
        self.with_bar(|b| match b {
            // Above the bar, which is redrawn below it.
            Some(b) if !b.is_hidden() => b.println(message),
            _ => eprintln!("{message}"),
        });
    }

    fn status(&self, message: &str) {
        self.with_bar(|b| {
            if let Some(b) = b {
                b.set_message(message.to_owned());
            }
        });
    }
}

/// An [`Oracle`] that shows a spinner on stderr, with the nodes searched
/// so far, while an answer of the oracle it wraps takes more than a moment
/// (a live search from an early position may take minutes). The spinner is
/// cleared before an answer is returned, so it never mixes with the output;
/// like the bars, it is drawn only when stderr is a terminal.
pub struct Spinner<'a> {
    inner: Box<dyn Oracle + 'a>,
    state: Arc<(Mutex<SpinState>, Condvar)>,
    ticker: Option<std::thread::JoinHandle<()>>,
}

#[derive(Default)]
struct SpinState {
    /// When the answer being computed was asked for.
    busy_since: Option<Instant>,
    bar: Option<ProgressBar>,
    stop: bool,
}

/// How long an answer runs before the spinner shows.
const SPIN_AFTER: Duration = Duration::from_millis(300);

impl<'a> Spinner<'a> {
    /// Wraps `inner`; an oracle that does not search is returned as it is,
    /// without a spinner.
    pub fn wrap(inner: Box<dyn Oracle + 'a>) -> Box<dyn Oracle + 'a> {
        let Some(nodes) = inner.node_counter() else {
            return inner;
        };
        let state = Arc::new((Mutex::new(SpinState::default()), Condvar::new()));
        let shared = Arc::clone(&state);
        let ticker = std::thread::Builder::new()
            .name("spinner".into())
            .spawn(move || spin(&shared, &nodes))
            .ok();
        Box::new(Spinner {
            inner,
            state,
            ticker,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SpinState> {
        // A poisoned lock only means the ticker panicked while drawing.
        self.state.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The ticker thread: draws the spinner while an answer runs.
fn spin(state: &(Mutex<SpinState>, Condvar), nodes: &NodeCounter) {
    let (lock, wake) = state;
    let mut s = lock.lock().unwrap_or_else(|p| p.into_inner());
    loop {
        if s.stop {
            return;
        }
        let wait = match s.busy_since {
            None => None,
            Some(t) if t.elapsed() < SPIN_AFTER => Some(SPIN_AFTER - t.elapsed()),
            Some(t) => {
                let bar = s.bar.get_or_insert_with(|| {
                    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
                    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg}") {
                        bar.set_style(style);
                    }
                    bar
                });
                let n = nodes.load(Ordering::Relaxed);
                bar.set_message(format!(
                    "searching: {:.1} M nodes, {}",
                    n as f64 / 1e6,
                    duration(t.elapsed().as_secs_f64())
                ));
                bar.tick();
                Some(Duration::from_millis(100))
            }
        };
        s = match wait {
            Some(d) => match wake.wait_timeout(s, d) {
                Ok((s, _)) => s,
                Err(p) => p.into_inner().0,
            },
            None => wake.wait(s).unwrap_or_else(|p| p.into_inner()),
        };
    }
}

impl Spinner<'_> {
    /// Runs `ask` (a call to the inner oracle) with the spinner shown once
    /// it runs long, and cleared when it returns.
    fn busy<T>(&self, ask: impl FnOnce() -> T) -> T {
        self.lock().busy_since = Some(Instant::now());
        self.state.1.notify_all();
        let done = ask();
        let mut s = self.lock();
        s.busy_since = None;
        if let Some(bar) = s.bar.take() {
            bar.finish_and_clear();
        }
        done
    }
}

impl Oracle for Spinner<'_> {
    fn values(&self, keys: &[u64], out: &mut Vec<Option<Value>>) -> Result<(), Corrupted> {
        self.busy(|| self.inner.values(keys, out))
    }

    fn is_complete(&self) -> bool {
        self.inner.is_complete()
    }

    fn outcomes(&self, keys: &[u64], out: &mut Vec<Option<i32>>) -> Result<(), Corrupted> {
        self.busy(|| self.inner.outcomes(keys, out))
    }

    fn is_value(&self, key: u64, value: Value) -> Result<Option<bool>, Corrupted> {
        self.busy(|| self.inner.is_value(key, value))
    }

    fn node_counter(&self) -> Option<NodeCounter> {
        self.inner.node_counter()
    }
}

impl Drop for Spinner<'_> {
    fn drop(&mut self) {
        self.lock().stop = true;
        self.state.1.notify_all();
        if let Some(t) = self.ticker.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(duration(0.4), "0s");
        assert_eq!(duration(59.0), "59s");
        assert_eq!(duration(725.0), "12m 5s");
        assert_eq!(duration(12_000.0), "3h 20m");
    }
}
