//! A decoded block as the cache keeps it: its entries under a static
//! B-tree of one cache line a node, searched a level at a time.

use super::mask;
use crate::core::platform;

/// A decoded block, kept in the cache in a form a search reads few cache
/// lines of: its entries, ascending `u64`s (the records themselves for a
/// sorted file, `key << 8 | entry` for a dense one), in groups of 16,
/// under a search tree of the groups' first keys.
///
/// The tree is a static B-tree of one cache line a node: its lowest level
/// holds each group's first key, eight a line; each level above holds the
/// first key of each line of the level below; the top (at most eight
/// keys) lies in the block itself. A search reads one line a level, then
/// its group's lines.
///
/// Where each key lies less than `2^32` above its group's first key and
/// the bits below the keys take at most 16, the entries are kept split:
/// each key's offset from its group's first key (a `u32`, a group's in one
/// line) and its bits below the key (a `u16`): 6 bytes an entry instead of
/// 8. Otherwise they are kept whole.
#[derive(Debug)]
#[repr(C)]
pub struct Block {
    /// The top of the tree: the first keys of the lines of the level
    /// below (or of the groups), padded with `u64::MAX`. With the fields
    /// after it, the block's two cache lines.
    top: Line,
    /// The levels of the tree below the top, from the top down.
    tree: Box<[Line]>,
    entries: Entries,
    /// Where each level of `tree` starts (lines), from the top down.
    starts: [u16; MAX_LEVELS],
    /// The levels in `tree`.
    levels: u8,
    /// The bits below the key in an entry.
    shift: u8,
    /// The number of entries.
    len: u32,
}

// Two cache lines, which a search asks for first.
const _: () = assert!(size_of::<Block>() <= 128);

/// Eight keys: a node of a block's search tree, one cache line.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Line([u64; 8]);

impl Line {
    /// How many of the keys are at most `key`.
    #[inline]
    fn rank(&self, key: u64) -> usize {
        self.0.iter().map(|&k| usize::from(k <= key)).sum()
    }
}

/// A group's key offsets, one cache line (padded with `u32::MAX`).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Offsets([u32; GROUP]);

/// A group's bits below the keys, half a cache line.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
struct Lows([u16; GROUP]);

/// Entries in a group of a decoded block: its key offsets fill one cache
/// line.
const GROUP: usize = 16;

/// Levels of a block's tree below its top at most: enough for 2^22
/// entries (a block holds at most 2^20), whose tree takes fewer than 2^16
/// lines.
const MAX_LEVELS: usize = 5;

/// The entries of a decoded block.
#[derive(Debug)]
enum Entries {
    /// Each entry's key less its group's first key, by group, and its
    /// bits below the key.
    Split {
        offsets: Box<[Offsets]>,
        low: Box<[Lows]>,
    },
    /// The entries themselves, eight a line, padded with `u64::MAX`.
    Whole(Box<[Line]>),
}

/// `values` eight a line, the last padded with `u64::MAX`.
fn lines(values: &[u64]) -> impl Iterator<Item = Line> + '_ {
    values.chunks(8).map(|c| {
        let mut line = Line([u64::MAX; 8]);
        line.0[..c.len()].copy_from_slice(c);
        line
    })
}

impl Block {
    /// The levels of the tree below the top of a block of `n` entries.
    pub(super) fn levels_for(n: usize) -> u8 {
        let mut keys = n.div_ceil(GROUP);
        let mut levels = 0;
        while keys > 8 && levels < MAX_LEVELS {
            keys = keys.div_ceil(8);
            levels += 1;
        }
        levels as u8
    }

