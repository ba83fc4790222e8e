//! The board of k-in-a-row: its size and `k` ([`Variant`]), the cells,
//! lines and symmetries that follow from them ([`Geometry`]), and a
//! position as two bitboards ([`Stones`]).
//!
//! Cells are numbered row-major from the top left: cell `r * cols + c` is
//! row `r` (from the top) and column `c` (from the left). A set of cells
//! is a `u64` with bit `cell` set.

use std::fmt;
use std::str::FromStr;

use crate::core::Player;

/// The most cells of a board, 7x7: a position of the search's table is
/// two bitboards packed into the 104 bits its 16-byte entry spares for
/// them (`search`), room for 52 cells.
pub(crate) const MAX_CELLS: u32 = 49;

/// A board size and the length of a winning line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Variant {
    rows: u32,
    cols: u32,
    k: u32,
}

/// Why a variant spec was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum VariantSpecError {
    /// The spec is not `RxC,k=K` (or `tic-tac-toe`).
    #[error("expected RxC,k=K (rows x columns, line length), e.g. 3x3,k=3, or tic-tac-toe")]
    Malformed,
    /// A side is zero.
    #[error("a board needs at least one row and one column")]
    Empty,
    /// More cells than [`MAX_CELLS`].
    #[error(
        "{rows}x{cols} has {cells} cells, more than {MAX_CELLS} (7x7), the largest board \
         played"
    )]
    TooLarge {
        /// Rows asked for.
        rows: u32,
        /// Columns asked for.
        cols: u32,
        /// Their product.
        cells: u32,
    },
    /// `k` is 0 or longer than both sides.
    #[error("k={k} is out of range: 1 to {max} (the longer side) on {rows}x{cols}")]
    BadK {
        /// The line length asked for.
        k: u32,
        /// Rows.
        rows: u32,
        /// Columns.
        cols: u32,
        /// The longer side.
        max: u32,
    },
}

impl Variant {
    /// Tic-tac-toe: 3x3, three in a row.
    pub(crate) const STANDARD: Variant = Variant {
        rows: 3,
        cols: 3,
        k: 3,
    };

    /// The board of `rows x cols` cells where `k` in a row wins.
    pub(crate) fn new(rows: u32, cols: u32, k: u32) -> Result<Variant, VariantSpecError> {
        if rows == 0 || cols == 0 {
            return Err(VariantSpecError::Empty);
        }
        let cells = rows.saturating_mul(cols);
        if cells > MAX_CELLS {
            return Err(VariantSpecError::TooLarge { rows, cols, cells });
        }
        let max = rows.max(cols);
        if k == 0 || k > max {
            return Err(VariantSpecError::BadK { k, rows, cols, max });
        }
        Ok(Variant { rows, cols, k })
    }

    /// Rows.
    pub(crate) fn rows(&self) -> u32 {
        self.rows
    }

    /// Columns.
    pub(crate) fn cols(&self) -> u32 {
        self.cols
    }

    /// The length of a winning line.
    pub(crate) fn k(&self) -> u32 {
        self.k
    }

    /// Cells of the board.
    pub(crate) fn cells(&self) -> u32 {
        self.rows * self.cols
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{},k={}", self.rows, self.cols, self.k)
    }
}

impl FromStr for Variant {
    type Err = VariantSpecError;

    /// `RxC,k=K`; `RxC` alone means `k=3` (or the longer side when it is
    /// shorter); empty and `tic-tac-toe` are 3x3,k=3.
    fn from_str(s: &str) -> Result<Variant, VariantSpecError> {
        let t = s.trim();
        if t.is_empty() || t.eq_ignore_ascii_case("tic-tac-toe") {
            return Ok(Variant::STANDARD);
        }
        let (size, k) = match t.split_once(',') {
            Some((size, rest)) => {
                let k = rest
                    .trim()
                    .strip_prefix("k=")
                    .ok_or(VariantSpecError::Malformed)?;
                (size, Some(k))
            }
            None => (t, None),
        };
        let (r, c) = size
            .trim()
            .split_once(['x', 'X'])
            .ok_or(VariantSpecError::Malformed)?;
        let number = |x: &str| {
            let x = x.trim();
            // Digits only: no signs, no spaces inside.
            if x.is_empty() || x.len() > 4 || !x.bytes().all(|b| b.is_ascii_digit()) {
                return Err(VariantSpecError::Malformed);
            }
            x.parse::<u32>().map_err(|_| VariantSpecError::Malformed)
        };
        let (rows, cols) = (number(r)?, number(c)?);
        let k = match k {
            Some(k) => number(k)?,
            None => 3.min(rows.max(cols)),
        };
        Variant::new(rows, cols, k)
    }
}

