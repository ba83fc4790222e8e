//! Connect Four as the engine's [`Game`]: keys, moves, layers, the mirror
//! symmetry and the notation, so that databases, `verify` and the analysis
//! work on it unchanged.
//!
//! # State key (a public contract, see `format-spec.md`)
//! The key is [`Bitboard::key`]: `current + mask + bottom` in the bitboard
//! layout of the module documentation (column `c` owns bits `c * (H + 1)`
//! to `c * (H + 1) + H`, bottom cell first). In each column the highest set
//! bit marks the cell above the top stone; the bits below it are the
//! column's stones, set where the side to move has one. The key holds the
//! position, not the order of the moves.
//!
//! # Values
//! A move that completes a four earns its score as the edge's reward, and
//! a position with a four on the board (or a full board) has no moves, so
//! the engine's net value of a position is exactly its Connect Four score
//! ([`Solver::solve`](super::Solver::solve)), and its remoteness the number
//! of plies to the end, which the score determines.

use super::bits::{Geometry, Standard};
use super::board::{Bitboard, ParseError, Variant};
use super::{ID, NAME};
use crate::core::notation::number;
use crate::core::{
    Edge, Game, GameDescriptor, Limits, Move, Player, PositionError, Value, VariantError,
};

/// Connect Four on one board size, as the engine sees it.
#[derive(Clone, Debug)]
pub struct ConnectFour {
    variant: Variant,
    desc: GameDescriptor,
}

/// Bits needed to write `n` in binary (0 for 0).
fn bits_for(n: u32) -> u32 {
    32 - n.leading_zeros()
}

impl ConnectFour {
    /// Connect Four on `variant`: any board whose bitboard fits a 64-bit
    /// word can be searched; its database records fit only on the smaller
    /// boards ([`GameDescriptor::storage_error`]).
    pub fn new(variant: Variant) -> ConnectFour {
        let cells = variant.cells();
        let key_bits = variant.width() * (variant.height() + 1);
        // Scores lie within +-(cells + 1) / 2: a sign bit and the magnitude.
        let value_bits = bits_for(cells.div_ceil(2)) + 1;
        let remoteness_bits = bits_for(cells);
        ConnectFour {
            variant,
            desc: GameDescriptor {
                name: NAME,
                id: ID,
                variant: variant.to_string(),
                key_bits,
                value_bits,
                remoteness_bits,
                dense: false,
            },
        }
    }

    /// Parses a variant spec `WxH` (empty: the standard 7x6).
    pub fn from_variant(spec: &str) -> Result<ConnectFour, VariantError> {
        let variant = spec
            .parse::<Variant>()
            .map_err(|e| VariantError::new(NAME, spec, e))?;
        Ok(ConnectFour::new(variant))
    }

    /// The board size.
    pub(crate) fn variant(&self) -> Variant {
        self.variant
    }

    /// The position of a state key, if the key is well formed.
    pub(crate) fn bitboard(&self, state: u64) -> Option<Bitboard> {
        Bitboard::from_key(self.variant, state)
    }

    /// The position of a state key the engine produced; a malformed key
    /// (which no caller of the engine passes) reads as the empty board
    /// rather than panicking.
    pub(super) fn pos(&self, state: u64) -> Bitboard {
        self.bitboard(state)
            .unwrap_or_else(|| Bitboard::new(self.variant))
    }

    /// The value of a position whose Connect Four score is `score`: the net
    /// score is the score itself, and the remoteness the plies to the end,
    /// which the score determines (a draw fills the board; a win or loss
    /// ends with the stone that makes the four, whose number the score
    /// gives and the parity of the winner's stones fixes). A finished
    /// position is [`Value::TERMINAL`] whatever `score` says.
    pub fn value_of_score(&self, position: &Bitboard, score: i32) -> Value {
        if position.is_over() {
            return Value::TERMINAL;
        }
        let cells = self.variant.cells() as i32;
        let n = position.moves() as i32;
        let plies = match score.signum() {
            0 => cells - n,
            s => {
                // The four is made with stone number `f`, `(cells + 2 - f) /
                // 2 == |score|`: `f` is `cells + 2 - 2|score|` or one less,
                // the one of the winner's parity (the side to move plays
                // stones n + 1, n + 3, ...; the opponent n + 2, n + 4, ...).
                let f = cells + 2 - 2 * score.abs();
                let winner_parity = if s > 0 { n + 1 } else { n };
                let f = if (f - winner_parity) % 2 == 0 {
                    f
                } else {
                    f - 1
                };
                f - n
            }
        };
        Value {
            net: score,
            remoteness: plies.max(0) as u32,
        }
    }

