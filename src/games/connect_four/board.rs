//! Board sizes, positions, and their two text forms (column sequences and
//! pictures).

use std::fmt;
use std::str::FromStr;

use super::bits::{self, Dynamic, Geometry};
use crate::core::notation::number;
use crate::core::Player;

/// The smallest width and height accepted: a four must fit both ways.
pub(crate) const MIN_SIDE: u32 = 4;

/// A board size that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoardSizeError {
    /// The text is not of the form `WxH`.
    #[error("malformed board size {input:?}: expected WIDTHxHEIGHT, e.g. 7x6")]
    Malformed {
        /// The text as given.
        input: String,
    },
    /// A side is shorter than four.
    #[error("board {width}x{height} is too small: both sides must be at least {MIN_SIDE}")]
    TooSmall {
        /// Columns asked for.
        width: u32,
        /// Rows asked for.
        height: u32,
    },
    /// The bitboard (a word of `width * (height + 1)` bits) does not fit.
    #[error(
        "board {width}x{height} is too large: width * (height + 1) must be at most 64 \
         (e.g. 8x7, 9x6, 10x5, 12x4)"
    )]
    TooLarge {
        /// Columns asked for.
        width: u32,
        /// Rows asked for.
        height: u32,
    },
}

/// A board size: `width` columns of `height` cells. The default is the
/// standard 7x6.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Variant {
    width: u8,
    height: u8,
}

impl Variant {
    /// The standard board: 7 columns, 6 rows.
    pub const STANDARD: Variant = Variant {
        width: 7,
        height: 6,
    };

    /// A `width x height` board. Both sides must be at least [`MIN_SIDE`],
    /// and `width * (height + 1)` at most 64 (one word per bitboard, a
    /// sentinel bit above every column).
    pub fn new(width: u32, height: u32) -> Result<Variant, BoardSizeError> {
        if width < MIN_SIDE || height < MIN_SIDE {
            return Err(BoardSizeError::TooSmall { width, height });
        }
        // Checked in u64 so that absurd sizes cannot overflow the test.
        if u64::from(width) * (u64::from(height) + 1) > 64 {
            return Err(BoardSizeError::TooLarge { width, height });
        }
        Ok(Variant {
            width: width as u8,
            height: height as u8,
        })
    }

    /// Number of columns.
    pub fn width(self) -> u32 {
        u32::from(self.width)
    }

    /// Number of rows.
    pub(crate) fn height(self) -> u32 {
        u32::from(self.height)
    }

    /// Number of cells (the length of the longest game).
    pub(crate) fn cells(self) -> u32 {
        self.width() * self.height()
    }

    /// The score of a win by the side to move completing its four as its
    /// next stone from a position of `stones` stones: `(cells + 1 - stones)
    /// / 2`, the number of stones the winner still had in hand plus one.
    pub(crate) fn win_score(self, stones: u32) -> i32 {
        (self.cells() as i32 + 1 - stones as i32) / 2
    }

    pub(crate) fn geometry(self) -> Dynamic {
        Dynamic::new(self.width(), self.height())
    }
}

