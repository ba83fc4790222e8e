//! `query` on k-in-a-row as a user runs it: a complete tic-tac-toe
//! database (text, JSON, SVG, stats, verify, play), a book of a larger
//! board with live search past it, search with no database, and errors.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use boardsolve::core::NoProgress;
use boardsolve::games::k_in_a_row::KInARow;
use boardsolve::solve::book::{build_book, BookOptions};
use boardsolve::Game;
use predicates::str::contains;

fn query() -> Command {
    Command::new(env!("CARGO_BIN_EXE_query"))
}

/// The complete database of `spec`, solved in-process and written as the
/// generator writes it.
fn complete(dir: &Path, spec: &str) -> PathBuf {
    let g = KInARow::from_variant(spec).unwrap();
    let sol = boardsolve::solve::solve(&g, &NoProgress).unwrap();
    let path = dir.join("kinarow.db");
    boardsolve::db::write_database(&path, g.descriptor(), &sol.into()).unwrap();
    path
}

fn json(db: &Path, position: &str) -> serde_json::Value {
    let out = query()
        .arg("--db")
        .arg(db)
        .args(["--json", position])
        .assert()
        .success();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

#[test]
fn tic_tac_toe_through_every_tool() {
    let dir = tempfile::tempdir().unwrap();
    let db = complete(dir.path(), "");
    let j = json(&db, "start");
    assert_eq!(
        (j["value"].as_i64(), j["remoteness"].as_i64()),
        (Some(0), Some(9))
    );
    assert_eq!(j["moves"].as_array().unwrap().len(), 9);
    // O answering a corner opening anywhere but the centre loses.
    let j = json(&db, "a1");
    assert_eq!(j["to_move"], "O");
    assert_eq!(j["best"], serde_json::json!(["b2"]));
    for m in j["moves"].as_array().unwrap() {
        let expect = if m["cell"] == 4 { 0 } else { -1 };
        assert_eq!(m["value"].as_i64(), Some(expect), "{m}");
    }
    // Every move named in JSON is a coordinate that reads back as input,
    // to the position its cell number reaches.
    for m in j["moves"].as_array().unwrap() {
        let name = m["move"].as_str().unwrap();
        assert!(name.starts_with(['a', 'b', 'c']), "{m}");
        let by_name = json(&db, &format!("a1 {name}"));
        let by_number = json(&db, &format!("a1 {}", m["cell"]));
        assert_eq!(by_name["position"], by_number["position"], "{m}");
    }
    // A won position: a loss for the side to move, over.
    let j = json(&db, "XXX/OO./... O");
    assert_eq!(j["value"].as_i64(), Some(-1));
    assert_eq!(j["remoteness"].as_i64(), Some(0));
    query()
        .arg("--db")
        .arg(&db)
        .arg("b2")
        .assert()
        .success()
        .stdout(contains("Position:   .../.X./... O"))
        .stdout(contains(" 2 -1  X -1"));
    let svg = query()
        .arg("--db")
        .arg(&db)
        .args(["--svg", "-", "start"])
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&svg.get_output().stdout).starts_with("<svg"));
    query()
        .arg("--db")
        .arg(&db)
        .arg("stats")
        .assert()
        .success()
        .stdout(contains("765 canonical states"))
        .stdout(contains("255,168"));
    query()
        .arg("--db")
        .arg(&db)
        .arg("verify")
        .assert()
        .success()
        .stdout(contains("OK"));
    query()
        .arg("--db")
        .arg(&db)
        .args(["play", "--ai", "second"])
        .write_stdin("b2\nquit\n")
        .assert()
        .success();
    query()
        .arg("--db")
        .arg(&db)
        .arg("XX./OO./... O")
        .assert()
        .code(1)
        .stderr(contains("X is to move"));
}

