//! The solve's large buffers: the id arena and the key chunks, their
//! address space reserved at once and advised for huge pages.

use crate::core::platform::advise_huge_pages;

/// The states' keys, bucket after bucket, in one buffer per thread that
/// names buckets (and one for the calling thread): a bucket's keys go from
/// the thread's table straight into its chunk. Each chunk's address space
/// is reserved at once and advised for huge pages, like the id arena.
pub(super) fn key_chunks() -> Vec<Vec<u64>> {
    (0..=rayon::current_num_threads())
        .map(|_| reserved_words())
        .collect()
}

/// The key chunks, for the naming threads to append to.
pub(super) fn share(chunks: Vec<Vec<u64>>) -> Vec<std::sync::Mutex<Vec<u64>>> {
    chunks.into_iter().map(std::sync::Mutex::new).collect()
}

/// The key chunks back, for reading.
pub(super) fn unshare(chunks: Vec<std::sync::Mutex<Vec<u64>>>) -> Vec<Vec<u64>> {
    chunks
        .into_iter()
        .map(|c| {
            c.into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        })
        .collect()
}

/// An empty buffer of words with [`ARENA_RESERVE`] bytes of address space
/// reserved at once and advised for huge pages: a buffer grown by
/// `realloc` is moved, and its new part is not backed by huge pages
/// (measured on British Square: page faults 64k against 27k for the id
/// arena, 0.05-0.07 s less system time). Pages never touched cost nothing.
/// Where the system refuses so much address space, the buffer grows as
/// needed.
pub(super) fn reserved_words() -> Vec<u64> {
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
pub(super) fn grown(need: usize, capacity: usize) -> usize {
    need.max(2 * capacity).max(6 << 20)
}

/// Makes `arena` `need` words long if it is shorter, its capacity grown by
/// [`grown`] (and the new allocation advised for huge pages) when it must.
/// The words it gains are to be written before they are read: only their
/// length matters.
pub(super) fn lengthen(arena: &mut Vec<u64>, need: usize) {
    if need > arena.len() {
        if need > arena.capacity() {
            arena.reserve(grown(need, arena.capacity()) - arena.len());
            advise_huge_pages(arena);
        }
        arena.resize(need, 0);
    }
}
