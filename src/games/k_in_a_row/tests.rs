//! k-in-a-row against a plain reference: negamax written from the rules,
//! with no pruning, no symmetry and no table but a memo of exact values.

use std::collections::HashMap;

use super::board::{Geometry, Stones, Variant};
use super::KInARow;
use crate::core::{Edge, Game, Move, Value};

/// The exact value of every position reached from `s`, by plain minimax
/// over the rules: +1 for a win of the side to move, the winner's fastest
/// and the loser's slowest line, a draw filling the board.
struct Reference {
    geo: Geometry,
    memo: HashMap<(u64, u64), Value>,
}

impl Reference {
    fn new(variant: &str) -> Reference {
        Reference {
            geo: Geometry::new(variant.parse::<Variant>().unwrap()),
            memo: HashMap::new(),
        }
    }

    fn value(&mut self, s: Stones) -> Value {
        if let Some(&v) = self.memo.get(&(s.x, s.o)) {
            return v;
        }
        let full = self.geo.full();
        let mover_is_x = s.x.count_ones() == s.o.count_ones();
        let done = self.geo.has_line(s.x) || self.geo.has_line(s.o) || (s.x | s.o) == full;
        let mut best: Option<Value> = None;
        if !done {
            for cell in 0..self.geo.cells() {
                let bit = 1u64 << cell;
                if (s.x | s.o) & bit != 0 {
                    continue;
                }
                let child = if mover_is_x {
                    Stones {
                        x: s.x | bit,
                        o: s.o,
                    }
                } else {
                    Stones {
                        x: s.x,
                        o: s.o | bit,
                    }
                };
                let mine = if mover_is_x { child.x } else { child.o };
                let v = if self.geo.has_line(mine) {
                    Value {
                        net: 1,
                        remoteness: 1,
                    }
                } else {
                    let c = self.value(child);
                    Value {
                        net: -c.net,
                        remoteness: c.remoteness + 1,
                    }
                };
                if best.is_none_or(|b| v.better_than(b)) {
                    best = Some(v);
                }
            }
        }
        let v = best.unwrap_or(Value::TERMINAL);
        self.memo.insert((s.x, s.o), v);
        v
    }
}

fn game(spec: &str) -> KInARow {
    KInARow::from_variant(spec).unwrap()
}

const EMPTY: Stones = Stones { x: 0, o: 0 };

/// Published results: tic-tac-toe and 4x4,k=4 are draws; 4x4,k=3 and
/// 3x4,k=3 first-player wins (k=3 wins on every board with both sides at
/// least 3 but 3x3).
#[test]
fn known_results() {
    for (spec, net) in [
        ("3x3,k=3", 0),
        ("3x4,k=3", 1),
        ("4x3,k=3", 1),
        ("2x2,k=2", 1),
        ("1x1,k=1", 1),
    ] {
        let mut r = Reference::new(spec);
        assert_eq!(r.value(EMPTY).net, net, "{spec}");
    }
    #[cfg(feature = "search")]
    for (spec, net) in [
        ("4x4,k=3", 1),
        ("4x4,k=4", 0),
        ("3x3,k=3", 0),
        ("5x4,k=4", 0),
    ] {
        let g = game(spec);
        let mut solver = super::Solver::new(&g, 20).unwrap();
        assert_eq!(solver.solve_outcome(EMPTY), net, "{spec}");
    }
}

/// The complete database equals the reference on every position of
/// tic-tac-toe, and on every position of 4x3,k=3 and 4x4,k=3 with few
/// stones or a key in a sample.
#[cfg(feature = "engine")]
#[test]
fn database_equals_reference() {
    use crate::core::NoProgress;
    for (spec, sample) in [
        ("3x3,k=3", 1),
        ("4x3,k=3", 7),
        ("4x4,k=3", 97),
        ("3x3,k=2", 1),
    ] {
        let g = game(spec);
        let solved = crate::solve::solve(&g, &NoProgress).unwrap();
        if spec == "3x3,k=3" {
            assert_eq!(solved.records.len() as u64, 765, "the canonical positions");
        }
        let mut r = Reference::new(spec);
        let mut checked = 0;
        for key in 0..g.geometry().key_end() {
            let Some((x, o)) = g.geometry().decode(key) else {
                continue;
            };
            let s = Stones { x, o };
            if !g.is_valid_key(key) || (s.count() > 4 && key % sample != 0) {
                continue;
            }
            let Some(v) = solved.get(g.canonical(key)) else {
                // Unreachable positions (a line and play after it) are
                // left out.
                continue;
            };
            assert_eq!(v, r.value(s), "{spec} {}", g.format_position(key));
            checked += 1;
        }
        assert!(checked > 100, "{spec}: {checked}");
    }
}

