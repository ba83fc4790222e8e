//! The generator's Dots and Boxes opening book on a board past the tables,
//! as a user runs it.

use assert_cmd::Command;
use boardsolve::Database;
use predicates::str::contains;

fn generator() -> Command {
    Command::new(env!("CARGO_BIN_EXE_generator"))
}

#[test]
fn a_board_past_the_tables_gets_a_searched_book() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dab-1x11.db");
    // 1x11 has 34 edges: more than a table holds. Depth 0: the start,
    // searched.
    let out = generator()
        .args([
            "--game",
            "dots-and-boxes",
            "--variant",
            "1x11",
            "--depth",
            "0",
            "--table-bits",
            "20",
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
    assert_eq!(j["game"], "dots-and-boxes");
    assert_eq!(j["variant"], "1x11");
    assert_eq!(j["layout"], "sorted");
    assert_eq!(j["states"], 1);
    // 1xN with N odd: the first player loses by a box.
    assert_eq!(j["start_value"], -1, "{j}");
    let db = Database::open(&path).unwrap();
    db.verify_checksum().unwrap();
    assert!(!db.header().is_complete());
    // The start's record: value -1, every edge still to draw.
    let start = db.get(0).unwrap().expect("the start is in the book");
    assert_eq!((start.net, start.remoteness), (-1, 34));
}

#[test]
fn a_board_with_a_table_takes_no_depth() {
    generator()
        .args([
            "--game",
            "dots-and-boxes",
            "--variant",
            "2x2",
            "--depth",
            "3",
        ])
        .assert()
        .code(2)
        .stderr(contains("solved completely"));
}
