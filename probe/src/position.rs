//! Positions and moves as values: a [`Position`] parsed once from the
//! game's notation, its legal [`Move`]s, each with its name, and the
//! position after one.

use boardsolve::Player;

use crate::error::ProbeError;
use crate::game::Game;
use crate::name::{Name, NAME};

impl Game {
    /// The start of the game, the side to move and (where the position
    /// alone does not tell it) the score so far, nothing, known.
    pub fn start(self) -> Position {
        let g = self.present();
        let state = g.start();
        Position::from_parts(
            self,
            boardsolve::Position {
                state,
                to_move: g.to_move(state),
                lead: Some(g.lead(state).unwrap_or(0)),
            },
        )
    }

    /// A position in the game's notation (the moves from the start, or a
    /// picture of the board; `start` is the start), checked against the
    /// rules: [`ProbeError::Malformed`] or [`ProbeError::Illegal`] when it
    /// is not one, and for a text longer than [`crate::MAX_POSITION`]
    /// bytes.
    pub fn parse(self, text: &str) -> Result<Position, ProbeError> {
        let text = crate::bounded(text)?;
        let p = self
            .present()
            .parse(text)
            .map_err(ProbeError::from_position)?;
        Ok(Position::from_parts(self, p))
    }
}

/// A position of a game, parsed and checked once: the state, the side to
/// move and, where the board alone does not tell it, the score so far.
///
/// A small value (`Copy`): keep it, play moves on it, and ask a
/// [`crate::Tablebase`] of its game about it as often as needed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    game: Game,
    inner: boardsolve::Position,
}

impl Position {
    pub(crate) fn from_parts(game: Game, inner: boardsolve::Position) -> Position {
        Position { game, inner }
    }

    /// The position as the library sees it.
    pub(crate) fn inner(&self) -> &boardsolve::Position {
        &self.inner
    }

    /// Its game.
    pub fn game(&self) -> Game {
        self.game
    }

    /// The side to move.
    pub fn to_move(&self) -> Player {
        self.inner.to_move
    }

    /// The name of the side to move (`X`, `O`, ...).
    pub fn to_move_name(&self) -> &'static str {
        self.game.player_name(self.inner.to_move)
    }

    /// The first player's points so far minus the second player's, when
    /// known.
    pub fn lead(&self) -> Option<i32> {
        self.inner.lead
    }

    /// The position as text that reads back as it: the board, with the
    /// side to move and the score so far where the board alone does not
    /// tell them (Dots and Boxes).
    pub fn text(&self) -> String {
        self.game.present().format_full(&self.inner)
    }

    /// The board alone in the game's notation (what answers call the
    /// position).
    pub fn board(&self) -> String {
        self.game.present().format_position(self.inner.state)
    }

    /// A drawing of the board for people, several lines, no trailing
    /// newline.
    pub fn drawing(&self) -> String {
        self.game.present().render(self.inner.state)
    }

    /// The 64-bit key of the position's state, as `format-spec.md` lays
    /// out each game's keys (not reduced by symmetry).
    pub fn key(&self) -> u64 {
        self.inner.state
    }

    /// The key a database stores the position under: the smallest key
    /// among the position's symmetric images.
    pub fn canonical_key(&self) -> u64 {
        self.game.present().canonical(self.inner.state)
    }

    /// Every legal move, in the game's order of moves (by their codes).
    /// None at the end of the game.
    pub fn moves(&self) -> Vec<Move> {
        let g = self.game.present();
        let mut edges = Vec::new();
        g.moves(self.inner.state, &mut edges);
        edges.iter().map(|e| Move::new(self.game, e.mv)).collect()
    }

    /// True at the end of the game: no move is left.
    pub fn is_over(&self) -> bool {
        let mut edges = Vec::new();
        self.game.present().moves(self.inner.state, &mut edges);
        edges.is_empty()
    }

    /// The legal move `text` names in the game's notation: a
    /// [`ProbeError::MalformedMove`] when it names no move, a
    /// [`ProbeError::IllegalMove`] when the move is not legal here.
    pub fn parse_move(&self, text: &str) -> Result<Move, ProbeError> {
        let text = crate::bounded(text).map_err(|e| match e {
            ProbeError::Malformed { input, reason } => ProbeError::MalformedMove { input, reason },
            e => e,
        })?;
        let g = self.game.present();
        let mv = g
            .parse_move(self.inner.state, text)
            .map_err(ProbeError::from_move)?;
        Ok(Move::new(self.game, mv))
    }

    /// The position after `mv`: a [`ProbeError::IllegalMove`] when it is
    /// not a legal move of this position.
    pub fn play(&self, mv: &Move) -> Result<Position, ProbeError> {
        let g = self.game.present();
        let mut edges = Vec::new();
        g.moves(self.inner.state, &mut edges);
        match edges.iter().find(|e| e.mv == mv.code) {
            Some(edge) => Ok(Position {
                game: self.game,
                inner: self.inner.play(edge),
            }),
            None => Err(ProbeError::IllegalMove {
                input: mv.name().to_owned(),
                reason: format!("not a legal move in {}", self.text()),
            }),
        }
    }

    /// The position after the move `text` names (see
    /// [`Position::parse_move`]).
    pub fn play_text(&self, text: &str) -> Result<Position, ProbeError> {
        self.play(&self.parse_move(text)?)
    }
}