    /// A block of `entries` (ascending, keys distinct and below `2^63`,
    /// at most `2^22`) whose keys lie above their lowest `shift` bits.
    pub(super) fn new(entries: &[u64], shift: u32) -> Block {
        let firsts: Vec<u64> = entries.iter().step_by(GROUP).map(|&e| e >> shift).collect();
        // The levels from the lowest up, until one fits the top.
        let mut levels = Vec::new();
        let mut keys = firsts.clone();
        while keys.len() > 8 && levels.len() < MAX_LEVELS {
            let above = keys.iter().step_by(8).copied().collect();
            levels.push(std::mem::replace(&mut keys, above));
        }
        debug_assert!(keys.len() <= 8);
        debug_assert_eq!(levels.len(), usize::from(Block::levels_for(entries.len())));
        let mut top = Line([u64::MAX; 8]);
        top.0[..keys.len().min(8)].copy_from_slice(&keys[..keys.len().min(8)]);
        let mut tree = Vec::new();
        let mut starts = [0u16; MAX_LEVELS];
        for (d, level) in levels.iter().rev().enumerate() {
            starts[d] = tree.len() as u16;
            tree.extend(lines(level));
        }
        // The entries ascend: a group's last key is its farthest.
        let split = shift <= 16
            && entries.chunks(GROUP).zip(&firsts).all(|(group, &first)| {
                let last = group.last().map_or(first, |&e| e >> shift);
                last.wrapping_sub(first) <= u64::from(u32::MAX)
            });
        let entries_kept = if split {
            let low_mask = mask(shift);
            let mut offsets = vec![Offsets([u32::MAX; GROUP]); firsts.len()];
            let mut low = vec![Lows([0; GROUP]); firsts.len()];
            for (((group, &first), o), l) in entries
                .chunks(GROUP)
                .zip(&firsts)
                .zip(&mut offsets)
                .zip(&mut low)
            {
                for ((&e, o), l) in group.iter().zip(&mut o.0).zip(&mut l.0) {
                    *o = (e >> shift).wrapping_sub(first) as u32;
                    *l = (e & low_mask) as u16;
                }
            }
            Entries::Split {
                offsets: offsets.into(),
                low: low.into(),
            }
        } else {
            Entries::Whole(lines(entries).collect())
        };
        Block {
            top,
            tree: tree.into(),
            starts,
            levels: levels.len() as u8,
            shift: shift as u8,
            len: entries.len() as u32,
            entries: entries_kept,
        }
    }

    /// The number of entries.
    pub(crate) fn len(&self) -> usize {
        self.len as usize
    }

    /// The first key of group `g`.
    #[inline]
    fn group_key(&self, g: usize) -> u64 {
        match self.levels {
            0 => self.top.0[g],
            l => {
                let lowest = self.starts[usize::from(l) - 1] as usize;
                self.tree[lowest + g / 8].0[g % 8]
            }
        }
    }

    /// Entry `i`.
    #[inline]
    #[cfg(test)]
    pub(crate) fn entry(&self, i: usize) -> u64 {
        let shift = u32::from(self.shift);
        match &self.entries {
            Entries::Split { offsets, low } => {
                let key = self.group_key(i / GROUP) + u64::from(offsets[i / GROUP].0[i % GROUP]);
                key << shift | u64::from(low[i / GROUP].0[i % GROUP])
            }
            Entries::Whole(lines) => lines[i / 8].0[i % 8],
        }
    }

    /// The entries, in order.
    #[cfg(test)]
    pub(crate) fn entries(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        (0..self.len()).map(|i| self.entry(i))
    }

    /// The memory the block takes in the cache.
    pub(super) fn cost(&self) -> usize {
        let entries = match &self.entries {
            Entries::Split { offsets, low } => size_of_val(&**offsets) + size_of_val(&**low),
            Entries::Whole(lines) => size_of_val(&**lines),
        };
        size_of::<Block>() + size_of_val(&*self.tree) + entries + 64
    }

    /// Asks for the block's own two lines, where a search starts.
    #[inline]
    pub(super) fn prefetch(&self) {
        platform::prefetch(&self.top);
        platform::prefetch(&self.tree);
    }

