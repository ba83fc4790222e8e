//! The generator's Connect Four opening book, as a user runs it.

use assert_cmd::Command;
use boardsolve::Database;

fn generator() -> Command {
    Command::new(env!("CARGO_BIN_EXE_generator"))
}

#[test]
fn writes_a_partial_book_and_removes_its_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c4.db");
    let out = generator()
        .args([
            "--game",
            "connect-four",
            "--variant",
            "5x4",
            "--depth",
            "3",
            "--quiet",
            "--json",
            "-o",
        ])
        .arg(&path)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let j: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(j["game"], "connect-four");
    assert_eq!(j["complete"], false);
    // Layers 0 to 3, every record counted once.
    let layers: Vec<u64> = j["layer_sizes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(layers.len(), 4);
    assert_eq!(j["states"], layers.iter().sum::<u64>());
    let db = Database::open(&path).unwrap();
    db.verify_checksum().unwrap();
    assert!(!db.header().is_complete());
    assert_eq!(db.header().game_name, "connect-four");
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["c4.db".to_owned()], "no checkpoint left");
}

#[test]
fn depth_is_a_usage_error_for_other_games() {
    let dir = tempfile::tempdir().unwrap();
    generator()
        .current_dir(dir.path())
        .args([
            "--game",
            "british-square",
            "--variant",
            "3x3",
            "--depth",
            "3",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--depth"));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn depth_on_a_board_solved_completely_writes_its_book() {
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full.db");
    let book = dir.path().join("book.db");
    let args = [
        "--game",
        "connect-four",
        "--variant",
        "4x4",
        "--quiet",
        "-o",
    ];
    generator().args(args).arg(&full).assert().success();
    generator()
        .args(args)
        .arg(&book)
        .args(["--depth", "3", "--table-bits", "20"])
        .assert()
        .success();
    let full = Database::open(&full).unwrap();
    let book = Database::open(&book).unwrap();
    assert!(full.header().is_complete());
    assert!(!book.header().is_complete());
    // The book's states are the complete file's first layers, with their
    // values.
    assert!(book.len() < full.len() && book.len() > 10);
    let layout = book.header().layout;
    for &record in book.raw_records() {
        let record = u64::from_le(record);
        assert_eq!(full.get(layout.key(record)), Ok(Some(layout.value(record))));
    }
    // Without --depth the table size has nothing to size.
    generator()
        .args(args)
        .arg(dir.path().join("x.db"))
        .args(["--table-bits", "20"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "give --depth N for its opening book",
        ));
}