impl std::fmt::Display for Position {
    /// [`Position::text`].
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(&self.text())
    }
}

/// A legal move of a position, with its name in the game's notation.
///
/// A small value (`Copy`): the name is held inline.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    code: boardsolve::Move,
    name: Name,
}

impl Move {
    pub(crate) fn new(game: Game, code: boardsolve::Move) -> Move {
        let name = match game.named.get(usize::from(code.0)) {
            Some(slot) => *slot.get_or_init(|| Move::name_of(game, code)),
            None => Move::name_of(game, code),
        };
        Move { code, name }
    }

    /// The name of the move `code` of `game`, made.
    fn name_of(game: Game, code: boardsolve::Move) -> Name {
        thread_local! {
            // Answers name tens of moves each: one buffer a thread, not
            // one allocation a move.
            static TEXT: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
        }
        let g = game.present();
        let mut name = [0; NAME];
        let len = TEXT.with(|text| {
            let mut text = text.borrow_mut();
            text.clear();
            g.write_move(code, &mut text);
            // Names are ASCII and short; one that is not is cut at a
            // character boundary rather than kept out of a value type.
            let mut len = text.len().min(NAME);
            while !text.is_char_boundary(len) {
                len -= 1;
            }
            name[..len].copy_from_slice(&text.as_bytes()[..len]);
            len
        });
        Name {
            number: if code == boardsolve::Move::PASS {
                u32::MAX
            } else {
                g.move_number(code)
            },
            len: len as u8,
            text: name,
        }
    }

    /// The move as the library codes it.
    pub(crate) fn code(&self) -> boardsolve::Move {
        self.code
    }

    /// The move's name in the game's notation (`b2`, `4`, `SE`, `17`,
    /// `pass`), which [`Position::parse_move`] reads back.
    pub fn name(&self) -> &str {
        self.name.as_str()
    }

    /// The move's number as the game counts moves (the cell of British
    /// Square and k-in-a-row, Connect Four's column from 1, Dots and Boxes'
    /// edge): what JSON answers give beside the name. `None` for a pass.
    pub fn number(&self) -> Option<u32> {
        (self.code != boardsolve::Move::PASS).then_some(self.name.number)
    }

    /// True for a pass (a player with no legal move passes, in British
    /// Square).
    pub fn is_pass(&self) -> bool {
        self.code == boardsolve::Move::PASS
    }
}

impl std::fmt::Debug for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Move").field(&self.name()).finish()
    }
}

impl std::fmt::Display for Move {
    /// [`Move::name`].
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}
