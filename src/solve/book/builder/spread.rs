//! A book built on the ranks of a job (processes that share nothing, such
//! as an MPI job's), each rank holding its share of every layer: the
//! states a hash of their key gives it ([`owner`]), as the layered solver
//! on ranks does ([`crate::solve::ranks`]). The steps are the one-process
//! builder's (see the parent module):
//!
//! 1. **Layers**, forward: each rank expands its states and sends each
//!    child (without repeats per round) to its owner.
//! 2. **The deepest layer**, by search: each rank searches its own states,
//!    as rank 0 deals them, and takes states that the ranks with the most
//!    left give up once some rank has run out ([`super::farm`]). Every value
//!    goes to rank 0's checkpoint; a value found by another rank than the
//!    state's owner goes back to the owner after the search. A job run
//!    again sends the checkpoint's values to their owners first.
//! 3. **Shallower layers**, by minimax: each rank asks the owners of its
//!    states' children for their values.
//! 4. **Records**, as a complete solve on ranks: sent to the rank of their
//!    key range ([`crate::solve::ranks`]).
//!
//! Every exchange but the farm's is a bounded all-to-all round.

use std::sync::{mpsc, Condvar, Mutex};
use std::time::Instant;

use super::build::{Checkpoint, Saver, FLUSH_EVERY, SEARCH_BATCH};
use super::farm::{self, Dealer, Farm, Table};
use crate::core::layout::RecordLayout;
use crate::core::{Edge, Game, Progress, Value};
use crate::solve::book::{BookError, BookGame, BookOptions};
use crate::solve::complete::index::SortedIndex;
use crate::solve::ranks::{
    finish, for_rounds, human_bytes, owner, Counted, Exchange, RankSolution,
};
use crate::solve::SolveError;

/// A book built on ranks: this rank's part, and whether the book holds
/// every state (its deepest states all end the game).
pub struct RankBook {
    /// This rank's stretch of the records, and what every rank knows.
    pub part: RankSolution,
    /// Whether the book is the whole game.
    pub complete: bool,
    /// The bytes rank 0 exchanged with the others while they searched (0
    /// on the other ranks).
    pub search_bytes: u64,
}

/// What every step of a book built on ranks shares.
struct OnRanks<'a, G: ?Sized> {
    /// The game.
    game: &'a G,
    /// The ranks (collectives), counting the bytes this rank sends.
    ex: &'a Counted<'a>,
    /// The records' layout.
    layout: &'a RecordLayout,
    /// The builder's options (`checkpoint` is rank 0's).
    options: &'a BookOptions,
    /// Where the steps are reported.
    progress: &'a dyn Progress,
}

/// Builds the book of `game` on the ranks of `ex` (collectives) and `farm`
/// (the deepest layer's messages); every rank calls this with the same
/// game and options. `options.checkpoint` is rank 0's. The records are
/// those of [`super::build_book`].
pub(crate) fn build_book_on_ranks<G: BookGame>(
    game: &G,
    options: &BookOptions,
    ex: &dyn Exchange,
    farm: &dyn Farm,
    progress: &dyn Progress,
) -> Result<RankBook, BookError> {
    game.check_book_depth(options.depth)?;
    let ex = &Counted::new(ex);
    let last = game.layer_count().saturating_sub(1);
    let depth = (options.depth as usize).min(last);
    let layout = RecordLayout::for_game(game.descriptor());
    let start = game.canonical(game.start());
    let ranks = ex.size();
    let on = OnRanks {
        game,
        ex,
        layout: &layout,
        options,
        progress,
    };

    // 1. The layers.
    let mut layers: Vec<Vec<u64>> = vec![if owner(start, ranks) == ex.rank() {
        vec![start]
    } else {
        Vec::new()
    }];
    let mut forward = vec![0u64];
    for k in 0..depth {
        let parents = ex.sum(layers[k].len() as u64)?;
        progress.start_phase(&format!("layer {}", k + 1), parents);
        let before = ex.total()?;
        let next = expand_layer(game, ex, &layers[k], progress)?;
        layers.push(next);
        let after = ex.total()?;
        forward.push(after - before);
        progress.status(&format!("{} exchanged", human_bytes(after)));
        progress.finish_phase();
    }

    // 2. The deepest layer.
    let (mut values, all_final, search_bytes) =
        search_deepest(&on, farm, &layers[depth], depth as u32)?;

    // 3. Every shallower layer.
    let mut backward = vec![0u64; depth + 1];
    let mut all_values: Vec<Vec<Value>> = Vec::with_capacity(depth + 1);
    for k in (0..depth).rev() {
        let states = ex.sum(layers[k].len() as u64)?;
        progress.start_phase(&format!("minimax {k}"), states);
        let before = ex.total()?;
        let layer_values = minimax_layer(game, ex, &layers[k], &layers[k + 1], &values, progress)?;
        all_values.push(std::mem::replace(&mut values, layer_values));
        let after = ex.total()?;
        backward[k] = after - before;
        progress.status(&format!("{} exchanged", human_bytes(after)));
        progress.finish_phase();
    }
    all_values.push(values);
    all_values.reverse();

    // 4. The records.
    let mut layer_sizes = Vec::with_capacity(layers.len());
    for l in &layers {
        layer_sizes.push(usize::try_from(ex.sum(l.len() as u64)?).unwrap_or(usize::MAX));
    }
    let mut records = Vec::with_capacity(layers.iter().map(Vec::len).sum());
    for (keys, values) in layers.iter().zip(&all_values) {
        for (&key, &value) in keys.iter().zip(values) {
            records.push(layout.pack(key, value)?);
        }
    }
    drop(layers);
    drop(all_values);
    let complete = ex.sum(u64::from(!all_final))? == 0;
    let part = finish(ex, records, layout, start, layer_sizes, [forward, backward])?;
    Ok(RankBook {
        part,
        complete,
        search_bytes,
    })
}

