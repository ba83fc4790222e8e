//! Bitboard arithmetic shared by the board and the solver.
//!
//! Layout (the classic one): column `c` owns bits `c * (H + 1) ..
//! c * (H + 1) + H`, bottom cell first; the bit above the top cell of every
//! column (the sentinel) is never a stone. A position is two words: `mask`,
//! the occupied cells, and `current`, the stones of the side to move. The
//! sentinels stop the vertical and diagonal shifts from wrapping into the
//! next column, so a four can be found with a handful of shifts.
//!
//! Everything is written against [`Geometry`], which has two
//! implementations: [`Standard`] (7x6, every mask a compile-time constant, so
//! the solver's hot loop has immediate shifts and no loads) and [`Dynamic`]
//! (any board that fits, masks computed once).

/// The shape of a board, as the bit tricks need it.
pub(crate) trait Geometry: Copy {
    /// Number of columns.
    fn width(self) -> u32;
    /// Number of rows.
    fn height(self) -> u32;
    /// One bit at the bottom cell of every column.
    fn bottom(self) -> u64;
    /// Every cell of the board (sentinels excluded).
    fn board(self) -> u64;
    /// The key of the left-right mirror image of a position, from its key.
    fn mirror(self, key: u64) -> u64;
    /// Every cell of the even rows, counted from 1 at the bottom (the
    /// second, fourth, ... rows): the cells the second player takes by
    /// answering each stone directly above it ("claimeven").
    fn even_rows(self) -> u64;

    /// Number of cells.
    #[inline(always)]
    fn cells(self) -> i32 {
        (self.width() * self.height()) as i32
    }

    /// Bits per column (cells plus the sentinel).
    #[inline(always)]
    fn stride(self) -> u32 {
        self.height() + 1
    }

    /// Every cell of column `col`.
    #[inline(always)]
    fn column(self, col: u32) -> u64 {
        ((1u64 << self.height()) - 1) << (col * self.stride())
    }

    /// The bottom cell of column `col`.
    #[inline(always)]
    fn bottom_cell(self, col: u32) -> u64 {
        1u64 << (col * self.stride())
    }

    /// The top cell of column `col`.
    #[inline(always)]
    fn top_cell(self, col: u32) -> u64 {
        1u64 << (self.height() - 1 + col * self.stride())
    }
}

/// The standard 7x6 board, with constant masks.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Standard;

const STD_BOTTOM: u64 = bottom_mask(7, 6);
const STD_BOARD: u64 = STD_BOTTOM * ((1 << 6) - 1);
const STD_EVEN: u64 = even_rows_mask(7, 6);

impl Geometry for Standard {
    #[inline(always)]
    fn width(self) -> u32 {
        7
    }
    #[inline(always)]
    fn height(self) -> u32 {
        6
    }
    #[inline(always)]
    fn bottom(self) -> u64 {
        STD_BOTTOM
    }
    #[inline(always)]
    fn board(self) -> u64 {
        STD_BOARD
    }
    #[inline(always)]
    fn even_rows(self) -> u64 {
        STD_EVEN
    }
    #[inline(always)]
    fn mirror(self, key: u64) -> u64 {
        // Columns 0<->6, 1<->5, 2<->4 swap, 3 stays: with 7-bit columns the
        // swaps are shifts by 42, 28 and 14 bits.
        const C: u64 = 0x7f;
        (key & C << 21)
            | (key & C) << 42
            | (key >> 42) & C
            | (key & C << 7) << 28
            | (key >> 28) & C << 7
            | (key & C << 14) << 14
            | (key >> 14) & C << 14
    }
}

/// Any board that fits in a word: masks computed at construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Dynamic {
    width: u32,
    height: u32,
    bottom: u64,
    board: u64,
    even: u64,
}

impl Dynamic {
    /// The geometry of a `width x height` board. The caller has checked
    /// `width * (height + 1) <= 64` (see `Variant::new`).
    pub(crate) const fn new(width: u32, height: u32) -> Dynamic {
        let bottom = bottom_mask(width, height);
        Dynamic {
            width,
            height,
            bottom,
            board: bottom * ((1 << height) - 1),
            even: even_rows_mask(width, height),
        }
    }
}

impl Geometry for Dynamic {
    #[inline(always)]
    fn width(self) -> u32 {
        self.width
    }
    #[inline(always)]
    fn height(self) -> u32 {
        self.height
    }
    #[inline(always)]
    fn bottom(self) -> u64 {
        self.bottom
    }
    #[inline(always)]
    fn board(self) -> u64 {
        self.board
    }
    #[inline(always)]
    fn even_rows(self) -> u64 {
        self.even
    }
    #[inline]
    fn mirror(self, key: u64) -> u64 {
        let s = self.stride();
        let col = (1u64 << s) - 1;
        let mut out = 0;
        for c in 0..self.width {
            out |= (key >> (c * s) & col) << ((self.width - 1 - c) * s);
        }
        out
    }
}

/// One bit at the bottom of every column of a `width x height` board.
pub(crate) const fn bottom_mask(width: u32, height: u32) -> u64 {
    let mut m = 0u64;
    let mut c = 0;
    while c < width {
        m |= 1 << (c * (height + 1));
        c += 1;
    }
    m
}

