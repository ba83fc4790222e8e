//! Hostile files, paths and streams met by every command: forged counts,
//! values the game rules out, named pipes, full disks behind stdout, and
//! lines that are not text. Each ends in a clear error and the documented
//! exit status, never a wrong answer, a hang or a panic.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};
use std::time::Duration;

use assert_cmd::Command;
use boardsolve::core::{NoProgress, RecordLayout, Value};
use boardsolve::db::header::{Header, FLAG_COMPLETE};
use boardsolve::games::british_square::BritishSquare;
use boardsolve::games::dots_and_boxes::DotsAndBoxes;
use boardsolve::registry::{AnyGame, OpenError};
use boardsolve::solve::dense::solve_dense;
use boardsolve::solve::solve;
use boardsolve::{DbError, Game};
use predicates::str::contains;
use tempfile::TempDir;

use crate::common::{records_resealed, resealed, with_value};

/// Every command a user can point at a database, with its stdin.
const COMMANDS: [(&[&str], &str); 7] = [
    (&["info"], ""),
    (&["--json", "info"], ""),
    (&["start"], ""),
    (&["--json", "-"], "start\n"),
    (&["stats"], ""),
    (&["verify", "-q"], ""),
    (&["play"], "quit\n"),
];

fn query(db: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_query"));
    c.arg("--db").arg(db).timeout(Duration::from_secs(60));
    c
}

/// Runs every command against `db`: each must exit 3 with a message that
/// contains `why` (on stderr, or on stdout as the JSON error of a line).
fn every_command_refuses(db: &Path, why: &str) {
    for (args, stdin) in COMMANDS {
        let out = query(db).args(args).write_stdin(stdin).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {stderr}");
        assert!(
            stderr.contains(why) || (args[0] == "--json" && stdout.contains(why)),
            "{args:?}: {stderr}{stdout}"
        );
        assert!(stderr.starts_with("query: error: "), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// A sealed header for `game`'s complete database of `count` records.
fn header_for(game: &dyn Game, count: u64) -> Header {
    let desc = game.descriptor();
    Header {
        game_id: desc.id,
        flags: FLAG_COMPLETE,
        game_name: desc.name.to_owned(),
        variant: desc.variant.clone(),
        kind: boardsolve::core::LayoutKind::for_game(desc),
        layout: RecordLayout::for_game(desc),
        record_count: count,
        records_checksum: 0,
        start_key: game.canonical(game.start()),
        generator: "forged".to_owned(),
        packed: None,
    }
}

#[test]
fn a_forged_count_is_refused_before_anything_is_read() {
    let dir = tempfile::tempdir().unwrap();
    // 2^31 records of British Square 5x5 (which has 8,659,987), in a sparse
    // file of the size the header claims, with a matching header checksum.
    let game = BritishSquare::from_variant("5x5").unwrap();
    let forged = dir.path().join("forged.db");
    let header = header_for(&game, 1 << 31);
    let mut f = std::fs::File::create(&forged).unwrap();
    f.write_all(&header.encode().unwrap()).unwrap();
    f.set_len(header.expected_file_size().unwrap()).unwrap();
    drop(f);
    match AnyGame::open(&forged) {
        Err(OpenError::Db(DbError::HeaderField { field, reason })) => {
            assert_eq!(field, "record_count");
            assert!(reason.contains("8659987"), "{reason}");
        }
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("a forged count was accepted"),
    }
    every_command_refuses(&forged, "record_count");

    // One record more than the game has, in a small file whose every
    // checksum holds.
    let small = BritishSquare::from_variant("3x3").unwrap();
    let sol = solve(&small, &NoProgress).unwrap();
    let good = dir.path().join("good.db");
    boardsolve::db::write_database(&good, small.descriptor(), &sol.into()).unwrap();
    let mut bytes = std::fs::read(&good).unwrap();
    let layout = RecordLayout::for_game(small.descriptor());
    let last = u64::from_le_bytes(bytes[bytes.len() - 8..].try_into().unwrap());
    let extra = layout
        .pack(layout.key(last) + 1, Value::TERMINAL)
        .unwrap()
        .to_le_bytes();
    bytes.extend_from_slice(&extra);
    let bytes = records_resealed(&resealed(&bytes, |h| h.record_count += 1), |_| {});
    let one_more = dir.path().join("one-more.db");
    std::fs::write(&one_more, &bytes).unwrap();
    every_command_refuses(&one_more, "has at most 74 positions");
    // Marked partial, it is still more than the game has.
    let bytes = resealed(&bytes, |h| h.flags &= !FLAG_COMPLETE);
    std::fs::write(&one_more, &bytes).unwrap();
    every_command_refuses(&one_more, "has at most 74 positions");
}

/// The file at `good` with the record of `key` given `value`, written
/// under `name`.
fn with_sorted_value(dir: &TempDir, good: &[u8], name: &str, key: u64, value: Value) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, with_value(good, key, value)).unwrap();
    p
}

#[test]
fn values_the_game_rules_out_are_corruption_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let game = BritishSquare::from_variant("3x3").unwrap();
    let sol = solve(&game, &NoProgress).unwrap();
    let good = dir.path().join("good.db");
    boardsolve::db::write_database(&good, game.descriptor(), &sol.into()).unwrap();
    let good = std::fs::read(&good).unwrap();
    let layout = Header::decode(&good).unwrap().layout;
    let start = game.canonical(game.start());

    // Remoteness 63 on a 9-cell board, where a game lasts at most 18 plies.
    let far = Value {
        net: 0,
        remoteness: layout.max_remoteness(),
    };
    let p = with_sorted_value(&dir, &good, "far.db", start, far);
    every_command_refuses(&p, "out of the game's range");
    query(&p)
        .arg("start")
        .assert()
        .code(3)
        .stderr(contains("database corrupted"))
        .stderr(contains("query verify"));

    // A net score below what 9 cells allow.
    let deep = Value {
        net: layout.min_net(),
        remoteness: 9,
    };
    let p = with_sorted_value(&dir, &good, "deep.db", start, deep);
    every_command_refuses(&p, "out of the game's range");

    // A move's value out of range: the start is refused for it, but info
    // (which reads the start alone) answers.
    let mut children = Vec::new();
    game.canonical_children(start, &mut children);
    let child = children[0].child;
    let p = with_sorted_value(&dir, &good, "child.db", child, deep);
    query(&p)
        .arg("start")
        .assert()
        .code(3)
        .stderr(contains("out of the game's range"));
    query(&p)
        .args(["--json", "-"])
        .write_stdin("start\n")
        .assert()
        .code(3)
        .stdout(contains("out of the game's range"));
    query(&p).arg("info").assert().code(0);
    query(&p)
        .args(["verify", "-q"])
        .assert()
        .code(3)
        .stderr(contains("out of the game's range"));

    // A dense file: the empty 2x2 Dots and Boxes board worth 127 boxes.
    let dab = DotsAndBoxes::from_variant("2x2").unwrap();
    let sol = solve_dense(&dab, &NoProgress).unwrap();
    let good = dir.path().join("dab.db");
    boardsolve::db::write_database(&good, dab.descriptor(), &sol.into()).unwrap();
    let bytes = records_resealed(&std::fs::read(&good).unwrap(), |r| {
        r[dab.start() as usize] = 0x7f
    });
    let p = dir.path().join("dab-forged.db");
    std::fs::write(&p, bytes).unwrap();
    every_command_refuses(&p, "out of the game's range");
}

