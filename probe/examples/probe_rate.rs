//! Probes a second of the native probe, the figure the WebAssembly probe is
//! measured against (`web/bench/probe_rate.mjs` does the same in Node.js):
//! `cargo run --release -p boardsolve-probe --example probe_rate -- DB
//! POSITIONS_FILE [ROUNDS]` prints one JSON line, the median of ROUNDS
//! timed passes over every position: parsed, answered, and the answer
//! written as `query --json` writes it.

use std::time::Instant;

use boardsolve_probe::Tablebase;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(db), Some(list)) = (args.next(), args.next()) else {
        return Err("usage: probe_rate DB POSITIONS_FILE [ROUNDS]".into());
    };
    let rounds: usize = args.next().map_or(Ok(5), |r| r.parse())?;
    let text = std::fs::read_to_string(&list)?;
    let positions: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
    let tb = Tablebase::open(&db)?;
    let mut rates = Vec::with_capacity(rounds);
    for _ in 0..rounds.max(1) {
        let t0 = Instant::now();
        for p in &positions {
            // Failures (a position not in a book) are answers too.
            let line = tb
                .probe(p)
                .map(|a| boardsolve_probe::json::answer(p, &a, None));
            std::hint::black_box(line.ok());
        }
        rates.push(positions.len() as f64 / t0.elapsed().as_secs_f64());
    }
    rates.sort_by(f64::total_cmp);
    println!(
        "{{\"positions\":{},\"native_per_s\":{}}}",
        positions.len(),
        rates[rates.len() / 2].round()
    );
    Ok(())
}
