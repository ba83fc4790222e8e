//! The lanes of Dots and Boxes' vector kernel (`kernel`): which keys share
//! a vector, and which kernel this processor runs. The game keeps these
//! with its rules, so that each box's edges are split for the kernel once.

/// Keys per vector.
pub(super) const LANES: usize = 32;
/// The lane bits of a key.
pub(super) const LANE_MASK: u64 = LANES as u64 - 1;

/// `LANE_PATTERN[lo][j]` is 1 when lane `j` has every bit of `lo`: whether a
/// box whose other edges among the lane bits are `lo` is closed in lane `j`.
pub(super) const LANE_PATTERN: [[i8; LANES]; LANES] = {
    let mut t = [[0i8; LANES]; LANES];
    let mut lo = 0;
    while lo < LANES {
        let mut j = 0;
        while j < LANES {
            if j & lo == lo {
                t[lo][j] = 1;
            }
            j += 1;
        }
        lo += 1;
    }
    t
};

/// Which kernel the processor runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// Off x86-64 (WebAssembly) only the portable code is ever chosen.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(super) enum Simd {
    /// Portable code.
    None,
    /// AVX2 (the kernel's `Avx2` operations).
    Avx2,
}

impl Simd {
    /// The best kernel for this processor
    /// ([`features`](crate::core::platform::features)).
    pub(super) fn detect() -> Simd {
        if crate::core::platform::features().avx2 {
            Simd::Avx2
        } else {
            Simd::None
        }
    }
}
