//! Turning an analysis into text for people: the report, its colours and
//! the picture's title (the JSON line is `boardsolve::analysis::json`).

use std::fmt::Write as _;

use boardsolve::analysis::WeakAnalysis;
use boardsolve::render::{even_word, plain, signed, Presentation};
use boardsolve::{Analysis, Move, MoveMark, Outcome};

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

/// The human-readable report for an answered position, the move map in
/// terminal colours if `color`.
pub fn human(
    game: &dyn Presentation,
    a: &Analysis,
    pv: Option<&[(Move, u64)]>,
    color: bool,
) -> String {
    let mut o = String::new();
    let me = game.player_name(a.to_move);
    let _ = writeln!(o, "Position:   {}", game.format_position(a.state));
    let _ = writeln!(o, "{}", game.render(a.state));
    let _ = writeln!(o, "To move:    {me}");
    let result = a.result();
    let verdict = match result.signum() {
        1 => format!("a win for {me}"),
        -1 => format!("a loss for {me}"),
        _ => format!("a {}", even_word(game)),
    };
    let _ = writeln!(
        o,
        "Value:      {} ({verdict}; {})",
        signed(a.score),
        game.score_meaning()
    );
    // Where the headline is not the final score already, and the score so
    // far was given, say how the game ends.
    if let (None, Some(f)) = (game.lead(a.state), a.final_lead()) {
        let first = game.player_name(boardsolve::Player::First);
        let second = game.player_name(boardsolve::Player::Second);
        let _ = writeln!(
            o,
            "Final:      {} ({first}'s points minus {second}'s at the end)",
            signed(f)
        );
    }
    let _ = writeln!(
        o,
        "Remoteness: {} plies to the end under perfect play",
        a.value.remoteness
    );
    if a.is_terminal() {
        let _ = writeln!(o, "Game over.");
    } else if a.moves.len() == 1 && a.moves[0].mv == Move::PASS {
        let _ = writeln!(o, "Forced pass: {me} has no legal move.");
    } else {
        let best: Vec<String> = a.best_moves().map(|m| game.format_move(m.mv)).collect();
        let _ = writeln!(o, "Best moves: {}", best.join(" "));
        let marks = a.marks();
        let style: &dyn Fn(&MoveMark, &str) -> String = if color { &ansi } else { &plain };
        match game.render_move_map(a.state, &marks, style) {
            Some(map) => {
                let _ = writeln!(o, "Move values (value after each legal move):\n{map}");
            }
            None => {
                for m in &marks {
                    let value = format!("{:>4}", signed(m.score));
                    let _ = writeln!(
                        o,
                        "  {:>6} {}",
                        game.format_move(m.mv),
                        boardsolve::render::style_padded(m, &value, style)
                    );
                }
            }
        }
    }
    if let Some(line) = pv {
        let moves: Vec<String> = line.iter().map(|(m, _)| game.format_move(*m)).collect();
        let _ = writeln!(
            o,
            "Perfect play: {}",
            if moves.is_empty() {
                "(game over)".to_owned()
            } else {
                moves.join(" ")
            }
        );
    }
    o
}

/// `win`, the game's even word or `loss` for a weak result.
fn weak_word(game: &dyn Presentation, result: i32) -> &'static str {
    match result.signum() {
        1 => "win",
        -1 => "loss",
        _ => even_word(game),
    }
}

/// The human report of a weak answer (`--weak`): win, draw or loss for the
/// side to move, and for every move.
pub fn weak_human(game: &dyn Presentation, w: &WeakAnalysis) -> String {
    let mut o = String::new();
    let me = game.player_name(w.position.to_move);
    let state = w.position.state;
    let _ = writeln!(o, "Position:   {}", game.format_position(state));
    let _ = writeln!(o, "{}", game.render(state));
    let _ = writeln!(o, "To move:    {me}");
    if w.is_terminal() {
        let _ = writeln!(o, "Game over.");
        return o;
    }
    let _ = writeln!(
        o,
        "Result:     {} for {me} (weak: {} only)",
        weak_word(game, w.result),
        match game.even_result() {
            Some(even) => format!("win, {even} or loss"),
            None => "win or loss".to_owned(),
        }
    );
    let best: Vec<String> = w.best_moves().map(|m| game.format_move(m)).collect();
    let _ = writeln!(o, "Best moves: {}", best.join(" "));
    let moves: Vec<String> = w
        .moves
        .iter()
        .map(|&(m, r)| format!("{}:{}", game.format_move(m), weak_word(game, r)))
        .collect();
    let _ = writeln!(o, "Moves:      {}", moves.join(" "));
    o
}
