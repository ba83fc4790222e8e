//! The opening book: every mirror-canonical position of up to `depth`
//! stones with its exact value, as a partial database.
//!
//! 1. Enumerate the layers forward: layer `k + 1` is the canonical children
//!    of layer `k`'s positions that are not over (a four or a full board
//!    ends the game, so a won position is in the book as an end), sorted
//!    and deduplicated, in parallel.
//! 2. Search only the deepest layer, position by position, with the exact
//!    solver. The search threads share one transposition table, never
//!    cleared between positions: the positions of one layer, taken in key
//!    order by all threads together, share most of their subtrees. Results are appended to a checkpoint
//!    file in batches and fsynced, so an interrupted run resumes where it
//!    stopped.
//! 3. Derive every shallower position's value by minimax over its children,
//!    which are all in the next layer.
//!
//! The book is written like any sorted database, without the complete flag
//! (unless the depth covers the whole board): a position deeper than the
//! book is then reported as not in the database rather than unreachable.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::board::Position;
use super::game::ConnectFour;
use super::solver::{Solver, TableSizeError};
use crate::db::layout::{LayoutOverflow, RecordLayout};
use crate::game::{Edge, Game};
use crate::solver::{Progress, Solution};
use crate::value::Value;

/// How to build a book.
#[derive(Clone, Debug)]
pub struct BookOptions {
    /// The deepest layer: positions of at most this many stones (capped at
    /// the number of cells).
    pub depth: u32,
    /// Where to keep the searched part of the deepest layer while the book
    /// is built (see [`checkpoint_path`]); `None` keeps nothing.
    pub checkpoint: Option<PathBuf>,
    /// Search threads, each with a solver on the shared table (at least one).
    pub searchers: usize,
    /// `log2` of the entries of the transposition table the search threads
    /// share.
    pub table_bits: u32,
}

impl BookOptions {
    /// A book of `depth` stones: no checkpoint, one search thread per rayon
    /// thread, a shared table of 2^26 entries (512 MiB, mapped as it fills).
    pub fn new(depth: u32) -> BookOptions {
        BookOptions {
            depth,
            checkpoint: None,
            searchers: rayon::current_num_threads().max(1),
            table_bits: 26,
        }
    }
}

