//! The dense solver's kernel for Dots and Boxes: 32 keys per vector.
//!
//! The keys of one vector differ in their low 5 bits (edges 0 to 4), one
//! lane per key. A move along edge 5 or above leads to a whole vector that is
//! already finished (higher in the block, or in a block above), so it costs
//! a load and a few byte operations for 32 keys at once. A move along edges 0
//! to 4 leads to another lane of the same vector: those lanes are finished in
//! rounds, by their number of drawn lane edges, most first, each round
//! reading the lanes the previous one finished through a byte rotation.
//!
//! The kernel is written once over [`Ops`], with a portable implementation
//! (arrays, whatever the compiler makes of them) and an AVX2 one.

use super::lanes::{Simd, LANES, LANE_MASK, LANE_PATTERN};
use super::DotsAndBoxes;
use crate::core::{Progress, Solved};
use crate::games::solvers::Solvers;
use crate::solve::dense::{
    self, solve_block_generic, Block, DenseGame, DenseOutput, DenseRankSummary,
};
use crate::solve::ranks::{Exchange, RankSolution};
use crate::solve::SolveError;

/// The dense solver, over the table of every edge set, on one process or
/// on ranks (its own: the layered solver's ranks do not run).
impl Solvers for DotsAndBoxes {
    fn run_solver(&self, progress: &dyn Progress) -> Result<Solved, SolveError> {
        dense::solve_dense(self, progress).map(Solved::from)
    }

    fn run_solver_on_ranks(
        &self,
        _ex: &dyn Exchange,
        _progress: &dyn Progress,
    ) -> Option<Result<RankSolution, SolveError>> {
        None
    }

    fn run_dense_solver_on_ranks(
        &self,
        ex: &dyn Exchange,
        progress: &dyn Progress,
        output: Option<&mut dyn DenseOutput>,
    ) -> Option<Result<DenseRankSummary, SolveError>> {
        Some(dense::solve_dense_on_ranks(self, ex, progress, output))
    }
}

/// Key bits that vary across a vector.
const LANE_BITS: usize = 5;
/// `ROUND[p][e][j]` is -1 (all bits) when lane `j` has `p` bits set and bit
/// `e` clear: in round `p` it takes the move along edge `e`, into lane
/// `j | 1 << e`, finished in round `p + 1`.
const ROUND: [[[i8; LANES]; LANE_BITS]; LANE_BITS] = {
    let mut t = [[[0i8; LANES]; LANE_BITS]; LANE_BITS];
    let mut p = 0;
    while p < LANE_BITS {
        let mut e = 0;
        while e < LANE_BITS {
            let mut j = 0;
            while j < LANES {
                if (j as u32).count_ones() == p as u32 && j >> e & 1 == 0 {
                    t[p][e][j] = -1;
                }
                j += 1;
            }
            e += 1;
        }
        p += 1;
    }
    t
};

/// Only the last lane (every lane edge drawn).
const LAST_LANE: [i8; LANES] = {
    let mut t = [0i8; LANES];
    t[LANES - 1] = -1;
    t
};

/// The byte-vector operations the kernel needs. Values are small (at most
/// 16 boxes either way), so nothing overflows; arithmetic wraps anyway, as
/// the vector instructions do.
trait Ops: Copy {
    /// 32 signed bytes.
    type V: Copy;
    fn splat(self, x: i8) -> Self::V;
    fn load(self, s: &[i8; LANES]) -> Self::V;
    fn store(self, v: Self::V, s: &mut [i8; LANES]);
    fn add(self, a: Self::V, b: Self::V) -> Self::V;
    fn max(self, a: Self::V, b: Self::V) -> Self::V;
    /// The value of a move for its mover, lane by lane: `r + c` when it
    /// closes `r > 0` boxes (the mover moves again), else `-c`.
    fn through(self, r: Self::V, c: Self::V) -> Self::V;
    /// `-c`: the move closes nothing in any lane.
    fn neg(self, c: Self::V) -> Self::V;
    /// Lane `j` of the result is lane `(j + K) mod 32` of `a`.
    fn rotate<const K: i32>(self, a: Self::V) -> Self::V;
    /// Lane by lane: `b` where `mask` is -1, `a` where it is 0.
    fn blend(self, mask: Self::V, a: Self::V, b: Self::V) -> Self::V;
}

/// Plain arrays.
#[derive(Clone, Copy)]
struct Portable;