#[test]
fn a_named_pipe_is_refused_without_waiting() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("in.fifo");
    assert!(Process::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    // Nobody writes the pipe: opening it for reading would wait forever.
    every_command_refuses(&fifo, "a named pipe, not a regular file");
}

#[test]
fn a_full_stdout_is_an_error_not_a_panic() {
    let db = crate::common::bsq4_db();
    for args in [
        &["info"][..],
        &["--json", "info"],
        &["verify"],
        &["start"],
        &["--json", "start"],
        &["stats"],
        &["--help"],
        &["--version"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = Process::new(env!("CARGO_BIN_EXE_query"))
            .arg("--db")
            .arg(db)
            .args(args)
            .stdin(Stdio::null())
            .stdout(full)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("query: error: writing output: No space left on device"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    // Batch mode, with positions to answer: the same words, whichever
    // thread met the full disk.
    let positions = "start\na1\nb2 c3\n".repeat(5000);
    for args in [&["-"][..], &["--json", "-"]] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let mut child = Process::new(env!("CARGO_BIN_EXE_query"))
            .arg("--db")
            .arg(db)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(full)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        // The program may stop reading once it fails: a closed pipe here
        // is its choice.
        let _ = stdin.write_all(positions.as_bytes());
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("query: error: writing output: No space left on device"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn play_answers_lines_that_are_not_text_and_goes_on() {
    let db = crate::common::bsq4_db();
    let mut script = b"\xff\xfe\n".to_vec();
    script.extend(std::iter::repeat_n(b'x', 1 << 20));
    script.extend_from_slice(b"\nbest\nquit\n");
    let out = query(db)
        .arg("play")
        .write_stdin(script)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("the line is not valid UTF-8"), "{out}");
    assert!(out.contains("the line is longer than 4096 bytes"), "{out}");
    assert!(out.contains("X plays"), "the game went on: {out}");
}

#[test]
fn an_oversize_position_argument_is_refused_briefly() {
    let db = crate::common::bsq4_db();
    let long = "a".repeat(100_000);
    let out = query(db)
        .args(["--json", &long, "start"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.trim(),
        "query: error: position is longer than 4096 bytes"
    );
    let lines = crate::common::json_lines(&out.stdout);
    assert_eq!(lines.len(), 2, "the next position is answered");
    assert_eq!(lines[0]["input"], "a".repeat(40));
    assert!(lines[1]["value"].is_number());
}
