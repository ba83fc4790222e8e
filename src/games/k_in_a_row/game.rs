//! k-in-a-row as the engine's [`Game`]: keys, moves, layers, the board's
//! symmetries and the notation.
//!
//! # State key (a public contract, see `format-spec.md`)
//! Up to 35 cells, `sum(digit(cell) * 3^cell)` over the cells, numbered
//! row-major from the top left, with digit 0 for an empty cell, 1 for `X`
//! and 2 for `O`: `ceil(cells * log2 3)` bits, 15 on 3x3, 26 on 4x4, 40 on
//! 5x5. On larger boards the positions of few stones are ranked and the
//! others get handles ([`Keys`]). The side to move follows from the stone
//! counts.
//!
//! # Values
//! The move that completes a line earns 1 as the edge's reward, and a
//! position with a line on the board (or a full board) has no moves, so
//! the engine's net value is +1 (the side to move wins), 0 (a draw) or -1,
//! and its remoteness the plies to the end: the winner's fastest win, the
//! loser's slowest loss; a draw fills the board.

use super::board::{Geometry, Stones, Variant, VariantSpecError};
use super::key::Keys;
use super::{ID, NAME};
use crate::core::notation::number;
use crate::core::{
    Edge, Game, GameDescriptor, Limits, Move, Player, PositionError, Value, VariantError,
};

/// k-in-a-row on one board, as the engine sees it.
#[derive(Clone, Debug)]
pub struct KInARow {
    geo: Geometry,
    keys: Keys,
    desc: GameDescriptor,
}

/// Bits needed to write `n` in binary (0 for 0).
fn bits_for(n: u64) -> u32 {
    64 - n.leading_zeros()
}

impl KInARow {
    /// k-in-a-row on `variant`.
    pub(crate) fn new(variant: Variant) -> KInARow {
        let geo = Geometry::new(variant);
        // -1, 0 or +1: a sign bit and one bit.
        let value_bits = 2;
        let remoteness_bits = bits_for(u64::from(variant.cells()));
        let keys = Keys::new(variant.cells(), value_bits + remoteness_bits);
        KInARow {
            desc: GameDescriptor {
                name: NAME,
                id: ID,
                variant: variant.to_string(),
                key_bits: bits_for(keys.end() - 1),
                value_bits,
                remoteness_bits,
                dense: false,
            },
            keys,
            geo,
        }
    }

    /// k-in-a-row on `variant` with ranked keys (and handles) whatever the
    /// board, numbering only positions of at most `max_stones` stones: the
    /// large boards' keys on a board small enough to check them against
    /// the base-3 ones.
    #[cfg(test)]
    pub(super) fn with_ranked_keys(variant: Variant, max_stones: u32, capacity: usize) -> KInARow {
        let mut g = KInARow::new(variant);
        let cells = variant.cells();
        // The key bits that rank `max_stones` stones and no more.
        let bits = (1..=63)
            .find(|&b| super::key::Ranked::new(cells, b, 1).max_stones() >= max_stones)
            .unwrap_or(63);
        g.keys = Keys::Ranked(super::key::Ranked::new(cells, bits, capacity));
        g.desc.key_bits = bits_for(g.keys.end() - 1);
        g
    }

    /// How positions are numbered.
    pub(crate) fn keys(&self) -> &Keys {
        &self.keys
    }

    /// Parses a variant spec `RxC,k=K` (empty or `tic-tac-toe`: 3x3,k=3).
    pub fn from_variant(spec: &str) -> Result<KInARow, VariantError> {
        let variant = spec
            .parse::<Variant>()
            .map_err(|e: VariantSpecError| VariantError::new(NAME, spec, e))?;
        Ok(KInARow::new(variant))
    }

    /// The board size and line length.
    pub(crate) fn variant(&self) -> Variant {
        self.geo.variant()
    }

    /// Cells, lines and symmetries of the board.
    pub(crate) fn geometry(&self) -> &Geometry {
        &self.geo
    }

    /// The stones of a state key the engine produced; a malformed key
    /// (which no caller of the engine passes, or a handle of a table that
    /// has started over) reads as the empty board rather than panicking.
    pub(crate) fn stones(&self, state: u64) -> Stones {
        self.keys.decode(state).unwrap_or(Stones { x: 0, o: 0 })
    }

    /// The key of a position.
    pub(crate) fn key(&self, s: Stones) -> u64 {
        self.keys.encode(s)
    }

