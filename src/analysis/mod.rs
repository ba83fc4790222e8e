//! Answering positions: the value of a position and of every legal move,
//! from an [`Oracle`]: a database (lookups only), or a live search that may
//! use a database as its book. Also, over a whole database: `verify`
//! re-derives every value from its children, and `stats` computes facts
//! about the whole game.
//!
//! This layer knows games only through the core [`Game`] trait.

pub mod picture;
#[cfg(feature = "engine")]
pub mod stats;
#[cfg(feature = "engine")]
pub mod verify;

use crate::core::{
    Edge, Game, Limits, Move, MoveMark, Oracle, OracleError, Outcome, Player, Position, Value,
};

/// One legal move of an analysed position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveAnalysis {
    /// The move.
    pub mv: Move,
    /// The position after the move (not canonicalised).
    pub child: u64,
    /// The value of the move for the player making it: the move's reward plus
    /// what follows, and the remoteness of the current position through it.
    pub value: Value,
    /// The value stored for the position after the move (for its side to move).
    pub child_value: Value,
    /// The headline score of this move for the side making it (British
    /// Square: its final pieces minus its opponent's; Dots and Boxes: its
    /// net boxes).
    pub score: i32,
    /// True when the move keeps the best score for the mover.
    pub best: bool,
}

/// Everything the database says about one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// The position.
    pub state: u64,
    /// Its canonical key.
    pub canonical: u64,
    /// The side to move.
    pub to_move: Player,
    /// The first player's points so far minus the second's, when known.
    pub lead: Option<i32>,
    /// Its value for the side to move.
    pub value: Value,
    /// The headline score, for the side to move (British Square: its
    /// final pieces minus its opponent's).
    pub score: i32,
    /// Every legal move, best first: by value for the mover, then by the
    /// remoteness tie-break, then by move code.
    pub moves: Vec<MoveAnalysis>,
}

impl Analysis {
    /// True when the game is over.
    pub fn is_terminal(&self) -> bool {
        self.moves.is_empty()
    }

    /// The moves that keep the best score.
    pub fn best_moves(&self) -> impl Iterator<Item = &MoveAnalysis> {
        self.moves.iter().filter(|m| m.best)
    }

    /// The final result of the game for the side to move under perfect
    /// play: their final lead when the score so far is known, else what
    /// they net from here on. Positive: a win.
    pub fn result(&self) -> i32 {
        self.result_through(self.value.net)
    }

    /// [`Analysis::result`] if the side to move plays `m`.
    pub fn move_result(&self, m: &MoveAnalysis) -> i32 {
        self.result_through(m.value.net)
    }

    fn result_through(&self, net: i32) -> i32 {
        self.lead.map_or(0, |l| l * self.to_move.sign()) + net
    }

    /// The first player's final points minus the second's under perfect
    /// play, when the score so far is known.
    pub fn final_lead(&self) -> Option<i32> {
        self.lead.map(|l| l + self.to_move.sign() * self.value.net)
    }

    /// Every legal move as drawings show it ([`crate::render::Presentation::render_move_map`],
    /// [`crate::render::Presentation::render_svg`]), best first: its headline value, and whether it
    /// wins, ties or loses for the side to move ([`Analysis::move_result`]:
    /// with the score so far when it is known, else what the mover nets
    /// from here on).
    pub fn marks(&self) -> Vec<MoveMark> {
        self.moves
            .iter()
            .map(|m| MoveMark {
                mv: m.mv,
                score: m.score,
                outcome: Outcome::of(self.move_result(m)),
                best: m.best,
            })
            .collect()
    }

    /// The position analysed.
    pub fn position(&self) -> Position {
        Position {
            state: self.state,
            to_move: self.to_move,
            lead: self.lead,
        }
    }
}

/// Why a position could not be answered.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// The position is not in a database that holds every reachable state.
    #[error("position {position} cannot be reached from the start of the game")]
    Unreachable {
        /// The position, in the game's notation.
        position: String,
    },
    /// The position is not in a partial database, or it is but a position
    /// after one of its moves is not (the frontier of an opening book).
    #[error("position {position} is not in this database")]
    NotInDatabase {
        /// The missing position, in the game's notation.
        position: String,
    },
    /// The database contradicts itself: a child is missing or the values of
    /// the children do not give the stored value.
    #[error("database corrupted at {position}: {reason} (run `query verify`)")]
    Inconsistent {
        /// The position, in the game's notation.
        position: String,
        /// What is wrong.
        reason: String,
    },
    /// A search the answer needed was stopped by its caller (see
    /// [`crate::core::Cancel`]): a time limit, a client gone, an interrupt.
    /// Nothing is wrong with the position or the database.
    #[error("{}", crate::core::oracle::STOPPED)]
    Stopped,
}

