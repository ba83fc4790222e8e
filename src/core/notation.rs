//! How the notations write a number (a cell, a column, an edge, a row, a
//! score): ASCII digits alone, with no sign and no leading zero (`0` itself
//! is the one number that starts with one). Every game reads numbers
//! through [`number`], so that `+4`, `04` and `4` are not three spellings
//! of one move (`format-spec.md`, "Notation").

/// The number `text` writes in the notations' one form, or `None` for any
/// other text (a sign, a leading zero, spaces, a number past `u32`).
pub(crate) fn number(text: &str) -> Option<u32> {
    let b = text.as_bytes();
    let well_formed = match b {
        [] => false,
        [b'0'] => true,
        [b'0', ..] => false,
        _ => b.iter().all(u8::is_ascii_digit),
    };
    if well_formed {
        text.parse().ok()
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::number;

    #[test]
    fn one_form_of_each_number() {
        for (text, n) in [("0", 0), ("7", 7), ("24", 24), ("4294967295", u32::MAX)] {
            assert_eq!(number(text), Some(n), "{text}");
        }
        for text in [
            "",
            "+4",
            "-1",
            "04",
            "00",
            "+0",
            " 4",
            "4 ",
            "4294967296",
            "1e3",
            "٣",
        ] {
            assert_eq!(number(text), None, "{text:?}");
        }
    }
}
