//! Dandelions solver benchmark: the 5x5 win proof, the exact outcome of the
//! start, and of every first flower (up to symmetry).
//!
//! ```text
//! cargo bench --bench dandelions                 # win proof and exact start
//! cargo bench --bench dandelions -- --first      # also every first flower
//! cargo bench --bench dandelions -- --table-bits 22
//! cargo bench --bench dandelions -- --live 1000 --turn 10 --book dandelions.db
//! ```
//!
//! `--check N --book FILE` compares the book with the exact solver
//! (bisection with its table, as for the answers below) on `N` random
//! positions of 5 to 9 turns played, one turn count after the other.
//!
//! `--live N` times the query tool's analysis (the position's value and
//! every move's) by live search past a book, on `N` random positions of
//! `--turn` turns (10 by default): wall time per position, mean, median
//! and max. With `--book FILE`, the book is consulted first, as `query
//! --db FILE` does.
//!
//! One thread, a fresh table for each measurement; CPU time of the thread
//! (Linux) and wall time; the process's peak memory at the end. Exits
//! non-zero if an answer differs from the known one (the dandelions win
//! with all seven flowers: outcome +1, from the start and after every first
//! flower).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use boardsolve::games::dandelions::{Dandelions, Field, Geometry, Solver};
use boardsolve::solve::live::LiveSearch;
use boardsolve::Database;
use boardsolve::Game;

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

/// A random position after `turns` random moves, or `None` if the game
/// ended sooner.
fn random_position(game: &Dandelions, turns: u32, seed: &mut u64) -> Option<u64> {
    let mut state = game.start();
    let mut edges = Vec::new();
    for _ in 0..turns {
        edges.clear();
        game.moves(state, &mut edges);
        if edges.is_empty() {
            return None;
        }
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        state = edges[(*seed % edges.len() as u64) as usize].child;
    }
    edges.clear();
    game.moves(state, &mut edges);
    (!edges.is_empty()).then_some(state)
}

/// `--live N`: the analysis of `N` random positions of `turns` turns by
/// live search (after the book, if any), timed one by one.
fn live(n: usize, turns: u32, book: Option<&str>) -> bool {
    let game = Dandelions::from_variant("").expect("5x5");
    let db = book.map(|p| Database::open(p).expect("cannot open the book"));
    let live = LiveSearch::new(
        game.clone(),
        db.as_ref().map(|d| d as &dyn boardsolve::core::BookSource),
        boardsolve::solve::book::DEFAULT_TABLE_BITS,
    )
    .expect("live search");
    let mut seed = 0x5eed_1234_abcd_ef01u64;
    let mut times = Vec::with_capacity(n);
    let mut cpu = Vec::with_capacity(n);
    let mut in_book = 0;
    // A first analysis, not timed: it sets up the buffers.
    if let Some(state) = random_position(&game, turns, &mut seed.clone()) {
        std::hint::black_box(boardsolve::analyze(&game, &live, state).expect("analysis"));
    }
    while times.len() < n {
        let Some(state) = random_position(&game, turns, &mut seed) else {
            continue;
        };
        if matches!(live.book_value(game.canonical(state)), Ok(Some(_))) {
            in_book += 1;
        }
        let (t, c) = (Instant::now(), thread_cpu());
        let a = boardsolve::analyze(&game, &live, state).expect("analysis");
        times.push(t.elapsed());
        cpu.push(thread_cpu() - c);
        std::hint::black_box(a);
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("live analysis, {n} random positions of {turns} turns ({in_book} in the book):");
    let mut worst = 0.0f64;
    for (what, mut t) in [("wall", times), ("CPU", cpu)] {
        t.sort_unstable();
        let mean = t.iter().sum::<Duration>() / n as u32;
        println!(
            "  {what:<4} mean {:.3} ms, median {:.3} ms, 99th percentile {:.3} ms, max {:.3} ms",
            ms(mean),
            ms(t[n / 2]),
            ms(t[(n * 99 / 100).min(n - 1)]),
            ms(t[n - 1])
        );
        if what == "CPU" {
            worst = ms(t[n - 1]);
        }
    }
    worst < 10.0
}

/// `--check N --book FILE`: the book's values against the solver's.
fn check(n: usize, book: &str) -> bool {
    let game = Dandelions::from_variant("").expect("5x5");
    let db = Database::open(book).expect("cannot open the book");
    let mut solver = Solver::new(game.geometry().clone(), 22);
    let mut seed = 0x0bad_cafe_1234_5678u64;
    let (mut checked, mut wrong) = (0, 0);
    let t = Instant::now();
    while checked < n {
        let turns = 5 + (checked % 5) as u32;
        let Some(state) = random_position(&game, turns, &mut seed) else {
            continue;
        };
        let f = game.field(state).expect("a state");
        let (d, rem) = solver.solve(&f);
        let want = game.value_of(&f, d, rem);
        let got = db.get(game.canonical(state));
        if got != Ok(Some(want)) {
            wrong += 1;
            println!(
                "MISMATCH {}: book {got:?}, search {want:?}",
                game.format_position(state)
            );
        }
        checked += 1;
    }
    println!(
        "book check: {checked} random positions of 5 to 9 turns, {wrong} mismatches ({:.1} s)",
        t.elapsed().as_secs_f64()
    );
    wrong == 0
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value_of = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    if let (Some(n), Some(book)) = (
        value_of("--check").and_then(|n| n.parse::<usize>().ok()),
        value_of("--book"),
    ) {
        return if check(n, &book) {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        };
    }
    if let Some(n) = value_of("--live").and_then(|n| n.parse::<usize>().ok()) {
        let turns = value_of("--turn")
            .and_then(|t| t.parse().ok())
            .unwrap_or(10);
        let ok = live(n.max(1), turns, value_of("--book").as_deref());
        if let Some(m) = peak_rss_mib() {
            println!("peak memory {m} MiB");
        }
        return if ok {
            ExitCode::SUCCESS
        } else {
            println!("SLOWER THAN 10 MS");
            ExitCode::FAILURE
        };
    }
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
