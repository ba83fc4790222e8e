//! British Square's child kernels: the canonical children of a state
//! computed together from the parent's 8 symmetric images, with AVX-512,
//! AVX2 or portable code (the same children whichever runs).

#[cfg(target_arch = "x86_64")]
use super::simd::Simd;
use super::BritishSquare;
use crate::core::{Edge, Game, Move, Player};

impl BritishSquare {
    /// [`BritishSquare::children_in`] with AVX2: the 8 images of the parent
    /// in two vectors, each child's 8 candidates two ORs away and their
    /// minimum a few vector steps; no branch per child. Gives exactly what
    /// the portable code gives.
    ///
    /// Code not compiled for its features calls it in `unsafe`, knowing
    /// that the processor has AVX2, POPCNT and BMI1 (`self.simd`).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,popcnt,bmi1")]
    fn children_in_avx2<R: Emit>(&self, s: u64, cells: u64, sink: &mut R) {
        use crate::games::square::{TWO_PLANES_3, TWO_PLANES_4, TWO_PLANES_5};
        // The board sizes get their swaps as constants.
        match self.n {
            5 => self.children_avx2(&TWO_PLANES_5, s, cells, sink),
            4 => self.children_avx2(&TWO_PLANES_4, s, cells, sink),
            _ => self.children_avx2(&TWO_PLANES_3, s, cells, sink),
        }
    }

    /// See [`BritishSquare::children_in_avx2`]. Lanes 0..4 of `lo`
    /// hold images 0..4 (mirror in bit 0 of the lane, flip in bit 1), `hi`
    /// their transposes, images 4..8. Keys have at most 51 bits, so signed
    /// comparisons order them.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,popcnt,bmi1")]
    #[inline]
    fn children_avx2<const H: usize, const T: usize, R: Emit>(
        &self,
        swaps: &crate::games::square::SquareSwaps<H, T>,
        s: u64,
        cells: u64,
        sink: &mut R,
    ) {
        use std::arch::x86_64::*;
        // A delta swap in every lane: t = ((x >> s) ^ x) & mask;
        // x ^= t ^ (t << s).
        macro_rules! swap {
            ($v:expr, $mask:expr, $shift:expr) => {{
                let count = _mm_cvtsi32_si128($shift as i32);
                let t = _mm256_and_si256(_mm256_xor_si256(_mm256_srl_epi64($v, count), $v), $mask);
                _mm256_xor_si256($v, _mm256_xor_si256(t, _mm256_sll_epi64(t, count)))
            }};
        }
        macro_rules! min {
            ($a:expr, $b:expr) => {{
                let (a, b) = ($a, $b);
                _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b))
            }};
        }
        // The smallest of the 8 lanes of `lo` and `hi`.
        macro_rules! min_all {
            ($lo:expr, $hi:expr) => {{
                let m = min!($lo, $hi);
                let m = min!(m, _mm256_permute4x64_epi64::<0b0100_1110>(m));
                let m = min!(m, _mm256_shuffle_epi32::<0b0100_1110>(m));
                _mm_cvtsi128_si64(_mm256_castsi256_si128(m)) as u64
            }};
        }
        let me = self.to_move(s);
        let side = s & self.side_bit();
        let boards = s & !self.side_bit();
        let mut lo = _mm256_set1_epi64x(boards as i64);
        for &(m, shift) in &swaps.mirror {
            lo = swap!(lo, _mm256_setr_epi64x(0, m as i64, 0, m as i64), shift);
        }
        for &(m, shift) in &swaps.flip {
            lo = swap!(lo, _mm256_setr_epi64x(0, 0, m as i64, m as i64), shift);
        }
        let mut hi = lo;
        for &(m, shift) in &swaps.transpose {
            hi = swap!(hi, _mm256_set1_epi64x(m as i64), shift);
        }
        let offset = if me == Player::Second { self.cells } else { 0 };
        let child_side = side ^ self.side_bit();
        let mut legal = cells;
        while legal != 0 {
            let cell = legal.trailing_zeros();
            legal &= legal - 1;
            let bits = self.sym.bit_images(cell + offset);
            // SAFETY: the unaligned load reads 32 bytes, the first four of
            // the 8 `u64`s of `bits`.
            let b_lo = unsafe { _mm256_loadu_si256(bits.as_ptr().cast()) };
            // SAFETY: the unaligned load reads 32 bytes, `bits[4..]`, the
            // last four of its 8 `u64`s.
            let b_hi = unsafe { _mm256_loadu_si256(bits[4..].as_ptr().cast()) };
            let child = min_all!(_mm256_or_si256(lo, b_lo), _mm256_or_si256(hi, b_hi));
            sink.emit(cell, child | child_side);
        }
    }
}

