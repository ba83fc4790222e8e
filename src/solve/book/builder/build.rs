//! Building a book: the layers forward, the deepest searched (with its
//! checkpoint), the rest derived backward (see the parent module).

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::core::layout::RecordLayout;
use crate::core::{Edge, Game, Progress, Solution, Value};

use crate::solve::book::{check_checkpoint_path, BookError, BookGame, BookOptions};
use crate::solve::complete::index::SortedIndex;

/// Canonical states per parallel work item.
const CHUNK: usize = 4096;

/// Builds the opening book of `game` (see the module documentation).
pub fn build_book<G: BookGame>(
    game: &G,
    options: &BookOptions,
    progress: &dyn Progress,
) -> Result<Solution, BookError> {
    game.check_book_depth(options.depth)?;
    let last = game.layer_count().saturating_sub(1);
    let depth = (options.depth as usize).min(last);
    let layout = RecordLayout::for_game(game.descriptor());
    let start = game.canonical(game.start());

    // 1. The layers, forward: one phase per layer, counted in parents
    // (the last layers hold nearly all the states).
    let mut layers: Vec<Vec<u64>> = vec![vec![start]];
    for k in 0..depth {
        let prev = layers.last().map_or(&[][..], |l| &l[..]);
        progress.start_phase(&format!("layer {}", k + 1), prev.len() as u64);
        let mut next: Vec<u64> = prev
            .par_chunks(CHUNK)
            .flat_map_iter(|chunk| {
                let mut edges: Vec<Edge> = Vec::with_capacity(32);
                let mut out = Vec::with_capacity(chunk.len() * 8);
                for &key in chunk {
                    edges.clear();
                    game.canonical_children(key, &mut edges);
                    out.extend(edges.iter().map(|e| e.child));
                }
                progress.advance(chunk.len() as u64);
                out
            })
            .collect();
        next.par_sort_unstable();
        next.dedup();
        layers.push(next);
        progress.finish_phase();
    }

    // 2. The deepest layer, by search.
    let deepest = &layers[depth];
    let (mut values, all_final) =
        search_layer(game, deepest, depth as u32, &layout, options, progress)?;

    // 3. Every shallower layer, by minimax over its children.
    let mut all_values: Vec<Vec<Value>> = Vec::with_capacity(depth + 1);
    for k in (0..depth).rev() {
        progress.start_phase(&format!("minimax {k}"), layers[k].len() as u64);
        let next_keys = SortedIndex::new(&layers[k + 1]);
        let next_values = &values;
        let layer_values: Vec<Value> = layers[k]
            .par_chunks(CHUNK)
            .flat_map_iter(|chunk| {
                let mut edges: Vec<Edge> = Vec::with_capacity(32);
                let values = chunk
                    .iter()
                    .map(|&key| {
                        edges.clear();
                        game.canonical_children(key, &mut edges);
                        let mut best: Option<Value> = None;
                        for e in &edges {
                            let i = next_keys.find(e.child).ok_or(BookError::MissingChild {
                                state: key,
                                child: e.child,
                            })?;
                            let through = Value::through(e, next_values[i]);
                            if best.is_none_or(|b| through.better_than(b)) {
                                best = Some(through);
                            }
                        }
                        Ok(best.unwrap_or(Value::TERMINAL))
                    })
                    .collect::<Vec<Result<Value, BookError>>>();
                progress.advance(chunk.len() as u64);
                values
            })
            .collect::<Result<_, _>>()?;
        all_values.push(std::mem::replace(&mut values, layer_values));
        progress.finish_phase();
    }
    all_values.push(values);
    all_values.reverse();

    // 4. Records, sorted by key.
    let layer_sizes: Vec<usize> = layers.iter().map(Vec::len).collect();
    let pairs = layers
        .iter()
        .zip(&all_values)
        .flat_map(|(keys, values)| keys.iter().copied().zip(values.iter().copied()));
    let records = crate::solve::complete::layered::sorted_records(
        pairs,
        layer_sizes.iter().sum(),
        &layout,
        progress,
    )?;
    Ok(Solution {
        records,
        layout,
        start,
        layer_sizes,
        // Only a book whose deepest states all end the game holds every
        // state.
        complete: all_final,
    })
}