impl Default for Variant {
    fn default() -> Variant {
        Variant::STANDARD
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

impl FromStr for Variant {
    type Err = BoardSizeError;

    /// Reads `WxH` (`7x6`; `X` and surrounding spaces allowed); an empty
    /// string is the standard board.
    fn from_str(s: &str) -> Result<Variant, BoardSizeError> {
        let t = s.trim();
        if t.is_empty() {
            return Ok(Variant::STANDARD);
        }
        let malformed = || BoardSizeError::Malformed {
            input: s.to_owned(),
        };
        let (w, h) = t.split_once(['x', 'X']).ok_or_else(malformed)?;
        let w: u32 = w.trim().parse().map_err(|_| malformed())?;
        let h: u32 = h.trim().parse().map_err(|_| malformed())?;
        Variant::new(w, h)
    }
}

/// Why a position given as text was rejected. Every variant carries the
/// input, so the message alone tells what was wrong with what.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// A character or token of a column sequence is not a column.
    #[error("position {input:?}: move {index} ({found:?}) is not a column (1 to {width})")]
    BadColumn {
        /// The text as given.
        input: String,
        /// 1-based number of the move.
        index: usize,
        /// The offending text.
        found: String,
        /// Number of columns of the board.
        width: u32,
    },
    /// A move of a column sequence drops into a full column.
    #[error("position {input:?}: move {index} plays column {column}, which is full")]
    FullColumn {
        /// The text as given.
        input: String,
        /// 1-based number of the move.
        index: usize,
        /// The full column, 1-based.
        column: u32,
    },
    /// The sequence goes on after a four ended the game.
    #[error("position {input:?}: the game is over after move {index} (a four), but moves follow")]
    GameOver {
        /// The text as given.
        input: String,
        /// 1-based number of the move that completed the four.
        index: usize,
    },
    /// A picture that does not follow the notation: a wrong number of
    /// rows or cells, or a character that is no cell.
    #[error("position {input:?}: {reason}")]
    Picture {
        /// The text as given.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A well-formed picture that no game can reach: a stone above an
    /// empty cell, stone counts that do not alternate, fours that could
    /// not all have been made.
    #[error("position {input:?}: {reason}")]
    Unreachable {
        /// The text as given.
        input: String,
        /// Which rule it breaks.
        reason: String,
    },
}

impl ParseError {
    /// What is wrong, without the input the message starts with (for a
    /// caller that quotes the input itself).
    pub(crate) fn reason(&self) -> String {
        let whole = self.to_string();
        let input = match self {
            ParseError::BadColumn { input, .. }
            | ParseError::FullColumn { input, .. }
            | ParseError::GameOver { input, .. }
            | ParseError::Picture { input, .. }
            | ParseError::Unreachable { input, .. } => input,
        };
        let prefix = format!("position {input:?}: ");
        match whole.strip_prefix(&prefix) {
            Some(rest) => rest.to_owned(),
            None => whole,
        }
    }
}

/// Why a move cannot be played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The column index is not below the width.
    #[error("column {column} does not exist (the board has {width} columns, numbered from 0)")]
    NoSuchColumn {
        /// The column asked for (0-based).
        column: u32,
        /// Number of columns.
        width: u32,
    },
    /// The column is full.
    #[error("column {column} (0-based) is full")]
    Full {
        /// The column (0-based).
        column: u32,
    },
    /// Somebody already has a four.
    #[error("the game is over: the previous move completed a four")]
    GameOver,
}

/// A position: the stones of both players on a board of some [`Variant`].
///
/// Two bitboards in the classic layout (see the module documentation):
/// `mask` holds every stone, `current` the stones of the side to move.
/// Columns are numbered from 0 (left) in this API and from 1 in text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bitboard {
    variant: Variant,
    current: u64,
    mask: u64,
    moves: u32,
}

impl Bitboard {
    /// The empty board.
    pub fn new(variant: Variant) -> Bitboard {
        Bitboard {
            variant,
            current: 0,
            mask: 0,
            moves: 0,
        }
    }

    /// Reads a position in either text form: a picture if the text holds a
    /// line break (other than around it), a `/`, or one of `.xXoO`, else a
    /// column sequence (see
    /// [`Bitboard::from_moves`] and `Bitboard::from_picture`).
    pub(crate) fn parse(variant: Variant, text: &str) -> Result<Bitboard, ParseError> {
        Board::parse(variant, text).map(|b| b.bitboard())
    }

    /// Plays a column sequence from the empty board: columns numbered from
    /// 1, one digit per move (`4453`), or separated by spaces or commas
    /// (`4 4 5 3`, needed beyond nine columns). Empty text is the empty
    /// board. The sequence must not go on after a four.
    pub fn from_moves(variant: Variant, text: &str) -> Result<Bitboard, ParseError> {
        Board::from_moves(variant, text).map(|b| b.bitboard())
    }

