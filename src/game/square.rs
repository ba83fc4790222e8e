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
pub struct SquareSymmetry {
    n: u32,
    mirror: Swaps,
    flip: Swaps,
    transpose: Swaps,
    cell_map: [[u8; 64]; 8],
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

impl SquareSymmetry {
    /// The symmetries of an `n x n` board with `planes` packed bitboards.
    ///
    /// # Panics
    /// If `planes * n * n > 64` (a programming error, not an input error).
    pub fn new(n: u32, planes: u32) -> Self {
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
            mirror,
            flip,
            transpose,
            cell_map: [[0; 64]; 8],
        };
        for s in 0..8 {
            for cell in 0..cells {
                let image = sym.apply(1u64 << cell, s);
                sym.cell_map[s][cell as usize] = image.trailing_zeros() as u8;
            }
        }
        sym
    }

    /// The side length of the board.
    pub fn n(&self) -> u32 {
        self.n
    }

    /// The image of `x` under symmetry `s`.
    #[inline]
    pub fn apply(&self, mut x: u64, s: usize) -> u64 {
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
    pub fn images(&self, x: u64) -> [u64; 8] {
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

    /// The cell that `cell` goes to under symmetry `s`.
    #[inline]
    pub fn map_cell(&self, cell: u32, s: usize) -> u32 {
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
    fn images_match_apply_and_planes_stay_apart() {
        let sym = SquareSymmetry::new(5, 2);
        let x: u64 = 0b10110_00101_11000_00011_10101 | (0b01001_10000_00010_01100_00010 << 25);
        let imgs = sym.images(x);
        for (s, &img) in imgs.iter().enumerate() {
            assert_eq!(img, sym.apply(x, s));
            assert_eq!(img.count_ones(), x.count_ones());
            let low = img & ((1 << 25) - 1);
            assert_eq!(low.count_ones(), (x & ((1 << 25) - 1)).count_ones());
        }
    }
}