/// Writes the book of 2 stones of `spec` into `dir` (searched with tables
/// of `2^bits` entries), and checks that `query --json` answers each of
/// `positions` from it exactly as search alone does. Returns the game.
fn book_answers_as_search(dir: &Path, spec: &str, bits: u32, positions: &[&str]) -> KInARow {
    let g = KInARow::from_variant(spec).unwrap();
    let mut o = BookOptions::new(2);
    o.table_bits = bits;
    let sol = build_book(&g, &o, &NoProgress).unwrap();
    let book = dir.join(format!("kinarow-{spec}.db"));
    boardsolve::db::write_database(&book, g.descriptor(), &sol.into()).unwrap();
    let bits = bits.to_string();
    for position in positions {
        let with = query()
            .arg("--db")
            .arg(&book)
            .args(["--table-bits", &bits, "--json", position])
            .assert()
            .success();
        let without = query()
            .args(["--game", "k-in-a-row", "--variant", spec])
            .args(["--table-bits", &bits, "--json", position])
            .assert()
            .success();
        assert_eq!(
            with.get_output().stdout,
            without.get_output().stdout,
            "{spec} {position}"
        );
    }
    g
}

#[test]
fn search_without_a_database_and_a_book_agree() {
    // 5x4,k=4 (20 cells): a draw, found by search alone.
    let out = query()
        .args([
            "--game",
            "k-in-a-row",
            "--variant",
            "5x4,k=4",
            "--table-bits",
            "22",
        ])
        .args(["--json", "start"])
        .assert()
        .success();
    let j: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(
        (j["value"].as_i64(), j["remoteness"].as_i64()),
        (Some(0), Some(20))
    );
    // A book of 2 stones answers inside and searches past it, alike.
    let dir = tempfile::tempdir().unwrap();
    let g = book_answers_as_search(
        dir.path(),
        "4x5,k=4",
        20,
        &["start", "b2", "b2 c2", "b2 c2 c3"],
    );
    query()
        .args(["--game", "k-in-a-row", "--variant", "7x8,k=5", "start"])
        .assert()
        .code(2)
        .stderr(contains("more than 49"));
    assert_eq!(g.descriptor().variant, "4x5,k=4");
}

/// 7x7, the largest board: a book of its ranked positions answers as the
/// search does, and positions past the book's keys (40 stones) are
/// answered by search, as text, JSON and SVG, and played to the end.
#[test]
fn seven_by_seven_with_and_without_a_book() {
    let dir = tempfile::tempdir().unwrap();
    let positions = [
        "start",
        "d4",
        "d4 c3",
        "d4 c3 e5",
        "a1 b1 c1 d1 e1 f1 g1 a2 b2",
    ];
    book_answers_as_search(dir.path(), "7x7,k=3", 18, &positions);
    let deep = ".XOXOXO/XOX.XOO/X..XX.O/O.XXOOO/OOOXXOX/X.OO.XO/XX.XXOO";
    let k5 = ["--game", "k-in-a-row", "--variant", "7x7,k=5"];
    let out = query().args(k5).args(["--json", deep]).assert().success();
    let j: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(j["position"], format!("{deep} X"));
    let moves = j["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 9);
    let best = moves.iter().map(|m| m["value"].as_i64().unwrap()).max();
    assert_eq!(j["value"].as_i64(), best);
    let svg = query()
        .args(k5)
        .args(["--svg", "-", deep])
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&svg.get_output().stdout).starts_with("<svg"));
    query()
        .args(k5)
        .args(["play", "--ai", "both", deep])
        .assert()
        .success()
        .stdout(contains("Game over after"));
}

#[test]
fn tic_tac_toe_is_a_name_of_the_game_too() {
    let dir = tempfile::tempdir().unwrap();
    let db = complete(dir.path(), "3x3,k=3");
    // Its default file is k-in-a-row's, and the file's game is named by
    // either name.
    let by_alias = query()
        .current_dir(dir.path())
        .args(["--game", "tic-tac-toe", "--json", "b2"])
        .assert()
        .success();
    let by_alias: serde_json::Value =
        serde_json::from_slice(&by_alias.get_output().stdout).unwrap();
    assert_eq!(by_alias, json(&db, "b2"));
    query()
        .arg("--db")
        .arg(&db)
        .args(["--game", "tic-tac-toe", "start"])
        .assert()
        .success();
    // It is one variant: another is a usage error.
    query()
        .args(["--game", "tic-tac-toe", "--variant", "4x4,k=3", "start"])
        .assert()
        .code(2)
        .stderr(contains(
            "\"tic-tac-toe\" is k-in-a-row 3x3,k=3 alone: the variant \"4x4,k=3\" does not apply",
        ));
}
