//! Dandelions: the exact solver against a plain minimax written from the
//! rules (no pruning, no table, no symmetry), the engine's complete solve
//! of the 4x4 field, symmetry and key properties, and the 5x5 facts.

use crate::core::NoProgress;
use crate::core::{Edge, Game};
use crate::games::dandelions::field::TURNS;
use crate::games::dandelions::search::ENDGAME_TURNS;
use crate::games::dandelions::{Dandelions, Field, Geometry, Solver};
use crate::solve::book::{build_book, BookOptions};
use crate::Value;
use proptest::prelude::*;

/// Plain minimax from the rules: the outcome from the dandelions' side
/// (`8 - flowers` when they cover the field, `-gaps` when the wind holds
/// out) and the remoteness under the engine's tie-break (the winner
/// finishes as soon as it can, the loser as late).
fn reference(g: &Geometry, f: Field) -> (i32, u32) {
    let covered = f.seeds | f.flowers;
    if covered == g.full() {
        return (8 - f.flowers.count_ones() as i32, 0);
    }
    if f.flowers.count_ones() + f.dirs.count_ones() == TURNS {
        return (-((g.full() & !covered).count_ones() as i32), 0);
    }
    let dandelions = f.flowers.count_ones() == f.dirs.count_ones();
    let mut children = Vec::new();
    if dandelions {
        for c in 0..g.cells() {
            if f.flowers >> c & 1 == 0 {
                children.push(Field {
                    seeds: f.seeds & !(1 << c),
                    flowers: f.flowers | 1 << c,
                    dirs: f.dirs,
                });
            }
        }
    } else {
        for d in 0..8 {
            if f.dirs >> d & 1 == 0 {
                // Every flower seeds every cell to the edge in direction d.
                let mut seeds = f.seeds;
                for c in 0..g.cells() {
                    if f.flowers >> c & 1 != 0 {
                        seeds |= g.ray(d, c as usize);
                    }
                }
                children.push(Field {
                    seeds: seeds & !f.flowers,
                    flowers: f.flowers,
                    dirs: f.dirs | 1 << d,
                });
            }
        }
    }
    // Best for the mover: higher D for the dandelions, lower for the wind;
    // then the tie-break on remoteness.
    let key = |(d, r): (i32, u32)| -> (i32, i64) {
        let mover_d = if dandelions { d } else { -d };
        (
            mover_d,
            if mover_d < 0 {
                i64::from(r)
            } else {
                -i64::from(r)
            },
        )
    };
    children
        .into_iter()
        .map(|c| {
            let (d, r) = reference(g, c);
            (d, r + 1)
        })
        .max_by_key(|&v| key(v))
        .expect("a state that is not over has moves")
}

/// A random state after `turns` random moves (or earlier if the field is
/// covered), from a seed.
fn random_state(g: &Geometry, turns: u32, seed: &mut u64) -> Field {
    let mut next = || {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    };
    let mut f = Field::default();
    while f.flowers.count_ones() + f.dirs.count_ones() < turns && !g.is_over(&f) {
        if f.flowers.count_ones() == f.dirs.count_ones() {
            let c = (next() % u64::from(g.cells())) as u32;
            if f.flowers >> c & 1 == 0 {
                f.flowers |= 1 << c;
                f.seeds &= !(1 << c);
            }
        } else {
            let d = (next() % 8) as usize;
            if f.dirs >> d & 1 == 0 {
                f.seeds = (f.seeds | g.spread(f.flowers, d)) & !f.flowers;
                f.dirs |= 1 << d;
            }
        }
    }
    f
}

#[test]
fn late_5x5_positions_agree_with_plain_minimax() {
    let g = Geometry::new(5);
    let mut solver = Solver::new(g.clone(), 18);
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut checked = 0;
    for turns in [10, 10, 11, 11, 12, 13] {
        for _ in 0..25 {
            let f = random_state(&g, turns, &mut seed);
            assert_eq!(solver.solve(&f), reference(&g, f), "{f}");
            assert_eq!(solver.dandelions_win(&f), reference(&g, f).0 > 0, "{f}");
            checked += 1;
        }
    }
    assert_eq!(checked, 150);
}

#[test]
fn the_endgame_search_agrees_with_plain_minimax_from_turn_9() {
    // The deepest layer of a 9-turn book has 5 turns left: searched by
    // `solve_endgame` (one full window, no table).
    let g = Geometry::new(5);
    let mut solver = Solver::new(g.clone(), 10);
    let mut table = Solver::new(g.clone(), 16);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for (turns, count) in [(9, 12), (10, 40), (11, 60), (12, 60), (13, 60)] {
        assert!(TURNS - turns <= ENDGAME_TURNS);
        for _ in 0..count {
            let f = random_state(&g, turns, &mut seed);
            let exact = reference(&g, f);
            assert_eq!(solver.solve_endgame(&f), exact, "{f}");
            assert_eq!(table.solve(&f), exact, "{f}");
        }
    }
}

