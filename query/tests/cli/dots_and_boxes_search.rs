//! Dots and Boxes past the tables through `query`, with no database: every
//! answer from the live search. Values are checked against a plain negamax
//! over the free edges (`DotsAndBoxes::plain_value`).

use assert_cmd::Command;
use boardsolve::games::dots_and_boxes::DotsAndBoxes;
use predicates::str::contains;

fn live(variant: &str) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_query"));
    // No database in the working directory: a fresh one.
    c.current_dir(std::env::temp_dir());
    c.args(["--game", "dots-and-boxes", "--variant", variant]);
    c
}

fn json(variant: &str, position: &str) -> serde_json::Value {
    let out = live(variant).args(["--json", position]).assert().success();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

/// Edges 0 to 28 of 4x4 drawn: seven boxes closed, B to move.
const LATE: &str =
    "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28 B 4-3";

#[test]
fn every_move_of_a_4x4_position_is_valued_by_search() {
    let j = json("4x4", LATE);
    let game = DotsAndBoxes::from_variant("4x4").unwrap();
    let state = (0..29).fold(0u64, |s, e| s | 1 << e);
    let want = i64::from(game.plain_value(state));
    assert_eq!(j["to_move"], "B");
    assert_eq!(j["value"].as_i64(), Some(want), "{j}");
    assert_eq!(j["remoteness"], 11);
    // Each move's value is the plain value of its child, seen by the side
    // to move (a move that closes a box keeps the turn).
    let moves = j["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 11);
    for m in moves {
        let e = m["edge"].as_u64().unwrap();
        let child = state | 1 << e;
        let closed = game
            .box_masks()
            .iter()
            .filter(|&&b| b & 1 << e != 0 && b & !child == 0)
            .count() as i64;
        let after = i64::from(game.plain_value(child));
        let mine = if closed > 0 { closed + after } else { -after };
        assert_eq!(m["value"].as_i64(), Some(mine), "edge {e}: {m}");
        assert_eq!(m["best"].as_bool(), Some(mine == want), "edge {e}: {m}");
    }
    assert_eq!(j["best"], serde_json::json!(["29"]));
}

#[test]
fn the_line_of_perfect_play_and_a_game_against_itself_reach_the_end() {
    live("4x4")
        .args(["--pv", LATE])
        .assert()
        .success()
        .stdout(contains("Perfect play: 29 "));
    // B to move, 4-3 down, loses the rest by 3: A ends 10-6 up.
    live("4x4")
        .args(["play", "--ai", "both", LATE])
        .assert()
        .success()
        .stdout(contains("Final score: +4"))
        .stdout(contains("A played perfectly"))
        .stdout(contains("B played perfectly"));
}

#[test]
fn other_boards_past_the_tables_are_searched_too() {
    // The first edges drawn (every horizontal one and some vertical ones):
    // 16 free edges each.
    for (variant, drawn) in [("3x5", 22), ("4x5", 33)] {
        let position: Vec<String> = (0..drawn).map(|e| e.to_string()).collect();
        let j = json(variant, &position.join(","));
        let game = DotsAndBoxes::from_variant(variant).unwrap();
        let state = (1u64 << drawn) - 1;
        let want = i64::from(game.plain_value(state));
        assert_eq!(j["value"].as_i64(), Some(want), "{variant}: {j}");
    }
}

#[test]
fn bad_positions_and_boards_are_explained() {
    live("4x4")
        .arg("40")
        .assert()
        .failure()
        .stderr(contains("edges are numbered 0 to 39"));
    live("4x4")
        .arg("0,1 A 1-0")
        .assert()
        .failure()
        .stderr(contains("does not add up"));
    live("5x7")
        .arg("none")
        .assert()
        .failure()
        .stderr(contains("boards up to 63 edges"));
}
