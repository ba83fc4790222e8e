//! The solvers on ranks (threads here) against the one-process solvers.

use super::*;
use crate::core::NoProgress;
use crate::games::british_square::BritishSquare;
use crate::solve::complete::threads::Threads;

fn on_threads(game: &BritishSquare, ranks: usize) -> Vec<RankSolution> {
    on_threads_with(game, ranks, &|g, ex| solve(g, ex, &NoProgress).unwrap())
}

fn on_threads_with(
    game: &BritishSquare,
    ranks: usize,
    solver: &(dyn Fn(&BritishSquare, &Threads) -> RankSolution + Sync),
) -> Vec<RankSolution> {
    crate::solve::complete::threads::on_threads(ranks, |ex| solver(game, ex))
}

#[test]
fn ranks_give_the_one_process_records() {
    let bucketed = |g: &BritishSquare, ex: &Threads| {
        crate::solve::complete::ranks_bucketed::solve(g, ex, &NoProgress).unwrap()
    };
    for variant in ["3x3", "4x4", "4x4,center-allowed"] {
        let game = BritishSquare::from_variant(variant).unwrap();
        let one = crate::solve::solve(&game, &NoProgress).unwrap();
        for (ranks, by_bucket) in [
            (1, false),
            (2, false),
            (3, false),
            (1, true),
            (2, true),
            (3, true),
        ] {
            let parts = if by_bucket {
                on_threads_with(&game, ranks, &bucketed)
            } else {
                on_threads(&game, ranks)
            };
            let mut before = 0;
            let mut records = Vec::new();
            for p in &parts {
                assert_eq!(p.records_before, before);
                assert_eq!(p.total_records, one.records.len() as u64);
                assert_eq!(p.layer_sizes, one.layer_sizes);
                assert_eq!(p.start, one.start);
                before += p.records.len() as u64;
                records.extend_from_slice(&p.records);
            }
            assert_eq!(
                records, one.records,
                "{variant} on {ranks} ranks, {by_bucket}"
            );
        }
    }
}

/// A dense table in memory, as rank 0's output.
struct TableOutput {
    table: Vec<i8>,
    written: usize,
    done: u32,
    marked: Vec<u32>,
}

impl crate::solve::dense::DenseOutput for TableOutput {
    fn waves_done(&self) -> u32 {
        self.done
    }
    fn write_block(&mut self, first: u64, values: &[i8]) -> Result<(), SolveError> {
        let at = first as usize;
        self.table[at..at + values.len()].copy_from_slice(values);
        self.written += values.len();
        Ok(())
    }
    fn read_block(&mut self, first: u64, values: &mut [i8]) -> Result<(), SolveError> {
        let at = first as usize;
        values.copy_from_slice(&self.table[at..at + values.len()]);
        Ok(())
    }
    fn wave_done(&mut self, waves: u32) -> Result<(), SolveError> {
        self.marked.push(waves);
        Ok(())
    }
}

#[test]
fn dense_ranks_give_the_one_process_table_and_resume_after_any_wave() {
    use crate::games::dots_and_boxes::DotsAndBoxes;
    use crate::solve::dense::{solve_dense, solve_dense_on_ranks};
    for variant in ["2x2", "2x3", "3x3"] {
        let game = DotsAndBoxes::from_variant(variant).unwrap();
        let one = solve_dense(&game, &NoProgress).unwrap();
        let n = game.descriptor().key_bits;
        let waves = n.saturating_sub(crate::solve::dense::BLOCK_BITS) + 1;
        for ranks in [1, 2, 3] {
            // A fresh run, then runs that find some waves done: the
            // entries of keys with at least `high_bits + 1 - done` high
            // bits set are the finished ones, the rest is garbage.
            for done in [0, 1, waves / 2, waves] {
                let bits = n.min(crate::solve::dense::BLOCK_BITS);
                let table: Vec<i8> = one
                    .values()
                    .iter()
                    .enumerate()
                    .map(|(k, &v)| {
                        let high = (k as u64 >> bits).count_ones();
                        if high + done > waves - 1 {
                            v
                        } else {
                            0x55
                        }
                    })
                    .collect();
                let out = std::sync::Mutex::new(TableOutput {
                    table,
                    written: 0,
                    done,
                    marked: Vec::new(),
                });
                let summaries = crate::solve::complete::threads::on_threads(ranks, |ex| {
                    if ex.rank() == 0 {
                        let mut out = out.lock().unwrap();
                        solve_dense_on_ranks(&game, ex, &NoProgress, Some(&mut *out)).unwrap()
                    } else {
                        solve_dense_on_ranks(&game, ex, &NoProgress, None).unwrap()
                    }
                });
                let summary = &summaries[0];
                assert_eq!(summary.start, one.start);
                assert_eq!(summary.layout, one.layout);
                assert_eq!((summary.waves_resumed, summary.waves), (done, waves));
                // Blocks move between ranks once there are several.
                if done == 0 && (ranks == 1 || variant == "3x3") {
                    assert_eq!(summary.bytes_sent == 0, ranks == 1);
                }
                let out = out.into_inner().unwrap();
                let what = format!("{variant} on {ranks} ranks after {done} waves");
                assert!(out.table == one.values(), "{what}");
                assert_eq!(out.marked, (done + 1..=waves).collect::<Vec<_>>(), "{what}");
                if done == 0 {
                    assert_eq!(out.written, out.table.len(), "{what}");
                }
            }
        }
    }
}

#[test]
fn owners_spread_keys_evenly() {
    for ranks in [2, 3, 7] {
        let mut counts = vec![0usize; ranks];
        for key in 0..30_000u64 {
            counts[owner(key << 3, ranks)] += 1;
        }
        let even = 30_000 / ranks;
        assert!(
            counts.iter().all(|&c| c.abs_diff(even) < even / 10),
            "{counts:?}"
        );
    }
}
