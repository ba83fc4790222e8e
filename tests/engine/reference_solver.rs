//! An independent, deliberately naive reference solver for British Square,
//! checked against the library's solver on the 3x3 and 4x4 variants.
//!
//! The reference shares nothing with the library but the key layout of
//! `format-spec.md` section 5: its own rules (row/column loops on an `N x N`
//! board), its own symmetries, plain recursive minimax with a `HashMap` memo
//! over raw (non-canonical) states, and the tie-break of section 4.

use std::collections::{BTreeSet, HashMap, HashSet};

use boardsolve::core::{NoProgress, Solution};
use boardsolve::games::british_square::BritishSquare;
use boardsolve::solve::solve;
use boardsolve::{Game, Move, Value};

/// A raw position: X's cells, O's cells (bit `r * n + c`), and whether O moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct State {
    x: u64,
    o: u64,
    o_to_move: bool,
}

/// What the reference finds for a position: net score for the side to move
/// and remoteness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RefValue {
    net: i32,
    remoteness: u32,
}

/// A reference move: `None` is the forced pass, `Some(cell)` a placement.
type RefMove = Option<usize>;

struct Reference {
    n: usize,
    center_allowed: bool,
    memo: HashMap<State, RefValue>,
}

impl Reference {
    fn new(n: usize, center_allowed: bool) -> Self {
        Reference {
            n,
            center_allowed,
            memo: HashMap::new(),
        }
    }

    fn cell(&self, r: usize, c: usize) -> usize {
        r * self.n + c
    }

    fn has(bits: u64, cell: usize) -> bool {
        bits >> cell & 1 == 1
    }

    /// The key of `format-spec.md` section 5.
    fn key(&self, s: State) -> u64 {
        let cells = self.n * self.n;
        s.x | s.o << cells | u64::from(s.o_to_move) << (2 * cells)
    }

    /// The cells where the side given by `o_moves` may place a piece.
    fn placements(&self, x: u64, o: u64, o_moves: bool) -> Vec<usize> {
        let n = self.n;
        let theirs = if o_moves { x } else { o };
        let mut out = Vec::new();
        for r in 0..n {
            for c in 0..n {
                let cell = self.cell(r, c);
                if Self::has(x, cell) || Self::has(o, cell) {
                    continue;
                }
                let mut next_to_opponent = false;
                if r > 0 && Self::has(theirs, self.cell(r - 1, c)) {
                    next_to_opponent = true;
                }
                if r + 1 < n && Self::has(theirs, self.cell(r + 1, c)) {
                    next_to_opponent = true;
                }
                if c > 0 && Self::has(theirs, self.cell(r, c - 1)) {
                    next_to_opponent = true;
                }
                if c + 1 < n && Self::has(theirs, self.cell(r, c + 1)) {
                    next_to_opponent = true;
                }
                if next_to_opponent {
                    continue;
                }
                let opening = !o_moves && x == 0 && o == 0;
                let centre = n % 2 == 1 && r == n / 2 && c == n / 2;
                if opening && centre && !self.center_allowed {
                    continue;
                }
                out.push(cell);
            }
        }
        out
    }

    /// Every move of `s` with its reward and the position it leads to.
    fn moves(&self, s: State) -> Vec<(RefMove, i32, State)> {
        let mine = self.placements(s.x, s.o, s.o_to_move);
        if mine.is_empty() {
            if self.placements(s.x, s.o, !s.o_to_move).is_empty() {
                return Vec::new();
            }
            let pass = State {
                o_to_move: !s.o_to_move,
                ..s
            };
            return vec![(None, 0, pass)];
        }
        mine.into_iter()
            .map(|cell| {
                let child = if s.o_to_move {
                    State {
                        x: s.x,
                        o: s.o | 1 << cell,
                        o_to_move: false,
                    }
                } else {
                    State {
                        x: s.x | 1 << cell,
                        o: s.o,
                        o_to_move: true,
                    }
                };
                (Some(cell), 1, child)
            })
            .collect()
    }

    /// Section 4's tie-break: is `a` strictly better than `b` for the mover?
    fn better(a: RefValue, b: RefValue) -> bool {
        if a.net != b.net {
            return a.net > b.net;
        }
        if a.net >= 0 {
            a.remoteness < b.remoteness
        } else {
            a.remoteness > b.remoteness
        }
    }

