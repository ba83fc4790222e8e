//! Answers as values: an [`Answer`] holds a position's value, its
//! remoteness and every move's value ([`MoveValue`]); an [`Eval`] the value
//! alone; a [`WeakAnswer`] win, draw or loss only.

use boardsolve::analysis::{Analysis, MoveAnalysis, WeakAnalysis};
use boardsolve::{MoveMark, Outcome, Player};

use crate::game::Game;
use crate::position::{Move, Position};

/// A position answered: its value and remoteness under perfect play, and
/// the value of every legal move, best first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    game: Game,
    /// The analysis as the library made it.
    pub(crate) a: Analysis,
}

impl Answer {
    pub(crate) fn new(game: Game, a: Analysis) -> Answer {
        Answer { game, a }
    }

    /// The game.
    pub fn game(&self) -> Game {
        self.game
    }

    /// The position answered.
    pub fn position(&self) -> Position {
        Position::from_parts(self.game, self.a.position())
    }

    /// The side to move.
    pub fn to_move(&self) -> Player {
        self.a.to_move
    }

    /// The value under perfect play for the side to move, as the game
    /// states it ([`Game::score_meaning`]: British Square gives its final
    /// pieces minus its opponent's, Connect Four how early it wins). A
    /// move's value ([`MoveValue::value`]) is for the side making it.
    pub fn value(&self) -> i32 {
        self.a.score
    }

    /// What the side to move gains from here to the end under perfect
    /// play, minus what the opponent gains.
    pub fn net(&self) -> i32 {
        self.a.value.net
    }

    /// Plies to the end of the game under perfect play.
    pub fn remoteness(&self) -> u32 {
        self.a.value.remoteness
    }

    /// The value of the game's end for the first player, whoever is to
    /// move: its final points minus the second's under perfect play (in
    /// Connect Four, its score), when the score so far is known. The one
    /// number of an answer on a fixed side, for charts along a game.
    pub fn final_for_first(&self) -> Option<i32> {
        self.a.final_lead()
    }

    /// How the game ends for the side to move under perfect play: with the
    /// score so far when it is known, else by what it nets from here on.
    pub fn outcome(&self) -> Outcome {
        Outcome::of(self.a.result())
    }

    /// True at the end of the game: no move is left.
    pub fn is_over(&self) -> bool {
        self.a.is_terminal()
    }

    /// Every legal move with its value, best first: by value for the
    /// mover, then by the remoteness tie-break, then by the move's code.
    pub fn moves(&self) -> Moves<'_> {
        Moves {
            answer: self,
            best_remoteness: best_remoteness(&self.a),
            inner: self.a.moves.iter(),
        }
    }

    /// The moves that keep the value.
    pub fn best_moves(&self) -> impl Iterator<Item = MoveValue> + '_ {
        self.moves().filter(|m| m.best)
    }

    /// The value of the move `mv`, if it is a legal move here.
    pub fn move_value(&self, mv: &Move) -> Option<MoveValue> {
        self.moves().find(|m| m.mv.code() == mv.code())
    }

    /// The value and remoteness alone.
    pub fn eval(&self) -> Eval {
        Eval {
            value: self.value(),
            remoteness: self.remoteness(),
        }
    }

    /// Every legal move as drawings show it, best first.
    pub(crate) fn marks(&self) -> Vec<MoveMark> {
        self.a.marks()
    }

    /// The board with every legal move's value drawn on it, each value's
    /// text through `style` (which may wrap it in terminal colours; the
    /// padding around it stays outside, so that columns stay aligned), or
    /// `None` for a game without a board map.
    pub fn move_map(&self, style: &dyn Fn(&MoveMark, &str) -> String) -> Option<String> {
        self.game
            .present()
            .render_move_map(self.a.state, &self.marks(), style)
    }

    /// The SVG picture of the position with every legal move coloured by
    /// its value (each move's shape carries `data-move` and `data-value`),
    /// as `query --svg` draws it; `None` for a game without pictures.
    pub fn svg(&self) -> Option<String> {
        boardsolve::analysis::picture::svg(self.game.present(), &self.a, None)
    }

    /// [`Answer::svg`] with `last`, the move that led to this position
    /// (a move of the position before it), marked in a group
    /// `data-mark="last"`: the stone just placed, the edge just drawn, the
    /// flower just planted or the wind just blown; a pass marks nothing.
    pub fn svg_after(&self, last: &Move) -> Option<String> {
        boardsolve::analysis::picture::svg(self.game.present(), &self.a, Some(last.code()))
    }
}

