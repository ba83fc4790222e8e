//! Replays the fuzzing corpus and every crash the fuzzers ever found
//! (`fuzz/corpus/<target>/`, `fuzz/regressions/<target>/`) through the same
//! checks as the fuzz targets (`tests/fuzz_bodies/mod.rs`), with a plain
//! `cargo test`: no nightly toolchain, no libFuzzer. The fuzzers themselves
//! run outside CI (`fuzz/README.md`).

use std::path::{Path, PathBuf};

use crate::fuzz_bodies::TARGETS;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

/// The files of a directory, sorted; none if it does not exist.
fn files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file() && p.file_name().is_none_or(|n| n != ".gitkeep"))
        .collect();
    files.sort();
    files
}

fn replay(target: &str) {
    let check = TARGETS
        .iter()
        .find(|(name, _)| *name == target)
        .map(|&(_, f)| f)
        .expect("known target");
    let corpus = files_in(&fuzz_dir().join("corpus").join(target));
    assert!(
        !corpus.is_empty(),
        "fuzz/corpus/{target}/ is empty or missing"
    );
    let regressions = files_in(&fuzz_dir().join("regressions").join(target));
    let mut failed = Vec::new();
    for file in corpus.iter().chain(&regressions) {
        let data = std::fs::read(file).expect("read corpus file");
        if std::panic::catch_unwind(|| check(&data)).is_err() {
            failed.push(file.display().to_string());
        }
    }
    assert!(
        failed.is_empty(),
        "{target}: {} of {} inputs fail (reproduce one with `cargo fuzz run {target} FILE`):\n{}",
        failed.len(),
        corpus.len() + regressions.len(),
        failed.join("\n")
    );
}

#[test]
fn db_open_corpus_and_regressions() {
    replay("db_open");
}

#[test]
fn parse_british_square_corpus_and_regressions() {
    replay("parse_british_square");
}

#[test]
fn parse_dots_and_boxes_corpus_and_regressions() {
    replay("parse_dots_and_boxes");
}

#[test]
fn variant_specs_corpus_and_regressions() {
    replay("variant_specs");
}

/// Writes the seed inputs the corpus grew from (run once, before fuzzing:
/// `cargo test --test engine -- --ignored write_seed_corpus`): real
/// small databases of both layouts, damaged copies of them, and positions
/// and variant specs in every notation.
#[test]
#[ignore = "writes files into fuzz/corpus/"]
fn write_seed_corpus() {
    use boardsolve::core::NoProgress;
    use boardsolve::db::header::HEADER_SIZE;
    use boardsolve::AnyGame;

    let write = |target: &str, name: &str, bytes: &[u8]| {
        let dir = fuzz_dir().join("corpus").join(target);
        std::fs::create_dir_all(&dir).expect("create corpus directory");
        std::fs::write(dir.join(format!("seed-{name}")), bytes).expect("write seed");
    };

    let tmp = tempfile::tempdir().expect("temporary directory");
    for (game, variant) in [
        ("british-square", "3x3"),
        ("british-square", "3x3,center-allowed"),
        ("british-square", "4x4"),
        ("dots-and-boxes", "1x1"),
        ("dots-and-boxes", "1x2"),
        ("dots-and-boxes", "2x2"),
    ] {
        let g = AnyGame::new(game, variant).expect("known variant");
        let solved = g.solve(&NoProgress).expect("small games solve");
        let path = tmp.path().join("seed.db");
        boardsolve::db::write_database(&path, g.game().descriptor(), &solved)
            .expect("write database");
        let bytes = std::fs::read(&path).expect("read database");
        let stem = format!("{game}-{}", variant.replace(',', "-"));
        write("db_open", &stem, &bytes);
        // Truncated in the records and inside the header.
        let half = HEADER_SIZE + (bytes.len() - HEADER_SIZE) / 2;
        write("db_open", &format!("{stem}-truncated"), &bytes[..half]);
        write(
            "db_open",
            &format!("{stem}-header-only"),
            &bytes[..HEADER_SIZE],
        );
        write(
            "db_open",
            &format!("{stem}-short"),
            &bytes[..HEADER_SIZE / 2],
        );
        // One bit flipped in a record (the checksum catches it; resealed,
        // verification must), and one in the header.
        let mut flipped = bytes.clone();
        flipped[half] ^= 0x04;
        write("db_open", &format!("{stem}-flipped-record"), &flipped);
        let mut flipped = bytes.clone();
        flipped[140] ^= 0x01; // record_count
        write("db_open", &format!("{stem}-flipped-header"), &flipped);
        // Not complete: no children are checked.
        let mut partial = bytes.clone();
        partial[28] = 0; // flags
        write("db_open", &format!("{stem}-incomplete"), &partial);
    }

    for (i, text) in [
        "start",
        "X...X/...../...../...../....O O",
        "X...X.........O.........O",
        "x..../...../...../...../....o",
        "0,24,4",
        "a1 e5 e1",
        "0 12 pass 7",
        "moves: 0 24",
        "X../.../..O X",
        "X.../..../..../...O O",
        "XXXXX/...../OOOOO/...../XXXXX X",
        "12",
        "pass",
        "c3",
    ]
    .iter()
    .enumerate()
    {
        write("parse_british_square", &i.to_string(), text.as_bytes());
    }
    for (i, text) in [
        "none",
        "start",
        "0,5,12",
        "0, 5,12 B 1-0",
        "0 1 2 3 4 6 A",
        "0,2,6,7 A 1-0",
        "0,1,2,3,4,5,6,7,8,9,10,11 B 2-2",
        "3,3",
        "30",
        "7 B",
    ]
    .iter()
    .enumerate()
    {
        write("parse_dots_and_boxes", &i.to_string(), text.as_bytes());
    }
    for (i, text) in [
        "",
        "5x5",
        "3x3,center-allowed",
        "4X4, centre-allowed",
        "3x4",
        "1x10",
        "2 x 6",
        "british-square\n4x4",
        "dots-and-boxes\n2x3",
        "chess\n8x8",
    ]
    .iter()
    .enumerate()
    {
        write("variant_specs", &i.to_string(), text.as_bytes());
    }
}