    fn geo_mirror(&self, key: u64) -> u64 {
        // The standard board's mirror is a handful of constant shifts.
        if self.variant == Variant::STANDARD {
            Standard.mirror(key)
        } else {
            self.variant.geometry().mirror(key)
        }
    }

    /// The one-line picture: rows top first, separated by `/`.
    fn picture_line(&self, p: &Bitboard) -> String {
        p.picture().replace('\n', "/")
    }
}

/// A parse error of the board module as the engine's [`PositionError`].
fn position_error(input: &str, e: ParseError) -> PositionError {
    // The engine's error quotes the input: the reason goes without it.
    let why = e.reason();
    match e {
        ParseError::BadColumn { .. } => PositionError::malformed(input, why),
        // Shape and characters are notation; gravity, stone counts and
        // fours are rules.
        ParseError::Picture { .. } => PositionError::malformed(input, why),
        ParseError::FullColumn { .. }
        | ParseError::GameOver { .. }
        | ParseError::Unreachable { .. } => PositionError::illegal(input, why),
    }
}

impl Game for ConnectFour {
    /// 4x4 is solved completely (80,541 positions up to the mirror); a
    /// larger board has at most `2^(H+1) - 1` contents per column. A score
    /// is at most `(cells + 2) / 2`, a game at most a stone a cell.
    fn limits(&self) -> Limits {
        let (w, h) = (self.variant.width(), self.variant.height());
        let column = (1u64 << (h + 1)) - 1;
        let states = (0..w).fold(1u64, |n, _| n.saturating_mul(column));
        let cells = self.variant.cells();
        Limits {
            states: if cells == 16 { 80_541 } else { states },
            exact_states: (cells == 16).then_some(80_541),
            max_net: (cells as i32 + 2) / 2,
            max_remoteness: cells,
        }
    }

    fn descriptor(&self) -> &GameDescriptor {
        &self.desc
    }

    fn start(&self) -> u64 {
        Bitboard::new(self.variant).key()
    }

    fn layer_count(&self) -> usize {
        self.variant.cells() as usize + 1
    }

    fn layer(&self, state: u64) -> usize {
        self.pos(state).moves() as usize
    }

    fn to_move(&self, state: u64) -> Player {
        self.pos(state).to_move()
    }

    fn symmetry_count(&self) -> usize {
        2
    }

    fn transform(&self, state: u64, sym: usize) -> u64 {
        if sym % 2 == 1 {
            self.geo_mirror(state)
        } else {
            state
        }
    }

    fn transform_move(&self, mv: Move, sym: usize) -> Move {
        if sym % 2 == 1 && u32::from(mv.0) < self.variant.width() {
            Move((self.variant.width() - 1) as u16 - mv.0)
        } else {
            mv
        }
    }

    #[inline]
    fn canonical(&self, state: u64) -> u64 {
        state.min(self.geo_mirror(state))
    }

    fn moves(&self, state: u64, out: &mut Vec<Edge>) {
        let p = self.pos(state);
        if p.is_over() {
            return;
        }
        let win = self.variant.win_score(p.moves());
        for c in 0..self.variant.width() {
            if !p.can_play(c) {
                continue;
            }
            let reward = if p.is_winning_move(c) { win } else { 0 };
            if let Ok(child) = p.play(c) {
                out.push(Edge {
                    mv: Move(c as u16),
                    child: child.key(),
                    // Scores are at most (cells + 1) / 2 <= 32.
                    reward: reward as i8,
                    again: false,
                });
            }
        }
    }

    fn is_valid_key(&self, key: u64) -> bool {
        self.bitboard(key).is_some()
    }