/// What follows from a [`Variant`]: the lines, the lines through each
/// cell, and the symmetries as cell maps.
#[derive(Clone, Debug)]
pub(crate) struct Geometry {
    variant: Variant,
    cells: u32,
    /// Every set of `k` cells in a row, column or diagonal.
    lines: Vec<u64>,
    /// Per cell: the indices in `lines` of the lines through it.
    through: Vec<Vec<u16>>,
    /// Per symmetry: the image of each cell.
    maps: Vec<Vec<u8>>,
}

impl Geometry {
    /// The geometry of `variant`.
    pub(crate) fn new(variant: Variant) -> Geometry {
        let (rows, cols, k) = (variant.rows as i32, variant.cols as i32, variant.k as i32);
        let cells = variant.cells();
        let mut lines = Vec::new();
        for r in 0..rows {
            for c in 0..cols {
                for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                    let (er, ec) = (r + dr * (k - 1), c + dc * (k - 1));
                    if !(0..rows).contains(&er) || !(0..cols).contains(&ec) {
                        continue;
                    }
                    let line =
                        (0..k).fold(0u64, |m, i| m | 1u64 << ((r + dr * i) * cols + c + dc * i));
                    // k = 1: the four directions give the same cell.
                    if !lines.contains(&line) {
                        lines.push(line);
                    }
                }
            }
        }
        let through = (0..cells)
            .map(|cell| {
                (0..lines.len())
                    .filter(|&i| lines[i] >> cell & 1 != 0)
                    .map(|i| i as u16)
                    .collect()
            })
            .collect();
        // Mirror left-right, flip top-bottom, and on a square transpose.
        let count = if rows == cols { 8 } else { 4 };
        let maps = (0..count)
            .map(|s| {
                (0..cells as i32)
                    .map(|cell| {
                        let (mut r, mut c) = (cell / cols, cell % cols);
                        if s & 1 != 0 {
                            c = cols - 1 - c;
                        }
                        if s & 2 != 0 {
                            r = rows - 1 - r;
                        }
                        if s & 4 != 0 {
                            std::mem::swap(&mut r, &mut c);
                        }
                        (r * cols + c) as u8
                    })
                    .collect()
            })
            .collect();
        Geometry {
            variant,
            cells,
            lines,
            through,
            maps,
        }
    }

    /// The variant.
    pub(crate) fn variant(&self) -> Variant {
        self.variant
    }

    /// Cells of the board.
    pub(crate) fn cells(&self) -> u32 {
        self.cells
    }

    /// Every cell.
    pub(crate) fn full(&self) -> u64 {
        if self.cells == 64 {
            u64::MAX
        } else {
            (1u64 << self.cells) - 1
        }
    }

    /// The winning lines, each a set of cells.
    pub(crate) fn lines(&self) -> &[u64] {
        &self.lines
    }

    /// The indices (in [`Geometry::lines`]) of the lines through `cell`.
    pub(crate) fn lines_through(&self, cell: u32) -> &[u16] {
        &self.through[cell as usize]
    }

    /// The number of symmetries: 8 on a square, 4 on a rectangle.
    pub(crate) fn symmetry_count(&self) -> usize {
        self.maps.len()
    }

    /// The image of `cell` under symmetry `sym`.
    pub(crate) fn map_cell(&self, cell: u32, sym: usize) -> u32 {
        u32::from(self.maps[sym % self.maps.len()][cell as usize])
    }

    /// The image of a set of cells under symmetry `sym`.
    pub(crate) fn map_set(&self, set: u64, sym: usize) -> u64 {
        let map = &self.maps[sym % self.maps.len()];
        let mut rest = set;
        let mut out = 0;
        while rest != 0 {
            let cell = rest.trailing_zeros();
            rest &= rest - 1;
            out |= 1u64 << map[cell as usize];
        }
        out
    }

    /// True when `stones` hold a full line.
    #[inline]
    pub(crate) fn has_line(&self, stones: u64) -> bool {
        self.lines.iter().any(|&l| l & !stones == 0)
    }

    /// True when `stones` hold a full line through `cell`.
    #[inline]
    pub(crate) fn has_line_through(&self, stones: u64, cell: u32) -> bool {
        self.through[cell as usize].iter().any(|&i| {
            let l = self.lines[usize::from(i)];
            stones & l == l
        })
    }
}