/// Magic bytes at the start of a checkpoint file (the format's version is
/// its last digit).
const MAGIC: &[u8; 8] = b"BOOKCKP2";
/// Header: magic, game id and depth (`u32` each, little-endian), the xxh3-64
/// of the build's identity (the game's name and variant and its record
/// layout) and the xxh3-64 of the 24 bytes before it.
const HEADER_LEN: usize = 32;
/// Record: the database record (key and value, packed by the game's record
/// layout), little-endian.
const RECORD_LEN: usize = 8;
/// A chunk, as each flush appends one: the number of records `n` (`u32`,
/// little-endian) and 4 zero bytes, the `n` records, and the xxh3-64 of the
/// `8 + 8 n` bytes before it.
const CHUNK_HEAD: usize = 8;
const CHUNK_TAIL: usize = 8;
/// The most records a chunk may hold: a count beyond it is damage.
const MAX_CHUNK: usize = 1 << 24;

fn checkpoint_header(game: &dyn Game, depth: u32) -> [u8; HEADER_LEN] {
    let desc = game.descriptor();
    let mut h = [0u8; HEADER_LEN];
    h[..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&desc.id.to_le_bytes());
    h[12..16].copy_from_slice(&depth.to_le_bytes());
    let identity = format!(
        "{}\0{}\0{} {} {}",
        desc.name, desc.variant, desc.key_bits, desc.value_bits, desc.remoteness_bits
    );
    h[16..24].copy_from_slice(&xxhash_rust::xxh3::xxh3_64(identity.as_bytes()).to_le_bytes());
    let sum = xxhash_rust::xxh3::xxh3_64(&h[..24]);
    h[24..32].copy_from_slice(&sum.to_le_bytes());
    h
}

/// What a checkpoint file holds, read.
enum Contents {
    /// The records of its whole chunks, and the length of those bytes (a
    /// chunk cut short by a crash is left out).
    Valid { done: Vec<u64>, len: usize },
    /// Not this build's checkpoint, or damaged: why.
    Unusable(String),
}

/// Reads a checkpoint's bytes: its header must be `header`, and every whole
/// chunk must match its checksum.
fn parse_checkpoint(bytes: &[u8], header: &[u8; HEADER_LEN]) -> Contents {
    if bytes.len() < HEADER_LEN || bytes[..8] != MAGIC[..] {
        return Contents::Unusable("not a checkpoint of this build".into());
    }
    if bytes[..HEADER_LEN] != header[..] {
        return Contents::Unusable(
            "a checkpoint of another game, variant or depth, or damaged".into(),
        );
    }
    let mut done = Vec::new();
    let mut at = HEADER_LEN;
    while let Some(head) = bytes.get(at..at + CHUNK_HEAD) {
        let n = u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as usize;
        if n > MAX_CHUNK || head[4..] != [0; 4] {
            return Contents::Unusable(format!("a damaged chunk at byte {at}"));
        }
        let end = at + CHUNK_HEAD + n * RECORD_LEN;
        let Some(tail) = bytes.get(end..end + CHUNK_TAIL) else {
            // Cut short by a crash: the chunks before it are whole.
            break;
        };
        let sum = u64::from_le_bytes(tail.try_into().unwrap_or_default());
        if xxhash_rust::xxh3::xxh3_64(&bytes[at..end]) != sum {
            return Contents::Unusable(format!("a chunk at byte {at} fails its checksum"));
        }
        done.extend(
            bytes[at + CHUNK_HEAD..end]
                .chunks_exact(RECORD_LEN)
                .map(|r| u64::from_le_bytes(r.try_into().unwrap_or_default())),
        );
        at = end + CHUNK_TAIL;
    }
    Contents::Valid { done, len: at }
}

