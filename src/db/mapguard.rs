//! Mapped files that shrink underneath their reader.
//!
//! A read from a page of a mapped file that lies past the file's end (the
//! file was truncated after it was mapped) raises SIGBUS, which kills the
//! process unless it is handled. On Linux a process-wide SIGBUS handler
//! maps an anonymous page of zeros over the faulting page of any mapping
//! registered here, notes in the mapping's slot that it lost bytes (the
//! lowest offset lost), and returns: the read repeats and sees zeros. The
//! reader checks the slot after each batch of lookups and reports the
//! database corrupted for the lookups that needed the lost bytes (see
//! [`crate::db::Database`]).
//!
//! The handler is installed once, the first time a mapping is registered,
//! and keeps the action that was there before: a fault at an address that
//! is not in a registered mapping goes to it (a handler of the host
//! program, Rust's stack-overflow report, or the default action, which
//! ends the process as it would have without this handler). A host that
//! installs its own SIGBUS handler afterwards must pass on the faults it
//! does not own, as `faulthandler` and most crash reporters do.
//!
//! The handler is async-signal-safe: it allocates nothing and takes no
//! lock. The registry is a fixed array of slots of atomic words, each slot
//! guarded by a sequence word (its state in the low bits, a generation in
//! the others), so that the handler never trusts a slot being written.
//!
//! Elsewhere than on Linux, registering does nothing and a truncated file
//! still ends its reader with SIGBUS (or the system's equivalent).

/// Why a mapping could not be registered.
#[derive(Debug, thiserror::Error)]
pub enum GuardError {
    /// Every slot of the registry is taken: too many databases are mapped at
    /// once.
    #[error("more than {0} database files are mapped at once")]
    Full(usize),
    /// The SIGBUS handler could not be installed.
    #[error("cannot install the SIGBUS handler: {0}")]
    Install(std::io::Error),
}

/// The most mappings registered at once.
pub(crate) const SLOTS: usize = 1024;

/// A registered mapping: while it lives, a fault in the mapping's range
/// maps zeros over the page and is noted, rather than ending the process.
/// Dropping it unregisters the range (before the mapping itself goes).
#[derive(Debug)]
pub(crate) struct MapGuard {
    #[cfg(target_os = "linux")]
    slot: usize,
}

impl MapGuard {
    /// Registers the mapped range of `len` bytes at `start` (page-aligned,
    /// as a mapping is), installing the handler the first time.
    pub(crate) fn register(start: *const u8, len: usize) -> Result<MapGuard, GuardError> {
        #[cfg(target_os = "linux")]
        {
            imp::install()?;
            let slot = imp::register(start as usize, len)?;
            Ok(MapGuard { slot })
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (start, len);
            Ok(MapGuard {})
        }
    }

    /// The offset, from the start of the mapping, of the lowest page a read
    /// found lost, if any read has (the page and everything after it may be
    /// zeros now).
    #[inline]
    pub(crate) fn lost_from(&self) -> Option<usize> {
        #[cfg(target_os = "linux")]
        {
            imp::lost_from(self.slot)
        }
        #[cfg(not(target_os = "linux"))]
        {
            None
        }
    }
}

impl Drop for MapGuard {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        imp::unregister(self.slot);
    }
}

#[cfg(target_os = "linux")]
mod imp {
    use std::cell::UnsafeCell;
    use std::mem::MaybeUninit;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::OnceLock;

    use super::{GuardError, SLOTS};

    /// A slot's state, in the low bits of its sequence word.
    const FREE: usize = 0;
    const BUSY: usize = 1;
    const LIVE: usize = 2;
    const STATE: usize = 3;
    /// No byte lost.
    const NONE: usize = usize::MAX;

    struct Slot {
        /// `generation << 2 | state`: the generation goes up each time the
        /// slot goes live, so that a reader can tell a slot that changed
        /// while it read it.
        seq: AtomicUsize,
        start: AtomicUsize,
        end: AtomicUsize,
        /// The offset of the lowest page lost, or [`NONE`].
        lost: AtomicUsize,
    }

