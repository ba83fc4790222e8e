//! A spinner on stderr, with the nodes searched so far, while an answer
//! takes more than a moment (a live search from an early position may take
//! minutes). It is cleared before the answer is returned, so it never
//! mixes with the output, and drawn only when stderr is a terminal.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use boardsolve::cli::duration;
use boardsolve_probe::Tablebase;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long an answer runs before the spinner shows.
const SPIN_AFTER: Duration = Duration::from_millis(300);

/// The spinner of one tablebase's searches.
pub struct Spinner {
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

impl Spinner {
    /// A spinner that tells the nodes `tb` has searched.
    pub fn new(tb: Arc<Tablebase>) -> Spinner {
        let state = Arc::new((Mutex::new(SpinState::default()), Condvar::new()));
        let shared = Arc::clone(&state);
        let ticker = std::thread::Builder::new()
            .name("spinner".into())
            .spawn(move || spin(&shared, &tb))
            .ok();
        Spinner { state, ticker }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SpinState> {
        // A poisoned lock only means the ticker panicked while drawing.
        self.state.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `ask` with the spinner shown once it runs long, and cleared
    /// when it returns.
    pub fn busy<T>(&self, ask: impl FnOnce() -> T) -> T {
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

impl Drop for Spinner {
    fn drop(&mut self) {
        self.lock().stop = true;
        self.state.1.notify_all();
        if let Some(t) = self.ticker.take() {
            let _ = t.join();
        }
    }
}

/// The ticker thread: draws the spinner while an answer runs.
fn spin(state: &(Mutex<SpinState>, Condvar), tb: &Tablebase) {
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
                let n = tb.search_nodes().unwrap_or(0);
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