impl BritishSquare {
    /// [`BritishSquare::children_in`] with AVX-512: the 8 images of the
    /// parent in one vector, each child's candidates one OR away and their
    /// minimum one reduction. Gives exactly what the portable code gives.
    ///
    /// Code not compiled for its features calls it in `unsafe`, knowing
    /// that the processor has AVX-512F, AVX2, POPCNT and BMI1
    /// (`self.simd == Simd::Avx512`).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx2,popcnt,bmi1")]
    fn children_in_avx512<R: Emit>(&self, s: u64, cells: u64, sink: &mut R) {
        use crate::games::square::{TWO_PLANES_3, TWO_PLANES_4, TWO_PLANES_5};
        match self.n {
            5 => self.children_avx512(&TWO_PLANES_5, s, cells, sink),
            4 => self.children_avx512(&TWO_PLANES_4, s, cells, sink),
            _ => self.children_avx512(&TWO_PLANES_3, s, cells, sink),
        }
    }

    /// See [`BritishSquare::children_in_avx512`]. Lane `i` holds
    /// image `i`: mirrored if bit 0 of `i` is set, flipped if bit 1,
    /// then transposed if bit 2, as [`crate::games::square::SquareSymmetry`] numbers them.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx2,popcnt,bmi1")]
    #[inline]
    fn children_avx512<const H: usize, const T: usize, R: Emit>(
        &self,
        swaps: &crate::games::square::SquareSwaps<H, T>,
        s: u64,
        cells: u64,
        sink: &mut R,
    ) {
        use std::arch::x86_64::*;
        // A delta swap in the lanes of `$mask`: t = ((x >> s) ^ x) & mask;
        // x ^= t ^ (t << s), two three-input logic steps.
        macro_rules! swap {
            ($v:expr, $mask:expr, $shift:expr) => {{
                let count = _mm_cvtsi32_si128($shift as i32);
                let v = $v;
                // 0x28: (a ^ b) & c.
                let t = _mm512_ternarylogic_epi64::<0x28>(_mm512_srl_epi64(v, count), v, $mask);
                // 0x96: a ^ b ^ c.
                _mm512_ternarylogic_epi64::<0x96>(v, t, _mm512_sll_epi64(t, count))
            }};
        }
        let me = self.to_move(s);
        let side = s & self.side_bit();
        let boards = s & !self.side_bit();
        let mut v = _mm512_set1_epi64(boards as i64);
        for &(m, shift) in &swaps.mirror {
            let m = m as i64;
            v = swap!(v, _mm512_setr_epi64(0, m, 0, m, 0, m, 0, m), shift);
        }
        for &(m, shift) in &swaps.flip {
            let m = m as i64;
            v = swap!(v, _mm512_setr_epi64(0, 0, m, m, 0, 0, m, m), shift);
        }
        for &(m, shift) in &swaps.transpose {
            let m = m as i64;
            v = swap!(v, _mm512_setr_epi64(0, 0, 0, 0, m, m, m, m), shift);
        }
        let offset = if me == Player::Second { self.cells } else { 0 };
        let child_side = side ^ self.side_bit();
        let mut legal = cells;
        while legal != 0 {
            let cell = legal.trailing_zeros();
            legal &= legal - 1;
            let bits = self.sym.bit_images(cell + offset);
            // SAFETY: the unaligned load reads 64 bytes, the 8 `u64`s of
            // `bits`.
            let b = unsafe { _mm512_loadu_si512(bits.as_ptr().cast()) };
            sink.emit(
                cell,
                _mm512_reduce_min_epu64(_mm512_or_si512(v, b)) | child_side,
            );
        }
    }
}