    /// Reads a picture: one line per row, top row first, bottom row last,
    /// `.` for an empty cell, `X` (or `x`) for the first player's stones and
    /// `O` (or `o`) for the second player's. Lines are separated by line
    /// breaks or `/`; spaces around them are ignored. The picture must obey
    /// gravity, the stone counts must allow the first player to have moved
    /// first, and it must be reachable with respect to fours: only the
    /// player who moved last may have one, and all of that player's fours
    /// must share a stone that could have been played last.
    #[cfg(test)]
    pub(crate) fn from_picture(variant: Variant, text: &str) -> Result<Bitboard, ParseError> {
        parse_picture(variant, text)
    }

    /// The board size.
    pub(crate) fn variant(&self) -> Variant {
        self.variant
    }

    /// Number of stones on the board.
    pub fn moves(&self) -> u32 {
        self.moves
    }

    /// The side to move.
    pub(crate) fn to_move(self) -> Player {
        if self.moves.is_multiple_of(2) {
            Player::First
        } else {
            Player::Second
        }
    }

    /// The stones of the side to move (bitboard).
    pub(crate) fn current(&self) -> u64 {
        self.current
    }

    /// Every stone (bitboard).
    pub(crate) fn mask(&self) -> u64 {
        self.mask
    }

    /// The unique key `current + mask + bottom` (see the module
    /// documentation); it fits in `width * (height + 1)` bits.
    pub fn key(&self) -> u64 {
        bits::key(self.geo(), self.current, self.mask)
    }

    /// The key of the left-right mirror image.
    pub(crate) fn mirror_key(&self) -> u64 {
        self.geo().mirror(self.key())
    }

    /// The smaller of [`Bitboard::key`] and [`Bitboard::mirror_key`]: equal
    /// for a position and its mirror image, which have the same score.
    pub fn canonical_key(&self) -> u64 {
        self.key().min(self.mirror_key())
    }

    /// The position whose [`Bitboard::key`] is `key`, or `None` when `key`
    /// is not the key of a well-formed position of `variant`.
    ///
    /// Decoding: in every column's `height + 1` bits the highest set bit is
    /// the marker just above the column's top stone (the bottom cell when
    /// the column is empty); the bits below it are the column's stones, set
    /// where the side to move has one. Well formed means: no bit beyond the
    /// last column, a marker in every column, and as many stones for the
    /// side to move as the parity of the stone count says (the position may
    /// still be unreachable, e.g. hold a four of the side to move).
    pub fn from_key(variant: Variant, key: u64) -> Option<Bitboard> {
        let g = variant.geometry();
        let used = g.width() * g.stride();
        if used < 64 && key >> used != 0 {
            return None;
        }
        let column_bits = (1u64 << g.stride()) - 1;
        let mut marker = 0u64;
        for c in 0..g.width() {
            let col = (key >> (c * g.stride())) & column_bits;
            if col == 0 {
                return None;
            }
            marker |= (1u64 << (63 - col.leading_zeros())) << (c * g.stride());
        }
        let mask = marker - g.bottom();
        let current = key - marker;
        let moves = mask.count_ones();
        if current.count_ones() != moves / 2 {
            return None;
        }
        Some(Bitboard {
            variant,
            current,
            mask,
            moves,
        })
    }

    /// The left-right mirror image.
    #[cfg(test)]
    pub(crate) fn mirror(&self) -> Bitboard {
        let g = self.geo();
        let (b, k) = (g.bottom(), self.mirror_key());
        // Invert the key: the highest set bit of each column is its marker,
        // everything below it is occupied.
        let marker = (0..g.width()).fold(0u64, |acc, c| {
            let col = (k >> (c * g.stride())) & ((1 << g.stride()) - 1);
            acc | (1u64 << (63 - col.leading_zeros())) << (c * g.stride())
        });
        let mask = marker - b;
        Bitboard {
            variant: self.variant,
            current: k - marker,
            mask,
            moves: self.moves,
        }
    }

