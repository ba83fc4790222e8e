//! The state key of a k-in-a-row position: how the engine's `u64` names
//! it ([`Keys`]).
//!
//! * **Base 3**, on a board of at most [`MAX_BASE3_CELLS`] cells:
//!   `sum(digit(cell) * 3^cell)`, the digit 0 for an empty cell, 1 for
//!   `X`, 2 for `O`. Every position has a key, and every record (key, a
//!   2-bit value, the remoteness) fits 64 bits.
//! * **Ranked**, on a larger board (up to 7x7): `3^cells` no longer fits a
//!   record, so a key numbers only the positions of at most
//!   [`Ranked::max_stones`] stones, the ones an opening book can hold:
//!   first by the number of stones `n`, then by the set of occupied cells,
//!   then by which of them are `X`'s (`format-spec.md`, section 5). Those
//!   keys are below `2^56`, and a book's records hold them.
//! * **Handles**, for the deeper positions of a larger board: a key with
//!   the top bit set names an entry of a table this process keeps
//!   ([`Interner`]). Such a key is never written to a file: a database
//!   holds no key past its `key_bits`, so a lookup of a handle finds
//!   nothing and the position is searched.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use super::board::Stones;

/// The largest board whose records (a base-3 key, 2 value bits and a
/// 6-bit remoteness) fit 64 bits: `3^35 < 2^56`.
pub(crate) const MAX_BASE3_CELLS: u32 = 35;

/// The top bit: set on a handle, clear on every other key.
const HANDLE: u64 = 1 << 63;

/// Positions a generation of a handle table holds: two generations take
/// some 1.5 GB at most.
const HANDLE_CAPACITY: usize = 1 << 24;

/// How a board's positions are numbered.
#[derive(Clone, Debug)]
pub enum Keys {
    /// Base 3: `3^cell` for each cell.
    Base3(Vec<u64>),
    /// Ranked shallow positions and handles for the others.
    Ranked(Ranked),
}

impl Keys {
    /// The numbering of a board of `cells` cells whose records spend
    /// `record_bits` bits on the value and the remoteness.
    pub(crate) fn new(cells: u32, record_bits: u32) -> Keys {
        if cells <= MAX_BASE3_CELLS {
            Keys::Base3((0..cells).map(|i| 3u64.pow(i)).collect())
        } else {
            Keys::Ranked(Ranked::new(cells, 64 - record_bits, HANDLE_CAPACITY))
        }
    }

    /// Every key of a record is below this: `3^cells` in base 3, the
    /// number of ranked positions otherwise.
    pub(crate) fn end(&self) -> u64 {
        match self {
            Keys::Base3(pow3) => pow3.last().map_or(1, |p| p * 3),
            Keys::Ranked(r) => r.end(),
        }
    }

    /// The key of a position.
    #[inline]
    pub(crate) fn encode(&self, s: Stones) -> u64 {
        match self {
            Keys::Base3(pow3) => {
                let mut key = 0;
                let mut rest = s.x | s.o;
                while rest != 0 {
                    let cell = rest.trailing_zeros();
                    rest &= rest - 1;
                    let digit = if s.x >> cell & 1 != 0 { 1 } else { 2 };
                    key += digit * pow3[cell as usize];
                }
                key
            }
            Keys::Ranked(r) => r.encode(s),
        }
    }

    /// The position of a key, if the key names one: below [`Keys::end`],
    /// or a handle of the current table.
    pub(crate) fn decode(&self, key: u64) -> Option<Stones> {
        match self {
            Keys::Base3(pow3) => {
                if key >= self.end() {
                    return None;
                }
                let (mut x, mut o, mut rest) = (0u64, 0u64, key);
                let mut cell = 0;
                while rest != 0 && cell < pow3.len() {
                    match rest % 3 {
                        1 => x |= 1 << cell,
                        2 => o |= 1 << cell,
                        _ => {}
                    }
                    rest /= 3;
                    cell += 1;
                }
                Some(Stones { x, o })
            }
            Keys::Ranked(r) => r.decode(key),
        }
    }

    /// The key of the position after the side to move (`X` when `x_moves`)
    /// of `s`, whose key is `key`, places a stone on `cell`: in base 3 one
    /// digit more, without encoding the stones again.
    #[inline]
    pub(crate) fn child(&self, key: u64, s: Stones, cell: u32, x_moves: bool) -> u64 {
        match self {
            Keys::Base3(pow3) => {
                let digit = if x_moves { 1 } else { 2 };
                key + digit * pow3[cell as usize]
            }
            Keys::Ranked(r) => {
                let bit = 1u64 << cell;
                let (x, o) = if x_moves {
                    (s.x | bit, s.o)
                } else {
                    (s.x, s.o | bit)
                };
                r.encode(Stones { x, o })
            }
        }
    }
}