/// The cells of the even rows (second, fourth, ... from the bottom) of a
/// `width x height` board.
pub(crate) const fn even_rows_mask(width: u32, height: u32) -> u64 {
    let bottom = bottom_mask(width, height);
    let mut m = 0u64;
    let mut r = 1;
    while r < height {
        m |= bottom << r;
        r += 2;
    }
    m
}

/// The empty cells (of `mask`'s complement) that would complete a four for
/// the stones `pos`, playable now or not.
#[inline(always)]
pub(crate) fn winning_cells<G: Geometry>(g: G, pos: u64, mask: u64) -> u64 {
    // Vertical: three stones directly below.
    let mut r = (pos << 1) & (pos << 2) & (pos << 3);
    // Horizontal (shift by a column), and the two diagonals (a column and a
    // row down or up): the empty cell may be at either end of the four or
    // one of the two inner places.
    for d in [g.stride(), g.height(), g.height() + 2] {
        let p = (pos << d) & (pos << (2 * d));
        r |= p & (pos << (3 * d));
        r |= p & (pos >> d);
        let p = (pos >> d) & (pos >> (2 * d));
        r |= p & (pos << d);
        r |= p & (pos >> (3 * d));
    }
    r & (g.board() ^ mask)
}

/// Every four of the stones `pos`: its first cell (the lowest bit) and the
/// step between its cells (a bit shift).
pub(crate) fn fours<G: Geometry>(g: G, pos: u64) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for d in [1, g.stride(), g.height(), g.height() + 2] {
        let m = pos & (pos >> d);
        let mut starts = m & (m >> (2 * d));
        while starts != 0 {
            out.push((starts.trailing_zeros(), d));
            starts &= starts - 1;
        }
    }
    out
}

/// True when the stones `pos` contain a four.
#[inline]
pub(crate) fn has_four<G: Geometry>(g: G, pos: u64) -> bool {
    for d in [1, g.stride(), g.height(), g.height() + 2] {
        let m = pos & (pos >> d);
        if m & (m >> (2 * d)) != 0 {
            return true;
        }
    }
    false
}

/// The cells where the side to move can play (one per non-full column).
#[inline(always)]
pub(crate) fn playable<G: Geometry>(g: G, mask: u64) -> u64 {
    (mask + g.bottom()) & g.board()
}

/// The unique key of a position: `current + mask + bottom` marks the top of
/// every column with a one above the stones and keeps the side to move's
/// stones as ones below it, so no two positions share a key.
#[inline(always)]
pub(crate) fn key<G: Geometry>(g: G, current: u64, mask: u64) -> u64 {
    current + mask + g.bottom()
}

/// The moves of the side to move that do not lose at once, given the
/// opponent's winning cells `threats`: if the opponent has a playable
/// winning cell it must be blocked (and two of them cannot be), and a move
/// directly below an opponent's winning cell hands it over. The side to
/// move must not have a winning move itself (the caller checks that
/// first). Zero means every move loses on the opponent's next turn.
#[inline(always)]
pub(crate) fn non_losing_from<G: Geometry>(g: G, mask: u64, threats: u64) -> u64 {
    let mut possible = playable(g, mask);
    let forced = possible & threats;
    if forced != 0 {
        if forced & (forced - 1) != 0 {
            return 0;
        }
        possible = forced;
    }
    possible & !(threats >> 1)
}

/// Column order for move ordering: centre first, then alternating outwards
/// (left of centre before right, so that on an even width the two centre
/// columns come first).
pub(crate) fn centre_order(width: u32) -> Vec<u32> {
    (0..width)
        .map(|i| {
            let w = width as i32;
            let i = i as i32;
            // w/2, w/2-1, w/2+1, w/2-2, ... for odd w; for even w the same
            // formula starts at the right-hand centre column, so shift it.
            let off = if i % 2 == 1 { -(i + 1) / 2 } else { i / 2 };
            let c = if w % 2 == 1 {
                w / 2 + off
            } else {
                w / 2 - 1 - off
            };
            c as u32
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_matches_dynamic() {
        let d = Dynamic::new(7, 6);
        assert_eq!(Standard.bottom(), d.bottom());
        assert_eq!(Standard.board(), d.board());
        assert_eq!(Standard.even_rows(), d.even_rows());
        assert_eq!(Standard.even_rows().count_ones(), 21);
        assert_eq!(Standard.even_rows() & Standard.bottom(), 0);
        let mut x = 0x1234_5678_9abc_def1u64;
        for _ in 0..1000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let k = x & ((1 << 49) - 1);
            assert_eq!(Standard.mirror(k), d.mirror(k));
            assert_eq!(d.mirror(d.mirror(k)), k);
        }
    }

    #[test]
    fn centre_order_is_a_permutation_starting_in_the_middle() {
        assert_eq!(centre_order(7), vec![3, 2, 4, 1, 5, 0, 6]);
        assert_eq!(centre_order(6), vec![2, 3, 1, 4, 0, 5]);
        assert_eq!(centre_order(4), vec![1, 2, 0, 3]);
        for w in 1..=12 {
            let mut o = centre_order(w);
            o.sort_unstable();
            assert_eq!(o, (0..w).collect::<Vec<_>>());
        }
    }
}