    /// True when the game is over: a four on the board or no empty cell.
    pub fn is_over(&self) -> bool {
        self.is_won() || self.moves == self.variant.cells()
    }

    /// True when the player who moved last has a four (the side to move has
    /// lost).
    pub(crate) fn is_won(&self) -> bool {
        bits::has_four(self.geo(), self.current ^ self.mask)
    }

    /// True when `column` exists and is not full (whether or not the game
    /// is over).
    pub(crate) fn can_play(&self, column: u32) -> bool {
        column < self.variant.width() && self.mask & self.geo().top_cell(column) == 0
    }

    /// True when playing `column` completes a four for the side to move.
    /// False for a column that cannot be played.
    pub(crate) fn is_winning_move(&self, column: u32) -> bool {
        self.can_play(column)
            && self.winning_cells() & bits::playable(self.geo(), self.mask) & self.column(column)
                != 0
    }

    /// The position after the side to move plays `column`.
    pub fn play(&self, column: u32) -> Result<Bitboard, MoveError> {
        let width = self.variant.width();
        if column >= width {
            return Err(MoveError::NoSuchColumn { column, width });
        }
        if !self.can_play(column) {
            return Err(MoveError::Full { column });
        }
        if self.is_won() {
            return Err(MoveError::GameOver);
        }
        let mut next = *self;
        next.play_unchecked(column);
        Ok(next)
    }

    /// Plays a column known to be playable.
    fn play_unchecked(&mut self, column: u32) {
        self.current ^= self.mask;
        self.mask |= self.mask + self.geo().bottom_cell(column);
        self.moves += 1;
    }

    /// The cells where the side to move can play (bitboard, one per
    /// non-full column).
    pub(crate) fn playable(&self) -> u64 {
        bits::playable(self.geo(), self.mask)
    }

    /// The empty cells that would complete a four for the side to move,
    /// playable now or later: its threats (bitboard).
    pub(crate) fn winning_cells(&self) -> u64 {
        bits::winning_cells(self.geo(), self.current, self.mask)
    }

    /// True when the side to move can win with its next stone.
    pub(crate) fn can_win_next(&self) -> bool {
        self.winning_cells() & self.playable() != 0
    }

    /// Every cell of `column` (bitboard).
    pub(crate) fn column(&self, column: u32) -> u64 {
        self.geo().column(column)
    }

    /// The stone at `column`, `row` (0-based, row 0 at the bottom), if any.
    pub(crate) fn stone(&self, column: u32, row: u32) -> Option<Player> {
        let g = self.geo();
        if column >= g.width() || row >= g.height() {
            return None;
        }
        let bit = 1u64 << (column * g.stride() + row);
        if self.mask & bit == 0 {
            None
        } else if (self.current & bit != 0) == (self.to_move() == Player::First) {
            Some(Player::First)
        } else {
            Some(Player::Second)
        }
    }

    /// The picture of the board (`Bitboard::from_picture` reads it back):
    /// `height` lines of `width` characters, top row first, `X` for the
    /// first player, `O` for the second, `.` for empty; no final newline.
    pub(crate) fn picture(&self) -> String {
        let g = self.geo();
        let mut out = String::with_capacity(((g.width() + 1) * g.height()) as usize);
        for row in (0..g.height()).rev() {
            for col in 0..g.width() {
                out.push(match self.stone(col, row) {
                    None => '.',
                    Some(Player::First) => 'X',
                    Some(Player::Second) => 'O',
                });
            }
            if row > 0 {
                out.push('\n');
            }
        }
        out
    }

    pub(crate) fn geo(&self) -> Dynamic {
        self.variant.geometry()
    }
}

impl fmt::Display for Bitboard {
    /// The picture ([`Bitboard::picture`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.picture())
    }
}

