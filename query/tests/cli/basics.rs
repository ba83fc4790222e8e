//! The query tool as a user (or a script) runs it.

use crate::common::{bsq4_db, json_lines};
use std::path::Path;

use assert_cmd::Command;
use predicates::str::contains;

fn query() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_query"));
    c.arg("--db").arg(bsq4_db());
    c
}

#[test]
fn start_position_for_people() {
    query()
        .assert()
        .success()
        .stdout(contains("To move:    X"))
        .stdout(contains(
            "Value:      0 for X, the side to move (a tie: the pieces end even)",
        ))
        .stdout(contains("Remoteness: 8"))
        .stdout(contains("Best moves:"))
        .stdout(contains("Move values"));
}

#[test]
fn json_answer_has_every_move_best_first() {
    let out = query()
        .args(["--json", "--pv", "0,15"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let j = &json_lines(&out)[0];
    assert_eq!(j["position"], "X.../..../..../...O X");
    assert_eq!(j["to_move"], "X");
    let moves = j["moves"].as_array().unwrap();
    assert!(!moves.is_empty());
    // Best first: the first move's value is the position's value (X to move
    // maximises X's final score), and every listed best move has it.
    assert_eq!(moves[0]["value"], j["value"]);
    let best: Vec<&str> = j["best"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_str().unwrap())
        .collect();
    let side = j["position"].as_str().unwrap().split('/').count();
    for m in moves {
        let v = m["value"].as_i64().unwrap();
        assert!(v <= j["value"].as_i64().unwrap());
        assert_eq!(
            best.contains(&m["move"].as_str().unwrap()),
            m["value"] == j["value"]
        );
        // A move is named by its cell's coordinate: column letter, row
        // from 1 at the top.
        let cell = m["cell"].as_u64().unwrap() as usize;
        let coordinate = format!(
            "{}{}",
            (b'a' + (cell % side) as u8) as char,
            cell / side + 1
        );
        assert_eq!(coordinate, m["move"].as_str().unwrap());
    }
    assert_eq!(
        j["pv"].as_array().unwrap().len() as u64,
        j["remoteness"].as_u64().unwrap()
    );
}

#[test]
fn bad_positions_fail_with_a_reason() {
    query()
        .arg("X..")
        .assert()
        .code(1)
        .stderr(contains("malformed position"));
    query()
        .arg("XO../..../..../....")
        .assert()
        .code(1)
        .stderr(contains("adjacent"));
    // Well formed, but O could never have passed with room to play.
    query()
        .arg("XXXX/..../..../.... X")
        .assert()
        .code(1)
        .stderr(contains("cannot be reached"));
    query()
        .arg("0,0")
        .assert()
        .code(1)
        .stderr(contains("occupied"));
    query()
        .arg("0,pass")
        .assert()
        .code(1)
        .stderr(contains("pass is only allowed"));
    // The good position is still answered.
    query()
        .args(["--json", "start", "Q"])
        .assert()
        .code(1)
        .stdout(contains("\"error\""));
}

#[test]
fn unusable_databases_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let cmd = |path: &Path| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_query"));
        c.arg("--db").arg(path);
        c
    };
    cmd(&dir.path().join("missing.db"))
        .assert()
        .code(3)
        .stderr(contains("No such file"));
    cmd(dir.path())
        .assert()
        .code(3)
        .stderr(contains("not a regular file"));
    let bytes = std::fs::read(bsq4_db()).unwrap();
    let truncated = dir.path().join("truncated.db");
    std::fs::write(&truncated, &bytes[..bytes.len() - 8]).unwrap();
    cmd(&truncated)
        .assert()
        .code(3)
        .stderr(contains("truncated"));
    let mut flipped = bytes.clone();
    flipped[40] ^= 1;
    let foreign = dir.path().join("foreign.db");
    std::fs::write(&foreign, &flipped).unwrap();
    cmd(&foreign)
        .assert()
        .code(3)
        .stderr(contains("header checksum"));
    query()
        .args(["--game", "connect-four"])
        .assert()
        .code(3)
        .stderr(contains("not connect-four"));
}

