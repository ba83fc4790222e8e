//! British Square's side of the bucketed solver: states bucketed by the
//! number of pieces in each orbit of cells, a placement's class the orbit of
//! its cell.

use super::children::Emit;
use super::BritishSquare;
use crate::core::{Edge, Game, Move, Progress, Solved};
use crate::games::solvers::Solvers;
use crate::solve::complete::buckets::{BucketScheme, Bucketed, ClassSink};
use crate::solve::ranks::{Exchange, RankSolution};
use crate::solve::{self, SolveError};

/// Every board in buckets of positions with the same pieces per orbit of
/// cells: the bucketed solver, on one process or on ranks.
impl Solvers for BritishSquare {
    fn run_solver(&self, progress: &dyn Progress) -> Result<Solved, SolveError> {
        solve::bucketed::solve(self, progress).map(Solved::from)
    }

    fn run_solver_on_ranks(
        &self,
        ex: &dyn Exchange,
        progress: &dyn Progress,
    ) -> Option<Result<RankSolution, SolveError>> {
        Some(solve::complete::ranks_bucketed::solve(self, ex, progress))
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

#[cfg(test)]
mod tests {
    use super::super::simd::Simd;
    use super::*;

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
}