#[test]
fn small_fields_agree_with_plain_minimax_from_the_start() {
    // 2x2 from the start, 3x3 from turns 3 and 5, 4x4 from turn 8.
    for (n, turns, count) in [(2, 0, 1), (3, 3, 10), (3, 5, 20), (4, 8, 15)] {
        let g = Geometry::new(n);
        let mut solver = Solver::new(g.clone(), 16);
        let mut seed = 12345u64 + u64::from(n);
        for _ in 0..count {
            let f = random_state(&g, turns, &mut seed);
            assert_eq!(solver.solve(&f), reference(&g, f), "{n}x{n} {f}");
        }
    }
}

#[test]
fn the_complete_4x4_solve_agrees_with_the_solver_everywhere() {
    let g = Dandelions::from_variant("4x4").unwrap();
    let sol = crate::solve::solve(&g, &NoProgress).unwrap();
    assert!(sol.complete);
    let mut solver = Solver::new(g.geometry().clone(), 20);
    let layout = sol.layout;
    let mut edges: Vec<Edge> = Vec::new();
    // Every 29th state, to keep CI short (plus the start).
    for (i, &r) in sol.records.iter().enumerate() {
        let key = layout.key(r);
        if i % 29 != 0 && key != g.start() {
            continue;
        }
        let stored: Value = layout.value(r);
        let f = g.field(key).unwrap();
        let (d, rem) = solver.solve(&f);
        assert_eq!(stored, g.value_of(&f, d, rem), "{}", g.format_position(key));
        if TURNS - f.turns() <= ENDGAME_TURNS {
            let (d, rem) = solver.solve_endgame(&f);
            assert_eq!(stored, g.value_of(&f, d, rem), "{}", g.format_position(key));
        }
        // A state without moves is exactly a finished one.
        edges.clear();
        g.moves(key, &mut edges);
        assert_eq!(edges.is_empty(), g.geometry().is_over(&f));
    }
}

#[test]
fn a_3x3_book_of_9_turns_equals_the_complete_solve() {
    // The book searches its deepest layer (5 turns left) by the endgame
    // search and derives the rest by minimax: every value must be the
    // complete retrograde solve's.
    let g = Dandelions::from_variant("3x3").unwrap();
    let full = crate::solve::solve(&g, &NoProgress).unwrap();
    assert!(full.complete);
    let mut options = BookOptions::new(9);
    options.searchers = 2;
    options.table_bits = 16;
    let book = build_book(&g, &options, &NoProgress).unwrap();
    assert_eq!(book.layer_sizes.len(), 10);
    let keys: Vec<u64> = full.records.iter().map(|&r| full.layout.key(r)).collect();
    for &r in &book.records {
        let key = book.layout.key(r);
        assert!(g.layer(key) <= 9);
        let i = keys.binary_search(&key).expect("a book state is a state");
        assert_eq!(
            book.layout.value(r),
            full.layout.value(full.records[i]),
            "{}",
            g.format_position(key)
        );
    }
    let shallow = keys.iter().filter(|&&k| g.layer(k) <= 9).count();
    assert_eq!(book.records.len(), shallow);
}

#[test]
fn the_5x5_dandelions_win_with_every_first_flower() {
    let g = Geometry::new(5);
    let mut solver = Solver::new(g.clone(), 22);
    assert!(solver.dandelions_win(&Field::default()));
    // The six first flowers up to symmetry.
    for c in [0u32, 1, 2, 6, 7, 12] {
        let f = Field {
            seeds: 0,
            flowers: 1 << c,
            dirs: 0,
        };
        assert!(solver.dandelions_win(&f), "first flower {c}");
    }
}

