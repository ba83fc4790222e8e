//! What a newcomer meets when a position or option is wrong: errors that
//! name the game assumed and how to pick another, quote the input once,
//! blame the token that is wrong, and list every value an option takes.

use assert_cmd::Command;
use boardsolve::registry::GAMES;
use predicates::str::contains;

use crate::first_contact::defaults;

fn query_in(dir: &std::path::Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_query"));
    c.current_dir(dir);
    c
}

fn stderr_of(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.get_output().stderr.clone()).unwrap()
}

#[test]
fn a_position_of_the_assumed_game_that_does_not_read_names_that_game() {
    let names: Vec<&str> = GAMES.iter().map(|g| g.name).collect();
    for position in ["4453", "z9"] {
        let a = query_in(defaults()).arg(position).assert().code(1);
        let err = stderr_of(&a);
        assert!(
            err.contains(&format!("malformed position \"{position}\"")),
            "{err}"
        );
        assert!(
            err.contains("read as british-square 5x5 positions when --game is not given"),
            "{err}"
        );
        for name in &names {
            assert!(err.contains(name), "{name} missing from {err}");
        }
    }
    // Named, the game is not assumed: no hint.
    let a = query_in(defaults())
        .args(["--game", "british-square", "4453"])
        .assert()
        .code(1);
    assert!(!stderr_of(&a).contains("--game NAME"));
    // Nor when the default file is missing: that error names the game too.
    let empty = tempfile::tempdir().unwrap();
    query_in(empty.path())
        .arg("4453")
        .assert()
        .code(3)
        .stderr(contains(
            "british-square is the game when --game is not given (--game NAME picks another",
        ));
}

#[test]
fn errors_quote_the_input_once_and_blame_the_wrong_token() {
    let a = query_in(defaults())
        .args(["--game", "connect-four", "44444445"])
        .assert()
        .code(1);
    let err = stderr_of(&a);
    assert_eq!(err.matches("44444445").count(), 1, "{err}");
    assert!(
        err.contains("move 7 plays column 4, which is full"),
        "{err}"
    );

    let a = query_in(defaults())
        .args(["--game", "dots-and-boxes", "0,1 A X"])
        .assert()
        .code(1);
    let err = stderr_of(&a);
    assert!(
        err.contains("\"X\" follows the side to move \"A\""),
        "{err}"
    );
    query_in(defaults())
        .args(["--game", "dots-and-boxes", "0 2-1 A"])
        .assert()
        .code(1)
        .stderr(contains("\"2-1\" is not the last: a score goes at the end"));

    let a = query_in(defaults()).arg("a1 zz").assert().code(1);
    let err = stderr_of(&a);
    assert!(
        err.contains("move 2: \"zz\" is not a move: expected a coordinate a1 to e5, a cell number 0 to 24 or pass"),
        "{err}"
    );
    // A word that is neither a board nor a move is named, with what was
    // expected in its place.
    let a = query_in(defaults()).arg("z9").assert().code(1);
    let err = stderr_of(&a);
    assert!(
        err.contains("\"z9\" is not a move: expected a coordinate"),
        "{err}"
    );
}

#[test]
fn the_ai_option_lists_every_side_it_takes() {
    query_in(defaults())
        .args(["play", "--ai", "Z"])
        .assert()
        .code(2)
        .stderr(contains("first (or X, A), second (or O, B) and both"));
    for side in ["x", "O", "a", "B", "first", "Both"] {
        query_in(defaults())
            .args(["play", "--ai", side])
            .write_stdin("quit\n")
            .assert()
            .success();
    }
}
