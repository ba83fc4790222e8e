//! Which vector code British Square's child kernels run
//! ([`super::children`]): chosen once per game from what the processor
//! reports, and lowered by tests to check each kernel against the others.

use crate::core::platform::features;

/// Which vector code canonicalises children: the best this processor runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
// Off x86-64 (WebAssembly) only the portable code is ever chosen.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(super) enum Simd {
    /// Portable code.
    None,
    /// The AVX2 kernel (`children_in_avx2` in [`super::children`]).
    Avx2,
    /// The AVX-512 kernel (`children_in_avx512` in [`super::children`]).
    Avx512,
}

/// The best [`Simd`] level this processor runs ([`features`]).
pub(super) fn simd_available() -> Simd {
    let f = features();
    let base = f.popcnt && f.bmi1 && f.avx2;
    if base && f.avx512f {
        Simd::Avx512
    } else if base {
        Simd::Avx2
    } else {
        Simd::None
    }
}
