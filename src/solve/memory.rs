//! The memory of the searches' transposition tables: what the machine has
//! available, the check of a table size against it before anything is
//! allocated, and an allocation that fails with an error rather than
//! aborting the process.
//!
//! A table is allocated zeroed, so the system maps its pages only as the
//! search writes them; a search that runs long enough writes them all, so
//! the whole size is what counts against the memory available.

/// Why a search's tables were refused, or could not be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// The size is outside what the game's search takes.
    #[error("{game} takes {min} to {max}")]
    OutOfRange {
        /// The `log2` of the table entries asked for.
        bits: u32,
        /// The game and variant.
        game: String,
        /// The smallest size taken.
        min: u32,
        /// The largest size taken.
        max: u32,
    },
    /// The tables would take more memory than the machine has available.
    #[error(
        "the search's tables would take {}, more than the {} of memory available",
        human(*bytes),
        human(*available)
    )]
    TooLarge {
        /// The `log2` of the table entries asked for.
        bits: u32,
        /// What the tables would take, in bytes.
        bytes: u64,
        /// The memory available, in bytes.
        available: u64,
    },
    /// The allocator refused the memory (an address-space limit, say).
    #[error("cannot allocate {} for a search table", human(*bytes))]
    Alloc {
        /// The `log2` of the table entries asked for.
        bits: u32,
        /// The allocation refused, in bytes.
        bytes: u64,
    },
}

impl TableError {
    /// The `log2` of the table entries asked for.
    pub(crate) fn bits(&self) -> u32 {
        match *self {
            TableError::OutOfRange { bits, .. }
            | TableError::TooLarge { bits, .. }
            | TableError::Alloc { bits, .. } => bits,
        }
    }
}

/// `bytes` for people: `512 MiB`, `32.0 GiB`.
pub(crate) fn human(bytes: u64) -> String {
    const KIB: u64 = 1 << 10;
    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;
    if bytes >= GIB {
        format!("{:.1} GiB", bytes as f64 / GIB as f64)
    } else if bytes >= MIB {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= KIB {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} bytes")
    }
}

/// The memory the process can still take, in bytes: the system's
/// `MemAvailable`, less where a control group's limit or the process's
/// address-space limit (`ulimit -v`) leaves less. `None` where it cannot be
/// told (another system, no `/proc`).
pub fn available() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        let system = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|m| meminfo_available(&m));
        [system, cgroup_room(), address_space_room()]
            .into_iter()
            .flatten()
            .min()
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// What the process's address-space limit still allows: the limit less
/// the process's size (`VmSize`). `None` without a limit.
#[cfg(target_os = "linux")]
fn address_space_room() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } != 0
        || limit.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let size = status
        .lines()
        .find_map(|l| l.strip_prefix("VmSize:"))
        .and_then(|v| v.trim().strip_suffix("kB"))
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(0, |kib| kib.saturating_mul(1024));
    #[allow(clippy::useless_conversion)] // `rlim_t` is not `u64` everywhere.
    let limit = u64::from(limit.rlim_cur);
    Some(limit.saturating_sub(size))
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn meminfo_available(meminfo: &str) -> Option<u64> {
    let line = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?;
    let kib: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    kib.checked_mul(1024)
}

/// What the process's control group (version 2) still allows: its
/// `memory.max` less its `memory.current`. `None` without a limit.
#[cfg(target_os = "linux")]
fn cgroup_room() -> Option<u64> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = groups.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = std::path::Path::new("/sys/fs/cgroup").join(path.trim_start_matches('/'));
    let read = |name: &str| -> Option<u64> {
        std::fs::read_to_string(dir.join(name))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    // `max` (no limit) does not parse.
    let max = read("memory.max")?;
    Some(max.saturating_sub(read("memory.current").unwrap_or(0)))
}

/// Checks that tables of `bytes` in all (for `2^bits` entries) fit in the
/// memory available; passes where that cannot be told.
pub(crate) fn check_fits(bits: u32, bytes: u64) -> Result<(), TableError> {
    match available() {
        Some(available) if bytes > available => Err(TableError::TooLarge {
            bits,
            bytes,
            available,
        }),
        _ => Ok(()),
    }
}

