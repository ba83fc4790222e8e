//! Connect Four as an engine game, and its opening book: built in-process
//! on a 5x4 board, written, opened, and checked against the exact solver.

use std::collections::BTreeSet;

use crate::analysis::analyze_many;
use crate::analysis::verify::verify;
use crate::core::{Edge, Game, Move};
use crate::games::connect_four::{Bitboard, ConnectFour, Solver, Variant};
use crate::Presentation;
use std::sync::Arc;

use crate::core::NoProgress;
use crate::solve::book::{self, build_book, BookOptions};
use crate::solve::live::LiveSearch;
use crate::Oracle;
use crate::{analyze, Database, QueryError, Value};

const DEPTH: u32 = 8;

fn game() -> ConnectFour {
    ConnectFour::from_variant("5x4").expect("fits")
}

/// Every canonical position of at most `depth` stones, by plain recursion.
fn enumerate(p: Bitboard, depth: u32, out: &mut BTreeSet<u64>) {
    if !out.insert(p.canonical_key()) || p.moves() == depth || p.is_over() {
        return;
    }
    for c in 0..p.variant().width() {
        if let Ok(child) = p.play(c) {
            enumerate(child, depth, out);
        }
    }
}

fn options(depth: u32, checkpoint: Option<std::path::PathBuf>) -> BookOptions {
    let mut o = BookOptions::new(depth);
    o.searchers = 2;
    o.table_bits = 20;
    o.checkpoint = checkpoint;
    o
}

#[test]
fn the_book_holds_every_position_to_its_depth_with_the_solvers_value() {
    let g = game();
    let v = g.variant();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c4.db");
    let cp = book::checkpoint_path(&path, DEPTH);
    let sol = build_book(&g, &options(DEPTH, Some(cp.clone())), &NoProgress).unwrap();
    assert!(!sol.complete);
    crate::db::write_database(&path, g.descriptor(), &sol.clone().into()).unwrap();
    let db = Database::open(&path).unwrap();
    assert!(!db.header().is_complete());

    // Exactly the canonical positions to the depth.
    let mut expected = BTreeSet::new();
    enumerate(Bitboard::new(v), DEPTH, &mut expected);
    let layout = db.header().layout;
    let keys: Vec<u64> = (0..db.len() as usize)
        .map(|i| layout.key(db.record(i).unwrap()))
        .collect();
    assert_eq!(keys, expected.iter().copied().collect::<Vec<_>>());

    // Every value is the solver's score (an end: TERMINAL).
    let mut solver = Solver::with_table_bits(20).unwrap();
    for &key in &keys {
        let p = Bitboard::from_key(v, key).unwrap();
        let stored = db.get(key).unwrap().unwrap();
        if p.is_over() {
            assert_eq!(stored, Value::TERMINAL, "{p}");
        } else {
            let score = solver.solve(&p);
            assert_eq!(stored, g.value_of_score(&p, score), "{p}");
        }
    }

    // Resuming from the checkpoint gives the same book.
    assert!(cp.exists());
    let again = build_book(&g, &options(DEPTH, Some(cp)), &NoProgress).unwrap();
    assert_eq!(again.records, sol.records);

    // Verify re-derives the inner positions and skips the frontier.
    let report = verify(&db, &g, &NoProgress).unwrap();
    assert!(!report.children_checked);
    assert!(report.derived > 0 && report.derived < report.records);

    // Analysis of a book position: every column's value is the solver's.
    for seq in ["", "3", "33", "3241"] {
        let p = Bitboard::from_moves(v, seq).unwrap();
        let a = analyze(&g, &db, p.key()).unwrap();
        assert_eq!(a.value.net, solver.solve(&p), "{seq}");
        let scores = solver.column_scores(&p);
        assert_eq!(a.moves.len(), scores.iter().flatten().count());
        for m in &a.moves {
            assert_eq!(Some(m.value.net), scores[usize::from(m.mv.0)], "{seq}");
            assert_eq!(m.score, m.value.net);
        }
    }
    // Live search with the book: the book's positions straight from it,
    // deeper ones searched by solvers that take the book's scores at the
    // nodes it holds; every value is the lone solver's.
    let live = LiveSearch::new(g.clone(), Some(&db), 20).unwrap();
    let mut probe = Solver::with_table_bits(20).unwrap();
    probe.set_book(Some(Arc::new(g.book_scores(&db).unwrap())));
    assert_eq!(probe.book().unwrap().depth(), DEPTH);
    let mut out = Vec::new();
    for seq in [
        "",
        "3",
        "12345432",
        "123454321",
        "3333",
        "33332211",
        "333322115",
    ] {
        let p = Bitboard::from_moves(v, seq).unwrap();
        live.values(&[p.canonical_key()], &mut out).unwrap();
        let score = solver.solve(&p);
        assert_eq!(out[0].map(|x| x.net), Some(score), "{seq}");
        assert_eq!(probe.solve(&p), score, "{seq}");
        assert_eq!(probe.solve_weak(&p), score.signum(), "{seq}");
        assert_eq!(probe.column_scores(&p), solver.column_scores(&p), "{seq}");
    }

    // The frontier and beyond: not in the database.
    let frontier = Bitboard::from_moves(v, "12345432").unwrap();
    assert!(matches!(
        analyze(&g, &db, frontier.key()),
        Err(QueryError::NotInDatabase { .. })
    ));
    let deeper = Bitboard::from_moves(v, "123454321").unwrap();
    assert!(matches!(
        analyze(&g, &db, deeper.key()),
        Err(QueryError::NotInDatabase { .. })
    ));

    // Analysed together, answers and refusals mixed, each as alone.
    let states: Vec<u64> = ["3", "12345432", "", "123454321", "3241", "33"]
        .iter()
        .map(|seq| Bitboard::from_moves(v, seq).unwrap().key())
        .collect();
    let mut together = Vec::new();
    analyze_many(&g, &db, &states, &mut together);
    assert_eq!(together.len(), states.len());
    for (&s, t) in states.iter().zip(&together) {
        assert_eq!(format!("{t:?}"), format!("{:?}", analyze(&g, &db, s)));
    }
    assert_eq!(together.iter().filter(|t| t.is_err()).count(), 2);
}

