//! Connect Four solver benchmark on the six public benchmark sets (and the
//! empty board).
//!
//! ```text
//! cargo bench --bench connect_four                       # every set, whole
//! cargo bench --bench connect_four -- --limit 100 Test_L1_R2
//! cargo bench --bench connect_four -- --repeat 5 Test_L3_R1 Test_L2_R1
//! cargo bench --bench connect_four -- --weak Test_L1_R3
//! cargo bench --bench connect_four -- --empty            # the 7x6 start
//! cargo bench --bench connect_four -- --book c4.db Test_L1_R3
//! cargo bench --bench connect_four -- --stones 9-13 Test_L1_R3
//! ```
//!
//! Options: `--limit N` solves the first N positions of each set (also the
//! `C4_LIMIT` environment variable); `--repeat R` runs each set R times and
//! reports the median of the per-run means; `--weak` solves for the outcome
//! only (checked against the sign of the expected score); `--table-bits B`
//! sets the table to 2^B entries; `--empty` solves the empty board instead;
//! `--book PATH` gives the solver an opening book (a Connect Four database:
//! positions it holds are read from it, and searches take its scores at
//! the nodes it holds; loading it is not timed); `--stones A-B` keeps only
//! the positions of A to B stones.
//! Set names select sets (all six when none is given).
//!
//! Method: one thread; the transposition table is cleared before every
//! position and the clear is timed with the solve (it only costs what the
//! previous search touched, unless that was a large part of the table).
//! Times are the thread's CPU time (Linux) and wall time.
//!
//! The sets are read from `../shared/benchmarks/connect-four` relative to
//! the repository root (`C4_BENCH_DIR` overrides it).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use std::sync::Arc;

use boardsolve::games::connect_four::{Bitboard, ConnectFour, Solver, Variant};
use boardsolve::Database;

const SETS: [&str; 6] = [
    "Test_L3_R1",
    "Test_L2_R1",
    "Test_L2_R2",
    "Test_L1_R1",
    "Test_L1_R2",
    "Test_L1_R3",
];

/// CPU time of the calling thread, where the platform tells it.
fn thread_cpu() -> Option<Duration> {
    #[cfg(target_os = "linux")]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec for the call.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        if rc == 0 {
            return Some(Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32));
        }
    }
    None
}

struct Options {
    limit: Option<usize>,
    repeat: usize,
    weak: bool,
    empty: bool,
    table_bits: u32,
    book: Option<PathBuf>,
    stones: (u32, u32),
    sets: Vec<String>,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        limit: std::env::var("C4_LIMIT").ok().and_then(|v| v.parse().ok()),
        repeat: 1,
        weak: false,
        empty: false,
        table_bits: Solver::DEFAULT_TABLE_BITS,
        book: None,
        stones: (0, u32::MAX),
        sets: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut number = |name: &str| -> Result<usize, String> {
            args.next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{name} needs a number"))
        };
        match a.as_str() {
            "--limit" => o.limit = Some(number("--limit")?),
            "--repeat" => o.repeat = number("--repeat")?.max(1),
            "--table-bits" => o.table_bits = number("--table-bits")? as u32,
            "--weak" => o.weak = true,
            "--book" => o.book = Some(args.next().ok_or("--book needs a path")?.into()),
            "--stones" => {
                let r = args.next().ok_or("--stones needs A-B")?;
                let (a, b) = r.split_once('-').ok_or("--stones needs A-B")?;
                o.stones = (
                    a.parse().map_err(|_| "bad --stones")?,
                    b.parse().map_err(|_| "bad --stones")?,
                );
            }
            "--empty" => o.empty = true,
            // Cargo passes `--bench` to every bench target.
            "--bench" => {}
            s if s.starts_with("--") => return Err(format!("unknown option {s}")),
            s => {
                if !SETS.contains(&s) {
                    return Err(format!("unknown set {s} (sets: {})", SETS.join(", ")));
                }
                o.sets.push(s.to_owned());
            }
        }
    }
    if o.sets.is_empty() {
        o.sets = SETS.iter().map(|s| s.to_string()).collect();
    }
    Ok(o)
}

fn bench_dir() -> PathBuf {
    match std::env::var_os("C4_BENCH_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/benchmarks/connect-four"),
    }
}

fn load(set: &str) -> Result<Vec<(Bitboard, i32, String)>, String> {
    let path = bench_dir().join(set);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let (moves, score) = line
                .split_once(' ')
                .ok_or_else(|| format!("{set}: malformed line {line:?}"))?;
            let p = Bitboard::from_moves(Variant::STANDARD, moves).map_err(|e| e.to_string())?;
            let s = score
                .trim()
                .parse()
                .map_err(|_| format!("{set}: bad score in {line:?}"))?;
            Ok((p, s, moves.to_owned()))
        })
        .collect()
}