/// A position together with the moves that led to it, when they are known
/// (a position read from a picture has no history).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    position: Bitboard,
    columns: Option<Vec<u8>>,
}

impl Board {
    /// The empty board, with an empty history.
    pub(crate) fn new(variant: Variant) -> Board {
        Board {
            position: Bitboard::new(variant),
            columns: Some(Vec::new()),
        }
    }

    /// Reads either text form (see [`Bitboard::parse`]); a column sequence
    /// keeps its history.
    pub(crate) fn parse(variant: Variant, text: &str) -> Result<Board, ParseError> {
        // A picture has rows ('/' or line breaks) or empty cells ('.'), or
        // is all stones; text with a digit and neither is a column
        // sequence, whose errors then name the token that is no column.
        let t = text.trim();
        let picture = t.contains(['\n', '/', '.'])
            || (t.contains(['x', 'X', 'o', 'O']) && !t.contains(|c: char| c.is_ascii_digit()));
        if picture {
            Ok(Board {
                position: parse_picture(variant, text)?,
                columns: None,
            })
        } else {
            Board::from_moves(variant, text)
        }
    }

    /// Plays a column sequence (see [`Bitboard::from_moves`]).
    pub(crate) fn from_moves(variant: Variant, text: &str) -> Result<Board, ParseError> {
        let mut board = Board::new(variant);
        let t = text.trim();
        let separated = t.contains(|c: char| c.is_whitespace() || c == ',');
        let tokens: Vec<&str> = if separated {
            t.split(|c: char| c.is_whitespace() || c == ',')
                .filter(|t| !t.is_empty())
                .collect()
        } else {
            // One move per character (char_indices keeps multi-byte
            // characters whole, so the error can quote them).
            t.char_indices()
                .map(|(i, c)| &t[i..i + c.len_utf8()])
                .collect()
        };
        for (i, token) in tokens.into_iter().enumerate() {
            let index = i + 1;
            let width = variant.width();
            let column = match number(token) {
                Some(c) if (1..=width).contains(&c) => c - 1,
                _ => {
                    return Err(ParseError::BadColumn {
                        input: text.to_owned(),
                        index,
                        found: token.to_owned(),
                        width,
                    })
                }
            };
            match board.play(column) {
                Ok(()) => {}
                Err(MoveError::Full { .. }) => {
                    return Err(ParseError::FullColumn {
                        input: text.to_owned(),
                        index,
                        column: column + 1,
                    })
                }
                Err(MoveError::GameOver) => {
                    return Err(ParseError::GameOver {
                        input: text.to_owned(),
                        index: index - 1,
                    })
                }
                Err(MoveError::NoSuchColumn { .. }) => unreachable!("column range checked above"),
            }
        }
        Ok(board)
    }

    /// The position.
    pub(crate) fn bitboard(&self) -> Bitboard {
        self.position
    }

    /// Plays `column` (0-based), recording it in the history.
    pub(crate) fn play(&mut self, column: u32) -> Result<(), MoveError> {
        self.position = self.position.play(column)?;
        if let Some(cols) = &mut self.columns {
            // Widths are at most 12 (five bits per column at least, 64 in
            // all), so a column fits a byte.
            cols.push(column as u8);
        }
        Ok(())
    }

    /// The column sequence in text form (1-based; digits run together up
    /// to nine columns, separated by spaces beyond), when known.
    pub(crate) fn sequence(&self) -> Option<String> {
        let cols = self.columns.as_ref()?;
        let wide = self.position.variant.width() > 9;
        let parts: Vec<String> = cols.iter().map(|c| (c + 1).to_string()).collect();
        Some(parts.join(if wide { " " } else { "" }))
    }
}

impl fmt::Display for Board {
    /// The column sequence when known, else the picture.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.sequence() {
            Some(s) => f.write_str(&s),
            None => f.write_str(&self.position.picture()),
        }
    }
}

