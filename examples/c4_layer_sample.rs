//! Samples the cost of a Connect Four book layer: solves a run of the
//! layer's canonical positions one after the other with one table (never
//! cleared), as the book builder does, and prints the time per position.
//!
//! ```text
//! cargo run --release --example c4_layer_sample -- DEPTH COUNT [FROM] [TABLE_BITS] [ORDER]
//! ```
//!
//! `FROM` is where the run starts, as a fraction of the layer (0 to 1,
//! default 0.5); `ORDER` is `key` (sorted keys), `book` (the book
//! builder's order) or `weak` (outcome only, in the book order).

use std::collections::HashSet;
use std::time::Instant;

use boardsolve::game::connect_four::{ConnectFour, Position, Solver, Variant};
use boardsolve::solver::book::layer_order;

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
    let from: f64 = args.next().as_deref().unwrap_or("0.5").parse()?;
    let bits: u32 = args.next().as_deref().unwrap_or("26").parse()?;
    let order = args.next().unwrap_or_else(|| "book".into());
    let v = Variant::STANDARD;
    let mut layer: Vec<u64> = vec![Position::new(v).canonical_key()];
    for _ in 0..depth {
        let mut next = HashSet::new();
        for &k in &layer {
            let p = Position::from_key(v, k).ok_or("bad key")?;
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
    if order != "key" {
        let game = ConnectFour::new(v)?;
        layer = layer_order(&game, depth, &layer);
    }
    let start = ((layer.len() as f64 * from) as usize).min(layer.len());
    let run = &layer[start..(start + count).min(layer.len())];
    let mut solver = Solver::with_table_bits(bits)?;
    let (t0, c0) = (Instant::now(), cpu());
    let mut hist = std::collections::BTreeMap::new();
    let mut times = Vec::new();
    let mut last = 0;
    for &k in run {
        let p = Position::from_key(v, k).ok_or("bad key")?;
        let t = cpu();
        let s = if p.is_over() {
            0
        } else if order == "weak" {
            solver.solve_weak(&p)
        } else if order == "guess" {
            let s = solver.solve_near(&p, last);
            last = s;
            s
        } else {
            solver.solve(&p)
        };
        times.push(cpu() - t);
        *hist.entry(s).or_insert(0) += 1;
    }
    let (total, wall) = (cpu() - c0, t0.elapsed().as_secs_f64());
    times.sort_by(f64::total_cmp);
    println!(
        "depth {depth}: layer {} positions, {} solved from {start} ({order} order), table 2^{bits}",
        layer.len(),
        run.len()
    );
    println!(
        "CPU {total:.1} s (wall {wall:.1} s), mean {:.3} s, median {:.3} s, max {:.3} s, nodes {}",
        total / run.len().max(1) as f64,
        times.get(times.len() / 2).copied().unwrap_or(0.0),
        times.last().copied().unwrap_or(0.0),
        solver.nodes()
    );
    println!("scores: {hist:?}");
    Ok(())
}
