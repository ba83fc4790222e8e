//! Whole-game statistics (`crate::analysis::stats`) against brute force: every
//! count recomputed by walking the game from the start with the plain move
//! generator and a plain minimax, with no canonical weighting and no
//! database. British Square 3x3 and Dots and Boxes 1x2 walk every complete
//! game literally; British Square 4x4 and Dots and Boxes 2x2 count games
//! with a memoised recursion over raw (non-canonical) states.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::analysis::stats::{self, compute, playouts, LayerSet, Options, Outcomes};
use crate::core::NoProgress;
use crate::db::{write_database, Database};
use crate::registry::AnyGame;
use crate::{Edge, Game, Move, Position};

/// Solves a game and opens its database.
fn solved(name: &str, variant: &str) -> (AnyGame, Database, tempfile::TempDir) {
    let game = AnyGame::new(name, variant).unwrap();
    let solution = game.solve(&NoProgress).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    write_database(&path, game.game().descriptor(), &solution).unwrap();
    let db = Database::open(&path).unwrap();
    (game, db, dir)
}

fn moves(g: &dyn Game, s: u64) -> Vec<Edge> {
    let mut v = Vec::new();
    g.moves(s, &mut v);
    v
}

/// Plain negamax over raw states: what the side to move nets from here.
fn minimax(g: &dyn Game, s: u64, memo: &mut HashMap<u64, i32>) -> i32 {
    if let Some(&v) = memo.get(&s) {
        return v;
    }
    let v = moves(g, s)
        .iter()
        .map(|e| {
            let c = minimax(g, e.child, memo);
            i32::from(e.reward) + if e.again { c } else { -c }
        })
        .max()
        .unwrap_or(0);
    memo.insert(s, v);
    v
}

/// Every complete game, one by one: adds each game's final lead.
fn walk_literally(g: &dyn Game, p: Position, out: &mut Outcomes) {
    let ms = moves(g, p.state);
    if ms.is_empty() {
        out.add(p.lead.unwrap(), 1).unwrap();
    }
    for e in &ms {
        walk_literally(g, p.play(e), out);
    }
}

/// The number of complete games from `s` by what the side to move at `s`
/// nets from there on (memoised on the raw state, which decides the rest).
fn continuations(
    g: &dyn Game,
    s: u64,
    memo: &mut HashMap<u64, BTreeMap<i32, u128>>,
) -> BTreeMap<i32, u128> {
    if let Some(d) = memo.get(&s) {
        return d.clone();
    }
    let ms = moves(g, s);
    let mut d = BTreeMap::new();
    if ms.is_empty() {
        d.insert(0, 1);
    }
    for e in &ms {
        for (net, n) in continuations(g, e.child, memo) {
            let mine = i32::from(e.reward) + if e.again { net } else { -net };
            *d.entry(mine).or_default() += n;
        }
    }
    memo.insert(s, d.clone());
    d
}

/// Every state reachable from the start (raw, not canonicalised).
fn reachable(g: &dyn Game) -> HashSet<u64> {
    let mut seen = HashSet::from([g.start()]);
    let mut stack = vec![g.start()];
    while let Some(s) = stack.pop() {
        for e in moves(g, s) {
            if seen.insert(e.child) {
                stack.push(e.child);
            }
        }
    }
    seen
}

/// What `query stats` should say, by brute force.
struct Expected {
    states: u64,
    by_layer_value: BTreeMap<(usize, i32), u64>,
    terminals: u64,
    terminal_outcomes: Option<[u64; 3]>,
    playouts: Outcomes,
    heuristic_failures: Vec<(u64, u64)>,
}

fn brute_force(game: &AnyGame, literal: bool, every_key: bool) -> Expected {
    let g = game.game();
    let mut memo = HashMap::new();
    let raw = reachable(g);
    // The states the database holds: one per symmetry class, or every key.
    let states: HashSet<u64> = if every_key {
        raw.clone()
    } else {
        raw.iter().map(|&s| g.canonical(s)).collect()
    };
    let mut by_layer_value = BTreeMap::new();
    let mut terminals = 0;
    let mut outcomes = [0u64; 3];
    let heuristics = game.heuristics();
    let mut heuristic_failures = vec![(0u64, 0u64); heuristics.len()];
    for &s in &states {
        let net = minimax(g, s, &mut memo);
        *by_layer_value
            .entry((g.layer(s), g.score(s, net)))
            .or_default() += 1;
        let ms = moves(g, s);
        if ms.is_empty() {
            terminals += 1;
            if let Some(l) = g.lead(s) {
                outcomes[match l.signum() {
                    1 => 0,
                    -1 => 1,
                    _ => 2,
                }] += 1;
            }
            continue;
        }
        if ms.len() == 1 && ms[0].mv == Move::PASS {
            continue;
        }
        for (h, counts) in heuristics.iter().zip(&mut heuristic_failures) {
            let mut picks = Vec::new();
            h.choose(s, &ms, &mut picks);
            assert!(!picks.is_empty());
            counts.0 += 1;
            let fails = picks.iter().any(|m| {
                let e = ms.iter().find(|e| e.mv == *m).unwrap();
                let c = minimax(g, e.child, &mut memo);
                i32::from(e.reward) + if e.again { c } else { -c } != net
            });
            counts.1 += u64::from(fails);
        }
    }
    let start = Position {
        state: g.start(),
        to_move: g.to_move(g.start()),
        lead: Some(0),
    };
    let mut playouts = Outcomes::default();
    if literal {
        walk_literally(g, start, &mut playouts);
    } else {
        let mut memo = HashMap::new();
        for (d, n) in continuations(g, g.start(), &mut memo) {
            playouts.add(d * start.to_move.sign(), n).unwrap();
        }
    }
    Expected {
        states: states.len() as u64,
        by_layer_value,
        terminals,
        terminal_outcomes: g.lead(g.start()).map(|_| outcomes),
        playouts,
        heuristic_failures,
    }
}

