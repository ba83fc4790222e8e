//! What the ranks send each other, packed into words.

use crate::solve::complete::error::SolveError;

/// The error of a message that does not parse.
pub(super) fn garbled(reason: &str) -> SolveError {
    SolveError::Exchange {
        reason: reason.into(),
    }
}

/// `n` 16-bit values, four to a word.
pub(super) fn pack16(out: &mut Vec<u64>, items: impl ExactSizeIterator<Item = u16>) {
    let mut word = 0u64;
    let mut i = 0;
    for x in items {
        word |= u64::from(x) << (16 * (i % 4));
        i += 1;
        if i % 4 == 0 {
            out.push(word);
            word = 0;
        }
    }
    if i % 4 != 0 {
        out.push(word);
    }
}

/// The first `n` 16-bit values of `words` (four to a word), and the words
/// after them.
pub(super) fn unpack16(words: &[u64], n: usize) -> Result<(Vec<u16>, &[u64]), SolveError> {
    let (head, rest) = words
        .split_at_checked(n.div_ceil(4))
        .ok_or_else(|| garbled("a message is cut short"))?;
    let mut items: Vec<u16> = head
        .iter()
        .flat_map(|&w| (0..4).map(move |i| (w >> (16 * i)) as u16))
        .collect();
    items.truncate(n);
    Ok((items, rest))
}