/// Keys decode to their stones and back, moves add one stone, and the
/// canonical key is the least image and the same for every image.
#[test]
fn keys_and_symmetries() {
    for spec in ["3x3,k=3", "4x3,k=3", "5x5,k=4", "2x7,k=2", "5x8,k=5"] {
        let g = game(spec);
        let geo = g.geometry();
        let mut seed = 0x1234_5678_9abc_def0u64;
        for _ in 0..500 {
            // A random position: stones alternate on random free cells.
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let stones = (seed % u64::from(geo.cells() + 1)) as u32;
            let mut s = EMPTY;
            let mut r = seed;
            for _ in 0..stones {
                let free: Vec<u32> = (0..geo.cells())
                    .filter(|&c| (s.x | s.o) >> c & 1 == 0)
                    .collect();
                r = r
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                s = g.play(s, free[(r >> 33) as usize % free.len()]);
            }
            let key = g.key(s);
            assert!(key < geo.key_end());
            assert_eq!(g.stones(key), s);
            assert_eq!(key.checked_shr(g.descriptor().key_bits).unwrap_or(0), 0);
            let images: Vec<u64> = (0..g.symmetry_count())
                .map(|t| g.transform(key, t))
                .collect();
            let least = *images.iter().min().unwrap();
            assert_eq!(g.canonical(key), least);
            for &i in &images {
                assert_eq!(g.canonical(i), least, "{spec}");
                assert_eq!(g.stones(i).count(), s.count());
            }
            // Moves and their images agree.
            let mut edges: Vec<Edge> = Vec::new();
            g.moves(key, &mut edges);
            for e in &edges {
                for t in 0..g.symmetry_count() {
                    let mut img: Vec<Edge> = Vec::new();
                    g.moves(g.transform(key, t), &mut img);
                    let mv = g.transform_move(e.mv, t);
                    let found = img.iter().find(|f| f.mv == mv).unwrap();
                    assert_eq!(found.child, g.transform(e.child, t));
                    assert_eq!(found.reward, e.reward);
                }
            }
            // The text reads back.
            let text = g.format_position(key);
            if g.is_valid_key(key) {
                assert_eq!(g.parse_position(&text), Ok(key), "{text}");
            }
        }
    }
}

/// The search agrees with the reference, value and remoteness, on every
/// position of tic-tac-toe and on positions of 4x3,k=3 and 4x4,k=4.
#[cfg(feature = "search")]
#[test]
fn search_equals_reference() {
    use crate::solve::book::BookGame;
    for (spec, sample) in [
        ("3x3,k=3", 1),
        ("4x3,k=3", 5),
        ("4x4,k=4", 301),
        ("4x4,k=3", 301),
    ] {
        let g = game(spec);
        let mut solver = super::Solver::new(&g, 16).unwrap();
        let mut r = Reference::new(spec);
        let mut checked = 0;
        for key in (0..g.geometry().key_end()).step_by(sample) {
            if !g.is_valid_key(key) {
                continue;
            }
            let s = g.stones(key);
            let v = g.search(&mut solver, key);
            assert_eq!(v, r.value(s), "{spec} {}", g.format_position(key));
            let sign = g.search_outcome(&mut solver, key);
            assert_eq!(sign, v.net, "{spec} {}", g.format_position(key));
            checked += 1;
        }
        assert!(checked > 100, "{spec}");
    }
}

/// Notation: pictures, move lists and their errors.
#[test]
fn notation() {
    let g = game("");
    assert_eq!(g.descriptor().variant, "3x3,k=3");
    let k = g.parse_position("b2 a1").unwrap();
    assert_eq!(g.format_position(k), "O../.X./... X");
    assert_eq!(g.parse_position("4, 0"), Ok(k));
    assert_eq!(g.parse_position("O../.X./... X"), Ok(k));
    assert_eq!(g.parse_position("o../.x./..."), Ok(k));
    assert!(g.parse_position("O../.X./... O").is_err(), "wrong side");
    assert!(g.parse_position("OO./.X./...").is_err(), "counts");
    assert!(g.parse_position("b2 b2").is_err(), "taken");
    assert!(
        g.parse_position("a1 b1 a2 b2 a3 b3").is_err(),
        "after the end"
    );
    assert!(g.parse_position("XXX/OO./...").is_ok(), "X won");
    assert!(g.parse_position("XXX/OOO/X..").is_err(), "both won");
    assert!(g.parse_position("z9").is_err());
    assert!(g.parse_position("X../...").is_err(), "rows");
    assert_eq!(g.parse_move(k, "c3"), Ok(Move(8)));
    assert!(g.parse_move(k, "b2").is_err());
    assert_eq!(g.score(g.parse_position("XXX/OO./...").unwrap(), 0), -1);
    assert_eq!(g.lead(g.parse_position("XXX/OO./...").unwrap()), Some(1));
    assert!(KInARow::from_variant("7x7,k=5").is_err(), "49 cells");
    assert!(KInARow::from_variant("3x3,k=4").is_err());
    assert!(KInARow::from_variant("tic-tac-toe").is_ok());
    assert!(game("6x6,k=4").descriptor().storage_error().is_some());
    assert!(game("5x7,k=4").descriptor().storage_error().is_none());
}
