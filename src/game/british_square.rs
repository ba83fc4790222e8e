//! British Square on an `n x n` board (5x5 by default; 3x3 and 4x4 variants).
//!
//! # State key (a public contract, see `format-spec.md`)
//! With `C = n * n` cells numbered row-major from the top-left:
//! * bits `0 .. C`: X's pieces (bit `i` set when X has a piece on cell `i`);
//! * bits `C .. 2C`: O's pieces;
//! * bit `2C`: the side to move, `0` for X and `1` for O.
//!
//! A state where the side to move has no legal move while the opponent has
//! one is a forced-pass state; its only move is [`Move::PASS`].

use super::square::SquareSymmetry;
use super::{
    style_padded, BucketScheme, Bucketed, ClassSink, Edge, Game, GameDescriptor, Move, MoveMark,
    Player, PositionError,
};

/// Registry name of British Square.
pub const NAME: &str = "british-square";
/// Numeric id of British Square in database headers.
pub const ID: u32 = 1;

/// Why a British Square variant spec was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct VariantError(pub String);

/// British Square with a given board size and opening rule.
#[derive(Clone, Debug)]
pub struct BritishSquare {
    n: u32,
    cells: u32,
    center_allowed: bool,
    board: u64,
    not_first_col: u64,
    not_last_col: u64,
    forbidden_opening: u64,
    sym: SquareSymmetry,
    desc: GameDescriptor,
    /// The vector instructions [`Game::canonical_children`] may use
    /// (checked once).
    simd: Simd,
    /// Per cell: its orbit under the 8 symmetries (the class of a move
    /// there, see [`Bucketed`]).
    orbit: Vec<u8>,
    /// The number of cells of each orbit.
    orbit_sizes: Vec<u32>,
    /// The cells of each orbit.
    orbit_masks: Vec<u64>,
    /// Per byte `i` of the occupied cells and its value: what those pieces
    /// add to the bucket number (bucket numbers add up over cells).
    bucket_bytes: Box<[[u32; 256]; 4]>,
    /// Per byte `i` of a set of cells and its value: the number of those
    /// cells in each orbit, 4 bits per orbit.
    orbit_nibbles: Box<[[u32; 256]; 4]>,
}

impl BritishSquare {
    /// The smallest supported board side.
    pub const MIN_SIDE: u32 = 3;
    /// The largest supported board side (two 25-cell planes and the side bit
    /// leave 13 bits of a record for the value).
    pub const MAX_SIDE: u32 = 5;

    /// British Square on an `n x n` board. `center_allowed` lifts the rule that
    /// X may not open in the centre (which only exists on odd boards).
    pub fn new(n: u32, center_allowed: bool) -> Result<Self, VariantError> {
        if !(Self::MIN_SIDE..=Self::MAX_SIDE).contains(&n) {
            return Err(VariantError(format!(
                "board size {n}x{n} is not supported (use 3x3, 4x4 or 5x5)"
            )));
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
        let scheme = BucketScheme::piece_counts(&orbit_sizes);
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
        let bucket_bytes = byte_tables(&|c| scheme.weight(usize::from(orbit[c])));
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
        let mut size = None;
        let mut center_allowed = false;
        for opt in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let lower = opt.to_ascii_lowercase();
            if lower == "center-allowed" || lower == "centre-allowed" {
                center_allowed = true;
            } else if let Some((a, b)) = lower.split_once('x') {
                let (a, b) = match (a.parse::<u32>(), b.parse::<u32>()) {
                    (Ok(a), Ok(b)) => (a, b),
                    _ => return Err(VariantError(format!("bad board size {opt:?}"))),
                };
                if a != b {
                    return Err(VariantError(format!(
                        "British Square boards are square, not {opt}"
                    )));
                }
                if size.replace(a).is_some_and(|old| old != a) {
                    return Err(VariantError(format!("two board sizes in {spec:?}")));
                }
            } else {
                return Err(VariantError(format!(
                    "unknown option {opt:?} (known: 3x3, 4x4, 5x5, center-allowed)"
                )));
            }
        }
        Self::new(size.unwrap_or(5), center_allowed)
    }

