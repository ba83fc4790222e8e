//! British Square's rules and notation: [`BritishSquare`], its variants
//! and its [`Game`] impl (the state key is documented in the folder's
//! `mod.rs`).

use super::simd::{simd_available, Simd};
use super::{ID, NAME};
use crate::core::notation::number;
use crate::core::{Edge, Game, GameDescriptor, Limits, Move, Player, PositionError, VariantError};
use crate::games::square::SquareSymmetry;

/// British Square with a given board size and opening rule.
#[derive(Clone, Debug)]
// The orbit tables serve the bucketed solver (`engine`) only.
// Its fields are the folder's: the solver kernels beside the rules read them.
pub struct BritishSquare {
    pub(super) n: u32,
    pub(super) cells: u32,
    pub(super) center_allowed: bool,
    pub(super) board: u64,
    pub(super) not_first_col: u64,
    pub(super) not_last_col: u64,
    pub(super) forbidden_opening: u64,
    pub(super) sym: SquareSymmetry,
    pub(super) desc: GameDescriptor,
    /// The vector instructions [`Game::canonical_children`] may use
    /// (checked once).
    pub(super) simd: Simd,
    /// Per cell: its orbit under the 8 symmetries (the class of a move
    /// there, see [`crate::solve::complete::buckets::Bucketed`]).
    pub(super) orbit: Vec<u8>,
    /// The number of cells of each orbit.
    pub(super) orbit_sizes: Vec<u32>,
    /// The cells of each orbit.
    pub(super) orbit_masks: Vec<u64>,
    /// Per byte `i` of the occupied cells and its value: what those pieces
    /// add to the bucket number (bucket numbers add up over cells).
    pub(super) bucket_bytes: Box<[[u32; 256]; 4]>,
    /// Per byte `i` of a set of cells and its value: the number of those
    /// cells in each orbit, 4 bits per orbit.
    pub(super) orbit_nibbles: Box<[[u32; 256]; 4]>,
}

impl BritishSquare {
    /// The smallest supported board side.
    pub(crate) const MIN_SIDE: u32 = 3;
    /// The largest supported board side (two 25-cell planes and the side bit
    /// leave 13 bits of a record for the value).
    pub(crate) const MAX_SIDE: u32 = 5;

