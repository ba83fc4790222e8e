//! Answering any position of a game too large to solve completely: from a
//! database (an opening book) when it holds the position, by the game's
//! exact search otherwise.
//!
//! The searchers take the book's values at the states it holds, inside
//! their searches too (where the game's search can: Connect Four's does).
//!
//! [`LiveSearch`] is an [`Oracle`], so the engine's analysis (every move's
//! value, the best moves, the line of perfect play), the query tool and
//! play mode work past the book's depth unchanged. Searchers (and their
//! transposition tables) are kept from call to call: the positions of one
//! analysis, and the successive positions of a line of play, share most of
//! their subtrees.

use std::sync::Mutex;

use super::book::{BookError, BookGame};
use crate::core::{BookSource, Corrupted, Edge, NodeCounter, Oracle, Value};

/// The default `log2` of the transposition table entries: 2^26 entries,
/// 512 MiB of 8-byte entries, mapped only as the search fills them (an
/// early position fills them; a late one touches a few pages).
pub const DEFAULT_TABLE_BITS: u32 = 26;

/// Values from a book, or from search where the book is silent.
pub struct LiveSearch<'a, G: BookGame> {
    game: G,
    book: Option<&'a dyn BookSource>,
    table_bits: u32,
    /// Idle searchers; a thread takes one for a call and puts it back.
    searchers: Mutex<Vec<G::Searcher>>,
    /// The nodes every searcher has visited.
    nodes: NodeCounter,
}

impl<'a, G: BookGame> LiveSearch<'a, G> {
    /// Live search on `game`, using `book` first when given (a database of
    /// the same game and variant: the caller checks). The searchers of the
    /// threads that answer at once share one table where the game can.
    pub fn new(
        game: G,
        book: Option<&'a dyn BookSource>,
        table_bits: u32,
    ) -> Result<LiveSearch<'a, G>, BookError> {
        let mut searchers = game.searchers(super::book::threads(), table_bits)?;
        if let Some(b) = book {
            // Searches take the book's values at the states it holds.
            game.attach_book(&mut searchers, b)?;
        }
        let nodes = NodeCounter::default();
        for s in &mut searchers {
            game.count_nodes(s, nodes.clone());
        }
        Ok(LiveSearch {
            game,
            book,
            table_bits,
            searchers: Mutex::new(searchers),
            nodes,
        })
    }

    /// The game.
    pub fn game(&self) -> &G {
        &self.game
    }

    /// The book's value of a canonical key, if there is a book and it
    /// holds the key.
    pub fn book_value(&self, key: u64) -> Result<Option<Value>, Corrupted> {
        match self.book {
            Some(b) => b.value(key),
            None => Ok(None),
        }
    }

    /// Fills the unknown entries of `out` (one per key of `keys`) by search:
    /// `search` answers a state that has moves, `end` one that has none.
    fn search_missing<T>(
        &self,
        keys: &[u64],
        out: &mut [Option<T>],
        end: T,
        search: impl Fn(&mut G::Searcher, u64) -> T,
    ) where
        T: Copy,
    {
        if out.iter().all(Option::is_some) {
            return;
        }
        self.with_searcher(|searcher| {
            let Some(searcher) = searcher else {
                // No searcher: the values stay unknown, and the analysis
                // says so.
                return;
            };
            let mut edges: Vec<Edge> = Vec::new();
            for (slot, &key) in out.iter_mut().zip(keys) {
                if slot.is_some() || !self.game.is_valid_key(key) {
                    // A malformed key has no value: the analysis reports it.
                    continue;
                }
                edges.clear();
                self.game.moves(key, &mut edges);
                *slot = Some(if edges.is_empty() {
                    end
                } else {
                    search(searcher, key)
                });
            }
        });
    }

    /// Runs `f` with an idle searcher (a new one when all are busy, or if
    /// it cannot be made, `None`).
    pub fn with_searcher<T>(&self, f: impl FnOnce(Option<&mut G::Searcher>) -> T) -> T {
        let taken = self.searchers.lock().ok().and_then(|mut s| s.pop());
        let mut searcher = taken.or_else(|| {
            let mut made = self.game.searchers(1, self.table_bits).ok()?;
            if let Some(b) = self.book {
                self.game.attach_book(&mut made, b).ok()?;
            }
            for s in &mut made {
                self.game.count_nodes(s, self.nodes.clone());
            }
            made.pop()
        });
        let out = f(searcher.as_mut());
        if let (Some(s), Ok(mut pool)) = (searcher, self.searchers.lock()) {
            pool.push(s);
        }
        out
    }
}

impl<G: BookGame> Oracle for LiveSearch<'_, G> {
    fn values(&self, keys: &[u64], out: &mut Vec<Option<Value>>) -> Result<(), Corrupted> {
        match self.book {
            Some(book) => book.values(keys, out)?,
            None => {
                out.clear();
                out.resize(keys.len(), None);
            }
        }
        self.search_missing(keys, out, Value::TERMINAL, |s, key| {
            self.game.search(s, key)
        });
        Ok(())
    }

    fn is_complete(&self) -> bool {
        // Every valid state has a value.
        true
    }

    fn node_counter(&self) -> Option<NodeCounter> {
        Some(self.nodes.clone())
    }

    fn outcomes(&self, keys: &[u64], out: &mut Vec<Option<i32>>) -> Result<(), Corrupted> {
        out.clear();
        match self.book {
            Some(book) => {
                let mut values = Vec::with_capacity(keys.len());
                book.values(keys, &mut values)?;
                out.extend(values.into_iter().map(|v| v.map(|v| v.net.signum())));
            }
            None => out.resize(keys.len(), None),
        }
        self.search_missing(keys, out, 0, |s, key| self.game.search_outcome(s, key));
        Ok(())
    }
}