/// Why a book could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    /// The checkpoint file could not be read or written.
    #[error("checkpoint {}: {error}", path.display())]
    Checkpoint {
        /// The checkpoint file.
        path: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
    /// The table size is out of range.
    #[error(transparent)]
    TableSize(#[from] TableSizeError),
    /// A value does not fit the record layout (a bug).
    #[error(transparent)]
    Overflow(#[from] LayoutOverflow),
    /// A child of a book position is missing from the next layer (a bug).
    #[error("child {child:#x} of book position {state:#x} is missing from the next layer")]
    MissingChild {
        /// The parent.
        state: u64,
        /// The child's canonical key.
        child: u64,
    },
    /// A search thread panicked.
    #[error("a search thread failed")]
    SearchThread,
}

/// The checkpoint file of a book of `depth` written to `output`:
/// `OUTPUT.partial-depthN` beside it.
pub fn checkpoint_path(output: &Path, depth: u32) -> PathBuf {
    let mut name = output.as_os_str().to_owned();
    name.push(format!(".partial-depth{depth}"));
    PathBuf::from(name)
}

/// Canonical positions per parallel work item.
const CHUNK: usize = 4096;

/// Builds the opening book of `game` (see the module documentation).
pub fn build_book(
    game: &ConnectFour,
    options: &BookOptions,
    progress: &dyn Progress,
) -> Result<Solution, BookError> {
    let v = game.variant();
    let depth = options.depth.min(v.cells()) as usize;
    let layout = RecordLayout::for_game(game.descriptor());
    let start = game.canonical(game.start());

    // 1. The layers, forward.
    progress.start_phase("enumerate", depth as u64);
    let mut layers: Vec<Vec<u64>> = vec![vec![start]];
    for _ in 0..depth {
        let prev = layers.last().map_or(&[][..], |l| &l[..]);
        let mut next: Vec<u64> = prev
            .par_chunks(CHUNK)
            .flat_map_iter(|chunk| {
                let mut out = Vec::with_capacity(chunk.len() * v.width() as usize);
                for &key in chunk {
                    let Some(p) = game.position(key) else {
                        continue;
                    };
                    if p.is_over() {
                        continue;
                    }
                    for c in 0..v.width() {
                        if let Ok(child) = p.play(c) {
                            out.push(child.canonical_key());
                        }
                    }
                }
                out
            })
            .collect();
        next.par_sort_unstable();
        next.dedup();
        layers.push(next);
        progress.advance(1);
    }
    progress.finish_phase();

    // 2. The deepest layer, by search.
    let deepest = &layers[depth];
    let scores = search_layer(game, deepest, depth as u32, options, progress)?;
    let mut values: Vec<Value> = deepest
        .iter()
        .zip(&scores)
        .map(|(&key, &score)| match game.position(key) {
            Some(p) => game.value_of_score(&p, score),
            None => Value::TERMINAL,
        })
        .collect();

    // 3. Every shallower layer, by minimax over its children.
    progress.start_phase("minimax", depth as u64);
    let mut all_values: Vec<Vec<Value>> = Vec::with_capacity(depth + 1);
    for k in (0..depth).rev() {
        let next_keys = &layers[k + 1];
        let next_values = &values;
        let layer_values: Vec<Value> = layers[k]
            .par_chunks(CHUNK)
            .flat_map_iter(|chunk| {
                let mut edges: Vec<Edge> = Vec::with_capacity(16);
                chunk
                    .iter()
                    .map(|&key| {
                        edges.clear();
                        game.canonical_children(key, &mut edges);
                        let mut best: Option<Value> = None;
                        for e in &edges {
                            let i = next_keys.binary_search(&e.child).map_err(|_| {
                                BookError::MissingChild {
                                    state: key,
                                    child: e.child,
                                }
                            })?;
                            let through = Value::through(e, next_values[i]);
                            if best.is_none_or(|b| through.better_than(b)) {
                                best = Some(through);
                            }
                        }
                        Ok(best.unwrap_or(Value::TERMINAL))
                    })
                    .collect::<Vec<Result<Value, BookError>>>()
            })
            .collect::<Result<_, _>>()?;
        all_values.push(std::mem::replace(&mut values, layer_values));
        progress.advance(1);
    }
    all_values.push(values);
    all_values.reverse();
    progress.finish_phase();

    // 4. Records, sorted by key.
    progress.start_phase("sort", 1);
    let layer_sizes: Vec<usize> = layers.iter().map(Vec::len).collect();
    let mut records = Vec::with_capacity(layer_sizes.iter().sum());
    for (keys, values) in layers.iter().zip(&all_values) {
        for (&key, &value) in keys.iter().zip(values) {
            records.push(layout.pack(key, value)?);
        }
    }
    records.par_sort_unstable();
    progress.advance(1);
    progress.finish_phase();
    Ok(Solution {
        records,
        layout,
        start,
        layer_sizes,
        // Only a book of the whole board holds every reachable state.
        complete: depth as u32 == v.cells(),
    })
}

/// Magic bytes at the start of a checkpoint file.
const MAGIC: &[u8; 8] = b"C4BOOK01";
/// Header: magic, width, height, depth (`u32` each, little-endian), and
/// four bytes of zeros.
const HEADER_LEN: usize = 24;
/// Record: the canonical key (`u64`) and the score (`i64`), little-endian.
const RECORD_LEN: usize = 16;

fn checkpoint_header(game: &ConnectFour, depth: u32) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&game.variant().width().to_le_bytes());
    h[12..16].copy_from_slice(&game.variant().height().to_le_bytes());
    h[16..20].copy_from_slice(&depth.to_le_bytes());
    h
}

/// An open checkpoint: the scores it held, and the file to append to.
struct Checkpoint {
    path: PathBuf,
    file: File,
    done: Vec<(u64, i32)>,
}

