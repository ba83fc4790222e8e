//! Dots and Boxes search benchmark: empty boards, random positions, and
//! the search checked against a dense table.
//!
//! ```text
//! cargo bench --bench dots_and_boxes -- --root 3x5           # the empty 3x5 board
//! cargo bench --bench dots_and_boxes -- --root 4x4 --table-bits 29  # 4 GiB
//! cargo bench --bench dots_and_boxes -- --random 4x4 --edges 20 --count 100
//! cargo bench --bench dots_and_boxes -- --random 4x4 --edges 20 --count 100 --safe
//! cargo bench --bench dots_and_boxes -- --check 3x4 --count 10
//! cargo bench --bench dots_and_boxes -- --check 3x4 --count 100 --edges 12-31
//! ```
//!
//! * `--root RxC` searches the empty board and prints its value, the nodes
//!   searched and the time.
//! * `--random RxC --edges A[-B] --count N` searches N random edge sets of
//!   A to B drawn edges (every edge set is a position of the game), each
//!   with a cleared table, and prints the median, the slowest and the
//!   total. With `--safe` the edges are drawn one by one, each giving no
//!   box away while such an edge is left (the positions of a careful game,
//!   far harder than edge sets drawn at random, where boxes lie open).
//! * `--check RxC --count N [--edges A-B]` solves the board's dense table
//!   (boards of at most 32 edges), then searches N random edge sets of
//!   every number of drawn edges in the range and checks each against the
//!   table. It fails on the first disagreement.
//!
//! `--table-bits B` gives the searcher `2^B` entries of 8 bytes (24 by
//! default: 128 MiB). One thread. Times are the thread's CPU time (Linux)
//! and wall time.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use boardsolve::core::{Game, NoProgress};
use boardsolve::games::dots_and_boxes::search::Solver;
use boardsolve::games::dots_and_boxes::DotsAndBoxes;

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

/// CPU time where known, else wall time, of `f`.
fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration, Duration) {
    let (c0, w0) = (thread_cpu(), Instant::now());
    let out = f();
    let wall = w0.elapsed();
    let cpu = match (c0, thread_cpu()) {
        (Some(a), Some(b)) => b - a,
        _ => wall,
    };
    (out, cpu, wall)
}

enum Mode {
    Root,
    Random,
    Check,
}

struct Options {
    mode: Mode,
    board: DotsAndBoxes,
    edges: (u32, u32),
    count: usize,
    table_bits: u32,
    safe: bool,
}

fn options() -> Result<Options, String> {
    let mut mode = None;
    let mut board = None;
    let mut edges = None;
    let mut count = 10;
    let mut table_bits = 24;
    let mut safe = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match a.as_str() {
            "--root" | "--random" | "--check" => {
                mode = Some(match a.as_str() {
                    "--root" => Mode::Root,
                    "--random" => Mode::Random,
                    _ => Mode::Check,
                });
                let v = value(&a)?;
                board = Some(DotsAndBoxes::from_variant(&v).map_err(|e| e.to_string())?);
            }
            "--edges" => {
                let v = value("--edges")?;
                let (a, b) = v.split_once('-').unwrap_or((&v, &v));
                let num = |t: &str| t.parse::<u32>().map_err(|_| format!("bad --edges {v}"));
                edges = Some((num(a)?, num(b)?));
            }
            "--count" => {
                count = value("--count")?
                    .parse()
                    .map_err(|_| "--count needs a number")?
            }
            "--table-bits" => {
                table_bits = value("--table-bits")?
                    .parse()
                    .ok()
                    .filter(|b| (1..=34).contains(b))
                    .ok_or("--table-bits needs 1 to 34")?
            }
            "--safe" => safe = true,
            // Cargo passes `--bench` to every bench target.
            "--bench" => {}
            s => return Err(format!("unknown argument {s}")),
        }
    }
    let (mode, board) = match (mode, board) {
        (Some(m), Some(b)) => (m, b),
        _ => return Err("give --root, --random or --check with a board, e.g. --root 3x5".into()),
    };
    let all = board.edge_count();
    let edges = edges.unwrap_or(match mode {
        Mode::Random => (20, all),
        _ => (0, all),
    });
    if edges.0 > edges.1 || edges.1 > all {
        return Err(format!("--edges: {all} edges at most, the smaller first"));
    }
    Ok(Options {
        mode,
        board,
        edges,
        count,
        table_bits,
        safe,
    })
}

