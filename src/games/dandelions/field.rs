//! The field: bitboards of seeds and flowers, the wind directions used, the
//! rays seeds travel along, the 8 symmetries of the square acting on cells
//! and directions together, and the packed `u64` key of a state.

use std::fmt;

/// The 8 wind directions, clockwise from east: their names.
pub(crate) const DIRECTION_NAMES: [&str; 8] = ["E", "SE", "S", "SW", "W", "NW", "N", "NE"];
/// Row step of each direction (rows grow southwards).
pub(super) const DR: [i32; 8] = [0, 1, 1, 1, 0, -1, -1, -1];
/// Column step of each direction (columns grow eastwards).
pub(super) const DC: [i32; 8] = [1, 1, 0, -1, -1, -1, 0, 1];

/// Turns of a game: 7 flowers and 7 winds, alternating.
pub(crate) const TURNS: u32 = 14;

/// The largest side: a 6x6 field would need 3^36 > 2^57 key values plus 8
/// direction bits, more than a 64-bit record holds beside the value.
pub(crate) const MAX_SIDE: u32 = 5;
/// The smallest side.
pub(crate) const MIN_SIDE: u32 = 2;

/// A state: which cells hold seeds, which hold flowers, which directions
/// the wind has used. Seeds under a flower do not matter (the flower covers
/// its cell) and are kept cleared, so equal states compare equal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Field {
    /// Seeded cells without a flower.
    pub seeds: u32,
    /// Flowers.
    pub flowers: u32,
    /// Directions used, bit `d` for direction `d`.
    pub dirs: u8,
}

impl Field {
    /// Turns played: flowers planted plus winds blown.
    pub(crate) fn turns(&self) -> u32 {
        self.flowers.count_ones() + self.dirs.count_ones()
    }

    /// True when the dandelions are to move (as many winds as flowers).
    pub(crate) fn dandelions_to_move(&self) -> bool {
        self.flowers.count_ones() == self.dirs.count_ones()
    }

    /// Covered cells: a flower or a seed.
    pub(crate) fn covered(&self) -> u32 {
        self.seeds | self.flowers
    }
}

/// One board size: rays, symmetry tables, key packing.
#[derive(Clone, Debug)]
pub struct Geometry {
    n: u32,
    cells: u32,
    full: u32,
    /// `ray[d][c]`: the cells from `c` (excluded) to the edge in direction `d`.
    ray: [[u32; 25]; 8],
    /// `cell_map[s][c]`: the image of cell `c` under symmetry `s`.
    cell_map: [[u8; 25]; 8],
    /// `dir_map[s][d]`: the image of direction `d` under symmetry `s`.
    dir_map: [[u8; 8]; 8],
    /// Powers of three, one per cell.
    pow3: [u64; 25],
    /// `row_map[s][r][v]`: the image under symmetry `s` of the cells of
    /// row `r` whose bits (within the row) are `v`.
    row_map: [[[u32; 32]; 5]; 8],
    /// `dir_bits[s][dirs]`: the image of a set of directions.
    dir_bits: [[u8; 256]; 8],
    /// `row_digits[seeds << n | flowers]`: a row's base-3 value.
    row_digits: Vec<u16>,
    /// `row_cells[v]`: the seeds and flowers of a row of base-3 value `v`.
    row_cells: Vec<(u8, u8)>,
}