    /// British Square on an `n x n` board. `center_allowed` lifts the rule that
    /// X may not open in the centre (which only exists on odd boards).
    pub fn new(n: u32, center_allowed: bool) -> Result<Self, VariantError> {
        if !(Self::MIN_SIDE..=Self::MAX_SIDE).contains(&n) {
            return Err(VariantError::new(
                NAME,
                &format!("{n}x{n}"),
                format!("board size {n}x{n} is not supported (use 3x3, 4x4 or 5x5)"),
            ));
        }
        let cells = n * n;
        let board = (1u64 << cells) - 1;
        let col = |c: u32| (0..n).fold(0u64, |acc, r| acc | 1 << (r * n + c));
        let forbidden_opening = if n % 2 == 1 && !center_allowed {
            1 << (cells / 2)
        } else {
            0
        };
        let sym = SquareSymmetry::new(n, 2);
        // Orbits numbered in order of their smallest cell.
        let reps: Vec<u32> = (0..cells)
            .map(|c| (0..8).map(|s| sym.map_cell(c, s)).min().unwrap_or(c))
            .collect();
        let mut distinct = reps.clone();
        distinct.sort_unstable();
        distinct.dedup();
        let orbit: Vec<u8> = reps
            .iter()
            .map(|r| distinct.partition_point(|d| d < r) as u8)
            .collect();
        let orbit_sizes: Vec<u32> = (0..distinct.len())
            .map(|j| orbit.iter().filter(|&&o| usize::from(o) == j).count() as u32)
            .collect();
        let orbit_masks: Vec<u64> = (0..distinct.len())
            .map(|j| {
                (0..cells as usize)
                    .filter(|&c| usize::from(orbit[c]) == j)
                    .fold(0, |m, c| m | 1 << c)
            })
            .collect();
        // A bucket (see `buckets`) numbers the pieces in each orbit as
        // mixed-radix digits, the last orbit lowest: the numbering of the
        // bucketed solver's piece-count scheme, which the solver's contract
        // checks hold it to.
        let mut weights = vec![1u32; orbit_sizes.len()];
        for j in (0..weights.len().saturating_sub(1)).rev() {
            weights[j] = weights[j + 1] * (orbit_sizes[j + 1] + 1);
        }
        // Both tables add up a value per cell over the cells of a byte.
        let byte_tables = |per_cell: &dyn Fn(usize) -> u32| {
            let mut tables = Box::new([[0u32; 256]; 4]);
            for (i, table) in tables.iter_mut().enumerate() {
                for (v, entry) in table.iter_mut().enumerate() {
                    *entry = (0..8)
                        .filter(|b| v >> b & 1 == 1 && 8 * i + b < cells as usize)
                        .map(|b| per_cell(8 * i + b))
                        .sum();
                }
            }
            tables
        };
        let bucket_bytes = byte_tables(&|c| weights[usize::from(orbit[c])]);
        // At most 8 cells an orbit: a nibble holds its count.
        let orbit_nibbles = byte_tables(&|c| 1 << (4 * orbit[c]));
        let mut variant = format!("{n}x{n}");
        if center_allowed {
            variant.push_str(",center-allowed");
        }
        Ok(BritishSquare {
            n,
            cells,
            center_allowed,
            board,
            not_first_col: board & !col(0),
            not_last_col: board & !col(n - 1),
            forbidden_opening,
            sym,
            desc: GameDescriptor {
                name: NAME,
                id: ID,
                variant,
                key_bits: 2 * cells + 1,
                value_bits: 6,
                remoteness_bits: 6,
                dense: false,
            },
            simd: simd_available(),
            orbit,
            orbit_sizes,
            orbit_masks,
            bucket_bytes,
            orbit_nibbles,
        })
    }

