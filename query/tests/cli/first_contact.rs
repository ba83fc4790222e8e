//! The tools as a new user meets them: the default files of each game and
//! variant, never an answer from another variant, finished and empty
//! positions, the examples of `--help`, one table of exit statuses, and a
//! closed pipe.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;

use assert_cmd::Command;
use boardsolve::registry::{AnyGame, DatabaseKind};
use predicates::str::contains;

/// A directory holding the default files of British Square (5x5, `bsq.db`)
/// and Dots and Boxes (3x3, `dab.db`), written once.
pub(crate) fn defaults() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        for (name, variant) in [("british-square", ""), ("dots-and-boxes", "")] {
            write_default(dir.path(), name, variant);
        }
        dir
    })
    .path()
}

/// Solves a game in-process and writes it under its default file name.
fn write_default(dir: &Path, name: &str, variant: &str) -> PathBuf {
    let game = AnyGame::new(name, variant).unwrap();
    let solved = game.solve(&boardsolve::core::NoProgress).unwrap();
    let path = dir.join(game.default_file_name());
    boardsolve::db::write_database(&path, game.game().descriptor(), &solved).unwrap();
    path
}

fn query_in(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_query"));
    c.current_dir(dir);
    c
}

fn stdout_of(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.get_output().stdout.clone()).unwrap()
}

