//! The bucketed solver: the layered retrograde solver of [`super::solve`]
//! for games whose states split into small buckets ([`Bucketed`]), working
//! one bucket at a time so that the tables it probes stay in cache.
//!
//! Layer `k + 1` is built from layer `k` in two parallel steps:
//!
//! 1. *expand*, per bucket of layer `k`: generate the canonical children of
//!    its states, class by class ([`Bucketed::class_children`] into a
//!    [`ClassSink`]); the children of one class all lie in one bucket of
//!    layer `k + 1`. Where they go is known from each bucket's moves per
//!    class, summed when its states were named; each state's number of
//!    children of each class is recomputed by the backward pass, not stored.
//! 2. *name*, per bucket of layer `k + 1`: insert the children of every
//!    (bucket, class) that leads there into one small hash table, which gives
//!    each distinct state its local id (its index in the bucket) and each
//!    edge its child's id; close the bucket under its same-bucket moves
//!    (forced passes), and sum the bucket's moves of each class.
//!
//! The game's side of the contract ([`Bucketed`]) is checked state by
//! state in debug builds, which the test suite runs: each state's bucket
//! and layer, and each state's children of each class against its class
//! counts. Release builds check what costs nothing per state: every
//! class's run of children filled exactly, no state named in two buckets
//! (a repeated key when the records are sorted), keys within their width.
//! Either way `query verify` re-derives every value of the file.
//!
//! The backward pass scores the buckets of a layer in parallel, last layer
//! first, reading each child's value by local id from its bucket's values,
//! a small array. The records are then packed and sorted; they are
//! identical to the plain solver's records (a test checks).

use std::cell::RefCell;

use rayon::prelude::*;

use super::backward::{best_value, through, Kind};
use super::buckets::{BucketScheme, Bucketed, ClassSink, MAX_CLASSES, NO_BUCKET};
use super::layered::{overflow, Cell, SolveError};
use crate::core::layout::RecordLayout;
use crate::core::platform::{advise_huge_pages, prefetch};
use crate::core::Edge;
use crate::core::Value;
use crate::core::{Progress, Solution};

/// Whether [`Probe::insert_all`] may use AVX-512 (F, DQ and VL).
#[cfg(target_arch = "x86_64")]
#[inline]
fn has_avx512() -> bool {
    crate::core::platform::features().avx512_f_dq_vl()
}

/// The most states a bucket may hold: local ids are `u16`.
pub(super) const MAX_BUCKET: usize = 1 << 16;

/// Odd multiplier of the hash (2^64 divided by the golden ratio).
const MUL: u64 = 0x9E37_79B9_7F4A_7C15;

/// Keys probed ahead of the one being inserted.
const AHEAD: usize = 16;

/// A move within a bucket.
#[derive(Clone, Copy)]
pub(super) struct SameEdge {
    parent: u16,
    child: u16,
    kind: Kind,
}

/// One bucket's states and edges.
#[derive(Default)]
struct Bucket {
    /// The states, by local id: where they are in the solve's key chunks.
    keys: KeysAt,
    /// Where the child ids of the edges into this bucket start in the
    /// solve's id arena: visit after visit (a visit: the edges of one class
    /// from one bucket of the layer before).
    ids_at: usize,
    /// The moves within the bucket, grouped by parent.
    same: Vec<SameEdge>,
    /// Per class: the kind of its edges, `None` when there are none.
    kinds: Vec<Option<Kind>>,
    /// Per class: its moves from all the bucket's states (the sum of their
    /// [`Bucketed::class_counts`]), found when the states were named.
    moves: [usize; MAX_CLASSES],
    /// The values, once scored.
    values: Values,
}

/// Where a bucket's states are: a range of one of the key chunks.
#[derive(Default, Clone)]
struct KeysAt {
    chunk: usize,
    range: std::ops::Range<usize>,
}

impl KeysAt {
    /// The states, in `chunks`.
    fn get<'a>(&self, chunks: &'a [Vec<u64>]) -> &'a [u64] {
        chunks
            .get(self.chunk)
            .and_then(|c| c.get(self.range.clone()))
            .unwrap_or(&[])
    }

    fn len(&self) -> usize {
        self.range.len()
    }
}

/// The states' keys, bucket after bucket, in one buffer per thread that
/// names buckets (and one for the calling thread): a bucket's keys go from
/// the thread's table straight into its chunk. Each chunk's address space
/// is reserved at once and advised for huge pages, like the id arena.
fn key_chunks() -> Vec<Vec<u64>> {
    (0..=rayon::current_num_threads())
        .map(|_| reserved_words())
        .collect()
}

/// The key chunks, for the naming threads to append to.
fn share(chunks: Vec<Vec<u64>>) -> Vec<std::sync::Mutex<Vec<u64>>> {
    chunks.into_iter().map(std::sync::Mutex::new).collect()
}

/// The key chunks back, for reading.
fn unshare(chunks: Vec<std::sync::Mutex<Vec<u64>>>) -> Vec<Vec<u64>> {
    chunks
        .into_iter()
        .map(|c| {
            c.into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        })
        .collect()
}

