//! `query` on Connect Four, as a user runs it: live search without a
//! database, an opening book with live search past it, weak mode, batch,
//! play, and the errors.

use crate::common::json_lines;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use boardsolve::core::NoProgress;
use boardsolve::games::connect_four::{Bitboard, ConnectFour, Variant};
use boardsolve::solve::book::{build_book, BookOptions};
use boardsolve::Game;
use predicates::str::contains;

fn query() -> Command {
    Command::new(env!("CARGO_BIN_EXE_query"))
}

/// Live search alone, on the standard board.
fn live() -> Command {
    let mut c = query();
    c.args(["--game", "connect-four"]);
    c
}

/// Late-game benchmark positions (moves, exact score) from the public set.
fn late_positions(n: usize) -> Vec<(String, i64)> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/connect-four/Test_L3_R1");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .take(n)
        .map(|l| {
            let (moves, score) = l.split_once(' ').unwrap();
            (moves.to_owned(), score.parse().unwrap())
        })
        .collect()
}

#[test]
fn live_search_answers_the_benchmark_scores_in_batch() {
    let positions = late_positions(40);
    let input: String = positions.iter().map(|(m, _)| format!("{m}\n")).collect();
    let out = live()
        .args(["--json", "-"])
        .write_stdin(input)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let lines = json_lines(&out);
    assert_eq!(lines.len(), positions.len());
    for ((moves, score), j) in positions.iter().zip(&lines) {
        assert_eq!(j["input"], moves.as_str());
        assert_eq!(j["value"], *score, "{moves}");
        // The best columns are exactly those whose value is the position's.
        let best: Vec<&str> = j["best"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_str().unwrap())
            .collect();
        assert!(!best.is_empty());
        for m in j["moves"].as_array().unwrap() {
            let is_best = best.contains(&m["move"].as_str().unwrap());
            assert_eq!(m["value"] == j["value"], is_best, "{moves}: {m}");
            assert_eq!(m["best"], is_best);
            // Columns count from 1, like the moves.
            assert_eq!(m["column"].to_string(), m["move"].as_str().unwrap());
        }
    }
}

#[test]
fn weak_mode_gives_the_sign_of_the_score() {
    let positions = late_positions(20);
    let input: String = positions.iter().map(|(m, _)| format!("{m}\n")).collect();
    let out = live()
        .args(["--weak", "--json", "-"])
        .write_stdin(input)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    for ((moves, score), j) in positions.iter().zip(json_lines(&out)) {
        assert_eq!(j["weak"], true);
        assert_eq!(j["value"], score.signum(), "{moves}");
        let best = j["best"].as_array().unwrap();
        for m in j["moves"].as_array().unwrap() {
            assert!(m["value"].as_i64().unwrap() <= score.signum());
            assert_eq!(best.contains(&m["move"]), m["value"] == j["value"]);
        }
    }
    let text = live().args(["--weak", "4444443322"]).assert().success();
    let text = String::from_utf8(text.get_output().stdout.clone()).unwrap();
    assert!(text.contains("Result:     win for X"), "{text}");
    // Weak: every column still wins, however slowly.
    assert!(text.contains("Best moves: 1 2 3 5 6 7"), "{text}");
    assert!(
        text.contains("Moves:      1:win 2:win 3:win 5:win"),
        "{text}"
    );
}

#[test]
fn human_answer_has_the_score_best_columns_every_column_and_the_line() {
    let out = live().args(["--pv", "4444443322"]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    // X wins at once with column 1 or 5: its 6th stone, the 11th on the
    // board, (43 - 10) / 2 = 16.
    assert!(
        text.contains("Value:      +16 for X, the side to move (a win: X wins with its 6th stone)"),
        "{text}"
    );
    assert!(text.contains("Best moves: 1 5"), "{text}");
    assert!(text.contains(" +16 +15 +15     +16 +15 +15"), "{text}");
    assert!(text.contains("Perfect play: 1\n"), "{text}");
    // A finished game is a loss for the side to move, not a tie.
    let out = live().arg("44444433221").assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains(
            "Value:      -16 for O, the side to move (a loss: X wins with its 6th stone)"
        ),
        "{text}"
    );
    // Its picture says who won and with which stone, not a margin.
    let out = live()
        .args(["--svg", "-", "44444433221"])
        .assert()
        .success();
    let svg = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        svg.contains("<title>Game over: X wins with its 6th stone</title>"),
        "{svg}"
    );
    assert!(text.contains("Game over."), "{text}");
}