/// Words in a page of the smallest size the system maps (4 KiB).
const PAGE_WORDS: usize = 512;

/// Writes one word of every page of `words` back unchanged, so that the
/// system maps the whole table now rather than page by page during the
/// first searches (a timed sample of searches then measures the searches).
pub(crate) fn map_pages(words: &mut [u64]) {
    for w in words.iter_mut().step_by(PAGE_WORDS) {
        // The write must happen: a read alone maps the shared zero page.
        *w = std::hint::black_box(*w);
    }
}

/// `len` zeroed words from a zeroed allocation (mapped by the system as
/// they are written), or [`TableError::Alloc`] when the allocator refuses.
pub(crate) fn zeroed_words(len: usize, bits: u32) -> Result<Box<[u64]>, TableError> {
    let refused = || TableError::Alloc {
        bits,
        bytes: (len as u64).saturating_mul(8),
    };
    if len == 0 {
        return Ok(Box::new([]));
    }
    let layout = std::alloc::Layout::array::<u64>(len).map_err(|_| refused())?;
    // SAFETY: the layout is not zero-sized (len > 0).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<u64>();
    if ptr.is_null() {
        return Err(refused());
    }
    // SAFETY: `ptr` comes from the global allocator with the layout of
    // `[u64; len]`, which is how a `Box<[u64]>` of `len` words is freed;
    // zero bytes are valid words.
    Ok(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len)) })
}

use std::sync::atomic::AtomicU64;

// `AtomicU64` is documented to have the size and bit validity of `u64`; the
// alignment is checked here, so a zeroed `u64` buffer is a valid one.
const _: () = assert!(std::mem::align_of::<AtomicU64>() == std::mem::align_of::<u64>());
const _: () = assert!(std::mem::size_of::<AtomicU64>() == std::mem::size_of::<u64>());

/// [`zeroed_words`] as atomic words, for a table several threads share:
/// from a zeroed allocation too (building the atomics one by one would
/// touch every page).
pub(crate) fn zeroed_atomic_words(len: usize, bits: u32) -> Result<Box<[AtomicU64]>, TableError> {
    let words: Box<[u64]> = zeroed_words(len, bits)?;
    let raw = Box::into_raw(words) as *mut [AtomicU64];
    // SAFETY: same size, alignment (asserted above) and bit validity; the
    // box is reconstituted from the pointer it was turned into.
    Ok(unsafe { Box::from_raw(raw) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_is_read() {
        let text = "MemTotal:       24684084 kB\nMemFree:        18639608 kB\n\
                    MemAvailable:   23372428 kB\nBuffers: 1 kB\n";
        assert_eq!(meminfo_available(text), Some(23_372_428 * 1024));
        assert_eq!(meminfo_available("MemFree: 1 kB\n"), None);
        assert_eq!(meminfo_available("MemAvailable: lots\n"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_machine_tells_its_memory() {
        let a = available().expect("Linux has /proc/meminfo");
        assert!(a > 1 << 20);
        assert!(check_fits(20, 8 << 20).is_ok());
        assert!(matches!(
            check_fits(60, u64::MAX),
            Err(TableError::TooLarge { bits: 60, .. })
        ));
    }

    #[test]
    fn allocation_fails_cleanly() {
        let words = zeroed_words(1000, 10).expect("small");
        assert!(words.iter().all(|&w| w == 0));
        // More than the address space: refused, not an abort.
        let e = zeroed_words(usize::MAX / 4, 61).expect_err("too large");
        assert!(matches!(e, TableError::Alloc { bits: 61, .. }), "{e}");
        assert!(e.to_string().starts_with("cannot allocate"));
        // 8 TiB: refused by the system (unless it maps anything asked for;
        // then it is given back untouched).
        match zeroed_words(1 << 40, 40) {
            Ok(words) => assert_eq!(words.len(), 1 << 40),
            Err(e) => assert!(matches!(e, TableError::Alloc { bits: 40, .. }), "{e}"),
        }
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(human(512 << 20), "512 MiB");
        assert_eq!(human(32 << 30), "32.0 GiB");
        assert_eq!(human(3 << 10), "3 KiB");
    }
}