    /// Parses a variant spec: comma-separated options among `3x3`, `4x4`,
    /// `5x5` and `center-allowed`. The empty spec is the standard game.
    pub fn from_variant(spec: &str) -> Result<Self, VariantError> {
        let bad = |reason: String| VariantError::new(NAME, spec, reason);
        let mut size = None;
        let mut center_allowed = false;
        for opt in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let lower = opt.to_ascii_lowercase();
            if lower == "center-allowed" || lower == "centre-allowed" {
                center_allowed = true;
            } else if let Some((a, b)) = lower.split_once('x') {
                let (a, b) = match (a.parse::<u32>(), b.parse::<u32>()) {
                    (Ok(a), Ok(b)) => (a, b),
                    _ => return Err(bad(format!("bad board size {opt:?}"))),
                };
                if a != b {
                    return Err(bad(format!("British Square boards are square, not {opt}")));
                }
                if size.replace(a).is_some_and(|old| old != a) {
                    return Err(bad(format!("two board sizes in {spec:?}")));
                }
            } else {
                return Err(bad(format!(
                    "unknown option {opt:?} (known: 3x3, 4x4, 5x5, center-allowed)"
                )));
            }
        }
        Self::new(size.unwrap_or(5), center_allowed).map_err(|e| bad(e.reason))
    }

    /// The side length of the board.
    pub fn side(&self) -> u32 {
        self.n
    }

    /// The number of cells.
    pub fn cells(&self) -> u32 {
        self.cells
    }

    /// Builds a state key from X's and O's bitboards and the side to move.
    pub(crate) fn key(&self, x: u64, o: u64, to_move: Player) -> u64 {
        x | o << self.cells | u64::from(to_move == Player::Second) << (2 * self.cells)
    }

    /// X's bitboard.
    #[inline]
    pub fn x(&self, s: u64) -> u64 {
        s & self.board
    }

    /// O's bitboard.
    #[inline]
    pub fn o(&self, s: u64) -> u64 {
        (s >> self.cells) & self.board
    }

    #[inline]
    pub(super) fn side_bit(&self) -> u64 {
        1 << (2 * self.cells)
    }

    #[inline]
    fn o_to_move(&self, s: u64) -> bool {
        s & self.side_bit() != 0
    }

    /// Cells orthogonally adjacent to a piece of `b`.
    #[inline]
    fn neighbours(&self, b: u64) -> u64 {
        ((b << 1) & self.not_first_col)
            | ((b >> 1) & self.not_last_col)
            | ((b << self.n) & self.board)
            | (b >> self.n)
    }

    /// The cells where `player` may place a piece, given the two bitboards.
    #[inline]
    pub(crate) fn legal_cells(&self, x: u64, o: u64, player: Player) -> u64 {
        let empty = self.board & !(x | o);
        match player {
            Player::First => {
                let forbidden = if x | o == 0 {
                    self.forbidden_opening
                } else {
                    0
                };
                empty & !self.neighbours(o) & !forbidden
            }
            Player::Second => empty & !self.neighbours(x),
        }
    }

    fn cell_name(&self, cell: u32) -> String {
        let col = (b'a' + (cell % self.n) as u8) as char;
        format!("{}{}", col, cell / self.n + 1)
    }

    fn parse_cell(&self, text: &str) -> Option<u32> {
        if let Some(c) = number(text) {
            return (c < self.cells).then_some(c);
        }
        let b = text.as_bytes();
        if b.len() == 2 {
            let col = b[0].to_ascii_lowercase().checked_sub(b'a')? as u32;
            let row = b[1].checked_sub(b'1')? as u32;
            if col < self.n && row < self.n {
                return Some(row * self.n + col);
            }
        }
        None
    }

    fn parse_move_list(&self, input: &str) -> Result<u64, PositionError> {
        let mut s = self.start();
        let mut scratch = Vec::new();
        for (i, tok) in input
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|t| !t.is_empty())
            .enumerate()
        {
            let is_pass = tok.eq_ignore_ascii_case("pass") || tok.eq_ignore_ascii_case("p");
            if !is_pass {
                // Forced passes may be left out of a move list.
                scratch.clear();
                self.moves(s, &mut scratch);
                if let [e] = scratch[..] {
                    if e.mv == Move::PASS {
                        s = e.child;
                    }
                }
            }
            let mv = self.parse_move(s, tok).map_err(|e| {
                let reason = match e {
                    PositionError::Malformed { reason, .. }
                    | PositionError::Illegal { reason, .. } => reason,
                };
                if is_pass || self.parse_cell(tok).is_some() {
                    PositionError::illegal(input, format!("move {} ({tok}): {reason}", i + 1))
                } else {
                    // The reason names the token already.
                    PositionError::malformed(input, format!("move {}: {reason}", i + 1))
                }
            })?;
            s = self.play(s, mv);
        }
        Ok(s)
    }

    /// The state after a legal move.
    fn play(&self, s: u64, mv: Move) -> u64 {
        if mv == Move::PASS {
            return s ^ self.side_bit();
        }
        let offset = if self.o_to_move(s) { self.cells } else { 0 };
        (s | 1 << (u32::from(mv.0) + offset)) ^ self.side_bit()
    }

    /// The pieces (X's, O's) of a board that [`BritishSquare::scan_cells`]
    /// did not read, character by character; or what is wrong with it.
    fn read_cells(&self, input: &str, board_text: &str) -> Result<(u64, u64), PositionError> {
        let n = self.n as usize;
        // The cells in order, rows joined.
        let cells = board_text.chars().filter(|&c| c != '/');
        let (mut rows, mut row_len, mut rows_ok, mut count) = (1, 0, true, 0);
        for c in board_text.chars() {
            if c == '/' {
                rows_ok &= row_len == n;
                rows += 1;
                row_len = 0;
            } else {
                row_len += 1;
                count += 1;
            }
        }
        if rows > 1 && !(rows_ok && row_len == n && rows == n) {
            return Err(PositionError::malformed(
                input,
                format!("expected {n} rows of {n} cells separated by '/'"),
            ));
        }
        if count != self.cells as usize {
            return Err(PositionError::malformed(
                input,
                format!(
                    "expected {} cells of '.', 'X' or 'O', found {count}",
                    self.cells,
                ),
            ));
        }
        // Without branches on the cells, which are as unpredictable as the
        // positions; the first bad character is then found for the message.
        let (mut x, mut o) = (0u64, 0u64);
        let mut valid = board_text.is_ascii();
        if valid {
            // `count` is the number of cells, at most 64: every shift is in
            // range. A '/' is neither piece (0x2f & !0x20 is 0x0f) and
            // moves on no cell.
            let mut i = 0;
            for &b in board_text.as_bytes() {
                let upper = b & !0x20;
                x |= u64::from(upper == b'X') << i;
                o |= u64::from(upper == b'O') << i;
                // `|`, not `||`: no branch on what the cell holds.
                valid &= (upper == b'X') | (upper == b'O') | (b == b'.') | (b == b'/');
                i += u32::from(b != b'/');
            }
        }
        if !valid {
            if let Some((i, ch)) = cells
                .enumerate()
                .find(|&(_, ch)| !matches!(ch, '.' | 'X' | 'x' | 'O' | 'o'))
            {
                return Err(PositionError::malformed(
                    input,
                    format!(
                        "unexpected character {ch:?} at {}: expected '.', 'X' or 'O'",
                        self.cell_name(i as u32)
                    ),
                ));
            }
        }
        Ok((x, o))
    }

    /// The pieces (X's, O's) of a well-formed board (`n` rows of `n`
    /// cells, '/' between the rows or not), eight characters at a time:
    /// batch mode and Python parse millions of boards a second. `None` for
    /// anything else, which [`BritishSquare::read_cells`] reads and
    /// explains.
    fn scan_cells(&self, board: &[u8]) -> Option<(u64, u64)> {
        let n = self.n as usize;
        let slashed = board.len() == n * n + n - 1 && n > 1;
        if board.len() != n * n && !slashed {
            return None;
        }
        let mut bytes = [0u8; 64];
        bytes.get_mut(..board.len())?.copy_from_slice(board);
        let (mut x, mut o, mut dot, mut slash) = (0u64, 0u64, 0u64, 0u64);
        for (k, word) in bytes
            .chunks_exact(8)
            .take(board.len().div_ceil(8))
            .enumerate()
        {
            let w = u64::from_le_bytes(word.try_into().ok()?);
            let upper = w & !(0x20 * ONES);
            x |= bytes_equal(upper, b'X') << (8 * k);
            o |= bytes_equal(upper, b'O') << (8 * k);
            dot |= bytes_equal(w, b'.') << (8 * k);
            slash |= bytes_equal(w, b'/') << (8 * k);
        }
        // Every character one of these (the padding is none of them).
        if x | o | dot | slash != u64::MAX >> (64 - board.len()) {
            return None;
        }
        if !slashed {
            return (slash == 0).then_some((x, o));
        }
        // A '/' after each row but the last, and the rows joined.
        let row = (1u64 << n) - 1;
        let (mut want, mut cx, mut co) = (0u64, 0u64, 0u64);
        for r in 0..n {
            let at = r * (n + 1);
            if r + 1 < n {
                want |= 1 << (at + n);
            }
            cx |= (x >> at & row) << (r * n);
            co |= (o >> at & row) << (r * n);
        }
        (slash == want).then_some((cx, co))
    }

    fn parse_board(&self, input: &str) -> Result<u64, PositionError> {
        let [board_text, side_text, extra] = first_words(input);
        let board_text = board_text.unwrap_or("");
        if extra.is_some() {
            return Err(PositionError::malformed(
                input,
                "expected a board and at most a side to move",
            ));
        }
        let (x, o) = match self.scan_cells(board_text.as_bytes()) {
            Some(pieces) => pieces,
            None => self.read_cells(input, board_text)?,
        };
        let touching = x & self.neighbours(o);
        if touching != 0 {
            let cx = touching.trailing_zeros();
            let co = (self.neighbours(1 << cx) & o).trailing_zeros();
            return Err(PositionError::illegal(
                input,
                format!("X on cell {cx} is orthogonally adjacent to O on cell {co}"),
            ));
        }
        if o == 0 && x == self.forbidden_opening && x != 0 {
            return Err(PositionError::illegal(
                input,
                "X may not open in the centre",
            ));
        }
        let to_move = match side_text {
            Some(t) if t.eq_ignore_ascii_case("x") => Player::First,
            Some(t) if t.eq_ignore_ascii_case("o") => Player::Second,
            Some(t) => {
                return Err(PositionError::malformed(
                    input,
                    format!("side to move must be X or O, not {t:?}"),
                ))
            }
            None => self.derive_side(input, x, o)?,
        };
        Ok(self.key(x, o, to_move))
    }

    fn derive_side(&self, input: &str, x: u64, o: u64) -> Result<Player, PositionError> {
        let x_can = self.legal_cells(x, o, Player::First) != 0;
        let o_can = self.legal_cells(x, o, Player::Second) != 0;
        match (x_can, o_can) {
            (true, false) => return Ok(Player::First),
            (false, true) => return Ok(Player::Second),
            _ => {}
        }
        let (nx, no) = (x.count_ones(), o.count_ones());
        if !x_can {
            // Neither side can move: the game is over, whoever is to move.
            return Ok(if nx <= no {
                Player::First
            } else {
                Player::Second
            });
        }
        if nx == no {
            Ok(Player::First)
        } else if nx == no + 1 {
            Ok(Player::Second)
        } else {
            Err(PositionError::illegal(
                input,
                format!(
                    "cannot tell whose turn it is with {nx} X and {no} O; append \" X\" or \" O\""
                ),
            ))
        }
    }
}

