//! Heuristics: simple rules of play, and how often they miss a perfect move.
//!
//! A heuristic looks at a position and its legal moves and picks one or
//! more of them. It *fails* at a position when some move it picks is not
//! perfect, that is, loses some of the score the side to move can still
//! get (the database knows the value of every move). The tester counts
//! failures over every state of the database where the side to move has a
//! real move (a forced pass is no choice), each symmetry class once in a
//! sorted file, every key in a dense one.
//!
//! Each game lists its own heuristics ([`crate::core::Heuristic`]); the caller binds them
//! to the game ([`BoundHeuristic`]) and hands them to [`super::compute`].

use rayon::prelude::*;

use super::StatsError;
use crate::analysis::{analyze, Analysis};
use crate::core::layout::LayoutKind;
use crate::core::BoundHeuristic;
use crate::core::{Edge, Game, Move};
use crate::db::Database;

/// How one heuristic fared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeuristicReport {
    /// The heuristic's name.
    pub name: &'static str,
    /// What it plays.
    pub description: &'static str,
    /// States where the side to move had a real move.
    pub positions: u64,
    /// Those where some pick of the heuristic is not a perfect move.
    pub failures: u64,
    /// The first failing states (layer by layer, by key), as many as asked.
    pub examples: Vec<u64>,
}

/// Tests every heuristic at every state of a dense database (every key)
/// where the side to move has a real move, reading each child's value
/// directly. Keeps the first `examples` failing keys of each. (Sorted
/// databases are tested during [`super::playouts::forward_with`]'s walk,
/// which looks the children up anyway.)
pub(crate) fn test_dense(
    game: &dyn Game,
    db: &Database,
    heuristics: &[BoundHeuristic<'_>],
    examples: usize,
) -> Result<Vec<HeuristicReport>, StatsError> {
    if db.header().kind != LayoutKind::Dense {
        return Err(StatsError::Game("test_dense needs a dense database".into()));
    }
    let mut tally = Tally::new(heuristics.len());
    if heuristics.is_empty() {
        return Ok(Vec::new());
    }
    let layout = db.header().layout;
    let entries = db.dense_entries();
    let net = |k: u64| -> Option<i32> {
        let byte = *entries.get(usize::try_from(k).ok()?)?;
        Some(layout.dense_value(k, byte).net)
    };
    let total = entries.len() as u64;
    let tested = Tested {
        game,
        heuristics,
        examples,
    };
    const CHUNK: u64 = 1 << 14;
    let parts: Vec<Result<Tally, StatsError>> = (0..total.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut t = Tally::new(heuristics.len());
            let mut scratch = Scratch::default();
            for key in c * CHUNK..total.min((c + 1) * CHUNK) {
                let best = net(key).ok_or_else(|| missing(game, key, key))?;
                // Every key is in the file: no canonical form needed.
                let child = |_: usize, _: Option<u64>, e: &Edge| {
                    net(e.child).ok_or_else(|| missing(game, key, e.child))
                };
                let no_canon: &[Edge] = &[];
                t.visit(&tested, key, best, &mut scratch, Some(no_canon), child)?;
            }
            Ok(t)
        })
        .collect();
    for p in parts {
        tally.merge(p?, examples);
    }
    Ok(tally.reports(heuristics))
}

pub(crate) fn missing(game: &dyn Game, state: u64, child: u64) -> StatsError {
    StatsError::MissingChild {
        position: game.format_position(state),
        child: game.format_position(child),
    }
}

/// What every state a tally visits is tested with: the game, its
/// heuristics, and how many failing states of each to keep.
#[derive(Clone, Copy)]
pub(crate) struct Tested<'a> {
    /// The game whose states are visited.
    pub(crate) game: &'a dyn Game,
    /// The heuristics tested, bound to the game.
    pub(crate) heuristics: &'a [BoundHeuristic<'a>],
    /// The failing states kept per heuristic.
    pub(crate) examples: usize,
}

/// Buffers reused from state to state.
#[derive(Default)]
pub(crate) struct Scratch {
    moves: Vec<Edge>,
    canon: Vec<Edge>,
    picks: Vec<Move>,
}

/// Counts of one part of the states.
pub(crate) struct Tally {
    pub(crate) positions: u64,
    pub(crate) failures: Vec<u64>,
    pub(crate) examples: Vec<Vec<u64>>,
    /// Keep the smallest failing keys (the part is visited out of key
    /// order) rather than the first ones.
    smallest: bool,
}