/// A bucket's values by local id: one-byte codes into a palette when there
/// are at most 256 distinct values (British Square has fewer than 70).
#[derive(Default)]
pub(super) struct Values {
    /// Per state, by local id: the place of its value in `palette`.
    pub(super) codes: Vec<u8>,
    /// The distinct values, when they fit.
    pub(super) palette: Vec<Cell>,
    /// The values themselves, when they do not fit a palette.
    pub(super) plain: Vec<Cell>,
}

thread_local! {
    /// Per possible cell: its palette code + 1, or 0 (reset after use).
    static PALETTE_INDEX: RefCell<Vec<u16>> = RefCell::new(vec![0; 1 << 16]);
    /// The name step's buffers.
    static NAME: RefCell<NameScratch> = RefCell::default();
}

impl Values {
    pub(super) fn new(cells: Vec<Cell>) -> Values {
        PALETTE_INDEX.with(|index| {
            let index = &mut *index.borrow_mut();
            let mut palette: Vec<Cell> = Vec::new();
            let mut codes = Vec::with_capacity(cells.len());
            let mut fits = true;
            for &c in &cells {
                let slot = &mut index[usize::from(c.0)];
                if *slot == 0 {
                    if palette.len() == 256 {
                        fits = false;
                        break;
                    }
                    palette.push(c);
                    *slot = palette.len() as u16;
                }
                codes.push((*slot - 1) as u8);
            }
            for c in &palette {
                index[usize::from(c.0)] = 0;
            }
            if fits {
                Values {
                    codes,
                    palette,
                    plain: Vec::new(),
                }
            } else {
                Values {
                    plain: cells,
                    ..Values::default()
                }
            }
        })
    }

    /// How many states have a value.
    pub(super) fn len(&self) -> usize {
        self.codes.len().max(self.plain.len())
    }

    /// The value of the state of local id `id`.
    #[inline(always)]
    pub(super) fn get(&self, id: u16) -> Cell {
        if self.plain.is_empty() {
            self.palette[usize::from(self.codes[usize::from(id)])]
        } else {
            self.plain[usize::from(id)]
        }
    }
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

/// Generates the children of the states `keys` of one bucket into `out`,
/// class after class, where class `c` starts at `at[c]` (and ends at
/// `at[c + 1]`): [`Bucketed::class_counts`] said how many each class has.
/// Returns each class's kind of edges.
pub(super) fn expand<G: Bucketed + ?Sized>(
    game: &G,
    keys: &[u64],
    at: &[usize],
    out: &mut [u64],
) -> Result<Vec<Option<Kind>>, SolveError> {
    let mut sink = ClassSink::new(out, at);
    for &parent in keys {
        sink.start_state();
        game.class_children(parent, &mut sink);
        let broken = |reason| SolveError::BucketContract {
            state: parent,
            reason,
        };
        let reserved = sink.end_state().map_err(broken)?;
        // Each state's reservation against its class counts (which the
        // backward pass recomputes to find each edge's parent): in debug
        // builds (the tests). Release builds check the bucket's sums
        // below: every class's run filled exactly.
        if cfg!(debug_assertions) && reserved != game.class_counts(parent) {
            return Err(broken("its moves of each class are not its class counts"));
        }
    }
    if !sink.is_full() {
        return Err(SolveError::BucketContract {
            state: keys.first().copied().unwrap_or(0),
            reason: "its bucket's moves of each class are not its class counts",
        });
    }
    Ok((0..at.len() - 1)
        .map(|c| (at[c + 1] > at[c]).then(|| game.class_kind(c)))
        .collect())
}

/// The name step's table: an insert-only hash set of one bucket's states,
/// numbering them in order of insertion. Linear probing, at most half full;
/// a slot holds key + 1 (0 is empty) beside its id. (Lines of 8 slots
/// compared at once were slower here: most probes end at the first slot.)
#[derive(Default)]
pub(super) struct Probe {
    slots: Vec<u64>,
    ids: Vec<u32>,
    /// The states inserted, by id.
    pub(super) keys: Vec<u64>,
    bits: u32,
}

impl Probe {
    /// Empties the table, sized for about `expected` states.
    pub(super) fn reset(&mut self, expected: usize) {
        let bits = expected
            .saturating_mul(2)
            .max(64)
            .next_power_of_two()
            .trailing_zeros();
        self.keys.clear();
        self.set_bits(bits);
    }

    fn set_bits(&mut self, bits: u32) {
        let n = 1usize << bits;
        if self.slots.len() < n {
            self.slots = vec![0; n];
            self.ids = vec![0; n];
        } else {
            self.slots[..n].fill(0);
        }
        self.bits = bits;
    }

    #[inline(always)]
    fn home(&self, key: u64) -> usize {
        (key.wrapping_mul(MUL) >> (64 - self.bits)) as usize
    }

    /// Doubles the table, keeping every id.
    fn grow(&mut self) {
        let keys = std::mem::take(&mut self.keys);
        self.set_bits(self.bits + 1);
        let mask = (1usize << self.bits) - 1;
        for (id, &key) in keys.iter().enumerate() {
            let mut at = self.home(key);
            while self.slots[at] != 0 {
                at = (at + 1) & mask;
            }
            self.slots[at] = key + 1;
            self.ids[at] = id as u32;
        }
        self.keys = keys;
    }

    /// The id of `key`, inserted if new.
    #[inline(always)]
    fn insert(&mut self, key: u64) -> u32 {
        self.make_room(1);
        self.insert_in_room(key)
    }