impl Game for BritishSquare {
    /// The exact count of each variant (tests/vectors/british_square.txt
    /// for 5x5); a placement per ply and at most a pass between two.
    fn limits(&self) -> Limits {
        let exact = match (self.n, self.center_allowed) {
            (5, false) => 8_659_987,
            (5, true) => 8_659_992,
            (4, _) => 10_206,
            (_, false) => 74,
            (_, true) => 76,
        };
        Limits {
            states: exact,
            exact_states: Some(exact),
            max_net: self.cells as i32,
            max_remoteness: 2 * self.cells,
        }
    }

    fn descriptor(&self) -> &GameDescriptor {
        &self.desc
    }

    fn start(&self) -> u64 {
        0
    }

    fn layer_count(&self) -> usize {
        self.cells as usize + 1
    }

    #[inline]
    fn layer(&self, state: u64) -> usize {
        (state & (self.side_bit() - 1)).count_ones() as usize
    }

    fn to_move(&self, state: u64) -> Player {
        if self.o_to_move(state) {
            Player::Second
        } else {
            Player::First
        }
    }

    fn symmetry_count(&self) -> usize {
        8
    }

    fn transform(&self, state: u64, sym: usize) -> u64 {
        let side = state & self.side_bit();
        self.sym.apply(state & !self.side_bit(), sym) | side
    }

