//! `query play` driven through stdin, as a script (or a test) drives it:
//! every command, illegal input, pass refusal, undo past the start, and
//! whole games against the perfect player that must end with the value the
//! database promised.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use assert_cmd::Command;
use boardsolve::core::NoProgress;
use boardsolve::games::british_square::BritishSquare;
use boardsolve::games::dots_and_boxes::DotsAndBoxes;
use boardsolve::solve::dense::solve_dense;
use boardsolve::{Database, Game, Move};
use predicates::prelude::*;
use predicates::str::contains;

/// Databases written once per test binary.
fn db(name: &str) -> PathBuf {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    static LOCK: Mutex<()> = Mutex::new(());
    let dir = DIR.get_or_init(|| tempfile::tempdir().unwrap()).path();
    let path = dir.join(format!("{name}.db"));
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    if !path.exists() {
        match name {
            "bsq4" => {
                let game = BritishSquare::from_variant("4x4").unwrap();
                let sol = boardsolve::solve::solve(&game, &NoProgress).unwrap();
                boardsolve::db::write_database(&path, game.descriptor(), &sol.into()).unwrap();
            }
            "dab2x2" => {
                let game = DotsAndBoxes::from_variant("2x2").unwrap();
                let sol = solve_dense(&game, &NoProgress).unwrap();
                boardsolve::db::write_database(&path, game.descriptor(), &sol.into()).unwrap();
            }
            "ttt" => {
                let game = boardsolve::registry::AnyGame::new("k-in-a-row", "").unwrap();
                let sol = game.solve(&NoProgress).unwrap();
                boardsolve::db::write_database(&path, game.game().descriptor(), &sol).unwrap();
            }
            _ => unreachable!(),
        }
    }
    path
}

