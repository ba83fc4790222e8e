//! The probe crate's rates, which the C library's are measured against
//! (`benches/c_probe.sh` runs this and `benches/c_rate.c` by turns):
//! `cargo run --release -p boardsolve-probe --features json --example
//! key_rate -- DB KEYS_FILE POSITIONS_FILE [PASSES]` prints one JSON line,
//! each rate the median of PASSES timed passes (5 by default), on the
//! calling thread:
//!
//! * `keys_per_s`: `probe_key` of every key of KEYS_FILE (little-endian
//!   `u64`s), one call a key, after `build_index`;
//! * `keys_batch_per_s`: `probe_keys` of the same keys, 4096 a call (as
//!   the C library hands them on);
//! * `probe_per_s`: `probe` of every position of POSITIONS_FILE (one a
//!   line): parsed and answered;
//! * `probe_moves_per_s`: the same, and every move of the answer read
//!   (its name, value, remoteness, outcome), as `boardsolve_probe` hands
//!   them to C;
//! * `json_per_s`: the same, and the answer written as `query --json`
//!   writes it.

use std::time::Instant;

use boardsolve_probe::Tablebase;

/// The median of `passes` timed runs of `f` over `n` items, in items a
/// second.
fn rate(passes: usize, n: usize, mut f: impl FnMut() -> u64) -> f64 {
    let mut rates: Vec<f64> = (0..passes.max(1))
        .map(|_| {
            let t0 = Instant::now();
            std::hint::black_box(f());
            n as f64 / t0.elapsed().as_secs_f64()
        })
        .collect();
    rates.sort_by(f64::total_cmp);
    rates[rates.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(db), Some(keys), Some(list)) = (args.next(), args.next(), args.next()) else {
        return Err("usage: key_rate DB KEYS_FILE POSITIONS_FILE [PASSES]".into());
    };
    let passes: usize = args.next().map_or(Ok(5), |p| p.parse())?;
    let keys: Vec<u64> = std::fs::read(&keys)?
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default()))
        .collect();
    let text = std::fs::read_to_string(&list)?;
    let positions: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
    let tb = Tablebase::open(&db)?;
    tb.build_index();

    let keys_per_s = rate(passes, keys.len(), || {
        let mut sum = 0u64;
        for &k in &keys {
            if let Ok(e) = tb.probe_key(k) {
                sum = sum.wrapping_add(e.value as u64 ^ u64::from(e.remoteness));
            }
        }
        sum
    });
    let keys_batch_per_s = rate(passes, keys.len(), || {
        let mut sum = 0u64;
        for chunk in keys.chunks(4096) {
            for e in tb.probe_keys(chunk).into_iter().flatten() {
                sum = sum.wrapping_add(e.value as u64 ^ u64::from(e.remoteness));
            }
        }
        sum
    });
    let probe_per_s = rate(passes, positions.len(), || {
        let mut sum = 0u64;
        for p in &positions {
            if let Ok(a) = tb.probe(p) {
                sum = sum.wrapping_add(a.remoteness().into());
            }
        }
        sum
    });
    let probe_moves_per_s = rate(passes, positions.len(), || {
        let mut sum = 0u64;
        for p in &positions {
            if let Ok(a) = tb.probe(p) {
                for m in a.moves() {
                    sum = sum.wrapping_add(
                        m.value as u64 ^ u64::from(m.remoteness + m.delta_remoteness),
                    );
                    sum = sum.wrapping_add(m.mv.name().len() as u64 + m.outcome as u64);
                }
            }
        }
        sum
    });
    let json_per_s = rate(passes, positions.len(), || {
        let mut sum = 0u64;
        for p in &positions {
            // Failures (a position not in a book) are answers too.
            if let Ok(a) = tb.probe(p) {
                let line = boardsolve_probe::json::answer(p, &a, None);
                sum = sum.wrapping_add(u64::from(line.as_bytes()[0]));
            }
        }
        sum
    });
    println!(
        "{{\"probe_crate\":{{\"keys\":{},\"positions\":{},\"keys_per_s\":{},\"keys_batch_per_s\":{},\"probe_per_s\":{},\"probe_moves_per_s\":{},\"json_per_s\":{}}}}}",
        keys.len(),
        positions.len(),
        keys_per_s.round(),
        keys_batch_per_s.round(),
        probe_per_s.round(),
        probe_moves_per_s.round(),
        json_per_s.round()
    );
    Ok(())
}
