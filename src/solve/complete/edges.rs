//! The recorded edges of one layer, as the forward pass leaves them for the
//! backward pass.
//!
//! States of a layer are named by their id (see [`super::table`]); the
//! parents of a layer are expanded in id order, so a layer's edges are one
//! sequence, each parent's edges in a row. Most edges lead to the next
//! layer, keep the kind of the edge before (the reward and whether the
//! mover moves again), and name their child by an id of 3 bytes; only the
//! exceptions are stored at length. For British Square that is about 3 bytes
//! an edge and 1 byte a state.

/// Children counts this large are stored in [`LayerEdges::many`].
const MANY: u8 = u8::MAX;

/// The edges of the parents of one layer, in id order.
#[derive(Default)]
pub(super) struct LayerEdges {
    /// Per parent id: its number of edges, or [`MANY`].
    counts: Vec<u8>,
    /// `(id, count)` of the parents with [`MANY`] edges or more, by id.
    many: Vec<(u32, u32)>,
    /// Per edge: the id of its child, `width` bytes little-endian.
    ids: Vec<u8>,
    width: usize,
    /// `(edge, layer)` of the edges whose child is not in the next layer,
    /// by edge.
    pub(super) others: Vec<(u64, u32)>,
    /// `(edge, reward, again)`: the kind of every edge from `edge` on, up to
    /// the next entry.
    pub(super) kinds: Vec<(u64, i8, bool)>,
    /// `(first parent id, its first edge)`, every [`super::forward::CHUNK`] ids.
    pub(super) starts: Vec<(u32, u64)>,
}

impl LayerEdges {
    /// Starts recording, for parents from id 0.
    pub(super) fn new() -> LayerEdges {
        LayerEdges {
            starts: vec![(0, 0)],
            ..LayerEdges::default()
        }
    }

    /// The number of parents recorded.
    pub(super) fn parents(&self) -> usize {
        self.counts.len()
    }

    /// The number of edges of the parent `id`.
    #[inline(always)]
    pub(super) fn count(&self, id: u32) -> usize {
        let c = self.counts[id as usize];
        if c < MANY {
            return usize::from(c);
        }
        match self.many.binary_search_by_key(&id, |&(i, _)| i) {
            Ok(i) => self.many[i].1 as usize,
            Err(_) => usize::from(MANY),
        }
    }

    /// Adds a parent with `n` edges.
    #[inline]
    pub(super) fn push_count(&mut self, n: usize) {
        let id = self.counts.len() as u32;
        if n >= usize::from(MANY) {
            self.counts.push(MANY);
            self.many.push((id, n as u32));
        } else {
            self.counts.push(n as u8);
        }
    }

    /// The child id of edge `e`.
    #[inline(always)]
    pub(super) fn id(&self, e: u64) -> u32 {
        let at = e as usize * self.width;
        // The vector has 3 bytes of slack at the end, so 4 can be read.
        let b = &self.ids[at..at + 4];
        let v = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        if self.width == 4 {
            v
        } else {
            v & 0x00FF_FFFF
        }
    }

    /// Stores the child ids of every edge, packed as narrowly as they allow.
    pub(super) fn set_ids(&mut self, ids: &[u32]) {
        let max = ids.iter().copied().max().unwrap_or(0);
        self.width = if max < 1 << 24 { 3 } else { 4 };
        let w = self.width;
        let mut out = vec![0u8; ids.len() * w + 4];
        // Each id is written as 4 bytes; the next one overwrites the extra.
        for (i, &id) in ids.iter().enumerate() {
            out[i * w..i * w + 4].copy_from_slice(&id.to_le_bytes());
        }
        out.truncate(ids.len() * w + 3);
        self.ids = out;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_ids_round_trip() {
        let mut e = LayerEdges::new();
        for n in [0, 3, 254, 255, 256, 1000, 7] {
            e.push_count(n);
        }
        let counts: Vec<usize> = (0..7).map(|i| e.count(i)).collect();
        assert_eq!(counts, [0, 3, 254, 255, 256, 1000, 7]);
        for ids in [vec![0u32, 5, (1 << 24) - 1], vec![1 << 24, 3, u32::MAX]] {
            e.set_ids(&ids);
            let back: Vec<u32> = (0..ids.len() as u64).map(|i| e.id(i)).collect();
            assert_eq!(back, ids);
        }
    }
}