    /// Grows the table if `n` more keys could leave it over half full.
    #[inline(always)]
    fn make_room(&mut self, n: usize) {
        while (self.keys.len() + n) * 2 > 1 << self.bits {
            self.grow();
        }
    }

    /// [`Probe::insert`] where [`Probe::make_room`] made room for it.
    #[inline(always)]
    fn insert_in_room(&mut self, key: u64) -> u32 {
        let mask = (1usize << self.bits) - 1;
        let mut at = self.home(key);
        let tag = key + 1;
        loop {
            let w = self.slots[at];
            if w == tag {
                return self.ids[at];
            }
            if w == 0 {
                let id = self.keys.len() as u32;
                self.slots[at] = tag;
                self.ids[at] = id;
                self.keys.push(key);
                return id;
            }
            at = (at + 1) & mask;
        }
    }

    /// Inserts every key of `keys`, writing their ids (truncated to 16
    /// bits: the caller checks the size) to `ids`, as long. The home slots of the
    /// keys a few places ahead are fetched early: the probes are independent.
    pub(super) fn insert_all(&mut self, keys: &[u64], ids: &mut [u16]) {
        #[cfg(target_arch = "x86_64")]
        if has_avx512() {
            // SAFETY: the processor has AVX-512 F, DQ and VL (just
            // checked), the features the function is compiled for.
            return unsafe { self.insert_all_avx512(keys, ids) };
        }
        self.insert_all_scalar(keys, ids);
    }

    /// [`Probe::insert_all`] eight keys at a time: most keys are already in
    /// the table at their home slot, so one gather of the 8 home slots and
    /// one of their ids name most of them without a branch; the rest go
    /// through [`Probe::insert`] in order, so the ids are those the scalar
    /// code gives.
    ///
    /// Code not compiled for its features calls it in `unsafe`, knowing
    /// that the processor has AVX-512 F, DQ and VL.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl")]
    fn insert_all_avx512(&mut self, keys: &[u64], ids: &mut [u16]) {
        use std::arch::x86_64::*;
        let n = keys.len().min(ids.len());
        let mut i = 0;
        while i + 8 <= n {
            // No growth inside a batch: the gathered homes stay valid.
            self.make_room(8);
            for &ahead in keys.iter().skip(i + AHEAD).take(8) {
                let h = self.home(ahead);
                prefetch(&self.slots[h]);
                prefetch(&self.ids[h]);
            }
            let batch = &keys[i..i + 8];
            // SAFETY: the unaligned load reads 64 bytes, the 8 `u64`s of
            // `batch`.
            let k = unsafe { _mm512_loadu_si512(batch.as_ptr().cast()) };
            let tag = _mm512_add_epi64(k, _mm512_set1_epi64(1));
            let shift = _mm_cvtsi64_si128(i64::from(64 - self.bits));
            let home =
                _mm512_srl_epi64(_mm512_mullo_epi64(k, _mm512_set1_epi64(MUL as i64)), shift);
            // SAFETY: every home is below 2^bits (the top `bits` bits of a
            // product), and `slots` holds at least 2^bits `u64`s: each lane
            // reads 8 bytes within it.
            let slots = unsafe { _mm512_i64gather_epi64::<8>(home, self.slots.as_ptr().cast()) };
            let hit = _mm512_cmpeq_epi64_mask(slots, tag);
            // SAFETY: every home is below 2^bits, and `ids` holds as many
            // `u32`s as `slots` holds words, at least 2^bits: each lane hit
            // reads 4 bytes within it (lanes not hit read nothing).
            let found = unsafe {
                _mm512_mask_i64gather_epi32::<4>(
                    _mm256_setzero_si256(),
                    hit,
                    home,
                    self.ids.as_ptr().cast(),
                )
            };
            let out = &mut ids[i..i + 8];
            // SAFETY: the unaligned store writes 16 bytes to `out`, a unique
            // slice of 8 `u16`s.
            unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), _mm256_cvtepi32_epi16(found)) };
            let mut miss = !hit;
            while miss != 0 {
                let j = miss.trailing_zeros() as usize;
                miss &= miss - 1;
                out[j] = self.insert_in_room(batch[j]) as u16;
            }
            i += 8;
        }
        self.insert_all_scalar(&keys[i..n], &mut ids[i..n]);
    }

    /// [`Probe::insert_all`] one key at a time, with room made for a run of
    /// keys at once.
    fn insert_all_scalar(&mut self, keys: &[u64], ids: &mut [u16]) {
        const RUN: usize = 64;
        for (r, ids) in ids.chunks_mut(RUN).enumerate() {
            self.make_room(ids.len());
            for (i, id) in (r * RUN..).zip(ids) {
                if let Some(&ahead) = keys.get(i + AHEAD) {
                    let h = self.home(ahead);
                    prefetch(&self.slots[h]);
                    prefetch(&self.ids[h]);
                }
                if let Some(&key) = keys.get(i) {
                    *id = self.insert_in_room(key) as u16;
                }
            }
        }
    }
}