/// The ranked numbering of a large board, and its handle table.
#[derive(Clone, Debug)]
pub struct Ranked {
    cells: u32,
    max_stones: u32,
    /// `binomial[n][k]`, `n` up to the cells.
    binomial: Vec<Vec<u64>>,
    /// `offsets[n]`: the first key of the positions of `n` stones
    /// (`n` up to `max_stones + 1`, the last the end of the keys).
    offsets: Vec<u64>,
    handles: Arc<Interner>,
}

impl Ranked {
    /// Ranks the positions of `cells` cells with as many stones as keep the
    /// keys below `2^key_bits`; handles past them, `capacity` to a table.
    pub(crate) fn new(cells: u32, key_bits: u32, capacity: usize) -> Ranked {
        let n_max = cells as usize;
        let mut binomial = vec![vec![0u64; n_max + 1]; n_max + 1];
        for n in 0..=n_max {
            binomial[n][0] = 1;
            for k in 1..=n {
                // At most C(64, 32) < 2^63.
                binomial[n][k] =
                    binomial[n - 1][k - 1] + binomial[n - 1].get(k).copied().unwrap_or(0);
            }
        }
        let limit = if key_bits >= 63 {
            HANDLE
        } else {
            1u64 << key_bits
        };
        let mut offsets = vec![0u64];
        for n in 0..=n_max {
            let count = binomial[n_max][n].checked_mul(binomial[n][n.div_ceil(2)]);
            let next = count.and_then(|c| c.checked_add(offsets[n]));
            match next {
                Some(end) if end <= limit => offsets.push(end),
                _ => break,
            }
        }
        Ranked {
            cells,
            max_stones: offsets.len() as u32 - 2,
            binomial,
            offsets,
            handles: Arc::new(Interner::new(capacity)),
        }
    }

    /// The most stones of a ranked position: deeper ones get handles.
    pub(crate) fn max_stones(&self) -> u32 {
        self.max_stones
    }

    /// The number of ranked positions: every ranked key is below it.
    pub(crate) fn end(&self) -> u64 {
        self.offsets[self.max_stones as usize + 1]
    }

    /// The handle table.
    #[cfg(test)]
    pub(crate) fn handles(&self) -> &Interner {
        &self.handles
    }

    /// True when `s` has a ranked key (few enough stones, in counts that
    /// alternate play gives).
    #[inline]
    fn ranks(&self, s: Stones) -> bool {
        s.count() <= self.max_stones && s.counts_fit()
    }

    /// The smallest key among the images of a position (`images`, the
    /// position itself among them): the canonical key. Handles are
    /// compared by their positions, so that the same image wins whatever
    /// order the table met them in, and only that image gets one.
    pub(crate) fn smallest(&self, images: impl Iterator<Item = Stones>) -> u64 {
        let mut images = images.peekable();
        let Some(first) = images.peek().copied() else {
            return 0;
        };
        if self.ranks(first) {
            images.map(|s| self.encode(s)).min().unwrap_or(0)
        } else {
            let least = images.min_by_key(|s| (s.x, s.o)).unwrap_or(first);
            self.encode(least)
        }
    }

    /// The key of `s`: its rank, or a handle.
    pub(crate) fn encode(&self, s: Stones) -> u64 {
        if !self.ranks(s) {
            return self.handles.intern(s);
        }
        let n = s.count() as usize;
        let (mut cells_rank, mut x_rank) = (0u64, 0u64);
        let (mut rest, mut i, mut xi) = (s.x | s.o, 0usize, 0usize);
        // Colexicographic ranks: the i-th occupied cell `c` adds C(c, i+1);
        // the i-th occupied cell that is X's, the j-th, adds C(i, j+1).
        while rest != 0 {
            let cell = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            cells_rank += self.binomial[cell][i + 1];
            if s.x >> cell & 1 != 0 {
                x_rank += self.binomial[i][xi + 1];
                xi += 1;
            }
            i += 1;
        }
        self.offsets[n] + cells_rank * self.binomial[n][n.div_ceil(2)] + x_rank
    }

