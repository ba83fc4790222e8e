//! Reading input lines of bounded length, whatever the bytes.

use std::io::{self, BufRead};

/// Longest line kept; longer lines are reported as errors, not stored.
pub const MAX_LINE: usize = boardsolve::cli::MAX_LINE;

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
    Ok(Some(match std::str::from_utf8(buf) {
        Ok(text) if !too_long => Line::Text(text.to_owned()),
        _ => {
            let lossy = String::from_utf8_lossy(buf);
            if too_long {
                Line::TooLong(boardsolve::cli::quoted(&lossy))
            } else {
                Line::BadUtf8(lossy.into_owned())
            }
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader of `left` bytes of `byte`, then a newline, then the end,
    /// produced on the fly so the test itself holds no long line.
    struct Endless {
        left: usize,
        byte: u8,
        newline_read: bool,
        chunk: Vec<u8>,
    }

    impl io::Read for Endless {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = {
                let mut buf = self.fill_buf()?;
                io::Read::read(&mut buf, out)?
            };
            self.consume(n);
            Ok(n)
        }
    }

    impl BufRead for Endless {
        fn fill_buf(&mut self) -> io::Result<&[u8]> {
            self.chunk.clear();
            if self.left > 0 {
                self.chunk.resize(self.left.min(64 * 1024), self.byte);
            } else if !self.newline_read {
                self.chunk.push(b'\n');
            }
            Ok(&self.chunk)
        }

        fn consume(&mut self, n: usize) {
            if self.left > 0 {
                self.left -= n;
            } else if n > 0 {
                self.newline_read = true;
            }
        }
    }

    #[test]
    fn a_long_line_is_cut_and_memory_stays_bounded() {
        let mut r = Endless {
            left: 300 << 20,
            byte: b'x',
            newline_read: false,
            chunk: Vec::new(),
        };
        let mut buf = Vec::new();
        match next_line(&mut r, &mut buf).unwrap() {
            Some(Line::TooLong(head)) => assert_eq!(head, "x".repeat(40)),
            _ => panic!("a 300 MB line is too long"),
        }
        assert!(buf.capacity() <= 2 * MAX_LINE, "{}", buf.capacity());
        assert!(next_line(&mut r, &mut buf).unwrap().is_none());
    }

    #[test]
    fn lines_that_are_not_utf8_are_told_apart() {
        let input = b"a1\r\n\xff\xfe\nok\n".to_vec();
        let mut r = io::Cursor::new(input);
        let mut buf = Vec::new();
        assert!(matches!(next_line(&mut r, &mut buf).unwrap(), Some(Line::Text(t)) if t == "a1"));
        assert!(matches!(
            next_line(&mut r, &mut buf).unwrap(),
            Some(Line::BadUtf8(_))
        ));
        assert!(matches!(next_line(&mut r, &mut buf).unwrap(), Some(Line::Text(t)) if t == "ok"));
        assert!(next_line(&mut r, &mut buf).unwrap().is_none());
    }
}
