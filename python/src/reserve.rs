//! The extension's allocator: the system's, with memory set aside.
//!
//! Rust ends the process when an allocation fails. Under a memory limit
//! (`ulimit -v`, `resource.RLIMIT_AS`, a container's) the interpreter's own
//! allocations fail with `MemoryError`, but one of ours failing first would
//! abort the interpreter. So a reserve of address space is set aside when
//! the module loads and before each batch: an allocation that fails gives it
//! back to the system and tries again, and the batch, which looks at
//! [`spent`] after each stretch of positions, stops with `MemoryError`.
//! The reserve is never touched, so it costs address space, not memory.

use std::alloc::{GlobalAlloc, Layout, System};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

/// The memory set aside: more than a stretch of a batch allocates.
const RESERVE_BYTES: usize = 64 << 20;

/// The reserve, while it is held.
static HELD: AtomicPtr<u8> = AtomicPtr::new(null_mut());
/// True once an allocation has needed the reserve, until [`spent`] says so.
static SPENT: AtomicBool = AtomicBool::new(false);

fn layout() -> Layout {
    // A constant, valid layout: the alignment is a power of two.
    Layout::from_size_align(RESERVE_BYTES, 4096).unwrap_or(Layout::new::<u8>())
}

/// The system's allocator, which gives the reserve back when it fails and
/// tries again.
pub struct WithReserve;

// SAFETY: every method forwards to `System` with the caller's arguments;
// the reserve is a block `System` gave, freed with the layout it was asked
// with, once (taken out of `HELD` by a swap).
unsafe impl GlobalAlloc for WithReserve {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller meets `GlobalAlloc::alloc`'s contract for
        // `layout` (not zero-sized), which is `System`'s too.
        let p = unsafe { System.alloc(layout) };
        if p.is_null() && release() {
            // SAFETY: the same call again, with the caller's valid layout.
            return unsafe { System.alloc(layout) };
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller meets `GlobalAlloc::alloc_zeroed`'s contract
        // for `layout` (not zero-sized), which is `System`'s too.
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() && release() {
            // SAFETY: the same call again, with the caller's valid layout.
            return unsafe { System.alloc_zeroed(layout) };
        }
        p
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller meets `GlobalAlloc::realloc`'s contract (`ptr`
        // allocated here, by `System`, with `layout`; `new_size` valid),
        // which is `System`'s too.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() && release() {
            // SAFETY: a failed realloc leaves `ptr` allocated with
            // `layout`: the same call again meets the same contract.
            return unsafe { System.realloc(ptr, layout, new_size) };
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller frees `ptr` once, with the layout it was
        // allocated with, by `System` (every method here forwards to it).
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Gives the reserve back to the system and notes it; true when there was
/// one to give (or another thread just gave it: worth another try).
#[cold]
fn release() -> bool {
    SPENT.store(true, Ordering::SeqCst);
    let held = HELD.swap(null_mut(), Ordering::AcqRel);
    if !held.is_null() {
        // SAFETY: `held` came from `System.alloc(layout())` in `refill`,
        // and the swap made this the only owner.
        unsafe { System.dealloc(held, layout()) };
    }
    true
}

/// Sets the reserve aside again if it is not held (once memory is back).
pub fn refill() {
    if !HELD.load(Ordering::Acquire).is_null() {
        return;
    }
    // SAFETY: a valid, non-zero layout.
    let p = unsafe { System.alloc(layout()) };
    if p.is_null() {
        return;
    }
    if HELD
        .compare_exchange(null_mut(), p, Ordering::AcqRel, Ordering::Acquire)
        .is_err()
    {
        // SAFETY: `p` is ours, from the allocation above.
        unsafe { System.dealloc(p, layout()) };
    }
}

/// True when an allocation has needed the reserve since the last call:
/// memory ran out, and the work in hand must stop.
pub fn spent() -> bool {
    SPENT.swap(false, Ordering::SeqCst)
}
