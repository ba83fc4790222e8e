//! The collective operations the ranks need ([`Exchange`]), an exchange
//! that counts the bytes it sends ([`Counted`]), and rounds of bounded
//! size over them.

use super::ROUND;
use crate::solve::complete::error::SolveError;

/// The collective operations the ranks need. Every rank calls each method
/// the same number of times, in the same order.
pub trait Exchange {
    /// This rank's number, `0..size()`.
    fn rank(&self) -> usize;

    /// The number of ranks.
    fn size(&self) -> usize;

    /// Sends `outgoing[r]` to rank `r` (one list per rank) and returns what
    /// every rank sent to this one, by sender.
    fn all_to_all(&self, outgoing: Vec<Vec<u64>>) -> Result<Vec<Vec<u64>>, SolveError>;

    /// The sum of `x` over the ranks, on every rank.
    fn sum(&self, x: u64) -> Result<u64, SolveError>;

    /// Every rank's `items`, concatenated in rank order, on every rank.
    fn all_gather(&self, items: Vec<u64>) -> Result<Vec<u64>, SolveError>;
}

/// An [`Exchange`] that counts the bytes this rank sends to the others.
pub(in crate::solve) struct Counted<'a> {
    ex: &'a dyn Exchange,
    sent: std::cell::Cell<u64>,
}

impl Counted<'_> {
    /// Counts what `ex` sends from now on.
    pub(in crate::solve) fn new(ex: &dyn Exchange) -> Counted<'_> {
        Counted {
            ex,
            sent: std::cell::Cell::new(0),
        }
    }

    /// The bytes all ranks have sent so far (a collective call).
    pub(in crate::solve) fn total(&self) -> Result<u64, SolveError> {
        self.ex.sum(self.sent.get())
    }
}

impl Exchange for Counted<'_> {
    fn rank(&self) -> usize {
        self.ex.rank()
    }
    fn size(&self) -> usize {
        self.ex.size()
    }
    fn all_to_all(&self, outgoing: Vec<Vec<u64>>) -> Result<Vec<Vec<u64>>, SolveError> {
        let me = self.ex.rank();
        let words: usize = outgoing
            .iter()
            .enumerate()
            .filter(|&(r, _)| r != me)
            .map(|(_, o)| o.len())
            .sum();
        self.sent.set(self.sent.get() + 8 * words as u64);
        self.ex.all_to_all(outgoing)
    }
    fn sum(&self, x: u64) -> Result<u64, SolveError> {
        self.sent
            .set(self.sent.get() + 8 * (self.ex.size() as u64 - 1));
        self.ex.sum(x)
    }
    fn all_gather(&self, items: Vec<u64>) -> Result<Vec<u64>, SolveError> {
        let words = items.len() * (self.ex.size() - 1);
        self.sent.set(self.sent.get() + 8 * words as u64);
        self.ex.all_gather(items)
    }
}

/// Bytes as people read them: `512 B`, `3.4 MB`, `1.2 GB`.
pub(in crate::solve) fn human_bytes(n: u64) -> String {
    match n {
        0..=9_999 => format!("{n} B"),
        10_000..=9_999_999 => format!("{:.1} kB", n as f64 / 1e3),
        10_000_000..=9_999_999_999 => format!("{:.1} MB", n as f64 / 1e6),
        _ => format!("{:.1} GB", n as f64 / 1e9),
    }
}

/// Runs `f` over `items` in slices of at most [`ROUND`], as many times on
/// every rank (the most any rank needs; the others pass empty slices).
pub(in crate::solve) fn for_rounds<T>(
    ex: &dyn Exchange,
    items: &[T],
    mut f: impl FnMut(&[T]) -> Result<(), SolveError>,
) -> Result<(), SolveError> {
    let rounds = items.len().div_ceil(ROUND) as u64;
    let most = ex.all_gather(vec![rounds])?.into_iter().max().unwrap_or(0);
    for r in 0..most as usize {
        let from = (r * ROUND).min(items.len());
        let to = ((r + 1) * ROUND).min(items.len());
        f(&items[from..to])?;
    }
    Ok(())
}
