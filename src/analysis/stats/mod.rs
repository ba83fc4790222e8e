//! Facts about a whole game, computed from its database without solving
//! anything again: how many states there are, by layer and by value; the
//! ends of the game and who wins them; how many distinct complete games
//! there are and who wins those; the first-move map; and how often simple
//! heuristics miss a perfect move.
//!
//! * [`index`] buckets the database's canonical states by layer and looks
//!   children up in per-layer hash tables;
//! * [`playouts`] counts complete games over canonical states, exactly;
//! * [`heuristics`] tests the games' heuristics.
//!
//! [`compute`] puts it all together for `query stats`.

pub mod heuristics;
pub(crate) mod index;
pub(crate) mod playouts;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap};

use rayon::prelude::*;

use crate::analysis::{analyze_position, Analysis, QueryError};
use crate::core::layout::LayoutKind;
use crate::core::BoundHeuristic;
use crate::core::{Game, Limits, Position, Value};
use crate::db::Database;

pub(crate) use heuristics::HeuristicReport;
pub(crate) use index::LayerSet;
pub use playouts::Outcomes;

/// Why statistics could not be computed.
#[derive(Debug, thiserror::Error)]
pub enum StatsError {
    /// A move leads to a state the database does not hold.
    #[error("database corrupted: the move from {position} to {child} leads to a state it does not hold (run `query verify`)")]
    MissingChild {
        /// The parent, in the game's notation.
        position: String,
        /// The child, in the game's notation.
        child: String,
    },
    /// A count does not fit in 128 bits.
    #[error("a playout count does not fit in 128 bits")]
    Overflow,
    /// The game breaks an assumption of the statistics.
    #[error("{0}")]
    Unsupported(String),
    /// The game breaks its own contract.
    #[error("game contract broken: {0}")]
    Game(String),
    /// No heuristic of this game has the name.
    #[error("unknown heuristic {name:?} for {game} (known: {known})")]
    UnknownHeuristic {
        /// The name asked for.
        name: String,
        /// The game.
        game: String,
        /// The known names, comma-separated.
        known: String,
    },
    /// A position could not be answered from the database.
    #[error(transparent)]
    Query(#[from] QueryError),
}

/// Dense databases above this many key bits are not walked by the whole-game
/// passes that visit every state's moves (playout outcomes, heuristics):
/// 2^26 keys take seconds; 2^31 (Dots and Boxes 3x4) would take minutes and
/// gigabytes.
pub(crate) const DENSE_WALK_LIMIT_BITS: u32 = 26;

/// Why the whole-game passes skip an opening book.
const PARTIAL_NOTE: &str = "not computed: the database is an opening book (the positions of \
     its first moves only); complete games and heuristics need a complete database";

/// What to compute.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Count the complete games.
    pub playouts: bool,
    /// Test the heuristics: `None` for none, `Some(None)` for all, or the
    /// name of one.
    pub heuristics: Option<Option<String>>,
    /// Failing states to keep per heuristic.
    pub examples: usize,
}

impl Options {
    /// Everything, with no examples.
    pub fn all() -> Options {
        Options {
            playouts: true,
            heuristics: Some(None),
            examples: 0,
        }
    }
}

/// The ends of the game among the database's states.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Terminals {
    /// States where the game is over.
    pub count: u64,
    /// How many the first player wins, the second wins and are tied, when the
    /// key holds the score ([`Game::lead`]).
    pub outcomes: Option<[u64; 3]>,
}

/// Everything `query stats` reports.
#[derive(Debug)]
pub struct Stats {
    /// Game name.
    pub game: &'static str,
    /// Variant.
    pub variant: String,
    /// True when the database holds every key (dense layout), so the
    /// counts are of every position; false when it holds one state per
    /// symmetry class (canonical states).
    pub dense: bool,
    /// True when the database holds every reachable state; false for an
    /// opening book, whose counts are of its own states only.
    pub complete: bool,
    /// The states in the database.
    pub states: u64,
    /// States per layer (index = layer; British Square: pieces placed).
    pub by_layer: Vec<u64>,
    /// States per headline value ([`Game::score`] of the stored value).
    pub by_value: BTreeMap<i32, u64>,
    /// States per (layer, value).
    pub by_layer_value: BTreeMap<(usize, i32), u64>,
    /// The ends of the game.
    pub terminals: Terminals,
    /// The complete games, or why they were not counted.
    pub playouts: Result<Outcomes, String>,
    /// The start position, with every move's value.
    pub start: Analysis,
    /// The heuristics tested, or why they were not.
    pub heuristics: Result<Vec<HeuristicReport>, String>,
}

