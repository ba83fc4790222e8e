//! Pictures of answered positions: the SVG drawing of a position with
//! every legal move coloured by its value, and its title.

use crate::analysis::Analysis;
use crate::core::{Move, Player};
use crate::render::{even_word, signed, Presentation};

/// The title line of a position's SVG picture: the side to move, the value
/// and who wins, as the text answer says them, and by how much when the
/// headline value is not the final score (a game given the score so
/// far). At the end of the game: who won, when the score is known.
pub(crate) fn title(game: &dyn Presentation, a: &Analysis) -> String {
    // The final score is worth naming only where the headline value is not
    // it already (a game whose value is the final score).
    let margin = match game.lead(a.state) {
        Some(_) if !a.is_terminal() => None,
        _ => a.final_lead(),
    };
    let by_margin = margin.map(|f| {
        let first = game.player_name(Player::First);
        let second = game.player_name(Player::Second);
        match f.signum() {
            1 => format!("a win for {first} by {f}"),
            -1 => format!("a win for {second} by {}", -f),
            _ => format!("a {}", even_word(game)),
        }
    });
    if a.is_terminal() {
        return match by_margin {
            Some(v) => format!("Game over: {v}"),
            // A game given without its score: the key cannot tell.
            None => "Game over".to_owned(),
        };
    }
    let me = game.player_name(a.to_move);
    let verdict = by_margin.unwrap_or_else(|| match a.result().signum() {
        1 => format!("a win for {me}"),
        -1 => format!("a loss for {me}"),
        _ => format!("a {}", even_word(game)),
    });
    format!("{me} to move: value {} ({verdict})", signed(a.score))
}

/// The SVG picture of an answered position (every legal move marked with
/// its value, `data-move` and `data-value` on each), with `last`, the
/// move that led to it, marked (`data-mark="last"`), or `None` for a game
/// without pictures.
pub fn svg(game: &dyn Presentation, a: &Analysis, last: Option<Move>) -> Option<String> {
    game.render_svg(a.state, last, &a.marks(), &title(game, a))
}
