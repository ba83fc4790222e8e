//! The 8 symmetries of an `n x n` board of bitboards, by delta swaps.
//!
//! A bitboard holds cell `r * n + c` (row `r` from the top, column `c` from the
//! left) in bit `r * n + c`. Several bitboards ("planes", e.g. X and O) may be
//! packed in one `u64`, plane `p` starting at bit `p * n * n`; every transform
//! acts on all planes at once.
//!
//! Symmetry `s` (0..8) is built from three bits: bit 0 mirrors left-right,
//! bit 1 flips top-bottom, bit 2 transposes; they are applied in that order.
//! Symmetry 0 is the identity.

/// A list of disjoint delta swaps: `(mask, shift)` exchanges every bit `i` in
/// `mask` with bit `i + shift`.
type Swaps = Vec<(u64, u32)>;

/// The symmetry group of an `n x n` board, precomputed.
#[derive(Clone, Debug)]
pub(crate) struct SquareSymmetry {
    n: u32,
    planes: u32,
    mirror: Swaps,
    flip: Swaps,
    transpose: Swaps,
    cell_map: [[u8; 64]; 8],
    /// `bit_images[b]`: the 8 images of the board with only bit `b` set.
    bit_images: Vec<[u64; 8]>,
}

#[inline(always)]
fn delta_swap(x: u64, mask: u64, shift: u32) -> u64 {
    let t = ((x >> shift) ^ x) & mask;
    x ^ t ^ (t << shift)
}

#[inline(always)]
fn apply_swaps(mut x: u64, swaps: &[(u64, u32)]) -> u64 {
    for &(mask, shift) in swaps {
        x = delta_swap(x, mask, shift);
    }
    x
}

/// The swaps of one board size as compile-time constants, so that the
/// images of the sizes British Square uses compile to immediate shifts and
/// masks: `H` mirror (and flip) swaps, `T` transpose swaps, each a
/// `(mask, shift)` delta swap as in [`SquareSymmetry`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct SquareSwaps<const H: usize, const T: usize> {
    /// The swaps that mirror left-right.
    pub mirror: [(u64, u32); H],
    /// The swaps that flip top-bottom.
    pub flip: [(u64, u32); H],
    /// The swaps that transpose.
    pub transpose: [(u64, u32); T],
}

/// `plane_mask` repeated in each of `planes` planes of `cells` bits.
const fn replicate(plane_mask: u64, cells: u32, planes: u32) -> u64 {
    let mut acc = 0;
    let mut p = 0;
    while p < planes {
        acc |= plane_mask << (p * cells);
        p += 1;
    }
    acc
}

impl<const H: usize, const T: usize> SquareSwaps<H, T> {
    /// The swaps of an `n x n` board with `planes` planes (`H = n / 2`,
    /// `T = n - 1`); the same as [`SquareSymmetry::new`] computes.
    const fn new(n: u32, planes: u32) -> Self {
        let cells = n * n;
        let mut mirror = [(0, 0); H];
        let mut flip = [(0, 0); H];
        let mut i = 0;
        while i < H {
            let k = i as u32;
            let (mut col, mut row) = (0u64, 0u64);
            let mut j = 0;
            while j < n {
                col |= 1 << (j * n + k);
                row |= 1 << (k * n + j);
                j += 1;
            }
            mirror[i] = (replicate(col, cells, planes), n - 1 - 2 * k);
            flip[i] = (replicate(row, cells, planes), n * (n - 1 - 2 * k));
            i += 1;
        }
        let mut transpose = [(0, 0); T];
        let mut i = 0;
        while i < T {
            let d = i as u32 + 1;
            let mut m = 0u64;
            let mut r = 0;
            while r < n - d {
                m |= 1 << (r * n + r + d);
                r += 1;
            }
            transpose[i] = (replicate(m, cells, planes), d * (n - 1));
            i += 1;
        }
        SquareSwaps {
            mirror,
            flip,
            transpose,
        }
    }

