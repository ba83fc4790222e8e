//! Showing positions to people: a game's presentation (its board drawn as
//! text, the map of every move's value, an SVG picture, the game's own JSON
//! fields), and the helpers the games share for it.
//!
//! Rules and notation live in [`Game`]; everything here is about how a
//! game looks. Each game implements [`Presentation`] in its own folder.

pub mod svg;

use crate::core::{Game, Move, MoveMark, Outcome, Player};

/// How a game shows itself to people: drawings, the meaning of its
/// headline value, and the fields it adds to JSON answers.
pub trait Presentation: Game {
    /// A move's number as users count (the JSON field
    /// [`Presentation::move_code_name`]): the move code itself by default (British
    /// Square's cell 0 to 24); Connect Four counts columns from 1.
    fn move_number(&self, mv: Move) -> u32 {
        u32::from(mv.0)
    }

    /// What a headline score says beyond its number, for the game's own
    /// fields of JSON answers (after the generic `value`): Dandelions says
    /// who wins and with how many flowers or gaps. `None` by default.
    fn score_detail(&self, score: i32, side: Player) -> Option<ScoreDetail> {
        let _ = (score, side);
        None
    }

    /// The JSON field name of a move's numeric code (`cell` for British
    /// Square).
    fn move_code_name(&self) -> &'static str {
        "move_code"
    }

    /// A one-line explanation of what [`Game::score`] means, for the
    /// side to move (and for a move, the side making it).
    fn score_meaning(&self) -> &'static str;

    /// What `score` says beyond win, tie or loss, in a few words for
    /// people, where `side` is the player the score is for: British
    /// Square's `O ends 2 pieces behind`, Connect Four's `O wins with its
    /// 20th stone`. `None` (the default) where the outcome says all.
    fn score_words(&self, score: i32, side: Player) -> Option<String> {
        let _ = (score, side);
        None
    }

    /// A value in words after its number, for `side`, the player it is
    /// for: its outcome for them, then [`Presentation::score_words`]
    /// (`a loss: O ends 2 pieces behind`, `a draw`).
    fn verdict(&self, score: i32, outcome: Outcome, side: Player) -> String {
        let word = match outcome {
            Outcome::Win => "a win".to_owned(),
            Outcome::Loss => "a loss".to_owned(),
            Outcome::Tie => format!("a {}", self.even_result().unwrap_or("tie")),
        };
        match self.score_words(score, side) {
            Some(words) => format!("{word}: {words}"),
            None => word,
        }
    }

    /// A drawing of the state for people, several lines, no trailing newline.
    fn render(&self, state: u64) -> String;

    /// A drawing of the board with the headline value of each legal move
    /// ([`MoveMark::score`]), or `None` when the game has no natural board
    /// map. Each value's text goes through `style` (which may wrap it in
    /// terminal colours; [`plain`] leaves it as it is), with the padding
    /// around it kept outside so that columns stay aligned.
    fn render_move_map(
        &self,
        state: u64,
        moves: &[MoveMark],
        style: &dyn Fn(&MoveMark, &str) -> String,
    ) -> Option<String>;

    /// The board with every legal move's value as a standalone SVG
    /// picture (see [`svg`]), `title` written above it, or `None`
    /// when the game has no picture. `last` is the move that led to
    /// `state` (a move of the position before), marked where the game
    /// draws it (the stone just placed, the edge just drawn) in a group
    /// `data-mark="last"`; a pass, or `None`, marks nothing.
    fn render_svg(
        &self,
        state: u64,
        last: Option<Move>,
        moves: &[MoveMark],
        title: &str,
    ) -> Option<String> {
        let _ = (state, last, moves, title);
        None
    }

    /// How a move is written, for help texts (`a cell number or a
    /// coordinate like c3`).
    fn move_notation(&self) -> &'static str;

    /// The word people use for the game's even result, in text for them:
    /// `draw` where nobody wins (Connect Four, k-in-a-row), `tie` where the
    /// scores are equal (British Square, Dots and Boxes); `None` for a game
    /// that always has a winner (Dandelions). JSON says UWAPI's `tie` for
    /// every game.
    fn even_result(&self) -> Option<&'static str>;

    /// True when the game's result is a score of points (British Square's
    /// pieces, Dots and Boxes' boxes, Dandelions' flowers or gaps); false
    /// for a game that is only won, lost or drawn (Connect Four,
    /// k-in-a-row), whose texts then give the result without points.
    fn counts_points(&self) -> bool {
        true
    }

    /// True when a player can have no move but to pass (British Square);
    /// texts about other games never mention passes.
    fn has_passes(&self) -> bool {
        false
    }

    /// What a layer of the game counts, for table headers (`pieces` in
    /// British Square, `edges` in Dots and Boxes).
    fn layer_name(&self) -> &'static str {
        "layer"
    }

    /// What joins the names of the moves played from the start into a
    /// position the game reads back (Connect Four's `4453`: nothing;
    /// British Square's `b2 c3`: a space), so that a link can carry them;
    /// `None` (the default) for a game whose positions are not their moves
    /// (Dots and Boxes needs the side to move and the score, Dandelions
    /// writes its field).
    fn moves_separator(&self) -> Option<&'static str> {
        None
    }
}

/// Who wins a score and by how much, in a game's own words (see
/// [`Presentation::score_detail`]): JSON answers give it as
/// `"winner": WINNER, COUNT_NAME: COUNT`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScoreDetail {
    /// The name of the side that wins.
    pub winner: &'static str,
    /// What the margin counts (`flowers`, `gaps`).
    pub count_name: &'static str,
    /// The margin.
    pub count: i32,
}

/// A headline value as people read it: with its sign, and zero as plain
/// `0`.
pub fn signed(v: i32) -> String {
    if v == 0 {
        "0".to_owned()
    } else {
        format!("{v:+}")
    }
}

/// The word for an even result in `game`'s text ([`Presentation::even_result`];
/// `tie` for a game that has none, where no even result is ever shown).
pub fn even_word(game: &dyn Presentation) -> &'static str {
    game.even_result().unwrap_or("tie")
}

/// `n` with its English ordinal suffix (`1st`, `2nd`, `13th`, `22nd`).
pub(crate) fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// `n` and the noun, singular for one (`1 piece`, `3 pieces`).
pub(crate) fn count_of(n: i32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The identity style for [`Presentation::render_move_map`]: no colours.
pub fn plain(_: &MoveMark, text: &str) -> String {
    text.to_owned()
}

/// Applies `style` to the text of `padded` and keeps the spaces around it
/// outside, so that colour codes never change where columns start or what
/// trimming a line removes.
pub fn style_padded(
    mark: &MoveMark,
    padded: &str,
    style: &dyn Fn(&MoveMark, &str) -> String,
) -> String {
    let core = padded.trim();
    if core.is_empty() {
        return padded.to_owned();
    }
    let start = padded.len() - padded.trim_start().len();
    let end = start + core.len();
    format!(
        "{}{}{}",
        &padded[..start],
        style(mark, core),
        &padded[end..]
    )
}
