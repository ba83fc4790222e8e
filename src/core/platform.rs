//! What the solvers and the searches ask of the processor and the system:
//! the processor's vector features, detected once ([`features`]), which
//! every kernel that has a vector form chooses by; the caches' sizes
//! ([`caches`]) and the system's huge-page mode ([`huge_pages`]); hints, a
//! cache prefetch and huge pages for large buffers, which never change what
//! a program computes; and the processor time of the calling thread
//! ([`thread_cpu_time`]).

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

/// The data caches one core works with, in bytes, as the processor or
/// the system reports them: what sizes the tables that must stay in a
/// cache level. Read once per process, by [`caches`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheSizes {
    /// The level-1 data cache of one core.
    pub l1d: usize,
    /// The level-2 cache of one core (its share where cores share one).
    pub l2: usize,
    /// The last-level cache, whole (shared by the cores of a die).
    pub l3: usize,
    /// The cache line.
    pub line: usize,
    /// Where the sizes came from.
    pub source: CacheSource,
}

/// Where [`CacheSizes`] came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheSource {
    /// Linux's `/sys/devices/system/cpu/cpu0/cache`.
    Sysfs,
    /// The processor's CPUID (leaf 4 on Intel, 0x8000001D on AMD).
    Cpuid,
    /// Neither told: [`CacheSizes::ASSUMED`].
    Assumed,
}

impl CacheSizes {
    /// What a program assumes where nothing reports the caches: the
    /// smallest of today's server cores (32 KiB L1, 1 MiB L2, 16 MiB L3).
    pub(crate) const ASSUMED: CacheSizes = CacheSizes {
        l1d: 32 << 10,
        l2: 1 << 20,
        l3: 16 << 20,
        line: 64,
        source: CacheSource::Assumed,
    };

    fn detect() -> CacheSizes {
        Self::from_sysfs(std::path::Path::new("/sys/devices/system/cpu/cpu0/cache"))
            .or_else(Self::from_cpuid)
            .unwrap_or(Self::ASSUMED)
    }

    /// The sizes from a sysfs cache directory (`index0`, `index1`, ...,
    /// each with `level`, `type`, `size` and `coherency_line_size`); `None`
    /// when it names no level-1 data and no level-2 cache.
    fn from_sysfs(dir: &std::path::Path) -> Option<CacheSizes> {
        let mut sizes = CacheSizes {
            l1d: 0,
            l2: 0,
            l3: 0,
            line: 64,
            source: CacheSource::Sysfs,
        };
        for entry in std::fs::read_dir(dir).ok()?.flatten() {
            let read = |name: &str| {
                std::fs::read_to_string(entry.path().join(name))
                    .map(|s| s.trim().to_owned())
                    .unwrap_or_default()
            };
            let kind = read("type");
            if kind == "Instruction" {
                continue;
            }
            let Some(size) = parse_cache_size(&read("size")) else {
                continue;
            };
            match read("level").as_str() {
                "1" => sizes.l1d = size,
                "2" => sizes.l2 = size,
                "3" => sizes.l3 = size,
                _ => {}
            }
            if let Ok(line) = read("coherency_line_size").parse::<usize>() {
                if line.is_power_of_two() {
                    sizes.line = line;
                }
            }
        }
        (sizes.l1d > 0 && sizes.l2 > 0).then_some(sizes)
    }

    /// The sizes from CPUID's deterministic cache parameters.
    fn from_cpuid() -> Option<CacheSizes> {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{__cpuid, __cpuid_count};
            // CPUID is on every x86-64 processor.
            let vendor = __cpuid(0);
            let amd = vendor.ebx == u32::from_le_bytes(*b"Auth");
            let leaf = if amd { 0x8000_001D } else { 4 };
            let highest = if amd {
                __cpuid(0x8000_0000).eax
            } else {
                vendor.eax
            };
            if highest < leaf {
                return None;
            }
            let mut sizes = CacheSizes {
                l1d: 0,
                l2: 0,
                l3: 0,
                line: 64,
                source: CacheSource::Cpuid,
            };
            for sub in 0..16 {
                let r = __cpuid_count(leaf, sub);
                let kind = r.eax & 0x1F;
                if kind == 0 {
                    break;
                }
                if kind == 2 {
                    continue;
                }
                let ways = (r.ebx >> 22) as usize + 1;
                let partitions = ((r.ebx >> 12) & 0x3FF) as usize + 1;
                let line = (r.ebx & 0xFFF) as usize + 1;
                let sets = r.ecx as usize + 1;
                let size = ways * partitions * line * sets;
                match (r.eax >> 5) & 0x7 {
                    1 => sizes.l1d = size,
                    2 => sizes.l2 = size,
                    3 => sizes.l3 = size,
                    _ => {}
                }
                if line.is_power_of_two() {
                    sizes.line = line;
                }
            }
            (sizes.l1d > 0 && sizes.l2 > 0).then_some(sizes)
        }
        #[cfg(not(target_arch = "x86_64"))]
        None
    }
}