fn parse_picture(variant: Variant, text: &str) -> Result<Bitboard, ParseError> {
    let fail = |reason: String| ParseError::Picture {
        input: text.to_owned(),
        reason,
    };
    let unreachable = |reason: String| ParseError::Unreachable {
        input: text.to_owned(),
        reason,
    };
    let g = variant.geometry();
    let (w, h) = (variant.width(), variant.height());
    // The side to move may follow the picture, as it may follow the other
    // games' boards; it must be the side the stones say.
    let (board, x_to_move) = match text.trim_end().rsplit_once([' ', '\t']) {
        Some((board, side @ ("X" | "x" | "O" | "o"))) => {
            (board, Some(side.eq_ignore_ascii_case("x")))
        }
        _ => (text, None),
    };
    let lines: Vec<&str> = board
        .split(['\n', '/'])
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if lines.len() != h as usize {
        return Err(fail(format!(
            "a {variant} picture has {h} rows (lines separated by line breaks or '/'), found {}",
            lines.len()
        )));
    }
    let (mut first, mut second) = (0u64, 0u64);
    for (i, line) in lines.iter().enumerate() {
        let row = h - 1 - i as u32;
        let chars: Vec<char> = line.chars().collect();
        if chars.len() != w as usize {
            return Err(fail(format!(
                "row {} from the top has {} cells, expected {w}",
                i + 1,
                chars.len()
            )));
        }
        for (col, ch) in chars.into_iter().enumerate() {
            let bit = 1u64 << (col as u32 * g.stride() + row);
            match ch {
                '.' => {}
                'X' | 'x' => first |= bit,
                'O' | 'o' => second |= bit,
                _ => {
                    return Err(fail(format!(
                        "{ch:?} in row {} from the top: cells are '.', 'X' or 'O'",
                        i + 1
                    )))
                }
            }
        }
    }
    let mask = first | second;
    // Gravity: in every column the stones are a solid run from the bottom,
    // i.e. adding the bottom bit carries through all of them.
    for col in 0..w {
        let c = mask & g.column(col);
        if c & (c + g.bottom_cell(col)) != 0 {
            return Err(unreachable(format!(
                "column {} has a stone above an empty cell",
                col + 1
            )));
        }
    }
    let (nx, no) = (first.count_ones(), second.count_ones());
    if nx != no && nx != no + 1 {
        return Err(unreachable(format!(
            "{nx} X and {no} O: X moves first, so X has as many stones as O or one more"
        )));
    }
    if let Some(x) = x_to_move.filter(|&x| x != (nx == no)) {
        let (said, stones) = if x { ("X", "O") } else { ("O", "X") };
        return Err(unreachable(format!(
            "{said} to move, but {nx} X and {no} O make it {stones}'s turn"
        )));
    }
    let moves = nx + no;
    // The side that moved last: X when it has one more stone.
    let (last, other) = if nx > no {
        (first, second)
    } else {
        (second, first)
    };
    if bits::has_four(g, other) {
        return Err(unreachable(
            "the player to move has a four: the game ended before its opponent's last move"
                .to_owned(),
        ));
    }
    if bits::has_four(g, last) {
        // Every four must go through one stone that was the last one played:
        // a stone on top of its column whose removal leaves no four.
        let ok = (0..w).any(|col| {
            let c = mask & g.column(col);
            if c == 0 {
                return false;
            }
            let top = 1u64 << (63 - c.leading_zeros());
            last & top != 0 && !bits::has_four(g, last & !top)
        });
        if !ok {
            return Err(unreachable(
                "no single last move could have made all these fours: the game would have \
                 ended earlier"
                    .to_owned(),
            ));
        }
    }
    let current = if moves.is_multiple_of(2) {
        first
    } else {
        second
    };
    Ok(Bitboard {
        variant,
        current,
        mask,
        moves,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_parse_and_reject() {
        assert_eq!("7x6".parse::<Variant>(), Ok(Variant::STANDARD));
        assert_eq!("".parse::<Variant>(), Ok(Variant::STANDARD));
        assert_eq!(Variant::new(8, 7).map(|v| v.to_string()), Ok("8x7".into()));
        assert!(matches!(
            "8x8".parse::<Variant>(),
            Err(BoardSizeError::TooLarge { .. })
        ));
        assert!(matches!(
            "3x6".parse::<Variant>(),
            Err(BoardSizeError::TooSmall { .. })
        ));
        assert!(matches!(
            "7 by 6".parse::<Variant>(),
            Err(BoardSizeError::Malformed { .. })
        ));
        assert!("99999999999x2".parse::<Variant>().is_err());
    }

    #[test]
    fn sequences_round_trip_and_errors_give_the_input_back() {
        let v = Variant::STANDARD;
        let b = Board::from_moves(v, "4453").expect("legal");
        assert_eq!(b.sequence().as_deref(), Some("4453"));
        assert_eq!(b.bitboard().moves(), 4);
        assert_eq!(
            Board::from_moves(v, "4 4 5, 3").expect("legal").bitboard(),
            b.bitboard()
        );
        assert_eq!(Bitboard::parse(v, " 4453\n"), Ok(b.bitboard()));
        let wide = Variant::new(10, 5).expect("fits");
        let w = Board::from_moves(wide, "10 1 10").expect("legal");
        assert_eq!(w.sequence().as_deref(), Some("10 1 10"));
        assert_eq!(w.to_string(), "10 1 10");
        let e = Bitboard::from_moves(v, "448").unwrap_err();
        assert!(matches!(e, ParseError::BadColumn { index: 3, .. }));
        assert!(e.to_string().contains("\"448\""));
        let e = Bitboard::from_moves(v, "4444444").unwrap_err();
        assert!(matches!(
            e,
            ParseError::FullColumn {
                index: 7,
                column: 4,
                ..
            }
        ));
        // X wins vertically with its fourth stone at move 7.
        let e = Bitboard::from_moves(v, "1212121").map(|p| p.is_won());
        assert_eq!(e, Ok(true));
        let e = Bitboard::from_moves(v, "12121213").unwrap_err();
        assert!(matches!(e, ParseError::GameOver { index: 7, .. }));
        assert!(Bitboard::from_moves(v, "4é").is_err());
    }

    #[test]
    fn pictures_round_trip_and_are_validated() {
        let v = Variant::STANDARD;
        let p = Bitboard::from_moves(v, "44536").expect("legal");
        let pic = p.picture();
        assert_eq!(pic, ".......\n.......\n.......\n.......\n...O...\n..OXXX.");
        assert_eq!(Bitboard::from_picture(v, &pic), Ok(p));
        assert_eq!(
            Bitboard::parse(v, &pic.replace('\n', "/").to_lowercase()),
            Ok(p)
        );
        let bad = |s: &str| Bitboard::from_picture(v, s).unwrap_err().to_string();
        assert!(bad(".......\n.......").contains("6 rows"));
        assert!(bad("......./......./......./...X.../......./.......").contains("above"));
        assert!(bad("......./......./......./......./......./XX.....").contains("2 X and 0 O"));
        // X to move, but X already has a four.
        assert!(bad("......./......./......./......./OOO..../XXXX..O").contains("player to move"));
        // Two fours of X, one on top of the other: no single last stone.
        assert!(
            bad("......./......./......./....O../XXXXOOO/XXXXOOO").contains("no single last move")
        );
    }

    #[test]
    fn mirror_and_keys() {
        let v = Variant::STANDARD;
        let p = Bitboard::from_moves(v, "1122357").expect("legal");
        let m = Bitboard::from_moves(v, "7766531").expect("legal");
        assert_eq!(p.mirror(), m);
        assert_eq!(p.mirror_key(), m.key());
        assert_eq!(p.canonical_key(), m.canonical_key());
    }
}