/// Closes a bucket whose states `probe` holds under its same-bucket moves
/// (forced passes), whose children get ids past the others; returns those
/// moves, grouped by parent, and the bucket's moves of each class. Checks
/// each state's key width, and its bucket and layer in debug builds.
pub(super) fn close<G: Bucketed + ?Sized>(
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
struct Named {
    keys: KeysAt,
    same: Vec<SameEdge>,
    moves: [usize; MAX_CLASSES],
}

/// Names the states of `bucket`, the children in `sources`: every distinct
/// one gets a local id, every edge its child's id, written to `ids` (as
/// long as the sources together). Then closes the bucket under its
/// same-bucket moves (checking each state's bucket and layer in debug
/// builds).
fn name<G: Bucketed + ?Sized>(
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

thread_local! {
    /// The score step's buffers: class counts per state, and the state of
    /// each edge of a class.
    static SCORE: RefCell<(Vec<u64>, Vec<u16>)> = RefCell::default();
}

/// Scores the states of bucket `b` (layer `k`), whose children in the next
/// layer are scored.
#[allow(clippy::too_many_arguments)]
fn score<G: Bucketed + ?Sized>(
    game: &G,
    buckets: &[Bucket],
    chunks: &[Vec<u64>],
    ids: &[u16],
    scheme: &BucketScheme,
    visit_at: &[u32],
    b: u32,
    k: usize,
    layout: &RecordLayout,
) -> Result<Values, SolveError> {
    let bucket = &buckets[b as usize];
    let classes = scheme.classes();
    score_states(
        game,
        bucket.keys.get(chunks),
        &bucket.same,
        |c| {
            let Some(&Some(kind)) = bucket.kinds.get(c) else {
                return Ok(None);
            };
            let target = &buckets[scheme.next(b, c) as usize];
            let at = target.ids_at + visit_at[b as usize * classes + c] as usize;
            Ok(Some(ClassEdges {
                ids: ids.get(at..).unwrap_or(&[]),
                target: &target.values,
                kind,
            }))
        },
        classes,
        k,
        layout,
    )
}

/// The moves of one class of a bucket's states, as the backward pass
/// reads them.
pub(super) struct ClassEdges<'a> {
    /// The child ids of the class's moves, state after state (what follows
    /// them is not read).
    pub(super) ids: &'a [u16],
    /// The values of the bucket they lead to.
    pub(super) target: &'a Values,
    /// What each of the moves is.
    pub(super) kind: Kind,
}

/// Scores the states `keys` of a bucket of layer `k`, whose moves of class
/// `c` are `class(c)` (for each of the scheme's `classes`; `None` when
/// there are none, an error when they cannot be read) and whose moves within the bucket are `same`.
pub(super) fn score_states<'a, G: Bucketed + ?Sized>(
    game: &G,
    keys: &[u64],
    same: &[SameEdge],
    class: impl Fn(usize) -> Result<Option<ClassEdges<'a>>, SolveError>,
    classes: usize,
    k: usize,
    layout: &RecordLayout,
) -> Result<Values, SolveError> {
    let n = keys.len();
    let mut best = vec![i64::MIN; n];
    SCORE.with(|scratch| {
        let (packed, parents) = &mut *scratch.borrow_mut();
        packed.clear();
        packed.extend(keys.iter().map(|&key| game.class_counts(key)));
        for c in 0..classes {
            let Some(view) = class(c)? else {
                continue;
            };
            let mut table = [i64::MIN; 256];
            for (t, &v) in table.iter_mut().zip(&view.target.palette) {
                *t = through(view.kind.0, view.kind.1, v);
            }
            // The state of each edge, without a branch per state: write 16
            // copies (no state has more than 15 edges of a class; the
            // rest are overwritten), move on by its count.
            if parents.len() < 16 * n + 16 {
                parents.resize(16 * n + 16, 0);
            }
            let out: &mut [u16] = parents;
            let shift = 4 * c;
            let mut len = 0;
            for (i, &p) in packed.iter().enumerate() {
                out[len..len + 16].copy_from_slice(&[i as u16; 16]);
                len += (p >> shift & 15) as usize;
            }
            if view.ids.len() < len {
                return Err(SolveError::BucketContract {
                    state: keys.first().copied().unwrap_or(0),
                    reason: "its bucket's moves of a class are not its class counts",
                });
            }
            let coded = view.target.plain.is_empty();
            // The best edge of each state, in one pass without branches:
            // the edges of a state are in a row, so a running maximum that
            // starts from the state's best of the classes before, stored
            // after every edge, leaves its best in `best` (the expansion
            // checked the counts, so every state index is in range).
            let mut running = i64::MIN;
            let mut prev = u16::MAX;
            for (&parent, &id) in parents[..len].iter().zip(view.ids) {
                let v = if coded {
                    table[usize::from(view.target.codes[usize::from(id)])]
                } else {
                    through(view.kind.0, view.kind.1, view.target.get(id))
                };
                let slot = &mut best[usize::from(parent)];
                let base = if parent == prev { running } else { *slot };
                running = base.max(v);
                prev = parent;
                *slot = running;
            }
        }
        Ok(())
    })?;
    let mut cells = vec![Cell::UNSET; n];
    let mut waits = vec![false; n];
    for e in same {
        waits[usize::from(e.parent)] = true;
    }
    for ((cell, &best), &wait) in cells.iter_mut().zip(&best).zip(&waits) {
        if !wait {
            *cell = Cell::new(best_value(best), layout)?;
        }
    }
    // The parents of moves within the bucket, in rounds: each scores those
    // whose children are all scored.
    let mut pending: Vec<&[SameEdge]> = same.chunk_by(|a, b| a.parent == b.parent).collect();
    while !pending.is_empty() {
        let mut still = Vec::new();
        for &edges in &pending {
            let parent = usize::from(edges[0].parent);
            let mut b = best[parent];
            let mut ready = true;
            for e in edges {
                let child = cells[usize::from(e.child)];
                if child == Cell::UNSET {
                    ready = false;
                    break;
                }
                b = b.max(through(e.kind.0, e.kind.1, child));
            }
            if ready {
                cells[parent] = Cell::new(best_value(b), layout)?;
            } else {
                still.push(edges);
            }
        }
        if still.len() == pending.len() {
            return Err(SolveError::SameLayerCycle { layer: k });
        }
        pending = still;
    }
    Ok(Values::new(cells))
}