#[test]
fn a_variant_is_answered_from_its_own_file_or_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(defaults().join("bsq.db"), dir.path().join("bsq.db")).unwrap();
    std::fs::copy(defaults().join("dab.db"), dir.path().join("dab.db")).unwrap();
    // Only the standard files are here: the variants' files are missing,
    // and the message says which command makes them.
    query_in(dir.path())
        .args([
            "--game",
            "british-square",
            "--variant",
            "center-allowed",
            "--json",
        ])
        .arg("start")
        .assert()
        .code(3)
        .stdout("")
        .stderr(contains("bsq-5x5-center-allowed.db"))
        .stderr(contains(
            "generator --game british-square --variant 5x5,center-allowed",
        ));
    // A game with search answers a board whose table is missing by
    // search, and says which command writes the table.
    query_in(dir.path())
        .args([
            "--game",
            "dots-and-boxes",
            "--variant",
            "2x2",
            "--json",
            "none",
        ])
        .assert()
        .success()
        .stdout(contains("\"value\":2"))
        .stderr(contains("dab-2x2.db is missing: answering by search"))
        .stderr(contains("generator --game dots-and-boxes --variant 2x2"));
    // A command that reads the file itself still needs it.
    query_in(dir.path())
        .args(["--game", "dots-and-boxes", "--variant", "2x2", "verify"])
        .assert()
        .code(3)
        .stderr(contains("dab-2x2.db"));
    // No game named: British Square, whose variant must still be valid.
    query_in(dir.path())
        .args(["--variant", "9x9", "--json", "start"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(contains("9x9"));
    query_in(dir.path())
        .args(["--variant", "4x4", "start"])
        .assert()
        .code(3)
        .stderr(contains("bsq-4x4.db"));
    // A file of another variant than asked for is refused, with a one-line
    // message.
    let refused = query_in(dir.path())
        .args(["--db", "bsq.db", "--variant", "4x4", "start"])
        .assert()
        .code(3)
        .stderr(contains("holds british-square 5x5, not british-square 4x4"));
    let stderr = String::from_utf8(refused.get_output().stderr.clone()).unwrap();
    assert!(!stderr.contains("  "), "{stderr:?}");
    query_in(dir.path())
        .args(["--db", "dab.db", "--variant", "3x3", "none"])
        .assert()
        .success();

    // Each variant's default file (the name the generator writes, see
    // generator/tests) is where query looks.
    write_default(dir.path(), "british-square", "center-allowed");
    let a = query_in(dir.path())
        .args([
            "--game",
            "british-square",
            "--variant",
            "center-allowed",
            "--json",
        ])
        .arg("start")
        .assert()
        .success();
    let j: serde_json::Value = serde_json::from_str(stdout_of(&a).trim()).unwrap();
    let best: Vec<&str> = j["best"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert_eq!(
        best,
        ["b2", "d2", "c3", "b4", "d4"],
        "center-allowed opens in the centre too"
    );
    write_default(dir.path(), "dots-and-boxes", "2x2");
    query_in(dir.path())
        .args([
            "--game",
            "dots-and-boxes",
            "--variant",
            "2x2",
            "--json",
            "none",
        ])
        .assert()
        .success()
        .stdout(contains("\"value\":2"));
    // The file is read for what it holds, not for its name.
    std::fs::copy(dir.path().join("dab.db"), dir.path().join("dab-2x2.db")).unwrap();
    query_in(dir.path())
        .args(["--game", "dots-and-boxes", "--variant", "2x2", "none"])
        .assert()
        .code(3)
        .stderr(contains("holds dots-and-boxes 3x3, not dots-and-boxes 2x2"));
}

#[test]
fn finished_boards_need_no_side_to_move() {
    // Every finished British Square board of 3x3, written without its side,
    // is answered as finished: its score, remoteness 0, no moves.
    let dir = tempfile::tempdir().unwrap();
    let path = write_default(dir.path(), "british-square", "3x3");
    let game = AnyGame::new("british-square", "3x3").unwrap();
    let g = game.game();
    let db = boardsolve::Database::open(&path).unwrap();
    let layout = db.header().layout;
    let mut finished = Vec::new();
    let mut edges = Vec::new();
    for &r in db.raw_records() {
        let key = layout.key(u64::from_le(r));
        edges.clear();
        g.moves(key, &mut edges);
        if edges.is_empty() {
            // The board alone: the notation without the side.
            let text = g.format_position(key);
            let board = text.split_whitespace().next().unwrap().to_owned();
            finished.push((board, g.score(key, 0)));
        }
    }
    assert!(finished.len() > 3);
    let input: String = finished.iter().map(|(b, _)| format!("{b}\n")).collect();
    let a = query_in(dir.path())
        .args(["--db"])
        .arg(&path)
        .args(["--json", "-"])
        .write_stdin(input)
        .assert()
        .success();
    let out = stdout_of(&a);
    for ((board, score), line) in finished.iter().zip(out.lines()) {
        let j: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(j["value"], *score, "{board}");
        assert_eq!(j["remoteness"], 0, "{board}");
        assert_eq!(j["moves"].as_array().map(Vec::len), Some(0), "{board}");
    }
}

#[test]
fn an_empty_line_is_an_error_in_every_game() {
    // One rule for every game: an empty line of a batch is an error for
    // that line; `start` is the start.
    // A position of each game that is answered at once (the live games'
    // are late ones: their start is a long search).
    for (game, live, position) in [
        ("british-square", false, "start"),
        ("dots-and-boxes", false, "start"),
        ("connect-four", true, "4444443322"),
        ("dandelions", true, "F*F*****F.*****.*.*.*F.F* 01346"),
    ] {
        let dir = if live {
            tempfile::tempdir().unwrap().keep()
        } else {
            defaults().to_path_buf()
        };
        let a = query_in(&dir)
            .args(["--game", game, "--json", "-"])
            .write_stdin(format!("\n{position}\n   \n"))
            .assert()
            .code(1);
        let lines: Vec<serde_json::Value> = stdout_of(&a)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 3, "{game}");
        assert!(
            lines[0]["error"].as_str().unwrap().contains("empty"),
            "{game}"
        );
        assert!(lines[1].get("error").is_none(), "{game}: {}", lines[1]);
        assert!(lines[2]["error"].is_string(), "{game}");
        query_in(&dir)
            .args(["--game", game, ""])
            .assert()
            .code(1)
            .stderr(contains("empty position"));
    }
}

#[test]
fn help_lists_every_game_and_its_examples_run() {
    let help = query_in(defaults()).arg("--help").assert().success();
    let help = stdout_of(&help);
    for g in boardsolve::registry::GAMES {
        assert!(help.contains(&format!("  {}: ", g.name)), "{help}");
    }
    assert!(help.contains("Exit status:"));
    let examples: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Examples"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect();
    assert!(examples.len() >= 8, "{help}");
    let dir = tempfile::tempdir().unwrap();
    for f in ["bsq.db", "dab.db"] {
        std::fs::copy(defaults().join(f), dir.path().join(f)).unwrap();
    }
    // The default files of the other games solved completely, which the
    // examples read (the games with a book answer by search without one).
    for g in boardsolve::registry::GAMES {
        let game = AnyGame::new(g.name, "").unwrap();
        if g.kind == DatabaseKind::Complete && !dir.path().join(game.default_file_name()).exists() {
            write_default(dir.path(), g.name, "");
        }
    }
    std::fs::write(dir.path().join("positions.txt"), "a1 e5\nstart\n").unwrap();
    for example in examples {
        let (command, input) = match example.split_once(" < ") {
            Some((c, file)) => (c, std::fs::read(dir.path().join(file)).unwrap()),
            None if example.contains(" play") => (example, b"best\nquit\n".to_vec()),
            None => (example, Vec::new()),
        };
        let words = shell_words(command);
        assert_eq!(words[0], "query");
        query_in(dir.path())
            .args(&words[1..])
            .write_stdin(input)
            .assert()
            .success();
    }
    assert!(dir.path().join("board.svg").exists());
    let play_help = query_in(defaults())
        .arg("play")
        .write_stdin("help\n")
        .assert()
        .success();
    assert!(stdout_of(&play_help).contains("a cell number"));
}

/// Splits a command line of the help's examples: words, and double-quoted
/// strings.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut rest = line.trim();
    while !rest.is_empty() {
        if let Some(quoted) = rest.strip_prefix('"') {
            let end = quoted.find('"').unwrap();
            words.push(quoted[..end].to_owned());
            rest = quoted[end + 1..].trim_start();
        } else {
            let end = rest.find(' ').unwrap_or(rest.len());
            words.push(rest[..end].to_owned());
            rest = rest[end..].trim_start();
        }
    }
    words
}