/// xorshift64: the same positions on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A random set of `drawn` of `edges` edges.
    fn edges(&mut self, edges: u32, drawn: u32) -> u64 {
        let mut state = 0u64;
        while state.count_ones() < drawn {
            state |= 1 << (self.next() % u64::from(edges));
        }
        state
    }

    /// `drawn` edges of `game` drawn one by one at random, each giving no
    /// box a third side while such an edge is left.
    fn careful(&mut self, game: &DotsAndBoxes, drawn: u32) -> u64 {
        let all = (1u64 << game.edge_count()) - 1;
        let mut state = 0u64;
        while state.count_ones() < drawn {
            let free = all & !state;
            let safe = (0..game.edge_count())
                .map(|e| 1u64 << e)
                .filter(|&e| {
                    free & e != 0
                        && game
                            .box_masks()
                            .iter()
                            .all(|&b| b & e == 0 || ((state | e) & b).count_ones() < 3)
                })
                .fold(0u64, |m, e| m | e);
            let pool = if safe != 0 { safe } else { free };
            let mut k = self.next() % u64::from(pool.count_ones());
            let mut left = pool;
            while k > 0 {
                left &= left - 1;
                k -= 1;
            }
            state |= left & left.wrapping_neg();
        }
        state
    }
}

fn seconds(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

fn root(o: &Options) -> bool {
    let mut solver = Solver::new(&o.board, o.table_bits);
    let (value, cpu, wall) = timed(|| solver.value(0));
    println!(
        "{} root: value {value:+}, {} nodes, {} CPU, {} wall (table 2^{} entries)",
        o.board.descriptor().variant,
        solver.nodes(),
        seconds(cpu),
        seconds(wall),
        o.table_bits
    );
    true
}

fn random(o: &Options) -> bool {
    let g = &o.board;
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut solver = Solver::new(g, o.table_bits);
    let mut times = Vec::new();
    let mut slowest = (Duration::ZERO, 0u64);
    let mut nodes = 0;
    for _ in 0..o.count {
        let drawn = o.edges.0 + (rng.next() % u64::from(o.edges.1 - o.edges.0 + 1)) as u32;
        let state = if o.safe {
            rng.careful(g, drawn)
        } else {
            rng.edges(g.edge_count(), drawn)
        };
        solver.clear();
        let before = solver.nodes();
        let (_, cpu, _) = timed(|| solver.value(state));
        nodes += solver.nodes() - before;
        if cpu > slowest.0 {
            slowest = (cpu, state);
        }
        times.push(cpu);
    }
    times.sort();
    let total: Duration = times.iter().sum();
    println!(
        "{} {} positions of {} to {} edges: {} positions, median {}, slowest {} ({}), \
         total {}, {nodes} nodes",
        g.descriptor().variant,
        if o.safe { "careful" } else { "random" },
        o.edges.0,
        o.edges.1,
        times.len(),
        seconds(times.get(times.len() / 2).copied().unwrap_or_default()),
        seconds(slowest.0),
        g.format_position(slowest.1),
        seconds(total)
    );
    true
}

fn check(o: &Options) -> bool {
    let g = &o.board;
    // The table is solved on every core: its wall time is what tells.
    let (table, _, wall) = timed(|| boardsolve::solve::dense::solve_dense(g, &NoProgress));
    let table = match table {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{}: {e}", g.descriptor().variant);
            return false;
        }
    };
    println!(
        "{}: dense table solved in {} (wall)",
        g.descriptor().variant,
        seconds(wall)
    );
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut solver = Solver::new(g, o.table_bits);
    let mut checked = 0;
    for drawn in o.edges.0..=o.edges.1 {
        let mut time = Duration::ZERO;
        for _ in 0..o.count {
            let state = rng.edges(g.edge_count(), drawn);
            let want = i32::from(table.values()[state as usize]);
            let (got, cpu, _) = timed(|| solver.value(state));
            time += cpu;
            if got != want {
                println!(
                    "DISAGREE at {}: search {got}, table {want}",
                    g.format_position(state)
                );
                return false;
            }
            checked += 1;
        }
        println!(
            "{drawn:>2} edges: {} positions agree, {} of search",
            o.count,
            seconds(time)
        );
    }
    println!("{checked} positions agree");
    true
}

fn main() -> ExitCode {
    let o = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("dots_and_boxes bench: {e}");
            return ExitCode::FAILURE;
        }
    };
    let ok = match o.mode {
        Mode::Root => root(&o),
        Mode::Random => random(&o),
        Mode::Check => check(&o),
    };
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