/// An open checkpoint: the records it held, and the file to append to.
pub(super) struct Checkpoint {
    path: PathBuf,
    file: File,
    /// The records it held when it was opened.
    pub(super) done: Vec<u64>,
}

impl Checkpoint {
    /// Opens (or starts) the checkpoint at `path`. A chunk cut short by a
    /// crash is dropped. A file of another game, variant or depth, or a
    /// damaged one, is set aside (renamed `PATH.unusable`, which `note`
    /// reports) and the search starts over. A path that is not a regular
    /// file (a symbolic link, a device, a named pipe) is refused: the
    /// checkpoint is only ever written where a file of its own can be.
    pub(super) fn open(
        path: &Path,
        game: &dyn Game,
        depth: u32,
        note: &dyn Fn(&str),
    ) -> Result<Checkpoint, BookError> {
        let io = |error| BookError::Checkpoint {
            path: path.to_path_buf(),
            error,
        };
        let header = checkpoint_header(game, depth);
        match std::fs::symlink_metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(e)),
            Ok(m) if m.is_file() => {
                let mut file = open_no_follow(path).map_err(io)?;
                let mut bytes = Vec::new();
                file.read_to_end(&mut bytes).map_err(io)?;
                match parse_checkpoint(&bytes, &header) {
                    Contents::Valid { done, len } => {
                        file.set_len(len as u64).map_err(io)?;
                        file.seek(SeekFrom::End(0)).map_err(io)?;
                        return Ok(Checkpoint {
                            path: path.to_path_buf(),
                            file,
                            done,
                        });
                    }
                    Contents::Unusable(why) => {
                        let mut aside = path.as_os_str().to_owned();
                        aside.push(".unusable");
                        let aside = PathBuf::from(aside);
                        std::fs::rename(path, &aside).map_err(io)?;
                        note(&format!(
                            "checkpoint {}: {why}: set aside as {}; the search starts over",
                            path.display(),
                            aside.display()
                        ));
                    }
                }
            }
            Ok(_) => check_checkpoint_path(path)?,
        }
        // A new checkpoint, created where nothing is (never through a link).
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(io)?;
        file.write_all(&header).map_err(io)?;
        file.sync_all().map_err(io)?;
        Ok(Checkpoint {
            path: path.to_path_buf(),
            file,
            done: Vec::new(),
        })
    }

    /// Appends records as one chunk and makes them durable.
    pub(super) fn append(&mut self, batch: &[u64]) -> Result<(), BookError> {
        if batch.is_empty() {
            return Ok(());
        }
        let io = |error| BookError::Checkpoint {
            path: self.path.clone(),
            error,
        };
        for part in batch.chunks(MAX_CHUNK) {
            let mut bytes = Vec::with_capacity(CHUNK_HEAD + part.len() * RECORD_LEN + CHUNK_TAIL);
            bytes.extend_from_slice(&(part.len() as u32).to_le_bytes());
            bytes.extend_from_slice(&[0; 4]);
            for &record in part {
                bytes.extend_from_slice(&record.to_le_bytes());
            }
            let sum = xxhash_rust::xxh3::xxh3_64(&bytes);
            bytes.extend_from_slice(&sum.to_le_bytes());
            self.file.write_all(&bytes).map_err(io)?;
        }
        self.file.sync_data().map_err(io)
    }
}

/// Values found, on their way to the checkpoint (if any): appended and made
/// durable every [`FLUSH_EVERY`], and when flushed.
pub(super) struct Saver {
    checkpoint: Option<Checkpoint>,
    pending: Vec<u64>,
    last: Instant,
}

impl Saver {
    /// Saves to `checkpoint`, or nowhere.
    pub(super) fn new(checkpoint: Option<Checkpoint>) -> Saver {
        Saver {
            checkpoint,
            pending: Vec::new(),
            last: Instant::now(),
        }
    }

