//! The `Game` trait: everything the generic engine needs to know about a game.
//!
//! A state is a `u64` key whose meaning the game defines (and documents in
//! `format-spec.md`). The engine never looks inside a key: it asks the game for
//! the moves of a state, the canonical form of a key under the game's
//! symmetries, and the layer of a state (moves never lead to an earlier layer,
//! which lets the solver work layer by layer).

pub mod british_square;
pub mod buckets;
pub mod connect_four;
pub mod dandelions;
pub mod dots_and_boxes;
pub mod square;

use std::fmt;

pub use buckets::{BucketScheme, Bucketed, ClassSink, MAX_CLASSES, NO_BUCKET};

/// One of the two players. `First` moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Player {
    /// The player who moves first (X in British Square).
    First,
    /// The player who moves second (O in British Square).
    Second,
}

impl Player {
    /// The other player.
    pub fn opponent(self) -> Player {
        match self {
            Player::First => Player::Second,
            Player::Second => Player::First,
        }
    }

    /// `1` for the first player, `-1` for the second: turns a score from
    /// this player's point of view into the first player's, and back.
    pub fn sign(self) -> i32 {
        match self {
            Player::First => 1,
            Player::Second => -1,
        }
    }
}

/// A move, as a game-defined code. British Square uses the cell number, and
/// [`Move::PASS`] for a forced pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move(pub u16);

impl Move {
    /// The pass move, for games where a player with no legal move passes.
    pub const PASS: Move = Move(u16::MAX);
}

/// One edge of the game graph: a move and the state it leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The move played.
    pub mv: Move,
    /// The state after the move (canonical or not, depending on the method that
    /// produced the edge).
    pub child: u64,
    /// Points the mover scores by this move itself.
    pub reward: i8,
    /// True when the same player moves again in the child state.
    pub again: bool,
}

/// A position as people give it: a state, and what the state's key may
/// leave out. In British Square the key holds everything; in Dots and Boxes
/// it holds only the drawn edges, and the side to move and the score so far
/// come from the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// The state.
    pub state: u64,
    /// The side to move.
    pub to_move: Player,
    /// The first player's points so far minus the second player's, when
    /// known.
    pub lead: Option<i32>,
}

impl Position {
    /// The position after a move along `edge` (a move of this position).
    pub fn play(&self, edge: &Edge) -> Position {
        let gain = i32::from(edge.reward) * self.to_move.sign();
        Position {
            state: edge.child,
            to_move: if edge.again {
                self.to_move
            } else {
                self.to_move.opponent()
            },
            lead: self.lead.map(|l| l + gain),
        }
    }
}

/// How the value of a state is laid out in a database record, and what a
/// database of this game and variant is called.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameDescriptor {
    /// Registry name of the game, e.g. `british-square`.
    pub name: &'static str,
    /// Numeric game id written in database headers.
    pub id: u32,
    /// Canonical variant spec, e.g. `5x5` or `4x4,center-allowed`.
    pub variant: String,
    /// Number of low bits of a state key that may be set.
    pub key_bits: u32,
    /// Width of the signed net-score field of a record.
    pub value_bits: u32,
    /// Width of the unsigned remoteness field of a record.
    pub remoteness_bits: u32,
    /// True for games stored in the dense layout (`format-spec.md`, layout
    /// kind 2): every key below `2^key_bits` is a state, every move sets
    /// exactly one more key bit, and the game ends exactly when all are set.
    /// Then `value_bits` is 8 and `remoteness_bits` 0.
    pub dense: bool,
}

/// Why a position given as text was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// The text does not follow the position notation.
    #[error("malformed position {input:?}: {reason}")]
    Malformed {
        /// The text as given.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The text is well formed but no game can reach it under the rules.
    #[error("illegal position {input:?}: {reason}")]
    Illegal {
        /// The text as given.
        input: String,
        /// Which rule it breaks.
        reason: String,
    },
}

impl PositionError {
    /// Shorthand for a [`PositionError::Malformed`].
    pub fn malformed(input: &str, reason: impl fmt::Display) -> Self {
        PositionError::Malformed {
            input: input.to_owned(),
            reason: reason.to_string(),
        }
    }

    /// Shorthand for a [`PositionError::Illegal`].
    pub fn illegal(input: &str, reason: impl fmt::Display) -> Self {
        PositionError::Illegal {
            input: input.to_owned(),
            reason: reason.to_string(),
        }
    }
}

/// A two-player game with perfect information, as the engine sees it.
///
/// Contract (checked by the solver where it is cheap):
/// * every key the game produces has only its low [`GameDescriptor::key_bits`]
///   bits set;
/// * [`Game::canonical`] is the minimum key over the state's symmetry class, so
///   states with equal canonical keys have equal values;
/// * every child of a state lies in the same layer or a later one, and the
///   children in the same layer (forced passes) have no same-layer children of
///   their own that lead back: the same-layer graph is acyclic;
/// * a state with no moves is the end of the game (its value is zero: scores
///   are collected through [`Edge::reward`]).
pub trait Game: Send + Sync {
    /// Name, id, variant and record layout.
    fn descriptor(&self) -> &GameDescriptor;

    /// The start position.
    fn start(&self) -> u64;

    /// The number of layers; [`Game::layer`] is always below it.
    fn layer_count(&self) -> usize;

    /// The layer of a state (British Square: the number of pieces placed).
    fn layer(&self, state: u64) -> usize;