impl QueryError {
    /// True when the error says the database is damaged (a contradiction
    /// among its values, a value out of range, the start missing), rather
    /// than that the position is not one it holds.
    pub fn is_corrupt(&self) -> bool {
        matches!(self, QueryError::Inconsistent { .. })
    }
}

/// The stored value of `state` (whose canonical key is `canonical`),
/// checked against the game's range.
pub fn stored_value(
    game: &dyn Game,
    db: &dyn Oracle,
    state: u64,
    canonical: u64,
) -> Result<Value, QueryError> {
    let mut found = Vec::with_capacity(1);
    db.values(&[canonical], &mut found)
        .map_err(|c| damaged(game, state, c))?;
    match found.pop().flatten() {
        Some(v) => checked(game, &game.limits(), state, v),
        None => Err(missing(game, db, state, canonical)),
    }
}

/// The stored values of many states at once (a batch lookup, whose
/// memory reads overlap), each checked against the game's range; a
/// finished state the file does not hold is worth nothing more, as in
/// [`analyze`]. No move is looked at: a position on the frontier of an
/// opening book has its value here, though [`analyze`] cannot list its
/// moves' values.
pub fn evaluate(
    game: &dyn Game,
    db: &dyn Oracle,
    states: &[u64],
) -> Vec<Result<Value, QueryError>> {
    let keys: Vec<u64> = states.iter().map(|&s| game.canonical(s)).collect();
    let mut found = Vec::with_capacity(keys.len());
    if let Err(c) = db.values(&keys, &mut found) {
        return states
            .iter()
            .map(|&s| Err(damaged(game, s, c.clone())))
            .collect();
    }
    let limits = game.limits();
    let mut edges = Vec::new();
    states
        .iter()
        .zip(&keys)
        .zip(found)
        .map(|((&state, &canonical), v)| match v {
            Some(v) => checked(game, &limits, state, v),
            None => {
                edges.clear();
                game.moves(state, &mut edges);
                if edges.is_empty() {
                    Ok(Value::TERMINAL)
                } else {
                    Err(missing(game, db, state, canonical))
                }
            }
        })
        .collect()
}

/// Why a state's value is missing: unreachable, not in a partial database,
/// or (the start itself missing from a complete one) a damaged database.
fn missing(game: &dyn Game, db: &dyn Oracle, state: u64, canonical: u64) -> QueryError {
    let position = game.format_position(state);
    if !db.is_complete() {
        QueryError::NotInDatabase { position }
    } else if canonical == game.canonical(game.start()) {
        QueryError::Inconsistent {
            position,
            reason: "the start position is missing".into(),
        }
    } else {
        QueryError::Unreachable { position }
    }
}

/// `v`, the stored value of `state`, if the game allows it: a value out of
/// the game's range comes from a damaged or forged database.
#[inline]
fn checked(game: &dyn Game, limits: &Limits, state: u64, v: Value) -> Result<Value, QueryError> {
    if limits.allows(v) {
        Ok(v)
    } else {
        Err(out_of_range(game, state, v))
    }
}

/// The error for a lookup that read damaged bytes, or whose search was
/// stopped (kept off the hot path).
#[cold]
#[inline(never)]
fn damaged(game: &dyn Game, state: u64, e: OracleError) -> QueryError {
    match e {
        OracleError::Stopped => QueryError::Stopped,
        OracleError::Damaged(c) => QueryError::Inconsistent {
            position: game.format_position(state),
            reason: c.reason,
        },
    }
}

/// The error for a stored value the game rules out (kept off the hot path).
#[cold]
#[inline(never)]
fn out_of_range(game: &dyn Game, state: u64, v: Value) -> QueryError {
    QueryError::Inconsistent {
        position: game.format_position(state),
        reason: format!(
            "the stored value (net {}, remoteness {}) is out of the game's range",
            v.net, v.remoteness
        ),
    }
}