#[test]
fn batch_answers_every_line_in_order() {
    let mut input = b"start\n\n0,15\nnonsense\n".to_vec();
    input.extend_from_slice(b"\xff\xfe\n");
    input.extend_from_slice(&vec![b'.'; 10_000]);
    input.extend_from_slice(b"\nX.../..../..../...O X");
    let out = query()
        .args(["--json", "-"])
        .write_stdin(input)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 7);
    let ok: Vec<bool> = lines.iter().map(|l| l.get("error").is_none()).collect();
    assert_eq!(ok, [true, false, true, false, false, false, true]);
    assert_eq!(lines[2]["position"], lines[6]["position"]);
    assert!(lines[4]["error"].as_str().unwrap().contains("UTF-8"));
    assert!(lines[5]["error"].as_str().unwrap().contains("longer than"));
}

#[test]
fn batch_errors_name_their_lines_across_batches() {
    // Line 2 is refused in the first batch, line 5003 past the first
    // 4096 lines; the answers between them all come out.
    let mut input = String::from("start\nnonsense\n");
    input.push_str(&"start\n".repeat(5000));
    input.push_str("bogus\nstart\n");
    let out = query()
        .arg("-")
        .write_stdin(input)
        .assert()
        .code(1)
        .get_output()
        .clone();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let refused: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("query: line "))
        .collect();
    assert_eq!(refused.len(), 2, "{stderr}");
    assert!(refused[0].starts_with("query: line 2: "), "{stderr}");
    assert!(refused[1].starts_with("query: line 5003: "), "{stderr}");
    let one = query().arg("start").output().unwrap().stdout;
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        stdout.matches(&*String::from_utf8(one).unwrap()).count(),
        5002
    );
}

#[test]
fn verify_and_info() {
    query()
        .arg("verify")
        .arg("-q")
        .assert()
        .success()
        .stdout(contains("OK"));
    query()
        .args(["info", "--json"])
        .assert()
        .success()
        .stdout(contains("\"records\":10206"));
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = std::fs::read(bsq4_db()).unwrap();
    let last = bytes.len() - 3;
    bytes[last] ^= 0x40;
    let bad = dir.path().join("bad.db");
    std::fs::write(&bad, &bytes).unwrap();
    Command::new(env!("CARGO_BIN_EXE_query"))
        .args(["verify", "-q", "--db"])
        .arg(&bad)
        .assert()
        .code(3)
        .stderr(contains("records checksum mismatch"));
}

#[test]
fn batch_answers_each_line_as_it_arrives() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command as Std, Stdio};
    let mut child = Std::new(env!("CARGO_BIN_EXE_query"))
        .arg("--db")
        .arg(bsq4_db())
        .args(["--json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    // Each answer must come back before the next question is sent.
    for pos in ["start", "0,15", "nonsense"] {
        writeln!(stdin, "{pos}").unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let j: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(j["input"], pos);
    }
    drop(stdin);
    assert_eq!(child.wait().unwrap().code(), Some(1));
}

/// Every move `--json` names reads back as input: the move list with the
/// move's name appended, and with its cell number, reach the same
/// position, along a game played by the first listed move (forced
/// passes included).
#[test]
fn every_json_move_reads_back_as_input() {
    let mut played: Vec<String> = Vec::new();
    loop {
        let here = if played.is_empty() {
            "start".to_owned()
        } else {
            played.join(" ")
        };
        let out = query().args(["--json", &here]).assert().success();
        let j = &json_lines(&out.get_output().stdout)[0];
        let moves = j["moves"].as_array().unwrap();
        if moves.is_empty() {
            break;
        }
        // Both spellings of every move, one position per line.
        let mut lines = String::new();
        for m in moves {
            let name = m["move"].as_str().unwrap();
            let number = m["cell"]
                .as_u64()
                .map_or_else(|| "pass".to_owned(), |c| c.to_string());
            let before = if played.is_empty() {
                String::new()
            } else {
                format!("{here} ")
            };
            lines.push_str(&format!("{before}{name}\n{before}{number}\n"));
        }
        let out = query()
            .args(["--json", "-"])
            .write_stdin(lines)
            .assert()
            .success();
        let answers = json_lines(&out.get_output().stdout);
        assert_eq!(answers.len(), 2 * moves.len());
        for pair in answers.chunks(2) {
            assert!(pair[0].get("error").is_none(), "{}", pair[0]);
            assert_eq!(
                pair[0]["position"], pair[1]["position"],
                "{}",
                pair[0]["input"]
            );
        }
        played.push(moves[0]["move"].as_str().unwrap().to_owned());
    }
    assert!(played.len() >= 8, "{played:?}");
}
