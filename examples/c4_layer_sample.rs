//! Samples the cost of a Connect Four book layer: solves a run of the
//! layer's canonical positions one after the other with one table (never
//! cleared), as the book builder does, and prints the time per position.
//!
//! ```text
//! cargo run --release --example c4_layer_sample -- DEPTH COUNT [FROM] [TABLE_BITS] [ORDER] [WARM]
//! ```
//!
//! `FROM` is where the run starts, as a fraction of the layer (0 to 1,
//! default 0.5), or several such points separated by commas (each run with
//! a fresh table; the totals at the end). `ORDER` is `key` (sorted keys),
//! `book` (the book builder's order), `guess` (the book builder's order,
//! each search starting from the score found just before, as the builder
//! does) or `weak` (outcome only, in the book order). `WARM` positions
//! just before each run are solved first, untimed, so that the run meets
//! the table a build would have there (default 0: an empty table).

use std::collections::HashSet;
use std::time::Instant;

use boardsolve::games::connect_four::{Bitboard, ConnectFour, Solver, Variant};
use boardsolve::solve::book::layer_order;

/// CPU time of the calling thread (Linux), else zero.
fn cpu() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc == 0 {
        ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
    } else {
        0.0
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let depth: u32 = args.next().as_deref().unwrap_or("8").parse()?;
    let count: usize = args.next().as_deref().unwrap_or("100").parse()?;
    let from = args.next().unwrap_or_else(|| "0.5".into());
    let bits: u32 = args.next().as_deref().unwrap_or("26").parse()?;
    let order = args.next().unwrap_or_else(|| "book".into());
    let warm: usize = args.next().as_deref().unwrap_or("0").parse()?;
    let v = Variant::STANDARD;
    let mut layer: Vec<u64> = vec![Bitboard::new(v).canonical_key()];
    for _ in 0..depth {
        let mut next = HashSet::new();
        for &k in &layer {
            let p = Bitboard::from_key(v, k).ok_or("bad key")?;
            if p.is_over() {
                continue;
            }
            for c in 0..v.width() {
                if let Ok(q) = p.play(c) {
                    next.insert(q.canonical_key());
                }
            }
        }
        layer = next.into_iter().collect();
        layer.sort_unstable();
    }
    let game = ConnectFour::new(v);
    if order != "key" {
        layer = layer_order(&game, depth, &layer);
    }
    let froms: Vec<f64> = from.split(',').map(str::parse).collect::<Result<_, _>>()?;
    println!(
        "depth {depth}: layer {} positions, {count} solved from each of {from} ({order} order), \
         table 2^{bits}, {warm} solved before each run",
        layer.len()
    );
    let (mut all_cpu, mut all_n, mut all_nodes, mut all_times) = (0.0, 0, 0, Vec::new());
    for &from in &froms {
        let start = ((layer.len() as f64 * from) as usize).min(layer.len());
        let run = &layer[start..(start + count).min(layer.len())];
        // A fresh table for every sample point, as for a separate run.
        let mut solver = Solver::with_table_bits(bits)?;
        // Map the whole table before the clock starts: a build pays for
        // that once, a short sample would pay for it in its first
        // positions.
        solver.prefault();
        let mut last = None;
        let mut solve = |solver: &mut Solver, p: &Bitboard| -> i32 {
            if p.is_over() {
                0
            } else if order == "weak" {
                solver.solve_weak(p)
            } else if order == "guess" {
                let s = match last {
                    Some(g) => solver.solve_near(p, g),
                    None => solver.solve(p),
                };
                // As the builder does: an end within two plies is no hint.
                if game.value_of_score(p, s).remoteness > 2 {
                    last = Some(s);
                }
                s
            } else {
                solver.solve(p)
            }
        };
        // The positions just before the run, untimed: the table as a build
        // would have it when it reaches the run.
        for &k in &layer[start.saturating_sub(warm)..start] {
            let p = Bitboard::from_key(v, k).ok_or("bad key")?;
            solve(&mut solver, &p);
        }
        solver.reset_nodes();
        let (t0, c0) = (Instant::now(), cpu());
        let mut hist = std::collections::BTreeMap::new();
        let mut times = Vec::new();
        let half = run.len() / 2;
        let mut first_half = (0.0, 0);
        for &k in run {
            let p = Bitboard::from_key(v, k).ok_or("bad key")?;
            let t = cpu();
            let s = solve(&mut solver, &p);
            times.push(cpu() - t);
            if times.len() == half {
                first_half = (cpu() - c0, solver.nodes());
            }
            *hist.entry(s).or_insert(0) += 1;
        }
        let (total, wall) = (cpu() - c0, t0.elapsed().as_secs_f64());
        let mut sorted = times.clone();
        sorted.sort_by(f64::total_cmp);
        println!(
            "from {from} ({start}): CPU {total:.1} s (wall {wall:.1} s), mean {:.3} s, median {:.3} s, max {:.3} s, nodes {}",
            total / run.len().max(1) as f64,
            sorted.get(sorted.len() / 2).copied().unwrap_or(0.0),
            sorted.last().copied().unwrap_or(0.0),
            solver.nodes()
        );
        println!("  scores: {hist:?}");
        println!(
            "  first half: CPU {:.1} s, nodes {}; second half: CPU {:.1} s, nodes {}",
            first_half.0,
            first_half.1,
            total - first_half.0,
            solver.nodes() - first_half.1
        );
        all_cpu += total;
        all_n += run.len();
        all_nodes += solver.nodes();
        all_times.extend(times);
    }
    if froms.len() > 1 {
        all_times.sort_by(f64::total_cmp);
        println!(
            "all {all_n}: CPU {all_cpu:.1} s, mean {:.3} s, median {:.3} s, nodes {all_nodes}",
            all_cpu / all_n.max(1) as f64,
            all_times.get(all_times.len() / 2).copied().unwrap_or(0.0),
        );
    }
    Ok(())
}