impl Tally {
    pub(crate) fn new(n: usize) -> Tally {
        Tally {
            positions: 0,
            failures: vec![0; n],
            examples: vec![Vec::new(); n],
            smallest: false,
        }
    }

    /// A tally for states visited out of key order.
    pub(crate) fn unordered(n: usize) -> Tally {
        Tally {
            smallest: true,
            ..Tally::new(n)
        }
    }

    /// Tests every heuristic of `tested` at `key`, whose value has net
    /// `best`. `canon`: the canonical children if already generated.
    /// `child_net(k, canonical child if known, edge)` gives the stored net
    /// of the child of move `k`.
    #[inline]
    pub(crate) fn visit(
        &mut self,
        tested: &Tested<'_>,
        key: u64,
        best: i32,
        scratch: &mut Scratch,
        canon: Option<&[Edge]>,
        child_net: impl Fn(usize, Option<u64>, &Edge) -> Result<i32, StatsError>,
    ) -> Result<(), StatsError> {
        let Tested {
            game,
            heuristics,
            examples,
        } = *tested;
        let Scratch {
            moves,
            canon: own_canon,
            picks,
        } = scratch;
        moves.clear();
        game.moves(key, moves);
        if moves.is_empty() || (moves.len() == 1 && moves[0].mv == Move::PASS) {
            return Ok(());
        }
        self.positions += 1;
        let mut canon = canon;
        for (h, heuristic) in heuristics.iter().enumerate() {
            picks.clear();
            heuristic.choose(key, moves, picks);
            let mut failed = false;
            for &m in picks.iter() {
                let Some(k) = moves.iter().position(|e| e.mv == m) else {
                    return Err(StatsError::Game(format!(
                        "heuristic {} picked {}, not a legal move of {}",
                        heuristic.name,
                        game.format_move(m),
                        game.format_position(key)
                    )));
                };
                let e = &moves[k];
                let list = match canon {
                    Some(c) => c,
                    None => {
                        own_canon.clear();
                        game.canonical_children(key, own_canon);
                        canon = Some(&own_canon[..]);
                        &own_canon[..]
                    }
                };
                // The canonical children come in move order, like the
                // moves; checked per child, with a slow path.
                let known = list.get(k).filter(|c| c.mv == e.mv).map(|c| c.child);
                let cn = child_net(k, known, e)?;
                let net = i32::from(e.reward) + if e.again { cn } else { -cn };
                if net != best {
                    failed = true;
                    break;
                }
            }
            if failed {
                self.failures[h] += 1;
                let ex = &mut self.examples[h];
                if self.smallest && examples > 0 {
                    ex.push(key);
                    if ex.len() > 4 * examples + 16 {
                        ex.sort_unstable();
                        ex.truncate(examples);
                    }
                } else if ex.len() < examples {
                    ex.push(key);
                }
            }
        }
        Ok(())
    }

    /// Adds a part of the same layer (for unordered tallies) or a later part.
    pub(crate) fn merge(&mut self, other: Tally, examples: usize) {
        self.positions += other.positions;
        for (a, b) in self.failures.iter_mut().zip(other.failures) {
            *a += b;
        }
        for (a, mut b) in self.examples.iter_mut().zip(other.examples) {
            if self.smallest {
                a.append(&mut b);
                a.sort_unstable();
                a.truncate(examples);
            } else {
                let room = examples.saturating_sub(a.len());
                a.extend(b.into_iter().take(room));
            }
        }
    }

    /// The reports, in the order of `heuristics`.
    pub(crate) fn reports(self, heuristics: &[BoundHeuristic<'_>]) -> Vec<HeuristicReport> {
        let positions = self.positions;
        heuristics
            .iter()
            .zip(self.failures)
            .zip(self.examples)
            .map(|((h, failures), examples)| HeuristicReport {
                name: h.name,
                description: h.description,
                positions,
                failures,
                examples,
            })
            .collect()
    }
}

/// One failure of a heuristic, explained.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The position's analysis (its value and every move's).
    pub analysis: Analysis,
    /// The moves the heuristic picks.
    pub picks: Vec<Move>,
}

/// Explains a failure of `heuristic` at `state` from the database.
pub fn explain(
    game: &dyn Game,
    db: &Database,
    heuristic: &BoundHeuristic<'_>,
    state: u64,
) -> Result<Failure, StatsError> {
    let analysis = analyze(game, db, state)?;
    let mut moves = Vec::new();
    game.moves(state, &mut moves);
    let mut picks = Vec::new();
    heuristic.choose(state, &moves, &mut picks);
    Ok(Failure { analysis, picks })
}