    /// Takes `records`, and appends every record held when it is time.
    pub(super) fn add(&mut self, records: &[u64]) -> Result<(), BookError> {
        self.pending.extend_from_slice(records);
        if self.last.elapsed() >= FLUSH_EVERY {
            self.flush()?;
        }
        Ok(())
    }

    /// Appends every record held now.
    pub(super) fn flush(&mut self) -> Result<(), BookError> {
        if let Some(cp) = &mut self.checkpoint {
            cp.append(&self.pending)?;
        }
        self.pending.clear();
        self.last = Instant::now();
        Ok(())
    }
}

/// Opens a regular file for reading and writing without following a
/// symbolic link at its last component.
fn open_no_follow(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    Ok(file)
}

/// States a search thread takes at a time, at most: consecutive states are
/// siblings that share their subtrees. A small layer is cut finer, so that
/// every thread gets some.
pub(super) const SEARCH_BATCH: usize = 8;
/// How often found values are written to the checkpoint.
pub(super) const FLUSH_EVERY: Duration = Duration::from_secs(2);

/// The value of every state of `keys` (the deepest layer, `depth` moves),
/// in order: [`Value::TERMINAL`] for states without moves, the others
/// searched with the game's searchers, reusing and extending the
/// checkpoint. Also whether every state was final (then the book is
/// complete).
fn search_layer<G: BookGame>(
    game: &G,
    keys: &[u64],
    depth: u32,
    layout: &RecordLayout,
    options: &BookOptions,
    progress: &dyn Progress,
) -> Result<(Vec<Value>, bool), BookError> {
    let mut values = vec![Value::TERMINAL; keys.len()];
    // Every option is checked (the searchers set up) before the first byte
    // of a checkpoint is written.
    let n = options.searchers.max(1).min(keys.len().max(1));
    game.check_tables(n, options.table_bits)?;
    let mut searchers = game.searchers(n, options.table_bits)?;
    let note = |m: &str| progress.note(m);
    let mut checkpoint = match &options.checkpoint {
        Some(path) => Some(Checkpoint::open(path, game, depth, &note)?),
        None => None,
    };
    let mut found = vec![false; keys.len()];
    let mut resumed = 0usize;
    if let Some(cp) = &checkpoint {
        for &record in &cp.done {
            // A record of a state not in the layer is damage: ignored.
            if let Ok(i) = keys.binary_search(&layout.key(record)) {
                values[i] = layout.value(record);
                resumed += usize::from(!found[i]);
                found[i] = true;
            }
        }
    }
    let final_states = AtomicUsize::new(0);
    let todo: Vec<usize> = (0..keys.len())
        .into_par_iter()
        .filter(|&i| {
            // Whether the state has moves: its children need no
            // canonical form.
            let mut edges = Vec::new();
            game.moves(keys[i], &mut edges);
            if edges.is_empty() {
                final_states.fetch_add(1, Ordering::Relaxed);
            }
            // An end needs no search (and is not checkpointed).
            !found[i] && !edges.is_empty()
        })
        .collect();
    let all_final = final_states.into_inner() == keys.len();
    // Depth-first order: consecutive searches share their subtrees.
    let todo: Vec<usize> = {
        let wanted: Vec<u64> = todo.iter().map(|&i| keys[i]).collect();
        layer_order(game, depth, &wanted)
            .into_iter()
            .filter_map(|k| keys.binary_search(&k).ok())
            .collect()
    };
    let total = todo.len() as u64;
    if let (Some(path), true) = (&options.checkpoint, resumed > 0) {
        progress.note(&format!(
            "resuming from {}: {resumed} of the {} positions of layer {depth} to search are \
             done, {total} left",
            path.display(),
            resumed + todo.len()
        ));
    }
    progress.start_phase("search", total);
    searchers.truncate(todo.len().max(1));
    // One pool: as threads run out of positions, the searches of the
    // others take their threads (where the game's search can).
    let busy = Arc::new(AtomicUsize::new(searchers.len()));
    game.pool(&mut searchers, Arc::clone(&busy));
    let next = AtomicUsize::new(0);
    let batch = (todo.len() / (4 * searchers.len())).clamp(1, SEARCH_BATCH);
    let (tx, rx) = mpsc::channel::<Vec<(usize, Value)>>();
    let result = std::thread::scope(|scope| -> Result<(), BookError> {
        let mut handles = Vec::new();
        for mut searcher in searchers {
            let tx = tx.clone();
            let (todo, next, busy) = (&todo, &next, &busy);
            handles.push(scope.spawn(move || {
                // The value found last: a hint for the next state, which
                // is usually its sibling.
                let mut last: Option<Value> = None;
                loop {
                    let from = next.fetch_add(batch, Ordering::Relaxed);
                    if from >= todo.len() {
                        break;
                    }
                    let to = (from + batch).min(todo.len());
                    let batch: Vec<(usize, Value)> = todo[from..to]
                        .iter()
                        .map(|&i| {
                            let v = match last {
                                Some(hint) => game.search_near(&mut searcher, keys[i], hint),
                                None => game.search(&mut searcher, keys[i]),
                            };
                            // A game that ends within two plies says
                            // nothing about its neighbours' values.
                            if v.remoteness > 2 {
                                last = Some(v);
                            }
                            (i, v)
                        })
                        .collect();
                    if tx.send(batch).is_err() {
                        break;
                    }
                }
                // Out of positions: this thread is free to help.
                busy.fetch_sub(1, Ordering::Relaxed);
            }));
        }
        drop(tx);
        let mut saver = Saver::new(checkpoint.take());
        let mut records = Vec::new();
        let mut outcome = Ok(());
        for batch in rx {
            progress.advance(batch.len() as u64);
            records.clear();
            for (i, value) in batch {
                values[i] = value;
                match layout.pack(keys[i], value) {
                    Ok(record) => records.push(record),
                    Err(e) => {
                        outcome = Err(e.into());
                        next.store(todo.len(), Ordering::Relaxed);
                    }
                }
            }
            if outcome.is_err() {
                break;
            }
            if let Err(e) = saver.add(&records) {
                // Stop the searchers: the work would be lost anyway.
                next.store(todo.len(), Ordering::Relaxed);
                outcome = Err(e);
                break;
            }
        }
        if outcome.is_ok() {
            outcome = saver.flush();
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
    Ok((values, all_final))
}

/// The states of `keys` (a layer, `depth` moves from the start) in the
/// order a depth-first walk from the start meets them: states met one
/// after the other share their parent (or a near ancestor), so their
/// searches share most of their subtrees. States not met (not in the
/// layer's tree) keep their order at the end.
pub fn layer_order<G: Game + ?Sized>(game: &G, depth: u32, keys: &[u64]) -> Vec<u64> {
    let mut seen: std::collections::HashSet<u64> = std::collections::HashSet::new();
    let mut placed = vec![false; keys.len()];
    let mut out = Vec::with_capacity(keys.len());
    // An explicit stack of (state, depth), children pushed in reverse so
    // they are visited in the game's move order.
    let mut stack = vec![(game.canonical(game.start()), 0u32)];
    let mut edges: Vec<Edge> = Vec::new();
    while let Some((key, d)) = stack.pop() {
        if d == depth {
            if let Ok(i) = keys.binary_search(&key) {
                if !placed[i] {
                    placed[i] = true;
                    out.push(key);
                }
            }
            continue;
        }
        if !seen.insert(key) {
            continue;
        }
        edges.clear();
        game.canonical_children(key, &mut edges);
        for e in edges.iter().rev() {
            stack.push((e.child, d + 1));
        }
    }
    out.extend(
        keys.iter()
            .zip(&placed)
            .filter(|(_, &p)| !p)
            .map(|(&k, _)| k),
    );
    out
}
