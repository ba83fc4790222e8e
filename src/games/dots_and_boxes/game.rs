//! Dots and Boxes' rules and notation: [`DotsAndBoxes`], its boards and
//! its [`Game`] impl (edge numbering and key in the folder's `mod.rs`).

use super::lanes::{Simd, LANE_MASK};
use super::{ID, NAME};
use crate::core::notation::number;
use crate::core::{
    Edge, Game, GameDescriptor, Limits, Move, Player, Position, PositionError, VariantError,
};
use std::collections::HashMap;

/// The most edges a board's dense table may have: it has `2^edges` bytes
/// (4 GiB at 32 edges). Larger boards are answered by search, with an
/// opening book for a database.
pub(crate) const MAX_EDGES: u32 = 32;
/// The most edges of a board at all (a state is a `u64` of edges, and the
/// search numbers edges in a byte).
pub(crate) const MAX_SEARCH_EDGES: u32 = 63;

/// Dots and Boxes on a board of `rows x cols` boxes.
#[derive(Clone, Debug)]
// The vector kernel's tables serve the dense solver (`engine`) only.
// Its fields are the folder's: the solver kernels beside the rules read them.
pub struct DotsAndBoxes {
    pub(super) rows: u32,
    pub(super) cols: u32,
    pub(super) edges: u32,
    /// Per box: the mask of its four edges.
    pub(super) boxes: Vec<u64>,
    /// Per edge: the masks of the boxes beside it (one or two).
    pub(super) beside: Vec<Vec<u64>>,
    /// Per edge: for each box beside it, the box's other three edges split
    /// for the vector kernel: the edges above the lane bits, and the lane
    /// bits (an index into `lanes::LANE_PATTERN`).
    pub(super) others: Vec<Vec<(u64, usize)>>,
    /// The best kernel this processor runs.
    pub(super) simd: Simd,
    /// Per symmetry: the image of each edge.
    pub(super) perms: Vec<Vec<u32>>,
    /// Per symmetry, per byte of a key, per byte value: the image of those
    /// edges, so that a key is transformed with a few table reads.
    pub(super) tables: Vec<Vec<[u64; 256]>>,
    pub(super) desc: GameDescriptor,
}

