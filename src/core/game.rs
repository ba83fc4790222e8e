//! The `Game` trait: a game's rules and notation, everything the generic
//! engine needs to know about it.
//!
//! A state is a `u64` key whose meaning the game defines (and documents in
//! `format-spec.md`). The engine never looks inside a key: it asks the game for
//! the moves of a state, the canonical form of a key under the game's
//! symmetries, and the layer of a state (moves never lead to an earlier layer,
//! which lets the solver work layer by layer).

use std::fmt;

use super::value::{Edge, Move, Player};

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

// `GameDescriptor::storage_error` (can a database hold the game's
// records?) is in `layout.rs`: it asks the record layout, which reads the
// descriptor.

/// What a database of a game can hold, as the game's rules bound it: a
/// header or a record beyond these is forged or damaged, whatever its
/// checksums say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most canonical states of the game (records of a sorted file).
    pub states: u64,
    /// The exact number of canonical states, when it is known: what a
    /// complete database holds.
    pub exact_states: Option<u64>,
    /// The largest net score, either sign.
    pub max_net: i32,
    /// The longest game, in plies.
    pub max_remoteness: u32,
}

impl Limits {
    /// True when a stored value is one the game can have.
    #[inline]
    pub(crate) fn allows(&self, v: super::value::Value) -> bool {
        v.net.unsigned_abs() <= self.max_net.unsigned_abs() && v.remoteness <= self.max_remoteness
    }
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
    pub(crate) fn malformed(input: &str, reason: impl fmt::Display) -> Self {
        PositionError::Malformed {
            input: input.to_owned(),
            reason: reason.to_string(),
        }
    }

    /// Shorthand for a [`PositionError::Illegal`].
    pub(crate) fn illegal(input: &str, reason: impl fmt::Display) -> Self {
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

    /// True when `state` is its class's canonical key: no symmetry maps it
    /// to a smaller key (stops at the first that does).
    fn is_canonical(&self, state: u64) -> bool {
        (1..self.symmetry_count()).all(|s| self.transform(state, s) >= state)
    }

    /// Appends to `out` the canonical keys `k` with `first <= k < end`, in
    /// increasing order. Games override it when they can tell many keys
    /// apart faster together (a packed dense file decodes its blocks so).
    fn canonical_keys_in(&self, first: u64, end: u64, out: &mut Vec<u64>) {
        out.extend((first..end).filter(|&k| self.is_canonical(k)));
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

    /// What a player plays with and how its pieces look, in a few words,
    /// for pages and clients that name no game (`"red stones; moves
    /// first"`). The default says only who moves first.
    fn player_pieces(&self, player: Player) -> &'static str {
        match player {
            Player::First => "moves first",
            Player::Second => "moves second",
        }
    }

    /// The headline value users see for a state whose net value is `net`,
    /// for the side to move (the one sign rule): British Square's is the
    /// side to move's final pieces minus its opponent's.
    fn score(&self, state: u64, net: i32) -> i32;

    /// What a database of this game can hold ([`Limits`]). The default
    /// bounds nothing but what the record layout can hold.
    fn limits(&self) -> Limits {
        let d = self.descriptor();
        let bits = |b: u32| if b >= 32 { u32::MAX } else { (1u32 << b) - 1 };
        Limits {
            states: u64::MAX,
            exact_states: None,
            max_net: i32::try_from(bits(d.value_bits.saturating_sub(1))).unwrap_or(i32::MAX),
            max_remoteness: bits(d.remoteness_bits),
        }
    }

    /// The first player's points so far minus the second player's, when the
    /// state alone tells (British Square: X's pieces minus O's). The default,
    /// `None`, is for games whose key leaves the score out.
    fn lead(&self, state: u64) -> Option<i32> {
        let _ = state;
        None
    }

    /// The position as text that [`Game::parse`] reads back as the same
    /// position, side to move and score so far included where the state
    /// alone does not tell them. By default the state's text
    /// ([`Game::format_position`]).
    fn format_full(&self, position: &Position) -> String {
        self.format_position(position.state)
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
}

/// A variant spec that a game cannot play: the one error shape of every
/// game's `from_variant`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad variant {spec:?} for {game}: {reason}")]
pub struct VariantError {
    /// The game's registry name.
    pub game: &'static str,
    /// The spec as given.
    pub spec: String,
    /// What is wrong with it.
    pub reason: String,
}

impl VariantError {
    /// A bad `spec` for `game`, because of `reason`.
    pub(crate) fn new(game: &'static str, spec: &str, reason: impl fmt::Display) -> VariantError {
        VariantError {
            game,
            spec: spec.to_owned(),
            reason: reason.to_string(),
        }
    }
}
