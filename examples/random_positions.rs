//! Prints random reachable positions, one per line, for benchmarks and tests.
//!
//! `cargo run --release --example random_positions -- COUNT [SEED] [VARIANT] [GAME]`
//!
//! Each position is the result of a random playout of random length (up to
//! the game's last layer, and a few plies more) from the start of the game
//! (British Square by default), written as `query` writes positions.

use boardsolve::registry::AnyGame;
use std::io::{BufWriter, Write};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let count: u64 = args.next().as_deref().unwrap_or("1000").parse()?;
    let mut seed: u64 = args.next().as_deref().unwrap_or("1").parse()?;
    let variant = args.next().unwrap_or_default();
    let name = args.next().unwrap_or_else(|| "british-square".to_owned());
    let game = AnyGame::new(&name, &variant)?;
    let game = game.present();
    let mut next = move || {
        // xorshift64*: deterministic, dependency-free.
        seed ^= seed >> 12;
        seed ^= seed << 25;
        seed ^= seed >> 27;
        seed.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let out = std::io::stdout();
    let mut out = BufWriter::new(out.lock());
    let mut edges = Vec::new();
    let longest = game.layer_count() as u64 - 1;
    for _ in 0..count {
        let mut s = game.start();
        let plies = next() % (longest + 4);
        for _ in 0..plies {
            edges.clear();
            game.moves(s, &mut edges);
            if edges.is_empty() {
                break;
            }
            s = edges[(next() % edges.len() as u64) as usize].child;
        }
        writeln!(out, "{}", game.format_position(s))?;
    }
    Ok(())
}