/// A sysfs cache size: `48K`, `2048K`, `32M` or a plain number of bytes.
fn parse_cache_size(text: &str) -> Option<usize> {
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((at, _)) => text.split_at(at),
        None => (text, ""),
    };
    let n: usize = digits.parse().ok()?;
    let unit = match unit.trim() {
        "" | "B" => 1,
        "K" | "KB" | "KiB" => 1 << 10,
        "M" | "MB" | "MiB" => 1 << 20,
        "G" | "GB" | "GiB" => 1 << 30,
        _ => return None,
    };
    n.checked_mul(unit).filter(|&b| b > 0)
}

/// The caches of this machine's cores, read on the first call (sysfs,
/// else CPUID, else [`CacheSizes::ASSUMED`]) and cached for the life of
/// the process.
pub fn caches() -> CacheSizes {
    static CACHES: OnceLock<CacheSizes> = OnceLock::new();
    *CACHES.get_or_init(CacheSizes::detect)
}

/// How the kernel backs large allocations with huge pages
/// (`/sys/kernel/mm/transparent_hugepage/enabled`): where it says
/// `never`, [`advise_huge_pages`] does nothing, and every large table is
/// read through 4 KiB pages (more TLB misses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HugePages {
    /// Every large anonymous allocation.
    Always,
    /// Those advised ([`advise_huge_pages`]), which the solvers do.
    Madvise,
    /// None.
    Never,
    /// The system does not say (not Linux, or no such file).
    Unknown,
}

/// The kernel's transparent huge page mode, read at each call.
pub fn huge_pages() -> HugePages {
    let text =
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
    let chosen = text
        .split_whitespace()
        .find(|w| w.starts_with('[') && w.ends_with(']'))
        .unwrap_or("");
    match chosen {
        "[always]" => HugePages::Always,
        "[madvise]" => HugePages::Madvise,
        "[never]" => HugePages::Never,
        _ => HugePages::Unknown,
    }
}

/// Hints the processor to fetch `v` into the cache; never faults.
#[inline(always)]
pub(crate) fn prefetch<T>(v: &T) {
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

/// True when this machine is a virtual machine whose balloon device
/// reports free memory to its host (virtio-balloon with
/// `VIRTIO_BALLOON_F_REPORTING`, feature bit 5). The guest's free blocks
/// of 2 MiB and more are then handed back, and the host must fault each
/// one in again when it is used: a huge page always comes from such a
/// block, while small pages come from the smaller free blocks first, which
/// the host still backs. Read once per process.
pub fn free_memory_reported() -> bool {
    static REPORTED: OnceLock<bool> = OnceLock::new();
    *REPORTED.get_or_init(|| reported_by_balloon(std::path::Path::new("/sys/bus/virtio/devices")))
}

/// [`free_memory_reported`] from a sysfs virtio device directory.
fn reported_by_balloon(devices: &std::path::Path) -> bool {
    /// The virtio device id of a memory balloon.
    const BALLOON: &str = "0x0005";
    /// `VIRTIO_BALLOON_F_REPORTING`.
    const REPORTING_BIT: usize = 5;
    let Ok(entries) = std::fs::read_dir(devices) else {
        return false;
    };
    entries.flatten().any(|device| {
        let read =
            |name: &str| std::fs::read_to_string(device.path().join(name)).unwrap_or_default();
        // `features` is one character a feature bit, bit 0 first.
        read("device").trim() == BALLOON
            && read("features").as_bytes().get(REPORTING_BIT) == Some(&b'1')
    })
}

/// Maps every page of `len` bytes at `ptr` (inside one allocation of the
/// caller's) for writing, without changing their contents
/// (`MADV_POPULATE_WRITE`, Linux 5.14 and later). False where that is not
/// available: nothing was done.
pub(crate) fn populate_for_writing(ptr: *const u8, len: usize) -> bool {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = (ptr as usize).next_multiple_of(PAGE);
        let end = (ptr as usize + len) / PAGE * PAGE;
        if end <= start {
            return true;
        }
        // SAFETY: the page-aligned range lies inside the caller's
        // allocation; populating pages never changes their contents.
        let rc = unsafe {
            libc::madvise(
                start as *mut libc::c_void,
                end - start,
                libc::MADV_POPULATE_WRITE,
            )
        };
        rc == 0
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (ptr, len);
        false
    }
}

/// Asks the kernel to back the (untouched) allocation of `v` with huge
/// pages, for the solvers' large buffers: the radix sort scatters records
/// over all of it, and with small pages nearly every write would miss the
/// TLB. Only a hint, and not given where [`free_memory_reported`]: there
/// each huge page costs the host's faults, which outweigh the TLB misses
/// saved (`docs/performance.md`, "Huge pages").
pub(crate) fn advise_huge_pages<T>(v: &Vec<T>) {
    advise_huge_pages_raw(v.as_ptr().cast(), v.capacity() * std::mem::size_of::<T>());
}