    /// The 8 images of `x`. Transposing once and deriving the other
    /// transposed images by mirror and flip (`T M = F T`, `T F = M T`) takes
    /// 16 swaps on a 5x5 board instead of 22.
    #[inline(always)]
    fn images(&self, x: u64) -> [u64; 8] {
        let m = apply_swaps(x, &self.mirror);
        let f = apply_swaps(x, &self.flip);
        let mf = apply_swaps(m, &self.flip);
        let t = apply_swaps(x, &self.transpose);
        let tm = apply_swaps(t, &self.mirror);
        let tf = apply_swaps(t, &self.flip);
        let tmf = apply_swaps(tm, &self.flip);
        // Index 4 + i is the transpose of image i: T M = F T, T F = M T and
        // T M F = M F T.
        [x, m, f, mf, t, tf, tm, tmf]
    }
}

/// The swaps of a 5x5 board of two planes (British Square's boards).
pub(crate) const TWO_PLANES_5: SquareSwaps<2, 4> = SquareSwaps::new(5, 2);
/// The swaps of a 4x4 board of two planes.
pub(crate) const TWO_PLANES_4: SquareSwaps<2, 3> = SquareSwaps::new(4, 2);
/// The swaps of a 3x3 board of two planes.
pub(crate) const TWO_PLANES_3: SquareSwaps<1, 2> = SquareSwaps::new(3, 2);

impl SquareSymmetry {
    /// The symmetries of an `n x n` board with `planes` packed bitboards.
    ///
    /// # Panics
    /// If `planes * n * n > 64` (a programming error, not an input error).
    pub(crate) fn new(n: u32, planes: u32) -> Self {
        let cells = n * n;
        assert!(
            n >= 1 && planes * cells <= 64,
            "board does not fit in a u64"
        );
        let replicate = |plane_mask: u64| -> u64 {
            (0..planes).fold(0, |acc, p| acc | plane_mask << (p * cells))
        };
        let bit = |r: u32, c: u32| 1u64 << (r * n + c);
        let mut mirror = Vec::new();
        for c in 0..n / 2 {
            let m = (0..n).fold(0, |acc, r| acc | bit(r, c));
            mirror.push((replicate(m), n - 1 - 2 * c));
        }
        let mut flip = Vec::new();
        for r in 0..n / 2 {
            let m = (0..n).fold(0, |acc, c| acc | bit(r, c));
            flip.push((replicate(m), n * (n - 1 - 2 * r)));
        }
        let mut transpose = Vec::new();
        for d in 1..n {
            let m = (0..n - d).fold(0, |acc, r| acc | bit(r, r + d));
            transpose.push((replicate(m), d * (n - 1)));
        }
        let mut sym = SquareSymmetry {
            n,
            planes,
            mirror,
            flip,
            transpose,
            cell_map: [[0; 64]; 8],
            bit_images: Vec::new(),
        };
        for s in 0..8 {
            for cell in 0..cells {
                let image = sym.apply(1u64 << cell, s);
                sym.cell_map[s][cell as usize] = image.trailing_zeros() as u8;
            }
        }
        sym.bit_images = (0..planes * cells)
            .map(|b| std::array::from_fn(|s| sym.apply(1u64 << b, s)))
            .collect();
        sym
    }

    /// The image of `x` under symmetry `s`.
    #[inline]
    pub(crate) fn apply(&self, mut x: u64, s: usize) -> u64 {
        if s & 1 != 0 {
            x = apply_swaps(x, &self.mirror);
        }
        if s & 2 != 0 {
            x = apply_swaps(x, &self.flip);
        }
        if s & 4 != 0 {
            x = apply_swaps(x, &self.transpose);
        }
        x
    }

    /// All 8 images of `x`, indexed by symmetry.
    #[inline]
    pub(crate) fn images(&self, x: u64) -> [u64; 8] {
        // The sizes British Square uses get constant swaps.
        match (self.n, self.planes) {
            (5, 2) => TWO_PLANES_5.images(x),
            (4, 2) => TWO_PLANES_4.images(x),
            (3, 2) => TWO_PLANES_3.images(x),
            _ => self.images_slow(x),
        }
    }

