//! Counting every complete game (every move sequence from the start to an
//! end, forced passes included), and how many each player wins, exactly and
//! without walking the games one by one.
//!
//! Two methods, both over canonical states only, in exact integer
//! arithmetic, every operation checked (an overflow is an error, never a
//! wrong count): `u64` weights per state and `u128` totals for [`forward`]
//! (British Square 5x5 has 4.2e15 games in all), `u128` for [`backward`]
//! (Dots and Boxes 3x3 has 24! = 6.2e23):
//!
//! * [`forward`], for games whose key holds the score so far
//!   ([`Game::lead`] is `Some`, British Square). `W(C)` is the number of move
//!   sequences from the start that end anywhere in the symmetry class of the
//!   canonical state `C`. The start is symmetric, so `W(start) = 1` and
//!   `W(C') = sum over canonical parents P of W(P) * (the number of P's moves
//!   whose child canonicalises to C')`: a move from a symmetric image of `P`
//!   is the image of a move from `P`, so no orbit sizes are needed. The
//!   games are the sum of `W` over the terminal states, each won by the sign
//!   of its final score.
//! * [`backward`], for games whose key leaves the score out (Dots and Boxes:
//!   the same edges can be reached with any score). `N(S, d)` is the number
//!   of move sequences from `S` to the end in which the side to move at `S`
//!   gains `d` more points than its opponent; it depends on the key alone
//!   and is the same for every symmetric image. From the last layer back:
//!   `N(S, d) = sum over moves (reward r, child C)` of `N(C, d - r)` when the
//!   mover moves again and `N(C, r - d)` when the turn passes; an end has
//!   `N(S, 0) = 1`. The start has no score yet, so the sign of `d` at the
//!   start decides each game.
//!
//! Both walk the layers of a [`LayerSet`] in order, one layer at a time, in
//! parallel within a layer, looking children up in per-layer hash tables.
//! Moves must go to the same layer or the next one (true of both games); a
//! game that skips layers gets [`StatsError::Unsupported`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::heuristics::{missing, HeuristicReport, Scratch, Tally, Tested};
use crate::core::BoundHeuristic;

use super::index::{LayerSet, Window};
use super::StatsError;
use crate::core::{Edge, Game};

/// How many complete games there are and how they end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcomes {
    /// All complete games.
    pub games: u128,
    /// Games the first player wins.
    pub first_wins: u128,
    /// Games the second player wins.
    pub second_wins: u128,
    /// Games that end level.
    pub ties: u128,
}

impl Outcomes {
    /// Adds `n` games that end with the first player ahead by `lead`.
    pub(crate) fn add(&mut self, lead: i32, n: u128) -> Result<(), StatsError> {
        self.games = add(self.games, n)?;
        let slot = match lead.signum() {
            1 => &mut self.first_wins,
            -1 => &mut self.second_wins,
            _ => &mut self.ties,
        };
        *slot = add(*slot, n)?;
        Ok(())
    }

    fn merge(&mut self, o: &Outcomes) -> Result<(), StatsError> {
        self.games = add(self.games, o.games)?;
        self.first_wins = add(self.first_wins, o.first_wins)?;
        self.second_wins = add(self.second_wins, o.second_wins)?;
        self.ties = add(self.ties, o.ties)?;
        Ok(())
    }
}

#[inline]
fn add(a: u128, b: u128) -> Result<u128, StatsError> {
    a.checked_add(b).ok_or(StatsError::Overflow)
}

fn skipped(game: &dyn Game, state: u64, layer: usize, to: usize) -> StatsError {
    StatsError::Unsupported(format!(
        "a move from {} (layer {layer}) goes to layer {to}; playout counting needs \
         moves to the same layer or the next",
        game.format_position(state)
    ))
}

/// The index of the start position in `set`.
fn start_of(game: &dyn Game, set: &LayerSet) -> Result<(usize, usize), StatsError> {
    let start = game.canonical(game.start());
    set.find(game, start)
        .ok_or_else(|| StatsError::MissingChild {
            position: "(none: the start)".into(),
            child: game.format_position(start),
        })
}

/// One layer of the forward walk: an open-addressing hash table whose slots
/// hold a state's key, its stored net value and its weight `W`. Keeping
/// the weight in the slot means a move costs one memory access: find the
/// child and add to it.
struct WeightTable {
    slots: Vec<WSlot>,
    shift: u32,
}

struct WSlot {
    key: u64,
    net: i32,
    w: AtomicU64,
}

/// Marks an empty slot (see [`super::index`]: no key has all 64 bits set).
const EMPTY: u64 = u64::MAX;

