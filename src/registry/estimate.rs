//! What a `generator` run costs, told before it starts: the time and the
//! peak memory, from runs measured on this project's machine (2 cores of an
//! AMD EPYC, `docs/performance.md`), scaled by the size of the work. An
//! estimate is meant to be within a factor of two; sizes nobody measured
//! get none.

use super::{AnyGame, DatabaseKind};

/// The cost of a run, as measured or scaled from measurements.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// Processor time, in seconds, all threads together.
    pub cpu_seconds: f64,
    /// How much of the work runs in parallel: wall time is about
    /// `cpu_seconds / min(threads, parallelism)`.
    pub parallelism: f64,
    /// Peak resident memory, in bytes.
    pub peak_bytes: u64,
}

impl Estimate {
    /// The wall time on `threads` threads, in seconds.
    pub fn wall_seconds(&self, threads: usize) -> f64 {
        self.cpu_seconds / (threads.max(1) as f64).min(self.parallelism.max(1.0))
    }
}

const MB: u64 = 1 << 20;

/// Connect Four 7x6 books by depth, with the default table (2^26 entries):
/// CPU seconds of the whole build, and the positions searched in parallel.
const CONNECT_FOUR_BOOK: &[(u32, f64, f64)] = &[
    (0, 58.0, 1.0),
    (1, 120.0, 1.6),
    (2, 290.0, 2.0),
    (3, 600.0, 2.0),
    (4, 800.0, 2.0),
    (8, 11_926.0, 2.0),
];

/// Dandelions 5x5 books by depth: CPU seconds, and the states of the book
/// (its memory grows with them).
const DANDELIONS_BOOK: &[(u32, f64, u64)] = &[
    (4, 78.0, 4_157),
    (5, 88.0, 72_639),
    (6, 284.0, 392_805),
    (7, 409.0, 5_581_130),
    (8, 870.0, 20_226_648),
    (9, 1_890.0, 195_032_592),
];

impl AnyGame {
    /// What `generator` would cost for this game: a book of `depth` moves
    /// (for a game whose database is a book) searched with tables of
    /// `2^table_bits` words on `threads` threads. `None` when no measured
    /// run tells.
    pub fn estimate(&self, depth: u32, table_bits: u32, threads: usize) -> Option<Estimate> {
        let searchers = threads.max(1) as u64;
        match (self, self.database_kind()) {
            (AnyGame::BritishSquare(g), _) => Some(match g.side() {
                5 => Estimate {
                    cpu_seconds: 1.0,
                    parallelism: 1.5,
                    peak_bytes: 230 * MB,
                },
                _ => Estimate {
                    cpu_seconds: 0.05,
                    parallelism: 1.0,
                    peak_bytes: 10 * MB,
                },
            }),
            // Past the tables, a book's searches have no measured model.
            (AnyGame::DotsAndBoxes(g), DatabaseKind::Book { .. }) if !g.has_table() => None,
            (AnyGame::DotsAndBoxes(g), _) => {
                // Every edge set has one byte, and costs about 5 ns; the
                // solve runs on every thread, the write and read-back of
                // the file (a third of the time) on one.
                let entries = (1u64 << g.edge_count()) as f64;
                Some(Estimate {
                    cpu_seconds: 0.02 + entries * 5e-9,
                    parallelism: 1.2,
                    peak_bytes: (entries as u64) + 10 * MB,
                })
            }
            // The small boards of the book games, solved completely:
            // Connect Four 4x4 takes 0.02 s, Dandelions 4x4 15 s of CPU and
            // 1.1 GB (its plain solver holds every edge), 3x3 0.03 s.
            (AnyGame::Dandelions(g), DatabaseKind::Complete) if g.geometry().side() == 4 => {
                Some(Estimate {
                    cpu_seconds: 15.0,
                    parallelism: 1.5,
                    peak_bytes: 1100 * MB,
                })
            }
            (_, DatabaseKind::Complete) => Some(Estimate {
                cpu_seconds: 0.05,
                parallelism: 1.0,
                peak_bytes: 10 * MB,
            }),
            (AnyGame::ConnectFour(g), DatabaseKind::Book { .. }) => {
                if g.variant().to_string() != "7x6" {
                    return None;
                }
                let &(_, cpu, parallel) = CONNECT_FOUR_BOOK.iter().find(|r| r.0 == depth)?;
                // One table of 8-byte entries shared by all searchers,
                // touched all over by a search of any length.
                Some(Estimate {
                    cpu_seconds: cpu,
                    parallelism: parallel,
                    peak_bytes: (8u64 << table_bits) + 20 * MB,
                })
            }
            (AnyGame::Dandelions(g), DatabaseKind::Book { .. }) => {
                if g.geometry().side() != 5 {
                    return None;
                }
                let &(_, cpu, states) = DANDELIONS_BOOK.iter().find(|r| r.0 == depth)?;
                // A table per searcher, and about 40 bytes a state while
                // the layers are built, deduplicated and sorted.
                Some(Estimate {
                    cpu_seconds: cpu,
                    parallelism: 2.0,
                    peak_bytes: searchers * (8u64 << table_bits) + states * 40 + 20 * MB,
                })
            }
        }
    }
}