impl Ops for Portable {
    type V = [i8; LANES];
    #[inline(always)]
    fn splat(self, x: i8) -> Self::V {
        [x; LANES]
    }
    #[inline(always)]
    fn load(self, s: &[i8; LANES]) -> Self::V {
        *s
    }
    #[inline(always)]
    fn store(self, v: Self::V, s: &mut [i8; LANES]) {
        *s = v;
    }
    #[inline(always)]
    fn add(self, a: Self::V, b: Self::V) -> Self::V {
        std::array::from_fn(|j| a[j].wrapping_add(b[j]))
    }
    #[inline(always)]
    fn max(self, a: Self::V, b: Self::V) -> Self::V {
        std::array::from_fn(|j| a[j].max(b[j]))
    }
    #[inline(always)]
    fn through(self, r: Self::V, c: Self::V) -> Self::V {
        std::array::from_fn(|j| {
            if r[j] > 0 {
                r[j].wrapping_add(c[j])
            } else {
                c[j].wrapping_neg()
            }
        })
    }
    #[inline(always)]
    fn neg(self, c: Self::V) -> Self::V {
        std::array::from_fn(|j| c[j].wrapping_neg())
    }
    #[inline(always)]
    fn rotate<const K: i32>(self, a: Self::V) -> Self::V {
        std::array::from_fn(|j| a[(j + K as usize) % LANES])
    }
    #[inline(always)]
    fn blend(self, mask: Self::V, a: Self::V, b: Self::V) -> Self::V {
        std::array::from_fn(|j| if mask[j] != 0 { b[j] } else { a[j] })
    }
}

/// AVX2. Only [`Simd::detect`] makes one, after checking the processor.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Avx2(());

#[cfg(target_arch = "x86_64")]
mod avx2 {
    //! Every operation below is an AVX2 intrinsic behind an `Avx2` value,
    //! which exists only on a processor with AVX2 (see `Simd::detect`):
    //! each `unsafe` block says what else it relies on.
    use super::{Avx2, Ops, LANES};
    use std::arch::x86_64::*;

    impl Ops for Avx2 {
        type V = __m256i;
        #[inline(always)]
        fn splat(self, x: i8) -> __m256i {
            // SAFETY: `self` proves the processor has AVX2; the intrinsic
            // reads only its argument.
            unsafe { _mm256_set1_epi8(x) }
        }
        #[inline(always)]
        fn load(self, s: &[i8; LANES]) -> __m256i {
            // SAFETY: `self` proves the processor has AVX2, and the
            // unaligned load reads 32 bytes from `s`, a reference to exactly
            // 32 bytes.
            unsafe { _mm256_loadu_si256(s.as_ptr().cast()) }
        }
        #[inline(always)]
        fn store(self, v: __m256i, s: &mut [i8; LANES]) {
            // SAFETY: `self` proves the processor has AVX2, and the
            // unaligned store writes 32 bytes to `s`, a unique reference to
            // exactly 32 bytes.
            unsafe { _mm256_storeu_si256(s.as_mut_ptr().cast(), v) }
        }
        #[inline(always)]
        fn add(self, a: __m256i, b: __m256i) -> __m256i {
            // SAFETY: `self` proves the processor has AVX2; the intrinsic
            // reads only its arguments.
            unsafe { _mm256_add_epi8(a, b) }
        }
        #[inline(always)]
        fn max(self, a: __m256i, b: __m256i) -> __m256i {
            // SAFETY: `self` proves the processor has AVX2; the intrinsic
            // reads only its arguments.
            unsafe { _mm256_max_epi8(a, b) }
        }
        #[inline(always)]
        fn through(self, r: __m256i, c: __m256i) -> __m256i {
            // SAFETY: `self` proves the processor has AVX2; the intrinsics
            // read only their arguments.
            unsafe {
                let zero = _mm256_setzero_si256();
                let closes = _mm256_cmpgt_epi8(r, zero);
                _mm256_blendv_epi8(_mm256_sub_epi8(zero, c), _mm256_add_epi8(r, c), closes)
            }
        }
        #[inline(always)]
        fn neg(self, c: __m256i) -> __m256i {
            // SAFETY: `self` proves the processor has AVX2; the intrinsics
            // read only their arguments.
            unsafe { _mm256_sub_epi8(_mm256_setzero_si256(), c) }
        }
        #[inline(always)]
        fn rotate<const K: i32>(self, a: __m256i) -> __m256i {
            // SAFETY: `self` proves the processor has AVX2; the intrinsics
            // read only their arguments.
            unsafe {
                // The halves swapped; then each half shifted by K bytes,
                // filled from the other half.
                let swapped = _mm256_permute2x128_si256::<0x01>(a, a);
                if K == 16 {
                    swapped
                } else {
                    _mm256_alignr_epi8::<K>(swapped, a)
                }
            }
        }
        #[inline(always)]
        fn blend(self, mask: __m256i, a: __m256i, b: __m256i) -> __m256i {
            // SAFETY: `self` proves the processor has AVX2; the intrinsic
            // reads only its arguments.
            unsafe { _mm256_blendv_epi8(a, b, mask) }
        }
    }
}

