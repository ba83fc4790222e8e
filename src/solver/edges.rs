//! The edges of a chunk of parents, as the forward pass records them for the
//! backward pass.
//!
//! Recording where each child went costs about 3 bytes per edge and spares
//! the backward pass generating, canonicalising and looking up every child
//! again: it reads each child's value directly by `(partition, id)`.

/// Small unsigned numbers in the narrowest of `u8`, `u16` and `u32` that
/// holds them all so far; widened when a larger one comes.
pub(super) enum Narrow {
    /// Every number is below 2^8.
    U8(Vec<u8>),
    /// Every number is below 2^16.
    U16(Vec<u16>),
    /// Any `u32`.
    U32(Vec<u32>),
}

impl Default for Narrow {
    fn default() -> Self {
        Narrow::U8(Vec::new())
    }
}

impl Narrow {
    /// The number of entries.
    pub(super) fn len(&self) -> usize {
        match self {
            Narrow::U8(v) => v.len(),
            Narrow::U16(v) => v.len(),
            Narrow::U32(v) => v.len(),
        }
    }

    /// Grows to `len` entries (zeros), widening first if needed to hold
    /// numbers up to `max`.
    pub(super) fn reserve_to(&mut self, len: usize, max: u64) {
        if max > u64::from(u16::MAX) {
            if let Narrow::U8(_) | Narrow::U16(_) = self {
                *self = Narrow::U32((0..self.len()).map(|i| self.get(i)).collect());
            }
        } else if max > u64::from(u8::MAX) {
            if let Narrow::U8(v) = self {
                *self = Narrow::U16(v.iter().map(|&x| u16::from(x)).collect());
            }
        }
        match self {
            Narrow::U8(v) => v.resize(len, 0),
            Narrow::U16(v) => v.resize(len, 0),
            Narrow::U32(v) => v.resize(len, 0),
        }
    }

    /// Fills entries `from..`, in parallel: consecutive runs of `lens`
    /// entries, run `r` from `f(&items[r], i)` for `i` in `0..lens[r]`. The
    /// numbers must fit the width ([`Narrow::reserve_to`]).
    pub(super) fn fill_from<T: Sync>(
        &mut self,
        from: usize,
        lens: impl Iterator<Item = usize>,
        items: &[T],
        f: impl Fn(&T, usize) -> u64 + Sync,
    ) {
        use rayon::prelude::*;
        fn fill<X: Send, T: Sync>(
            v: &mut [X],
            lens: impl Iterator<Item = usize>,
            items: &[T],
            f: impl Fn(&T, usize) -> X + Sync,
        ) {
            let mut runs = Vec::new();
            let mut rest = v;
            for n in lens {
                let (head, tail) = rest.split_at_mut(n);
                runs.push(head);
                rest = tail;
            }
            runs.into_par_iter().zip(items).for_each(|(run, item)| {
                for (i, x) in run.iter_mut().enumerate() {
                    *x = f(item, i);
                }
            });
        }
        match self {
            Narrow::U8(v) => fill(&mut v[from..], lens, items, |t, i| f(t, i) as u8),
            Narrow::U16(v) => fill(&mut v[from..], lens, items, |t, i| f(t, i) as u16),
            Narrow::U32(v) => fill(&mut v[from..], lens, items, |t, i| f(t, i) as u32),
        }
    }

    /// Frees unused capacity.
    pub(super) fn shrink_to_fit(&mut self) {
        match self {
            Narrow::U8(v) => v.shrink_to_fit(),
            Narrow::U16(v) => v.shrink_to_fit(),
            Narrow::U32(v) => v.shrink_to_fit(),
        }
    }

    /// Entry `i`.
    pub(super) fn get(&self, i: usize) -> u32 {
        match self {
            Narrow::U8(v) => u32::from(v[i]),
            Narrow::U16(v) => u32::from(v[i]),
            Narrow::U32(v) => v[i],
        }
    }
}

/// A chunk of parents (ids `first .. first + len` of one partition of their
/// layer): which of the layer's edges and counts are theirs, and what is
/// kept per chunk.
pub(super) struct Chunk {
    /// The parents' partition.
    pub(super) part: usize,
    /// The first parent's id.
    pub(super) first: usize,
    /// The number of parents.
    pub(super) len: usize,
    /// The parents' first edge in [`Edges::routes`] and [`Edges::ids`].
    pub(super) edges: usize,
    /// The parents' first count in [`Edges::counts`].
    pub(super) counts: usize,
    /// Edge counts of `u8::MAX` or more, in parent order.
    pub(super) many: Vec<u32>,
    /// The edges' rewards and whether the mover moves again, run-length
    /// encoded: `(reward, again, run)`.
    pub(super) kinds: Vec<(i8, bool, u32)>,
    /// The children not in the next layer, in edge order: `(layer,
    /// partition, id)`.
    pub(super) others: Vec<(u32, u32, u32)>,
}

/// The parents of one layer, chunk by chunk, and their edges. Each array is
/// one allocation for the whole layer, so that it goes back to the system
/// when the backward pass is done with the layer.
#[derive(Default)]
pub(super) struct Edges {
    /// The chunks, in the order the forward pass expanded them.
    pub(super) chunks: Vec<Chunk>,
    /// Per parent, its number of edges; `u8::MAX` means the chunk's next
    /// entry of [`Chunk::many`].
    pub(super) counts: Vec<u8>,
    /// Per edge: the partition of the next layer holding the child, or
    /// [`Edges::other`] when the child is not in the next layer (it is in
    /// [`Chunk::others`] then).
    pub(super) routes: Narrow,
    /// Per edge: the child's id in its partition of the next layer (0 for
    /// children not in the next layer).
    pub(super) ids: Narrow,
    /// The route of children not in the next layer: the number of
    /// partitions of the next layer.
    pub(super) other: u32,
}

impl Edges {
    /// Frees unused capacity once the layer is complete.
    pub(super) fn shrink_to_fit(&mut self) {
        self.chunks.shrink_to_fit();
        self.counts.shrink_to_fit();
        self.routes.shrink_to_fit();
        self.ids.shrink_to_fit();
    }
}

/// Appends an edge of kind `(reward, again)` to run-length encoded kinds.
#[inline]
pub(super) fn push_kind(kinds: &mut Vec<(i8, bool, u32)>, reward: i8, again: bool) {
    match kinds.last_mut() {
        Some((r, a, n)) if *r == reward && *a == again => *n += 1,
        _ => kinds.push((reward, again, 1)),
    }
}

/// Appends a parent with `n` edges to the counts.
#[inline]
pub(super) fn push_count(counts: &mut Vec<u8>, many: &mut Vec<u32>, n: usize) {
    if n < usize::from(u8::MAX) {
        counts.push(n as u8);
    } else {
        counts.push(u8::MAX);
        many.push(n as u32);
    }
}