/// Analyses a state: its value and the value of every legal move. The side
/// to move and the score so far are what the state says
/// ([`Game::to_move`], [`Game::lead`]).
pub fn analyze(game: &dyn Game, db: &dyn Oracle, state: u64) -> Result<Analysis, QueryError> {
    SCRATCH.with(|scratch| {
        let mut scratch = scratch.borrow_mut();
        analyze_with(game, db, state, &mut scratch)
    })
}

/// Analyses a position given with its side to move and score (see
/// [`Game::parse`]).
pub fn analyze_position(
    game: &dyn Game,
    db: &dyn Oracle,
    position: &Position,
) -> Result<Analysis, QueryError> {
    let mut a = analyze(game, db, position.state)?;
    a.to_move = position.to_move;
    a.lead = position.lead;
    Ok(a)
}

/// Buffers [`analyze`] reuses from call to call: batch mode analyses
/// hundreds of thousands of positions a second, and allocating them anew
/// each time is a measurable share of that.
#[derive(Default)]
struct Scratch {
    edges: Vec<Edge>,
    canon: Vec<Edge>,
    keys: Vec<u64>,
    found: Vec<Option<Value>>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

fn analyze_with(
    game: &dyn Game,
    db: &dyn Oracle,
    state: u64,
    scratch: &mut Scratch,
) -> Result<Analysis, QueryError> {
    let Scratch {
        edges,
        canon,
        keys,
        found,
    } = scratch;
    edges.clear();
    keys.clear();
    let canonical = gather(game, state, edges, canon, keys);
    db.values(keys, found)
        .map_err(|c| damaged(game, state, c))?;
    finish(game, db, state, canonical, edges, found)
}

/// Appends the moves of `state` to `edges` and, in the same order, the
/// canonical keys of the positions after them to `keys`, then the
/// canonical key of `state` itself, which it returns.
fn gather(
    game: &dyn Game,
    state: u64,
    edges: &mut Vec<Edge>,
    canon: &mut Vec<Edge>,
    keys: &mut Vec<u64>,
) -> u64 {
    let canonical = game.canonical(state);
    let first = edges.len();
    game.moves(state, edges);
    canon.clear();
    game.canonical_children(state, canon);
    // Both lists come in move order; fall back to a full canonicalisation if
    // a game ever breaks that. The position's own key goes last.
    keys.extend(
        edges[first..]
            .iter()
            .enumerate()
            .map(|(i, e)| match canon.get(i) {
                Some(c) if c.mv == e.mv => c.child,
                _ => game.canonical(e.child),
            }),
    );
    keys.push(canonical);
    canonical
}

/// Analyses several states at once: `out[i]` becomes [`analyze`] of
/// `states[i]`. The keys of all their children are looked up together,
/// so that the oracle's reads overlap (in a sorted file, about half again
/// as many lookups a second as position by position).
pub fn analyze_many(
    game: &dyn Game,
    db: &dyn Oracle,
    states: &[u64],
    out: &mut Vec<Result<Analysis, QueryError>>,
) {
    out.clear();
    GROUP.with(|group| {
        let mut group = group.borrow_mut();
        let Group {
            edges,
            canon,
            keys,
            found,
            spans,
        } = &mut *group;
        edges.clear();
        keys.clear();
        spans.clear();
        for &state in states {
            let edges_from = edges.len();
            let canonical = gather(game, state, edges, canon, keys);
            spans.push((edges_from, canonical));
        }
        if db.values(keys, found).is_err() {
            // Which position read the damage is told by each alone.
            out.extend(states.iter().map(|&s| analyze(game, db, s)));
            return;
        }
        let mut edges_from = 0;
        for (i, &state) in states.iter().enumerate() {
            let (_, canonical) = spans[i];
            let edges_to = spans.get(i + 1).map_or(edges.len(), |&(e, _)| e);
            // Each state's keys are its children's, then its own.
            let keys_from = edges_from + i;
            let keys_to = edges_to + i + 1;
            out.push(finish(
                game,
                db,
                state,
                canonical,
                &edges[edges_from..edges_to],
                &found[keys_from..keys_to],
            ));
            edges_from = edges_to;
        }
    });
}

/// [`analyze_position`] of each of `positions`: `out[i]` answers
/// `positions[i]`, the lookups of all made together ([`analyze_many`]).
pub fn analyze_positions(
    game: &dyn Game,
    db: &dyn Oracle,
    positions: &[Position],
    out: &mut Vec<Result<Analysis, QueryError>>,
) {
    let states: Vec<u64> = positions.iter().map(|p| p.state).collect();
    analyze_many(game, db, &states, out);
    for (a, p) in out.iter_mut().zip(positions) {
        if let Ok(a) = a {
            a.to_move = p.to_move;
            a.lead = p.lead;
        }
    }
}

/// Buffers [`analyze_many`] reuses from call to call.
#[derive(Default)]
struct Group {
    edges: Vec<Edge>,
    canon: Vec<Edge>,
    keys: Vec<u64>,
    found: Vec<Option<Value>>,
    /// Per state: where its moves start in `edges`, and its canonical key.
    spans: Vec<(usize, u64)>,
}

thread_local! {
    static GROUP: std::cell::RefCell<Group> = std::cell::RefCell::new(Group::default());
}

/// The analysis of `state` from what the oracle holds: `found` holds the
/// values of the positions after `edges` (its moves, in order), then the
/// value of `state` itself (`canonical`).
fn finish(
    game: &dyn Game,
    db: &dyn Oracle,
    state: u64,
    canonical: u64,
    edges: &[Edge],
    found: &[Option<Value>],
) -> Result<Analysis, QueryError> {
    let (own, found) = found.split_last().map_or((None, found), |(o, f)| (*o, f));
    let limits = game.limits();
    let value = match own {
        Some(v) => checked(game, &limits, state, v)?,
        // A finished position is answered by the rules: its side to move
        // may be one the database does not hold (a finished British Square
        // board given without a side), and no value depends on it.
        None if edges.is_empty() => Value::TERMINAL,
        None => stored_value(game, db, state, canonical)?,
    };
    let inconsistent = |reason: String| QueryError::Inconsistent {
        position: game.format_position(state),
        reason,
    };
    let mut moves = Vec::with_capacity(edges.len());
    for (e, &child_value) in edges.iter().zip(found.iter()) {
        let child_value = child_value.ok_or_else(|| {
            if db.is_complete() {
                inconsistent(format!(
                    "the position after move {} is missing",
                    game.format_move(e.mv)
                ))
            } else {
                // The frontier of a partial database (an opening book): the
                // position is there, the ones after it are not.
                QueryError::NotInDatabase {
                    position: game.format_position(e.child),
                }
            }
        })?;
        if !limits.allows(child_value) {
            return Err(out_of_range(game, e.child, child_value));
        }
        moves.push(MoveAnalysis {
            mv: e.mv,
            child: e.child,
            value: Value::through(e, child_value),
            child_value,
            score: 0,
            best: false,
        });
    }
    // A position's moves are distinct: the order is total, and an
    // unstable sort gives the one order.
    moves.sort_unstable_by_key(|m| (std::cmp::Reverse(m.value.preference()), m.mv));
    let derived = moves.first().map_or(Value::TERMINAL, |m| m.value);
    if derived != value {
        return Err(inconsistent(format!(
            "stored value (net {}, remoteness {}), but the moves give (net {}, remoteness {})",
            value.net, value.remoteness, derived.net, derived.remoteness
        )));
    }
    for m in &mut moves {
        m.best = m.value.net == value.net;
        m.score = game.score(state, m.value.net);
    }
    Ok(Analysis {
        state,
        canonical,
        to_move: game.to_move(state),
        lead: game.lead(state),
        value,
        score: game.score(state, value.net),
        moves,
    })
}

/// A position answered as win, draw or loss only ([`analyze_weak`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeakAnalysis {
    /// The position.
    pub position: Position,
    /// For the side to move, as [`Analysis::result`] counts: 1 a win, 0 a
    /// draw, -1 a loss.
    pub result: i32,
    /// Every legal move with its result for the player making it, in move
    /// order.
    pub moves: Vec<(Move, i32)>,
}

