//! Property tests: the symmetries of British Square, the symmetry invariance of
//! database values, and the record layout.

use std::collections::{BTreeSet, HashMap};
use std::sync::OnceLock;

use boardsolve::core::layout::RecordLayout;
use boardsolve::core::{NoProgress, Solution};
use boardsolve::db::write_database;
use boardsolve::games::british_square::BritishSquare;
use boardsolve::solve::solve;
use boardsolve::{analyze, principal_variation, Database, Edge, Game, Move, Value};
use proptest::prelude::*;
use proptest::test_runner::Config;

/// Moderate case counts keep the file at a few seconds. Failures are not
/// persisted to a regressions file: proptest prints the minimal input.
fn config() -> Config {
    Config {
        cases: 256,
        failure_persistence: None,
        ..Config::default()
    }
}

/// Choices for a random playout: the playout stops after as many moves as
/// there are choices, or at the end of the game; each choice picks a move by
/// index modulo the number of moves.
fn playout_choices() -> impl Strategy<Value = Vec<u16>> {
    prop::collection::vec(any::<u16>(), 0..=26)
}

/// A reachable position: a random playout from the start, using `moves`.
fn playout(game: &dyn Game, choices: &[u16]) -> u64 {
    let mut s = game.start();
    let mut edges = Vec::new();
    for &choice in choices {
        edges.clear();
        game.moves(s, &mut edges);
        if edges.is_empty() {
            break;
        }
        s = edges[usize::from(choice) % edges.len()].child;
    }
    s
}

fn moves_of(game: &dyn Game, s: u64) -> Vec<Edge> {
    let mut edges = Vec::new();
    game.moves(s, &mut edges);
    edges
}

/// Every British Square variant, for the symmetry properties.
fn any_variant() -> impl Strategy<Value = BritishSquare> {
    (3u32..=5, any::<bool>()).prop_map(|(n, center)| BritishSquare::new(n, center).unwrap())
}

fn five_by_five() -> impl Strategy<Value = BritishSquare> {
    any::<bool>().prop_map(|center| BritishSquare::new(5, center).unwrap())
}

fn assert_symmetries(game: &BritishSquare, s: u64) -> Result<(), TestCaseError> {
    let c = game.canonical(s);
    prop_assert_eq!(game.canonical(c), c, "canonical is idempotent");
    prop_assert_eq!(game.transform(s, 0), s, "symmetry 0 is the identity");
    prop_assert!(c <= s);
    let images: Vec<u64> = (0..8).map(|sym| game.transform(s, sym)).collect();
    prop_assert_eq!(images.iter().copied().min(), Some(c));
    let image_set: BTreeSet<u64> = images.iter().copied().collect();
    let cells = game.cells();
    for (sym, &t) in images.iter().enumerate() {
        prop_assert_eq!(game.canonical(t), c, "sym {}", sym);
        prop_assert_eq!(game.x(t).count_ones(), game.x(s).count_ones());
        prop_assert_eq!(game.o(t).count_ones(), game.o(s).count_ones());
        prop_assert_eq!(game.to_move(t), game.to_move(s));
        prop_assert_eq!(game.layer(t), game.layer(s));
        prop_assert_eq!(t >> (2 * cells + 1), 0, "no stray bits");
        prop_assert!(game.is_valid_key(t));
        // The 8 images form a group orbit: transforming an image again stays
        // in the orbit, and some symmetry takes every image back to `s`.
        for sym2 in 0..8 {
            prop_assert!(image_set.contains(&game.transform(t, sym2)));
        }
        prop_assert!((0..8).any(|back| game.transform(t, back) == s));
    }
    Ok(())
}

fn assert_round_trip(game: &BritishSquare, s: u64) -> Result<(), TestCaseError> {
    for sym in 0..8 {
        let t = game.transform(s, sym);
        let text = game.format_position(t);
        prop_assert_eq!(
            game.parse_position(&text).ok(),
            Some(t),
            "{} does not read back",
            text
        );
    }
    Ok(())
}