#[test]
fn bad_positions_and_misuse_are_clear_errors() {
    live().arg("48").assert().code(1).stderr(contains("column"));
    live()
        .arg("4444444")
        .assert()
        .code(1)
        .stderr(contains("full"));
    // A game that is already won cannot go on.
    live().arg("445566777").assert().code(1);
    live()
        .args(["--variant", "99x99", "4"])
        .assert()
        .code(2)
        .stderr(contains("connect-four"));
    query()
        .args(["--game", "chess", "start"])
        .assert()
        .code(2)
        .stderr(contains("unknown game \"chess\""));
    // A board without a book that comes with the tools: no file to
    // verify or count.
    live()
        .args(["--variant", "5x4", "verify"])
        .assert()
        .code(3)
        .stderr(contains("--db"));
    // --no-book leaves every database out: a usage error that says so.
    live()
        .args(["--no-book", "stats"])
        .assert()
        .code(2)
        .stderr(contains("--no-book leaves every database out"));
    let dir = tempfile::tempdir().unwrap();
    let bsq = dir.path().join("bsq-3x3.db");
    let game = boardsolve::games::british_square::BritishSquare::from_variant("3x3").unwrap();
    let sol = boardsolve::solve::solve(&game, &NoProgress).unwrap();
    boardsolve::db::write_database(&bsq, game.descriptor(), &sol.into()).unwrap();
    // Weak answers work for every game: 3x3 British Square is a win for X.
    query()
        .current_dir(dir.path())
        .args(["--variant", "3x3", "--weak", "start"])
        .assert()
        .success()
        .stdout(contains("Result:     win for X"));
}

/// A 5x4 book of depth 4, built in-process and written like the generator
/// writes it.
fn small_book(dir: &Path) -> PathBuf {
    let g = ConnectFour::from_variant("5x4").unwrap();
    let mut o = BookOptions::new(4);
    o.table_bits = 20;
    let sol = build_book(&g, &o, &NoProgress).unwrap();
    let path = dir.join("c4-5x4.db");
    boardsolve::db::write_database(&path, g.descriptor(), &sol.into()).unwrap();
    path
}

#[test]
fn a_book_answers_inside_and_live_search_past_it_agree_with_search_alone() {
    let dir = tempfile::tempdir().unwrap();
    let book = small_book(dir.path());
    // Positions inside the book, on its frontier, and past it.
    let v = Variant::new(5, 4).unwrap();
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut inputs = vec!["start".to_owned()];
    for len in [1usize, 3, 4, 5, 7, 9] {
        for _ in 0..4 {
            let mut p = Bitboard::new(v);
            let mut moves = String::new();
            while moves.len() < len && !p.is_over() {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let c = (rng % 5) as u32;
                if let Ok(next) = p.play(c) {
                    p = next;
                    moves.push(char::from(b'1' + c as u8));
                }
            }
            inputs.push(moves);
        }
    }
    let input: String = inputs.iter().map(|m| format!("{m}\n")).collect();
    let with_book = query()
        .arg("--db")
        .arg(&book)
        .args(["--json", "--pv", "-"])
        .write_stdin(input.clone())
        .assert()
        .get_output()
        .stdout
        .clone();
    let alone = live()
        .args(["--variant", "5x4", "--json", "--pv", "-"])
        .write_stdin(input)
        .assert()
        .get_output()
        .stdout
        .clone();
    let (with_book, alone) = (json_lines(&with_book), json_lines(&alone));
    assert_eq!(with_book.len(), inputs.len());
    for (a, b) in with_book.iter().zip(&alone) {
        assert_eq!(a, b, "book and search disagree");
    }
    // The book's own records are the same game: its start value is the
    // 5x4 board's.
    let g = ConnectFour::from_variant("5x4").unwrap();
    let db = boardsolve::Database::open(&book).unwrap();
    let start = db.get(g.canonical(g.start())).unwrap().unwrap();
    assert_eq!(with_book[0]["value"], start.net);
    // A book of another board than --variant asks for is refused; the
    // right one is answered.
    query()
        .arg("--db")
        .arg(&book)
        .args(["--variant", "7x6", "start"])
        .assert()
        .code(3)
        .stderr(contains("holds connect-four 5x4, not connect-four 7x6"));
    query()
        .arg("--db")
        .arg(&book)
        .args(["--variant", "5x4", "start"])
        .assert()
        .success();
}

#[test]
fn playing_against_itself_from_a_late_position_ends_as_promised() {
    let (moves, score) = late_positions(3).pop().unwrap();
    let out = live()
        .args(["play", "--ai", "both", &moves])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("played perfectly"), "{text}");
    // The final result is the score promised at the start, for the side
    // that moved first from there.
    let first_mover = if moves.len() % 2 == 0 { "X" } else { "O" };
    let verdict = match score.signum() {
        1 => format!("{first_mover} wins"),
        -1 => format!("{} wins", if first_mover == "X" { "O" } else { "X" }),
        _ => "a draw".to_owned(),
    };
    assert!(text.contains(&verdict), "{verdict}: {text}");
}