impl WeightTable {
    fn new(keys: &[u64], nets: &[i32]) -> Result<WeightTable, StatsError> {
        if keys.contains(&EMPTY) {
            return Err(StatsError::Game("a state has the key 2^64 - 1".into()));
        }
        let bits = (keys.len() * 2)
            .max(16)
            .next_power_of_two()
            .trailing_zeros();
        let mut slots: Vec<WSlot> = (0..1usize << bits)
            .map(|_| WSlot {
                key: EMPTY,
                net: 0,
                w: AtomicU64::new(0),
            })
            .collect();
        let shift = 64 - bits;
        let mask = slots.len() - 1;
        for (&key, &net) in keys.iter().zip(nets) {
            let mut s = home(key, shift);
            while slots[s].key != EMPTY {
                s = (s + 1) & mask;
            }
            slots[s].key = key;
            slots[s].net = net;
        }
        Ok(WeightTable { slots, shift })
    }

    #[inline]
    fn find(&self, key: u64) -> Option<usize> {
        let mask = self.slots.len() - 1;
        let mut s = home(key, self.shift);
        loop {
            let k = self.slots[s].key;
            if k == key {
                return Some(s);
            }
            if k == EMPTY {
                return None;
            }
            s = (s + 1) & mask;
        }
    }

    #[inline]
    fn prefetch(&self, key: u64) {
        if let Some(slot) = self.slots.get(home(key, self.shift)) {
            crate::core::platform::prefetch(slot);
        }
    }

    /// Adds `n` to slot `s`'s weight; false on overflow.
    #[inline]
    fn add(&self, s: usize, n: u64) -> bool {
        n == 0
            || self.slots[s]
                .w
                .fetch_add(n, Ordering::Relaxed)
                .checked_add(n)
                .is_some()
    }
}

#[inline]
fn home(key: u64, shift: u32) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift) as usize
}

/// Per-part work of one forward layer.
struct ForwardPart {
    /// Same-layer edges (parent slot, child slot), one per move.
    same: Vec<(u32, u32)>,
    /// Games ending in this part's terminal states (with the weights known
    /// before the same-layer edges are followed).
    ended: Outcomes,
    tally: Tally,
    overflow: bool,
}

/// Counts the complete games of a game whose key holds the score (see the
/// module documentation).
pub(crate) fn forward(game: &dyn Game, set: &LayerSet) -> Result<Outcomes, StatsError> {
    forward_with(game, set, &[], 0)?.0.ok_or_else(|| {
        StatsError::Unsupported("the key of the start does not hold the score".into())
    })
}