    fn parse_position(&self, text: &str) -> Result<u64, PositionError> {
        let t = text.trim();
        if t.is_empty() {
            return Err(PositionError::malformed(
                text,
                "empty position (`start` is the start)",
            ));
        }
        if t.eq_ignore_ascii_case("start") {
            return Ok(self.start());
        }
        Bitboard::parse(self.variant, t)
            .map(|p| p.key())
            .map_err(|e| position_error(text, e))
    }

    fn format_position(&self, state: u64) -> String {
        self.picture_line(&self.pos(state))
    }

    fn format_move(&self, mv: Move) -> String {
        (u32::from(mv.0) + 1).to_string()
    }

    fn parse_move(&self, state: u64, text: &str) -> Result<Move, PositionError> {
        let w = self.variant.width();
        let column = match number(text.trim()) {
            Some(c) if (1..=w).contains(&c) => c - 1,
            _ => {
                return Err(PositionError::malformed(
                    text,
                    format!("a move is a column number, 1 to {w}"),
                ))
            }
        };
        let p = self.pos(state);
        if p.is_over() {
            return Err(PositionError::illegal(text, "the game is over"));
        }
        if !p.can_play(column) {
            return Err(PositionError::illegal(
                text,
                format!("column {} is full", column + 1),
            ));
        }
        Ok(Move(column as u16))
    }

    fn player_name(&self, player: Player) -> &'static str {
        match player {
            Player::First => "X",
            Player::Second => "O",
        }
    }

    fn player_pieces(&self, player: Player) -> &'static str {
        match player {
            Player::First => "red stones; moves first",
            Player::Second => "yellow stones",
        }
    }

    fn score(&self, state: u64, net: i32) -> i32 {
        // A won position has no moves (net 0); its score is the loser's:
        // the negative of the winner's, fixed by the stones on the board.
        let p = self.pos(state);
        if p.is_won() {
            -self.variant.win_score(p.moves() - 1)
        } else {
            net
        }
    }

    /// 0 until someone makes a four; then the winner's score, positive when
    /// the first player won. So the final lead under perfect play
    /// ([`Analysis::final_lead`](crate::Analysis::final_lead)) is the score
    /// from the first player's side, and a won position reads as a win for
    /// the winner rather than a tie.
    fn lead(&self, state: u64) -> Option<i32> {
        let p = self.pos(state);
        if !p.is_won() {
            return Some(0);
        }
        let winner_score = self.variant.win_score(p.moves() - 1);
        // The winner moved last: the side to move now is the loser.
        Some(match p.to_move() {
            Player::First => -winner_score,
            Player::Second => winner_score,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptor_of_the_standard_board() {
        let g = ConnectFour::from_variant("").expect("standard");
        let d = g.descriptor();
        assert_eq!(d.variant, "7x6");
        assert_eq!((d.key_bits, d.value_bits, d.remoteness_bits), (49, 6, 6));
        assert!(d.storage_error().is_none());
        // Searched, not stored.
        let big = ConnectFour::from_variant("8x7").expect("a 64-bit bitboard");
        assert!(big.descriptor().storage_error().is_some());
        assert!(ConnectFour::from_variant("9x7").is_err(), "80 bits");
        assert!(ConnectFour::from_variant("6x7").is_ok());
    }

    #[test]
    fn keys_decode_and_moves_score() {
        let g = ConnectFour::from_variant("7x6").expect("standard");
        let p = Bitboard::from_moves(Variant::STANDARD, "121212").expect("legal");
        assert_eq!(Bitboard::from_key(Variant::STANDARD, p.key()), Some(p));
        let mut edges = Vec::new();
        g.moves(p.key(), &mut edges);
        assert_eq!(edges.len(), 7);
        assert_eq!(edges[0].reward, 18);
        assert!(edges[1..].iter().all(|e| e.reward == 0));
        edges.clear();
        g.moves(edges_child(&g, p.key(), 0), &mut edges);
        assert!(edges.is_empty(), "a won position has no moves");
        assert_eq!(g.value_of_score(&p, 18).remoteness, 1);
        assert!(!g.is_valid_key(0));
    }

    fn edges_child(g: &ConnectFour, s: u64, c: u32) -> u64 {
        g.pos(s).play(c).expect("legal").key()
    }
}
