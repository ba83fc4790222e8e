//! The published facts about British Square (tests/vectors/british_square.txt),
//! checked against full 5x5 solves written to and read back from a database.

use std::collections::HashMap;
use std::sync::OnceLock;

use boardsolve::core::NoProgress;
use boardsolve::db::{write_database, Database};
use boardsolve::games::british_square::BritishSquare;
use boardsolve::solve::solve;
use boardsolve::{analyze, Game, Move};

struct Solved {
    game: BritishSquare,
    db: Database,
    _dir: tempfile::TempDir,
}

/// Each variant is solved once per test binary.
fn solved(variant: &str) -> &'static Solved {
    static CACHE: OnceLock<std::sync::Mutex<HashMap<String, &'static Solved>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut map = cache.lock().unwrap();
    map.entry(variant.to_owned()).or_insert_with(|| {
        let game = BritishSquare::from_variant(variant).unwrap();
        let solution = solve(&game, &NoProgress).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bsq.db");
        write_database(&path, game.descriptor(), &solution.into()).unwrap();
        let db = Database::open(&path).unwrap();
        Box::leak(Box::new(Solved {
            game,
            db,
            _dir: dir,
        }))
    })
}

/// The statistics of a variant's database, computed once per test binary.
fn stats(variant: &str) -> &'static boardsolve::analysis::stats::Stats {
    static CACHE: OnceLock<
        std::sync::Mutex<HashMap<String, &'static boardsolve::analysis::stats::Stats>>,
    > = OnceLock::new();
    let s = solved(variant);
    let cache = CACHE.get_or_init(Default::default);
    let mut map = cache.lock().unwrap();
    map.entry(variant.to_owned()).or_insert_with(|| {
        let game = boardsolve::registry::AnyGame::from_header(s.db.header()).unwrap();
        let options = boardsolve::analysis::stats::Options {
            playouts: true,
            heuristics: None,
            examples: 0,
        };
        Box::leak(Box::new(
            boardsolve::analysis::stats::compute(game.game(), game.heuristics(), &s.db, &options)
                .unwrap(),
        ))
    })
}

fn vectors() -> Vec<Vec<String>> {
    include_str!("../vectors/british_square.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split_whitespace().map(str::to_owned).collect())
        .collect()
}

/// X's final score after each cell, `-` where the move is illegal.
fn first_move_map(s: &Solved, position: &str) -> String {
    let state = s.game.parse_position(position).unwrap();
    let a = analyze(&s.game, &s.db, state).unwrap();
    let n = s.game.side();
    let mut rows = Vec::new();
    for r in 0..n {
        let mut row = String::new();
        for c in 0..n {
            let cell = (r * n + c) as u16;
            match a.moves.iter().find(|m| m.mv == Move(cell)) {
                Some(m) => row.push_str(&m.score.to_string()),
                None => row.push('-'),
            }
        }
        rows.push(row);
    }
    rows.join("/")
}

#[test]
fn published_facts_hold() {
    let vectors = vectors();
    assert!(vectors.len() >= 8, "the vector file was read");
    for v in vectors {
        let s = solved(&v[1]);
        match v[0].as_str() {
            "states" => {
                assert_eq!(s.db.len(), v[2].parse::<u64>().unwrap(), "{v:?}");
                s.db.verify_checksum().unwrap();
            }
            "value" => {
                let state = s.game.parse_position(&v[2]).unwrap();
                let a = analyze(&s.game, &s.db, state).unwrap();
                assert_eq!(a.score, v[3].parse::<i32>().unwrap(), "{v:?}");
            }
            "map" => assert_eq!(first_move_map(s, &v[2]), v[3], "{v:?}"),
            "terminals" | "games" => {
                let want: Vec<u128> = v[2..].iter().map(|n| n.parse().unwrap()).collect();
                let stats = stats(&v[1]);
                let got: Vec<u128> = if v[0] == "terminals" {
                    let t = stats.terminals;
                    let [x, o, ties] = t.outcomes.expect("the key holds the score");
                    vec![t.count.into(), x.into(), o.into(), ties.into()]
                } else {
                    let p = stats.playouts.as_ref().expect("games are counted");
                    vec![p.games, p.first_wins, p.second_wins, p.ties]
                };
                assert_eq!(got, want, "{v:?}");
            }
            other => panic!("unknown vector kind {other}"),
        }
    }
}

#[test]
fn full_database_verifies() {
    let s = solved("5x5");
    let report = boardsolve::analysis::verify::verify(&s.db, &s.game, &NoProgress).unwrap();
    assert_eq!(report.records, 8_659_987);
    assert!(report.children_checked);
}

#[test]
fn forced_pass_states_are_stored_and_pass_through() {
    let s = solved("5x5");
    let g = &s.game;
    // Walk deterministic pseudo-random games until forced passes show up.
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut passes = 0;
    let mut edges = Vec::new();
    for _ in 0..200 {
        let mut state = g.start();
        loop {
            let a = analyze(g, &s.db, state).unwrap();
            if a.moves.is_empty() {
                break;
            }
            if a.moves[0].mv == Move::PASS {
                assert_eq!(a.moves.len(), 1, "a pass is the only move");
                let after = analyze(g, &s.db, a.moves[0].child).unwrap();
                // The final score is the same, seen from the other side.
                assert_eq!(a.score, -after.score, "a pass keeps the score");
                assert_eq!(
                    a.value.remoteness,
                    after.value.remoteness + 1,
                    "a pass is a ply"
                );
                assert_ne!(after.moves[0].mv, Move::PASS, "the opponent can move");
                passes += 1;
            }
            edges.clear();
            g.moves(state, &mut edges);
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            state = edges[(seed % edges.len() as u64) as usize].child;
        }
    }
    assert!(passes > 10, "only {passes} forced passes met");
}

#[test]
fn positions_analysed_together_are_analysed_as_alone() {
    let s = solved("5x5");
    let g = &s.game;
    // The positions of a few pseudo-random games, ends included, and in
    // groups of every size up to 17.
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut states = Vec::new();
    let mut edges = Vec::new();
    for _ in 0..20 {
        let mut state = g.start();
        loop {
            states.push(state);
            edges.clear();
            g.moves(state, &mut edges);
            if edges.is_empty() {
                break;
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            state = edges[(seed % edges.len() as u64) as usize].child;
        }
    }
    s.db.build_index();
    let mut together = Vec::new();
    let mut size = 1;
    let mut rest = &states[..];
    while !rest.is_empty() {
        let (group, after) = rest.split_at(size.min(rest.len()));
        boardsolve::analysis::analyze_many(g, &s.db, group, &mut together);
        assert_eq!(together.len(), group.len());
        for (&state, t) in group.iter().zip(&together) {
            let alone = analyze(g, &s.db, state);
            assert!(t.is_ok(), "{}", g.format_position(state));
            assert_eq!(format!("{t:?}"), format!("{alone:?}"));
        }
        rest = after;
        size = size % 17 + 1;
    }
}
