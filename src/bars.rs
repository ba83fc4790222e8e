//! Progress bars on stderr for the command-line tools.

use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

use crate::core::Progress;

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
    let _ = w.write_str(&crate::cli::duration(left));
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