impl DotsAndBoxes {
    /// Dots and Boxes on `rows x cols` boxes, at most [`MAX_SEARCH_EDGES`]
    /// edges. Boards of at most [`MAX_EDGES`] are solved into a dense table;
    /// larger ones are searched (the `search` module, feature `search`) and
    /// their database is a sorted opening book (see
    /// [`DotsAndBoxes::has_table`]).
    pub fn new(rows: u32, cols: u32) -> Result<Self, VariantError> {
        if rows == 0 || cols == 0 {
            return Err(VariantError::new(
                NAME,
                &format!("{rows}x{cols}"),
                format!("a {rows}x{cols} board has no boxes: rows and columns start at 1"),
            ));
        }
        // In u128: the sizes come from the user and may be huge.
        let (r, c) = (u128::from(rows), u128::from(cols));
        let all = (r + 1) * c + r * (c + 1);
        if all > u128::from(MAX_SEARCH_EDGES) {
            return Err(VariantError::new(
                NAME,
                &format!("{rows}x{cols}"),
                format!(
                    "a {rows}x{cols} board has {all} edges; boards up to {MAX_SEARCH_EDGES} edges \
                     are supported (up to {MAX_EDGES} solved into a table, larger ones by search)"
                ),
            ));
        }
        let h = (rows + 1) * cols;
        let edges = h + rows * (cols + 1);
        let hor = |r: u32, c: u32| r * cols + c;
        let ver = |r: u32, c: u32| h + r * (cols + 1) + c;
        let mut boxes = Vec::new();
        let mut beside = vec![Vec::new(); edges as usize];
        for r in 0..rows {
            for c in 0..cols {
                let sides = [hor(r, c), hor(r + 1, c), ver(r, c), ver(r, c + 1)];
                let mask = sides.iter().fold(0u64, |m, &e| m | 1 << e);
                boxes.push(mask);
                for e in sides {
                    beside[e as usize].push(mask);
                }
            }
        }
        // An edge as its two dots (row, column), the smaller first.
        let ends: Vec<((u32, u32), (u32, u32))> = (0..edges)
            .map(|e| {
                if e < h {
                    let (r, c) = (e / cols, e % cols);
                    ((r, c), (r, c + 1))
                } else {
                    let (r, c) = ((e - h) / (cols + 1), (e - h) % (cols + 1));
                    ((r, c), (r + 1, c))
                }
            })
            .collect();
        let edge_of = |a: (u32, u32), b: (u32, u32)| -> u32 {
            let (a, b) = if a <= b { (a, b) } else { (b, a) };
            if a.0 == b.0 {
                hor(a.0, a.1)
            } else {
                ver(a.0, a.1)
            }
        };
        // Symmetry s: bit 0 mirrors left-right, bit 1 flips top-bottom, bit 2
        // transposes (square boards only), applied in that order.
        let count = if rows == cols { 8 } else { 4 };
        let perms: Vec<Vec<u32>> = (0..count)
            .map(|s| {
                let map = |(r, c): (u32, u32)| {
                    let c = if s & 1 != 0 { cols - c } else { c };
                    let r = if s & 2 != 0 { rows - r } else { r };
                    if s & 4 != 0 {
                        (c, r)
                    } else {
                        (r, c)
                    }
                };
                ends.iter().map(|&(a, b)| edge_of(map(a), map(b))).collect()
            })
            .collect();
        let bytes = edges.div_ceil(8) as usize;
        let tables = perms
            .iter()
            .map(|perm| {
                (0..bytes)
                    .map(|byte| {
                        let mut t = [0u64; 256];
                        for (v, out) in t.iter_mut().enumerate() {
                            for bit in 0..8 {
                                let e = byte * 8 + bit;
                                if v >> bit & 1 != 0 && e < edges as usize {
                                    *out |= 1 << perm[e];
                                }
                            }
                        }
                        t
                    })
                    .collect()
            })
            .collect();
        let others = (0..edges as usize)
            .map(|e| {
                beside[e]
                    .iter()
                    .map(|&b| {
                        let m = b & !(1 << e);
                        (m & !LANE_MASK, (m & LANE_MASK) as usize)
                    })
                    .collect()
            })
            .collect();
        Ok(DotsAndBoxes {
            rows,
            cols,
            edges,
            boxes,
            beside,
            others,
            simd: Simd::detect(),
            perms,
            tables,
            // Up to MAX_EDGES: a byte per key, every key. Past it, sorted
            // records: the key, the net boxes (a sign and up to the boxes'
            // bits) and the edges left.
            desc: {
                let dense = edges <= MAX_EDGES;
                let bits = |n: u32| u32::BITS - n.leading_zeros();
                GameDescriptor {
                    name: NAME,
                    id: ID,
                    variant: format!("{rows}x{cols}"),
                    key_bits: edges,
                    value_bits: if dense { 8 } else { bits(rows * cols) + 1 },
                    remoteness_bits: if dense { 0 } else { bits(edges) },
                    dense,
                }
            },
        })
    }

    /// Parses a variant spec: `RxC` boxes (rows first), `3x3` by default.
    pub fn from_variant(spec: &str) -> Result<Self, VariantError> {
        let trimmed = spec.trim();
        if trimmed.is_empty() {
            return DotsAndBoxes::new(3, 3);
        }
        let bad = || VariantError::new(NAME, spec, "give the board as RxC boxes, e.g. 2x3");
        let (r, c) = trimmed
            .to_ascii_lowercase()
            .split_once('x')
            .ok_or_else(bad)
            .and_then(|(r, c)| {
                Ok((
                    r.trim().parse::<u32>().map_err(|_| bad())?,
                    c.trim().parse::<u32>().map_err(|_| bad())?,
                ))
            })?;
        DotsAndBoxes::new(r, c).map_err(|e| VariantError::new(NAME, spec, e.reason))
    }

    /// Rows of boxes.
    pub fn rows(&self) -> u32 {
        self.rows
    }

    /// Columns of boxes.
    pub fn cols(&self) -> u32 {
        self.cols
    }

    /// The number of edges.
    pub fn edge_count(&self) -> u32 {
        self.edges
    }

    /// True when the board is solved into a dense table (at most
    /// [`MAX_EDGES`] edges); larger boards are answered by search.
    pub fn has_table(&self) -> bool {
        self.edges <= MAX_EDGES
    }