#[test]
fn the_game_contract_holds() {
    for spec in ["7x6", "5x4"] {
        let g = ConnectFour::from_variant(spec).unwrap();
        let v = g.variant();
        let mut seen = BTreeSet::new();
        enumerate(Bitboard::new(v), 5, &mut seen);
        let mut edges: Vec<Edge> = Vec::new();
        for &key in &seen {
            assert!(g.is_valid_key(key));
            assert_eq!(g.canonical(key), key);
            let m = g.transform(key, 1);
            assert_eq!(g.transform(m, 1), key);
            assert_eq!(g.canonical(m), key);
            assert_eq!(g.layer(m), g.layer(key));
            // Parse and format round trip.
            assert_eq!(g.parse_position(&g.format_position(key)), Ok(key));
            assert_eq!(g.parse_position(&g.format_position(m)), Ok(m));
            // Moves commute with the mirror.
            edges.clear();
            g.moves(key, &mut edges);
            let mut mirrored = Vec::new();
            g.moves(m, &mut mirrored);
            for e in &edges {
                let mv = g.transform_move(e.mv, 1);
                let me = mirrored.iter().find(|x| x.mv == mv).unwrap();
                assert_eq!(me.child, g.transform(e.child, 1));
                assert_eq!(me.reward, e.reward);
                assert_eq!(g.layer(e.child), g.layer(key) + 1);
            }
        }
        assert_eq!(g.parse_position("start"), Ok(g.start()));
        assert!(
            g.parse_position("").is_err(),
            "an empty position is an error"
        );
        assert!(g.parse_position("9").is_err());
        assert_eq!(g.parse_move(g.start(), "1"), Ok(Move(0)));
        assert!(g.parse_move(g.start(), "0").is_err());
        assert_eq!(g.format_move(Move(2)), "3");
    }
    let g = ConnectFour::from_variant("7x6").unwrap();
    let v = Variant::STANDARD;
    // A won position and a full board have no moves.
    let won = Bitboard::from_moves(v, "1212121").unwrap();
    let mut edges = Vec::new();
    g.moves(won.key(), &mut edges);
    assert!(edges.is_empty());
    let g4 = ConnectFour::from_variant("4x4").unwrap();
    let full = Bitboard::from_moves(g4.variant(), "1234123421434321").unwrap();
    assert!(!full.is_won());
    g4.moves(full.key(), &mut edges);
    assert!(edges.is_empty());
    // The winning move's reward is its score.
    let p = Bitboard::from_moves(v, "121212").unwrap();
    g.moves(p.key(), &mut edges);
    assert_eq!(edges[0].reward, 18);
    let render = g.render(p.key());
    assert!(render.ends_with(" 1 2 3 4 5 6 7"), "{render}");
}