    /// The 8 images of `x` for any board size.
    fn images_slow(&self, x: u64) -> [u64; 8] {
        let m = apply_swaps(x, &self.mirror);
        let f = apply_swaps(x, &self.flip);
        let mf = apply_swaps(m, &self.flip);
        [
            x,
            m,
            f,
            mf,
            apply_swaps(x, &self.transpose),
            apply_swaps(m, &self.transpose),
            apply_swaps(f, &self.transpose),
            apply_swaps(mf, &self.transpose),
        ]
    }

    /// The 8 images (indexed by symmetry) of the board with only bit `bit`
    /// set; `bit` counts across planes, so it is below `planes * n * n`.
    #[inline]
    pub(crate) fn bit_images(&self, bit: u32) -> &[u64; 8] {
        &self.bit_images[bit as usize]
    }

    /// The cell that `cell` goes to under symmetry `s`.
    #[inline]
    pub(crate) fn map_cell(&self, cell: u32, s: usize) -> u32 {
        u32::from(self.cell_map[s][cell as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rc(n: u32, cell: u32) -> (u32, u32) {
        (cell / n, cell % n)
    }

    #[test]
    fn cell_maps_are_the_eight_square_symmetries() {
        for n in 1..=8 {
            let sym = SquareSymmetry::new(n, 1);
            let mut seen = std::collections::HashSet::new();
            for s in 0..8 {
                let mut perm = Vec::new();
                for cell in 0..n * n {
                    let (r, c) = rc(n, cell);
                    let (mut r2, mut c2) = (r, c);
                    if s & 1 != 0 {
                        c2 = n - 1 - c2;
                    }
                    if s & 2 != 0 {
                        r2 = n - 1 - r2;
                    }
                    if s & 4 != 0 {
                        std::mem::swap(&mut r2, &mut c2);
                    }
                    assert_eq!(
                        sym.map_cell(cell, s),
                        r2 * n + c2,
                        "n={n} s={s} cell={cell}"
                    );
                    perm.push(r2 * n + c2);
                }
                seen.insert(perm);
            }
            if n >= 2 {
                assert_eq!(seen.len(), 8, "n={n}: the 8 symmetries are distinct");
            }
        }
    }

    #[test]
    fn constant_swaps_match_the_computed_ones() {
        let sym = SquareSymmetry::new(5, 2);
        assert_eq!(&TWO_PLANES_5.mirror[..], &sym.mirror[..]);
        assert_eq!(&TWO_PLANES_5.flip[..], &sym.flip[..]);
        assert_eq!(&TWO_PLANES_5.transpose[..], &sym.transpose[..]);
        let sym = SquareSymmetry::new(4, 2);
        assert_eq!(&TWO_PLANES_4.mirror[..], &sym.mirror[..]);
        assert_eq!(&TWO_PLANES_4.transpose[..], &sym.transpose[..]);
        let sym = SquareSymmetry::new(3, 2);
        assert_eq!(&TWO_PLANES_3.flip[..], &sym.flip[..]);
        assert_eq!(&TWO_PLANES_3.transpose[..], &sym.transpose[..]);
    }

    #[test]
    fn unrolled_images_match_the_general_ones() {
        for n in 3..=5 {
            let sym = SquareSymmetry::new(n, 2);
            let mut x = 0x2545_F491_4F6C_DD1Du64;
            for _ in 0..1000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let b = x & ((1 << (2 * n * n)) - 1);
                assert_eq!(sym.images(b), sym.images_slow(b), "n={n} x={b:#x}");
            }
        }
    }

    #[test]
    fn images_match_apply_and_planes_stay_apart() {
        let sym = SquareSymmetry::new(5, 2);
        let x: u64 = 0b10110_00101_11000_00011_10101 | (0b01001_10000_00010_01100_00010 << 25);
        let imgs = sym.images(x);
        assert_eq!(imgs, sym.images_slow(x));
        for (s, &img) in imgs.iter().enumerate() {
            assert_eq!(img, sym.apply(x, s));
            assert_eq!(sym.bit_images(31)[s], sym.apply(1 << 31, s));
            assert_eq!(img.count_ones(), x.count_ones());
            let low = img & ((1 << 25) - 1);
            assert_eq!(low.count_ones(), (x & ((1 << 25) - 1)).count_ones());
        }
    }
}
