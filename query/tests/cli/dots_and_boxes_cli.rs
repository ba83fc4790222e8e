//! Dots and Boxes through `query`, as a user runs it: positions with the side
//! to move and the score answered from a dense database, and damaged or
//! mismatched files refused.

use crate::common::json_lines;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use assert_cmd::Command;
use boardsolve::core::NoProgress;
use boardsolve::games::dots_and_boxes::DotsAndBoxes;
use boardsolve::solve::dense::solve_dense;
use boardsolve::Game;
use predicates::str::contains;

/// Databases written once per test binary (solved in-process: the
/// generator's own tests run the generator).
fn db(variant: &str) -> PathBuf {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    static LOCK: Mutex<()> = Mutex::new(());
    let dir = DIR.get_or_init(|| tempfile::tempdir().unwrap()).path();
    let path = dir.join(format!("dab{variant}.db"));
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    if !path.exists() {
        let game = DotsAndBoxes::from_variant(variant).unwrap();
        let sol = solve_dense(&game, &NoProgress).unwrap();
        boardsolve::db::write_database(&path, game.descriptor(), &sol.into()).unwrap();
    }
    path
}

fn query(db: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_query"));
    c.arg("--db").arg(db);
    c
}

#[test]
fn start_position_for_people_with_the_board_drawn() {
    query(&db("2x2"))
        .assert()
        .success()
        .stdout(contains("+ 0 + 1 +\n6   7   8\n+ 2 + 3 +"))
        .stdout(contains("To move:    A"))
        .stdout(contains(
            "Value:      +2 for A, the side to move (a win: A takes 2 boxes more than B from here)",
        ))
        .stdout(contains("Remoteness: 12"))
        .stdout(contains("Move values"));
}

#[test]
fn side_and_score_give_the_final_result() {
    // 2x2 with box 0 (edges 0, 2, 6, 7) closed by A, B to move.
    let out = query(&db("2x2"))
        .args(["--json", "0,2,6,7 B 1-0"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let j = &json_lines(&out)[0];
    assert_eq!(j["to_move"], "B");
    let net = j["net"].as_i64().unwrap();
    assert_eq!(j["value"], net, "the value is the mover's net boxes");
    // A leads by 1 and B nets `net` of the rest.
    assert_eq!(j["final_for_first"], 1 - net);
    assert_eq!(j["remoteness"], 8);
    let moves = j["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 8);
    let best: Vec<&serde_json::Value> = j["best"].as_array().unwrap().iter().collect();
    assert!(!best.is_empty());
    for m in moves {
        assert_eq!(m["best"], m["value"] == j["value"]);
        assert!(m["value"].as_i64().unwrap() <= net);
        assert!(m["edge"].as_u64().unwrap() < 12);
    }
    // Without a score there is no final result; the value is the same.
    let out = query(&db("2x2"))
        .args(["--json", "0,2,6,7 B"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let k = &json_lines(&out)[0];
    assert_eq!(k["net"], j["net"]);
    assert!(k.get("final_for_first").is_none());
    // People see the final line too.
    query(&db("2x2"))
        .arg("0 2 6 7 B 1-0")
        .assert()
        .success()
        .stdout(contains(format!("Final:      {:+}", 1 - net)));
}

#[test]
fn bad_positions_are_explained() {
    for (input, needle) in [
        ("0,12", "not an edge"),
        ("3,3", "listed twice"),
        ("0,2,6 1-0", "needs the side to move"),
        ("0,2,6,7 A 0-0", "does not add up"),
        ("0,2 A x-1", "not a score"),
        ("", "empty position"),
    ] {
        query(&db("2x2"))
            .arg(input)
            .assert()
            .code(1)
            .stderr(contains(needle));
    }
}

#[test]
fn batch_mode_answers_good_lines_and_flags_bad_ones() {
    let out = query(&db("2x3"))
        .args(["--json", "-"])
        .write_stdin("none\n0,5,12 B 0-0\nbogus\n\n0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16\n")
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 5);
    assert_eq!(
        lines[0]["value"], -2,
        "2x3 is a win by 2 for the second player"
    );
    assert_eq!(lines[1]["to_move"], "B");
    assert!(lines[2]["error"].is_string());
    assert!(lines[3]["error"].is_string());
    assert_eq!(lines[4]["remoteness"], 0);
    assert_eq!(lines[4]["moves"].as_array().unwrap().len(), 0);
}

#[test]
fn principal_variation_draws_every_edge() {
    let out = query(&db("2x2"))
        .args(["--json", "--pv", "none"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let j = &json_lines(&out)[0];
    let mut pv: Vec<u64> = j["pv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().parse().unwrap())
        .collect();
    pv.sort_unstable();
    assert_eq!(pv, (0..12).collect::<Vec<u64>>());
}

#[test]
fn damaged_or_mismatched_files_exit_3() {
    let good = std::fs::read(db("2x2")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    let truncated = write("t.db", &good[..good.len() - 1]);
    query(&truncated)
        .assert()
        .code(3)
        .stderr(contains("truncated"));
    let mut flipped = good.clone();
    flipped[4096 + 100] ^= 0x40;
    let flipped = write("f.db", &flipped);
    query(&flipped)
        .args(["verify", "-q"])
        .assert()
        .code(3)
        .stderr(contains("checksum"));
    query(&db("2x2"))
        .args(["--game", "british-square"])
        .assert()
        .code(3)
        .stderr(contains("dots-and-boxes"));
}