    /// The edges of every box, as masks, row by row.
    pub fn box_masks(&self) -> &[u64] {
        &self.boxes
    }

    /// The net boxes for the side to move from the edge set `state`, by
    /// plain negamax over the free edges, each edge set searched once: no
    /// rule, no symmetry, no window. A reference for the search and the
    /// tables; it visits up to `2^free` edge sets, so it is for positions
    /// with few free edges (20 is already a million).
    pub fn plain_value(&self, state: u64) -> i32 {
        fn value(g: &DotsAndBoxes, state: u64, memo: &mut HashMap<u64, i32>) -> i32 {
            let mut free = g.all() & !state;
            if free == 0 {
                return 0;
            }
            if let Some(&v) = memo.get(&state) {
                return v;
            }
            let mut best = i32::MIN;
            while free != 0 {
                let e = free & free.wrapping_neg();
                free &= free - 1;
                let child = state | e;
                let closed = g
                    .boxes
                    .iter()
                    .filter(|&&b| b & e != 0 && b & !child == 0)
                    .count() as i32;
                let v = if closed > 0 {
                    closed + value(g, child, memo)
                } else {
                    -value(g, child, memo)
                };
                best = best.max(v);
            }
            memo.insert(state, best);
            best
        }
        value(self, state & self.all(), &mut HashMap::new())
    }

    pub(super) fn all(&self) -> u64 {
        (1 << self.edges) - 1
    }

    /// An edge number (in the notations' one form of a number), below the
    /// edge count.
    fn parse_edge(&self, text: &str) -> Option<u32> {
        number(text.trim()).filter(|&e| e < self.edges)
    }
}

impl Game for DotsAndBoxes {
    /// Every edge set is a state; a box is worth one, an edge a ply.
    fn limits(&self) -> Limits {
        let keys = 1u64 << self.edges;
        Limits {
            states: keys,
            // A table holds every key; a book's size depends on its depth.
            exact_states: self.has_table().then_some(keys),
            max_net: self.boxes.len() as i32,
            max_remoteness: self.edges,
        }
    }

    fn descriptor(&self) -> &GameDescriptor {
        &self.desc
    }

    fn start(&self) -> u64 {
        0
    }

    fn layer_count(&self) -> usize {
        self.edges as usize + 1
    }

    fn layer(&self, state: u64) -> usize {
        state.count_ones() as usize
    }

    /// The side to move is not part of a Dots and Boxes state (values are
    /// for whoever is to move); the engine's states all report the first
    /// player.
    fn to_move(&self, _state: u64) -> Player {
        Player::First
    }

    fn symmetry_count(&self) -> usize {
        self.perms.len()
    }

    fn transform(&self, state: u64, sym: usize) -> u64 {
        self.tables[sym]
            .iter()
            .enumerate()
            .fold(0, |acc, (byte, t)| {
                acc | t[(state >> (8 * byte)) as usize & 0xFF]
            })
    }

    /// By runs of the 256 keys that share all but their lowest byte: each
    /// symmetry's image of the shared bytes is computed once a run, so a
    /// key costs one table look-up a symmetry, and most keys fail at the
    /// first symmetries.
    fn canonical_keys_in(&self, first: u64, end: u64, out: &mut Vec<u64>) {
        let mut run = first & !0xFF;
        let mut high = vec![0u64; self.tables.len()];
        while run < end {
            for (h, t) in high.iter_mut().zip(&self.tables) {
                *h = t.iter().enumerate().skip(1).fold(0, |acc, (byte, t)| {
                    acc | t[(run >> (8 * byte)) as usize & 0xFF]
                });
            }
            let lo = first.max(run);
            let hi = end.min(run + 256);
            for k in lo..hi {
                let low = (k & 0xFF) as usize;
                let canonical = self.tables[1..]
                    .iter()
                    .zip(&high[1..])
                    .all(|(t, &h)| (h | t[0][low]) >= k);
                if canonical {
                    out.push(k);
                }
            }
            run += 256;
        }
    }

    fn transform_move(&self, mv: Move, sym: usize) -> Move {
        match self.perms[sym].get(usize::from(mv.0)) {
            Some(&e) => Move(e as u16),
            None => mv,
        }
    }