    fn value(&mut self, s: State) -> RefValue {
        if let Some(&v) = self.memo.get(&s) {
            return v;
        }
        let mut best: Option<RefValue> = None;
        for (_, reward, child) in self.moves(s) {
            let c = self.value(child);
            let through = RefValue {
                net: reward - c.net,
                remoteness: c.remoteness + 1,
            };
            if best.is_none_or(|b| Self::better(through, b)) {
                best = Some(through);
            }
        }
        let v = best.unwrap_or(RefValue {
            net: 0,
            remoteness: 0,
        });
        self.memo.insert(s, v);
        v
    }

    /// Every raw position reachable from the empty board, X to move.
    fn reachable(&self) -> Vec<State> {
        let start = State {
            x: 0,
            o: 0,
            o_to_move: false,
        };
        let mut seen = HashSet::from([start]);
        let mut stack = vec![start];
        while let Some(s) = stack.pop() {
            for (_, _, child) in self.moves(s) {
                if seen.insert(child) {
                    stack.push(child);
                }
            }
        }
        let mut all: Vec<State> = seen.into_iter().collect();
        all.sort_by_key(|&s| self.key(s));
        all
    }

    /// The 8 images of `s` under the symmetries of the square, built from
    /// mirroring (`c' = n-1-c`), flipping (`r' = n-1-r`) and transposing.
    fn images(&self, s: State) -> Vec<State> {
        let n = self.n;
        let mut out = Vec::with_capacity(8);
        for sym in 0..8 {
            let map = |bits: u64| {
                let mut img = 0u64;
                for r in 0..n {
                    for c in 0..n {
                        if !Self::has(bits, self.cell(r, c)) {
                            continue;
                        }
                        let (mut r2, mut c2) = (r, c);
                        if sym & 1 != 0 {
                            c2 = n - 1 - c2;
                        }
                        if sym & 2 != 0 {
                            r2 = n - 1 - r2;
                        }
                        if sym & 4 != 0 {
                            std::mem::swap(&mut r2, &mut c2);
                        }
                        img |= 1 << self.cell(r2, c2);
                    }
                }
                img
            };
            out.push(State {
                x: map(s.x),
                o: map(s.o),
                o_to_move: s.o_to_move,
            });
        }
        out
    }

    /// The smallest key among the 8 images of `s`.
    fn canonical_key(&self, s: State) -> u64 {
        self.images(s)
            .into_iter()
            .map(|img| self.key(img))
            .min()
            .expect("8 images")
    }
}

/// The library's solution and the reference's findings for one variant.
struct Checked {
    game: BritishSquare,
    solution: Solution,
    reference: Reference,
    reachable: Vec<State>,
}