/// One legal move of an answered position, with its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    /// The move.
    pub mv: Move,
    /// The position's value if this move is played, then perfect play.
    pub value: i32,
    /// The remoteness of the position the move leads to.
    pub remoteness: u32,
    /// How much longer this move takes to its end than the best move of
    /// its outcome (0 for that move): a win that comes later, a loss that
    /// comes sooner.
    pub delta_remoteness: u32,
    /// True for a move that keeps the position's value.
    pub best: bool,
    /// How the game ends for the player making the move.
    pub outcome: Outcome,
}

/// The moves of an [`Answer`], best first ([`Answer::moves`]).
#[derive(Clone, Debug)]
pub struct Moves<'a> {
    answer: &'a Answer,
    best_remoteness: [u32; 3],
    inner: std::slice::Iter<'a, MoveAnalysis>,
}

impl Iterator for Moves<'_> {
    type Item = MoveValue;

    fn next(&mut self) -> Option<MoveValue> {
        let m = self.inner.next()?;
        let a = &self.answer.a;
        let result = a.move_result(m);
        let remoteness = m.child_value.remoteness;
        Some(MoveValue {
            mv: Move::new(self.answer.game, m.mv),
            value: m.score,
            remoteness,
            delta_remoteness: self.best_remoteness[class(result)].abs_diff(remoteness),
            best: m.best,
            outcome: Outcome::of(result),
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl ExactSizeIterator for Moves<'_> {}

/// The index of a result's class: 0 a loss, 1 a tie, 2 a win.
pub(crate) fn class(result: i32) -> usize {
    (result.signum() + 1) as usize
}

/// Per class of move (as [`class`]), the remoteness of the best move of
/// that class: the first of the class in the best-first order.
pub(crate) fn best_remoteness(a: &Analysis) -> [u32; 3] {
    let mut best = [None; 3];
    for m in &a.moves {
        best[class(a.move_result(m))].get_or_insert(m.child_value.remoteness);
    }
    best.map(|r| r.unwrap_or(0))
}

/// A position's value and remoteness, without its moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Eval {
    /// The value under perfect play (see [`Answer::value`]).
    pub value: i32,
    /// Plies to the end of the game under perfect play.
    pub remoteness: u32,
}

/// A position answered as win, draw or loss only, for the side to move and
/// for every move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeakAnswer {
    game: Game,
    w: WeakAnalysis,
}

impl WeakAnswer {
    pub(crate) fn new(game: Game, w: WeakAnalysis) -> WeakAnswer {
        WeakAnswer { game, w }
    }

    /// The position answered.
    pub fn position(&self) -> Position {
        Position::from_parts(self.game, self.w.position)
    }

    /// How the game ends for the side to move under perfect play.
    pub fn outcome(&self) -> Outcome {
        Outcome::of(self.w.result)
    }

    /// True at the end of the game.
    pub fn is_over(&self) -> bool {
        self.w.is_terminal()
    }

    /// Every legal move with how the game ends for the player making it,
    /// in the game's order of moves.
    pub fn moves(&self) -> impl ExactSizeIterator<Item = (Move, Outcome)> + '_ {
        self.w
            .moves
            .iter()
            .map(|&(m, r)| (Move::new(self.game, m), Outcome::of(r)))
    }

    /// The moves that keep the outcome.
    pub fn best_moves(&self) -> impl Iterator<Item = Move> + '_ {
        let best = self.outcome();
        self.moves().filter(move |m| m.1 == best).map(|m| m.0)
    }
}