    /// The position of a key: a rank below [`Ranked::end`] or a handle of
    /// the current table.
    pub(crate) fn decode(&self, key: u64) -> Option<Stones> {
        if key & HANDLE != 0 {
            return self.handles.get(key);
        }
        if key >= self.end() {
            return None;
        }
        let n = self.offsets.partition_point(|&o| o <= key) - 1;
        let rank = key - self.offsets[n];
        let splits = self.binomial[n][n.div_ceil(2)];
        let cells = unrank(&self.binomial, rank / splits, n, self.cells as usize);
        let xs = unrank(&self.binomial, rank % splits, n.div_ceil(2), n);
        let mut s = Stones { x: 0, o: 0 };
        for (i, &cell) in cells.iter().enumerate() {
            let bit = 1u64 << cell;
            if xs.contains(&i) {
                s.x |= bit;
            } else {
                s.o |= bit;
            }
        }
        Some(s)
    }
}

/// The `k`-subset of `0..n` of colexicographic rank `rank`, ascending.
fn unrank(binomial: &[Vec<u64>], mut rank: u64, k: usize, n: usize) -> Vec<usize> {
    let mut out = vec![0; k];
    let mut top = n;
    for i in (0..k).rev() {
        // The largest c below `top` with C(c, i+1) <= rank.
        let mut c = top - 1;
        while c > i && binomial[c][i + 1] > rank {
            c -= 1;
        }
        rank -= binomial[c][i + 1];
        out[i] = c;
        top = c;
    }
    out
}

/// The handles of one process: the deep positions of a large board met so
/// far, each under the key `HANDLE | generation << 32 | index`.
///
/// A generation holds `capacity` positions (2^24 for a game); the next
/// one starts a new generation, and the one before the last is dropped.
/// So memory stays bounded (two generations), and a handle names its
/// position until at least `capacity` more positions have been met. A
/// handle of a dropped generation names nothing (it decodes to nothing, so
/// a search skips it and an analysis reports it) rather than another
/// position.
#[derive(Debug)]
pub(crate) struct Interner {
    table: RwLock<Table>,
    capacity: usize,
}

#[derive(Debug, Default)]
struct Table {
    generation: u64,
    current: Generation,
    previous: Generation,
}

#[derive(Debug, Default)]
struct Generation {
    index: HashMap<Stones, u32>,
    positions: Vec<Stones>,
}

/// Generations a handle tells apart: 15 bits, below the top bit.
const GENERATIONS: u64 = 1 << 15;

impl Table {
    /// The handle of `s` in the current or the previous generation.
    fn find(&self, s: &Stones) -> Option<u64> {
        if let Some(&i) = self.current.index.get(s) {
            return Some(handle(self.generation, i));
        }
        let &i = self.previous.index.get(s)?;
        Some(handle((self.generation + GENERATIONS - 1) % GENERATIONS, i))
    }
}

impl Interner {
    /// An empty table of `capacity` positions a generation.
    pub(crate) fn new(capacity: usize) -> Interner {
        Interner {
            table: RwLock::new(Table::default()),
            capacity: capacity.clamp(1, u32::MAX as usize),
        }
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Table> {
        // The table stays consistent whatever panicked while holding it:
        // every change is one insert into both maps.
        self.table.read().unwrap_or_else(|p| p.into_inner())
    }

    /// The handle of `s`, the same each time while its generation lasts.
    pub(crate) fn intern(&self, s: Stones) -> u64 {
        if let Some(h) = self.read().find(&s) {
            return h;
        }
        let mut t = self.table.write().unwrap_or_else(|p| p.into_inner());
        if let Some(h) = t.find(&s) {
            return h;
        }
        if t.current.positions.len() >= self.capacity {
            t.previous = std::mem::take(&mut t.current);
            t.generation = (t.generation + 1) % GENERATIONS;
        }
        let i = t.current.positions.len() as u32;
        t.current.positions.push(s);
        t.current.index.insert(s, i);
        handle(t.generation, i)
    }

    /// The position of a handle of the current or the previous generation.
    pub(crate) fn get(&self, key: u64) -> Option<Stones> {
        if key & HANDLE == 0 {
            return None;
        }
        let t = self.read();
        let (generation, i) = ((key & !HANDLE) >> 32, (key & 0xffff_ffff) as usize);
        if generation == t.generation {
            t.current.positions.get(i).copied()
        } else if generation == (t.generation + GENERATIONS - 1) % GENERATIONS {
            t.previous.positions.get(i).copied()
        } else {
            None
        }
    }

    /// Positions held (both generations).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        let t = self.read();
        t.current.positions.len() + t.previous.positions.len()
    }

