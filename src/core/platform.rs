//! What the solvers and the searches ask of the processor and the system:
//! the processor's vector features, detected once ([`features`]), which
//! every kernel that has a vector form chooses by; and hints, a cache
//! prefetch and huge pages for large buffers, which never change what a
//! program computes.

use std::sync::OnceLock;

/// The processor features that decide which vector kernel runs: British
/// Square's child kernels (AVX-512 or AVX2, each with POPCNT and BMI1), the
/// bucketed solver's vector probe (AVX-512 F, DQ and VL) and Dots and
/// Boxes' block kernel (AVX2). Every kernel gives exactly what its portable
/// form gives; only the speed differs.
///
/// Detected once per process, by [`features`]; off x86-64 (WebAssembly,
/// ARM) every feature is `false` and the portable code runs. No environment
/// variable changes the choice: the tests that compare the kernels set
/// each game's level themselves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuFeatures {
    /// POPCNT.
    pub popcnt: bool,
    /// BMI1.
    pub bmi1: bool,
    /// AVX2.
    pub avx2: bool,
    /// AVX-512 Foundation.
    pub avx512f: bool,
    /// AVX-512 Doubleword and Quadword instructions.
    pub avx512dq: bool,
    /// AVX-512 Vector Length extensions.
    pub avx512vl: bool,
}

impl CpuFeatures {
    /// What this processor has, asked of it (CPUID, through the standard
    /// library's detection).
    fn detect() -> CpuFeatures {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            CpuFeatures {
                popcnt: has!("popcnt"),
                bmi1: has!("bmi1"),
                avx2: has!("avx2"),
                avx512f: has!("avx512f"),
                avx512dq: has!("avx512dq"),
                avx512vl: has!("avx512vl"),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        CpuFeatures::default()
    }

    /// AVX-512 F, DQ and VL: what the bucketed solver's vector probe needs.
    #[inline]
    pub fn avx512_f_dq_vl(&self) -> bool {
        self.avx512f && self.avx512dq && self.avx512vl
    }
}

/// The processor's features, detected on the first call and cached for the
/// life of the process (a load afterwards).
#[inline]
pub fn features() -> CpuFeatures {
    static FEATURES: OnceLock<CpuFeatures> = OnceLock::new();
    *FEATURES.get_or_init(CpuFeatures::detect)
}

/// Hints the processor to fetch `v` into the cache; never faults.
#[inline(always)]
pub fn prefetch<T>(v: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it never faults and changes nothing
    // Rust can observe, and `v` is a valid reference anyway.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((v as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = v;
}

/// Asks the kernel to back the (untouched) allocation of `v` with huge
/// pages: the radix sort scatters records over all of it, and with small
/// pages nearly every write would miss the TLB. Only a hint.
pub fn advise_huge_pages<T>(v: &Vec<T>) {
    advise_huge_pages_raw(v.as_ptr().cast(), v.capacity() * std::mem::size_of::<T>());
}

/// [`advise_huge_pages`] for `len` bytes from `ptr`, which must lie inside
/// one allocation (an address range outside it is never touched, only
/// advised).
pub fn advise_huge_pages_raw(ptr: *const u8, len: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = ptr as usize;
        let end = start + len;
        let first = start.next_multiple_of(HUGE);
        let last = end / HUGE * HUGE;
        if last > first {
            // SAFETY: the range lies inside the caller's allocation, and
            // MADV_HUGEPAGE changes how it is backed, never its contents.
            unsafe {
                libc::madvise(
                    first as *mut libc::c_void,
                    last - first,
                    libc::MADV_HUGEPAGE,
                );
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, len);
}

/// Hands the memory freed so far back to the system (glibc keeps freed
/// blocks for reuse, so a process's resident size stays at its highest
/// otherwise). For solvers on ranks, whose memory per rank is a target:
/// between phases, the large buffers of the last one are given back.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory of the allocator's
    // arenas to the system; no live allocation moves.
    unsafe {
        libc::malloc_trim(0);
    }
}