/// This rank's share of the next layer: the canonical children of every
/// rank's `parents` that it owns, sorted, without repeats.
fn expand_layer<G: Game + ?Sized>(
    game: &G,
    ex: &Counted<'_>,
    parents: &[u64],
    progress: &dyn Progress,
) -> Result<Vec<u64>, BookError> {
    let ranks = ex.size();
    let mut next: Vec<u64> = Vec::new();
    let mut distinct = 0;
    let mut edges: Vec<Edge> = Vec::new();
    for_rounds(ex, parents, |round| {
        let mut outgoing = vec![Vec::new(); ranks];
        for &s in round {
            edges.clear();
            game.canonical_children(s, &mut edges);
            for e in &edges {
                outgoing[owner(e.child, ranks)].push(e.child);
            }
        }
        for o in &mut outgoing {
            o.sort_unstable();
            o.dedup();
        }
        for got in ex.all_to_all(outgoing)? {
            next.extend_from_slice(&got);
        }
        // Repeats are dropped as they pile up, not only at the end.
        if next.len() > 2 * distinct + (1 << 20) {
            next.sort_unstable();
            next.dedup();
            distinct = next.len();
        }
        progress.advance(ex.sum(round.len() as u64)?);
        Ok(())
    })?;
    next.sort_unstable();
    next.dedup();
    Ok(next)
}

/// Sends `records` (packed key and value) to the owners of their keys, in
/// bounded rounds (a collective call), and sets the values of the states
/// of `keys` (this rank's, sorted) that come here. Records of states not
/// in the layer are dropped. Returns how many states were newly found.
fn route(
    ex: &Counted<'_>,
    records: &[u64],
    layout: &RecordLayout,
    keys: &[u64],
    values: &mut [Value],
    found: &mut [bool],
) -> Result<u64, BookError> {
    let ranks = ex.size();
    let mut newly = 0u64;
    for_rounds(ex, records, |round| {
        let mut outgoing = vec![Vec::new(); ranks];
        for &r in round {
            outgoing[owner(layout.key(r), ranks)].push(r);
        }
        for got in ex.all_to_all(outgoing)? {
            for r in got {
                if let Ok(i) = keys.binary_search(&layout.key(r)) {
                    newly += u64::from(!found[i]);
                    values[i] = layout.value(r);
                    found[i] = true;
                }
            }
        }
        Ok(())
    })?;
    Ok(newly)
}

