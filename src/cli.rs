//! What the two command-line tools share beyond the registry: their exit
//! statuses, one table for both.

/// Success (also when standard output was closed early: a broken pipe ends
/// the program quietly, as in other Unix tools).
pub const EXIT_SUCCESS: u8 = 0;
/// The run failed, or some positions of a batch were malformed or illegal
/// (the others are answered).
pub const EXIT_FAILURE: u8 = 1;
/// Usage error: a bad option or option value, an unknown game or variant,
/// an option that does not apply.
pub const EXIT_USAGE: u8 = 2;
/// The database is missing, corrupt, of another format or of another game.
pub const EXIT_DATABASE: u8 = 3;

/// The longest position or input line the readers take, in bytes: `query`
/// answers a longer line of batch mode, or a longer position, with an
/// error (keeping only its first bytes), and so do the probe crate and the
/// Python package.
pub const MAX_LINE: usize = 4096;

/// The entries of a packed file's block, by default (`--block-entries` of
/// `generator --layout packed` and `query pack`).
pub const PACK_BLOCK_ENTRIES: u32 = crate::db::header::DEFAULT_BLOCK_ENTRIES;

/// The compression level of a packed file's blocks, by default
/// (`--level`).
pub const PACK_LEVEL: u8 = crate::db::header::DEFAULT_LEVEL;

/// The characters of a line longer than [`MAX_LINE`] that its error keeps
/// to name it.
pub const QUOTED: usize = 40;

/// The first [`QUOTED`] characters of `text`: what the error of a line too
/// long quotes.
pub fn quoted(text: &str) -> String {
    text.chars().take(QUOTED).collect()
}

/// The exit statuses, for `--help`.
pub const EXIT_STATUS_HELP: &str = "\
Exit status:
  0  success (also when standard output is closed early, e.g. by `| head`)
  1  the run failed, or some positions were malformed or illegal (the others
     are answered)
  2  usage error: a bad option or value, an unknown game or variant, an
     option that does not apply
  3  the database is missing, corrupt, of another format or another game
130  interrupted by Ctrl-C (143: by SIGTERM); `generator` says what the run
     keeps: a book's checkpoint, from which the same command resumes";

/// Writes `text` to standard output and flushes it.
pub fn emit(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// True when `e`, or an error it comes from, is a write to a closed pipe:
/// then the reader has all it wanted, and the program ends quietly.
pub fn is_broken_pipe(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = Some(e);
    while let Some(e) = next {
        if e.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
        {
            return true;
        }
        next = e.source();
    }
    false
}

/// Prints help or version text on stdout and returns the exit status: 0,
/// also when stdout closed early, or 1 (with a message naming `tool`) when
/// it cannot take the text (a full disk).
pub fn print_help(tool: &str, text: &str) -> u8 {
    match emit(text) {
        Err(err) if !is_broken_pipe(&err) => {
            eprintln!("{tool}: error: writing output: {err}");
            EXIT_FAILURE
        }
        _ => EXIT_SUCCESS,
    }
}

/// `text` wrapped at `width` columns for help texts: its first line is
/// printed from column `first` (after what precedes it), every other line
/// indented by `indent` spaces.
pub fn wrap(text: &str, width: usize, first: usize, indent: usize) -> String {
    let mut out = String::new();
    let mut column = first;
    for word in text.split_whitespace() {
        if !out.is_empty() && column + 1 + word.len() > width {
            out.push('\n');
            out.push_str(&" ".repeat(indent));
            column = indent;
        } else if !out.is_empty() {
            out.push(' ');
            column += 1;
        }
        out.push_str(word);
        column += word.len();
    }
    out
}

/// A duration as people read it: `45s`, `12m 5s`, `3h 20m` (progress
/// bars, spinners and estimates).
pub fn duration(seconds: f64) -> String {
    let s = seconds.round() as u64;
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m {}s", s / 60, s % 60),
        _ => format!("{}h {}m", s / 3600, s / 60 % 60),
    }
}

/// The line [`on_interrupt`] writes, set once before its handler.
#[cfg(target_os = "linux")]
static INTERRUPT_LINE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();

/// Makes Ctrl-C (SIGINT) and SIGTERM end the process at once with `line`
/// on stderr (say what the interrupted work keeps) and exit status 128 +
/// the signal: 130 for Ctrl-C, 143 for SIGTERM. The first call sets the
/// line; later calls change nothing. Files being written keep their
/// temporary names, which the next run removes. Elsewhere than on Linux the
/// signals keep their default action.
pub fn on_interrupt(line: String) {
    #[cfg(target_os = "linux")]
    {
        if INTERRUPT_LINE
            .set(format!("\n{line}\n").into_bytes())
            .is_err()
        {
            return;
        }
        let handler = interrupted as extern "C" fn(libc::c_int);
        for signal in [libc::SIGINT, libc::SIGTERM] {
            // SAFETY: the handler only calls async-signal-safe functions
            // (`write`, `_exit`) on a line set before it is installed.
            unsafe {
                libc::signal(signal, handler as libc::sighandler_t);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = line;
}

/// The handler of [`on_interrupt`].
#[cfg(target_os = "linux")]
extern "C" fn interrupted(signal: libc::c_int) {
    if let Some(line) = INTERRUPT_LINE.get() {
        // SAFETY: `write` reads `line.len()` bytes of a buffer that lives as
        // long as the process; its result does not matter when exiting.
        unsafe {
            libc::write(2, line.as_ptr().cast(), line.len());
        }
    }
    // SAFETY: `_exit` ends the process without running anything else.
    unsafe { libc::_exit(128 + signal) }
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

    #[test]
    fn wrapping_keeps_every_word_and_the_width() {
        let text = "one two three four five six seven eight nine ten eleven twelve";
        let wrapped = wrap(text, 20, 6, 4);
        assert_eq!(
            wrapped.split_whitespace().collect::<Vec<_>>().join(" "),
            text
        );
        let mut lines = wrapped.lines();
        assert!(lines.next().is_some_and(|l| l.len() + 6 <= 20));
        for line in lines {
            assert!(line.len() <= 20, "{line:?}");
        }
        assert!(wrapped.lines().skip(1).all(|l| l.starts_with("    ")));
    }
}