    /// The player with a full line on the board, if any.
    pub(crate) fn winner(&self, s: Stones) -> Option<Player> {
        if self.geo.has_line(s.x) {
            Some(Player::First)
        } else if self.geo.has_line(s.o) {
            Some(Player::Second)
        } else {
            None
        }
    }

    /// True when the game is over: a line, or a full board.
    pub(crate) fn is_over(&self, s: Stones) -> bool {
        (s.x | s.o) == self.geo.full() || self.winner(s).is_some()
    }

    /// The engine's value of a position whose search score is `score`
    /// (see the `search` module): positive `cells + 1 - e` when the side to
    /// move wins and the game ends with `e` stones on the board, the
    /// negative when it loses, 0 for a draw (the board fills).
    pub(crate) fn value_of_score(&self, s: Stones, score: i32) -> Value {
        if self.is_over(s) {
            return Value::TERMINAL;
        }
        let cells = self.geo.cells() as i32;
        let n = s.count() as i32;
        let end = if score == 0 {
            cells
        } else {
            cells + 1 - score.abs()
        };
        Value {
            net: score.signum(),
            remoteness: (end - n).max(0) as u32,
        }
    }

    /// The name of a column: `a` to `z`, then `A` on.
    pub(crate) fn column_name(&self, col: u32) -> char {
        if col < 26 {
            char::from(b'a' + col as u8)
        } else {
            char::from(b'A' + (col - 26) as u8)
        }
    }

    /// A cell as a coordinate: its column's letter and its row, counted
    /// from 1 at the top (`b2` is the centre of 3x3).
    pub(crate) fn cell_name(&self, cell: u32) -> String {
        let cols = self.variant().cols();
        format!("{}{}", self.column_name(cell % cols), cell / cols + 1)
    }

    /// Why `token` is no move: what it is, and what was expected there.
    fn not_a_move(&self, token: &str) -> String {
        let last = self.geo.cells() - 1;
        format!(
            "{token:?} is not a move: expected a coordinate a1 to {} or a cell number 0 to {last}",
            self.cell_name(last)
        )
    }

    /// A cell given as a number (from 0) or a coordinate.
    fn parse_cell(&self, text: &str) -> Option<u32> {
        let t = text.trim();
        let cells = self.geo.cells();
        if let Some(c) = number(t) {
            return (c < cells).then_some(c);
        }
        let (cols, rows) = (self.variant().cols(), self.variant().rows());
        let mut chars = t.chars();
        let letter = chars.next()?;
        let col = if cols <= 26 {
            (letter.to_ascii_lowercase() as u32).checked_sub('a' as u32)?
        } else if letter.is_ascii_lowercase() {
            letter as u32 - 'a' as u32
        } else {
            (letter as u32).checked_sub('A' as u32)? + 26
        };
        let row = number(chars.as_str())?.checked_sub(1)?;
        (col < cols && row < rows).then_some(row * cols + col)
    }