/// The values of this rank's share `keys` (sorted) of the deepest layer,
/// `depth` moves from the start (see the module documentation), searched
/// through `farm`; whether every state of the whole layer ends the game;
/// the bytes rank 0 exchanged with the searching ranks.
fn search_deepest<G: BookGame>(
    on: &OnRanks<'_, G>,
    farm: &dyn Farm,
    keys: &[u64],
    depth: u32,
) -> Result<(Vec<Value>, bool, u64), BookError> {
    let OnRanks {
        game,
        ex,
        layout,
        options,
        progress,
    } = *on;
    let me = ex.rank();
    let mut values = vec![Value::TERMINAL; keys.len()];
    let mut found = vec![false; keys.len()];
    // Every option is checked (the searchers set up) before the first byte
    // of a checkpoint is written.
    game.check_tables(options.searchers.max(1), options.table_bits)?;
    let searchers = game.searchers(options.searchers.max(1), options.table_bits)?;
    let note = |m: &str| progress.note(m);
    let mut checkpoint = match (&options.checkpoint, me) {
        (Some(path), 0) => Some(Checkpoint::open(path, game, depth, &note)?),
        _ => None,
    };
    let done = checkpoint.as_ref().map_or(&[][..], |c| &c.done[..]);
    let resumed = route(ex, done, layout, keys, &mut values, &mut found)?;
    let resumed = ex.sum(resumed)?;
    if let Some(cp) = &mut checkpoint {
        cp.done = Vec::new();
    }
    // This rank's list: its states with moves, not found yet. A state
    // without moves needs no search (and is not checkpointed).
    let mut edges: Vec<Edge> = Vec::new();
    let mut ends = 0u64;
    let mut todo: Vec<u64> = Vec::new();
    for (&key, &f) in keys.iter().zip(&found) {
        edges.clear();
        game.moves(key, &mut edges);
        if edges.is_empty() {
            ends += 1;
        } else if !f {
            todo.push(key);
        }
    }
    let all_final = ex.sum(ends)? == ex.sum(keys.len() as u64)?;
    let lengths: Vec<usize> = ex
        .all_gather(vec![todo.len() as u64])?
        .into_iter()
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
        .collect();
    let total: usize = lengths.iter().sum();
    if let (Some(path), true) = (&options.checkpoint, resumed > 0 && me == 0) {
        progress.note(&format!(
            "resuming from {}: {resumed} of the {} positions of layer {depth} to search are \
             done, {total} left",
            path.display(),
            resumed as usize + total
        ));
    }
    progress.start_phase("search", total as u64);
    let searchers_everywhere = ex.size() - 1 + searchers.len();
    let batch = (total / (4 * searchers_everywhere)).clamp(1, SEARCH_BATCH);
    let mut traffic = 0;
    let mut elsewhere = Vec::new();
    if me == 0 {
        let table = Table {
            dealer: Mutex::new(Dealer::new(&lengths, batch)),
            changed: Condvar::new(),
        };
        let found_here = |(from, records): (usize, Vec<u64>),
                          values: &mut Vec<Value>,
                          found: &mut Vec<bool>,
                          elsewhere: &mut Vec<u64>| {
            for &r in &records {
                let key = layout.key(r);
                match keys.binary_search(&key) {
                    Ok(i) => {
                        values[i] = layout.value(r);
                        found[i] = true;
                    }
                    // Searched by another rank than its owner: the owner
                    // gets it after the search.
                    Err(_) if owner(key, ex.size()) != from => elsewhere.push(r),
                    Err(_) => {}
                }
            }
            records
        };
        let (tx, rx) = mpsc::channel::<(usize, Vec<u64>)>();
        traffic = std::thread::scope(|scope| -> Result<u64, BookError> {
            let server = (ex.size() > 1).then(|| {
                let (tx, table) = (tx.clone(), &table);
                scope.spawn(move || {
                    let served = farm::serve(farm, table, &tx);
                    if served.is_err() {
                        // Rank 0's searchers must not wait for the pool.
                        table.lock().stop();
                        table.changed.notify_all();
                    }
                    served
                })
            });
            let mut handles = Vec::new();
            for mut searcher in searchers {
                let (tx, table, todo) = (tx.clone(), &table, &todo);
                handles.push(scope.spawn(move || {
                    let mut last: Option<Value> = None;
                    let mut batch: Vec<u64> = Vec::new();
                    let mut sent = Instant::now();
                    let searched = farm::search_here(table, todo, |key| {
                        let v = search(game, &mut searcher, key, &mut last);
                        batch.push(layout.pack(key, v)?);
                        if batch.len() >= 64 || sent.elapsed() >= FLUSH_EVERY / 4 {
                            // Rank 0's main thread may have stopped on an
                            // error: the dealer is then stopped too.
                            let _ = tx.send((0, std::mem::take(&mut batch)));
                            sent = Instant::now();
                        }
                        Ok(())
                    });
                    if searched.is_err() {
                        // Nobody would search the rest of rank 0's list:
                        // every rank is told the end.
                        table.lock().stop();
                        table.changed.notify_all();
                    }
                    let _ = tx.send((0, batch));
                    searched
                }));
            }
            drop(tx);
            let mut saver = Saver::new(checkpoint.take());
            let mut outcome = Ok(());
            for message in rx {
                let records = found_here(message, &mut values, &mut found, &mut elsewhere);
                progress.advance(records.len() as u64);
                if outcome.is_ok() {
                    outcome = saver.add(&records);
                    if outcome.is_err() {
                        // The work would be lost: every rank is told the end.
                        table.lock().stop();
                        table.changed.notify_all();
                    }
                }
            }
            if outcome.is_ok() {
                outcome = saver.flush();
            }
            for h in handles {
                match h.join() {
                    Ok(searched) => outcome = outcome.and(searched),
                    Err(_) => outcome = outcome.and(Err(BookError::SearchThread)),
                }
            }
            let traffic = match server.map(|s| s.join()) {
                None => 0,
                Some(Ok(Ok(bytes))) => bytes,
                Some(Ok(Err(e))) => return Err(e),
                Some(Err(_)) => return Err(BookError::SearchThread),
            };
            outcome.map(|()| traffic)
        })?;
        progress.status(&format!("{} exchanged", human_bytes(traffic)));
    } else {
        let mut searcher = searchers
            .into_iter()
            .next()
            .ok_or_else(|| BookError::Searcher("no searcher".into()))?;
        let mut last: Option<Value> = None;
        farm::search_there(farm, &todo, |key| {
            let v = search(game, &mut searcher, key, &mut last);
            if let Ok(i) = keys.binary_search(&key) {
                values[i] = v;
                found[i] = true;
            }
            Ok(layout.pack(key, v)?)
        })?;
    }
    progress.finish_phase();
    route(ex, &elsewhere, layout, keys, &mut values, &mut found)?;
    for &key in &todo {
        if let Ok(i) = keys.binary_search(&key) {
            if !found[i] {
                return Err(BookError::Farm(format!(
                    "state {key:#x} of layer {depth} was never searched"
                )));
            }
        }
    }
    Ok((values, all_final, traffic))
}