/// Counts per part of the states.
#[derive(Default)]
struct Counts {
    cells: HashMap<(usize, i32), u64>,
    terminals: u64,
    outcomes: [u64; 3],
    unknown_outcome: bool,
    /// A state whose stored value the game rules out, if any.
    out_of_range: Option<(u64, i32, u32)>,
}

impl Counts {
    #[inline]
    fn add(&mut self, game: &dyn Game, limits: &Limits, key: u64, net: i32, remoteness: u32) {
        if !limits.allows(Value { net, remoteness }) {
            self.out_of_range.get_or_insert((key, net, remoteness));
            return;
        }
        *self
            .cells
            .entry((game.layer(key), game.score(key, net)))
            .or_default() += 1;
        // A state is an end exactly when its remoteness is 0: every move
        // adds a ply.
        if remoteness == 0 {
            self.terminals += 1;
            match game.lead(key) {
                Some(l) if l > 0 => self.outcomes[0] += 1,
                Some(l) if l < 0 => self.outcomes[1] += 1,
                Some(_) => self.outcomes[2] += 1,
                None => self.unknown_outcome = true,
            }
        }
    }

    fn merge(mut self, other: Counts) -> Counts {
        for (k, v) in other.cells {
            *self.cells.entry(k).or_default() += v;
        }
        self.terminals += other.terminals;
        for (a, b) in self.outcomes.iter_mut().zip(other.outcomes) {
            *a += b;
        }
        self.unknown_outcome |= other.unknown_outcome;
        self.out_of_range = self.out_of_range.or(other.out_of_range);
        self
    }
}

/// Counts the states of a database by layer and value, and its ends.
fn count_states(game: &dyn Game, db: &Database) -> Counts {
    let layout = db.header().layout;
    let limits = game.limits();
    match db.header().kind {
        LayoutKind::Sorted => db
            .raw_records()
            .par_chunks(1 << 16)
            .fold(Counts::default, |mut c, chunk| {
                for &raw in chunk {
                    let r = u64::from_le(raw);
                    let v = layout.value(r);
                    c.add(game, &limits, layout.key(r), v.net, v.remoteness);
                }
                c
            })
            .reduce(Counts::default, Counts::merge),
        LayoutKind::Dense => db
            .dense_entries()
            .par_chunks(1 << 16)
            .enumerate()
            .fold(Counts::default, |mut c, (i, chunk)| {
                let base = (i as u64) << 16;
                for (j, &byte) in chunk.iter().enumerate() {
                    let key = base + j as u64;
                    let v = layout.dense_value(key, byte);
                    c.add(game, &limits, key, v.net, v.remoteness);
                }
                c
            })
            .reduce(Counts::default, Counts::merge),
    }
}