impl BritishSquare {
    /// Appends the canonical children of placing a piece of the side to
    /// move on each cell of `cells`, in increasing cell order; `cells` must
    /// be legal cells of `s`.
    #[inline]
    pub(crate) fn children_in(&self, s: u64, cells: u64, out: &mut Vec<Edge>) {
        out.reserve(cells.count_ones() as usize);
        self.children_of(s, cells, out);
    }

    /// The canonical children of placing a piece of the side to move on
    /// each cell of `cells` (legal cells of `s`), in increasing cell
    /// order, given to `sink`.
    #[inline]
    pub(super) fn children_of<R: Emit>(&self, s: u64, cells: u64, sink: &mut R) {
        #[cfg(target_arch = "x86_64")]
        match self.simd {
            // SAFETY: `simd` is `Avx512` only on a processor with AVX-512F,
            // AVX2, POPCNT and BMI1 (`simd_available`; tests lower it, never
            // raise it), the features the kernel is compiled for.
            Simd::Avx512 => return unsafe { self.children_in_avx512(s, cells, sink) },
            // SAFETY: `simd` is `Avx2` or better only on a processor with
            // AVX2, POPCNT and BMI1 (`simd_available`), the kernel's features.
            Simd::Avx2 => return unsafe { self.children_in_avx2(s, cells, sink) },
            Simd::None => {}
        }
        self.children_in_portable(s, cells, sink);
    }

    /// The forced pass of `s` (whose side to move has no legal cell), its
    /// child canonical.
    pub(super) fn pass_edge(&self, s: u64) -> Edge {
        Edge {
            mv: Move::PASS,
            child: self.canonical(s ^ self.side_bit()),
            reward: 0,
            again: false,
        }
    }

    /// [`BritishSquare::children_in`] without vector instructions.
    ///
    /// Most children need no minimum over the 8 candidates: if the parent's
    /// smallest image differs from every other image at some bit above the
    /// new piece's bit in that image, adding the piece keeps it smallest.
    fn children_in_portable<R: Emit>(&self, s: u64, cells: u64, sink: &mut R) {
        let me = self.to_move(s);
        let side = s & self.side_bit();
        let boards = s & !self.side_bit();
        let imgs = self.sym.images(boards);
        let (mut min, mut arg) = (imgs[0], 0);
        for (i, &img) in imgs.iter().enumerate().skip(1) {
            if img < min {
                (min, arg) = (img, i);
            }
        }
        // `limit`: the lowest top bit at which another image exceeds the
        // smallest one (0 when two images are equal: no shortcut then).
        let mut limit = 64;
        for (i, &img) in imgs.iter().enumerate() {
            if i != arg {
                limit = limit.min(64 - (img ^ min).leading_zeros());
            }
        }
        // A new piece whose image bit is below `fast` keeps `min` smallest.
        let fast = if limit >= 2 { 1u64 << (limit - 1) } else { 0 };
        let offset = if me == Player::Second { self.cells } else { 0 };
        let child_side = side ^ self.side_bit();
        let mut legal = cells;
        while legal != 0 {
            let cell = legal.trailing_zeros();
            legal &= legal - 1;
            let bits = self.sym.bit_images(cell + offset);
            let child = if bits[arg] < fast {
                min | bits[arg]
            } else {
                let mut best = u64::MAX;
                for (img, bit) in imgs.iter().zip(bits) {
                    best = best.min(img | bit);
                }
                best
            };
            sink.emit(cell, child | child_side);
        }
    }
}

/// Where the child kernels put each child: `emit(cell, child)`.
pub(super) trait Emit {
    fn emit(&mut self, cell: u32, child: u64);
}

impl Emit for Vec<Edge> {
    #[inline(always)]
    fn emit(&mut self, cell: u32, child: u64) {
        self.push(Edge {
            mv: Move(cell as u16),
            child,
            reward: 1,
            again: false,
        });
    }
}
