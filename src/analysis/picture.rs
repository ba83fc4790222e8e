//! Pictures of answered positions: the SVG drawing of a position with
//! every legal move coloured by its value, and its title.

use crate::analysis::Analysis;
use crate::core::{Move, Outcome, Player};
use crate::render::{even_word, signed, Presentation};

/// The title line of a position's SVG picture: the side to move, the value
/// for them and what it means, as the text answer says them. At the end of
/// the game: who won, and by how much where that is known.
pub(crate) fn title(game: &dyn Presentation, a: &Analysis) -> String {
    let me = game.player_name(a.to_move);
    if !a.is_terminal() {
        return format!(
            "{me} to move: value {} for {me} ({})",
            signed(a.score),
            game.verdict(a.score, Outcome::of(a.result()), a.to_move)
        );
    }
    // Where the value is the final score, it tells the end from the
    // winner's side; else the final lead does, when the score so far was
    // given (the key alone cannot tell).
    let whole = game.lead(a.state).is_some();
    let (score, side) = match (whole, a.final_lead()) {
        (true, _) => (a.score, a.to_move),
        (false, Some(f)) => (f, Player::First),
        (false, None) => return "Game over".to_owned(),
    };
    let (score, side) = if score < 0 {
        (-score, side.opponent())
    } else {
        (score, side)
    };
    if score == 0 {
        return format!("Game over: a {}", even_word(game));
    }
    let winner = game.player_name(side);
    match (whole, game.score_words(score, side)) {
        (true, Some(words)) => format!("Game over: {words}"),
        (false, _) if game.counts_points() => format!("Game over: a win for {winner} by {score}"),
        _ => format!("Game over: a win for {winner}"),
    }
}

/// The SVG picture of an answered position (every legal move marked with
/// its value, `data-move` and `data-value` on each), with `last`, the
/// move that led to it, marked (`data-mark="last"`), or `None` for a game
/// without pictures.
pub fn svg(game: &dyn Presentation, a: &Analysis, last: Option<Move>) -> Option<String> {
    game.render_svg(a.state, last, &a.marks(), &title(game, a))
}
