//! Buckets: a finer partition of a layered game's states, for the bucketed
//! solver ([`super::bucketed`]).
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

use crate::core::{Edge, Game, Move};

/// "No bucket": a class of moves that cannot be played from a bucket.
pub(crate) const NO_BUCKET: u32 = u32::MAX;

/// The most classes a scheme may have ([`Bucketed::class_counts`]).
pub(crate) const MAX_CLASSES: usize = 16;

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
    /// counts (`BucketScheme::bucket_of`).
    ///
    /// # Panics
    /// If there are more than [`MAX_CLASSES`] groups, or the number of
    /// buckets does not fit a `u32` (a game's constant
    /// setup, never user input).
    pub(crate) fn piece_counts(sizes: &[u32]) -> BucketScheme {
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
    pub(crate) fn count(&self) -> usize {
        self.layer.len()
    }

    /// The number of move classes that lead to the next layer.
    pub(crate) fn classes(&self) -> usize {
        self.classes
    }

    /// The bucket that moves of class `class` lead to from bucket `bucket`,
    /// or [`NO_BUCKET`].
    #[inline]
    pub(crate) fn next(&self, bucket: u32, class: usize) -> u32 {
        self.next[bucket as usize * self.classes + class]
    }

    /// The layer of the states of `bucket`.
    #[inline]
    pub(crate) fn layer(&self, bucket: u32) -> usize {
        self.layer[bucket as usize] as usize
    }

    /// The bucket of the piece counts `counts` (one per group) of a
    /// [`BucketScheme::piece_counts`] scheme.
    #[inline]
    #[cfg(test)]
    pub(crate) fn bucket_of(&self, counts: impl IntoIterator<Item = u32>) -> u32 {
        self.weights.iter().zip(counts).map(|(w, c)| w * c).sum()
    }
}

/// A layered game whose states split into buckets ([`BucketScheme`]) so that
/// every move either stays in its state's bucket (a forced pass) or leads to
/// the bucket its class names. The bucketed solver checks the contract
/// state by state in debug builds, which the test suite runs (a game that
/// breaks it gets an error there, not a wrong value), and in release builds
/// where that costs nothing per state (see [`super::bucketed`]).
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
    /// recomputes these rather than storing them (it sums them per bucket
    /// when it names the bucket's states), and checks them against the
    /// children (per state in debug builds, per bucket in release builds).
    fn class_counts(&self, state: u64) -> u64;

    /// The edges of [`Game::canonical_children`] whose class is `None`, in
    /// the same order.
    fn same_bucket_children(&self, state: u64, out: &mut Vec<Edge>);

    /// [`Bucketed::class_counts`] of `state`, with its
    /// [`Bucketed::same_bucket_children`] appended to `out`: what the
    /// solver asks of every state when it first meets it, in one call, for
    /// games where both come from the same work.
    fn counts_and_same_bucket_children(&self, state: u64, out: &mut Vec<Edge>) -> u64 {
        self.same_bucket_children(state, out);
        self.class_counts(state)
    }

    /// The reward and turn (as in [`Edge`]) of every move of class
    /// `class`: the moves of a class are all alike.
    fn class_kind(&self, class: usize) -> (i8, bool);

    /// Writes the children of `state` by the moves that leave its bucket
    /// (the edges of [`Game::canonical_children`] whose class is `Some`)
    /// into `sink`: [`ClassSink::reserve`] their number per class, then
    /// [`ClassSink::push`] each. The default derives them from those two
    /// methods; a game may override it with faster code that gives the same
    /// children of each class in the same order (the solver checks the
    /// numbers, not the order).
    fn class_children(&self, state: u64, sink: &mut ClassSink<'_>) {
        let mut edges = std::mem::take(&mut sink.edges);
        edges.clear();
        self.canonical_children(state, &mut edges);
        let mut counts = 0u64;
        for e in &edges {
            if let Some(c) = self.move_class(e.mv) {
                if c >= sink.classes {
                    sink.fail("a move's class is out of range");
                } else if (e.reward, e.again) != self.class_kind(c) {
                    sink.fail("a move's reward or turn is not its class's");
                } else if counts >> (4 * c) & 15 == 15 {
                    sink.fail("it has more than 15 moves of a class");
                } else {
                    counts += 1 << (4 * c);
                    continue;
                }
                break;
            }
        }
        if sink.broken.is_none() && sink.reserve(counts) {
            for e in &edges {
                if let Some(c) = self.move_class(e.mv) {
                    sink.push(c, e.child);
                }
            }
        }
        sink.edges = edges;
    }
}