    /// The side to move in a state.
    fn to_move(&self, state: u64) -> Player;

    /// The number of symmetries (the identity included).
    fn symmetry_count(&self) -> usize;

    /// The image of a state under symmetry `sym` (`0` is the identity).
    fn transform(&self, state: u64, sym: usize) -> u64;

    /// The image of a move under symmetry `sym`, consistent with
    /// [`Game::transform`].
    fn transform_move(&self, mv: Move, sym: usize) -> Move;

    /// The canonical key of a state: the smallest key of its symmetry class.
    fn canonical(&self, state: u64) -> u64 {
        (0..self.symmetry_count())
            .map(|s| self.transform(state, s))
            .min()
            .unwrap_or(state)
    }

    /// Appends the moves of `state` and the states they lead to (not
    /// canonicalised), in increasing move order. Nothing is appended at the end
    /// of the game.
    fn moves(&self, state: u64, out: &mut Vec<Edge>);

    /// Like [`Game::moves`], with every child replaced by its canonical key.
    /// Games override it when they can canonicalise children faster together.
    fn canonical_children(&self, state: u64, out: &mut Vec<Edge>) {
        let from = out.len();
        self.moves(state, out);
        for e in &mut out[from..] {
            e.child = self.canonical(e.child);
        }
    }

    /// True when `key` encodes a well-formed state (it may still be
    /// unreachable). Used to verify databases.
    fn is_valid_key(&self, key: u64) -> bool;

    /// Parses a position in the game's notation.
    fn parse_position(&self, text: &str) -> Result<u64, PositionError>;

    /// Writes a state in the game's notation; [`Game::parse_position`] reads it
    /// back to the same state.
    fn format_position(&self, state: u64) -> String;

    /// Names a move in the game's notation.
    fn format_move(&self, mv: Move) -> String;

    /// Appends [`Game::format_move`]'s text to `out` (games override it to
    /// avoid an allocation per move when answering millions of positions).
    fn write_move(&self, mv: Move, out: &mut String) {
        out.push_str(&self.format_move(mv));
    }

    /// Parses a move in the game's notation; the move must be legal in `state`.
    fn parse_move(&self, state: u64, text: &str) -> Result<Move, PositionError>;

    /// Names a player (`X`, `O`, ...).
    fn player_name(&self, player: Player) -> &'static str;

    /// The headline value users see for a state whose net value is `net`:
    /// for British Square, X's final score.
    fn score(&self, state: u64, net: i32) -> i32;

    /// The first player's points so far minus the second player's, when the
    /// state alone tells (British Square: X's pieces minus O's). The default,
    /// `None`, is for games whose key leaves the score out.
    fn lead(&self, state: u64) -> Option<i32> {
        let _ = state;
        None
    }

    /// Parses a position with everything the text says: the state, the side
    /// to move and the score so far. The default reads the state with
    /// [`Game::parse_position`] and takes the rest from the state.
    fn parse(&self, text: &str) -> Result<Position, PositionError> {
        let state = self.parse_position(text)?;
        Ok(Position {
            state,
            to_move: self.to_move(state),
            lead: self.lead(state),
        })
    }

    /// A move's number as users count (the JSON field
    /// [`Game::move_code_name`]): the move code itself by default (British
    /// Square's cell 0 to 24); Connect Four counts columns from 1.
    fn move_number(&self, mv: Move) -> u32 {
        u32::from(mv.0)
    }

    /// Appends a game's own JSON fields describing a headline score (each
    /// starting with a comma), after the generic `value`: Dandelions says
    /// who wins and with how many flowers or gaps. Nothing by default.
    fn outcome_json(&self, score: i32, out: &mut String) {
        let _ = (score, out);
    }

    /// The JSON field name of a move's numeric code (`cell` for British
    /// Square).
    fn move_code_name(&self) -> &'static str {
        "move_code"
    }

    /// A one-line explanation of what [`Game::score`] means.
    fn score_meaning(&self) -> &'static str;

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
    /// picture (see [`crate::svg`]), `title` written above it, or `None`
    /// when the game has no picture.
    fn render_svg(&self, state: u64, moves: &[MoveMark], title: &str) -> Option<String> {
        let _ = (state, moves, title);
        None
    }
}

/// How a move turns out for the player who makes it, with perfect play
/// afterwards: the sign of [`crate::Analysis::move_result`], which counts
/// the score so far when it is known. Dots and Boxes given only the drawn
/// edges does not know it, and then a win means taking more of the
/// remaining boxes than the opponent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The player ends ahead.
    Win,
    /// Level.
    Tie,
    /// The player ends behind.
    Loss,
}

impl Outcome {
    /// The outcome of a final result seen from one player (positive: ahead).
    pub fn of(result: i32) -> Outcome {
        match result.signum() {
            1 => Outcome::Win,
            -1 => Outcome::Loss,
            _ => Outcome::Tie,
        }
    }

    /// `win`, `tie` or `loss`.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Win => "win",
            Outcome::Tie => "tie",
            Outcome::Loss => "loss",
        }
    }
}

/// A legal move as drawings show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveMark {
    /// The move.
    pub mv: Move,
    /// The headline value after the move ([`Game::score`]).
    pub score: i32,
    /// How it turns out for the player making it.
    pub outcome: Outcome,
    /// True when it keeps the best value.
    pub best: bool,
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

/// The identity style for [`Game::render_move_map`]: no colours.
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