    /// The position after the moves of `input` (cell numbers or
    /// coordinates, separated by spaces or commas) from the empty board.
    fn parse_moves(&self, input: &str) -> Result<u64, PositionError> {
        let mut s = Stones { x: 0, o: 0 };
        for (i, tok) in input
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|t| !t.is_empty())
            .enumerate()
        {
            let Some(cell) = self.parse_cell(tok) else {
                return Err(PositionError::malformed(
                    input,
                    format!("move {}: {}", i + 1, self.not_a_move(tok)),
                ));
            };
            if let Some(reason) = self.illegal_move(s, cell) {
                return Err(PositionError::illegal(
                    input,
                    format!("move {} ({tok}): {reason}", i + 1),
                ));
            }
            s = self.play(s, cell);
        }
        Ok(self.key(s))
    }

    /// Why placing a stone on `cell` is not a move of `s`, if it is not.
    fn illegal_move(&self, s: Stones, cell: u32) -> Option<&'static str> {
        if self.is_over(s) {
            Some("the game is over")
        } else if (s.x | s.o) >> cell & 1 != 0 {
            Some("the cell is taken")
        } else {
            None
        }
    }

    /// The position after the side to move places a stone on `cell`.
    pub(crate) fn play(&self, s: Stones, cell: u32) -> Stones {
        let bit = 1u64 << cell;
        match s.to_move() {
            Player::First => Stones {
                x: s.x | bit,
                o: s.o,
            },
            Player::Second => Stones {
                x: s.x,
                o: s.o | bit,
            },
        }
    }

    /// A picture: rows from the top separated by `/`, `.`, `X`, `O` (either
    /// case), then optionally the side to move, which must be the one the
    /// stone counts give.
    fn parse_picture(&self, text: &str) -> Result<u64, PositionError> {
        let t = text.trim();
        let (board, side) = match t.rsplit_once(char::is_whitespace) {
            Some((b, s)) => (b.trim(), Some(s)),
            None => (t, None),
        };
        let (rows, cols) = (self.variant().rows(), self.variant().cols());
        let lines: Vec<&str> = board.split('/').collect();
        if lines.len() != rows as usize || lines.iter().any(|l| l.chars().count() != cols as usize)
        {
            return Err(PositionError::malformed(
                text,
                format!("a board is {rows} rows of {cols} cells, separated by /"),
            ));
        }
        let mut s = Stones { x: 0, o: 0 };
        for (r, line) in lines.iter().enumerate() {
            for (c, ch) in line.chars().enumerate() {
                let bit = 1u64 << (r as u32 * cols + c as u32);
                match ch {
                    '.' => {}
                    'x' | 'X' => s.x |= bit,
                    'o' | 'O' => s.o |= bit,
                    _ => {
                        return Err(PositionError::malformed(
                            text,
                            format!("{ch:?} is not a cell: `.`, `X` or `O`"),
                        ))
                    }
                }
            }
        }
        if !s.counts_fit() {
            return Err(PositionError::illegal(
                text,
                "X moves first: X has as many stones as O, or one more",
            ));
        }
        if let Some(side) = side {
            let named = match side {
                "X" | "x" => Player::First,
                "O" | "o" => Player::Second,
                _ => {
                    return Err(PositionError::malformed(
                        text,
                        format!("{side:?} is not a side to move: expected X or O after the board"),
                    ))
                }
            };
            if named != s.to_move() {
                return Err(PositionError::illegal(
                    text,
                    format!(
                        "{} is to move: the stone counts say so",
                        self.player_name(s.to_move())
                    ),
                ));
            }
        }
        if let Some(reason) = self.unreachable(s) {
            return Err(PositionError::illegal(text, reason));
        }
        Ok(self.key(s))
    }

    /// Why a position with fitting stone counts cannot arise in a game, if
    /// it cannot: a line of the side to move (the game ended before its
    /// opponent's last stone), or lines the last stone cannot all have
    /// made.
    fn unreachable(&self, s: Stones) -> Option<&'static str> {
        let mover = s.of(s.to_move());
        if self.geo.has_line(mover) {
            return Some("the side to move has a line: the game ended before the last stone");
        }
        let last = s.of(s.to_move().opponent());
        if !self.geo.has_line(last) {
            return None;
        }
        // Some stone of the last mover must have made every line.
        let mut rest = last;
        while rest != 0 {
            let cell = rest.trailing_zeros();
            rest &= rest - 1;
            if !self.geo.has_line(last & !(1u64 << cell)) {
                return None;
            }
        }
        Some("no single last stone made all the lines on the board")
    }
}

impl Game for KInARow {
    /// At most `3^cells` keys (the ranked positions on a large board); a
    /// value is -1, 0 or +1; a game is at most a stone a cell.
    fn limits(&self) -> Limits {
        let exact = match self.desc.variant.as_str() {
            // Counted by the complete solve (`tests` below).
            "3x3,k=3" => Some(765),
            _ => None,
        };
        Limits {
            states: exact.unwrap_or(self.keys.end()),
            exact_states: exact,
            max_net: 1,
            max_remoteness: self.geo.cells(),
        }
    }

    fn descriptor(&self) -> &GameDescriptor {
        &self.desc
    }

    fn start(&self) -> u64 {
        0
    }

    fn layer_count(&self) -> usize {
        self.geo.cells() as usize + 1
    }

    fn layer(&self, state: u64) -> usize {
        self.stones(state).count() as usize
    }

    fn to_move(&self, state: u64) -> Player {
        self.stones(state).to_move()
    }

    fn symmetry_count(&self) -> usize {
        self.geo.symmetry_count()
    }

    fn transform(&self, state: u64, sym: usize) -> u64 {
        let s = self.stones(state);
        self.key(Stones {
            x: self.geo.map_set(s.x, sym),
            o: self.geo.map_set(s.o, sym),
        })
    }

    fn transform_move(&self, mv: Move, sym: usize) -> Move {
        if u32::from(mv.0) < self.geo.cells() {
            Move(self.geo.map_cell(u32::from(mv.0), sym) as u16)
        } else {
            mv
        }
    }