/// Solves one variant both ways and checks that they agree everywhere.
fn check_variant(n: usize, center_allowed: bool) -> Checked {
    let label = format!("{n}x{n} center_allowed={center_allowed}");
    let game = BritishSquare::new(n as u32, center_allowed).expect("supported variant");
    let solution = solve(&game, &NoProgress).expect("the library solves the variant");
    let mut reference = Reference::new(n, center_allowed);
    let reachable = reference.reachable();
    let start = State {
        x: 0,
        o: 0,
        o_to_move: false,
    };
    reference.value(start);
    assert_eq!(
        reference.memo.len(),
        reachable.len(),
        "{label}: the memo covers exactly the reachable positions"
    );

    // (c) Records strictly ascending, with the spec's layout for the game.
    assert!(
        solution.records.windows(2).all(|w| w[0] < w[1]),
        "{label}: records are not strictly ascending"
    );
    let layout = solution.layout;
    assert_eq!(
        (layout.remoteness_shift, layout.remoteness_bits),
        (0, 6),
        "{label}"
    );
    assert_eq!((layout.value_shift, layout.value_bits), (6, 6), "{label}");
    assert_eq!(
        (layout.key_shift, layout.key_bits),
        (12, 2 * (n * n) as u32 + 1),
        "{label}"
    );

    // (a) The canonical keys of the reachable positions are exactly the keys
    // in the records, and the library canonicalises like the reference.
    let mut expected_keys = BTreeSet::new();
    let mut edges = Vec::new();
    for &s in &reachable {
        let key = reference.key(s);
        let canonical = reference.canonical_key(s);
        assert_eq!(
            game.canonical(key),
            canonical,
            "{label}: canonical key of {}",
            game.format_position(key)
        );
        let mut lib_images: Vec<u64> = (0..8).map(|sym| game.transform(key, sym)).collect();
        let mut ref_images: Vec<u64> = reference
            .images(s)
            .into_iter()
            .map(|img| reference.key(img))
            .collect();
        lib_images.sort_unstable();
        ref_images.sort_unstable();
        assert_eq!(
            lib_images,
            ref_images,
            "{label}: symmetry images of {}",
            game.format_position(key)
        );
        assert!(game.is_valid_key(key), "{label}: {key:#x} is valid");
        expected_keys.insert(canonical);

        // The library's moves agree with the reference rules (a cross-check
        // that pinpoints a rules bug before it shows up as a wrong value).
        edges.clear();
        game.moves(key, &mut edges);
        let lib_moves: Vec<(Move, u64, i8, bool)> = edges
            .iter()
            .map(|e| (e.mv, e.child, e.reward, e.again))
            .collect();
        let ref_moves: Vec<(Move, u64, i8, bool)> = reference
            .moves(s)
            .into_iter()
            .map(|(mv, reward, child)| {
                let mv = mv.map_or(Move::PASS, |c| Move(c as u16));
                (mv, reference.key(child), reward as i8, false)
            })
            .collect();
        assert_eq!(
            lib_moves,
            ref_moves,
            "{label}: moves of {}",
            game.format_position(key)
        );
    }
    let record_keys: BTreeSet<u64> = solution.records.iter().map(|&r| layout.key(r)).collect();
    assert_eq!(record_keys.len(), solution.records.len(), "{label}");
    let missing: Vec<_> = expected_keys.difference(&record_keys).take(5).collect();
    let extra: Vec<_> = record_keys.difference(&expected_keys).take(5).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{label}: reachable canonical keys missing from the records: {missing:x?}; \
         records that are not reachable: {extra:x?}"
    );
    assert_eq!(
        solution.layer_sizes.iter().sum::<usize>(),
        solution.records.len(),
        "{label}"
    );
    assert_eq!(solution.start, reference.canonical_key(start), "{label}");

    // (b) Every reachable position has the reference value under its
    // canonical key.
    for &s in &reachable {
        let key = reference.key(s);
        let expected = reference.memo[&s];
        let stored = solution.get(reference.canonical_key(s));
        assert_eq!(
            stored,
            Some(Value {
                net: expected.net,
                remoteness: expected.remoteness,
            }),
            "{label}: value of {}",
            game.format_position(key)
        );
    }

    Checked {
        game,
        solution,
        reference,
        reachable,
    }
}

fn start_value(c: &Checked) -> Value {
    c.solution
        .get(c.game.canonical(c.game.start()))
        .expect("start is stored")
}

/// Plays `line` (`None` = pass) from the start with the reference, asserting
/// that every move is legal and keeps the value of the position it is played
/// in (so the line is perfect play), and returns the final position.
fn play_perfect_line(c: &mut Checked, line: &[RefMove]) -> State {
    let mut s = State {
        x: 0,
        o: 0,
        o_to_move: false,
    };
    for &mv in line {
        let here = c.reference.value(s);
        let (_, reward, child) = c
            .reference
            .moves(s)
            .into_iter()
            .find(|m| m.0 == mv)
            .unwrap_or_else(|| panic!("{mv:?} is not legal in {s:?}"));
        let after = c.reference.value(child);
        assert_eq!(
            (reward - after.net, after.remoteness + 1),
            (here.net, here.remoteness),
            "{mv:?} is not a perfect move in {s:?}"
        );
        s = child;
    }
    s
}

/// X's final score as the spec defines it, from a position and its value.
fn final_score(s: State, v: RefValue) -> i32 {
    let diff = s.x.count_ones() as i32 - s.o.count_ones() as i32;
    if s.o_to_move {
        diff - v.net
    } else {
        diff + v.net
    }
}