impl WeakAnalysis {
    /// True when the game is over.
    pub fn is_terminal(&self) -> bool {
        self.moves.is_empty()
    }
}

/// Analyses a position for the outcome only: win, draw or loss for the side
/// to move and for every move, counted as [`Analysis::result`] counts (with
/// the score so far when the position gives it). From the oracle's
/// [`Oracle::outcomes`] where signs are enough, which is much faster than
/// exact values where the oracle searches: when nobody has scored yet and
/// a move that scores ends the game. Otherwise signs do not add up, and the
/// exact analysis decides.
pub fn analyze_weak(
    game: &dyn Game,
    db: &dyn Oracle,
    position: &Position,
) -> Result<WeakAnalysis, QueryError> {
    let state = position.state;
    let mut edges = Vec::new();
    game.moves(state, &mut edges);
    let mut child_moves = Vec::new();
    let signs_add_up = position.lead.is_none_or(|l| l == 0)
        && edges.iter().all(|e| {
            e.reward == 0 || {
                child_moves.clear();
                game.moves(e.child, &mut child_moves);
                child_moves.is_empty()
            }
        });
    let moves = if signs_add_up {
        let keys: Vec<u64> = edges.iter().map(|e| game.canonical(e.child)).collect();
        let mut outcomes = Vec::new();
        db.outcomes(&keys, &mut outcomes)
            .map_err(|c| damaged(game, state, c))?;
        edges
            .iter()
            .zip(outcomes)
            .map(|(e, o)| {
                let o = o.ok_or_else(|| {
                    let position = game.format_position(e.child);
                    if db.is_complete() {
                        QueryError::Unreachable { position }
                    } else {
                        QueryError::NotInDatabase { position }
                    }
                })?;
                Ok((
                    e.mv,
                    (i32::from(e.reward) + if e.again { o } else { -o }).signum(),
                ))
            })
            .collect::<Result<Vec<_>, QueryError>>()?
    } else {
        let a = analyze_position(game, db, position)?;
        let mut moves: Vec<(Move, i32)> = a
            .moves
            .iter()
            .map(|m| (m.mv, a.move_result(m).signum()))
            .collect();
        moves.sort_by_key(|&(m, _)| m);
        moves
    };
    let result = match moves.iter().map(|&(_, r)| r).max() {
        Some(r) => r,
        // Over: the score so far decides.
        None => position
            .lead
            .map_or(0, |l| (l * position.to_move.sign()).signum()),
    };
    Ok(WeakAnalysis {
        position: *position,
        result,
        moves,
    })
}