/// A position: the stones of each side. `X` moves first, so `X` has as
/// many stones as `O` (then `X` is to move) or one more.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Stones {
    /// `X`'s stones.
    pub x: u64,
    /// `O`'s stones.
    pub o: u64,
}

impl Stones {
    /// The side to move.
    pub(crate) fn to_move(self) -> Player {
        if self.x.count_ones() > self.o.count_ones() {
            Player::Second
        } else {
            Player::First
        }
    }

    /// Stones on the board.
    pub(crate) fn count(&self) -> u32 {
        (self.x | self.o).count_ones()
    }

    /// The stones of `player`.
    pub(crate) fn of(&self, player: Player) -> u64 {
        match player {
            Player::First => self.x,
            Player::Second => self.o,
        }
    }

    /// True when the stone counts fit alternate play from the empty board.
    pub(crate) fn counts_fit(&self) -> bool {
        let (x, o) = (self.x.count_ones(), self.o.count_ones());
        self.x & self.o == 0 && (x == o || x == o + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_parse_and_print() {
        let v: Variant = "4x5,k=4".parse().unwrap();
        assert_eq!((v.rows(), v.cols(), v.k()), (4, 5, 4));
        assert_eq!(v.to_string(), "4x5,k=4");
        assert_eq!("".parse::<Variant>().unwrap(), Variant::STANDARD);
        assert_eq!("tic-tac-toe".parse::<Variant>().unwrap(), Variant::STANDARD);
        assert_eq!("4x4".parse::<Variant>().unwrap().k(), 3);
        assert_eq!("1x2".parse::<Variant>().unwrap().k(), 2);
        for bad in [
            "3", "3x", "x3", "3x3,k=", "3x3,k=0", "3x3,k=4", "0x3", "7x8", "3x3,q=3",
        ] {
            assert!(bad.parse::<Variant>().is_err(), "{bad}");
        }
        assert!("7x7,k=5".parse::<Variant>().is_ok(), "49 cells");
        assert!("5x10,k=5".parse::<Variant>().is_err(), "50 cells");
    }

    #[test]
    fn lines_of_tic_tac_toe() {
        let g = Geometry::new(Variant::STANDARD);
        assert_eq!(g.lines().len(), 8);
        assert_eq!(g.lines_through(4).len(), 4);
        assert_eq!(g.lines_through(1).len(), 2);
        let g = Geometry::new("4x5,k=4".parse().unwrap());
        // 4 rows x 2 + 5 columns x 1 + 2 x 2 diagonals.
        assert_eq!(g.lines().len(), 8 + 5 + 4);
        assert_eq!(g.symmetry_count(), 4);
    }

    #[test]
    fn symmetries_are_permutations() {
        for spec in ["3x3,k=3", "4x5,k=4", "1x4,k=2", "5x5,k=4"] {
            let g = Geometry::new(spec.parse().unwrap());
            for s in 0..g.symmetry_count() {
                assert_eq!(g.map_set(g.full(), s), g.full(), "{spec} {s}");
            }
            // Lines go to lines.
            for s in 0..g.symmetry_count() {
                for &l in g.lines() {
                    assert!(g.lines().contains(&g.map_set(l, s)), "{spec} {s}");
                }
            }
        }
    }
}