    fn transform_move(&self, mv: Move, sym: usize) -> Move {
        if mv == Move::PASS {
            mv
        } else {
            Move(self.sym.map_cell(u32::from(mv.0), sym) as u16)
        }
    }

    #[inline]
    fn canonical(&self, state: u64) -> u64 {
        let side = state & self.side_bit();
        let imgs = self.sym.images(state & !self.side_bit());
        imgs.iter().copied().min().unwrap_or(state) | side
    }

    fn moves(&self, s: u64, out: &mut Vec<Edge>) {
        let (x, o) = (self.x(s), self.o(s));
        let me = self.to_move(s);
        let mut legal = self.legal_cells(x, o, me);
        if legal == 0 {
            if self.legal_cells(x, o, me.opponent()) != 0 {
                out.push(Edge {
                    mv: Move::PASS,
                    child: s ^ self.side_bit(),
                    reward: 0,
                    again: false,
                });
            }
            return;
        }
        while legal != 0 {
            let cell = legal.trailing_zeros();
            legal &= legal - 1;
            out.push(Edge {
                mv: Move(cell as u16),
                child: self.play(s, Move(cell as u16)),
                reward: 1,
                again: false,
            });
        }
    }

    /// Canonicalises every child from the parent's 8 images: the image of a
    /// child under a symmetry is the parent's image plus one mapped bit
    /// ([`BritishSquare::children_in`]).
    fn canonical_children(&self, s: u64, out: &mut Vec<Edge>) {
        let (x, o) = (self.x(s), self.o(s));
        let me = self.to_move(s);
        let legal = self.legal_cells(x, o, me);
        if legal != 0 {
            self.children_in(s, legal, out);
        } else if self.legal_cells(x, o, me.opponent()) != 0 {
            out.push(self.pass_edge(s));
        }
    }

