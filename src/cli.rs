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

/// The exit statuses, for `--help`.
pub const EXIT_STATUS_HELP: &str = "\
Exit status:
  0  success (also when standard output is closed early, e.g. by `| head`)
  1  the run failed, or some positions were malformed or illegal (the others
     are answered)
  2  usage error: a bad option or value, an unknown game or variant, an
     option that does not apply
  3  the database is missing, corrupt, of another format or another game";

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

#[cfg(test)]
mod tests {
    use super::*;

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