/// Packs every state with its value into a record and sorts the records
/// into `records` (whose old contents are overwritten): scattered by their
/// top 16 key bits into place, then each group sorted alone by a radix sort (the
/// groups are uneven, up to a tenth of the records: canonical keys crowd
/// their top bits).
fn pack_sorted(
    buckets: Vec<Bucket>,
    chunks: Vec<Vec<u64>>,
    order: &[u32],
    mut records: Vec<u64>,
    total: usize,
    layout: &RecordLayout,
    key_bits: u32,
) -> Result<Vec<u64>, SolveError> {
    const TOP: u32 = 16;
    let shift = key_bits.saturating_sub(TOP);
    let groups = 1usize << key_bits.min(TOP);
    let mut at = vec![0usize; groups + 1];
    for &b in order {
        for &key in buckets[b as usize].keys.get(&chunks) {
            at[(key >> shift) as usize + 1] += 1;
        }
    }
    for g in 0..groups {
        at[g + 1] += at[g];
    }
    // Every slot is written below: what `records` held does not matter.
    if total > records.capacity() {
        records.reserve_exact(total - records.len());
        advise_huge_pages(&records);
    }
    records.resize(total, 0);
    let mut next = at.clone();
    for &b in order {
        let bucket = &buckets[b as usize];
        for (id, &key) in bucket.keys.get(&chunks).iter().enumerate() {
            let slot = &mut next[(key >> shift) as usize];
            records[*slot] = layout.pack(key, bucket.values.get(id as u16).value())?;
            *slot += 1;
        }
    }
    drop(buckets);
    drop(chunks);
    let mut parts = Vec::with_capacity(groups);
    let mut rest: &mut [u64] = &mut records;
    for g in 0..groups {
        let (head, tail) = rest.split_at_mut(at[g + 1] - at[g]);
        parts.push(head);
        rest = tail;
    }
    // Sorted, each group's keys must be distinct: a state named in two
    // buckets (a game breaking its bucket contract) is caught here, where
    // the group is in cache.
    let repeated = parts
        .into_par_iter()
        .map_init(Vec::new, |scratch, p| {
            super::radix::sort_in_place(p, scratch);
            p.windows(2)
                .find(|w| layout.key(w[0]) == layout.key(w[1]))
                .map(|w| layout.key(w[0]))
        })
        .find_any(Option::is_some)
        .flatten();
    if let Some(state) = repeated {
        return Err(SolveError::BucketContract {
            state,
            reason: "it was named in two buckets",
        });
    }
    Ok(records)
}

/// An empty buffer of words with [`ARENA_RESERVE`] bytes of address space
/// reserved at once and advised for huge pages: a buffer grown by
/// `realloc` is moved, and its new part is not backed by huge pages
/// (measured on British Square: page faults 64k against 27k for the id
/// arena, 0.05-0.07 s less system time). Pages never touched cost nothing.
/// Where the system refuses so much address space, the buffer grows as
/// needed.
fn reserved_words() -> Vec<u64> {
    let mut words = Vec::new();
    if words.try_reserve_exact(ARENA_RESERVE / 8).is_ok() {
        advise_huge_pages(&words);
    }
    words
}

/// The address space reserved for the id arena and for each key chunk, in
/// bytes (British Square's 5x5 needs 134 MB and 69 MB in all).
const ARENA_RESERVE: usize = 1 << 30;

/// The capacity for a growing buffer of `u64`s that needs `need`: at
/// least 48 MiB, so that the allocator maps it apart and grows it by
/// remapping, never by copying it or by leaving a paged-in old copy in the
/// heap (pages never written cost nothing).
fn grown(need: usize, capacity: usize) -> usize {
    need.max(2 * capacity).max(6 << 20)
}