fn geometry() -> impl Strategy<Value = Geometry> {
    prop_oneof![Just(Geometry::new(4)), Just(Geometry::new(5))]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn keys_round_trip_and_symmetries_commute_with_moves(
        g in geometry(), turns in 0u32..14, seed in any::<u64>(), sym in 0usize..8,
    ) {
        let mut seed = seed | 1;
        let f = random_state(&g, turns, &mut seed);
        let key = g.key(&f);
        prop_assert_eq!(g.field(key), Some(f));
        prop_assert!(key >> g.key_bits() == 0);
        prop_assert!(g.is_plausible(&f));
        prop_assert!(g.is_reachable(&f));
        // The image of a state after a wind is the image's state after the
        // image wind; the same for a flower.
        let t = g.transform(&f, sym);
        for d in 0..8 {
            let blown = Field { seeds: (f.seeds | g.spread(f.flowers, d)) & !f.flowers, dirs: f.dirs | 1 << d, ..f };
            let e = g.map_dir(sym, d);
            let image_blown = Field { seeds: (t.seeds | g.spread(t.flowers, e)) & !t.flowers, dirs: t.dirs | 1 << e, ..t };
            prop_assert_eq!(g.transform(&blown, sym), image_blown);
        }
        for c in 0..g.cells() as usize {
            let planted = Field { seeds: f.seeds & !(1 << c), flowers: f.flowers | 1 << c, ..f };
            let e = g.map_cell(sym, c);
            let image_planted = Field { seeds: t.seeds & !(1 << e), flowers: t.flowers | 1 << e, ..t };
            prop_assert_eq!(g.transform(&planted, sym), image_planted);
        }
        // Canonical: the same for every image, and one of the images.
        let canon = g.canonical(&f);
        prop_assert_eq!(g.canonical(&t), canon);
        prop_assert!((0..8).any(|s| g.key(&g.transform(&f, s)) == canon));
    }

    #[test]
    fn notation_round_trips(turns in 0u32..14, seed in any::<u64>()) {
        let game = Dandelions::from_variant("5x5").unwrap();
        let mut seed = seed | 1;
        let f = random_state(game.geometry(), turns, &mut seed);
        let key = game.geometry().key(&f);
        let text = game.format_position(key);
        prop_assert_eq!(game.parse_position(&text), Ok(key));
        prop_assert!(game.is_valid_key(key));
    }
}

#[test]
fn the_fields_taken_are_exactly_those_games_reach() {
    for n in [2, 3] {
        let g = Geometry::new(n);
        // Every field a game reaches, by playing every move from the start.
        let mut reached = std::collections::HashSet::new();
        let mut stack = vec![Field::default()];
        while let Some(f) = stack.pop() {
            if !reached.insert(f) || g.is_over(&f) {
                continue;
            }
            if f.dandelions_to_move() {
                for c in (0..g.cells()).filter(|c| f.flowers >> c & 1 == 0) {
                    stack.push(Field {
                        seeds: f.seeds & !(1 << c),
                        flowers: f.flowers | 1 << c,
                        dirs: f.dirs,
                    });
                }
            } else {
                for d in (0..8).filter(|d| f.dirs >> d & 1 == 0) {
                    stack.push(Field {
                        seeds: (f.seeds | g.spread(f.flowers, d)) & !f.flowers,
                        dirs: f.dirs | 1 << d,
                        ..f
                    });
                }
            }
        }
        // Every field there is: each cell empty, seeded or a flower, and
        // each set of directions.
        let mut taken = 0;
        for cells in 0..3u32.pow(g.cells()) {
            let (mut seeds, mut flowers, mut c) = (0, 0, cells);
            for i in 0..g.cells() {
                match c % 3 {
                    1 => seeds |= 1 << i,
                    2 => flowers |= 1 << i,
                    _ => {}
                }
                c /= 3;
            }
            for dirs in 0..=255u8 {
                let f = Field {
                    seeds,
                    flowers,
                    dirs,
                };
                let reachable = g.is_reachable(&f);
                assert_eq!(reachable, reached.contains(&f), "{n}x{n}: {f:?}");
                taken += usize::from(reachable);
            }
        }
        assert_eq!(taken, reached.len(), "{n}x{n}");
    }
}

#[test]
fn bad_positions_are_refused() {
    let game = Dandelions::from_variant("").unwrap();
    for bad in [
        ".........................",    // no directions part
        "........................ -",   // 24 cells
        "........................X -",  // not a cell
        "F........................ 9",  // not a direction
        "F........................ 00", // twice
        "FF....................... -",  // two flowers, no wind
        "F*....................... 4",  // a seed west of the flower blown west... no: east of it
        "......................... 0",  // a wind before any flower
        "F........................ 0",  // the east wind after a1's flower seeds b1-e1
        "F*....................... 0",  // and all four of them
    ] {
        assert!(game.parse_position(bad).is_err(), "{bad}");
    }
    assert_eq!(game.parse_position("start"), Ok(0));
    // The key layout of format-spec.md: base-3 cells under the directions.
    assert_eq!(
        game.parse_position("F****.................... 0"),
        Ok(1 << 40 | (2 + 3 + 9 + 27 + 81))
    );
    assert_eq!(game.descriptor().key_bits, 48);
    // The east wind before a1's flower: nothing seeded.
    assert!(game.parse_position("F........................ 0").is_err());
    assert!(game.parse_position("F.........F.............. 0").is_err());
    assert!(game.parse_position(".F********............... 0").is_err());
    assert!(Dandelions::from_variant("6x6").is_err());
    assert!(Dandelions::from_variant("4x5").is_err());
}