    fn moves(&self, state: u64, out: &mut Vec<Edge>) {
        let mut free = self.all() & !state;
        while free != 0 {
            let e = free.trailing_zeros();
            free &= free - 1;
            let child = state | 1 << e;
            let done = self.beside[e as usize]
                .iter()
                .filter(|&&b| child & b == b)
                .count() as i8;
            out.push(Edge {
                mv: Move(e as u16),
                child,
                reward: done,
                again: done > 0,
            });
        }
    }

    fn is_valid_key(&self, key: u64) -> bool {
        key >> self.edges == 0
    }

    fn parse_position(&self, text: &str) -> Result<u64, PositionError> {
        self.parse(text).map(|p| p.state)
    }

    /// The drawn edges (numbers separated by commas and/or spaces, or
    /// `none`), then optionally the side to move (`A` or `B`, default `A`)
    /// and then optionally the score so far as `A-B` boxes, e.g.
    /// `0,5,12 B 1-0`. A score must agree with the boxes the edges close.
    fn parse(&self, text: &str) -> Result<Position, PositionError> {
        let mut tokens: Vec<&str> = text
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|t| !t.is_empty())
            .collect();
        // The tokens as given, before the side and score are taken off the
        // end: what an error quotes.
        let given = tokens.clone();
        let mut score = None;
        if let Some(last) = tokens.last() {
            if let Some((a, b)) = last.split_once('-') {
                let num = |t: &str| {
                    number(t).ok_or_else(|| {
                        PositionError::malformed(
                            text,
                            format!("{last:?} is not a score: write A's boxes, '-', B's boxes"),
                        )
                    })
                };
                score = Some((num(a)?, num(b)?));
                tokens.pop();
            }
        }
        let mut to_move = None;
        if let Some(last) = tokens.last() {
            to_move = match last.to_ascii_uppercase().as_str() {
                "A" => Some(Player::First),
                "B" => Some(Player::Second),
                _ => None,
            };
            if to_move.is_some() {
                tokens.pop();
            }
        }
        if score.is_some() && to_move.is_none() {
            return Err(PositionError::malformed(
                text,
                "a score needs the side to move before it, e.g. `0,5,12 B 1-0`",
            ));
        }
        let mut state = 0u64;
        match tokens.as_slice() {
            [] => {
                return Err(PositionError::malformed(
                    text,
                    "empty position (`start` is the start; `none` the empty board)",
                ))
            }
            [t] if t.eq_ignore_ascii_case("none") || t.eq_ignore_ascii_case("start") => {}
            _ => {
                for (i, part) in tokens.iter().enumerate() {
                    let e = self.parse_edge(part).ok_or_else(|| {
                        let after = given.get(i + 1..).unwrap_or_default().join(" ");
                        let why = if matches!(part.to_ascii_uppercase().as_str(), "A" | "B") {
                            // The side to move was not last: what follows it is
                            // the mistake.
                            format!(
                                "{after:?} follows the side to move {part:?}: only a score \
                                 may, as in `0,5,12 B 1-0`"
                            )
                        } else if part.contains('-') {
                            format!("{part:?} is not the last: a score goes at the end")
                        } else {
                            format!(
                                "{part:?} is not an edge: edges are numbered 0 to {}",
                                self.edges - 1
                            )
                        };
                        PositionError::malformed(text, why)
                    })?;
                    if state >> e & 1 != 0 {
                        return Err(PositionError::malformed(
                            text,
                            format!("edge {e} is listed twice"),
                        ));
                    }
                    state |= 1 << e;
                }
            }
        }
        let closed = self.boxes.iter().filter(|&&b| state & b == b).count() as u32;
        if let Some((a, b)) = score {
            if a.checked_add(b) != Some(closed) {
                return Err(PositionError::illegal(
                    text,
                    format!(
                        "the score {a}-{b} does not add up to the {closed} boxes these edges close"
                    ),
                ));
            }
        }
        Ok(Position {
            state,
            to_move: to_move.unwrap_or(Player::First),
            lead: score.map(|(a, b)| a as i32 - b as i32),
        })
    }

    /// The edges, the side to move and, when known, each side's boxes.
    fn format_full(&self, p: &Position) -> String {
        let mut out = self.format_position(p.state);
        out.push(' ');
        out.push_str(self.player_name(p.to_move));
        if let Some(lead) = p.lead {
            let closed = self.boxes.iter().filter(|&&b| p.state & b == b).count() as i32;
            // a + b = closed and a - b = lead.
            let a = (closed + lead) / 2;
            out.push_str(&format!(" {a}-{}", closed - a));
        }
        out
    }

    fn format_position(&self, state: u64) -> String {
        if state == 0 {
            return "none".to_owned();
        }
        let mut out = String::new();
        for e in 0..self.edges {
            if state >> e & 1 != 0 {
                if !out.is_empty() {
                    out.push(',');
                }
                out.push_str(&e.to_string());
            }
        }
        out
    }

    fn format_move(&self, mv: Move) -> String {
        mv.0.to_string()
    }

    fn parse_move(&self, state: u64, text: &str) -> Result<Move, PositionError> {
        let e = self.parse_edge(text).ok_or_else(|| {
            PositionError::malformed(text, format!("edges are numbered 0 to {}", self.edges - 1))
        })?;
        if state >> e & 1 != 0 {
            return Err(PositionError::illegal(
                text,
                format!("edge {e} is drawn already"),
            ));
        }
        Ok(Move(e as u16))
    }

    fn player_name(&self, player: Player) -> &'static str {
        match player {
            Player::First => "A",
            Player::Second => "B",
        }
    }

    fn player_pieces(&self, player: Player) -> &'static str {
        match player {
            Player::First => "moves first; each box closed scores and moves again",
            Player::Second => "moves second",
        }
    }

    fn score(&self, _state: u64, net: i32) -> i32 {
        net
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::Presentation;

    #[test]
    fn edges_are_numbered_as_published() {
        let g = DotsAndBoxes::new(2, 2).unwrap();
        assert_eq!(g.edge_count(), 12);
        // Box (0, 0): edges 0 (top), 2 (bottom), 6 (left), 7 (right).
        assert_eq!(g.box_masks()[0], 1 << 0 | 1 << 2 | 1 << 6 | 1 << 7);
        // Box (1, 1): edges 3, 5, 10, 11.
        assert_eq!(g.box_masks()[3], 1 << 3 | 1 << 5 | 1 << 10 | 1 << 11);
        assert_eq!(
            g.render(0),
            "+ 0 + 1 +\n6   7   8\n+ 2 + 3 +\n9   10  11\n+ 4 + 5 +"
        );
    }

    #[test]
    fn completing_a_box_scores_and_moves_again() {
        let g = DotsAndBoxes::new(1, 2).unwrap();
        // 1x2: edges 0,1 (top), 2,3 (bottom), 4,5,6 (verticals).
        let s = g.parse_position("0,2,4").unwrap();
        let mut out = Vec::new();
        g.moves(s, &mut out);
        let five = out.iter().find(|e| e.mv == Move(5)).unwrap();
        assert_eq!((five.reward, five.again), (1, true));
        let six = out.iter().find(|e| e.mv == Move(6)).unwrap();
        assert_eq!((six.reward, six.again), (0, false));
        // The middle edge can complete two boxes at once.
        let s = g.parse_position("0,1,2,3,4,6").unwrap();
        out.clear();
        g.moves(s, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].reward, out[0].again), (2, true));
    }

    #[test]
    fn canonical_keys_in_a_range_are_those_the_symmetries_say() {
        for (r, c) in [(2, 2), (2, 3), (3, 2), (1, 3)] {
            let g = DotsAndBoxes::new(r, c).unwrap();
            let all = 1u64 << g.edge_count();
            for (first, end) in [(0, all), (5, 300), (255, 257), (all - 700, all)] {
                let mut got = Vec::new();
                g.canonical_keys_in(first, end, &mut got);
                let want: Vec<u64> = (first..end).filter(|&k| g.canonical(k) == k).collect();
                assert_eq!(got, want, "{r}x{c} {first}..{end}");
                assert!(want.iter().all(|&k| g.is_canonical(k)));
            }
        }
    }

    #[test]
    fn symmetries_permute_edges_and_keep_boxes() {
        for (r, c) in [(1, 1), (2, 2), (2, 3), (3, 3), (1, 4)] {
            let g = DotsAndBoxes::new(r, c).unwrap();
            assert_eq!(g.symmetry_count(), if r == c { 8 } else { 4 });
            let mut boxes: Vec<u64> = g.box_masks().to_vec();
            boxes.sort_unstable();
            for s in 0..g.symmetry_count() {
                let mut perm = g.perms[s].clone();
                perm.sort_unstable();
                assert_eq!(perm, (0..g.edge_count()).collect::<Vec<_>>());
                let mut images: Vec<u64> =
                    g.box_masks().iter().map(|&b| g.transform(b, s)).collect();
                images.sort_unstable();
                assert_eq!(images, boxes, "{r}x{c} symmetry {s}");
            }
        }
    }

    #[test]
    fn positions_round_trip_and_errors_are_explained() {
        let g = DotsAndBoxes::new(3, 3).unwrap();
        let s = g.parse_position("0, 5,12").unwrap();
        assert_eq!(g.format_position(s), "0,5,12");
        assert_eq!(g.parse_position("none").unwrap(), 0);
        assert_eq!(g.format_position(0), "none");
        assert!(g.parse_position("24").is_err());
        assert!(g.parse_position("3,3").is_err());
        assert!(g.parse_position("a").is_err());
        assert!(g.parse_move(s, "5").is_err());
        assert_eq!(g.parse_move(s, "6").unwrap(), Move(6));
    }

    #[test]
    fn vector_kernels_match_the_plain_one() {
        use crate::core::NoProgress;
        use crate::solve::dense::{solve_block_generic, solve_dense, solve_dense_with, Block};
        for (r, c) in [
            (1, 1),
            (1, 2),
            (2, 1),
            (2, 2),
            (1, 3),
            (1, 5),
            (2, 3),
            (3, 2),
        ] {
            let g = DotsAndBoxes::new(r, c).unwrap();
            let plain = solve_dense_with(&g, &NoProgress, &|b: &mut Block<'_>| {
                solve_block_generic(&g, b)
            })
            .unwrap();
            let portable = solve_dense_with(&g, &NoProgress, &|b: &mut Block<'_>| {
                g.solve_block_portable(b)
            })
            .unwrap();
            let fast = solve_dense(&g, &NoProgress).unwrap();
            assert_eq!(plain.values(), portable.values(), "{r}x{c} portable");
            assert_eq!(plain.values(), fast.values(), "{r}x{c} dispatched");
            assert_eq!(plain.values()[(1 << g.edge_count()) - 1], 0);
        }
    }

    #[test]
    fn variants_parse() {
        assert_eq!(DotsAndBoxes::from_variant("").unwrap().desc.variant, "3x3");
        assert_eq!(
            DotsAndBoxes::from_variant("2X3").unwrap().desc.variant,
            "2x3"
        );
        assert_eq!(DotsAndBoxes::from_variant("3x4").unwrap().edge_count(), 31);
        let big = DotsAndBoxes::from_variant("4x4").unwrap();
        assert_eq!(big.edge_count(), 40);
        assert!(!big.has_table());
        assert!(!big.descriptor().dense);
        // 40 key bits, a sign and 5 bits for up to 16 boxes, 6 for 40 edges.
        assert_eq!(big.descriptor().storage_error(), None);
        assert_eq!(
            (
                big.descriptor().value_bits,
                big.descriptor().remoteness_bits
            ),
            (6, 6)
        );
        assert_eq!(DotsAndBoxes::from_variant("4x5").unwrap().edge_count(), 49);
        // 5x5 is searched, but its records would not fit 64 bits.
        assert!(DotsAndBoxes::from_variant("5x5")
            .unwrap()
            .descriptor()
            .storage_error()
            .is_some());
        assert!(DotsAndBoxes::from_variant("5x6").is_err());
        assert!(DotsAndBoxes::from_variant("0x2").is_err());
        assert_eq!(DotsAndBoxes::from_variant("1x10").unwrap().edge_count(), 31);
        assert!(!DotsAndBoxes::from_variant("1x11").unwrap().has_table());
        assert!(DotsAndBoxes::from_variant("1x21").is_err());
        assert!(DotsAndBoxes::from_variant("4294967295x4294967295").is_err());
        assert!(DotsAndBoxes::from_variant("big").is_err());
    }
}
