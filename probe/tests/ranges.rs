//! Tablebases read from bytes and by ranges answer as the file does: every
//! layout (sorted, dense, packed sorted and packed dense) and a book, with
//! the host supplying exactly the ranges wanted, batch by batch.
#![cfg(feature = "json")]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use boardsolve::core::NoProgress;
use boardsolve::db::pack::{pack_database, write_packed, PackOptions};
use boardsolve::db::Database;
use boardsolve::registry::AnyGame;
use boardsolve::solve::book::BookOptions;
use boardsolve_probe::{ProbeError, RangeFile, Tablebase};

fn write(dir: &Path, game: &str, variant: &str) -> PathBuf {
    let g = AnyGame::new(game, variant).unwrap();
    let path = dir.join(format!("{game}-{variant}.db"));
    let sol = if g.has_book() {
        g.build_book(&BookOptions::new(3), &NoProgress)
            .unwrap()
            .unwrap()
            .into()
    } else {
        g.solve(&NoProgress).unwrap()
    };
    boardsolve::db::write_database(&path, g.game().descriptor(), &sol).unwrap();
    path
}

fn packed(path: &Path) -> PathBuf {
    let (db, game) = AnyGame::open(path).unwrap();
    let options = PackOptions {
        block_entries: 64,
        ..PackOptions::default()
    };
    let (body, header) = pack_database(&db, game.game(), options, &NoProgress).unwrap();
    let out = path.with_extension("packed.db");
    write_packed(&out, &header, &body).unwrap();
    assert!(Database::open(&out).unwrap().is_packed());
    out
}

/// Runs `call` on `tb` until it wants nothing more, supplying what it
/// wanted from `bytes` each round; returns the answer and the rounds.
fn by_rounds<T>(tb: &Tablebase, bytes: &[u8], call: impl Fn(&Tablebase) -> T) -> (T, usize) {
    for round in 1..=64 {
        let answer = call(tb);
        let wanted = tb.wanted();
        if wanted.is_empty() {
            return (answer, round);
        }
        for (s, e) in wanted {
            let file = tb.ranges().unwrap();
            file.supply(s, &bytes[s as usize..e as usize]).unwrap();
        }
    }
    panic!("still wanting bytes after 64 rounds");
}

fn open_by_ranges(path: &Path, bytes: &[u8]) -> Tablebase {
    let file = Arc::new(RangeFile::new(bytes.len() as u64));
    for _ in 0..4 {
        match Tablebase::from_ranges("by-ranges.db", Arc::clone(&file)) {
            Ok(tb) => return tb,
            Err(ProbeError::Open { .. }) => {
                let wanted = file.take_wanted();
                assert!(
                    !wanted.is_empty(),
                    "{}: an open error wanting nothing",
                    path.display()
                );
                for (s, e) in wanted {
                    file.supply(s, &bytes[s as usize..e as usize]).unwrap();
                }
            }
            Err(e) => panic!("{e}"),
        }
    }
    panic!("the open still wants bytes after 4 rounds");
}

/// Every answer of the three tablebases on `positions` agrees, and a
/// tablebase read by ranges reads far less than the file when the file
/// is large.
fn agree(path: &Path, positions: &[&str]) {
    let bytes = std::fs::read(path).unwrap();
    let file = Tablebase::open(path).unwrap();
    let whole = Tablebase::from_bytes("in-memory.db", &bytes).unwrap();
    let ranged = open_by_ranges(path, &bytes);
    assert_eq!(ranged.game(), file.game());
    for p in positions {
        let want = file.probe_json(p);
        assert_eq!(whole.probe_json(p), want, "{p}");
        let (got, _) = by_rounds(&ranged, &bytes, |tb| tb.probe_json(p));
        assert_eq!(got, want, "{p} by ranges of {}", path.display());
        let line = |tb: &Tablebase| {
            tb.parse(p)
                .and_then(|p| tb.line(&p))
                .map_err(|e| e.to_string())
        };
        let (got, _) = by_rounds(&ranged, &bytes, line);
        assert_eq!(got, line(&file), "{p}");
        let svg = |tb: &Tablebase| tb.probe(p).map(|a| a.svg()).map_err(|e| e.to_string());
        let (got, _) = by_rounds(&ranged, &bytes, svg);
        assert_eq!(got, svg(&file), "{p}");
    }
    // The same answers again need no more bytes.
    for p in positions {
        let (_, rounds) = by_rounds(&ranged, &bytes, |tb| tb.probe_json(p));
        assert_eq!(rounds, 1, "{p}");
    }
}

#[test]
fn sorted_and_packed_sorted_files_answer_the_same_by_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let plain = write(dir.path(), "british-square", "4x4");
    let positions = ["start", "b2", "b2 c3", "b2 c3 a1 d4", "nonsense"];
    agree(&plain, &positions);
    agree(&packed(&plain), &positions);
}

#[test]
fn dense_and_packed_dense_tables_answer_the_same_by_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let plain = write(dir.path(), "dots-and-boxes", "2x2");
    let positions = ["start", "a1", "a1 b1", "zz"];
    agree(&plain, &positions);
    agree(&packed(&plain), &positions);
}

#[test]
fn a_book_read_by_ranges_wants_it_all_and_answers_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let plain = write(dir.path(), "connect-four", "5x4");
    let positions = ["start", "3", "33", "3333"];
    agree(&plain, &positions);
    agree(&packed(&plain), &positions);
}

#[test]
fn a_damaged_file_read_by_ranges_is_refused_as_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let plain = write(dir.path(), "british-square", "4x4");
    let mut bytes = std::fs::read(&plain).unwrap();
    bytes[100] ^= 1; // in the header
    let file = Arc::new(RangeFile::new(bytes.len() as u64));
    file.supply(0, &bytes).unwrap();
    let err = Tablebase::from_ranges("x.db", Arc::clone(&file)).unwrap_err();
    assert!(
        err.to_string().contains("header checksum mismatch"),
        "{err}"
    );
    assert!(file.take_wanted().is_empty());
    // Too short to be a database.
    let file = Arc::new(RangeFile::new(10));
    file.supply(0, &[0; 10]).unwrap();
    let err = Tablebase::from_ranges("x.db", file).unwrap_err();
    assert!(err.to_string().contains("shorter than"), "{err}");
    let err = Tablebase::from_bytes("x.db", &bytes[..5000]).unwrap_err();
    assert!(err.to_string().starts_with("database x.db: "), "{err}");
}