#[test]
fn statistics_of_an_opening_book_say_what_they_cannot_count() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("book.db");
    // A small board's book: its statistics are an opening book's, and it
    // builds in a fraction of a second.
    let game = AnyGame::new("connect-four", "5x4").unwrap();
    let mut options = boardsolve::solve::book::BookOptions::new(3);
    options.table_bits = 20;
    let book = game
        .build_book(&options, &boardsolve::core::NoProgress)
        .unwrap()
        .unwrap();
    boardsolve::db::write_database(&path, game.game().descriptor(), &book.into()).unwrap();
    query_in(dir.path())
        .arg("--db")
        .arg(&path)
        .arg("stats")
        .assert()
        .success()
        .stdout(contains("opening book"))
        .stdout(contains("States: "));
    query_in(dir.path())
        .arg("--db")
        .arg(&path)
        .args(["stats", "--heuristic", "greedy"])
        .assert()
        .code(1)
        .stderr(contains("complete database"));
}

#[test]
fn a_closed_stdout_ends_quietly() {
    // The commands that read a whole file, on a small one.
    let small = tempfile::tempdir().unwrap();
    write_default(small.path(), "british-square", "4x4");
    for (dir, args) in [
        (small.path(), &["--variant", "4x4", "verify"][..]),
        (defaults(), &["info"]),
        (defaults(), &["a1 e5"]),
        (defaults(), &["--json", "-"]),
        (small.path(), &["--variant", "4x4", "stats"]),
    ] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_query"))
            .current_dir(dir)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Closed before the answer is written.
        drop(child.stdout.take());
        if let Some(mut stdin) = child.stdin.take() {
            use std::io::Write;
            let _ = stdin.write_all("a1\n".repeat(20_000).as_bytes());
        }
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("panicked"),
            "{args:?}"
        );
    }
}

#[test]
fn exit_statuses_follow_one_table() {
    let dir = defaults();
    // 0: answered.
    query_in(dir).arg("a1 e5").assert().code(0);
    // 1: a malformed or illegal position (the others are answered).
    query_in(dir)
        .args(["a1 e5", "zz"])
        .assert()
        .code(1)
        .stdout(contains("Position:"));
    // 2: usage: an unknown game, a bad variant, an option that does not
    // apply, a bad option value.
    query_in(dir).args(["--game", "chess"]).assert().code(2);
    query_in(dir)
        .args(["--game", "dots-and-boxes", "--variant", "9x9"])
        .assert()
        .code(2);
    query_in(dir)
        .args(["--svg", "a.svg", "a1", "b1"])
        .assert()
        .code(2);
    query_in(dir)
        .args(["--color", "sometimes"])
        .assert()
        .code(2);
    query_in(dir)
        .args(["--weak", "--pv", "a1"])
        .assert()
        .code(2);
    // 3: the database is missing or not the one asked for.
    query_in(dir)
        .args(["--db", "missing.db", "a1"])
        .assert()
        .code(3);
    query_in(dir)
        .args(["--db", "bsq.db", "--game", "dots-and-boxes", "none"])
        .assert()
        .code(3);
}

#[test]
fn weak_answers_count_the_score_so_far_and_keep_the_given_side() {
    let dir = defaults();
    // After a1, X leads by one piece; the exact answer is -1 for O, to
    // move, who loses: the weak answer says so, not the draw of what O
    // nets from here on.
    let exact = query_in(dir).args(["--json", "a1"]).assert().success();
    let exact: serde_json::Value = serde_json::from_str(stdout_of(&exact).trim()).unwrap();
    assert_eq!(
        (&exact["to_move"], &exact["value"]),
        (&"O".into(), &(-1).into())
    );
    let weak = query_in(dir)
        .args(["--weak", "--json", "a1"])
        .assert()
        .success();
    let weak: serde_json::Value = serde_json::from_str(stdout_of(&weak).trim()).unwrap();
    assert_eq!(weak["value"], -1, "{weak}");
    assert_eq!(weak["to_move"], "O");
    // Every move's result is the sign of the exact answer's: both for the
    // mover.
    for m in weak["moves"].as_array().unwrap() {
        let e = exact["moves"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["move"] == m["move"])
            .unwrap();
        let for_o = e["value"].as_i64().unwrap().signum();
        assert_eq!(m["value"].as_i64().unwrap(), for_o, "{m}");
    }
    // A side and a score given are kept.
    query_in(dir)
        .args(["--game", "dots-and-boxes", "--weak", "0,3,12,13,14,4 B 1-0"])
        .assert()
        .success()
        .stdout(contains("To move:    B"))
        .stdout(contains("Result:     win for B"));
}