#[test]
fn a_book_to_the_end_of_the_game_is_the_complete_solution() {
    // 4x4: every game ends within 16 stones, so a book of depth 16 holds
    // every reachable state, and must equal the layered retrograde solve.
    let g = ConnectFour::from_variant("4x4").unwrap();
    let book = build_book(&g, &options(16, None), &NoProgress).unwrap();
    assert!(book.complete);
    let full = crate::solve::solve(&g, &NoProgress).unwrap();
    assert_eq!(book.records, full.records);
    assert_eq!(book.layer_sizes, full.layer_sizes);
    // A shallower book is partial.
    let partial = build_book(&g, &options(6, None), &NoProgress).unwrap();
    assert!(!partial.complete);
}

#[test]
fn a_damaged_or_foreign_checkpoint_costs_time_not_correctness() {
    let g = game();
    let dir = tempfile::tempdir().unwrap();
    let cp = dir.path().join("cp");
    let aside = dir.path().join("cp.unusable");
    let clean = build_book(&g, &options(5, None), &NoProgress).unwrap();
    // Not a checkpoint at all: set aside, and the search starts over.
    std::fs::write(&cp, b"garbage that is not a checkpoint").unwrap();
    let again = build_book(&g, &options(5, Some(cp.clone())), &NoProgress).unwrap();
    assert_eq!(again.records, clean.records);
    assert_eq!(
        std::fs::read(&aside).unwrap(),
        b"garbage that is not a checkpoint"
    );
    // A chunk cut short by a crash is dropped; the whole chunks before it
    // are kept.
    let whole = std::fs::read(&cp).unwrap();
    assert!(whole.len() > 32 + 8 + 8 + 8, "{} bytes", whole.len());
    let mut torn = whole.clone();
    torn.extend_from_slice(&[3, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3]);
    std::fs::write(&cp, &torn).unwrap();
    let again = build_book(&g, &options(5, Some(cp.clone())), &NoProgress).unwrap();
    assert_eq!(again.records, clean.records);
    assert_eq!(
        std::fs::read(&cp).unwrap(),
        whole,
        "the torn chunk is cut off"
    );
    // A record changed: its chunk fails its checksum, and the whole file is
    // set aside rather than resumed (a wrong value would end in the book).
    let mut edited = whole.clone();
    edited[32 + 8] ^= 0x10;
    std::fs::write(&cp, &edited).unwrap();
    let again = build_book(&g, &options(5, Some(cp.clone())), &NoProgress).unwrap();
    assert_eq!(again.records, clean.records);
    assert_eq!(std::fs::read(&aside).unwrap(), edited);
    // The checkpoint of another depth is not reused.
    let deeper = build_book(&g, &options(6, Some(cp.clone())), &NoProgress).unwrap();
    assert_eq!(
        deeper.records,
        build_book(&g, &options(6, None), &NoProgress)
            .unwrap()
            .records
    );
    // A checkpoint path that is a symbolic link is refused, and the file it
    // points to is left alone.
    #[cfg(unix)]
    {
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let refused = build_book(&g, &options(5, Some(link)), &NoProgress).unwrap_err();
        assert!(refused.to_string().contains("symbolic link"), "{refused}");
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    }
}

