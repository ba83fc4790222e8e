//! Per-phase wall and CPU time of the British Square solve and write, in
//! one process: what the README's phase figures come from.
//!
//! `cargo run --release --example bsq_phases [-- OUTPUT]` (default output
//! `bsq-phases.db` in the temporary directory; `RAYON_NUM_THREADS=1` for
//! one thread). Linux only (it reads `getrusage`).

#[cfg(target_os = "linux")]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    use std::sync::Mutex;
    use std::time::Instant;

    use boardsolve::core::{platform, Progress};
    use boardsolve::games::british_square::BritishSquare;
    use boardsolve::solve::bucketed;
    use boardsolve::Game;

    /// User and system CPU seconds of this process so far.
    fn cpu() -> (f64, f64) {
        // SAFETY: `rusage` is a C struct of integers, for which all zero
        // bytes are a valid value.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `u` is a valid, writable `rusage` for the call to fill.
        unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
        let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
        (t(u.ru_utime), t(u.ru_stime))
    }

    /// A phase's name, start and CPU at its start.
    struct Phases(Mutex<(String, Instant, (f64, f64))>);

    impl Phases {
        fn report(name: &str, start: Instant, (u0, s0): (f64, f64)) {
            let (u, s) = cpu();
            eprintln!(
                "{name:10} wall {:.3} s  user {:.3} s  sys {:.3} s",
                start.elapsed().as_secs_f64(),
                u - u0,
                s - s0
            );
        }
    }

    impl Progress for Phases {
        fn start_phase(&self, name: &str, _total: u64) {
            if let Ok(mut p) = self.0.lock() {
                *p = (name.to_owned(), Instant::now(), cpu());
            }
        }
        fn finish_phase(&self) {
            if let Ok(p) = self.0.lock() {
                Phases::report(&p.0, p.1, p.2);
            }
        }
    }

    let output = std::env::args_os()
        .nth(1)
        .map_or_else(|| std::env::temp_dir().join("bsq-phases.db"), Into::into);
    // What the machine reports, which the phase times depend on.
    let (caches, features) = (platform::caches(), platform::features());
    eprintln!(
        "caches: L1d {} KiB, L2 {} KiB, L3 {} MiB ({:?}); huge pages {:?}, free memory \
         reported to a host {}; AVX-512 {}, AVX2 {}",
        caches.l1d >> 10,
        caches.l2 >> 10,
        caches.l3 >> 20,
        caches.source,
        platform::huge_pages(),
        platform::free_memory_reported(),
        features.avx512_f_dq_vl(),
        features.avx2
    );
    let game = BritishSquare::new(5, false)?;
    let (start, at) = (Instant::now(), cpu());
    let phases = Phases(Mutex::new((String::new(), Instant::now(), cpu())));
    let solution = bucketed::solve(&game, &phases)?;
    let (write_start, write_at) = (Instant::now(), cpu());
    boardsolve::db::write_database(&output, game.descriptor(), &solution.clone().into())?;
    Phases::report("write", write_start, write_at);
    Phases::report("total", start, at);
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if let Some(peak) = status.lines().find(|l| l.starts_with("VmHWM")) {
        eprintln!("{peak}");
    }
    eprintln!("{} states -> {}", solution.records.len(), output.display());
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn main() {
    eprintln!("bsq_phases reads getrusage and runs on Linux only");
}