    fn is_valid_key(&self, key: u64) -> bool {
        if key >> (2 * self.cells + 1) != 0 {
            return false;
        }
        let (x, o) = (self.x(key), self.o(key));
        x & o == 0 && x & self.neighbours(o) == 0
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
            return self.parse_move_list(rest);
        }
        // A board starts with a cell ('.', 'X' or 'O'), and its first word
        // holds only cells and '/'; a move list starts with a move (a
        // coordinate, a cell number or pass), whose errors then name the
        // word that is no move.
        if matches!(t.as_bytes()[0], b'.' | b'X' | b'x' | b'O' | b'o') {
            return self.parse_board(t);
        }
        let first = t
            .split(|c: char| c == ',' || c.is_whitespace())
            .next()
            .unwrap_or("");
        if first.contains('/') {
            return self.parse_board(t);
        }
        self.parse_move_list(t)
    }

    fn format_position(&self, s: u64) -> String {
        let (x, o) = (self.x(s), self.o(s));
        let mut out = String::with_capacity(self.cells as usize + self.n as usize + 2);
        for cell in 0..self.cells {
            if cell > 0 && cell % self.n == 0 {
                out.push('/');
            }
            out.push(if x >> cell & 1 != 0 {
                'X'
            } else if o >> cell & 1 != 0 {
                'O'
            } else {
                '.'
            });
        }
        out.push(' ');
        out.push_str(self.player_name(self.to_move(s)));
        out
    }

    /// A placement is named by its coordinate (`c3`), the notation of the
    /// board's labels and of move lists; [`Game::parse_move`] also takes the
    /// cell number.
    fn format_move(&self, mv: Move) -> String {
        let mut out = String::with_capacity(4);
        self.write_move(mv, &mut out);
        out
    }

    fn write_move(&self, mv: Move, out: &mut String) {
        if mv == Move::PASS {
            out.push_str("pass");
        } else {
            let cell = u32::from(mv.0);
            out.push(char::from(b'a' + (cell % self.n) as u8));
            // One letter and one digit: a board is at most 5 wide.
            out.push(char::from(b'1' + (cell / self.n % 10) as u8));
        }
    }

    fn parse_move(&self, s: u64, text: &str) -> Result<Move, PositionError> {
        let t = text.trim();
        let (x, o) = (self.x(s), self.o(s));
        let me = self.to_move(s);
        let legal = self.legal_cells(x, o, me);
        if t.eq_ignore_ascii_case("pass") || t.eq_ignore_ascii_case("p") {
            if legal != 0 {
                return Err(PositionError::illegal(
                    text,
                    "pass is only allowed when no placement is legal",
                ));
            }
            if self.legal_cells(x, o, me.opponent()) == 0 {
                return Err(PositionError::illegal(text, "the game is over"));
            }
            return Ok(Move::PASS);
        }
        let cell = self.parse_cell(t).ok_or_else(|| {
            PositionError::malformed(
                text,
                format!(
                    "{t:?} is not a move: expected a coordinate a1 to {}, a cell number 0 to {} \
                     or pass",
                    self.cell_name(self.cells - 1),
                    self.cells - 1
                ),
            )
        })?;
        if legal >> cell & 1 == 0 {
            let reason = if (x | o) >> cell & 1 != 0 {
                format!("{} is occupied", self.cell_name(cell))
            } else if legal == 0 {
                format!(
                    "{} has no legal placement and must pass",
                    self.player_name(me)
                )
            } else if cell == self.cells / 2 && x | o == 0 && self.forbidden_opening != 0 {
                "X may not open in the centre".to_owned()
            } else {
                format!(
                    "{} is next to a piece of {}",
                    self.cell_name(cell),
                    self.player_name(me.opponent())
                )
            };
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
            Player::Second => "rings",
        }
    }

    fn score(&self, s: u64, net: i32) -> i32 {
        let diff = self.x(s).count_ones() as i32 - self.o(s).count_ones() as i32;
        diff * self.to_move(s).sign() + net
    }

    fn lead(&self, s: u64) -> Option<i32> {
        Some(self.x(s).count_ones() as i32 - self.o(s).count_ones() as i32)
    }
}