#[test]
fn three_by_three_matches_the_reference() {
    let mut c = check_variant(3, false);

    // Up to symmetry X opens in a corner or on an edge (not in the centre).
    // After a corner (a1) O has b2, c1~a3, c2~b3, c3 (4 classes under the
    // diagonal mirror); after an edge (b1) O has a2~c2, a3~c3, b3 (3 classes).
    assert_eq!(c.solution.layer_sizes[..3], [1, 2, 7]);
    assert_eq!(c.reachable.len(), 453);
    assert_eq!(c.solution.records.len(), 74);

    // X wins by one in 5 plies; a corner opening keeps that, an edge opening
    // only draws.
    let start = start_value(&c);
    assert_eq!(
        start,
        Value {
            net: 1,
            remoteness: 5
        }
    );
    let mut edges = Vec::new();
    c.game.moves(c.game.start(), &mut edges);
    for e in &edges {
        let v = c.solution.get(c.game.canonical(e.child)).unwrap();
        let corner = [0, 2, 6, 8].contains(&e.mv.0);
        // The child's score is for O, to move there: X's is its negative.
        assert_eq!(-c.game.score(e.child, v.net), i32::from(corner), "{e:?}");
    }

    // A perfect line, checkable by hand: X a1, O b2, X c3; O may now only
    // play c1 or a3 (b1, a2, c2, b3 touch X); after O c1, X's only cell is
    // a3; then every empty cell (the edges) touches both colours: game over
    // with X 3, O 2.
    let end = play_perfect_line(&mut c, &[Some(0), Some(4), Some(8), Some(2), Some(6)]);
    assert_eq!(
        c.game.format_position(c.reference.key(end)),
        "X.O/.O./X.X O"
    );
    assert!(c.reference.moves(end).is_empty());
    assert_eq!(final_score(end, c.reference.value(end)), 1);
}

#[test]
fn three_by_three_center_allowed_matches_the_reference() {
    let mut c = check_variant(3, true);
    // The centre opening adds one class per layer 1 and 2 (after it, O may
    // only take a corner: every edge touches the centre).
    assert_eq!(c.solution.layer_sizes[..3], [1, 3, 8]);
    assert_eq!(c.reachable.len(), 458);
    assert_eq!(c.solution.records.len(), 76);

    // Opening in the centre wins by two, and it is the only opening that
    // does: the others keep their values from the standard game.
    let start = start_value(&c);
    assert_eq!(
        start,
        Value {
            net: 2,
            remoteness: 7
        }
    );
    let mut edges = Vec::new();
    c.game.moves(c.game.start(), &mut edges);
    for e in &edges {
        let v = c.solution.get(c.game.canonical(e.child)).unwrap();
        let expected = match e.mv.0 {
            4 => 2,
            0 | 2 | 6 | 8 => 1,
            _ => 0,
        };
        assert_eq!(-c.game.score(e.child, v.net), expected, "{e:?}");
    }

    // A perfect line, checkable by hand: X b2, O a1 (corners only), X c2,
    // O a3 (c1 and c3 now touch X), X c1; O has no cell left (corners taken
    // or touching X, edges touch b2) and passes; X c3. X 4, O 2, 7 plies.
    let end = play_perfect_line(
        &mut c,
        &[Some(4), Some(0), Some(5), Some(6), Some(2), None, Some(8)],
    );
    assert_eq!(
        c.game.format_position(c.reference.key(end)),
        "O.X/.XX/O.X O"
    );
    assert!(c.reference.moves(end).is_empty());
    assert_eq!(final_score(end, c.reference.value(end)), 2);
    // Move lists may leave the forced pass out.
    assert_eq!(
        c.game.parse_position("4,0,5,6,2,8").unwrap(),
        c.reference.key(end)
    );
}

fn check_four_by_four(center_allowed: bool) {
    let c = check_variant(4, center_allowed);
    // No centre cell on an even board: opening classes are corner, edge and
    // inner cell, whatever the option.
    assert_eq!(c.solution.layer_sizes[..2], [1, 3]);
    assert_eq!(c.reachable.len(), 79_769);
    assert_eq!(c.solution.records.len(), 10_206);
    // A draw, in 8 plies; every opening draws.
    assert_eq!(
        start_value(&c),
        Value {
            net: 0,
            remoteness: 8
        }
    );
    let mut edges = Vec::new();
    c.game.moves(c.game.start(), &mut edges);
    assert_eq!(edges.len(), 16);
    for e in &edges {
        let v = c.solution.get(c.game.canonical(e.child)).unwrap();
        assert_eq!(c.game.score(e.child, v.net), 0, "{e:?}");
    }
}

#[test]
fn four_by_four_matches_the_reference() {
    check_four_by_four(false);
}

#[test]
fn four_by_four_center_allowed_matches_the_reference() {
    check_four_by_four(true);
}