fn play(db: &Path, args: &[&str], script: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_query"))
        .arg("--db")
        .arg(db)
        .arg("play")
        .args(args)
        .write_stdin(script)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

/// The final score line's number.
fn final_score(out: &str) -> i32 {
    let line = out
        .lines()
        .find(|l| l.starts_with("Final score: "))
        .unwrap_or_else(|| panic!("no final score in:\n{out}"));
    line["Final score: ".len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn the_perfect_player_against_itself_keeps_the_promised_value() {
    let db = db("bsq4");
    // The 4x4 game is a tie with perfect play.
    let out = play(&db, &["--ai", "both"], "");
    assert_eq!(final_score(&out), 0, "{out}");
    assert!(out.contains("X played perfectly"), "{out}");
    assert!(out.contains("O played perfectly"), "{out}");
    // Random choices among the best moves reach the same value, and a seed
    // replays the same game.
    for seed in ["1", "2", "3"] {
        let a = play(&db, &["--ai", "both", "--seed", seed], "");
        assert_eq!(final_score(&a), 0, "{a}");
        assert_eq!(a, play(&db, &["--ai", "both", "--seed", seed], ""));
    }
    let x = play(&db, &["--ai", "both", "--seed", "1"], "");
    let y = play(&db, &["--ai", "both", "--seed", "2"], "");
    let z = play(&db, &["--ai", "both", "--seed", "3"], "");
    assert!(x != y || y != z, "different seeds play different games");
}

#[test]
fn a_human_mistake_is_punished_and_reported() {
    let db = db("bsq4");
    let game = BritishSquare::from_variant("4x4").unwrap();
    let database = Database::open(&db).unwrap();
    // Follow the line both sides play (`best` for X, the computer's first
    // choice for O) to X's first turn with a move that is not best.
    let mut state = game.start();
    let mut plies = 0;
    let (a, bad) = loop {
        let a = boardsolve::analyze(&game, &database, state).unwrap();
        if game.to_move(state) == boardsolve::Player::First {
            if let Some(bad) = a.moves.iter().find(|m| !m.best) {
                let bad = bad.clone();
                break (a, bad);
            }
            plies += 1;
        }
        state = a
            .moves
            .first()
            .expect("X finds a mistake before the end")
            .child;
    };
    let script = format!(
        "{}{}\n{}",
        "best\n".repeat(plies),
        game.format_move(bad.mv),
        "best\n".repeat(20)
    );
    let out = play(&db, &["--ai", "O"], &script);
    assert!(out.contains("a mistake"), "{out}");
    assert_eq!(final_score(&out), bad.score, "{out}");
    assert!(out.contains("X made 1 mistake in"), "{out}");
    assert!(
        out.contains(&format!(
            "move {}: X played {}, value {:+} for X (best was {})",
            2 * plies + 1,
            game.format_move(bad.mv),
            bad.score,
            if a.score == 0 {
                "0".to_owned()
            } else {
                format!("{:+}", a.score)
            }
        )),
        "{out}"
    );
    assert!(out.contains("O played perfectly"), "{out}");
}

#[test]
fn following_the_best_moves_against_the_computer_ends_as_promised() {
    let db = db("bsq4");
    for side in ["X", "O"] {
        let out = play(&db, &["--ai", side], &"best\n".repeat(20));
        assert_eq!(final_score(&out), 0, "{out}");
        assert!(!out.contains("mistake"), "{out}");
    }
}

#[test]
fn every_command() {
    let db = db("bsq4");
    let out = play(
        &db,
        &[],
        "help\nshow\nundo\nredo\n0\n3\nhistory\nundo\nredo\nredo\nundo 2\nredo 2\npv\nrestart\nhistory\nquit\n5\n",
    );
    assert!(out.contains("Commands:"), "help");
    assert!(
        out.contains("Nothing to undo: this is the start"),
        "undo past the start"
    );
    assert!(
        out.contains("Nothing to redo."),
        "redo with nothing taken back"
    );
    // Moves typed as numbers are named back by their coordinates.
    assert!(
        out.contains("X plays a1.") || out.contains("X plays a1:"),
        "{out}"
    );
    assert!(out.contains("  1. X a1"), "history lists the moves: {out}");
    assert!(out.contains("  2. O d1"), "{out}");
    assert!(out.contains("Took back 1 move."), "{out}");
    assert!(out.contains("Replayed 1 move."), "{out}");
    assert!(out.contains("Took back 2 moves."), "{out}");
    assert!(out.contains("Replayed 2 moves."), "{out}");
    assert!(out.contains("Perfect play: "), "{out}");
    assert!(out.contains("Back to the start."), "{out}");
    assert!(out.contains("No moves yet."), "{out}");
    // Nothing after `quit` is read.
    assert!(!out.contains("X plays b2"), "{out}");
}

#[test]
fn illegal_moves_and_unknown_commands_are_refused_and_the_session_goes_on() {
    let db = db("bsq4");
    let out = play(&db, &[], "99\nfoo\n0\n1\nundo 0\nundo x\ngo\ngo XXXX\n");
    assert_eq!(
        out.matches("Not a legal move or command").count(),
        3,
        "99, foo, and 1 next to X's piece: {out}"
    );
    assert!(out.contains("X plays a1"), "{out}");
    assert_eq!(
        out.matches("Expected a number of moves").count(),
        2,
        "{out}"
    );
    assert!(out.contains("Usage: go POSITION"), "{out}");
    assert!(out.contains("malformed position"), "{out}");
}

/// A game without passes neither offers nor takes one.
#[test]
fn no_pass_in_a_game_without_passes() {
    let db = db("ttt");
    let out = play(&db, &[], "help\npass\nb2\nquit\n");
    assert!(out.contains("There is no passing in k-in-a-row"), "{out}");
    assert!(!out.contains("  pass "), "help offers no pass: {out}");
    assert!(out.contains("X plays b2."), "{out}");
    // Nor does its end speak of points: tic-tac-toe is won or drawn.
    let out = play(&db, &["--ai", "both"], "");
    assert!(out.contains("Result: a draw."), "{out}");
    assert!(!out.contains("points"), "{out}");
}

#[test]
fn pass_only_when_forced() {
    let db = db("bsq4");
    let game = BritishSquare::from_variant("4x4").unwrap();
    // Find a position where the side to move must pass, depth first.
    let mut stack = vec![game.start()];
    let mut edges = Vec::new();
    let forced = loop {
        let s = stack.pop().expect("4x4 has forced passes");
        edges.clear();
        game.moves(s, &mut edges);
        if let [e] = edges[..] {
            if e.mv == Move::PASS {
                break s;
            }
        }
        stack.extend(edges.iter().map(|e| e.child));
    };
    let pos = game.format_position(forced);
    let who = game.player_name(game.to_move(forced));
    let out = play(&db, &[], &format!("pass\ngo {pos}\n0\npass\n"));
    assert!(
        out.contains("X cannot pass: a player may only pass when they have no legal move."),
        "{out}"
    );
    assert!(
        out.contains(&format!("{who} passes (no legal move).")),
        "{out}"
    );
}

#[test]
fn end_of_input_ends_the_session_cleanly_and_starting_positions_are_checked() {
    let db = db("bsq4");
    play(&db, &[], "");
    play(&db, &["0,15"], "show\n");
    Command::new(env!("CARGO_BIN_EXE_query"))
        .arg("--db")
        .arg(&db)
        .args(["play", "not a position"])
        .assert()
        .code(1)
        .stderr(contains("malformed position"));
    Command::new(env!("CARGO_BIN_EXE_query"))
        .args(["--db", "/nonexistent/x.db", "play"])
        .assert()
        .code(3);
    // Piped: no prompts and no colour codes.
    let out = play(&db, &["--ai", "both"], "");
    assert!(!out.contains('\u{1b}'));
    assert!(!out.contains("> "));
}

#[test]
fn dots_and_boxes_scores_follow_the_boxes() {
    let db = db("dab2x2");
    let out = play(&db, &["--ai", "both"], "");
    let game = DotsAndBoxes::from_variant("2x2").unwrap();
    let database = Database::open(&db).unwrap();
    let a = boardsolve::analyze(&game, &database, game.start()).unwrap();
    assert_eq!(final_score(&out), a.value.net, "{out}");
    // Following the best moves against the computer ends the same way.
    let out = play(&db, &["--ai", "B"], &"best\n".repeat(12));
    assert_eq!(final_score(&out), a.value.net, "{out}");
    assert!(out.contains("A played perfectly"), "{out}");
    assert!(predicate::str::contains("B plays").eval(&out), "{out}");
}

#[test]
fn against_the_computer_redo_replays_its_reply_as_undo_took_it_back() {
    let db = db("bsq4");
    let out = play(&db, &["--ai", "O"], "0\nundo\nredo\nhistory\n");
    assert!(out.contains("Took back 2 moves."), "{out}");
    assert!(out.contains("Replayed 2 moves."), "{out}");
    // X to move again after the replay, not the computer's side.
    let after = &out[out.rfind("Replayed").unwrap()..];
    assert!(after.contains("To move:    X"), "{after}");
    assert!(after.contains("  2. O "), "{after}");
}