fn fmt_time(d: f64) -> String {
    if d >= 1.0 {
        format!("{d:.2} s")
    } else if d >= 1e-3 {
        format!("{:.2} ms", d * 1e3)
    } else {
        format!("{:.1} µs", d * 1e6)
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn run_set(solver: &mut Solver, o: &Options, set: &str) -> Result<bool, String> {
    let mut positions = load(set)?;
    positions.retain(|(p, _, _)| (o.stones.0..=o.stones.1).contains(&p.moves()));
    if let Some(n) = o.limit {
        positions.truncate(n);
    }
    let (mut cpu_means, mut wall_means) = (Vec::new(), Vec::new());
    let (mut nodes, mut ok, mut max_cpu) = (0u64, true, 0f64);
    for _ in 0..o.repeat {
        let (mut cpu, mut wall) = (0f64, 0f64);
        nodes = 0;
        ok = true;
        for (p, expected, moves) in &positions {
            let (c0, w0) = (thread_cpu(), Instant::now());
            solver.clear();
            solver.reset_nodes();
            let got = if o.weak {
                solver.solve_weak(p)
            } else {
                solver.solve(p)
            };
            let w = w0.elapsed().as_secs_f64();
            let c = match (c0, thread_cpu()) {
                (Some(a), Some(b)) => b.saturating_sub(a).as_secs_f64(),
                _ => w,
            };
            cpu += c;
            wall += w;
            max_cpu = max_cpu.max(c);
            nodes += solver.nodes();
            let want = if o.weak { expected.signum() } else { *expected };
            if got != want {
                ok = false;
                eprintln!("{set}: {moves}: expected {want}, got {got}");
            }
        }
        let n = positions.len().max(1) as f64;
        cpu_means.push(cpu / n);
        wall_means.push(wall / n);
    }
    let n = positions.len().max(1) as f64;
    println!(
        "{set:<11} {:>5} positions  mean CPU {:>9}  (wall {:>9}, max {:>9})  mean nodes {:>12.1}  \
         {:>6.2} Mnodes/s  {}",
        positions.len(),
        fmt_time(median(&mut cpu_means)),
        fmt_time(median(&mut wall_means)),
        fmt_time(max_cpu),
        nodes as f64 / n,
        nodes as f64 / n / median(&mut cpu_means).max(1e-12) / 1e6,
        if ok { "all scores match" } else { "MISMATCH" }
    );
    Ok(ok)
}

fn main() -> ExitCode {
    let o = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("connect_four bench: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut solver = match Solver::with_table_bits(o.table_bits) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("connect_four bench: {e}");
            return ExitCode::FAILURE;
        }
    };
    solver.prefault();
    if let Some(path) = &o.book {
        let book = Database::open(path)
            .map_err(|e| e.to_string())
            .and_then(|db| {
                ConnectFour::new(Variant::STANDARD)
                    .book_scores(&db)
                    .map_err(|e| e.to_string())
            });
        match book {
            Ok(b) => {
                println!(
                    "book {}: {} positions of at most {} stones",
                    path.display(),
                    b.len(),
                    b.depth()
                );
                solver.set_book(Some(Arc::new(b)));
            }
            Err(e) => {
                eprintln!("connect_four bench: {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
        }
    }
    let mode = if o.weak { "weak" } else { "strong" };
    println!(
        "Connect Four 7x6, {mode} solver, table 2^{} entries, cleared per position, one thread{}",
        solver.table_bits(),
        match o.limit {
            Some(n) => format!(", first {n} positions per set"),
            None => String::new(),
        }
    );
    if o.empty {
        let p = Bitboard::new(Variant::STANDARD);
        let (c0, w0) = (thread_cpu(), Instant::now());
        let score = if o.weak {
            solver.solve_weak(&p)
        } else {
            solver.solve(&p)
        };
        let w = w0.elapsed().as_secs_f64();
        let c = match (c0, thread_cpu()) {
            (Some(a), Some(b)) => b.saturating_sub(a).as_secs_f64(),
            _ => w,
        };
        println!(
            "empty board: score {score:+}  CPU {}  wall {}  nodes {}",
            fmt_time(c),
            fmt_time(w),
            solver.nodes()
        );
        return ExitCode::SUCCESS;
    }
    let mut all_ok = true;
    for set in &o.sets {
        match run_set(&mut solver, &o, set) {
            Ok(ok) => all_ok &= ok,
            Err(e) => {
                eprintln!("connect_four bench: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