impl Geometry {
    /// The geometry of an `n` x `n` field, `MIN_SIDE <= n <= MAX_SIDE`.
    pub fn new(n: u32) -> Geometry {
        assert!((MIN_SIDE..=MAX_SIDE).contains(&n), "side {n} out of range");
        let cells = n * n;
        let ni = n as i32;
        let mut ray = [[0u32; 25]; 8];
        for (d, rays) in ray.iter_mut().enumerate() {
            for (c, r) in rays.iter_mut().enumerate().take(cells as usize) {
                let (mut row, mut col) = (c as i32 / ni, c as i32 % ni);
                loop {
                    row += DR[d];
                    col += DC[d];
                    if row < 0 || col < 0 || row >= ni || col >= ni {
                        break;
                    }
                    *r |= 1 << (row * ni + col);
                }
            }
        }
        // Symmetry s: bit 2 transposes, then bit 0 flips rows, bit 1 columns.
        let image = |s: usize, row: i32, col: i32, last: i32| -> (i32, i32) {
            let (mut r, mut c) = if s & 4 != 0 { (col, row) } else { (row, col) };
            if s & 1 != 0 {
                r = last - r;
            }
            if s & 2 != 0 {
                c = last - c;
            }
            (r, c)
        };
        let mut cell_map = [[0u8; 25]; 8];
        let mut dir_map = [[0u8; 8]; 8];
        for s in 0..8 {
            for c in 0..cells as i32 {
                let (r, k) = image(s, c / ni, c % ni, ni - 1);
                cell_map[s][c as usize] = (r * ni + k) as u8;
            }
            // A direction is a step; its image is the image of the step under
            // the linear part of the symmetry (last = 0 keeps the origin).
            for d in 0..8 {
                let (r, k) = image(s, DR[d], DC[d], 0);
                dir_map[s][d] = (0..8).find(|&e| DR[e] == r && DC[e] == k).unwrap_or(d) as u8;
            }
        }
        let mut pow3 = [0u64; 25];
        let mut p = 1u64;
        for x in pow3.iter_mut() {
            *x = p;
            p *= 3;
        }
        let side = n as usize;
        let mut row_map = [[[0u32; 32]; 5]; 8];
        let mut dir_bits = [[0u8; 256]; 8];
        for s in 0..8 {
            for (r, rows) in row_map[s].iter_mut().enumerate().take(side) {
                for (v, image) in rows.iter_mut().enumerate().take(1 << side) {
                    for i in 0..side {
                        if v >> i & 1 != 0 {
                            *image |= 1 << cell_map[s][r * side + i];
                        }
                    }
                }
            }
            for (dirs, image) in dir_bits[s].iter_mut().enumerate() {
                for (d, &to) in dir_map[s].iter().enumerate() {
                    if dirs >> d & 1 != 0 {
                        *image |= 1 << to;
                    }
                }
            }
        }
        let mut row_digits = vec![0u16; 1 << (2 * side)];
        for (i, v) in row_digits.iter_mut().enumerate() {
            let (seeds, flowers) = (i >> side, i & ((1 << side) - 1));
            for c in (0..side).rev() {
                let digit = if flowers >> c & 1 != 0 {
                    2
                } else {
                    seeds >> c & 1
                };
                *v = *v * 3 + digit as u16;
            }
        }
        let mut row_cells = vec![(0u8, 0u8); pow3[side] as usize];
        for (v, cell) in row_cells.iter_mut().enumerate() {
            let mut x = v;
            for c in 0..side {
                match x % 3 {
                    1 => cell.0 |= 1 << c,
                    2 => cell.1 |= 1 << c,
                    _ => {}
                }
                x /= 3;
            }
        }
        Geometry {
            n,
            cells,
            full: if cells == 32 {
                u32::MAX
            } else {
                (1 << cells) - 1
            },
            ray,
            cell_map,
            dir_map,
            pow3,
            row_map,
            dir_bits,
            row_digits,
            row_cells,
        }
    }

    /// The side.
    pub(crate) fn side(&self) -> u32 {
        self.n
    }

    /// Cells.
    pub(crate) fn cells(&self) -> u32 {
        self.cells
    }

    /// Every cell.
    pub(crate) fn full(&self) -> u32 {
        self.full
    }

    /// The seeds the flowers spread when the wind blows in direction `d`.
    #[inline]
    pub(crate) fn spread(&self, flowers: u32, d: usize) -> u32 {
        let mut f = flowers;
        let mut s = 0;
        while f != 0 {
            s |= self.ray[d][f.trailing_zeros() as usize];
            f &= f - 1;
        }
        s
    }

    /// The cells a flower at `c` would seed in direction `d`.
    #[inline]
    pub(crate) fn ray(&self, d: usize, c: usize) -> u32 {
        self.ray[d][c]
    }

    /// The image of direction `d` under symmetry `s`.
    pub(crate) fn map_dir(&self, s: usize, d: usize) -> usize {
        usize::from(self.dir_map[s][d])
    }

    /// The image of cell `c` under symmetry `s`.
    pub(crate) fn map_cell(&self, s: usize, c: usize) -> usize {
        usize::from(self.cell_map[s][c])
    }

    fn map_bits(&self, s: usize, bits: u32) -> u32 {
        // Row by row, through the table.
        let (n, mask) = (self.n, (1u32 << self.n) - 1);
        let rows = &self.row_map[s];
        let mut out = 0;
        for (r, row) in rows.iter().enumerate().take(n as usize) {
            out |= row[(bits >> (n * r as u32) & mask) as usize];
        }
        out
    }

    /// The image of a state under symmetry `s`.
    pub(crate) fn transform(&self, f: &Field, s: usize) -> Field {
        Field {
            seeds: self.map_bits(s, f.seeds),
            flowers: self.map_bits(s, f.flowers),
            dirs: self.dir_bits[s][usize::from(f.dirs)],
        }
    }

    /// Key bits: the cells in base 3, then 8 direction bits.
    pub(crate) fn key_bits(&self) -> u32 {
        let values = self.pow3[self.cells as usize - 1] * 3;
        (64 - (values - 1).leading_zeros()) + 8
    }

