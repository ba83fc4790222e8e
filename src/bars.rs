//! Progress bars on stderr for the command-line tools.

use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

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

impl Progress for Bars {
    fn start_phase(&self, name: &str, total: u64) {
        let bar = if self.quiet {
            ProgressBar::hidden()
        } else {
            ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
        };
        if let Ok(style) = ProgressStyle::with_template(
            "{prefix:>10} [{bar:40}] {pos}/{len} {elapsed_precise} (eta {eta})",
        ) {
            bar.set_style(style.progress_chars("=> "));
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
}
