//! Answers one position from a database file, as an embedding program
//! would: `cargo run -p boardsolve-probe --example probe -- bsq.db "a1 e5"`.

use boardsolve_probe::{ProbeError, Tablebase};

fn main() -> Result<(), ProbeError> {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| "bsq.db".to_owned());
    let position = args.next().unwrap_or_else(|| "start".to_owned());
    let tb = Tablebase::open(&path)?;
    let p = tb.probe(&position)?;
    println!(
        "{} to move: value {}, remoteness {}",
        p.to_move, p.value, p.remoteness
    );
    for m in &p.moves {
        let best = if m.best { " (best)" } else { "" };
        println!("  {} -> {}{best}", m.name, m.value);
    }
    println!("perfect play: {}", tb.line(&position)?.join(" "));
    Ok(())
}