    /// The key of a state: `dirs << B | sum(digit(c) * 3^c)`, where
    /// `digit` is 0 for an uncovered cell, 1 for a seed, 2 for a flower and
    /// `B = key_bits - 8` (40 on 5x5). See `format-spec.md`.
    pub(crate) fn key(&self, f: &Field) -> u64 {
        // Row by row, the highest first: each row is n base-3 digits.
        let (n, mask) = (self.n, (1u32 << self.n) - 1);
        let (seeds, flowers) = (f.seeds & !f.flowers & self.full, f.flowers & self.full);
        let base = self.pow3[n as usize];
        let mut k = 0u64;
        for r in (0..n).rev() {
            let (sr, fr) = (seeds >> (n * r) & mask, flowers >> (n * r) & mask);
            k = k * base + u64::from(self.row_digits[(sr << n | fr) as usize]);
        }
        k | u64::from(f.dirs) << (self.key_bits() - 8)
    }

    /// The state of a key, or `None` when the key is out of range.
    pub(crate) fn field(&self, key: u64) -> Option<Field> {
        let b = self.key_bits() - 8;
        if key >> self.key_bits() != 0 {
            return None;
        }
        let mut digits = key & ((1u64 << b) - 1);
        if digits >= self.pow3[self.cells as usize - 1] * 3 {
            return None;
        }
        let mut f = Field {
            dirs: (key >> b) as u8,
            ..Field::default()
        };
        let (n, base) = (self.n, self.pow3[self.n as usize]);
        for r in 0..n {
            let (seeds, flowers) = self.row_cells[(digits % base) as usize];
            f.seeds |= u32::from(seeds) << (n * r);
            f.flowers |= u32::from(flowers) << (n * r);
            digits /= base;
        }
        Some(f)
    }

    /// The smallest key over the 8 images of a state.
    pub(crate) fn canonical(&self, f: &Field) -> u64 {
        (0..8)
            .map(|s| self.key(&self.transform(f, s)))
            .min()
            .unwrap_or(0)
    }

    /// True when a state could arise in a game: flowers and winds alternate
    /// (dandelions first), at most 7 of each, and every seed lies on the ray
    /// of some flower in some used direction.
    pub(crate) fn is_plausible(&self, f: &Field) -> bool {
        let (fl, w) = (f.flowers.count_ones(), f.dirs.count_ones());
        if !(fl == w || fl == w + 1) || fl > TURNS / 2 {
            return false;
        }
        if f.seeds & f.flowers != 0 || (f.seeds | f.flowers) & !self.full != 0 {
            return false;
        }
        let mut reach = 0;
        for d in 0..8 {
            if f.dirs >> d & 1 != 0 {
                reach |= self.spread(f.flowers, d);
            }
        }
        f.seeds & !reach == 0
    }

    /// True when a game reaches `f`: a flower and a wind in turn (the
    /// dandelions first), the game not over before the last of them, and
    /// the seeds exactly those the winds blew from the flowers already
    /// planted, less the cells planted since. [`Geometry::is_plausible`]
    /// checks each seed against every flower; this tries the orders too,
    /// each (seeds, flowers, winds) once: a flower planted before the east
    /// wind seeds the cells east of it, so a field with that flower, that
    /// wind and those cells empty is refused.
    pub(crate) fn is_reachable(&self, f: &Field) -> bool {
        if !self.is_plausible(f) {
            return false;
        }
        // A cell empty at the end was never seeded: seeds leave a cell
        // only under a flower.
        let may_seed = f.seeds | f.flowers;
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![Field::default()];
        while let Some(g) = stack.pop() {
            if g.flowers == f.flowers && g.dirs == f.dirs {
                if g.seeds == f.seeds {
                    return true;
                }
                continue;
            }
            if self.is_over(&g) || !seen.insert(g) {
                continue;
            }
            if g.dandelions_to_move() {
                let mut free = f.flowers & !g.flowers;
                while free != 0 {
                    let c = free.trailing_zeros();
                    free &= free - 1;
                    stack.push(Field {
                        seeds: g.seeds & !(1 << c),
                        flowers: g.flowers | 1 << c,
                        dirs: g.dirs,
                    });
                }
            } else {
                for d in 0..8 {
                    if (f.dirs & !g.dirs) >> d & 1 != 0 {
                        let seeds = (g.seeds | self.spread(g.flowers, d)) & !g.flowers;
                        if seeds & !may_seed == 0 {
                            stack.push(Field {
                                seeds,
                                dirs: g.dirs | 1 << d,
                                ..g
                            });
                        }
                    }
                }
            }
        }
        false
    }

    /// True when the game is over: every cell covered, or all turns played.
    pub(crate) fn is_over(&self, f: &Field) -> bool {
        f.covered() == self.full || f.turns() >= TURNS
    }

    /// The outcome of a finished game, from the dandelions' side: `8 -
    /// flowers` when every cell is covered, minus the uncovered cells
    /// otherwise.
    pub(crate) fn final_score(&self, f: &Field) -> i32 {
        if f.covered() == self.full {
            8 - f.flowers.count_ones() as i32
        } else {
            -((self.full & !f.covered()).count_ones() as i32)
        }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            out,
            "seeds {:#x} flowers {:#x} dirs {:#04x}",
            self.seeds, self.flowers, self.dirs
        )
    }
}
