//! `query stats` as a user (or a script) runs it.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::str::contains;

/// A solved database per (game, variant).
fn db(game: &str, variant: &str) -> PathBuf {
    crate::common::solved_db(game, variant)
}

fn stats(db: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_query"));
    c.arg("stats").arg("--db").arg(db);
    c
}

fn json(out: &[u8]) -> serde_json::Value {
    serde_json::from_slice(out).unwrap()
}

#[test]
fn human_tables_for_british_square_3x3() {
    stats(&db("british-square", "3x3"))
        .assert()
        .success()
        .stdout(contains("States: 74 canonical states"))
        .stdout(contains(
            "Ends of the game: 9 states: X wins 4, O wins 2, ties 3",
        ))
        .stdout(contains("  games    744\n"))
        .stdout(contains("  X wins   352   47.3%"))
        .stdout(contains("   total 18  7 16  6 27    74"))
        .stdout(contains("Best first moves: a1 c1 a3 c3"))
        .stdout(contains("fails at 4 of 56 positions"));
}

/// Tic-tac-toe's text says "draws", its word, and nothing of passes,
/// which it does not have.
#[test]
fn human_tables_speak_of_what_the_game_has() {
    let a = stats(&db("k-in-a-row", "3x3,k=3")).assert().success();
    let out = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    assert!(out.contains("X wins 91, O wins 44, draws 3"), "{out}");
    assert!(out.contains("  draws     46,080   18.1%"), "{out}");
    assert!(!out.contains("pass"), "{out}");
    assert!(!out.contains("tie"), "{out}");
    // Dandelions always has a winner: no even result is counted.
    let a = stats(&db("dandelions", "2x2")).assert().success();
    let out = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    assert!(!out.contains("ties") && !out.contains("draws"), "{out}");
    assert!(!out.contains("pass"), "{out}");
}

#[test]
fn json_has_every_count() {
    let out = stats(&db("british-square", "4x4"))
        .arg("--json")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let j = json(&out);
    assert_eq!(j["states"], 10206);
    assert_eq!(j["states_counted"], "canonical");
    let by_layer: u64 = j["by_layer"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(by_layer, 10206);
    assert_eq!(j["terminal"]["count"], 128);
    let p = &j["playouts"];
    assert_eq!(p["games"], 47_601_792u64);
    let parts: u64 = ["first_wins", "second_wins", "ties"]
        .iter()
        .map(|k| p[k].as_u64().unwrap())
        .sum();
    assert_eq!(parts, 47_601_792);
    assert_eq!(j["start_value"], 0);
    assert_eq!(j["start_moves"].as_array().unwrap().len(), 16);
    assert_eq!(j["heuristics"][0]["name"], "greedy");
}

#[test]
fn heuristic_examples_on_request() {
    let out = stats(&db("british-square", "3x3"))
        .args(["--json", "--heuristic", "greedy", "--examples", "2"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let j = json(&out);
    let h = &j["heuristics"][0];
    assert_eq!(h["failures"], 4);
    let ex = h["examples"].as_array().unwrap();
    assert_eq!(ex.len(), 2);
    for e in ex {
        // Some pick is not among the best moves.
        let best: Vec<&str> = e["best"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["move"].as_str().unwrap())
            .collect();
        assert!(e["picks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| !best.contains(&m["move"].as_str().unwrap())));
    }
    assert!(
        j.get("playouts").is_none(),
        "only the heuristic was asked for"
    );
    stats(&db("british-square", "3x3"))
        .args(["--heuristic", "greedy", "--examples", "1"])
        .assert()
        .success()
        .stdout(contains("example 1: "))
        .stdout(contains("greedy picks: "))
        .stdout(contains("best moves: "));
}

#[test]
fn unknown_heuristic_is_a_usage_error() {
    stats(&db("british-square", "3x3"))
        .args(["--heuristic", "nope"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(contains("unknown heuristic \"nope\""))
        .stderr(contains("known: greedy"));
}

#[test]
fn bad_databases_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    stats(&dir.path().join("missing.db")).assert().code(3);
    let junk = dir.path().join("junk.db");
    std::fs::write(&junk, b"not a database").unwrap();
    stats(&junk).assert().code(3);
}

#[test]
fn dots_and_boxes_counts_games_beyond_64_bits_exactly() {
    // 2x4 has 22 edges: 22! games, more than a u64 holds.
    let out = stats(&db("dots-and-boxes", "2x4"))
        .arg("--json")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let factorial: u128 = (1..=22u128).product();
    assert!(text.contains(&format!("\"games\":{factorial},")), "{text}");
    let j = json(text.as_bytes());
    assert_eq!(j["states_counted"], "every-key");
    assert_eq!(j["states"], 1u64 << 22);
    assert!(
        j["terminal"]["first_wins"].is_null(),
        "the key holds no score"
    );
    stats(&db("dots-and-boxes", "1x2"))
        .assert()
        .success()
        .stdout(contains("  games    5,040\n"))
        .stdout(contains("the net value for the side to move"));
}