fn check(name: &str, variant: &str, literal: bool) {
    let (game, db, _dir) = solved(name, variant);
    let g = game.game();
    let every_key = g.descriptor().dense;
    let want = brute_force(&game, literal, every_key);
    let got = compute(game.game(), game.heuristics(), &db, &Options::all()).unwrap();
    let label = format!("{name} {variant}");
    assert_eq!(got.states, want.states, "{label}: states");
    assert_eq!(
        got.by_layer_value, want.by_layer_value,
        "{label}: by layer and value"
    );
    let mut by_layer = vec![0u64; g.layer_count()];
    let mut by_value = BTreeMap::new();
    for (&(l, v), &n) in &want.by_layer_value {
        by_layer[l] += n;
        *by_value.entry(v).or_insert(0u64) += n;
    }
    assert_eq!(got.by_layer, by_layer, "{label}: by layer");
    assert_eq!(got.by_value, by_value, "{label}: by value");
    assert_eq!(got.terminals.count, want.terminals, "{label}: terminals");
    assert_eq!(
        got.terminals.outcomes, want.terminal_outcomes,
        "{label}: terminal outcomes"
    );
    assert_eq!(
        got.playouts.as_ref().unwrap(),
        &want.playouts,
        "{label}: playouts"
    );
    let reports = got.heuristics.as_ref().unwrap();
    assert_eq!(reports.len(), want.heuristic_failures.len(), "{label}");
    for (r, &(positions, failures)) in reports.iter().zip(&want.heuristic_failures) {
        assert_eq!(
            (r.positions, r.failures),
            (positions, failures),
            "{label}: {}",
            r.name
        );
    }
    // Both counting methods agree wherever both apply.
    let set = LayerSet::from_database(g, &db).unwrap();
    let backward = playouts::backward(g, &set).unwrap();
    assert_eq!(backward, want.playouts, "{label}: backward method");
    if g.lead(g.start()).is_some() {
        assert_eq!(
            playouts::forward(g, &set).unwrap(),
            want.playouts,
            "{label}: forward"
        );
    }
}

#[test]
fn british_square_3x3_matches_a_literal_walk_of_every_game() {
    check("british-square", "3x3", true);
    check("british-square", "3x3,center-allowed", true);
}

#[test]
fn british_square_4x4_matches_brute_force() {
    check("british-square", "4x4", false);
}

#[test]
fn dots_and_boxes_matches_brute_force() {
    check("dots-and-boxes", "1x1", true);
    check("dots-and-boxes", "1x2", true);
    check("dots-and-boxes", "2x2", false);
}

#[test]
fn small_boards_have_the_known_game_counts() {
    // Dots and Boxes: every order of the edges is a game.
    let (game, db, _dir) = solved("dots-and-boxes", "2x2");
    let s = compute(game.game(), game.heuristics(), &db, &Options::all()).unwrap();
    let p = s.playouts.unwrap();
    assert_eq!(p.games, (1..=12u128).product::<u128>());
    assert_eq!(p.first_wins + p.second_wins + p.ties, p.games);
    // British Square 3x3, counted by hand from the literal walk above.
    let (game, db, _dir) = solved("british-square", "3x3");
    let s = compute(game.game(), game.heuristics(), &db, &Options::all()).unwrap();
    assert_eq!(s.states, 74);
    assert_eq!(s.start.score, 1);
}

#[test]
fn examples_are_the_first_failures_and_really_fail() {
    let (game, db, _dir) = solved("british-square", "4x4");
    let g = game.game();
    let options = Options {
        playouts: false,
        heuristics: Some(Some("greedy".into())),
        examples: 5,
    };
    let s = compute(game.game(), game.heuristics(), &db, &options).unwrap();
    let r = &s.heuristics.unwrap()[0];
    assert_eq!(r.examples.len(), 5);
    let order: Vec<(usize, u64)> = r.examples.iter().map(|&k| (g.layer(k), k)).collect();
    let mut sorted = order.clone();
    sorted.sort_unstable();
    assert_eq!(order, sorted, "examples come by layer, then key");
    let h = &game.heuristics()[0];
    for &k in &r.examples {
        let f = stats::heuristics::explain(g, &db, h, k).unwrap();
        assert!(f
            .picks
            .iter()
            .any(|m| !f.analysis.moves.iter().any(|x| x.mv == *m && x.best)));
    }
}

#[test]
fn unknown_heuristics_are_named_errors() {
    let (game, db, _dir) = solved("british-square", "3x3");
    let options = Options {
        playouts: false,
        heuristics: Some(Some("nope".into())),
        examples: 0,
    };
    let e = compute(game.game(), game.heuristics(), &db, &options).unwrap_err();
    assert!(
        matches!(e, stats::StatsError::UnknownHeuristic { .. }),
        "{e}"
    );
    assert!(e.to_string().contains("greedy"), "{e}");
}

#[test]
fn british_square_greedy_denies_the_most_cells() {
    let game = AnyGame::new("british-square", "5x5").unwrap();
    let g = game.game();
    let h = &game.heuristics()[0];
    // From the start, a move in the middle of the board denies O five cells
    // (the cell and its four neighbours), a corner only three; the centre
    // itself is not legal.
    let s = g.start();
    let mut picks = Vec::new();
    h.choose(s, &moves(g, s), &mut picks);
    let want: Vec<Move> = [6, 7, 8, 11, 13, 16, 17, 18].map(Move).to_vec();
    assert_eq!(picks, want);
}
