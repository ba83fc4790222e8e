//! An opening book's exact scores, which the search takes at the nodes
//! the book holds.

use crate::games::connect_four::board::{Bitboard, Variant};

/// Exact scores from an opening book, for the search to take at the nodes
/// the book holds instead of searching them: keys sorted for binary search,
/// one byte per score. An 8-ply 7x6 book (about 130,000 positions) takes
/// 1.2 MB.
#[derive(Clone, Debug)]
pub struct BookScores {
    variant: Variant,
    /// The most stones of a position in the book.
    depth: u32,
    keys: Box<[u64]>,
    scores: Box<[i8]>,
}

impl BookScores {
    /// The book of `variant` holding `entries`: (canonical key, exact score
    /// for the side to move) of positions that are not over. Positions the
    /// variant cannot decode are left out.
    pub(crate) fn new(
        variant: Variant,
        entries: impl IntoIterator<Item = (u64, i32)>,
    ) -> BookScores {
        let mut all: Vec<(u64, i8)> = Vec::new();
        let mut depth = 0;
        for (key, score) in entries {
            let Some(p) = Bitboard::from_key(variant, key) else {
                continue;
            };
            let Ok(score) = i8::try_from(score) else {
                continue;
            };
            if p.is_over() || p.canonical_key() != key {
                continue;
            }
            depth = depth.max(p.moves());
            all.push((key, score));
        }
        all.sort_unstable();
        all.dedup_by_key(|e| e.0);
        BookScores {
            variant,
            depth,
            keys: all.iter().map(|e| e.0).collect(),
            scores: all.iter().map(|e| e.1).collect(),
        }
    }

    /// The board the book is for.
    pub(crate) fn variant(&self) -> Variant {
        self.variant
    }

    /// The most stones of a position in the book (0 for an empty book).
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The number of positions held.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when the book holds nothing.
    pub(crate) fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The exact score of the position whose canonical key is `key`, if
    /// the book holds it.
    #[inline]
    pub(crate) fn score(&self, key: u64) -> Option<i32> {
        self.keys
            .binary_search(&key)
            .ok()
            .map(|i| i32::from(self.scores[i]))
    }
}