#[test]
fn no_book_and_threads_change_the_work_not_the_answers() {
    let dir = tempfile::tempdir().unwrap();
    let book = small_book(dir.path());
    // 5x4 positions inside the book and past it: --no-book with --db takes
    // the board from the file and answers by search alone.
    let input = "start\n3\n33\n3342\n334215\n";
    let answers = |args: &[&str]| {
        let out = query()
            .args(args)
            .args(["--json", "-"])
            .write_stdin(input)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        json_lines(&out)
    };
    let book_arg = book.to_str().unwrap();
    let with_book = answers(&["--db", book_arg]);
    assert_eq!(answers(&["--db", book_arg, "--no-book"]), with_book);
    assert_eq!(
        answers(&["--game", "connect-four", "--variant", "5x4", "--no-book"]),
        with_book
    );
    // 7x6 positions early enough for a search on several threads.
    let seven = |threads: &str| {
        let out = live()
            .args([
                "--no-book",
                "--threads",
                threads,
                "--json",
                "4453312",
                "1726354",
            ])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        json_lines(&out)
    };
    let one = seven("1");
    assert_eq!(one.len(), 2);
    assert_eq!(seven("3"), one);
    // Where they do not apply, they are refused.
    query()
        .args(["--game", "british-square", "--no-book", "a1"])
        .assert()
        .code(2)
        .stderr(contains("--no-book does not apply to british-square"));
    live()
        .args(["--threads", "0", "44"])
        .assert()
        .code(2)
        .stderr(contains("--threads 0"));
    live()
        .args(["serve", "--threads", "2"])
        .assert()
        .code(2)
        .stderr(contains("--search-threads"));
}

/// Without a file, the 7x6 board answers from the book that comes with
/// the tools: the empty board's published column scores at once, and its
/// info; `--no-book` leaves the book out.
#[test]
fn the_shipped_book_answers_without_a_file_and_no_book_leaves_it_out() {
    let dir = tempfile::tempdir().unwrap();
    let out = live()
        .current_dir(dir.path())
        .args(["--json", "start"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let answer = &json_lines(&out)[0];
    assert_eq!(answer["value"], 1);
    let mut scores: Vec<(i64, i64)> = answer["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["column"].as_i64().unwrap(), m["value"].as_i64().unwrap()))
        .collect();
    scores.sort();
    // Columns 1 to 7 (Allis; Tromp; Pons): only the centre wins.
    assert_eq!(
        scores,
        [(1, -2), (2, -1), (3, 0), (4, 1), (5, 0), (6, -1), (7, -2)]
    );
    let out = live()
        .current_dir(dir.path())
        .args(["--json", "info"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let info = &json_lines(&out)[0];
    assert_eq!(info["db"], "c4.db (shipped)");
    assert_eq!(
        (info["game"].as_str(), info["variant"].as_str()),
        (Some("connect-four"), Some("7x6"))
    );
    assert_eq!(info["complete"], false);
    assert!(info["records"].as_u64().unwrap() > 700);
    live()
        .current_dir(dir.path())
        .args(["--no-book", "info"])
        .assert()
        .code(2)
        .stderr(contains(
            "needs a database, and --no-book leaves every database out",
        ));
    // Another board has no book with the tools: search alone.
    query()
        .current_dir(dir.path())
        .args(["--game", "connect-four", "--variant", "5x4", "info"])
        .assert()
        .failure()
        .stderr(contains("needs a database"));
}

/// A smaller opening book in the folder (`generator --game connect-four`
/// writes a 1-ply one by default) does not hide the deeper one that comes
/// with the tools: query says which answers, and --db still takes the file.
#[test]
fn a_smaller_book_in_the_folder_does_not_hide_the_shipped_one() {
    let dir = tempfile::tempdir().unwrap();
    crate::serve::start_only_book(dir.path());
    let out = Command::new(env!("CARGO_BIN_EXE_query"))
        .current_dir(dir.path())
        .args(["--game", "connect-four", "--json", "start"])
        .assert()
        .success();
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("c4.db is an opening book of 1 position, smaller than the one that comes with the tools"),
        "{err}"
    );
    let j: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!((&j["input"], &j["value"]), (&"start".into(), &1.into()));
    // Given by name, the file is read, and nothing is said.
    let out = Command::new(env!("CARGO_BIN_EXE_query"))
        .current_dir(dir.path())
        .args(["--db", "c4.db", "info", "--json"])
        .assert()
        .success();
    assert!(out.get_output().stderr.is_empty());
    let info: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(info["records"], 1);
}