/// The line of perfect play from `state` to the end of the game: at each step
/// the first move of [`analyze`]'s order. Returns the moves and the positions
/// they lead to.
///
/// Each step knows the value of its position (the step before it found
/// it), so it only asks the oracle, move by move in code order, whether
/// the position after the move has the value that keeps it
/// ([`Oracle::is_value`]): the first that does is the first of
/// [`analyze`]'s order. A searching oracle tests a value with far less
/// work than it takes to find the values of every move. Where no move
/// keeps the value, the step is analysed in full, which tells why.
pub fn principal_variation(
    game: &dyn Game,
    db: &dyn Oracle,
    state: u64,
) -> Result<Vec<(Move, u64)>, QueryError> {
    let limits = game.limits();
    let mut line = Vec::new();
    let mut edges = Vec::new();
    let mut s = state;
    // The value of `s`, once a step has found it.
    let mut known: Option<Value> = None;
    loop {
        edges.clear();
        game.moves(s, &mut edges);
        if edges.is_empty() {
            return Ok(line);
        }
        // Remoteness strictly falls along the line, so this ends; guard anyway.
        if line.len() > 4096 {
            return Err(QueryError::Inconsistent {
                position: game.format_position(s),
                reason: "the line of perfect play does not end".into(),
            });
        }
        let value = match known {
            Some(v) => v,
            None => stored_value(game, db, s, game.canonical(s))?,
        };
        // Among moves of equal value, the lowest code comes first.
        edges.sort_unstable_by_key(|e| e.mv);
        let mut next = None;
        for e in &edges {
            let Some(want) = Value::before(e, value).filter(|&w| limits.allows(w)) else {
                continue;
            };
            let holds = db
                .is_value(game.canonical(e.child), want)
                .map_err(|c| damaged(game, e.child, c))?;
            if holds == Some(true) {
                next = Some((e.mv, e.child, want));
                break;
            }
        }
        let (mv, child, child_value) = match next {
            Some(n) => n,
            None => {
                let a = analyze(game, db, s)?;
                match a.moves.first() {
                    Some(m) => (m.mv, m.child, m.child_value),
                    None => return Ok(line),
                }
            }
        };
        line.push((mv, child));
        s = child;
        known = Some(child_value);
    }
}