    /// The first step of a search for `key`: where it goes at the top (a
    /// place among the levels or a group), none when `key` lies below the
    /// block; the lines it reads next asked for.
    #[inline]
    pub(super) fn search_top(&self, key: u64) -> Option<Step> {
        let node = self.top.rank(key).checked_sub(1)?;
        let step = Step { level: 0, node };
        self.prefetch_step(step);
        Some(step)
    }

    /// One level down from `step`, the lines read next asked for; a step
    /// at a group stays there.
    #[inline]
    pub(super) fn search_down(&self, step: Step, key: u64) -> Option<Step> {
        if step.level >= usize::from(self.levels) {
            return Some(step);
        }
        let line = self
            .tree
            .get(self.starts[step.level] as usize + step.node)?;
        let node = step.node * 8 + line.rank(key).checked_sub(1)?;
        let next = Step {
            level: step.level + 1,
            node,
        };
        self.prefetch_step(next);
        Some(next)
    }

    /// Asks for the line a search reads at `step`: a node of the tree, or
    /// at the bottom, its group's.
    #[inline]
    fn prefetch_step(&self, step: Step) {
        if step.level < usize::from(self.levels) {
            if let Some(line) = self.tree.get(self.starts[step.level] as usize + step.node) {
                platform::prefetch(line);
            }
            return;
        }
        let g = step.node;
        match &self.entries {
            Entries::Split { offsets, low } => {
                if let Some(o) = offsets.get(g) {
                    platform::prefetch(o);
                }
                if let Some(l) = low.get(g) {
                    platform::prefetch(l);
                }
            }
            Entries::Whole(lines) => {
                for line in lines.iter().skip(g * GROUP / 8).take(GROUP / 8) {
                    platform::prefetch(line);
                }
            }
        }
    }

    /// Searches group `g` for `key`: its entry, if the block holds it.
    #[inline]
    pub(super) fn search_group(&self, g: usize, key: u64) -> Option<u64> {
        let shift = u32::from(self.shift);
        let (i, entry) = match &self.entries {
            Entries::Split { offsets, low } => {
                let want = u32::try_from(key.checked_sub(self.group_key(g))?).ok()?;
                let group = &offsets.get(g)?.0;
                let p = group.iter().map(|&o| usize::from(o < want)).sum::<usize>();
                if group.get(p) != Some(&want) {
                    return None;
                }
                let low = low.get(g)?.0[p];
                (g * GROUP + p, key << shift | u64::from(low))
            }
            Entries::Whole(lines) => {
                let at = g * GROUP / 8;
                let group = lines.get(at..lines.len().min(at + GROUP / 8))?;
                let p = group
                    .iter()
                    .flat_map(|l| l.0)
                    .map(|e| usize::from(e >> shift < key))
                    .sum::<usize>();
                let e = *group.get(p / 8)?.0.get(p % 8)?;
                if e >> shift != key {
                    return None;
                }
                (g * GROUP + p, e)
            }
        };
        (i < self.len()).then_some(entry)
    }

    /// The entry of key `key`, if the block holds it.
    #[inline]
    pub(crate) fn find(&self, key: u64) -> Option<u64> {
        let mut step = self.search_top(key)?;
        for _ in 0..self.levels {
            step = self.search_down(step, key)?;
        }
        self.search_group(step.node, key)
    }
}

