//! Reading input lines of bounded length, whatever the bytes.

use std::io::{self, BufRead};

/// Longest line kept; longer lines are reported as errors, not stored.
pub const MAX_LINE: usize = 4096;

/// One line of input.
pub enum Line {
    /// The line's text, without the line ending.
    Text(String),
    /// The line is not valid UTF-8 (a lossy copy, for the error message).
    BadUtf8(String),
    /// The line was longer than [`MAX_LINE`] bytes (its first bytes).
    TooLong(String),
}

/// Reads the next line, keeping at most [`MAX_LINE`] bytes of it in memory.
/// Returns `None` at the end of input.
pub fn next_line(r: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<Option<Line>> {
    buf.clear();
    let mut too_long = false;
    let mut any = false;
    loop {
        let chunk = match r.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            break;
        }
        any = true;
        let (part, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], Some(i + 1)),
            None => (chunk, None),
        };
        let room = MAX_LINE.saturating_sub(buf.len());
        if part.len() > room {
            too_long = true;
        }
        buf.extend_from_slice(&part[..part.len().min(room)]);
        let used = done.unwrap_or(chunk.len());
        r.consume(used);
        if done.is_some() {
            break;
        }
    }
    if !any {
        return Ok(None);
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    let lossy = String::from_utf8_lossy(buf).into_owned();
    Ok(Some(if too_long {
        Line::TooLong(lossy.chars().take(40).collect())
    } else if std::str::from_utf8(buf).is_err() {
        Line::BadUtf8(lossy)
    } else {
        Line::Text(lossy)
    }))
}
