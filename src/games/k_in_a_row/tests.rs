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
        for key in 0..g.keys().end() {
            let Some(s) = g.keys().decode(key) else {
                continue;
            };
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

/// A random position of `g` with `stones` stones, placed alternately on
/// free cells drawn from `seed` (the game may have ended on the way).
fn random_position(g: &KInARow, stones: u32, seed: u64) -> Stones {
    let cells = g.geometry().cells();
    let mut s = EMPTY;
    let mut r = seed;
    for _ in 0..stones.min(cells) {
        let free: Vec<u32> = (0..cells).filter(|&c| (s.x | s.o) >> c & 1 == 0).collect();
        r = r
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        s = g.play(s, free[(r >> 33) as usize % free.len()]);
    }
    s
}

/// A position of `stones` stones with no line on the board, placed
/// alternately on random free cells that complete no line, if the draws
/// from `seed` find one.
fn quiet_position(g: &KInARow, stones: u32, seed: u64) -> Option<Stones> {
    let cells = g.geometry().cells();
    let mut s = EMPTY;
    let mut r = seed;
    for _ in 0..stones {
        let free: Vec<u32> = (0..cells)
            .filter(|&c| {
                let next = g.play(s, c);
                (s.x | s.o) >> c & 1 == 0 && g.winner(next).is_none()
            })
            .collect();
        if free.is_empty() {
            return None;
        }
        r = r
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        s = g.play(s, free[(r >> 33) as usize % free.len()]);
    }
    Some(s)
}

/// Keys decode to their stones and back, moves add one stone, and the
/// canonical key is the same for every image: the least image where keys
/// are numbers (base 3 and ranked), a handle of one image otherwise.
#[test]
fn keys_and_symmetries() {
    for spec in [
        "3x3,k=3", "4x3,k=3", "5x5,k=4", "2x7,k=2", "5x7,k=5", "6x6,k=4", "7x7,k=5", "5x9,k=4",
    ] {
        let g = game(spec);
        let geo = g.geometry();
        let mut seed = 0x1234_5678_9abc_def0u64;
        for _ in 0..500 {
            // A random position: stones alternate on random free cells.
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let stones = (seed % u64::from(geo.cells() + 1)) as u32;
            let s = random_position(&g, stones, seed);
            let key = g.key(s);
            assert_eq!(g.stones(key), s);
            let numbered = key < g.keys().end();
            if let super::Keys::Ranked(r) = g.keys() {
                assert_eq!(numbered, s.count() <= r.max_stones(), "{spec}");
            } else {
                assert!(numbered);
            }
            if numbered {
                assert_eq!(key >> g.descriptor().key_bits, 0);
            }
            let images: Vec<u64> = (0..g.symmetry_count())
                .map(|t| g.transform(key, t))
                .collect();
            let least = g.canonical(key);
            if numbered {
                assert_eq!(least, *images.iter().min().unwrap());
            } else {
                assert!(images.contains(&least));
            }
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
        for key in (0..g.keys().end()).step_by(sample) {
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
    assert!(KInARow::from_variant("7x7,k=5").is_ok(), "49 cells");
    assert!(KInARow::from_variant("7x8,k=5").is_err(), "56 cells");
    assert!(KInARow::from_variant("3x3,k=4").is_err());
    assert!(KInARow::from_variant("tic-tac-toe").is_ok());
    for spec in ["5x7,k=4", "6x6,k=4", "7x7,k=5", "1x49,k=5"] {
        assert!(game(spec).descriptor().storage_error().is_none(), "{spec}");
    }
}

/// Every move is named by its coordinate, and the name (or the cell
/// number) reads back to the same move, on boards of more than 26 columns
/// too.
#[test]
fn moves_are_named_by_coordinates_that_read_back() {
    let g = game("");
    assert_eq!(g.format_move(Move(0)), "a1");
    assert_eq!(g.format_move(Move(4)), "b2");
    assert_eq!(g.format_move(Move(8)), "c3");
    for spec in ["3x3,k=3", "4x5,k=4", "7x7,k=5", "1x49,k=5", "49x1,k=5"] {
        let g = game(spec);
        let start = g.start();
        for cell in 0..g.geometry().cells() {
            let mv = Move(cell as u16);
            let name = g.format_move(mv);
            assert_eq!(g.parse_move(start, &name), Ok(mv), "{spec} {name}");
            assert_eq!(g.parse_move(start, &cell.to_string()), Ok(mv), "{spec}");
        }
    }
}

/// A large board: a deep position (a handle) and a shallow one (ranked)
/// read back from their text, with the same moves and images as on the
/// board.
#[test]
fn seven_by_seven_positions() {
    let g = game("7x7,k=5");
    assert_eq!(g.descriptor().key_bits, 56);
    assert_eq!(g.layer_count(), 50);
    for stones in [0, 5, 16, 17, 30, 48] {
        let s = random_position(&g, stones, 0xfeed + u64::from(stones));
        let key = g.key(s);
        assert_eq!(key < g.keys().end(), stones <= 16, "{stones}");
        let text = g.format_position(key);
        if g.is_valid_key(key) {
            assert_eq!(g.parse_position(&text), Ok(key), "{text}");
        }
        let mut edges = Vec::new();
        g.moves(key, &mut edges);
        if !g.is_over(s) {
            assert_eq!(edges.len() as u32, 49 - stones);
        }
        for e in &edges {
            let c = g.stones(e.child);
            assert_eq!(c.count(), stones + 1);
            assert_eq!((c.x | c.o) & !(s.x | s.o), 1u64 << e.mv.0);
        }
    }
}

/// The ranked keys and handles of the large boards, used on boards small
/// enough to compare: the same positions, moves, canonical forms and
/// search values as the base-3 keys, and the same opening book, which
/// stops at the ranked depth.
#[cfg(feature = "search")]
#[test]
fn ranked_keys_equal_base3_keys() {
    use crate::solve::book::BookGame;
    for (spec, max_stones) in [("4x4,k=3", 5), ("4x3,k=3", 3), ("3x3,k=3", 2)] {
        let base = game(spec);
        // A small handle table: it starts over while the test runs.
        let ranked = KInARow::with_ranked_keys(spec.parse().unwrap(), max_stones, 64);
        assert_eq!(ranked.max_book_depth(), Some(max_stones));
        let mut a = super::Solver::new(&base, 14).unwrap();
        let mut b = super::Solver::new(&ranked, 14).unwrap();
        for seed in 0..300u64 {
            let n = (seed % 17) as u32;
            let s = random_position(&base, n, seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let (kb, kr) = (base.key(s), ranked.key(s));
            assert_eq!(ranked.stones(kr), s);
            assert_eq!(base.is_valid_key(kb), ranked.is_valid_key(kr));
            assert_eq!(
                base.stones(base.canonical(kb)),
                // The least image of the base-3 keys, as positions: the
                // ranked canonical form is an image too.
                base.stones(base.canonical(base.key(ranked.stones(ranked.canonical(kr))))),
            );
            let (mut eb, mut er) = (Vec::new(), Vec::new());
            base.moves(kb, &mut eb);
            ranked.moves(kr, &mut er);
            assert_eq!(eb.len(), er.len());
            for (x, y) in eb.iter().zip(&er) {
                assert_eq!((x.mv, x.reward), (y.mv, y.reward));
                assert_eq!(base.stones(x.child), ranked.stones(y.child));
            }
            if base.is_valid_key(kb) {
                assert_eq!(base.search(&mut a, kb), ranked.search(&mut b, kr), "{spec}");
                assert_eq!(base.format_position(kb), ranked.format_position(kr));
            }
        }
        // The books: the same positions with the same values.
        let mut options = crate::solve::book::BookOptions::new(max_stones);
        options.table_bits = 16;
        let none = crate::core::NoProgress;
        let book_b = crate::solve::book::build_book(&base, &options, &none).unwrap();
        let book_r = crate::solve::book::build_book(&ranked, &options, &none).unwrap();
        assert_eq!(book_b.records.len(), book_r.records.len(), "{spec}");
        for &rec in &book_b.records {
            let kb = book_b.layout.key(rec);
            let kr = ranked.canonical(ranked.key(base.stones(kb)));
            assert!(kr < ranked.keys().end());
            assert_eq!(book_r.get(kr), Some(book_b.layout.value(rec)), "{spec}");
        }
        let deeper = crate::solve::book::BookOptions::new(max_stones + 1);
        let err = crate::solve::book::build_book(&ranked, &deeper, &none).unwrap_err();
        assert!(
            matches!(err, crate::solve::book::BookError::TooDeep { max, .. } if max == max_stones),
            "{err}"
        );
    }
}

/// The search on a board past 32 cells, whose table entries hold part of
/// the position in their second word, against the reference on positions
/// ten stones from the end of 7x7 (k=4 and k=5), 6x6,k=4 and 5x8,k=5.
#[cfg(feature = "search")]
#[test]
fn large_board_search_equals_reference() {
    use crate::solve::book::BookGame;
    for spec in ["7x7,k=4", "7x7,k=5", "6x6,k=4", "5x8,k=5"] {
        let g = game(spec);
        let cells = g.geometry().cells();
        let mut solver = super::Solver::new(&g, 16).unwrap();
        let mut checked = 0;
        for seed in 0..400u64 {
            let Some(s) = quiet_position(&g, cells - 10, seed.wrapping_mul(0x2545_F491_4F6C_DD1D))
            else {
                continue;
            };
            let key = g.key(s);
            assert!(g.is_valid_key(key) && !g.is_over(s));
            let mut r = Reference::new(spec);
            assert_eq!(
                g.search(&mut solver, key),
                r.value(s),
                "{spec} {}",
                g.format_position(key)
            );
            checked += 1;
            if checked == 12 {
                break;
            }
        }
        assert!(checked >= 4, "{spec}: {checked}");
    }
}

/// The ranked keys of `format-spec.md`'s example.
#[cfg(feature = "search")]
#[test]
fn ranked_keys_of_the_format_spec() {
    let g = game("7x7,k=5");
    assert_eq!(g.parse_position("d4"), Ok(25));
    assert_eq!(g.parse_position("d4 c3"), Ok(635));
    let six = game("6x6,k=4");
    assert_eq!(six.descriptor().key_bits, 55);
    assert_eq!(crate::solve::book::BookGame::max_book_depth(&six), Some(36));
    assert_eq!(game("5x8,k=5").descriptor().key_bits, 56);
}