/// A byte of value 1 in each of a word's eight bytes.
const ONES: u64 = 0x0101_0101_0101_0101;

/// Bit `i` set where byte `i` of `w` (little-endian) is `c`.
#[inline]
fn bytes_equal(w: u64, c: u8) -> u64 {
    const LOW7: u64 = 0x7f * ONES;
    let t = w ^ (u64::from(c) * ONES);
    // The top bit of each byte that is not zero (exact: no borrows).
    let nonzero = ((t & LOW7) + LOW7) | t;
    let zero = !nonzero & (0x80 * ONES);
    // The eight top bits gathered into the low byte.
    (zero >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// The first three words of `text`, as `split_whitespace` gives them;
/// ASCII text (nearly every position) without decoding it: its whitespace
/// is '\t' to '\r' and ' '.
fn first_words(text: &str) -> [Option<&str>; 3] {
    let mut words = [None; 3];
    if text.is_ascii() {
        let ascii = text
            .as_bytes()
            .split(|b| matches!(b, b'\t'..=b'\r' | b' '))
            .filter(|w| !w.is_empty());
        for (slot, w) in words.iter_mut().zip(ascii) {
            *slot = std::str::from_utf8(w).ok();
        }
    } else {
        for (slot, w) in words.iter_mut().zip(text.split_whitespace()) {
            *slot = Some(w);
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opening_moves_exclude_the_centre_unless_allowed() {
        let g = BritishSquare::new(5, false).unwrap();
        let mut v = Vec::new();
        g.moves(g.start(), &mut v);
        assert_eq!(v.len(), 24);
        assert!(v.iter().all(|e| e.mv != Move(12)));
        let g = BritishSquare::new(5, true).unwrap();
        v.clear();
        g.moves(g.start(), &mut v);
        assert_eq!(v.len(), 25);
    }

    #[test]
    fn o_cannot_play_next_to_x() {
        let g = BritishSquare::new(5, false).unwrap();
        let s = g.play(g.start(), Move(0));
        let mut v = Vec::new();
        g.moves(s, &mut v);
        let cells: Vec<u16> = v.iter().map(|e| e.mv.0).collect();
        assert_eq!(cells.len(), 22);
        assert!(!cells.contains(&0) && !cells.contains(&1) && !cells.contains(&5));
    }

    #[test]
    fn canonical_children_agree_with_the_slow_path() {
        let g = BritishSquare::new(5, false).unwrap();
        let mut s = g.start();
        for mv in [3u16, 7, 20, 11, 24] {
            let (mut fast, mut slow) = (Vec::new(), Vec::new());
            g.canonical_children(s, &mut fast);
            g.moves(s, &mut slow);
            for e in &mut slow {
                e.child = g.canonical(e.child);
            }
            assert_eq!(fast, slow);
            s = g.play(s, Move(mv));
        }
    }

    #[test]
    fn positions_round_trip_and_errors_are_explained() {
        let g = BritishSquare::new(5, false).unwrap();
        let s = g.parse_position("0 24 4").unwrap();
        assert_eq!(g.format_position(s), "X...X/...../...../...../....O O");
        assert_eq!(g.parse_position(&g.format_position(s)).unwrap(), s);
        assert_eq!(
            g.parse_position("X...X/...../...../...../....O").unwrap(),
            s
        );
        assert_eq!(
            g.parse_position("a1 e5 e1").unwrap(),
            g.parse_position("moves: 0,24,4").unwrap()
        );
        assert!(matches!(
            g.parse_position("12"),
            Err(PositionError::Illegal { .. })
        ));
        assert!(matches!(
            g.parse_position("XO.......................").unwrap_err(),
            PositionError::Illegal { .. }
        ));
        assert!(matches!(
            g.parse_position("X.......").unwrap_err(),
            PositionError::Malformed { .. }
        ));
        assert!(matches!(
            g.parse_position("0 zz").unwrap_err(),
            PositionError::Malformed { .. }
        ));
    }

    #[test]
    fn moves_are_named_by_coordinates_that_read_back() {
        for n in BritishSquare::MIN_SIDE..=BritishSquare::MAX_SIDE {
            let g = BritishSquare::new(n, true).unwrap();
            for cell in 0..n * n {
                let name = g.format_move(Move(cell as u16));
                assert_eq!(name, g.cell_name(cell));
                assert_eq!(g.parse_cell(&name), Some(cell), "{name}");
                assert_eq!(g.parse_cell(&cell.to_string()), Some(cell));
            }
        }
        let g = BritishSquare::new(5, false).unwrap();
        assert_eq!(g.format_move(Move(0)), "a1");
        assert_eq!(g.format_move(Move(12)), "c3");
        assert_eq!(g.format_move(Move(24)), "e5");
        assert_eq!(g.format_move(Move::PASS), "pass");
    }

    #[test]
    fn variants_parse() {
        assert_eq!(
            BritishSquare::from_variant("")
                .unwrap()
                .descriptor()
                .variant,
            "5x5"
        );
        assert_eq!(
            BritishSquare::from_variant("4x4, center-allowed")
                .unwrap()
                .descriptor()
                .variant,
            "4x4,center-allowed"
        );
        assert!(BritishSquare::from_variant("6x6").is_err());
        assert!(BritishSquare::from_variant("4x5").is_err());
        assert!(BritishSquare::from_variant("huge").is_err());
    }

    #[test]
    fn first_words_split_as_split_whitespace_does() {
        for text in [
            "",
            "   ",
            "XX.OO/XX.OO/XX.OO/XXX.O/XX.OO O",
            " a\tb\x0bc\x0cd\re\nf ",
            "one two three four",
            "x\u{3000}o",
            "\u{85}board side",
            "é é é",
        ] {
            let mut want = [None; 3];
            for (slot, w) in want.iter_mut().zip(text.split_whitespace()) {
                *slot = Some(w);
            }
            assert_eq!(first_words(text), want, "{text:?}");
        }
    }

    #[test]
    fn boards_scanned_eight_characters_at_a_time_read_as_one_at_a_time() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for variant in ["3x3", "4x4", "5x5"] {
            let g = BritishSquare::from_variant(variant).unwrap();
            let n = g.n as usize;
            let mut scanned = 0;
            for round in 0..20_000 {
                // Mostly well-formed boards (in both layouts, any case),
                // some with a character or a length wrong.
                let alphabet: &[char] = if round % 4 == 0 {
                    &['X', 'x', 'O', 'o', '.', '/', 'a', ' ', 'é', '\0']
                } else {
                    &['X', 'x', 'O', 'o', '.', '.', '.']
                };
                let mut text = String::new();
                for r in 0..n {
                    if r > 0 && round % 2 == 0 {
                        text.push('/');
                    }
                    for _ in 0..n {
                        text.push(alphabet[next() as usize % alphabet.len()]);
                    }
                }
                if round % 7 == 0 {
                    text.push('.');
                }
                let fast = g.scan_cells(text.as_bytes());
                let slow = g.read_cells(&text, &text).ok();
                if let Some(pieces) = fast {
                    scanned += 1;
                    assert_eq!(Some(pieces), slow, "{text:?}");
                } else if round % 4 != 0 && round % 7 != 0 {
                    panic!("{text:?} is well-formed: scanned at once");
                }
            }
            assert!(scanned > 10_000, "{variant}: {scanned}");
        }
    }
}