/// Solves a bucketed game completely. The records are those
/// [`super::solve`] gives.
pub fn solve<G: Bucketed + ?Sized>(
    game: &G,
    progress: &dyn Progress,
) -> Result<Solution, SolveError> {
    let layout = RecordLayout::for_game(game.descriptor());
    if !layout.is_well_formed() {
        return Err(overflow(Value::TERMINAL, &layout));
    }
    let key_bits = game.descriptor().key_bits;
    let scheme = game.bucket_scheme();
    let classes = scheme.classes();
    let layers = game.layer_count();
    // Per bucket: the (bucket, class) pairs that lead to it.
    let mut incoming: Vec<Vec<(u32, usize)>> = vec![Vec::new(); scheme.count()];
    for b in 0..scheme.count() as u32 {
        for c in 0..classes {
            let t = scheme.next(b, c);
            if t != NO_BUCKET {
                incoming[t as usize].push((b, c));
            }
        }
    }
    let mut buckets: Vec<Bucket> = (0..scheme.count()).map(|_| Bucket::default()).collect();
    // Per bucket and class: where its visit starts in the target's ids.
    let mut visit_at = vec![0u32; scheme.count() * classes];
    let mut by_layer: Vec<Vec<u32>> = vec![Vec::new(); layers];

    progress.start_phase("enumerate", layers as u64);
    let start = game.canonical(game.start());
    let first = game.bucket(start);
    if first as usize >= scheme.count() {
        return Err(SolveError::BucketContract {
            state: start,
            reason: "its bucket is out of range",
        });
    }
    let k0 = scheme.layer(first);
    if k0 >= layers {
        return Err(SolveError::LayerRange {
            state: start,
            layer: k0,
            count: layers,
        });
    }
    let shared = share(key_chunks());
    let named = name(
        game,
        &scheme,
        first,
        key_bits,
        &[&[start]],
        &mut [0],
        &shared,
    )?;
    let mut chunks = unshare(shared);
    buckets[first as usize].keys = named.keys;
    buckets[first as usize].same = named.same;
    buckets[first as usize].moves = named.moves;
    by_layer[k0].push(first);
    if classes > MAX_CLASSES {
        return Err(SolveError::BucketContract {
            state: start,
            reason: "its game's scheme has more than 16 classes",
        });
    }
    // Per bucket: where the children of the layer being expanded start, by
    // class (`classes + 1` entries), as an index into `at`.
    let mut row = vec![u32::MAX; scheme.count()];
    // The child ids of every edge, bucket by bucket, 2 bytes each, in an
    // array of words: once the values are known, its memory (already paged
    // in, larger than the records) becomes the records' array. While a
    // layer is expanded, its children (bucket by bucket, class by class)
    // lie past the room for its ids, where later layers' ids will go: the
    // pages are touched once for both (fresh pages cost kernel time).
    let mut arena = reserved_words();
    let mut ids_len = 0usize;
    for k in 0..layers {
        let sources = std::mem::take(&mut by_layer[k]);
        // Where each bucket's children of each class go.
        let counts: Vec<[usize; MAX_CLASSES]> =
            sources.iter().map(|&b| buckets[b as usize].moves).collect();
        let mut at = Vec::with_capacity(sources.len() * (classes + 1) + 1);
        let mut total = 0;
        for (i, (&b, n)) in sources.iter().zip(&counts).enumerate() {
            row[b as usize] = (i * (classes + 1)) as u32;
            for &n in &n[..classes] {
                at.push(total);
                total += n;
            }
            at.push(total);
        }
        // The layer's ids (one per child) then its children. Every slot is
        // written before it is read: no clearing, only growing.
        let ids_end = ids_len + total;
        let children_at = ids_end.div_ceil(4);
        let need = children_at + total;
        if need > arena.len() {
            if need > arena.capacity() {
                arena.reserve(grown(need, arena.capacity()) - arena.len());
                advise_huge_pages(&arena);
            }
            arena.resize(need, 0);
        }
        let (id_words, children) = arena.split_at_mut(children_at);
        let children = &mut children[..total];
        let mut outs = Vec::with_capacity(sources.len());
        let mut rest: &mut [u64] = children;
        for i in 0..sources.len() {
            let row = &at[i * (classes + 1)..(i + 1) * (classes + 1)];
            let (head, tail) = rest.split_at_mut(row[classes] - row[0]);
            outs.push(head);
            rest = tail;
        }
        let kinds: Vec<Vec<Option<Kind>>> = sources
            .par_iter()
            .zip(outs)
            .enumerate()
            .map(|(i, (&b, out))| {
                let row = &at[i * (classes + 1)..(i + 1) * (classes + 1)];
                let local: Vec<usize> = row.iter().map(|&a| a - row[0]).collect();
                expand(game, buckets[b as usize].keys.get(&chunks), &local, out)
            })
            .collect::<Result<_, _>>()?;
        let children: &[u64] = children;
        // The children of bucket `b`'s class `c`.
        let class = |b: u32, c: usize| -> &[u64] {
            let r = row[b as usize];
            if r == u32::MAX {
                return &[];
            }
            let i = r as usize + c;
            &children[at[i]..at[i + 1]]
        };
        let mut targets = Vec::new();
        for &b in &sources {
            for c in 0..classes {
                if let Some(&child) = class(b, c).first() {
                    let t = scheme.next(b, c);
                    if t == NO_BUCKET {
                        return Err(SolveError::BucketContract {
                            state: child,
                            reason: "its move's class leads nowhere from its parent's bucket",
                        });
                    }
                    if scheme.layer(t) != k + 1 {
                        return Err(SolveError::BucketContract {
                            state: child,
                            reason: "its move's class leads to a bucket not in the next layer",
                        });
                    }
                    targets.push(t);
                }
            }
        }
        targets.sort_unstable();
        targets.dedup();
        // The visits into each target, in a fixed order.
        let visits: Vec<Vec<(u32, usize)>> = targets
            .iter()
            .map(|&t| {
                incoming[t as usize]
                    .iter()
                    .copied()
                    .filter(|&(b, c)| !class(b, c).is_empty())
                    .collect()
            })
            .collect();
        // Each target's share of the arena.
        let mut starts = Vec::with_capacity(targets.len());
        let mut end = ids_len;
        for (&t, visits) in targets.iter().zip(&visits) {
            starts.push(end);
            let mut offset = 0usize;
            for &(b, c) in visits {
                visit_at[b as usize * classes + c] = offset as u32;
                offset += class(b, c).len();
            }
            buckets[t as usize].ids_at = end;
            end += offset;
        }
        if end != ids_end {
            // Every child is in one visit of one target.
            return Err(SolveError::BucketContract {
                state: start,
                reason: "its game's classes lead to buckets that do not take them",
            });
        }
        let mut outs = Vec::with_capacity(targets.len());
        let mut rest = &mut bytemuck::cast_slice_mut::<u64, u16>(id_words)[ids_len..end];
        for (i, &at) in starts.iter().enumerate() {
            let next = starts.get(i + 1).copied().unwrap_or(end);
            let (head, tail) = rest.split_at_mut(next - at);
            outs.push(head);
            rest = tail;
        }
        ids_len = end;
        let shared = share(std::mem::take(&mut chunks));
        let named: Vec<Named> = targets
            .par_iter()
            .zip(&visits)
            .zip(outs)
            .map(|((&t, visits), ids)| {
                let slices: Vec<&[u64]> = visits.iter().map(|&(b, c)| class(b, c)).collect();
                name(game, &scheme, t, key_bits, &slices, ids, &shared)
            })
            .collect::<Result<_, _>>()?;
        chunks = unshare(shared);
        for (&t, named) in targets.iter().zip(named) {
            let bucket = &mut buckets[t as usize];
            bucket.keys = named.keys;
            bucket.same = named.same;
            bucket.moves = named.moves;
        }
        for (&b, kinds) in sources.iter().zip(kinds) {
            row[b as usize] = u32::MAX;
            buckets[b as usize].kinds = kinds;
        }
        by_layer[k] = sources;
        if k + 1 < layers {
            by_layer[k + 1] = targets;
        }
        progress.advance(1);
    }
    arena.truncate(ids_len.div_ceil(4));
    progress.finish_phase();

    progress.start_phase("solve", layers as u64);
    let ids: &[u16] = &bytemuck::cast_slice(&arena)[..ids_len];
    for k in (0..layers).rev() {
        let scored: Vec<Values> = by_layer[k]
            .par_iter()
            .map(|&b| {
                score(
                    game, &buckets, &chunks, ids, &scheme, &visit_at, b, k, &layout,
                )
            })
            .collect::<Result<_, _>>()?;
        for (&b, values) in by_layer[k].iter().zip(scored) {
            buckets[b as usize].values = values;
        }
        progress.advance(1);
    }
    progress.finish_phase();

    progress.start_phase("sort", 1);
    let layer_sizes: Vec<usize> = by_layer
        .iter()
        .map(|bs| bs.iter().map(|&b| buckets[b as usize].keys.len()).sum())
        .collect();
    let total = layer_sizes.iter().sum();
    let order: Vec<u32> = by_layer.into_iter().flatten().collect();
    let records = pack_sorted(buckets, chunks, &order, arena, total, &layout, key_bits)?;
    progress.advance(1);
    progress.finish_phase();
    Ok(Solution {
        records,
        layout,
        start,
        layer_sizes,
        complete: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::NoProgress;
    use crate::core::{Game, GameDescriptor, Move, Player, PositionError};
    use crate::games::british_square::BritishSquare;

    #[test]
    fn the_vector_probe_names_as_the_scalar_one() {
        #[cfg(target_arch = "x86_64")]
        if has_avx512() {
            let mut seed = 0x9E37_79B9_7F4A_7C15u64;
            for (distinct, n, expected) in
                [(50u64, 400usize, 10usize), (3000, 20_000, 100), (7, 13, 1)]
            {
                let keys: Vec<u64> = (0..n)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        (seed % distinct).wrapping_mul(0x0123_4567_89AB) >> 13
                    })
                    .collect();
                let (mut a, mut b) = (Probe::default(), Probe::default());
                // Too small at first: both grow on the way.
                a.reset(expected);
                b.reset(expected);
                let (mut ia, mut ib) = (vec![0u16; n], vec![0u16; n]);
                a.insert_all_scalar(&keys, &mut ia);
                // SAFETY: the processor has AVX-512 F, DQ and VL (checked
                // above), the features the function is compiled for.
                unsafe { b.insert_all_avx512(&keys, &mut ib) };
                assert_eq!(ia, ib);
                assert_eq!(a.keys, b.keys);
                for (&k, &id) in keys.iter().zip(&ia) {
                    assert_eq!(a.keys[usize::from(id)], k);
                }
            }
        }
    }

    #[test]
    fn gives_the_plain_solvers_records() {
        for variant in ["3x3", "4x4", "4x4,center-allowed", "5x5", "center-allowed"] {
            let g = BritishSquare::from_variant(variant).unwrap();
            let plain = super::super::solve(&g, &NoProgress).unwrap();
            let bucketed = solve(&g, &NoProgress).unwrap();
            assert_eq!(bucketed.layer_sizes, plain.layer_sizes, "{variant}");
            assert_eq!(bucketed.start, plain.start, "{variant}");
            assert!(
                bucketed.records == plain.records,
                "{variant}: records differ"
            );
        }
    }

    /// How [`Broken`] breaks the bucket contract.
    #[derive(Clone, Copy, Debug)]
    enum Lie {
        /// States with a piece on cell 4 claim another bucket.
        Bucket,
        /// States with a piece on cell 4 claim one move too many.
        Counts,
        /// Moves to cell 3 claim the class of the centre.
        Class,
        /// Moves to cell 3 have another reward.
        Kind,
    }

    /// 4x4 British Square with one lie.
    struct Broken(BritishSquare, Lie);

    impl Game for Broken {
        fn descriptor(&self) -> &GameDescriptor {
            self.0.descriptor()
        }
        fn start(&self) -> u64 {
            self.0.start()
        }
        fn layer_count(&self) -> usize {
            self.0.layer_count()
        }
        fn layer(&self, s: u64) -> usize {
            self.0.layer(s)
        }
        fn to_move(&self, s: u64) -> Player {
            self.0.to_move(s)
        }
        fn symmetry_count(&self) -> usize {
            self.0.symmetry_count()
        }
        fn transform(&self, s: u64, sym: usize) -> u64 {
            self.0.transform(s, sym)
        }
        fn transform_move(&self, mv: Move, sym: usize) -> Move {
            self.0.transform_move(mv, sym)
        }
        fn canonical(&self, s: u64) -> u64 {
            self.0.canonical(s)
        }
        fn moves(&self, s: u64, out: &mut Vec<Edge>) {
            self.0.moves(s, out)
        }
        fn canonical_children(&self, s: u64, out: &mut Vec<Edge>) {
            self.0.canonical_children(s, out);
            if let Lie::Kind = self.1 {
                for e in out.iter_mut().filter(|e| e.mv == Move(3)) {
                    e.reward = 2;
                }
            }
        }
        fn is_valid_key(&self, key: u64) -> bool {
            self.0.is_valid_key(key)
        }
        fn parse_position(&self, text: &str) -> Result<u64, PositionError> {
            self.0.parse_position(text)
        }
        fn format_position(&self, s: u64) -> String {
            self.0.format_position(s)
        }
        fn format_move(&self, mv: Move) -> String {
            self.0.format_move(mv)
        }
        fn parse_move(&self, s: u64, text: &str) -> Result<Move, PositionError> {
            self.0.parse_move(s, text)
        }
        fn player_name(&self, player: Player) -> &'static str {
            self.0.player_name(player)
        }
        fn score(&self, s: u64, net: i32) -> i32 {
            self.0.score(s, net)
        }
    }

    impl Bucketed for Broken {
        fn bucket_scheme(&self) -> BucketScheme {
            self.0.bucket_scheme()
        }
        fn bucket(&self, s: u64) -> u32 {
            let b = self.0.bucket(s);
            let on_4 = (s | s >> 16) & 1 << 4 != 0;
            match self.1 {
                Lie::Bucket if on_4 => b ^ 1,
                _ => b,
            }
        }
        fn move_class(&self, mv: Move) -> Option<usize> {
            match self.1 {
                Lie::Class if mv == Move(3) => self.0.move_class(Move(5)),
                _ => self.0.move_class(mv),
            }
        }
        fn class_counts(&self, s: u64) -> u64 {
            let c = self.0.class_counts(s);
            let on_4 = (s | s >> 16) & 1 << 4 != 0;
            match self.1 {
                Lie::Counts if on_4 && c != 0 => c + 1,
                _ => c,
            }
        }
        fn same_bucket_children(&self, s: u64, out: &mut Vec<Edge>) {
            self.0.same_bucket_children(s, out)
        }
        fn class_kind(&self, class: usize) -> (i8, bool) {
            self.0.class_kind(class)
        }
    }

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

    #[test]
    fn a_game_that_breaks_its_bucket_scheme_gets_an_error() {
        let honest = solve(&BritishSquare::from_variant("4x4").unwrap(), &NoProgress)
            .expect("solves")
            .records;
        // In one process and on ranks (here one).
        let lies = [Lie::Bucket, Lie::Counts, Lie::Class, Lie::Kind];
        for (lie, on_ranks) in lies.into_iter().flat_map(|l| [(l, false), (l, true)]) {
            let g = Broken(BritishSquare::from_variant("4x4").unwrap(), lie);
            let solved = if on_ranks {
                crate::solve::threads::on_threads(1, |ex| {
                    crate::solve::ranks_bucketed::solve(&g, ex, &NoProgress).map(|s| s.records)
                })
                .remove(0)
            } else {
                solve(&g, &NoProgress).map(|s| s.records)
            };
            match solved {
                Err(SolveError::BucketContract { .. }) => {}
                // Release builds check each state's bucket only through
                // its consequences: a bucket the solver never uses changes
                // nothing.
                Ok(records) if !cfg!(debug_assertions) && matches!(lie, Lie::Bucket) => {
                    assert_eq!(records, honest, "{lie:?}");
                }
                other => panic!("{lie:?}, on ranks {on_ranks}: {:?}", other.map(|r| r.len())),
            }
        }
        // The honest game solves.
        let g = Broken(BritishSquare::from_variant("4x4").unwrap(), Lie::Bucket);
        assert!(super::super::solve(&g, &NoProgress).is_ok());
    }
}