/// The value of `state` by `searcher`, with the last value found as a
/// hint where it says something (as the one-process builder does).
fn search<G: BookGame>(
    game: &G,
    searcher: &mut G::Searcher,
    state: u64,
    last: &mut Option<Value>,
) -> Value {
    let v = match *last {
        Some(hint) => game.search_near(searcher, state, hint),
        None => game.search(searcher, state),
    };
    // A game that ends within two plies says nothing about its
    // neighbours' values.
    if v.remoteness > 2 {
        *last = Some(v);
    }
    v
}

/// The values of this rank's share `parents` of a layer, by minimax over
/// their children (in the next layer, whose share here is `children`
/// with `child_values`), asked of their owners in bounded rounds.
fn minimax_layer<G: Game + ?Sized>(
    game: &G,
    ex: &Counted<'_>,
    parents: &[u64],
    children: &[u64],
    child_values: &[Value],
    progress: &dyn Progress,
) -> Result<Vec<Value>, BookError> {
    let ranks = ex.size();
    let index = SortedIndex::new(children);
    let mut values = Vec::with_capacity(parents.len());
    let mut edges: Vec<Edge> = Vec::new();
    for_rounds(ex, parents, |round| {
        let mut outgoing = vec![Vec::new(); ranks];
        // Per edge: where its question went (rank, place), and the edge.
        let mut asked: Vec<(usize, usize, Edge)> = Vec::new();
        let mut per_parent = Vec::with_capacity(round.len());
        for &s in round {
            edges.clear();
            game.canonical_children(s, &mut edges);
            per_parent.push(edges.len());
            for e in &edges {
                let r = owner(e.child, ranks);
                asked.push((r, outgoing[r].len(), *e));
                outgoing[r].push(e.child);
            }
        }
        let answers = ex
            .all_to_all(outgoing)?
            .into_iter()
            .map(|keys| {
                keys.iter()
                    .map(|&key| {
                        index
                            .find(key)
                            .map(|i| farm::encode(child_values[i]))
                            .ok_or(SolveError::MissingState { state: key })
                    })
                    .collect::<Result<Vec<u64>, SolveError>>()
            })
            .collect::<Result<Vec<_>, _>>()?;
        let replies = ex.all_to_all(answers)?;
        let mut next = asked.iter();
        for &n in &per_parent {
            let mut best: Option<Value> = None;
            for &(r, at, e) in next.by_ref().take(n) {
                let word = replies
                    .get(r)
                    .and_then(|words| words.get(at))
                    .ok_or_else(|| SolveError::Exchange {
                        reason: "a rank answered fewer values than it was asked".into(),
                    })?;
                let through = Value::through(&e, farm::decode(*word));
                if best.is_none_or(|b| through.better_than(b)) {
                    best = Some(through);
                }
            }
            values.push(best.unwrap_or(Value::TERMINAL));
        }
        progress.advance(ex.sum(round.len() as u64)?);
        Ok(())
    })?;
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::NoProgress;
    use crate::games::connect_four::ConnectFour;
    use crate::games::dandelions::Dandelions;
    use crate::solve::book::build_book;
    use crate::solve::complete::threads::on_threads;

    /// The book of `game` built on `ranks` threads, its records in order
    /// and whether it is complete.
    fn on_ranks<G: BookGame>(game: &G, options: &BookOptions, ranks: usize) -> (Vec<u64>, bool) {
        let parts = on_threads(ranks, |ex| {
            build_book_on_ranks(game, options, ex, ex, &NoProgress).unwrap()
        });
        let complete = parts[0].complete;
        let mut records = Vec::new();
        for p in parts {
            assert_eq!(p.part.records_before, records.len() as u64);
            assert_eq!(p.complete, complete);
            records.extend_from_slice(&p.part.records);
        }
        (records, complete)
    }

    fn the_same_on_ranks<G: BookGame>(game: &G, depth: u32) {
        let mut options = BookOptions::new(depth);
        options.table_bits = 20;
        options.searchers = 1;
        let one = build_book(game, &options, &NoProgress).unwrap();
        for ranks in [1, 2, 3] {
            let (records, complete) = on_ranks(game, &options, ranks);
            assert!(records == one.records, "depth {depth} on {ranks} ranks");
            assert_eq!(complete, one.complete, "depth {depth} on {ranks} ranks");
        }
    }

    #[test]
    fn books_on_ranks_are_the_one_process_books() {
        the_same_on_ranks(&ConnectFour::from_variant("5x4").unwrap(), 5);
        the_same_on_ranks(&Dandelions::from_variant("4x4").unwrap(), 5);
        // The whole game: every deepest state ends it.
        the_same_on_ranks(&Dandelions::from_variant("3x3").unwrap(), 20);
    }

    #[test]
    fn a_book_on_ranks_resumes_from_its_checkpoint() {
        let game = Dandelions::from_variant("4x4").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut options = BookOptions::new(5);
        options.table_bits = 20;
        options.searchers = 1;
        let one = build_book(&game, &options, &NoProgress).unwrap();
        // A checkpoint of a first run, with every other searched state.
        let path = dir.path().join("book.partial-depth5");
        options.checkpoint = Some(path.clone());
        build_book(&game, &options, &NoProgress).unwrap();
        let deepest: usize = one.layer_sizes[..5].iter().sum();
        let bytes = std::fs::read(&path).unwrap();
        let note = |_: &str| {};
        let mut cp = Checkpoint::open(&path, &game, 5, &note).unwrap();
        let kept: Vec<u64> = cp.done.iter().copied().step_by(2).collect();
        assert!(kept.len() > 100, "{} of {deepest}", kept.len());
        drop(cp);
        std::fs::write(&path, &bytes[..32]).unwrap();
        cp = Checkpoint::open(&path, &game, 5, &note).unwrap();
        cp.append(&kept).unwrap();
        drop(cp);
        let (records, _) = on_ranks(&game, &options, 2);
        assert!(records == one.records);
        // The resumed run added the rest.
        let cp = Checkpoint::open(&path, &game, 5, &note).unwrap();
        assert!(cp.done.len() > kept.len());
    }
}