    /// The side length of the board.
    pub fn side(&self) -> u32 {
        self.n
    }

    /// The number of cells.
    pub fn cells(&self) -> u32 {
        self.cells
    }

    /// True when X may open in the centre.
    pub fn center_allowed(&self) -> bool {
        self.center_allowed
    }

    /// Builds a state key from X's and O's bitboards and the side to move.
    pub fn key(&self, x: u64, o: u64, to_move: Player) -> u64 {
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
    fn side_bit(&self) -> u64 {
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
    pub fn legal_cells(&self, x: u64, o: u64, player: Player) -> u64 {
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
        if let Ok(c) = text.parse::<u32>() {
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
                    PositionError::malformed(input, format!("move {} ({tok}): {reason}", i + 1))
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

    fn parse_board(&self, input: &str) -> Result<u64, PositionError> {
        let mut tokens = input.split_whitespace();
        let board_text = tokens.next().unwrap_or("");
        let side_text = tokens.next();
        if tokens.next().is_some() {
            return Err(PositionError::malformed(
                input,
                "expected a board and at most a side to move",
            ));
        }
        let n = self.n as usize;
        let cells: String = if board_text.contains('/') {
            let rows: Vec<&str> = board_text.split('/').collect();
            if rows.len() != n || rows.iter().any(|r| r.chars().count() != n) {
                return Err(PositionError::malformed(
                    input,
                    format!("expected {n} rows of {n} cells separated by '/'"),
                ));
            }
            rows.concat()
        } else {
            board_text.to_owned()
        };
        if cells.chars().count() != self.cells as usize {
            return Err(PositionError::malformed(
                input,
                format!(
                    "expected {} cells of '.', 'X' or 'O', found {}",
                    self.cells,
                    cells.chars().count()
                ),
            ));
        }
        let (mut x, mut o) = (0u64, 0u64);
        for (i, ch) in cells.chars().enumerate() {
            match ch {
                '.' => {}
                'X' | 'x' => x |= 1 << i,
                'O' | 'o' => o |= 1 << i,
                _ => {
                    return Err(PositionError::malformed(
                        input,
                        format!("unexpected character {ch:?} at cell {i}"),
                    ))
                }
            }
        }
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

/// Which vector code canonicalises children: the best this processor runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Simd {
    /// Portable code.
    None,
    /// [`BritishSquare::canonical_children_avx2`].
    Avx2,
    /// [`BritishSquare::canonical_children_avx512`].
    Avx512,
}

/// The best [`Simd`] level this processor runs.
fn simd_available() -> Simd {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        let base = has!("popcnt") && has!("bmi1");
        if base && has!("avx512f") {
            return Simd::Avx512;
        }
        if base && has!("avx2") {
            return Simd::Avx2;
        }
    }
    Simd::None
}

impl BritishSquare {
    /// [`BritishSquare::children_in`] with AVX2: the 8 images of the parent
    /// in two vectors, each child's 8 candidates two ORs away and their
    /// minimum a few vector steps; no branch per child. Gives exactly what
    /// the portable code gives.
    ///
    /// # Safety
    /// The processor must have AVX2, POPCNT and BMI1 (`self.simd`).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,popcnt,bmi1")]
    unsafe fn children_in_avx2<R: Emit>(&self, s: u64, cells: u64, sink: &mut R) {
        use super::square::{TWO_PLANES_3, TWO_PLANES_4, TWO_PLANES_5};
        // The board sizes get their swaps as constants.
        match self.n {
            5 => self.children_avx2(&TWO_PLANES_5, s, cells, sink),
            4 => self.children_avx2(&TWO_PLANES_4, s, cells, sink),
            _ => self.children_avx2(&TWO_PLANES_3, s, cells, sink),
        }
    }

    /// See [`BritishSquare::children_in_avx2`]. Lanes 0..4 of `lo`
    /// hold images 0..4 (mirror in bit 0 of the lane, flip in bit 1), `hi`
    /// their transposes, images 4..8. Keys have at most 51 bits, so signed
    /// comparisons order them.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,popcnt,bmi1")]
    #[inline]
    unsafe fn children_avx2<const H: usize, const T: usize, R: Emit>(
        &self,
        swaps: &super::square::SquareSwaps<H, T>,
        s: u64,
        cells: u64,
        sink: &mut R,
    ) {
        use std::arch::x86_64::*;
        // A delta swap in every lane: t = ((x >> s) ^ x) & mask;
        // x ^= t ^ (t << s).
        macro_rules! swap {
            ($v:expr, $mask:expr, $shift:expr) => {{
                let count = _mm_cvtsi32_si128($shift as i32);
                let t = _mm256_and_si256(_mm256_xor_si256(_mm256_srl_epi64($v, count), $v), $mask);
                _mm256_xor_si256($v, _mm256_xor_si256(t, _mm256_sll_epi64(t, count)))
            }};
        }
        macro_rules! min {
            ($a:expr, $b:expr) => {{
                let (a, b) = ($a, $b);
                _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b))
            }};
        }
        // The smallest of the 8 lanes of `lo` and `hi`.
        macro_rules! min_all {
            ($lo:expr, $hi:expr) => {{
                let m = min!($lo, $hi);
                let m = min!(m, _mm256_permute4x64_epi64::<0b0100_1110>(m));
                let m = min!(m, _mm256_shuffle_epi32::<0b0100_1110>(m));
                _mm_cvtsi128_si64(_mm256_castsi256_si128(m)) as u64
            }};
        }
        let me = self.to_move(s);
        let side = s & self.side_bit();
        let boards = s & !self.side_bit();
        let mut lo = _mm256_set1_epi64x(boards as i64);
        for &(m, shift) in &swaps.mirror {
            lo = swap!(lo, _mm256_setr_epi64x(0, m as i64, 0, m as i64), shift);
        }
        for &(m, shift) in &swaps.flip {
            lo = swap!(lo, _mm256_setr_epi64x(0, 0, m as i64, m as i64), shift);
        }
        let mut hi = lo;
        for &(m, shift) in &swaps.transpose {
            hi = swap!(hi, _mm256_set1_epi64x(m as i64), shift);
        }
        let offset = if me == Player::Second { self.cells } else { 0 };
        let child_side = side ^ self.side_bit();
        let mut legal = cells;
        while legal != 0 {
            let cell = legal.trailing_zeros();
            legal &= legal - 1;
            let bits = self.sym.bit_images(cell + offset);
            let b_lo = _mm256_loadu_si256(bits.as_ptr().cast());
            let b_hi = _mm256_loadu_si256(bits[4..].as_ptr().cast());
            let child = min_all!(_mm256_or_si256(lo, b_lo), _mm256_or_si256(hi, b_hi));
            sink.emit(cell, child | child_side);
        }
    }
}

impl BritishSquare {
    /// [`BritishSquare::children_in`] with AVX-512: the 8 images of the
    /// parent in one vector, each child's candidates one OR away and their
    /// minimum one reduction. Gives exactly what the portable code gives.
    ///
    /// # Safety
    /// The processor must have AVX-512F, POPCNT and BMI1
    /// (`self.simd == Simd::Avx512`).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx2,popcnt,bmi1")]
    unsafe fn children_in_avx512<R: Emit>(&self, s: u64, cells: u64, sink: &mut R) {
        use super::square::{TWO_PLANES_3, TWO_PLANES_4, TWO_PLANES_5};
        match self.n {
            5 => self.children_avx512(&TWO_PLANES_5, s, cells, sink),
            4 => self.children_avx512(&TWO_PLANES_4, s, cells, sink),
            _ => self.children_avx512(&TWO_PLANES_3, s, cells, sink),
        }
    }

    /// See [`BritishSquare::children_in_avx512`]. Lane `i` holds
    /// image `i`: mirrored if bit 0 of `i` is set, flipped if bit 1,
    /// then transposed if bit 2, as [`SquareSymmetry`] numbers them.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx2,popcnt,bmi1")]
    #[inline]
    unsafe fn children_avx512<const H: usize, const T: usize, R: Emit>(
        &self,
        swaps: &super::square::SquareSwaps<H, T>,
        s: u64,
        cells: u64,
        sink: &mut R,
    ) {
        use std::arch::x86_64::*;
        // A delta swap in the lanes of `$mask`: t = ((x >> s) ^ x) & mask;
        // x ^= t ^ (t << s), two three-input logic steps.
        macro_rules! swap {
            ($v:expr, $mask:expr, $shift:expr) => {{
                let count = _mm_cvtsi32_si128($shift as i32);
                let v = $v;
                // 0x28: (a ^ b) & c.
                let t = _mm512_ternarylogic_epi64::<0x28>(_mm512_srl_epi64(v, count), v, $mask);
                // 0x96: a ^ b ^ c.
                _mm512_ternarylogic_epi64::<0x96>(v, t, _mm512_sll_epi64(t, count))
            }};
        }
        let me = self.to_move(s);
        let side = s & self.side_bit();
        let boards = s & !self.side_bit();
        let mut v = _mm512_set1_epi64(boards as i64);
        for &(m, shift) in &swaps.mirror {
            let m = m as i64;
            v = swap!(v, _mm512_setr_epi64(0, m, 0, m, 0, m, 0, m), shift);
        }
        for &(m, shift) in &swaps.flip {
            let m = m as i64;
            v = swap!(v, _mm512_setr_epi64(0, 0, m, m, 0, 0, m, m), shift);
        }
        for &(m, shift) in &swaps.transpose {
            let m = m as i64;
            v = swap!(v, _mm512_setr_epi64(0, 0, 0, 0, m, m, m, m), shift);
        }
        let offset = if me == Player::Second { self.cells } else { 0 };
        let child_side = side ^ self.side_bit();
        let mut legal = cells;
        while legal != 0 {
            let cell = legal.trailing_zeros();
            legal &= legal - 1;
            let bits = self.sym.bit_images(cell + offset);
            let b = _mm512_loadu_si512(bits.as_ptr().cast());
            sink.emit(
                cell,
                _mm512_reduce_min_epu64(_mm512_or_si512(v, b)) | child_side,
            );
        }
    }
}

impl BritishSquare {
    /// Appends the canonical children of placing a piece of the side to
    /// move on each cell of `cells`, in increasing cell order; `cells` must
    /// be legal cells of `s`.
    #[inline]
    pub fn children_in(&self, s: u64, cells: u64, out: &mut Vec<Edge>) {
        out.reserve(cells.count_ones() as usize);
        self.children_of(s, cells, out);
    }

    /// The canonical children of placing a piece of the side to move on
    /// each cell of `cells` (legal cells of `s`), in increasing cell
    /// order, given to `sink`.
    #[inline]
    fn children_of<R: Emit>(&self, s: u64, cells: u64, sink: &mut R) {
        #[cfg(target_arch = "x86_64")]
        match self.simd {
            // SAFETY: `simd` names only code whose features the processor
            // has.
            Simd::Avx512 => return unsafe { self.children_in_avx512(s, cells, sink) },
            // SAFETY: as above.
            Simd::Avx2 => return unsafe { self.children_in_avx2(s, cells, sink) },
            Simd::None => {}
        }
        self.children_in_portable(s, cells, sink);
    }

    /// The forced pass of `s` (whose side to move has no legal cell), its
    /// child canonical.
    fn pass_edge(&self, s: u64) -> Edge {
        Edge {
            mv: Move::PASS,
            child: self.canonical(s ^ self.side_bit()),
            reward: 0,
            again: false,
        }
    }

    /// [`BritishSquare::children_in`] without vector instructions.
    ///
    /// Most children need no minimum over the 8 candidates: if the parent's
    /// smallest image differs from every other image at some bit above the
    /// new piece's bit in that image, adding the piece keeps it smallest.
    fn children_in_portable<R: Emit>(&self, s: u64, cells: u64, sink: &mut R) {
        let me = self.to_move(s);
        let side = s & self.side_bit();
        let boards = s & !self.side_bit();
        let imgs = self.sym.images(boards);
        let (mut min, mut arg) = (imgs[0], 0);
        for (i, &img) in imgs.iter().enumerate().skip(1) {
            if img < min {
                (min, arg) = (img, i);
            }
        }
        // `limit`: the lowest top bit at which another image exceeds the
        // smallest one (0 when two images are equal: no shortcut then).
        let mut limit = 64;
        for (i, &img) in imgs.iter().enumerate() {
            if i != arg {
                limit = limit.min(64 - (img ^ min).leading_zeros());
            }
        }
        // A new piece whose image bit is below `fast` keeps `min` smallest.
        let fast = if limit >= 2 { 1u64 << (limit - 1) } else { 0 };
        let offset = if me == Player::Second { self.cells } else { 0 };
        let child_side = side ^ self.side_bit();
        let mut legal = cells;
        while legal != 0 {
            let cell = legal.trailing_zeros();
            legal &= legal - 1;
            let bits = self.sym.bit_images(cell + offset);
            let child = if bits[arg] < fast {
                min | bits[arg]
            } else {
                let mut best = u64::MAX;
                for (img, bit) in imgs.iter().zip(bits) {
                    best = best.min(img | bit);
                }
                best
            };
            sink.emit(cell, child | child_side);
        }
    }
}

impl BritishSquare {
    /// The number of cells of `cells` in each orbit, 4 bits per orbit.
    #[inline]
    fn orbit_counts(&self, cells: u64) -> u64 {
        let t = &self.orbit_nibbles;
        u64::from(
            t[0][(cells & 0xFF) as usize]
                + t[1][(cells >> 8 & 0xFF) as usize]
                + t[2][(cells >> 16 & 0xFF) as usize]
                + t[3][(cells >> 24 & 0xFF) as usize],
        )
    }
}

/// Buckets by the number of pieces (of either colour) in each orbit of
/// cells; a placement's class is the orbit of its cell, a forced pass stays
/// in its bucket.
impl Bucketed for BritishSquare {
    fn bucket_scheme(&self) -> BucketScheme {
        BucketScheme::piece_counts(&self.orbit_sizes)
    }

    #[inline]
    fn bucket(&self, s: u64) -> u32 {
        let occupied = self.x(s) | self.o(s);
        let b = &self.bucket_bytes;
        b[0][(occupied & 0xFF) as usize]
            + b[1][(occupied >> 8 & 0xFF) as usize]
            + b[2][(occupied >> 16 & 0xFF) as usize]
            + b[3][(occupied >> 24 & 0xFF) as usize]
    }

    #[inline]
    fn move_class(&self, mv: Move) -> Option<usize> {
        self.orbit.get(usize::from(mv.0)).map(|&o| usize::from(o))
    }

    #[inline]
    fn class_counts(&self, s: u64) -> u64 {
        self.orbit_counts(self.legal_cells(self.x(s), self.o(s), self.to_move(s)))
    }

    fn same_bucket_children(&self, s: u64, out: &mut Vec<Edge>) {
        self.counts_and_same_bucket_children(s, out);
    }

    /// One computation of the mover's legal cells for both.
    #[inline]
    fn counts_and_same_bucket_children(&self, s: u64, out: &mut Vec<Edge>) -> u64 {
        let (x, o) = (self.x(s), self.o(s));
        let me = self.to_move(s);
        let legal = self.legal_cells(x, o, me);
        if legal == 0 && self.legal_cells(x, o, me.opponent()) != 0 {
            out.push(self.pass_edge(s));
        }
        self.orbit_counts(legal)
    }

    /// Every placement scores one piece and passes the turn.
    fn class_kind(&self, _class: usize) -> (i8, bool) {
        (1, false)
    }

    /// The child kernel's children, each written straight into its class's
    /// slot (cell order, no branch per class).
    #[inline]
    fn class_children(&self, s: u64, sink: &mut ClassSink<'_>) {
        let legal = self.legal_cells(self.x(s), self.o(s), self.to_move(s));
        if legal != 0 && sink.reserve(self.orbit_counts(legal)) {
            self.children_of(
                s,
                legal,
                &mut ByClass {
                    sink,
                    orbit: &self.orbit,
                    masks: &self.orbit_masks,
                    legal,
                },
            );
        }
    }
}

/// Where the child kernels put each child: `emit(cell, child)`.
trait Emit {
    fn emit(&mut self, cell: u32, child: u64);
}

impl Emit for Vec<Edge> {
    #[inline(always)]
    fn emit(&mut self, cell: u32, child: u64) {
        self.push(Edge {
            mv: Move(cell as u16),
            child,
            reward: 1,
            again: false,
        });
    }
}

/// Each child into the [`ClassSink`] slot of its cell's orbit: its place
/// is the number of legal cells of the orbit before it.
struct ByClass<'s, 'a> {
    sink: &'s mut ClassSink<'a>,
    orbit: &'s [u8],
    masks: &'s [u64],
    legal: u64,
}

impl Emit for ByClass<'_, '_> {
    #[inline(always)]
    fn emit(&mut self, cell: u32, child: u64) {
        let class = self
            .orbit
            .get(cell as usize)
            .map_or(usize::MAX, |&o| usize::from(o));
        let before = self.legal & self.masks.get(class).copied().unwrap_or(0) & ((1 << cell) - 1);
        self.sink.put(class, before.count_ones() as usize, child);
    }
}

impl Game for BritishSquare {
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
            return Err(PositionError::malformed(text, "empty position"));
        }
        if t.eq_ignore_ascii_case("start") {
            return Ok(self.start());
        }
        if let Some(rest) = t.strip_prefix("moves:") {
            return self.parse_move_list(rest);
        }
        // A move list starts with a move (cell number, coordinate or pass);
        // a board never does.
        let first = t
            .split(|c: char| c == ',' || c.is_whitespace())
            .next()
            .unwrap_or("");
        let is_pass = first.eq_ignore_ascii_case("pass") || first.eq_ignore_ascii_case("p");
        if is_pass
            || self.parse_cell(first).is_some()
            || first.starts_with(|c: char| c.is_ascii_digit())
        {
            return self.parse_move_list(t);
        }
        self.parse_board(t)
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

    fn format_move(&self, mv: Move) -> String {
        if mv == Move::PASS {
            "pass".to_owned()
        } else {
            mv.0.to_string()
        }
    }

    fn write_move(&self, mv: Move, out: &mut String) {
        if mv == Move::PASS {
            out.push_str("pass");
        } else {
            // Cells are below 100.
            if mv.0 >= 10 {
                out.push(char::from(b'0' + (mv.0 / 10 % 10) as u8));
            }
            out.push(char::from(b'0' + (mv.0 % 10) as u8));
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
                    "a move is a cell number 0..{} , a coordinate a1..{} or pass",
                    self.cells - 1,
                    self.cell_name(self.cells - 1)
                ),
            )
        })?;
        if legal >> cell & 1 == 0 {
            let reason = if (x | o) >> cell & 1 != 0 {
                format!("cell {cell} is occupied")
            } else if legal == 0 {
                format!(
                    "{} has no legal placement and must pass",
                    self.player_name(me)
                )
            } else if cell == self.cells / 2 && x | o == 0 && self.forbidden_opening != 0 {
                "X may not open in the centre".to_owned()
            } else {
                format!(
                    "cell {cell} is next to a piece of {}",
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

    fn score(&self, s: u64, net: i32) -> i32 {
        let diff = self.x(s).count_ones() as i32 - self.o(s).count_ones() as i32;
        match self.to_move(s) {
            Player::First => diff + net,
            Player::Second => diff - net,
        }
    }

    fn lead(&self, s: u64) -> Option<i32> {
        Some(self.x(s).count_ones() as i32 - self.o(s).count_ones() as i32)
    }

    fn move_code_name(&self) -> &'static str {
        "cell"
    }

    fn score_meaning(&self) -> &'static str {
        "X's final score (X's pieces minus O's) under perfect play"
    }

    fn render(&self, s: u64) -> String {
        self.grid(|cell| {
            if self.x(s) >> cell & 1 != 0 {
                " X".into()
            } else if self.o(s) >> cell & 1 != 0 {
                " O".into()
            } else {
                " .".into()
            }
        })
    }

    fn render_move_map(
        &self,
        s: u64,
        moves: &[MoveMark],
        style: &dyn Fn(&MoveMark, &str) -> String,
    ) -> Option<String> {
        let mut marks = vec![None; self.cells as usize];
        for m in moves {
            if let Some(slot) = marks.get_mut(usize::from(m.mv.0)) {
                *slot = Some(m);
            }
        }
        Some(self.grid(|cell| {
            if let Some(m) = marks[cell as usize] {
                // Padded here, so that colour codes do not count as width.
                let text = if m.score == 0 {
                    " 0".to_owned()
                } else {
                    format!("{:>2}", format!("{:+}", m.score))
                };
                style_padded(m, &text, style)
            } else if self.x(s) >> cell & 1 != 0 {
                " X".into()
            } else if self.o(s) >> cell & 1 != 0 {
                " O".into()
            } else {
                " .".into()
            }
        }))
    }

    fn render_svg(&self, s: u64, moves: &[MoveMark], title: &str) -> Option<String> {
        Some(self.svg(s, moves, title))
    }
}