/// Where a search stands in a block's tree: a node of level `level` (from
/// the top down, 0 the first below the top), or at the bottom, a group.
#[derive(Clone, Copy, Debug)]
pub(super) struct Step {
    level: usize,
    pub(super) node: usize,
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A generator of the same numbers on every run.
    fn noise(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// `n` ascending entries of distinct keys above `shift` bits, the
    /// keys' steps below `2^step_bits`, the first key `first`.
    pub(in crate::db::packed) fn entries(
        n: usize,
        shift: u32,
        step_bits: u32,
        first: u64,
        seed: &mut u64,
    ) -> Vec<u64> {
        let mut key = first;
        (0..n)
            .map(|i| {
                if i > 0 {
                    key += 1 + noise(seed) % (1 << step_bits);
                }
                key << shift | noise(seed) & mask(shift)
            })
            .collect()
    }

    /// Every entry of `block` is found, and the keys around them are not.
    fn finds_exactly(block: &Block, entries: &[u64], shift: u32) {
        assert_eq!(block.len(), entries.len());
        assert!(block.entries().eq(entries.iter().copied()));
        for (i, &e) in entries.iter().enumerate() {
            let key = e >> shift;
            assert_eq!(block.find(key), Some(e), "entry {i} of {}", entries.len());
            for near in [key.wrapping_sub(1), key + 1] {
                if entries
                    .binary_search_by_key(&near, |&e| e >> shift)
                    .is_err()
                {
                    assert_eq!(block.find(near), None, "{near:#x}");
                }
            }
        }
        let last = entries.last().map_or(0, |&e| e >> shift);
        for far in [last + (1 << 33), (1 << (63 - shift)) - 1] {
            if far > last {
                assert_eq!(block.find(far), None);
            }
        }
    }

    #[test]
    fn a_decoded_block_finds_every_entry_and_nothing_else() {
        let mut seed = 0x9e37_79b9_7f4a_7c15;
        for n in [1, 2, 8, 15, 16, 17, 129, 130, 1000, 4096, 4097, 20_000] {
            // Split (small steps), whole (steps past 2^32 in a group), and
            // whole for more than 16 bits below the key.
            for (shift, step_bits) in [
                (12, 20),
                (8, 4),
                (0, 10),
                (12, 31),
                (16, 24),
                (16, 31),
                (20, 8),
            ] {
                let e = entries(n, shift, step_bits, 5, &mut seed);
                let block = Block::new(&e, shift);
                assert_eq!(block.levels, Block::levels_for(n));
                let split = matches!(block.entries, Entries::Split { .. });
                let narrow = e
                    .chunks(GROUP)
                    .all(|g| (g[g.len() - 1] >> shift) - (g[0] >> shift) <= u64::from(u32::MAX));
                assert_eq!(split, shift <= 16 && narrow, "{n} {shift} {step_bits}");
                if n > 100 {
                    assert_eq!(
                        split,
                        shift <= 16 && step_bits < 28,
                        "{n} {shift} {step_bits}"
                    );
                }
                finds_exactly(&block, &e, shift);
            }
        }
    }

    #[test]
    fn the_padding_of_a_last_group_is_never_found() {
        // A key offset of u32::MAX, the value of the padding, in a group
        // that is not full.
        let e = [0u64, 1, u64::from(u32::MAX)].map(|k| k << 12 | 7);
        let block = Block::new(&e, 12);
        assert!(matches!(block.entries, Entries::Split { .. }));
        finds_exactly(&block, &e, 12);
        // Keys up to the last of their width, kept whole: the padding
        // (u64::MAX) reads as the last key with every bit below it set.
        let top = (1u64 << 52) - 1;
        let e = [1u64, 1 << 40, top - 1].map(|k| k << 12 | 3);
        let block = Block::new(&e, 12);
        assert!(matches!(block.entries, Entries::Whole(_)));
        finds_exactly(&block, &e, 12);
        assert_eq!(block.find(top), None);
    }

    #[test]
    fn a_block_of_the_most_entries_fits_the_levels_and_starts_of_its_tree() {
        let n = crate::db::header::MAX_BLOCK_ENTRIES as usize;
        assert!(usize::from(Block::levels_for(n)) <= MAX_LEVELS);
        let mut seed = 7;
        let e = entries(n, 12, 8, 0, &mut seed);
        let block = Block::new(&e, 12);
        assert_eq!(usize::from(block.levels), MAX_LEVELS);
        assert!(block.tree.len() < 1 << 16);
        for &x in e.iter().step_by(997) {
            assert_eq!(block.find(x >> 12), Some(x));
        }
    }
}
