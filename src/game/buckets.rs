//! Buckets: a finer partition of a layered game's states, for the bucketed
//! solver ([`crate::solver::bucketed`]).
//!
//! A layer of British Square holds up to 1.6 million canonical states, far
//! more than a cache holds, so naming a child in a table of its whole layer
//! misses the cache on nearly every probe. But a child's layer is not all
//! that is known before it is generated: placing a piece in a given orbit of
//! cells (cells that the symmetries map onto each other) adds one to that
//! orbit's piece count, and the piece counts of the orbits are the same in
//! all 8 images of a state. So with states bucketed by those counts, every
//! child of a given class of moves lands in one known bucket, and a bucket
//! (at most about 27,000 states on 5x5) fits the cache.

use super::{Edge, Game, Move};

/// "No bucket": a class of moves that cannot be played from a bucket.
pub const NO_BUCKET: u32 = u32::MAX;

/// The most classes a scheme may have ([`Bucketed::class_counts`]).
pub const MAX_CLASSES: usize = 16;

/// How a game's states split into buckets, and where each class of moves
/// leads from each bucket. Buckets are numbered `0..count`; every bucket lies
/// in one layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BucketScheme {
    classes: usize,
    /// Per bucket and class (`bucket * classes + class`): the bucket the
    /// class leads to, or [`NO_BUCKET`].
    next: Vec<u32>,
    /// Per bucket: its layer.
    layer: Vec<u32>,
    /// Per group: what a piece in it adds to the bucket number.
    weights: Vec<u32>,
}

impl BucketScheme {
    /// The scheme whose bucket is the number of pieces in each of
    /// `sizes.len()` groups of cells (group `j` has `sizes[j]` cells), the
    /// layer is the number of pieces, and a move of class `j` adds a piece
    /// to group `j`. The bucket number is the mixed-radix number of the
    /// counts ([`BucketScheme::bucket_of`]).
    ///
    /// # Panics
    /// If there are more than [`MAX_CLASSES`] groups, or the number of
    /// buckets does not fit a `u32` (a game's constant
    /// setup, never user input).
    pub fn piece_counts(sizes: &[u32]) -> BucketScheme {
        let classes = sizes.len();
        assert!(classes <= MAX_CLASSES, "at most {MAX_CLASSES} classes");
        let mut weights = vec![1u32; classes];
        for j in (0..classes.saturating_sub(1)).rev() {
            weights[j] = weights[j + 1]
                .checked_mul(sizes[j + 1] + 1)
                .expect("bucket numbers fit a u32");
        }
        let count = sizes
            .iter()
            .try_fold(1u32, |n, &s| n.checked_mul(s + 1))
            .filter(|&n| n < NO_BUCKET)
            .expect("bucket numbers fit a u32");
        let mut next = vec![NO_BUCKET; count as usize * classes];
        let mut layer = vec![0; count as usize];
        for b in 0..count {
            for j in 0..classes {
                let digit = b / weights[j] % (sizes[j] + 1);
                layer[b as usize] += digit;
                if digit < sizes[j] {
                    next[b as usize * classes + j] = b + weights[j];
                }
            }
        }
        BucketScheme {
            classes,
            next,
            layer,
            weights,
        }
    }

    /// The number of buckets.
    pub fn count(&self) -> usize {
        self.layer.len()
    }

    /// The number of move classes that lead to the next layer.
    pub fn classes(&self) -> usize {
        self.classes
    }

    /// The bucket that moves of class `class` lead to from bucket `bucket`,
    /// or [`NO_BUCKET`].
    #[inline]
    pub fn next(&self, bucket: u32, class: usize) -> u32 {
        self.next[bucket as usize * self.classes + class]
    }

    /// The layer of the states of `bucket`.
    #[inline]
    pub fn layer(&self, bucket: u32) -> usize {
        self.layer[bucket as usize] as usize
    }

    /// What one piece in group `group` adds to the bucket number of a
    /// [`BucketScheme::piece_counts`] scheme.
    #[inline]
    pub fn weight(&self, group: usize) -> u32 {
        self.weights[group]
    }

    /// The bucket of the piece counts `counts` (one per group) of a
    /// [`BucketScheme::piece_counts`] scheme.
    #[inline]
    pub fn bucket_of(&self, counts: impl IntoIterator<Item = u32>) -> u32 {
        self.weights.iter().zip(counts).map(|(w, c)| w * c).sum()
    }
}

/// A layered game whose states split into buckets ([`BucketScheme`]) so that
/// every move either stays in its state's bucket (a forced pass) or leads to
/// the bucket its class names. The bucketed solver checks every state it
/// meets against [`Bucketed::bucket`]: a game that breaks the contract gets
/// an error, never a wrong value.
pub trait Bucketed: Game {
    /// The scheme (the same every time).
    fn bucket_scheme(&self) -> BucketScheme;

    /// The bucket of a canonical state.
    fn bucket(&self, state: u64) -> u32;

    /// The class of a move of [`Game::canonical_children`]: `Some(class)`
    /// for a move to bucket [`BucketScheme::next`]`(bucket, class)`, `None`
    /// for a move within the bucket.
    fn move_class(&self, mv: Move) -> Option<usize>;

    /// The number of edges of each class among [`Game::canonical_children`]
    /// of `state`, 4 bits per class from bit 0 (so a scheme has at most 16
    /// classes, and a state at most 15 moves of a class). The solver
    /// recomputes these rather than storing them, and checks them against
    /// the children.
    fn class_counts(&self, state: u64) -> u64;

    /// The edges of [`Game::canonical_children`] whose class is `None`, in
    /// the same order.
    fn same_bucket_children(&self, state: u64, out: &mut Vec<Edge>);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piece_count_buckets_number_every_count_once() {
        let s = BucketScheme::piece_counts(&[1, 4, 8]);
        assert_eq!(s.count(), 2 * 5 * 9);
        let mut seen = vec![false; s.count()];
        for a in 0..=1 {
            for b in 0..=4 {
                for c in 0..=8 {
                    let bucket = s.bucket_of([a, b, c]);
                    assert!(!seen[bucket as usize], "{a} {b} {c}");
                    seen[bucket as usize] = true;
                    assert_eq!(s.layer(bucket), (a + b + c) as usize);
                    let up = [(a, 1), (b, 4), (c, 8)];
                    for (j, &(n, size)) in up.iter().enumerate() {
                        let mut counts = [a, b, c];
                        counts[j] += 1;
                        let want = if n < size {
                            s.bucket_of(counts)
                        } else {
                            NO_BUCKET
                        };
                        assert_eq!(s.next(bucket, j), want);
                    }
                }
            }
        }
        assert!(seen.iter().all(|&x| x));
    }
}