/// [`forward`], testing `heuristics` at every state on the way (a state's
/// children are looked up anyway); also for games whose key leaves the score
/// out, whose outcomes are then not counted (`None`; see [`backward`]).
/// Keeps the `examples` first failing states of each heuristic, by layer
/// and key.
pub(crate) fn forward_with(
    game: &dyn Game,
    set: &LayerSet,
    heuristics: &[BoundHeuristic<'_>],
    examples: usize,
) -> Result<(Option<Outcomes>, Vec<HeuristicReport>), StatsError> {
    let count = set.layers.len();
    let (first, start) = start_of(game, set)?;
    let table = |l: usize| -> Result<Option<WeightTable>, StatsError> {
        match set.layers.get(l) {
            Some(layer) if !layer.keys.is_empty() => {
                WeightTable::new(&layer.keys, &layer.nets).map(Some)
            }
            _ => Ok(None),
        }
    };
    let mut this = table(first)?;
    if let Some(t) = &this {
        let s = t
            .find(set.layers[first].keys[start])
            .ok_or_else(|| StatsError::Game("the start is not in its layer".into()))?;
        t.slots[s].w.store(1, Ordering::Relaxed);
    }
    let scored = game.lead(game.start()).is_some();
    let mut out = Outcomes::default();
    let mut tally = Tally::new(heuristics.len());
    let tested = Tested {
        game,
        heuristics,
        examples,
    };
    for l in first..count {
        let next = table(l + 1)?;
        let Some(cur) = &this else {
            this = next;
            continue;
        };
        let parts: Vec<Result<ForwardPart, StatsError>> = cur
            .slots
            .par_chunks(1 << 14)
            .enumerate()
            .map(|(c, slots)| {
                let mut part = ForwardPart {
                    same: Vec::new(),
                    ended: Outcomes::default(),
                    tally: Tally::unordered(heuristics.len()),
                    overflow: false,
                };
                let mut found = Vec::new();
                let mut scratch = Scratch::default();
                // The children of a batch of parents are generated first,
                // their table slots fetched as they come: the tables are far
                // larger than the caches, and the lookups then overlap.
                let mut kids: Vec<Edge> = Vec::new();
                let mut batch: Vec<(usize, usize)> = Vec::new();
                let mut one = Vec::new();
                for (g, group) in slots.chunks(BATCH).enumerate() {
                    kids.clear();
                    batch.clear();
                    for (jj, slot) in group.iter().enumerate() {
                        if slot.key == EMPTY {
                            continue;
                        }
                        one.clear();
                        game.canonical_children(slot.key, &mut one);
                        for e in &one {
                            if game.layer(e.child) == l {
                                cur.prefetch(e.child);
                            } else if let Some(n) = &next {
                                n.prefetch(e.child);
                            }
                        }
                        kids.extend_from_slice(&one);
                        batch.push((g * BATCH + jj, kids.len()));
                    }
                    let mut from = 0;
                    for &(j, to) in &batch {
                        let slot = &slots[j];
                        let edges = &kids[from..to];
                        from = to;
                        let key = slot.key;
                        let wi = slot.w.load(Ordering::Relaxed);
                        if edges.is_empty() {
                            if scored {
                                part.ended.add(final_lead(game, key)?, u128::from(wi))?;
                            }
                            continue;
                        }
                        locate(game, cur, next.as_ref(), l, key, edges, &mut found)?;
                        for &(same, ci) in &found {
                            if same {
                                part.same.push(((c << 14) as u32 + j as u32, ci as u32));
                            } else if let Some(n) = &next {
                                part.overflow |= !n.add(ci, wi);
                            }
                        }
                        if !heuristics.is_empty() {
                            let net_of = |k: usize, known: Option<u64>, e: &Edge| {
                                let (same, ci) = match (found.get(k), known) {
                                    (Some(&f), Some(_)) => f,
                                    _ => {
                                        // Slow path: the moves and the canonical
                                        // children disagree on order.
                                        let child = game.canonical(e.child);
                                        let mut one = Vec::new();
                                        let edge = Edge { child, ..*e };
                                        locate(
                                            game,
                                            cur,
                                            next.as_ref(),
                                            l,
                                            key,
                                            &[edge],
                                            &mut one,
                                        )?;
                                        one[0]
                                    }
                                };
                                let t = if same { Some(cur) } else { next.as_ref() };
                                Ok(t.map_or(0, |t| t.slots[ci].net))
                            };
                            part.tally.visit(
                                &tested,
                                key,
                                slot.net,
                                &mut scratch,
                                Some(edges),
                                net_of,
                            )?;
                        }
                    }
                }
                Ok(part)
            })
            .collect();
        let mut same = Vec::new();
        let mut layer_tally = Tally::unordered(heuristics.len());
        for part in parts {
            let part = part?;
            if part.overflow {
                return Err(StatsError::Overflow);
            }
            out.merge(&part.ended)?;
            same.extend(part.same);
            layer_tally.merge(part.tally, examples);
        }
        tally.merge(layer_tally, examples);
        // Same-layer edges (forced passes): their weights flow in
        // topological order, and what a state gains this way is pushed on
        // along its own moves.
        for (s, extra) in settle_same_layer(cur, &same)? {
            let key = cur.slots[s].key;
            let mut edges = Vec::new();
            game.canonical_children(key, &mut edges);
            if edges.is_empty() {
                if scored {
                    out.add(final_lead(game, key)?, u128::from(extra))?;
                }
                continue;
            }
            let mut found = Vec::new();
            locate(game, cur, next.as_ref(), l, key, &edges, &mut found)?;
            for &(same, ci) in &found {
                if let (false, Some(n)) = (same, &next) {
                    if !n.add(ci, extra) {
                        return Err(StatsError::Overflow);
                    }
                }
            }
        }
        this = next;
    }
    Ok((scored.then_some(out), tally.reports(heuristics)))
}

/// Parents whose children are generated and fetched before they are looked
/// up.
const BATCH: usize = 64;

/// Finds every child: `found[k]` is (same layer?, slot) of `edges[k].child`.
#[inline]
fn locate(
    game: &dyn Game,
    cur: &WeightTable,
    next: Option<&WeightTable>,
    l: usize,
    key: u64,
    edges: &[Edge],
    found: &mut Vec<(bool, usize)>,
) -> Result<(), StatsError> {
    found.clear();
    // Start every load first: the lookups then overlap in memory.
    for e in edges {
        if game.layer(e.child) == l {
            cur.prefetch(e.child);
        } else if let Some(n) = next {
            n.prefetch(e.child);
        }
    }
    for e in edges {
        let cl = game.layer(e.child);
        let t = if cl == l {
            Some(cur)
        } else if cl == l + 1 {
            next
        } else {
            return Err(skipped(game, key, l, cl));
        };
        let ci = t
            .and_then(|t| t.find(e.child))
            .ok_or_else(|| missing(game, key, e.child))?;
        found.push((cl == l, ci));
    }
    Ok(())
}

/// The first player's final lead at an end of the game.
fn final_lead(game: &dyn Game, key: u64) -> Result<i32, StatsError> {
    game.lead(key).ok_or_else(|| {
        StatsError::Unsupported(format!(
            "the key of {} does not hold the score",
            game.format_position(key)
        ))
    })
}

/// Looks every child up: `found[k]` is (layer, index) of `edges[k].child`.
#[inline]
fn resolve(
    game: &dyn Game,
    window: &Window,
    l: usize,
    key: u64,
    edges: &[Edge],
    found: &mut Vec<(usize, usize)>,
) -> Result<(), StatsError> {
    found.clear();
    // Start every load first: the lookups then overlap in memory.
    for e in edges {
        window.prefetch(game.layer(e.child), e.child);
    }
    for e in edges {
        let cl = game.layer(e.child);
        if cl != l && cl != l + 1 {
            return Err(skipped(game, key, l, cl));
        }
        let ci = window
            .get(cl, e.child)
            .ok_or_else(|| missing(game, key, e.child))?;
        found.push((cl, ci));
    }
    Ok(())
}

/// Follows the same-layer edges `same` (parent slot, child slot) in
/// topological order, adding each parent's final weight to its child.
/// Returns what each state gained, in the order the states were settled.
fn settle_same_layer(
    t: &WeightTable,
    same: &[(u32, u32)],
) -> Result<Vec<(usize, u64)>, StatsError> {
    if same.is_empty() {
        return Ok(Vec::new());
    }
    let mut out_edges: HashMap<u32, Vec<u32>> = HashMap::new();
    let mut indegree: HashMap<u32, u32> = HashMap::new();
    for &(p, c) in same {
        out_edges.entry(p).or_default().push(c);
        *indegree.entry(c).or_default() += 1;
        indegree.entry(p).or_default();
    }
    let mut ready: Vec<u32> = indegree
        .iter()
        .filter(|&(_, &d)| d == 0)
        .map(|(&n, _)| n)
        .collect();
    ready.sort_unstable();
    let mut gained: HashMap<u32, u64> = HashMap::new();
    let mut order = Vec::new();
    let mut settled = 0;
    while let Some(p) = ready.pop() {
        settled += 1;
        order.push(p);
        let wp = t.slots[p as usize].w.load(Ordering::Relaxed);
        for &c in out_edges.get(&p).map_or(&[][..], Vec::as_slice) {
            if !t.add(c as usize, wp) {
                return Err(StatsError::Overflow);
            }
            let g = gained.entry(c).or_default();
            *g = g.checked_add(wp).ok_or(StatsError::Overflow)?;
            let d = indegree.entry(c).or_default();
            *d -= 1;
            if *d == 0 {
                ready.push(c);
            }
        }
    }
    if settled != indegree.len() {
        return Err(StatsError::Game(
            "the moves within a layer form a cycle".into(),
        ));
    }
    Ok(order
        .into_iter()
        .filter_map(|n| gained.get(&n).map(|&g| (n as usize, g)))
        .collect())
}

/// The distributions `N(S, .)` of one layer: state `i`'s counts for
/// `d = -r ..= r` are `counts[start .. start + 2r + 1]`, `spans[i] =
/// (start, r)`.
#[derive(Default)]
struct Dists {
    spans: Vec<(usize, usize)>,
    counts: Vec<u128>,
}

impl Dists {
    #[inline]
    fn get(&self, i: usize) -> (&[u128], i64) {
        let (start, r) = self.spans[i];
        (&self.counts[start..start + 2 * r + 1], r as i64)
    }
}

/// One part of a backward layer: the distributions of its states that need
/// no same-layer child, and the states that do.
struct BackwardPart {
    dists: Dists,
    deferred: Vec<usize>,
}

/// Counts the complete games by the net score of the side to move at the
/// start (see the module documentation); fits games whose key leaves the
/// score out, and any other whose start has no score yet.
pub(crate) fn backward(game: &dyn Game, set: &LayerSet) -> Result<Outcomes, StatsError> {
    let (first, start) = start_of(game, set)?;
    let mut window = Window::default();
    let mut next = Dists::default();
    let threads = rayon::current_num_threads().max(1);
    for l in (first..set.layers.len()).rev() {
        let keys = &set.layers[l].keys;
        if keys.is_empty() {
            next = Dists::default();
            continue;
        }
        window.at(set, l)?;
        // Many parts: each owns only its states' counts.
        let size = keys.len().div_ceil(threads * 8).max(1);
        let parts: Vec<Result<BackwardPart, StatsError>> = keys
            .par_chunks(size)
            .enumerate()
            .map(|(c, keys)| {
                let mut part = BackwardPart {
                    dists: Dists::default(),
                    deferred: Vec::new(),
                };
                let mut edges = Vec::new();
                let mut found = Vec::new();
                for (j, &key) in keys.iter().enumerate() {
                    edges.clear();
                    game.canonical_children(key, &mut edges);
                    resolve(game, &window, l, key, &edges, &mut found)?;
                    if found.iter().any(|&(cl, _)| cl == l) {
                        part.deferred.push(c * size + j);
                        part.dists.spans.push((0, 0));
                        continue;
                    }
                    combine(l, &edges, &found, &next, None, &mut part.dists)?;
                }
                Ok(part)
            })
            .collect();
        let mut this = Dists::default();
        let mut deferred = Vec::new();
        for part in parts {
            let part = part?;
            let base = this.counts.len();
            this.spans
                .extend(part.dists.spans.iter().map(|&(s, r)| (s + base, r)));
            this.counts.extend(part.dists.counts);
            deferred.extend(part.deferred);
        }
        // States with same-layer children (forced passes): once their
        // children are done, in rounds.
        let mut done = vec![true; keys.len()];
        for &i in &deferred {
            done[i] = false;
        }
        let mut edges = Vec::new();
        let mut found = Vec::new();
        while !deferred.is_empty() {
            let before = deferred.len();
            let mut waiting = Vec::new();
            for i in deferred {
                edges.clear();
                game.canonical_children(keys[i], &mut edges);
                resolve(game, &window, l, keys[i], &edges, &mut found)?;
                if found.iter().any(|&(cl, ci)| cl == l && !done[ci]) {
                    waiting.push(i);
                    continue;
                }
                let mut one = Dists::default();
                combine(l, &edges, &found, &next, Some(&this), &mut one)?;
                let (counts, r) = one.get(0);
                this.spans[i] = (this.counts.len(), r as usize);
                this.counts.extend_from_slice(counts);
                done[i] = true;
            }
            if waiting.len() == before {
                return Err(StatsError::Game(
                    "the moves within a layer form a cycle".into(),
                ));
            }
            deferred = waiting;
        }
        if l == first {
            let (counts, r) = this.get(start);
            let mut out = Outcomes::default();
            let sign = game.to_move(game.start()).sign();
            for (j, &n) in counts.iter().enumerate() {
                if n > 0 {
                    out.add(sign * (j as i64 - r) as i32, n)?;
                }
            }
            return Ok(out);
        }
        next = this;
    }
    // `start_of` found the start in layer `first`, which the loop reaches.
    Err(StatsError::Game("the start was never reached".into()))
}

/// Appends the distribution of a state of layer `l` with moves `edges`
/// (children at `found`: in `next`, or for layer `l` itself in `this`) to
/// `out`.
fn combine(
    l: usize,
    edges: &[Edge],
    found: &[(usize, usize)],
    next: &Dists,
    this: Option<&Dists>,
    out: &mut Dists,
) -> Result<(), StatsError> {
    let child = |k: usize| -> Result<(&[u128], i64), StatsError> {
        match (found[k], this) {
            ((cl, ci), Some(t)) if cl == l => Ok(t.get(ci)),
            ((cl, ci), _) if cl == l + 1 => Ok(next.get(ci)),
            _ => Err(StatsError::Game("a same-layer child was not ready".into())),
        }
    };
    // The widest net any continuation reaches.
    let mut r = 0i64;
    for (k, e) in edges.iter().enumerate() {
        let (_, rc) = child(k)?;
        r = r.max(i64::from(e.reward).abs() + rc);
    }
    let start = out.counts.len();
    out.counts.resize(start + 2 * r as usize + 1, 0);
    out.spans.push((start, r as usize));
    if edges.is_empty() {
        out.counts[start] = 1; // r = 0: the one empty sequence, net 0
        return Ok(());
    }
    for (k, e) in edges.iter().enumerate() {
        let (counts, rc) = child(k)?;
        let reward = i64::from(e.reward);
        for (j, &n) in counts.iter().enumerate() {
            if n == 0 {
                continue;
            }
            let dc = j as i64 - rc;
            let d = if e.again { reward + dc } else { reward - dc };
            let slot = &mut out.counts[start + (d + r) as usize];
            *slot = add(*slot, n)?;
        }
    }
    Ok(())
}