    #[allow(clippy::declare_interior_mutable_const)]
    const EMPTY: Slot = Slot {
        seq: AtomicUsize::new(FREE),
        start: AtomicUsize::new(0),
        end: AtomicUsize::new(0),
        lost: AtomicUsize::new(NONE),
    };

    static REGISTRY: [Slot; SLOTS] = [EMPTY; SLOTS];
    static PAGE: AtomicUsize = AtomicUsize::new(4096);

    /// The action SIGBUS had before ours: written once, before ours is
    /// installed, and only read afterwards.
    struct Previous(UnsafeCell<MaybeUninit<libc::sigaction>>);
    // SAFETY: written once under `INSTALLED`'s initialisation, before the
    // handler that reads it exists; never written again.
    unsafe impl Sync for Previous {}
    static PREVIOUS: Previous = Previous(UnsafeCell::new(MaybeUninit::zeroed()));
    static INSTALLED: OnceLock<Result<(), i32>> = OnceLock::new();

    /// Installs the handler, once per process.
    pub(super) fn install() -> Result<(), GuardError> {
        let done = INSTALLED.get_or_init(|| {
            // SAFETY: sysconf has no preconditions.
            let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
            if page > 0 {
                PAGE.store(page as usize, Ordering::Relaxed);
            }
            // SAFETY: `PREVIOUS` is written here only, before the handler
            // that reads it is installed; a zeroed sigaction is a valid
            // value, and the new action is fully initialised.
            unsafe {
                if libc::sigaction(
                    libc::SIGBUS,
                    std::ptr::null(),
                    (*PREVIOUS.0.get()).as_mut_ptr(),
                ) != 0
                {
                    return Err(std::io::Error::last_os_error().raw_os_error().unwrap_or(0));
                }
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_sigbus as *const () as libc::sighandler_t;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut action.sa_mask);
                if libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut()) != 0 {
                    return Err(std::io::Error::last_os_error().raw_os_error().unwrap_or(0));
                }
            }
            Ok(())
        });
        done.map_err(|code| GuardError::Install(std::io::Error::from_raw_os_error(code)))
    }

    pub(super) fn register(start: usize, len: usize) -> Result<usize, GuardError> {
        for (i, slot) in REGISTRY.iter().enumerate() {
            let seq = slot.seq.load(Ordering::Acquire);
            if seq & STATE != FREE {
                continue;
            }
            if slot
                .seq
                .compare_exchange(seq, seq | BUSY, Ordering::AcqRel, Ordering::Relaxed)
                .is_err()
            {
                continue;
            }
            slot.start.store(start, Ordering::Relaxed);
            slot.end.store(start.saturating_add(len), Ordering::Relaxed);
            slot.lost.store(NONE, Ordering::Relaxed);
            slot.seq
                .store(((seq >> 2) + 1) << 2 | LIVE, Ordering::Release);
            return Ok(i);
        }
        Err(GuardError::Full(SLOTS))
    }

    pub(super) fn unregister(i: usize) {
        let slot = &REGISTRY[i];
        let seq = slot.seq.load(Ordering::Relaxed) & !STATE;
        slot.seq.store(seq | BUSY, Ordering::Release);
        slot.start.store(0, Ordering::Relaxed);
        slot.end.store(0, Ordering::Relaxed);
        slot.lost.store(NONE, Ordering::Relaxed);
        slot.seq.store(seq | FREE, Ordering::Release);
    }

    #[inline]
    pub(super) fn lost_from(i: usize) -> Option<usize> {
        match REGISTRY[i].lost.load(Ordering::SeqCst) {
            NONE => None,
            at => Some(at),
        }
    }

    /// The live slot whose range holds `addr`, and the range's start.
    fn owner(addr: usize) -> Option<(&'static Slot, usize)> {
        REGISTRY.iter().find_map(|slot| {
            let seq = slot.seq.load(Ordering::Acquire);
            if seq & STATE != LIVE {
                return None;
            }
            let start = slot.start.load(Ordering::Relaxed);
            let end = slot.end.load(Ordering::Relaxed);
            if slot.seq.load(Ordering::Acquire) != seq {
                return None;
            }
            (start <= addr && addr < end).then_some((slot, start))
        })
    }

    extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
        // SAFETY: the kernel hands a valid siginfo to an SA_SIGINFO
        // handler; errno is this thread's, saved and given back.
        unsafe {
            let errno = *libc::__errno_location();
            let addr = (*info).si_addr() as usize;
            let handled = owner(addr).is_some_and(|(slot, start)| {
                let page = PAGE.load(Ordering::Relaxed);
                let base = addr & !(page - 1);
                // Noted before the zeros appear: whoever reads them and then
                // looks at the slot sees the loss.
                slot.lost
                    .fetch_min(base.saturating_sub(start), Ordering::SeqCst);
                let zeros = libc::mmap(
                    base as *mut libc::c_void,
                    page,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                );
                zeros != libc::MAP_FAILED
            });
            if !handled {
                pass_on(sig, info, ctx);
            }
            *libc::__errno_location() = errno;
        }
    }

    /// Hands a fault that is not ours to the action that was there before.
    ///
    /// # Safety
    ///
    /// Called from the signal handler only, with what it was given.
    unsafe fn pass_on(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
        // SAFETY: `PREVIOUS` was written before the handler was installed.
        let previous = unsafe { (*PREVIOUS.0.get()).assume_init_ref() };
        let handler = previous.sa_sigaction;
        if handler == libc::SIG_DFL || handler == libc::SIG_IGN {
            // The default action for a fault: put it back, and the faulting
            // instruction, run again on return, ends the process (a SIGBUS
            // sent by another process is sent again, to the same end).
            // SAFETY: sigaction and raise are async-signal-safe.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = libc::SIG_DFL;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(sig, &action, std::ptr::null_mut());
                if (*info).si_code <= 0 && handler == libc::SIG_DFL {
                    libc::raise(sig);
                }
            }
        } else if previous.sa_flags & libc::SA_SIGINFO != 0 {
            // SAFETY: an SA_SIGINFO action's handler has this signature.
            unsafe {
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    std::mem::transmute(handler);
                f(sig, info, ctx);
            }
        } else {
            // SAFETY: a plain action's handler takes the signal number.
            unsafe {
                let f: extern "C" fn(libc::c_int) = std::mem::transmute(handler);
                f(sig);
            }
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_truncated_mapping_reads_zeros_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let mut f = std::fs::File::create(&path).unwrap();
        f.write_all(&vec![7u8; 5 * 4096]).unwrap();
        f.sync_all().unwrap();
        let file = std::fs::File::open(&path).unwrap();
        // SAFETY: the test truncates the file on purpose: that is what the
        // guard is for.
        let map = unsafe { memmap2::Mmap::map(&file) }.unwrap();
        let guard = MapGuard::register(map.as_ptr(), map.len()).unwrap();
        assert_eq!(guard.lost_from(), None);
        assert_eq!(map[3 * 4096], 7);
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(2 * 4096 + 100)
            .unwrap();
        // Below the new end: the bytes are still there.
        assert_eq!(std::hint::black_box(&map)[4096], 7);
        assert_eq!(guard.lost_from(), None);
        // Past it: zeros, and the loss noted at the page.
        let read = std::hint::black_box(&map)[4 * 4096 + 10];
        assert_eq!(read, 0);
        assert_eq!(guard.lost_from(), Some(4 * 4096));
        let read = std::hint::black_box(&map)[3 * 4096 + 1];
        assert_eq!(read, 0);
        assert_eq!(guard.lost_from(), Some(3 * 4096));
        drop(guard);
        drop(map);
    }

    #[test]
    fn slots_are_given_back() {
        let bytes = vec![0u8; 4096];
        for _ in 0..2 * SLOTS {
            let guard = MapGuard::register(bytes.as_ptr(), bytes.len()).unwrap();
            assert_eq!(guard.lost_from(), None);
        }
    }
}