/// Where [`Bucketed::class_children`] writes the children of the states of
/// one bucket: a run of slots per class, sized by the states'
/// [`Bucketed::class_counts`], filled in order, state after state. It
/// refuses a child past its state's reservation and a reservation past its
/// class's run, and in debug builds a state that leaves some of its
/// reservation unwritten.
pub struct ClassSink<'a> {
    out: &'a mut [u64],
    classes: usize,
    /// Per class: the next slot to write.
    next: [usize; MAX_CLASSES],
    /// Per class: the end of the current state's reservation.
    limit: [usize; MAX_CLASSES],
    /// Per class: the end of its run.
    end: [usize; MAX_CLASSES],
    /// The current state's reservation, 4 bits per class.
    reserved: u64,
    /// The current state's reservation in all, and the children written.
    expected: usize,
    written: usize,
    broken: Option<&'static str>,
    /// Scratch for the default [`Bucketed::class_children`].
    edges: Vec<Edge>,
}

impl<'a> ClassSink<'a> {
    /// A sink whose class `c` fills `out[at[c]..at[c + 1]]`; `at` is
    /// ascending, with one more entry than there are classes (at most
    /// [`MAX_CLASSES`]), and ends at most at `out.len()`.
    pub(crate) fn new(out: &'a mut [u64], at: &[usize]) -> ClassSink<'a> {
        let classes = at.len().saturating_sub(1).min(MAX_CLASSES);
        let mut next = [0; MAX_CLASSES];
        let mut end = [0; MAX_CLASSES];
        for c in 0..classes {
            next[c] = at[c];
            end[c] = at[c + 1].min(out.len());
        }
        ClassSink {
            out,
            classes,
            next,
            limit: next,
            end,
            reserved: 0,
            expected: 0,
            written: 0,
            broken: None,
            edges: Vec::new(),
        }
    }

    /// Reserves room for the current state's children: `counts` of each
    /// class, 4 bits per class from bit 0 (as
    /// [`Bucketed::class_counts`]). False (and the sink broken) when a
    /// class would overflow its run, or `counts` names a class out of
    /// range.
    #[inline]
    pub(crate) fn reserve(&mut self, counts: u64) -> bool {
        if self.broken.is_some() {
            return false;
        }
        if counts.checked_shr(4 * self.classes as u32).unwrap_or(0) != 0 {
            self.fail("a move's class is out of range");
            return false;
        }
        let mut fits = true;
        let mut expected = 0;
        for c in 0..self.classes {
            let n = (counts >> (4 * c) & 15) as usize;
            let limit = self.next[c] + n;
            fits &= limit <= self.end[c];
            self.limit[c] = limit;
            expected += n;
        }
        self.expected = expected;
        if !fits {
            self.fail("it has more moves of a class than its class counts");
            return false;
        }
        self.reserved = counts;
        true
    }

    /// Writes the current state's next child of class `class` into its
    /// reserved room (or breaks the sink if there is none).
    #[inline(always)]
    pub(crate) fn push(&mut self, class: usize, child: u64) {
        match (self.next.get(class), self.limit.get(class)) {
            (Some(&at), Some(&limit)) if at < limit => {
                self.out[at] = child;
                self.next[class] = at + 1;
                if cfg!(debug_assertions) {
                    self.written += 1;
                }
            }
            _ => self.fail("it has more moves of a class than it reserved"),
        }
    }

    /// Writes the current state's child of class `class` with place `rank`
    /// among its children of the class (from 0), for a game that knows
    /// where each child goes rather than pushing them in order (no
    /// dependency from one child to the next). A state uses either
    /// [`ClassSink::push`] or this, and writes every reserved place once.
    #[inline(always)]
    pub(crate) fn put(&mut self, class: usize, rank: usize, child: u64) {
        match (self.next.get(class), self.limit.get(class)) {
            (Some(&at), Some(&limit)) if rank < limit - at => {
                self.out[at + rank] = child;
                if cfg!(debug_assertions) {
                    self.written += 1;
                }
            }
            _ => self.fail("it has more moves of a class than it reserved"),
        }
    }

    /// Whether every class's run is filled exactly (the states' moves of
    /// each class add up to what the runs were sized for).
    pub(crate) fn is_full(&self) -> bool {
        self.next[..self.classes] == self.end[..self.classes]
    }

    /// Marks the sink broken: the game broke its contract.
    fn fail(&mut self, reason: &'static str) {
        self.broken.get_or_insert(reason);
    }

    /// Starts the next state: nothing reserved.
    #[inline]
    pub(crate) fn start_state(&mut self) {
        // Whole arrays: a fixed-size copy is a few vector moves, a slice
        // copy a call.
        self.limit = self.next;
        self.reserved = 0;
        self.expected = 0;
        self.written = 0;
    }

    /// Ends the current state: what it reserved per class (4 bits each),
    /// or how the game broke its contract, also when the state left some
    /// of its reservation unwritten.
    #[inline]
    pub(crate) fn end_state(&mut self) -> Result<u64, &'static str> {
        if cfg!(debug_assertions) && self.written != self.expected {
            self.fail("it wrote fewer children than it reserved");
        }
        self.next = self.limit;
        match self.broken {
            Some(reason) => Err(reason),
            None => Ok(self.reserved),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_class_sink_fills_what_is_reserved_and_refuses_the_rest() {
        // Two classes: slots 0..3 and 3..5.
        let mut out = [0u64; 5];
        let mut sink = ClassSink::new(&mut out, &[0, 3, 5]);
        sink.start_state();
        assert!(sink.reserve(0x12)); // 2 of class 0, 1 of class 1
        sink.push(0, 10);
        sink.push(1, 30);
        sink.push(0, 11);
        assert_eq!(sink.end_state(), Ok(0x12));
        sink.start_state();
        assert!(sink.reserve(0x11));
        sink.put(1, 0, 31);
        sink.put(0, 0, 12);
        assert_eq!(sink.end_state(), Ok(0x11));
        drop(sink);
        assert_eq!(out, [10, 11, 12, 30, 31]);

        let broken = |at: &[usize], f: &dyn Fn(&mut ClassSink<'_>)| {
            let mut out = [0u64; 8];
            let mut sink = ClassSink::new(&mut out, at);
            sink.start_state();
            f(&mut sink);
            sink.end_state().unwrap_err()
        };
        // More than the run holds.
        assert!(broken(&[0, 1, 2], &|s| assert!(!s.reserve(0x2))).contains("class counts"));
        // A class the scheme does not have.
        assert!(broken(&[0, 1, 2], &|s| assert!(!s.reserve(0x100))).contains("out of range"));
        // More than reserved, fewer than reserved, a place out of range.
        assert!(broken(&[0, 4, 8], &|s| {
            s.reserve(0x1);
            s.push(0, 1);
            s.push(0, 2);
        })
        .contains("reserved"));
        // Fewer than reserved is a debug check only (`end_state`).
        if cfg!(debug_assertions) {
            assert!(broken(&[0, 4, 8], &|s| {
                s.reserve(0x2);
                s.push(0, 1);
            })
            .contains("fewer"));
        }
        assert!(broken(&[0, 4, 8], &|s| {
            s.reserve(0x2);
            s.put(0, 2, 1);
        })
        .contains("reserved"));
        assert!(broken(&[0, 4, 8], &|s| {
            s.reserve(0x2);
            s.push(5, 1);
        })
        .contains("reserved"));
    }

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