    fn canonical(&self, state: u64) -> u64 {
        let s = self.stones(state);
        let image = |sym| Stones {
            x: self.geo.map_set(s.x, sym),
            o: self.geo.map_set(s.o, sym),
        };
        let symmetries = self.geo.symmetry_count();
        match &self.keys {
            // The identity's key is `state` itself.
            Keys::Base3(_) => {
                (1..symmetries).fold(state, |best, sym| best.min(self.key(image(sym))))
            }
            Keys::Ranked(r) => r.smallest((0..symmetries).map(image)),
        }
    }

    /// A key that names no position has no moves (rather than the empty
    /// board's).
    fn moves(&self, state: u64, out: &mut Vec<Edge>) {
        let Some(s) = self.keys.decode(state) else {
            return;
        };
        if self.is_over(s) {
            return;
        }
        let me = s.to_move();
        let mut empty = self.geo.full() & !(s.x | s.o);
        let x_moves = me == Player::First;
        while empty != 0 {
            let cell = empty.trailing_zeros();
            empty &= empty - 1;
            let mine = s.of(me) | 1u64 << cell;
            let wins = self.geo.has_line_through(mine, cell);
            out.push(Edge {
                mv: Move(cell as u16),
                child: self.keys.child(state, s, cell, x_moves),
                reward: i8::from(wins),
                again: false,
            });
        }
    }

    fn is_valid_key(&self, key: u64) -> bool {
        self.keys
            .decode(key)
            .is_some_and(|s| s.counts_fit() && self.unreachable(s).is_none())
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
        if let Some(rest) = t.strip_prefix("moves:") {
            return self.parse_moves(rest);
        }
        // A picture holds only cells and slashes before the side to move
        // (one with a bad cell still has its slashes); a move list starts
        // with a digit or a coordinate.
        let board = t.split_whitespace().next().unwrap_or("");
        if board.contains('/')
            || board
                .chars()
                .all(|c| matches!(c, '.' | '/' | 'x' | 'X' | 'o' | 'O'))
        {
            self.parse_picture(t)
        } else {
            self.parse_moves(t)
        }
    }

    /// A key that names no position (a handle of a generation the table
    /// has dropped) prints as a note saying so, not as some board.
    fn format_position(&self, state: u64) -> String {
        let Some(s) = self.keys.decode(state) else {
            return format!("(key {state:#x} names no position of {})", self.variant());
        };
        let cols = self.variant().cols();
        let mut out = String::with_capacity(self.geo.cells() as usize * 2);
        for cell in 0..self.geo.cells() {
            if cell > 0 && cell % cols == 0 {
                out.push('/');
            }
            out.push(if s.x >> cell & 1 != 0 {
                'X'
            } else if s.o >> cell & 1 != 0 {
                'O'
            } else {
                '.'
            });
        }
        out.push(' ');
        out.push_str(self.player_name(s.to_move()));
        out
    }

    /// A move is named by its cell's coordinate (`b2`), as the board's
    /// labels name it; [`Game::parse_move`] also takes the cell number.
    fn format_move(&self, mv: Move) -> String {
        self.cell_name(u32::from(mv.0))
    }

    fn parse_move(&self, state: u64, text: &str) -> Result<Move, PositionError> {
        let cell = self
            .parse_cell(text)
            .ok_or_else(|| PositionError::malformed(text, self.not_a_move(text.trim())))?;
        if let Some(reason) = self.illegal_move(self.stones(state), cell) {
            return Err(PositionError::illegal(text, reason));
        }
        Ok(Move(cell as u16))
    }

    fn player_name(&self, player: Player) -> &'static str {
        match player {
            Player::First => "X",
            Player::Second => "O",
        }
    }

    fn player_pieces(&self, player: Player) -> &'static str {
        match player {
            Player::First => "crosses; moves first",
            Player::Second => "noughts",
        }
    }

    /// A finished position with a line is a loss for the side to move (its
    /// net value, 0, says only that no move is left).
    fn score(&self, state: u64, net: i32) -> i32 {
        if self.winner(self.stones(state)).is_some() {
            -1
        } else {
            net
        }
    }

    /// 0 until someone completes a line; then +1 if `X` did, -1 if `O` did.
    fn lead(&self, state: u64) -> Option<i32> {
        Some(match self.winner(self.stones(state)) {
            Some(p) => p.sign(),
            None => 0,
        })
    }
}