impl BritishSquare {
    /// The SVG picture of [`Game::render_svg`]: the grid with coordinates,
    /// the pieces, and every legal move's cell coloured by its outcome with
    /// its value written in it.
    fn svg(&self, s: u64, moves: &[MoveMark], title: &str) -> String {
        use crate::svg::{self, Svg, LEGEND_HEIGHT, TITLE_HEIGHT};
        const CELL: i32 = 64;
        let n = self.n as i32;
        let board = n * CELL;
        let width = (board + 64).max(400);
        let top = TITLE_HEIGHT + 24;
        let height = top + board + 12 + LEGEND_HEIGHT;
        let left = (width - board) / 2;
        let mut pic = Svg::new(width, height, title);
        for i in 0..n {
            let letter = ((b'a' + i as u8) as char).to_string();
            let mid = left + i * CELL + CELL / 2;
            pic.text(mid, top - 12, 14, "middle", "normal", "#555555", &letter);
            let mid = top + i * CELL + CELL / 2;
            pic.text(
                left - 14,
                mid,
                14,
                "middle",
                "normal",
                "#555555",
                &(i + 1).to_string(),
            );
        }
        let (x, o) = (self.x(s), self.o(s));
        for cell in 0..self.cells {
            let (r, c) = ((cell / self.n) as i32, (cell % self.n) as i32);
            let (px, py) = (left + c * CELL, top + r * CELL);
            let (cx, cy) = (px + CELL / 2, py + CELL / 2);
            if let Some(m) = moves.iter().find(|m| u32::from(m.mv.0) == cell) {
                pic.begin_move(m, &cell.to_string());
                pic.rect(px, py, CELL, CELL, svg::fill(m.outcome), "#999999", "");
                if m.best {
                    pic.rect(
                        px + 3,
                        py + 3,
                        CELL - 6,
                        CELL - 6,
                        "none",
                        "#222222",
                        " stroke-width=\"4\"",
                    );
                }
                let weight = if m.best { "bold" } else { "normal" };
                pic.text(
                    cx,
                    cy,
                    20,
                    "middle",
                    weight,
                    "#222222",
                    &svg::signed(m.score),
                );
                pic.end_move();
                continue;
            }
            pic.rect(px, py, CELL, CELL, "#f7f7f7", "#999999", "");
            if x >> cell & 1 != 0 {
                let d = CELL / 4;
                pic.line(cx - d, cy - d, cx + d, cy + d, "#333333", 6, "");
                pic.line(cx - d, cy + d, cx + d, cy - d, "#333333", 6, "");
            } else if o >> cell & 1 != 0 {
                pic.circle(cx, cy, CELL / 4 + 2, "none", "#333333", 6);
            }
        }
        pic.legend(width, top + board + 12);
        pic.finish()
    }