/// The 7x6 book that comes with the tools is what its command writes:
/// exactly the canonical positions to its depth, every value above the
/// deepest layer the minimax of its children's (`verify`), and a sample
/// of the deepest layer the solver's own score.
#[cfg(feature = "shipped-books")]
#[test]
fn the_shipped_book_holds_every_early_position_with_its_score() {
    use crate::games::connect_four::SHIPPED_7X6;
    use crate::registry::AnyGame;

    let (db, any) = AnyGame::open_bytes(SHIPPED_7X6.name, SHIPPED_7X6.bytes).unwrap();
    assert_eq!(any.label(), "connect-four 7x6");
    assert!(db.is_packed(), "shipped packed");
    let db = db.unpack_with(&NoProgress).unwrap();
    let g = ConnectFour::from_variant("").unwrap();
    let v = g.variant();
    let layout = db.header().layout;
    let keys: Vec<u64> = (0..db.len() as usize)
        .map(|i| layout.key(db.record(i).unwrap()))
        .collect();
    let depth = keys
        .iter()
        .map(|&k| Bitboard::from_key(v, k).unwrap().moves())
        .max()
        .unwrap();
    assert!(depth >= 4, "depth {depth}");
    assert!(SHIPPED_7X6
        .command
        .ends_with(&format!("--depth {depth} --layout packed")));

    let mut expected = BTreeSet::new();
    enumerate(Bitboard::new(v), depth, &mut expected);
    assert_eq!(keys, expected.iter().copied().collect::<Vec<_>>());

    let report = verify(&db, &g, &NoProgress).unwrap();
    let shallower = keys
        .iter()
        .filter(|&&k| Bitboard::from_key(v, k).unwrap().moves() < depth)
        .count() as u64;
    assert!(
        report.derived >= shallower,
        "{report:?}, {shallower} above the deepest layer"
    );

    // 24 of the deepest layer, spread over it, searched without a book.
    let deepest: Vec<u64> = keys
        .iter()
        .copied()
        .filter(|&k| Bitboard::from_key(v, k).unwrap().moves() == depth)
        .collect();
    let mut solver = Solver::with_table_bits(22).unwrap();
    for i in 0..24 {
        let key = deepest[(i * 7919 + 13) % deepest.len()];
        let p = Bitboard::from_key(v, key).unwrap();
        let stored = db.get(key).unwrap().unwrap();
        let expected = match p.is_over() {
            true => Value::TERMINAL,
            false => g.value_of_score(&p, solver.solve(&p)),
        };
        assert_eq!(stored, expected, "{p}");
    }
}

#[cfg(feature = "shipped-books")]
#[test]
fn a_packed_book_read_by_ranges_wants_every_block_at_once() {
    // A live search takes every entry of its book: read by ranges (the
    // static site, npm), the host fetches every missing block in one round,
    // not one round a block.
    use crate::core::BookSource;
    use crate::db::RangeFile;
    use crate::games::connect_four::SHIPPED_7X6;
    use crate::registry::AnyGame;

    let bytes = SHIPPED_7X6.bytes;
    let file = Arc::new(RangeFile::new(bytes.len() as u64));
    let supply = |file: &RangeFile| {
        let wanted = file.take_wanted();
        for &(s, e) in &wanted {
            file.supply(s, &bytes[s as usize..e as usize]).unwrap();
        }
        wanted.len()
    };
    let mut open = None;
    for _ in 0..4 {
        match AnyGame::open_ranges("c4.db", Arc::clone(&file)) {
            Ok((db, _)) => {
                open = Some(db);
                break;
            }
            Err(_) => assert!(supply(&file) > 0, "an open error wanting nothing"),
        }
    }
    let db = open.expect("opened within 4 rounds");
    let blocks = db.packed().expect("packed").block_count();
    assert!(blocks > 8, "{blocks} blocks");
    let first: Result<Vec<_>, _> = db.entries().collect();
    assert!(first.is_err(), "no block was loaded yet");
    let wanted = file.take_wanted();
    let covered: u64 = wanted.iter().map(|&(s, e)| e - s).sum();
    for &(s, e) in &wanted {
        file.supply(s, &bytes[s as usize..e as usize]).unwrap();
    }
    let entries: Vec<_> = db
        .entries()
        .collect::<Result<_, _>>()
        .expect("every block supplied in one round");
    assert_eq!(entries.len() as u64, db.len());
    assert!(file.take_wanted().is_empty());
    assert!(covered > bytes.len() as u64 / 2, "{covered} bytes wanted");
}
