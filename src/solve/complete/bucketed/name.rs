//! The name step of the forward pass: the children bound for one bucket
//! of the next layer are given their local ids ([`name`]), and the bucket
//! is closed under its moves within itself ([`close`]).

use std::cell::RefCell;

use super::probe::Probe;
use super::{KeysAt, SameEdge, MAX_BUCKET};
use crate::core::Edge;
use crate::solve::complete::buckets::{BucketScheme, Bucketed, MAX_CLASSES};
use crate::solve::complete::error::SolveError;

thread_local! {
    /// The name step's buffers.
    static NAME: RefCell<NameScratch> = RefCell::default();
}

/// Sums of packed class counts (4 bits per class, 16 classes), added in
/// byte lanes (even classes in one word, odd ones in another) and spilled
/// to full sums before a lane can overflow: a few instructions a state
/// instead of one addition per class.
#[derive(Default)]
struct CountSums {
    even: u64,
    odd: u64,
    /// Counts added since the last spill.
    pending: u32,
    sums: [usize; MAX_CLASSES],
}

impl CountSums {
    const NIBBLES: u64 = 0x0F0F_0F0F_0F0F_0F0F;
    /// Counts of up to 15 each fit a byte 17 times.
    const SPILL_EVERY: u32 = 17;

    #[inline(always)]
    fn add(&mut self, packed: u64) {
        self.even += packed & Self::NIBBLES;
        self.odd += packed >> 4 & Self::NIBBLES;
        self.pending += 1;
        if self.pending == Self::SPILL_EVERY {
            self.spill();
        }
    }

    fn spill(&mut self) {
        for lane in 0..MAX_CLASSES / 2 {
            self.sums[2 * lane] += (self.even >> (8 * lane) & 0xFF) as usize;
            self.sums[2 * lane + 1] += (self.odd >> (8 * lane) & 0xFF) as usize;
        }
        (self.even, self.odd, self.pending) = (0, 0, 0);
    }

    /// The sum of each class.
    fn finish(mut self) -> [usize; MAX_CLASSES] {
        self.spill();
        self.sums
    }
}

/// Closes a bucket whose states `probe` holds under its same-bucket moves
/// (forced passes), whose children get ids past the others; returns those
/// moves, grouped by parent, and the bucket's moves of each class. Checks
/// each state's key width, and its bucket and layer in debug builds.
pub(in crate::solve) fn close<G: Bucketed + ?Sized>(
    game: &G,
    scheme: &BucketScheme,
    bucket: u32,
    key_bits: u32,
    probe: &mut Probe,
    edges: &mut Vec<Edge>,
) -> Result<(Vec<SameEdge>, [usize; MAX_CLASSES]), SolveError> {
    let layer = scheme.layer(bucket);
    let mut same = Vec::new();
    let mut moves = CountSums::default();
    let mut i = 0;
    while i < probe.keys.len() {
        let key = probe.keys[i];
        let broken = |reason| SolveError::BucketContract { state: key, reason };
        if i >= MAX_BUCKET {
            return Err(broken("its bucket holds more than 65,536 states"));
        }
        if key.checked_shr(key_bits).unwrap_or(0) != 0 {
            return Err(SolveError::KeyTooWide {
                state: key,
                bits: key_bits,
            });
        }
        // The game's bucket contract, per state: in debug builds (the
        // tests). In release builds a state in a wrong bucket shows up
        // as a key named twice, which `pack_sorted` refuses.
        if cfg!(debug_assertions) {
            if game.bucket(key) != bucket {
                return Err(broken("a move leads elsewhere than its class's bucket"));
            }
            if game.layer(key) != layer {
                return Err(broken("its layer is not its bucket's"));
            }
        }
        edges.clear();
        let counts = game.counts_and_same_bucket_children(key, edges);
        // Classes past the scheme's are refused when the state expands.
        moves.add(counts);
        for e in edges.iter() {
            let child = probe.insert(e.child);
            same.push(SameEdge {
                parent: i as u16,
                child: child as u16,
                kind: (e.reward, e.again),
            });
        }
        i += 1;
    }
    Ok((same, moves.finish()))
}

#[derive(Default)]
struct NameScratch {
    probe: Probe,
    edges: Vec<Edge>,
}

/// What naming one bucket produced.
pub(super) struct Named {
    /// Where its states went.
    pub(super) keys: KeysAt,
    /// Its moves within itself, grouped by parent.
    pub(super) same: Vec<SameEdge>,
    /// Its states' moves of each class, in all.
    pub(super) moves: [usize; MAX_CLASSES],
}

/// Names the states of `bucket`, the children in `sources`: every distinct
/// one gets a local id, every edge its child's id, written to `ids` (as
/// long as the sources together). Then closes the bucket under its
/// same-bucket moves (checking each state's bucket and layer in debug
/// builds).
pub(super) fn name<G: Bucketed + ?Sized>(
    game: &G,
    scheme: &BucketScheme,
    bucket: u32,
    key_bits: u32,
    sources: &[&[u64]],
    ids: &mut [u16],
    chunks: &[std::sync::Mutex<Vec<u64>>],
) -> Result<Named, SolveError> {
    NAME.with(|scratch| {
        let s = &mut *scratch.borrow_mut();
        // British Square's states have about 5 parents each.
        s.probe.reset(ids.len() / 4 + 1);
        let mut rest = ids;
        for src in sources {
            let (head, tail) = rest.split_at_mut(src.len());
            s.probe.insert_all(src, head);
            rest = tail;
        }
        let (same, moves) = close(game, scheme, bucket, key_bits, &mut s.probe, &mut s.edges)?;
        Ok(Named {
            keys: {
                // This thread's chunk (the last one off the pool's threads).
                let chunk = rayon::current_thread_index()
                    .unwrap_or(chunks.len().saturating_sub(1))
                    .min(chunks.len().saturating_sub(1));
                let mut c = chunks
                    .get(chunk)
                    // `key_chunks` makes at least one: never taken.
                    .ok_or(SolveError::BucketContract {
                        state: s.probe.keys.first().copied().unwrap_or(0),
                        reason: "the solver has no buffer for its bucket's keys",
                    })?
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                let start = c.len();
                c.extend_from_slice(&s.probe.keys);
                KeysAt {
                    chunk,
                    range: start..c.len(),
                }
            },
            same,
            moves,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_sums_add_every_class_without_overflow() {
        let mut sums = CountSums::default();
        let mut plain = [0usize; MAX_CLASSES];
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for i in 0..1000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            // Every class at its largest now and then.
            let packed = if i % 7 == 0 { u64::MAX } else { seed };
            sums.add(packed);
            for (c, p) in plain.iter_mut().enumerate() {
                *p += (packed >> (4 * c) & 15) as usize;
            }
        }
        assert_eq!(sums.finish(), plain);
    }
}
