//! Processor and memory hints shared by the solvers and the searches: a
//! cache prefetch and huge pages for large buffers. Only hints: they never
//! change what a program computes.

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