fn assert_moves_commute(game: &BritishSquare, s: u64) -> Result<(), TestCaseError> {
    let edges = moves_of(game, s);
    for sym in 0..8 {
        let t = game.transform(s, sym);
        let image_edges: HashMap<Move, Edge> =
            moves_of(game, t).into_iter().map(|e| (e.mv, e)).collect();
        prop_assert_eq!(image_edges.len(), edges.len());
        for e in &edges {
            let mv = game.transform_move(e.mv, sym);
            prop_assert_eq!(mv == Move::PASS, e.mv == Move::PASS);
            let Some(f) = image_edges.get(&mv) else {
                return Err(TestCaseError::fail(format!(
                    "sym {sym}: move {:?} of {} maps to {mv:?}, not a move of {}",
                    e.mv,
                    game.format_position(s),
                    game.format_position(t)
                )));
            };
            prop_assert_eq!(f.child, game.transform(e.child, sym), "sym {}", sym);
            prop_assert_eq!((f.reward, f.again), (e.reward, e.again));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn canonical_is_idempotent_and_invariant_5x5(
        game in five_by_five(),
        choices in playout_choices(),
    ) {
        let s = playout(&game, &choices);
        assert_symmetries(&game, s)?;
    }

    #[test]
    fn canonical_is_idempotent_and_invariant_any_variant(
        game in any_variant(),
        choices in playout_choices(),
    ) {
        let s = playout(&game, &choices);
        assert_symmetries(&game, s)?;
    }

    #[test]
    fn positions_round_trip_through_text(
        game in any_variant(),
        choices in playout_choices(),
    ) {
        let s = playout(&game, &choices);
        assert_round_trip(&game, s)?;
    }

    #[test]
    fn transform_move_commutes_with_play(
        game in any_variant(),
        choices in playout_choices(),
    ) {
        let s = playout(&game, &choices);
        assert_moves_commute(&game, s)?;
    }
}

/// The solved 4x4 game, written to a file and opened again.
struct Solved {
    game: BritishSquare,
    solution: Solution,
    db: Database,
}

fn solved_4x4() -> &'static Solved {
    static SOLVED: OnceLock<Solved> = OnceLock::new();
    SOLVED.get_or_init(|| {
        let game = BritishSquare::new(4, false).unwrap();
        let solution = solve(&game, &NoProgress).expect("4x4 solves");
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("british-square-4x4.bsdb");
        write_database(&path, game.descriptor(), &solution.clone().into())
            .expect("the database is written");
        let db = Database::open(&path).expect("the database opens");
        // The database is memory-mapped: the mapping outlives the file, so
        // the directory can go now rather than never (statics are not
        // dropped).
        let _ = dir.close();
        Solved { game, solution, db }
    })
}

#[test]
fn the_4x4_database_matches_the_solution() {
    let Solved { game, solution, db } = solved_4x4();
    let header = db.header();
    assert!(header.is_complete());
    assert_eq!(header.game_name, "british-square");
    assert_eq!(header.variant, "4x4");
    assert_eq!(header.layout, solution.layout);
    assert_eq!(header.start_key, game.canonical(game.start()));
    assert_eq!(db.len(), solution.records.len() as u64);
    db.verify_checksum().unwrap();
    for (i, &r) in solution.records.iter().enumerate() {
        assert_eq!(db.record(i), Some(r));
        assert_eq!(
            db.get(solution.layout.key(r)),
            Ok(Some(solution.layout.value(r)))
        );
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn database_values_are_symmetric(choices in playout_choices(), sym in 0usize..8) {
        let Solved { game, solution, db } = solved_4x4();
        let s = playout(game, &choices);
        let t = game.transform(s, sym);
        let a = analyze(game, db, s).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let b = analyze(game, db, t).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(Some(a.value), solution.get(a.canonical));
        prop_assert_eq!(a.canonical, b.canonical);
        prop_assert_eq!(a.to_move, b.to_move);
        prop_assert_eq!(a.value, b.value);
        prop_assert_eq!(a.score, b.score);
        prop_assert_eq!(a.moves.len(), b.moves.len());
        let by_move: HashMap<Move, _> = b.moves.iter().map(|m| (m.mv, m)).collect();
        for m in &a.moves {
            let image = by_move.get(&game.transform_move(m.mv, sym));
            prop_assert!(image.is_some(), "move {:?} has no image under sym {}", m.mv, sym);
            let image = image.unwrap();
            prop_assert_eq!(image.child, game.transform(m.child, sym));
            prop_assert_eq!(image.value, m.value);
            prop_assert_eq!(image.child_value, m.child_value);
            prop_assert_eq!(image.score, m.score);
            prop_assert_eq!(image.best, m.best);
        }
        // Perfect play from either position lasts `remoteness` plies and
        // ends at the announced score: the side to move's, so seen from
        // the other side after an odd number of plies (passes included).
        for (state, analysis) in [(s, &a), (t, &b)] {
            let line = principal_variation(game, db, state)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(line.len() as u32, analysis.value.remoteness);
            let end = line.last().map_or(state, |&(_, child)| child);
            let turned = if line.len().is_multiple_of(2) { 1 } else { -1 };
            prop_assert_eq!(game.score(end, 0) * turned, analysis.score);
        }
    }
}

/// A well-formed layout whose fields fit the `i32` net and `u32` remoteness
/// of [`Value`].
fn layout() -> impl Strategy<Value = RecordLayout> {
    (1u32..=32, 1u32..=31)
        .prop_flat_map(|(value_bits, remoteness_bits)| {
            let max_key_bits = (64 - value_bits - remoteness_bits).min(63);
            (Just(value_bits), Just(remoteness_bits), 1..=max_key_bits)
        })
        .prop_map(|(value_bits, remoteness_bits, key_bits)| RecordLayout {
            key_shift: value_bits + remoteness_bits,
            key_bits,
            value_shift: remoteness_bits,
            value_bits,
            remoteness_shift: 0,
            remoteness_bits,
        })
}

fn max_key(l: &RecordLayout) -> u64 {
    u64::MAX >> (64 - l.key_bits)
}

/// A key and a value within the layout's range.
fn entry(l: RecordLayout) -> impl Strategy<Value = (u64, Value)> {
    (
        0..=max_key(&l),
        l.min_net()..=l.max_net(),
        0..=l.max_remoteness(),
    )
        .prop_map(|(key, net, remoteness)| (key, Value { net, remoteness }))
}

fn layout_and_two_entries() -> impl Strategy<Value = (RecordLayout, (u64, Value), (u64, Value))> {
    layout().prop_flat_map(|l| (Just(l), entry(l), entry(l)))
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn records_round_trip_and_sort_by_key((l, (k1, v1), (k2, v2)) in layout_and_two_entries()) {
        prop_assert!(l.is_well_formed());
        prop_assert_eq!(l.max_net(), ((1i64 << (l.value_bits - 1)) - 1) as i32);
        prop_assert_eq!(l.min_net(), (-(1i64 << (l.value_bits - 1))) as i32);
        prop_assert_eq!(u64::from(l.max_remoteness()), (1u64 << l.remoteness_bits) - 1);
        let r1 = l.pack(k1, v1).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let r2 = l.pack(k2, v2).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(l.key(r1), k1);
        prop_assert_eq!(l.value(r1), v1);
        prop_assert_eq!(l.key(r2), k2);
        prop_assert_eq!(l.value(r2), v2);
        // The key is in the high bits: records of a key lie in
        // [first_record(key), first_record(key + 1)).
        prop_assert!(l.first_record(k1) <= r1);
        if k1 < max_key(&l) {
            prop_assert!(r1 < l.first_record(k1 + 1));
        }
        if k1 != k2 {
            prop_assert_eq!(k1 < k2, r1 < r2);
        }
        // Out-of-range values are refused, not wrapped.
        if let Some(net) = l.max_net().checked_add(1) {
            let too_far = Value { net, ..v1 };
            prop_assert!(l.pack(k1, too_far).is_err(), "{:?}", too_far);
        }
        if let Some(net) = l.min_net().checked_sub(1) {
            let too_far = Value { net, ..v1 };
            prop_assert!(l.pack(k1, too_far).is_err(), "{:?}", too_far);
        }
        if let Some(remoteness) = l.max_remoteness().checked_add(1) {
            let too_far = Value { remoteness, ..v1 };
            prop_assert!(l.pack(k1, too_far).is_err(), "{:?}", too_far);
        }
    }
}

#[test]
fn british_square_layouts_follow_the_spec() {
    for n in 3..=5 {
        let game = BritishSquare::new(n, false).unwrap();
        let l = RecordLayout::for_game(game.descriptor());
        assert_eq!(
            l,
            RecordLayout {
                key_shift: 12,
                key_bits: 2 * n * n + 1,
                value_shift: 6,
                value_bits: 6,
                remoteness_shift: 0,
                remoteness_bits: 6,
            }
        );
        assert!(l.is_well_formed());
        assert_eq!(
            (l.min_net(), l.max_net(), l.max_remoteness()),
            (-32, 31, 63)
        );
    }
}

/// The 3x3 and 2x3 Dots and Boxes tables (dense: every key, canonical or not),
/// written to files and opened as a user would.
fn dots_and_boxes_dbs() -> &'static [(
    boardsolve::games::dots_and_boxes::DotsAndBoxes,
    tempfile::TempDir,
    Database,
)] {
    static DBS: OnceLock<
        Vec<(
            boardsolve::games::dots_and_boxes::DotsAndBoxes,
            tempfile::TempDir,
            Database,
        )>,
    > = OnceLock::new();
    DBS.get_or_init(|| {
        ["3x3", "2x3"]
            .iter()
            .map(|v| {
                let game =
                    boardsolve::games::dots_and_boxes::DotsAndBoxes::from_variant(v).unwrap();
                let sol = boardsolve::solve::dense::solve_dense(&game, &NoProgress).unwrap();
                let dir = tempfile::tempdir().unwrap();
                let path = dir.path().join("dab.db");
                write_database(&path, game.descriptor(), &sol.into()).unwrap();
                let db = Database::open(&path).unwrap();
                (game, dir, db)
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(config())]

    /// Every image of a Dots and Boxes position has the same value, and the
    /// image of each move has the same value in the image position.
    #[test]
    fn dots_and_boxes_values_are_symmetric(
        board in 0usize..2,
        edges in any::<u32>(),
        sym in 0usize..8,
    ) {
        let (game, _, db) = &dots_and_boxes_dbs()[board];
        let s = u64::from(edges) & ((1u64 << game.edge_count()) - 1);
        let sym = sym % game.symmetry_count();
        let t = game.transform(s, sym);
        prop_assert_eq!(db.get(s), db.get(t));
        prop_assert_eq!(db.get(game.canonical(s)), db.get(s));
        let a = analyze(game, db, s).unwrap();
        let b = analyze(game, db, t).unwrap();
        prop_assert_eq!(a.value, b.value);
        let of_b: HashMap<Move, Value> = b.moves.iter().map(|m| (m.mv, m.value)).collect();
        for m in &a.moves {
            prop_assert_eq!(Some(&m.value), of_b.get(&game.transform_move(m.mv, sym)));
        }
    }
}
