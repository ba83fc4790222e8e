//! `query --svg` and `--color` as users run them.

use crate::common::bsq4_db;

use assert_cmd::Command;
use boardsolve::games::british_square::BritishSquare;
use boardsolve::Game;
use predicates::str::contains;

fn query() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_query"));
    c.arg("--db").arg(bsq4_db());
    c
}

fn stdout(c: &mut Command) -> String {
    String::from_utf8(c.assert().success().get_output().stdout.clone()).unwrap()
}

fn legal_moves(position: &str) -> usize {
    let game = BritishSquare::from_variant("4x4").unwrap();
    let mut edges = Vec::new();
    game.moves(game.parse_position(position).unwrap(), &mut edges);
    edges.len()
}

#[test]
fn svg_to_a_file_beside_the_answer() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.svg");
    let out = stdout(query().arg("--svg").arg(&file).arg("0,15"));
    assert!(out.contains("Best moves:"), "the answer is still printed");
    let svg = std::fs::read_to_string(&file).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let moves = doc
        .descendants()
        .filter(|n| n.attribute("class").is_some_and(|c| c.starts_with("move ")))
        .count();
    assert_eq!(moves, legal_moves("0,15"));
    assert!(svg.contains("X to move: value"), "{svg}");
}

#[test]
fn svg_to_stdout_is_the_whole_output() {
    let out = stdout(query().args(["--svg", "-", "0"]));
    assert!(out.starts_with("<svg "), "{out}");
    assert!(out.trim_end().ends_with("</svg>"));
    roxmltree::Document::parse(&out).unwrap();
}

#[test]
fn svg_usage_errors() {
    query()
        .args(["--svg", "x.svg", "0", "1"])
        .assert()
        .code(2)
        .stderr(contains("--svg draws one position"));
    query()
        .args(["--svg", "x.svg", "-"])
        .assert()
        .code(2)
        .stderr(contains("--svg draws one position"));
    query()
        .args(["--svg", "/nonexistent/dir/x.svg", "0"])
        .assert()
        .code(1)
        .stderr(contains("writing the SVG to /nonexistent/dir/x.svg"));
    query()
        .args(["--svg", "x.svg", "not a position"])
        .assert()
        .code(1)
        .stderr(contains("malformed position"));
}

#[test]
fn colour_when_asked_and_never_when_piped() {
    let coloured = stdout(query().args(["--color", "always", "0,15"]));
    assert!(coloured.contains("\u{1b}[1;32m") || coloured.contains("\u{1b}[1;33m"));
    assert!(coloured.contains("\u{1b}[0m"));
    // Piped (as here), `auto` is plain, and so is `never`; plain output
    // is the coloured one without the escapes.
    let auto = stdout(query().arg("0,15"));
    let never = stdout(query().args(["--color", "never", "0,15"]));
    assert!(!auto.contains('\u{1b}'));
    assert_eq!(auto, never);
    let mut stripped = coloured.clone();
    for code in ["\u{1b}[0m", "\u{1b}[1;", "\u{1b}["] {
        stripped = stripped.replace(code, "");
    }
    for colour in ["32m", "33m", "31m"] {
        stripped = stripped.replace(colour, "");
    }
    assert_eq!(stripped, auto);
    // JSON never has colours.
    let json = stdout(query().args(["--color", "always", "--json", "0,15"]));
    assert!(!json.contains('\u{1b}'));
    // A scripted play session is plain unless asked.
    let play = Command::new(env!("CARGO_BIN_EXE_query"))
        .arg("--db")
        .arg(bsq4_db())
        .args(["play", "--ai", "both"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(!String::from_utf8(play).unwrap().contains('\u{1b}'));
    let play = Command::new(env!("CARGO_BIN_EXE_query"))
        .arg("--db")
        .arg(bsq4_db())
        .args(["--color", "always", "play", "--ai", "both"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8(play).unwrap().contains('\u{1b}'));
    let bad = query().args(["--color", "sometimes"]).assert().code(2);
    drop(bad);
}

/// The `<title>` of a picture written to stdout.
fn svg_title(c: &mut Command) -> String {
    let out = stdout(c);
    let doc = roxmltree::Document::parse(&out).unwrap();
    let title = doc
        .descendants()
        .find(|n| n.has_tag_name("title"))
        .and_then(|n| n.text())
        .unwrap_or_default()
        .to_owned();
    title
}

#[test]
fn titles_say_who_wins_and_by_how_much() {
    assert_eq!(
        svg_title(query().args(["--svg", "-", "start"])),
        "X to move: value 0 for X (a tie: the pieces end even)"
    );
    // The end of a perfect game: who won, by the final score.
    let game = BritishSquare::from_variant("4x4").unwrap();
    let db_file = boardsolve::Database::open(bsq4_db()).unwrap();
    let line = boardsolve::principal_variation(&game, &db_file, game.start()).unwrap();
    let end = game.format_position(line.last().unwrap().1);
    assert_eq!(
        svg_title(query().args(["--svg", "-", &end])),
        "Game over: a tie"
    );

    // Dots and Boxes: the value is the net boxes from here, the outcome the
    // whole game's when the score so far is given; at the end, the final
    // margin when it is known.
    let dir = tempfile::tempdir().unwrap();
    let dab = dir.path().join("dab.db");
    let g = boardsolve::games::dots_and_boxes::DotsAndBoxes::from_variant("2x2").unwrap();
    let sol = boardsolve::solve::dense::solve_dense(&g, &boardsolve::core::NoProgress).unwrap();
    boardsolve::db::write_database(&dab, g.descriptor(), &sol.into()).unwrap();
    let dq = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_query"));
        c.arg("--db").arg(&dab).args(["--svg", "-"]);
        c
    };
    assert_eq!(
        svg_title(dq().arg("0,2,6,7 B 0-1")),
        "B to move: value -1 for B (a tie: B takes 1 box fewer than A from here)"
    );
    assert_eq!(
        svg_title(dq().arg("0,1,2,3,4,5,6,7,8,9,10 A 2-1")),
        "A to move: value +1 for A (a win: A takes 1 box more than B from here)"
    );
    assert_eq!(
        svg_title(dq().arg("0,1,2,3,4,5,6,7,8,9,10")),
        "A to move: value +1 for A (a win: A takes 1 box more than B from here)"
    );
    assert_eq!(
        svg_title(dq().arg("0,1,2,3,4,5,6,7,8,9,10,11 B 1-3")),
        "Game over: a win for B by 2"
    );
    assert_eq!(
        svg_title(dq().arg("0,1,2,3,4,5,6,7,8,9,10,11")),
        "Game over"
    );
    // Every legal edge drawn as a move, the drawn ones not.
    let out = stdout(dq().arg("0,2,6,7 B 0-1"));
    let doc = roxmltree::Document::parse(&out).unwrap();
    let mut moves: Vec<u32> = doc
        .descendants()
        .filter(|n| n.attribute("class").is_some_and(|c| c.starts_with("move ")))
        .filter_map(|n| n.attribute("data-move")?.parse().ok())
        .collect();
    moves.sort_unstable();
    assert_eq!(moves, [1, 3, 4, 5, 8, 9, 10, 11]);
}
