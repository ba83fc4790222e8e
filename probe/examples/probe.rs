//! Answers one position from a database file, as an embedding program
//! would: `cargo run -p boardsolve-probe --example probe -- bsq.db "a1 e5"`.

use boardsolve_probe::{ProbeError, Tablebase};

fn main() -> Result<(), ProbeError> {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| "bsq.db".to_owned());
    let text = args.next().unwrap_or_else(|| "start".to_owned());
    let tb = Tablebase::open(&path)?;
    let position = tb.parse(&text)?;
    let answer = tb.answer(&position)?;
    println!(
        "{} to move: value {}, remoteness {}",
        position.to_move_name(),
        answer.value(),
        answer.remoteness()
    );
    for m in answer.moves() {
        let best = if m.best { " (best)" } else { "" };
        println!("  {} -> {}{best}", m.mv, m.value);
    }
    let line: Vec<String> = tb.line(&position)?.iter().map(|m| m.to_string()).collect();
    println!("perfect play: {}", line.join(" "));
    Ok(())
}