impl Checkpoint {
    /// Opens (or starts) the checkpoint at `path`. A file of another board
    /// or depth, or not a checkpoint at all, is started afresh; a record cut
    /// short by a crash is dropped.
    fn open(path: &Path, game: &ConnectFour, depth: u32) -> Result<Checkpoint, BookError> {
        let io = |error| BookError::Checkpoint {
            path: path.to_path_buf(),
            error,
        };
        let header = checkpoint_header(game, depth);
        let mut bytes = Vec::new();
        match File::open(path) {
            Ok(mut f) => {
                f.read_to_end(&mut bytes).map_err(io)?;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(e)),
        }
        let limit = (game.variant().cells() as i64 + 1) / 2;
        let mut done = Vec::new();
        let valid = bytes.len() >= HEADER_LEN && bytes[..HEADER_LEN] == header;
        if valid {
            for r in bytes[HEADER_LEN..].chunks_exact(RECORD_LEN) {
                let key = u64::from_le_bytes(r[..8].try_into().unwrap_or_default());
                let score = i64::from_le_bytes(r[8..].try_into().unwrap_or_default());
                // A score out of range is damage: search that position again.
                if score.abs() <= limit {
                    done.push((key, score as i32));
                }
            }
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(io)?;
        if valid {
            let whole = HEADER_LEN + (bytes.len() - HEADER_LEN) / RECORD_LEN * RECORD_LEN;
            file.set_len(whole as u64).map_err(io)?;
            file.seek(SeekFrom::End(0)).map_err(io)?;
        } else {
            file.set_len(0).map_err(io)?;
            file.write_all(&header).map_err(io)?;
            file.sync_all().map_err(io)?;
        }
        Ok(Checkpoint {
            path: path.to_path_buf(),
            file,
            done,
        })
    }

    /// Appends scores and makes them durable.
    fn append(&mut self, batch: &[(u64, i32)]) -> Result<(), BookError> {
        let mut bytes = Vec::with_capacity(batch.len() * RECORD_LEN);
        for &(key, score) in batch {
            bytes.extend_from_slice(&key.to_le_bytes());
            bytes.extend_from_slice(&i64::from(score).to_le_bytes());
        }
        let io = |error| BookError::Checkpoint {
            path: self.path.clone(),
            error,
        };
        self.file.write_all(&bytes).map_err(io)?;
        self.file.sync_data().map_err(io)
    }
}

/// Positions a search thread takes at a time.
const SEARCH_BATCH: usize = 8;
/// How often found scores are written to the checkpoint.
const FLUSH_EVERY: Duration = Duration::from_secs(2);

/// The Connect Four score of every position of `keys` (the deepest layer,
/// `depth` stones), in order, 0 for finished positions; the others are
/// searched with [`Solver::solve`], reusing and extending the checkpoint.
fn search_layer(
    game: &ConnectFour,
    keys: &[u64],
    depth: u32,
    options: &BookOptions,
    progress: &dyn Progress,
) -> Result<Vec<i32>, BookError> {
    let v = game.variant();
    // Finished positions keep 0: their book value is an end whatever the
    // score (see `ConnectFour::value_of_score`).
    let mut scores = vec![0i32; keys.len()];
    let mut checkpoint = match &options.checkpoint {
        Some(path) => Some(Checkpoint::open(path, game, depth)?),
        None => None,
    };
    let mut found = vec![false; keys.len()];
    if let Some(cp) = &checkpoint {
        for &(key, score) in &cp.done {
            if let Ok(i) = keys.binary_search(&key) {
                scores[i] = score;
                found[i] = true;
            }
        }
    }
    let mut todo = Vec::new();
    for (i, &key) in keys.iter().enumerate() {
        if found[i] {
            continue;
        }
        match Position::from_key(v, key) {
            // An end needs no search (and is not checkpointed).
            Some(p) if p.is_over() => {}
            Some(_) => todo.push(i),
            None => {}
        }
    }
    let total = todo.len() as u64;
    progress.start_phase("search", total);
    let searchers = options.searchers.max(1).min(todo.len().max(1));
    let next = AtomicUsize::new(0);
    // One table for all: neighbouring positions, searched at the same time
    // by different threads, share most of their subtrees.
    let first = Solver::with_table_bits(options.table_bits)?;
    let mut solvers: Vec<Solver> = (1..searchers).map(|_| first.sharing()).collect();
    solvers.push(first);
    let (tx, rx) = mpsc::channel::<Vec<(usize, i32)>>();
    let result = std::thread::scope(|scope| -> Result<(), BookError> {
        let mut handles = Vec::new();
        for mut solver in solvers {
            let tx = tx.clone();
            let (todo, next) = (&todo, &next);
            handles.push(scope.spawn(move || loop {
                let from = next.fetch_add(SEARCH_BATCH, Ordering::Relaxed);
                if from >= todo.len() {
                    break;
                }
                let to = (from + SEARCH_BATCH).min(todo.len());
                let batch: Vec<(usize, i32)> = todo[from..to]
                    .iter()
                    .filter_map(|&i| {
                        let p = Position::from_key(v, keys[i])?;
                        Some((i, solver.solve(&p)))
                    })
                    .collect();
                if tx.send(batch).is_err() {
                    break;
                }
            }));
        }
        drop(tx);
        let mut pending: Vec<(u64, i32)> = Vec::new();
        let mut last_flush = Instant::now();
        let mut outcome = Ok(());
        for batch in rx {
            progress.advance(batch.len() as u64);
            for (i, score) in batch {
                scores[i] = score;
                pending.push((keys[i], score));
            }
            if last_flush.elapsed() >= FLUSH_EVERY {
                if let Some(cp) = &mut checkpoint {
                    if let Err(e) = cp.append(&pending) {
                        // Stop the searchers: the work would be lost anyway.
                        next.store(todo.len(), Ordering::Relaxed);
                        outcome = Err(e);
                        break;
                    }
                }
                pending.clear();
                last_flush = Instant::now();
            }
        }
        if outcome.is_ok() {
            if let Some(cp) = &mut checkpoint {
                outcome = cp.append(&pending);
            }
        }
        for h in handles {
            if h.join().is_err() {
                outcome = outcome.and(Err(BookError::SearchThread));
            }
        }
        outcome
    });
    progress.finish_phase();
    result?;
    Ok(scores)
}
