//! Dandelions solver benchmark: the 5x5 win proof, the exact outcome of the
//! start, and of every first flower (up to symmetry).
//!
//! ```text
//! cargo bench --bench dandelions                 # win proof and exact start
//! cargo bench --bench dandelions -- --first      # also every first flower
//! cargo bench --bench dandelions -- --table-bits 22
//! ```
//!
//! One thread, a fresh table for each measurement; CPU time of the thread
//! (Linux) and wall time; the process's peak memory at the end. Exits
//! non-zero if an answer differs from the known one (the dandelions win
//! with all seven flowers: outcome +1, from the start and after every first
//! flower).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use boardsolve::game::dandelions::{Field, Geometry, Solver};

fn thread_cpu() -> Duration {
    #[cfg(target_os = "linux")]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec for the call.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0 {
            return Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32);
        }
    }
    Duration::ZERO
}

fn peak_rss_mib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

fn measure<T>(what: &str, f: impl FnOnce() -> (T, u64)) -> T {
    let (c0, w0) = (thread_cpu(), Instant::now());
    let (out, nodes) = f();
    let (cpu, wall) = (thread_cpu() - c0, w0.elapsed());
    println!(
        "{what:<34} CPU {:>8.3} s  wall {:>8.3} s  nodes {:>12}",
        cpu.as_secs_f64(),
        wall.as_secs_f64(),
        nodes
    );
    out
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let first = args.iter().any(|a| a == "--first");
    let bits = args
        .iter()
        .position(|a| a == "--table-bits")
        .and_then(|i| args.get(i + 1))
        .and_then(|b| b.parse().ok())
        .unwrap_or(22u32);
    let geo = Geometry::new(5);
    let start = Field::default();
    println!("Dandelions 5x5, one thread, table 2^{bits} entries of 16 bytes");
    let mut ok = true;
    let win = measure("win proof (start)", || {
        let mut s = Solver::new(geo.clone(), bits);
        (s.dandelions_win(&start), s.nodes())
    });
    println!("  the dandelions {}", if win { "win" } else { "lose" });
    ok &= win;
    let (d, rem) = measure("exact outcome (start)", || {
        let mut s = Solver::new(geo.clone(), bits);
        (s.solve(&start), s.nodes())
    });
    println!("  outcome {d:+} ({} flowers), remoteness {rem}", 8 - d);
    ok &= (d, rem) == (1, 14);
    if first {
        // The first flowers up to symmetry: a1 b1 c1 b2 c2 c3.
        for c in [0u32, 1, 2, 6, 7, 12] {
            let f = Field {
                seeds: 0,
                flowers: 1 << c,
                dirs: 0,
            };
            let name = format!(
                "first flower {}{}",
                (b'a' + (c % 5) as u8) as char,
                c / 5 + 1
            );
            let (d, _) = measure(&name, || {
                let mut s = Solver::new(geo.clone(), bits);
                (s.solve(&f), s.nodes())
            });
            println!("  outcome {d:+}");
            ok &= d == 1;
        }
    }
    if let Some(m) = peak_rss_mib() {
        println!("peak memory {m} MiB");
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        println!("UNEXPECTED ANSWER");
        ExitCode::FAILURE
    }
}
