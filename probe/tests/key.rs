//! Answers by key: every record of a file answered by its key, alone and
//! in batches, agrees with the answers by position; symmetric images of a
//! key answer alike; keys no position has, and positions the file lacks,
//! are typed errors; a book answers past itself by search.

use std::path::{Path, PathBuf};

use boardsolve::core::NoProgress;
use boardsolve::games::british_square::BritishSquare;
use boardsolve::games::dots_and_boxes::DotsAndBoxes;
use boardsolve::Game;
use boardsolve_probe::{ErrorKind, Position, ProbeError, Tablebase};

fn write(dir: &Path, name: &str, game: &dyn Game, sol: boardsolve::core::Solved) -> PathBuf {
    let path = dir.join(name);
    boardsolve::db::write_database(&path, game.descriptor(), &sol).unwrap();
    path
}

fn bsq(dir: &Path, variant: &str) -> PathBuf {
    let game = BritishSquare::from_variant(variant).unwrap();
    let sol = boardsolve::solve::solve(&game, &NoProgress).unwrap();
    write(dir, &format!("bsq-{variant}.db"), &game, sol.into())
}

/// Every position reached in a few random games, from the start.
fn positions(tb: &Tablebase, games: usize) -> Vec<Position> {
    let mut out = Vec::new();
    let mut seed = 11u64;
    for _ in 0..games {
        let mut p = tb.parse("start").unwrap();
        loop {
            out.push(p);
            let moves = p.moves();
            if moves.is_empty() {
                break;
            }
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            p = p.play(&moves[(seed >> 33) as usize % moves.len()]).unwrap();
        }
    }
    out
}

#[test]
fn every_record_answers_by_its_key_alone_and_together() {
    let dir = tempfile::tempdir().unwrap();
    let tb = Tablebase::open(bsq(dir.path(), "4x4")).unwrap();
    let db = tb.database().unwrap();
    let shift = db.header().layout.key_shift;
    let keys: Vec<u64> = db
        .raw_records()
        .iter()
        .map(|r| u64::from_le(*r) >> shift)
        .collect();
    assert_eq!(keys.len() as u64, tb.len());
    let together = tb.probe_keys(&keys);
    for (k, t) in keys.iter().zip(&together) {
        let alone = tb.probe_key(*k).unwrap();
        assert_eq!(t.as_ref().unwrap(), &alone, "key {k}");
        assert!(alone.remoteness <= 32);
    }
    // With the lookup index too.
    tb.build_index();
    for (k, t) in keys.iter().zip(&together).step_by(7) {
        assert_eq!(&tb.probe_key(*k).unwrap(), t.as_ref().unwrap());
    }
}

#[test]
fn a_key_answers_as_its_position_does_in_every_symmetric_image() {
    let dir = tempfile::tempdir().unwrap();
    let tb = Tablebase::open(bsq(dir.path(), "4x4")).unwrap();
    let ps = positions(&tb, 30);
    let keys: Vec<u64> = ps.iter().map(Position::key).collect();
    let together = tb.probe_keys(&keys);
    for (p, t) in ps.iter().zip(together) {
        let eval = tb.eval(p).unwrap();
        assert_eq!(tb.probe_key(p.key()).unwrap(), eval, "{p}");
        assert_eq!(tb.probe_key(p.canonical_key()).unwrap(), eval, "{p}");
        assert_eq!(t.unwrap(), eval, "{p}");
        assert_eq!(eval.value, tb.answer(p).unwrap().value());
    }
}

#[test]
fn keys_no_position_has_and_keys_the_file_lacks_are_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    let tb = Tablebase::open(bsq(dir.path(), "3x3")).unwrap();
    // Bits past the board's cells: no position has the key.
    let bad = u64::MAX;
    match tb.probe_key(bad) {
        Err(e @ ProbeError::Malformed { .. }) => {
            assert_eq!(e.kind(), ErrorKind::MalformedPosition);
            assert!(
                e.to_string().contains("no position of british-square 3x3"),
                "{e}"
            );
        }
        other => panic!("{other:?}"),
    }
    // X on a1 and O on b1, side by side: bits that are no position
    // (opposing pieces are never orthogonally adjacent).
    let adjacent = 1 | 1 << (9 + 1);
    assert!(matches!(
        tb.probe_key(adjacent),
        Err(ProbeError::Malformed { .. })
    ));
    let start = tb.parse("start").unwrap().key();
    let results = tb.probe_keys(&[start, bad, start]);
    assert!(results[0].is_ok() && results[2].is_ok());
    assert!(matches!(results[1], Err(ProbeError::Malformed { .. })));
    // X in the centre and O to move is a position, but no game reaches
    // it on 3x3 (X may not open there), and the complete file lacks it.
    let centre = 1 << 4 | 1 << 18;
    match tb.probe_key(centre) {
        Err(e @ ProbeError::Unreachable { .. }) => assert_eq!(e.kind(), ErrorKind::Unreachable),
        other => panic!("{other:?}"),
    }
}

#[test]
fn dense_files_answer_by_key() {
    let dir = tempfile::tempdir().unwrap();
    let game = DotsAndBoxes::from_variant("2x2").unwrap();
    let sol = boardsolve::solve::dense::solve_dense(&game, &NoProgress).unwrap();
    let path = write(dir.path(), "dab.db", &game, sol.into());
    let tb = Tablebase::open(path).unwrap();
    let ps = positions(&tb, 20);
    for p in &ps {
        assert_eq!(tb.probe_key(p.key()).unwrap(), tb.eval(p).unwrap(), "{p}");
    }
    // 2x2 has 12 edges: a key with bit 12 set has no position.
    assert!(matches!(
        tb.probe_key(1 << 12),
        Err(ProbeError::Malformed { .. })
    ));
}
