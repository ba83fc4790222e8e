//! Times every game's calibration sample on this machine, as `generator`
//! does before a long build, and prints what it took: on the reference
//! machine, idle, these are the samples' `reference_seconds`.
//!
//! `cargo run --release --example calibration -- [REPEATS] [THREADS]`
//!
//! Each sample runs REPEATS times (default 5) on THREADS threads (default
//! 2, as on the reference machine); the line gives every run's wall time
//! (the searches' times added up) and processor time, and their medians.

use boardsolve::registry::{self, AnyGame, DatabaseKind};
use boardsolve::solve::book::BookOptions;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let repeats: usize = args.next().as_deref().unwrap_or("5").parse()?;
    let threads: usize = args.next().as_deref().unwrap_or("2").parse()?;
    for info in registry::GAMES {
        let game = AnyGame::new(info.name, "")?;
        let depth = match info.kind {
            DatabaseKind::Book { default_depth } => default_depth,
            DatabaseKind::Complete => 0,
        };
        let Some(calibration) = game.calibration(depth) else {
            continue;
        };
        let (mut walls, mut cpus) = (Vec::new(), Vec::new());
        for _ in 0..repeats {
            let t = game
                .calibrate(depth, BookOptions::new(depth).table_bits, threads)
                .ok_or("no sample")??;
            walls.push(t.wall_seconds);
            cpus.push(t.cpu_seconds.unwrap_or(f64::NAN));
        }
        let list = |v: &[f64]| {
            v.iter()
                .map(|x| format!("{x:.3}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        println!(
            "{}: reference {:.3} s; wall {} (median {:.3}); cpu {} (median {:.3})",
            game.label(),
            calibration.reference_seconds,
            list(&walls),
            median(walls.clone()),
            list(&cpus),
            median(cpus.clone()),
        );
    }
    Ok(())
}
