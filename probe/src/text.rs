//! Answers as text for people: the report `query POSITION` prints, its
//! terminal colours, and the small pieces other texts share.

use std::fmt::Write as _;

pub use boardsolve::render::{plain, signed, style_padded};
pub use boardsolve::MoveMark;
use boardsolve::{Outcome, Player};

use crate::answer::{Answer, WeakAnswer};
use crate::position::Move;

/// Terminal colours for a move's value: green when it wins for the player
/// making it, yellow for a tie, red for a loss; bold for the best moves.
pub fn ansi(m: &MoveMark, text: &str) -> String {
    let colour = match m.outcome {
        Outcome::Win => "32",
        Outcome::Tie => "33",
        Outcome::Loss => "31",
    };
    let bold = if m.best { "1;" } else { "" };
    format!("\x1b[{bold}{colour}m{text}\x1b[0m")
}

/// The report of an answered position: the position, its drawing, the
/// side to move, the value and what it means, the remoteness, the best
/// moves and every move's value (on the board where the game draws one),
/// and the line of perfect play when given; the values in terminal colours
/// if `color`.
pub fn report(a: &Answer, line: Option<&[Move]>, color: bool) -> String {
    let game = a.game();
    let p = a.position();
    let mut o = String::new();
    let me = p.to_move_name();
    let _ = writeln!(o, "Position:   {}", p.board());
    let _ = writeln!(o, "{}", p.drawing());
    let _ = writeln!(o, "To move:    {me}");
    // The one sign rule: the value is for the side to move, and each
    // move's value for the side making it, named on every line.
    let _ = writeln!(
        o,
        "Value:      {} for {me}, the side to move ({})",
        signed(a.value()),
        game.verdict(a.value(), a.outcome(), a.to_move())
    );
    // Where the headline is not the final score already, and the score so
    // far was given, say how the game ends.
    if let (false, Some(f)) = (game.keeps_score(), a.final_for_first()) {
        let first = game.player_name(Player::First);
        let second = game.player_name(Player::Second);
        let _ = writeln!(
            o,
            "Final:      {} ({first}'s points minus {second}'s at the end)",
            signed(f)
        );
    }
    let r = a.remoteness();
    let _ = writeln!(
        o,
        "Remoteness: {r} {} to the end under perfect play",
        if r == 1 { "ply" } else { "plies" }
    );
    let moves: Vec<_> = a.moves().collect();
    if a.is_over() {
        let _ = writeln!(o, "Game over.");
    } else if moves.len() == 1 && moves[0].mv.is_pass() {
        let _ = writeln!(o, "Forced pass: {me} has no legal move.");
    } else {
        let best: Vec<&str> = moves
            .iter()
            .filter(|m| m.best)
            .map(|m| m.mv.name())
            .collect();
        let _ = writeln!(o, "Best moves: {}", best.join(" "));
        let style: &dyn Fn(&MoveMark, &str) -> String = if color { &ansi } else { &plain };
        match a.move_map(style) {
            Some(map) => {
                let _ = writeln!(
                    o,
                    "Move values for {me} (the value after each legal move):\n{map}"
                );
            }
            None => {
                let _ = writeln!(o, "Move values for {me}:");
                for (m, mark) in moves.iter().zip(a.marks()) {
                    let value = format!("{:>4}", signed(m.value));
                    let _ = writeln!(
                        o,
                        "  {:>6} {}",
                        m.mv.name(),
                        style_padded(&mark, &value, style)
                    );
                }
            }
        }
    }
    if let Some(line) = line {
        let names: Vec<&str> = line.iter().map(Move::name).collect();
        let _ = writeln!(
            o,
            "Perfect play: {}",
            if names.is_empty() {
                "(game over)".to_owned()
            } else {
                names.join(" ")
            }
        );
    }
    o
}

/// `win`, the game's even word or `loss`.
fn weak_word(w: &WeakAnswer, o: Outcome) -> &'static str {
    match o {
        Outcome::Win => "win",
        Outcome::Loss => "loss",
        Outcome::Tie => w.position().game().even_word(),
    }
}

/// The report of a weak answer (`--weak`): win, draw or loss for the side
/// to move, and for every move.
pub fn weak_report(w: &WeakAnswer) -> String {
    let p = w.position();
    let game = p.game();
    let mut o = String::new();
    let me = p.to_move_name();
    let _ = writeln!(o, "Position:   {}", p.board());
    let _ = writeln!(o, "{}", p.drawing());
    let _ = writeln!(o, "To move:    {me}");
    if w.is_over() {
        let _ = writeln!(o, "Game over.");
        return o;
    }
    let _ = writeln!(
        o,
        "Result:     {} for {me} (weak: {} only)",
        weak_word(w, w.outcome()),
        match game.even_result() {
            Some(even) => format!("win, {even} or loss"),
            None => "win or loss".to_owned(),
        }
    );
    let best: Vec<String> = w.best_moves().map(|m| m.name().to_owned()).collect();
    let _ = writeln!(o, "Best moves: {}", best.join(" "));
    let moves: Vec<String> = w
        .moves()
        .map(|(m, r)| format!("{}:{}", m.name(), weak_word(w, r)))
        .collect();
    let _ = writeln!(o, "Moves:      {}", moves.join(" "));
    o
}
