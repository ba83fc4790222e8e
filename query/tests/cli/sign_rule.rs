//! The one sign rule, checked in every game with the second player to
//! move: a position's value is for the side to move and a move's value for
//! the side making it, the same in the text answer, `--json` and over HTTP;
//! only `final_for_first` is on a fixed side, and says so.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value as Json;

use crate::serve::{enc, get, serve};

/// A solved database per (game, variant).
fn db(game: &str, variant: &str) -> PathBuf {
    crate::common::solved_db(game, variant)
}

/// One position per game with the second player to move: (game, variant,
/// position, the second player, its value, the first player's final
/// score).
const CASES: &[(&str, &str, &str, &str, i64, i64)] = &[
    // X leads by a piece on the board, but O ends one ahead.
    ("british-square", "4x4", "a1 b3 d1", "O", 1, -1),
    // B takes two boxes fewer than A from here.
    ("dots-and-boxes", "2x2", "0 B 0-0", "B", -2, 2),
    // O loses: X wins with its 20th stone.
    ("connect-four", "7x6", "4", "O", -1, 1),
    ("k-in-a-row", "3x3,k=3", "b2 a2 a1", "O", -1, 1),
    // The wind loses: the dandelions win with 6 flowers.
    ("dandelions", "3x3", "F........ -", "wind", -2, 2),
];

fn query(path: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_query"));
    c.arg("--db").arg(path);
    c
}

/// The database a case is answered from: Connect Four's shipped book.
fn source(game: &str, variant: &str) -> Option<PathBuf> {
    (game != "connect-four").then(|| db(game, variant))
}

fn json_answer(game: &str, variant: &str, position: &str) -> Json {
    let mut c = match source(game, variant) {
        Some(path) => query(&path),
        None => {
            let mut c = Command::new(env!("CARGO_BIN_EXE_query"));
            c.current_dir(tempfile::tempdir().unwrap().keep()).args([
                "--game",
                game,
                "--variant",
                variant,
            ]);
            c
        }
    };
    let out = c.args(["--json", position]).assert().success();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

/// The JSON answer holds the rule: the value for the side to move (here
/// the second player, so the first player's final score turned round, at
/// 0-0 in Dots and Boxes too), each move's for its maker (so the best
/// moves' values are the position's), the outcome the value's sign, and
/// the first player's final score named so.
fn assert_rule(answer: &Json, mover: &str, value: i64, for_first: i64) {
    assert_eq!(answer["to_move"], mover, "{answer}");
    assert_eq!(answer["value"], value, "{answer}");
    assert_eq!(answer["final_for_first"], for_first, "{answer}");
    assert_eq!(value, -for_first, "{answer}");
    assert!(answer.get("final").is_none(), "{answer}");
    let outcome = match value.signum() {
        1 => "win",
        -1 => "lose",
        _ => "tie",
    };
    assert_eq!(answer["positionValue"], outcome, "{answer}");
    for m in answer["moves"].as_array().unwrap() {
        let v = m["value"].as_i64().unwrap();
        assert!(
            v <= value,
            "a move worth more to its maker than the best: {m}"
        );
        assert_eq!(m["best"] == true, v == value, "{m}");
    }
}

#[test]
fn the_second_player_to_move_owns_the_value_in_text_json_and_http() {
    for &(game, variant, position, mover, value, for_first) in CASES {
        let answer = json_answer(game, variant, position);
        assert_rule(&answer, mover, value, for_first);

        // The text names whose number it is, and its moves' owner.
        let mut c = match source(game, variant) {
            Some(path) => query(&path),
            None => {
                let mut c = Command::new(env!("CARGO_BIN_EXE_query"));
                c.args(["--game", game, "--variant", variant]);
                c
            }
        };
        let out = c.arg(position).assert().success();
        let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        let signed = if value > 0 {
            format!("+{value}")
        } else {
            value.to_string()
        };
        let line = format!("Value:      {signed} for {mover}, the side to move (");
        assert!(text.contains(&line), "{game}: {text}");
        assert!(
            text.contains(&format!("Move values for {mover}")),
            "{game}: {text}"
        );

        // Over HTTP: the same answer.
        let server = match source(game, variant) {
            Some(path) => serve(&[&path], &[]),
            None => {
                let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_query"));
                cmd.current_dir(tempfile::tempdir().unwrap().keep()).args([
                    "--game",
                    game,
                    "--variant",
                    variant,
                ]);
                crate::serve::started(cmd, &[])
            }
        };
        let (status, body) = get(&server.addr, &format!("/api/position?p={}", enc(position)));
        assert_eq!(status, 200, "{body}");
        let http: Json = serde_json::from_str(&body).unwrap();
        assert_eq!(http, answer, "{game}");
    }
}

/// The words of a Connect Four value say which stone wins, not a margin;
/// British Square's say by how many pieces, each for the side named.
#[test]
fn values_in_words_name_the_winner_and_what_the_number_counts() {
    let out = Command::new(env!("CARGO_BIN_EXE_query"))
        .current_dir(tempfile::tempdir().unwrap().keep())
        .args(["--game", "connect-four", "4"])
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains(
            "Value:      -1 for O, the side to move (a loss: X wins with its 21st stone)"
        ),
        "{text}"
    );
    let out = query(&db("british-square", "4x4"))
        .arg("a1 b3 d1")
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("Value:      +1 for O, the side to move (a win: O ends 1 piece ahead)"),
        "{text}"
    );
}