/// [`advise_huge_pages`] for `len` bytes from `ptr`, which must lie inside
/// one allocation (an address range outside it is never touched, only
/// advised).
pub(crate) fn advise_huge_pages_raw(ptr: *const u8, len: usize) {
    if !free_memory_reported() {
        advise_huge_pages_table(ptr, len);
    }
}

/// [`advise_huge_pages_raw`] for a table read at random for minutes (a
/// search's transposition table), on every machine: its TLB misses go on
/// as long as it is used, its allocation is paid once.
pub(crate) fn advise_huge_pages_table(ptr: *const u8, len: usize) {
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
pub(crate) fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory of the allocator's
    // arenas to the system; no live allocation moves.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// The processor time the calling thread has used so far, where the system
/// tells it (Linux); `None` elsewhere. Unlike wall time, it leaves out the
/// time the thread waited for a core that other processes held.
pub(crate) fn thread_cpu_time() -> Option<std::time::Duration> {
    #[cfg(target_os = "linux")]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec; the call only writes
        // it.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        let secs = u64::try_from(ts.tv_sec).ok()?;
        let nanos = u32::try_from(ts.tv_nsec).ok()?;
        (rc == 0).then(|| std::time::Duration::new(secs, nanos))
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sysfs_sizes_parse() {
        assert_eq!(parse_cache_size("48K"), Some(48 << 10));
        assert_eq!(parse_cache_size("2048K"), Some(2 << 20));
        assert_eq!(parse_cache_size("32M"), Some(32 << 20));
        assert_eq!(parse_cache_size("512"), Some(512));
        assert_eq!(parse_cache_size("0K"), None);
        assert_eq!(parse_cache_size("12X"), None);
        assert_eq!(parse_cache_size(""), None);
    }

    #[test]
    fn a_balloon_that_reports_free_memory_is_seen() {
        let dir = tempfile::tempdir().unwrap();
        let device = |name: &str, id: &str, features: &str| {
            let d = dir.path().join(name);
            std::fs::create_dir(&d).unwrap();
            std::fs::write(d.join("device"), format!("{id}\n")).unwrap();
            std::fs::write(d.join("features"), format!("{features}\n")).unwrap();
        };
        // A disk with bit 5 set, and a balloon without it.
        device("virtio0", "0x0002", "0010011001");
        device("virtio1", "0x0005", "0110000000");
        assert!(!reported_by_balloon(dir.path()));
        device("virtio2", "0x0005", "0110010100");
        assert!(reported_by_balloon(dir.path()));
        assert!(!reported_by_balloon(&dir.path().join("missing")));
    }

    #[test]
    fn a_sysfs_directory_gives_each_level() {
        let dir = tempfile::tempdir().unwrap();
        for (i, level, kind, size) in [
            (0, "1", "Data", "48K"),
            (1, "1", "Instruction", "32K"),
            (2, "2", "Unified", "2048K"),
            (3, "3", "Unified", "54M"),
        ] {
            let d = dir.path().join(format!("index{i}"));
            std::fs::create_dir(&d).unwrap();
            std::fs::write(d.join("level"), level).unwrap();
            std::fs::write(d.join("type"), kind).unwrap();
            std::fs::write(d.join("size"), format!("{size}\n")).unwrap();
            std::fs::write(d.join("coherency_line_size"), "64\n").unwrap();
        }
        let sizes = CacheSizes::from_sysfs(dir.path()).unwrap();
        assert_eq!(
            (sizes.l1d, sizes.l2, sizes.l3, sizes.line),
            (48 << 10, 2 << 20, 54 << 20, 64)
        );
        assert_eq!(sizes.source, CacheSource::Sysfs);
        // A directory without the first two levels tells nothing.
        std::fs::remove_dir_all(dir.path().join("index2")).unwrap();
        assert_eq!(CacheSizes::from_sysfs(dir.path()), None);
    }

    #[test]
    fn this_machine_reports_plausible_caches() {
        let c = caches();
        assert!(c.l1d >= 8 << 10 && c.l1d <= 1 << 20, "{c:?}");
        assert!(c.l2 >= c.l1d, "{c:?}");
        assert!(c.line.is_power_of_two(), "{c:?}");
        #[cfg(target_arch = "x86_64")]
        if let Some(cpuid) = CacheSizes::from_cpuid() {
            // The two sources agree on the per-core levels where both
            // tell (a hypervisor may hide some of CPUID's).
            if c.source == CacheSource::Sysfs {
                assert_eq!(cpuid.l1d, c.l1d, "{cpuid:?} against {c:?}");
            }
        }
    }
}