/// Computes the statistics `options` asks for (the state tables, the ends
/// and the start position always).
///
/// `heuristics` are the game's own, bound to it: all of them are tested, or
/// only the one `options` names.
pub fn compute(
    g: &dyn Game,
    heuristics: Vec<BoundHeuristic<'_>>,
    db: &Database,
    options: &Options,
) -> Result<Stats, StatsError> {
    let desc = g.descriptor();
    let dense = db.header().kind == LayoutKind::Dense;
    // An opening book holds the states of its first moves only: counting
    // games or testing moves would walk off its edge.
    let complete = db.header().is_complete();
    if !complete && matches!(&options.heuristics, Some(Some(_))) {
        return Err(StatsError::Unsupported(format!(
            "heuristics: {PARTIAL_NOTE}"
        )));
    }
    // Pick the heuristics first: a bad name is the caller's mistake, and
    // should be reported before any work.
    let all = heuristics;
    let chosen: Vec<BoundHeuristic<'_>> = match &options.heuristics {
        None => Vec::new(),
        Some(None) => all,
        Some(Some(name)) => {
            let known = all.iter().map(|h| h.name).collect::<Vec<_>>().join(", ");
            let one: Vec<_> = all.into_iter().filter(|h| h.name == name).collect();
            if one.is_empty() {
                return Err(StatsError::UnknownHeuristic {
                    name: name.clone(),
                    game: format!("{} {}", desc.name, desc.variant),
                    known: if known.is_empty() {
                        "none".into()
                    } else {
                        known
                    },
                });
            }
            one
        }
    };

    let counts = count_states(g, db);
    // Counts read from bytes lost while they were read count nothing.
    db.check_intact().map_err(|c| {
        StatsError::Query(QueryError::Inconsistent {
            position: g.format_position(g.start()),
            reason: c.reason,
        })
    })?;
    if let Some((key, net, remoteness)) = counts.out_of_range {
        return Err(StatsError::Query(QueryError::Inconsistent {
            position: g.format_position(key),
            reason: format!(
                "the stored value (net {net}, remoteness {remoteness}) is out of the game's range"
            ),
        }));
    }
    let mut by_layer = vec![0u64; g.layer_count()];
    let mut by_value = BTreeMap::new();
    let mut by_layer_value = BTreeMap::new();
    for (&(l, v), &n) in &counts.cells {
        if let Some(slot) = by_layer.get_mut(l) {
            *slot += n;
        }
        *by_value.entry(v).or_default() += n;
        by_layer_value.insert((l, v), n);
    }
    let states = by_layer.iter().sum();
    let terminals = Terminals {
        count: counts.terminals,
        outcomes: (!counts.unknown_outcome).then_some(counts.outcomes),
    };

    let too_big = !complete || (dense && desc.key_bits > DENSE_WALK_LIMIT_BITS);
    let too_big_note = || {
        if !complete {
            return PARTIAL_NOTE.to_owned();
        }
        format!(
            "not computed: this pass visits every one of the 2^{} positions' moves; \
             it is limited to 2^{DENSE_WALK_LIMIT_BITS}",
            desc.key_bits
        )
    };
    let needs_set = !too_big && (options.playouts || (!dense && !chosen.is_empty()));
    let set = if needs_set {
        Some(LayerSet::from_database(g, db)?)
    } else {
        None
    };
    let mut heuristics = Ok(Vec::new());
    let playouts = match &set {
        None if too_big => {
            if !chosen.is_empty() {
                heuristics = Err(too_big_note());
            }
            Err(too_big_note())
        }
        // A sorted file: one walk counts the games (when the key holds the
        // score) and tests the heuristics.
        Some(set) if !dense => {
            let (outcomes, reports) = playouts::forward_with(g, set, &chosen, options.examples)?;
            heuristics = Ok(reports);
            match (options.playouts, outcomes) {
                (false, _) => Err("not asked for".into()),
                (true, Some(o)) => Ok(o),
                (true, None) => Ok(playouts::backward(g, set)?),
            }
        }
        _ => {
            if !chosen.is_empty() {
                heuristics = Ok(heuristics::test_dense(g, db, &chosen, options.examples)?);
            }
            match (&set, options.playouts) {
                (Some(set), true) if g.lead(g.start()).is_some() => Ok(playouts::forward(g, set)?),
                (Some(set), true) => Ok(playouts::backward(g, set)?),
                _ => Err("not asked for".into()),
            }
        }
    };
    let start = g.start();
    let position = Position {
        state: start,
        to_move: g.to_move(start),
        lead: g.lead(start),
    };
    let start = analyze_position(g, db, &position)?;
    Ok(Stats {
        game: desc.name,
        variant: desc.variant.clone(),
        dense,
        complete,
        states,
        by_layer,
        by_value,
        by_layer_value,
        terminals,
        playouts,
        start,
        heuristics,
    })
}
