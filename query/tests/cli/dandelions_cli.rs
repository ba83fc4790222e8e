//! `query` on Dandelions by live search: the JSON fields (`winner`,
//! `flowers` or `gaps`, `best`, every move's own outcome), the maps, and
//! bad positions.

use assert_cmd::Command;
use predicates::str::contains;

fn live() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_query"));
    c.args(["--game", "dandelions"]);
    c
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = live().arg("--json").args(args).assert();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

#[test]
fn late_positions_say_who_wins_and_by_how_much() {
    let j = json(&["FF***FF***.......................... 0246"]);
    assert!(j.get("error").is_some(), "a 35-cell field is refused: {j}");
    let j = json(&["F****F****F****F****..... 0467"]);
    assert_eq!(j["to_move"], "dandelions");
    let value = j["value"].as_i64().unwrap();
    match j["winner"].as_str().unwrap() {
        "dandelions" => assert_eq!(j["flowers"].as_i64().unwrap(), 8 - value),
        "wind" => assert_eq!(j["gaps"].as_i64().unwrap(), -value),
        w => panic!("winner {w}"),
    }
    let moves = j["moves"].as_array().unwrap();
    // Every cell without a flower is a move, each with its own outcome.
    assert_eq!(moves.len(), 21);
    let best: Vec<&serde_json::Value> = j["best"].as_array().unwrap().iter().collect();
    for m in moves {
        assert!(m["winner"] == "dandelions" || m["winner"] == "wind");
        assert_eq!(best.contains(&&m["move"]), m["value"] == j["value"], "{m}");
        assert!(m["value"].as_i64().unwrap() <= value);
    }
    // The wind's turn: one move per unused direction.
    let j = json(&["F****F****F****F****F.... 0246"]);
    assert_eq!(j["to_move"], "wind");
    assert_eq!(j["moves"].as_array().unwrap().len(), 4);
    for m in j["moves"].as_array().unwrap() {
        assert!(["E", "SE", "S", "SW", "W", "NW", "N", "NE"].contains(&m["move"].as_str().unwrap()));
        assert!(m["value"].as_i64().unwrap() <= j["value"].as_i64().unwrap());
    }
}

#[test]
fn maps_and_errors() {
    let out = live()
        .arg("F****F****F****F****F.... 0246")
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("To move:    wind"), "{text}");
    assert!(text.contains(" NW"), "a compass of the winds: {text}");
    live()
        .arg("F*....................... 4")
        .assert()
        .code(1)
        .stderr(contains("seeded cell"));
    live().arg("FF....................... -").assert().code(1);
    live().arg("nonsense").assert().code(1);
    live()
        .args(["--variant", "6x6", "start"])
        .assert()
        .code(2)
        .stderr(contains("6x6"));
}
