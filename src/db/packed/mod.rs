//! The packed layout (`format-spec.md`, section 3c): the records of a
//! sorted or dense file in blocks of a fixed number of entries, each
//! compressed with raw DEFLATE on its own and followed by its XXH3-64, and
//! an index of every block's first key and offset at the end of the file.
//!
//! A lookup reads the index (held in memory from the open on) and one
//! block, which it checks against its checksum before decoding it; decoded
//! blocks are kept in a cache of bounded size. A sorted block stores its
//! keys as LEB128 steps and its value fields in byte planes, which DEFLATE
//! compresses well; a dense block stores only the entries of canonical
//! keys, since symmetric keys have equal entries.
//!
//! The blocks' codec is `codec`, the index `index`, a decoded block's
//! search tree `block`, the cache of decoded blocks `cache`, and the open
//! file's lookups `store`.

mod block;
mod cache;
mod codec;
mod index;
mod store;

pub(crate) use codec::{inflate, Codec};
pub(crate) use store::{FileBytes, PackedStore, Unpacking};
pub use store::{Symmetries, DEFAULT_CACHE_BYTES};

/// `2^bits - 1`.
#[inline]
fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}