    /// True when the table holds no position.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn handle(generation: u64, index: u32) -> u64 {
    HANDLE | generation << 32 | u64::from(index)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every position of `cells` cells with counts that alternate play
    /// gives, up to `max` stones.
    fn positions(cells: u32, max: u32) -> Vec<Stones> {
        let mut out = Vec::new();
        let mut digits = vec![0u8; cells as usize];
        loop {
            let mut s = Stones { x: 0, o: 0 };
            for (c, &d) in digits.iter().enumerate() {
                match d {
                    1 => s.x |= 1 << c,
                    2 => s.o |= 1 << c,
                    _ => {}
                }
            }
            if s.counts_fit() && s.count() <= max {
                out.push(s);
            }
            let Some(i) = digits.iter().position(|&d| d < 2) else {
                return out;
            };
            digits[i] += 1;
            digits[..i].fill(0);
        }
    }

    #[test]
    fn ranks_number_the_positions_densely_by_stones() {
        // Every position of 3x3, all of them ranked.
        let r = Ranked::new(9, 40, 16);
        assert_eq!(r.max_stones(), 9);
        let all = positions(9, 9);
        assert_eq!(r.end(), all.len() as u64);
        let mut keys: Vec<u64> = all.iter().map(|&s| r.encode(s)).collect();
        for (&s, &k) in all.iter().zip(&keys) {
            assert_eq!(r.decode(k), Some(s));
            // Fewer stones, smaller keys.
            assert!(k >= r.offsets[s.count() as usize] && k < r.offsets[s.count() as usize + 1]);
        }
        keys.sort_unstable();
        assert!(keys.iter().enumerate().all(|(i, &k)| k == i as u64));
        assert!(r.handles().is_empty());
    }

    #[test]
    fn the_deeper_positions_get_handles() {
        // 3x3 with keys below 2^6: positions of at most 2 stones ranked
        // (1 + 9 + 72 = 82 > 64, so at most 1 stone).
        let r = Ranked::new(9, 6, 4);
        assert_eq!(r.max_stones(), 1);
        assert_eq!(r.end(), 10);
        let deep: Vec<Stones> = positions(9, 9)
            .into_iter()
            .filter(|s| s.count() > 1)
            .collect();
        let first = r.encode(deep[0]);
        assert_ne!(first & HANDLE, 0);
        assert_eq!(r.decode(first), Some(deep[0]));
        assert_eq!(r.encode(deep[0]), first, "the same handle again");
        for &s in &deep[1..4] {
            let h = r.encode(s);
            assert_eq!(r.decode(h), Some(s));
        }
        assert_eq!(r.handles().len(), 4);
        // The fifth starts a new generation; the first one's handles still
        // name their positions, and are found again.
        let fifth = r.encode(deep[4]);
        assert_eq!(r.decode(fifth), Some(deep[4]));
        assert_eq!(r.decode(first), Some(deep[0]));
        assert_eq!(r.encode(deep[0]), first);
        for &s in &deep[5..8] {
            r.encode(s);
        }
        // The ninth starts a third: the first is dropped, and its handles
        // name nothing.
        let ninth = r.encode(deep[8]);
        assert_eq!(r.decode(ninth), Some(deep[8]));
        assert_eq!(r.decode(fifth), Some(deep[4]));
        assert_eq!(r.decode(first), None);
        assert_ne!(r.encode(deep[0]), first);
        assert_eq!(r.handles().len(), 6);
        // A key past the ranks and below the handles names nothing.
        assert_eq!(r.decode(r.end()), None);
    }

    #[test]
    fn seven_by_seven_ranks_sixteen_stones_below_2_to_56() {
        let r = Ranked::new(49, 56, 16);
        assert_eq!(r.max_stones(), 16);
        assert!(r.end() <= 1 << 56);
        // A few positions of each depth round-trip.
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for n in 0..=16u32 {
            for _ in 0..50 {
                let mut s = Stones { x: 0, o: 0 };
                while s.count() < n {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    let bit = 1u64 << (seed % 49);
                    if (s.x | s.o) & bit == 0 {
                        if s.count().is_multiple_of(2) {
                            s.x |= bit;
                        } else {
                            s.o |= bit;
                        }
                    }
                }
                let k = r.encode(s);
                assert!(k < r.end(), "{n}");
                assert_eq!(r.decode(k), Some(s));
            }
        }
    }

    #[test]
    fn base3_is_the_digits() {
        let keys = Keys::new(9, 2 + 4);
        let s = Stones { x: 0b1, o: 0b10 };
        assert_eq!(keys.encode(s), 1 + 2 * 3);
        assert_eq!(keys.decode(7), Some(s));
        assert_eq!(keys.end(), 19683);
        assert_eq!(keys.decode(19683), None);
        assert_eq!(keys.child(7, s, 2, true), 7 + 9);
    }
}