    /// Draws the board with column letters and row numbers, each cell given by
    /// `cell` as (up to) three characters.
    fn grid(&self, cell: impl Fn(u32) -> String) -> String {
        let mut out = String::from("  ");
        for c in 0..self.n {
            out.push_str(&format!(" {:>2}", (b'a' + c as u8) as char));
        }
        for r in 0..self.n {
            out.push_str(&format!("\n{:>2}", r + 1));
            for c in 0..self.n {
                out.push_str(&format!(" {:>2}", cell(r * self.n + c)));
            }
        }
        out
    }
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
    fn the_vector_paths_and_class_runs_give_what_the_portable_path_gives() {
        for (n, center) in [(3, false), (4, true), (5, false), (5, true)] {
            let mut g = BritishSquare::new(n, center).unwrap();
            let best = g.simd;
            // Every reachable state of small boards, playouts on 5x5.
            let mut seen = std::collections::HashSet::new();
            let mut todo = vec![g.start()];
            let mut rng = 0x2545_F491_4F6C_DD1Du64;
            while let Some(s) = todo.pop() {
                if seen.len() > 200_000 || !seen.insert(s) {
                    continue;
                }
                let mut slow = Vec::new();
                g.simd = Simd::None;
                g.canonical_children(s, &mut slow);
                // The bucketed solver's children: those of each class, in
                // order.
                let classes = g.orbit_sizes.len();
                let mut want = vec![Vec::new(); classes];
                for e in &slow {
                    if let Some(c) = g.move_class(e.mv) {
                        assert_eq!((e.reward, e.again), g.class_kind(c));
                        want[c].push(e.child);
                    }
                }
                for level in [Simd::None, Simd::Avx2, Simd::Avx512] {
                    if level <= best {
                        let mut fast = Vec::new();
                        g.simd = level;
                        g.canonical_children(s, &mut fast);
                        assert_eq!(fast, slow, "n={n} {level:?} state {s:#x}");
                        let counts = g.class_counts(s);
                        let mut at = vec![0];
                        for c in 0..classes {
                            at.push(at[c] + (counts >> (4 * c) & 15) as usize);
                        }
                        let mut out = vec![0; at[classes]];
                        let mut sink = ClassSink::new(&mut out, &at);
                        sink.start_state();
                        g.class_children(s, &mut sink);
                        assert_eq!(sink.end_state(), Ok(counts), "n={n} {level:?} state {s:#x}");
                        let got: Vec<Vec<u64>> =
                            at.windows(2).map(|w| out[w[0]..w[1]].to_vec()).collect();
                        assert_eq!(got, want, "n={n} {level:?} state {s:#x}");
                    }
                }
                g.simd = best;
                let mut moves = Vec::new();
                g.moves(s, &mut moves);
                for e in moves {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    if n < 5 || rng.is_multiple_of(4) {
                        todo.push(e.child);
                    }
                }
            }
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
    fn written_moves_match_formatted_moves() {
        let g = BritishSquare::new(5, false).unwrap();
        for mv in (0..25).map(Move).chain([Move::PASS]) {
            let mut out = String::new();
            g.write_move(mv, &mut out);
            assert_eq!(out, g.format_move(mv));
        }
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
}