/// The 32 values of vector `w` of a block.
#[inline(always)]
fn vector(values: &[i8], w: usize) -> &[i8; LANES] {
    let v: &[i8] = &values[w * LANES..(w + 1) * LANES];
    v.try_into().unwrap_or(&[0; LANES])
}

impl DotsAndBoxes {
    /// The number of boxes edge `e` closes in each lane of the vector whose
    /// keys are `hi | j`, or `None` when it closes none in any lane.
    #[inline(always)]
    fn reward_lanes<O: Ops>(&self, o: O, e: usize, hi: u64) -> Option<O::V> {
        let mut r: Option<O::V> = None;
        for &(m_hi, lo) in &self.others[e] {
            if hi & m_hi == m_hi {
                let p = o.load(&LANE_PATTERN[lo]);
                r = Some(match r {
                    Some(q) => o.add(q, p),
                    None => p,
                });
            }
        }
        r
    }

    /// Fills a block, 32 keys at a time, from the top down.
    #[inline(always)]
    fn kernel<O: Ops>(&self, o: O, block: &mut Block<'_>) {
        let n = self.edges as usize;
        let bits = block.bits as usize;
        let base = block.high << block.bits;
        let full = (1u64 << n) - 1;
        let vectors = block.values.len() / LANES;
        let masks: [[O::V; LANE_BITS]; LANE_BITS] =
            std::array::from_fn(|p| std::array::from_fn(|e| o.load(&ROUND[p][e])));
        for w in (0..vectors).rev() {
            let hi = base | (w as u64) << LANE_BITS;
            let mut acc = o.splat(i8::MIN);
            for e in LANE_BITS..n {
                if hi >> e & 1 != 0 {
                    continue;
                }
                let child = if e < bits {
                    o.load(vector(block.values, w + (1 << (e - LANE_BITS))))
                } else {
                    match block.above.get(e - bits) {
                        Some(Some(up)) => o.load(vector(up, w)),
                        // Bit e is clear in `hi`, so the block exists.
                        _ => o.splat(0),
                    }
                };
                let v = match self.reward_lanes(o, e, hi) {
                    Some(r) => o.through(r, child),
                    None => o.neg(child),
                };
                acc = o.max(acc, v);
            }
            if hi | LANE_MASK == full {
                // The last lane is the end of the game: worth nothing.
                acc = o.blend(o.load(&LAST_LANE), acc, o.splat(0));
            }
            let r: [Option<O::V>; LANE_BITS] = std::array::from_fn(|e| self.reward_lanes(o, e, hi));
            for p in (0..LANE_BITS).rev() {
                acc = lane_move::<O, 1>(o, acc, masks[p][0], r[0]);
                acc = lane_move::<O, 2>(o, acc, masks[p][1], r[1]);
                acc = lane_move::<O, 4>(o, acc, masks[p][2], r[2]);
                acc = lane_move::<O, 8>(o, acc, masks[p][3], r[3]);
                acc = lane_move::<O, 16>(o, acc, masks[p][4], r[4]);
            }
            let out: &mut [i8] = &mut block.values[w * LANES..(w + 1) * LANES];
            if let Ok(out) = <&mut [i8; LANES]>::try_from(out) {
                o.store(acc, out);
            }
        }
    }

    /// [`DotsAndBoxes::kernel`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn kernel_avx2(&self, o: Avx2, block: &mut Block<'_>) {
        self.kernel(o, block)
    }

    /// The portable kernel, for tests that compare it with the others.
    #[doc(hidden)]
    #[cfg(test)]
    pub(crate) fn solve_block_portable(&self, block: &mut Block<'_>) -> Result<(), SolveError> {
        if !self.fits_kernel(block) {
            return solve_block_generic(self, block);
        }
        self.kernel(Portable, block);
        Ok(())
    }

    fn fits_kernel(&self, block: &Block<'_>) -> bool {
        block.bits as usize >= LANE_BITS && block.bits + block.above.len() as u32 == self.edges
    }
}

/// A move along lane edge `2^K`: the lanes of `mask` take it, into the lane
/// `K` above, finished in the previous round.
#[inline(always)]
fn lane_move<O: Ops, const K: i32>(o: O, acc: O::V, mask: O::V, reward: Option<O::V>) -> O::V {
    let child = o.rotate::<K>(acc);
    let v = match reward {
        Some(r) => o.through(r, child),
        None => o.neg(child),
    };
    o.blend(mask, acc, o.max(acc, v))
}

impl DenseGame for DotsAndBoxes {
    fn solve_block(&self, block: &mut Block<'_>) -> Result<(), SolveError> {
        if !self.fits_kernel(block) {
            return solve_block_generic(self, block);
        }
        match self.simd {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Simd::Avx2` is only detected on processors with AVX2.
            Simd::Avx2 => unsafe { self.kernel_avx2(Avx2(()), block) },
            _ => self.kernel(Portable, block),
        }
        Ok(())
    }
}
