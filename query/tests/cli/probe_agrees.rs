//! The probe crate (`boardsolve-probe`, with live search) answers every
//! position as `query --json` does, in all four games: complete files,
//! a dense file, and an opening book with search past it.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use boardsolve::core::NoProgress;
use boardsolve::registry::AnyGame;
use boardsolve::solve::book::BookOptions;
use boardsolve_probe::{json, ProbeError, Tablebase};

use crate::common::positions;

/// Writes the database of `name` `variant` (a book of `depth` when given).
fn write(dir: &Path, name: &str, variant: &str, depth: Option<u32>) -> PathBuf {
    let game = AnyGame::new(name, variant).unwrap();
    let solved = match depth {
        Some(d) => game
            .build_book(&BookOptions::new(d), &NoProgress)
            .unwrap()
            .unwrap()
            .into(),
        None => game.solve(&NoProgress).unwrap(),
    };
    let path = dir.join(format!("{name}-{variant}.db"));
    boardsolve::db::write_database(&path, game.game().descriptor(), &solved).unwrap();
    path
}

/// `query --json` for each position, one line each.
fn query_answers(db: &Path, positions: &[String]) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_query"))
        .arg("--db")
        .arg(db)
        .args(["--json", "-"])
        .write_stdin(positions.join("\n") + "\n")
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Each move's `deltaRemoteness` is its distance from the remoteness of
/// the first move (moves come best first) with the same `moveValue`.
fn check_delta_remoteness(p: &str, moves: &[serde_json::Value]) {
    let of = |m: &serde_json::Value, k: &str| m[k].as_u64().unwrap();
    for m in moves {
        let first = moves
            .iter()
            .find(|o| o["moveValue"] == m["moveValue"])
            .unwrap();
        assert_eq!(
            of(m, "deltaRemoteness"),
            of(m, "remoteness").abs_diff(of(first, "remoteness")),
            "{p}: {m}"
        );
    }
}

fn agree(db: &Path, positions: &[String], search: bool) {
    let mut tb = Tablebase::open(db).unwrap();
    if search {
        tb = tb.with_search(22).unwrap();
    }
    let answers = query_answers(db, positions);
    let probes = tb.probe_many(positions);
    let parsed: Vec<_> = positions.iter().map(|p| tb.parse(p)).collect();
    let valid: Vec<_> = parsed.iter().flatten().copied().collect();
    let mut evals = tb.evals(&valid).into_iter();
    assert_eq!(answers.len(), positions.len());
    // The value-only path gives every answered position's value, and the
    // parser fails where the answer does.
    for (r, p) in probes.iter().zip(&parsed) {
        let e = match p {
            Ok(_) => evals.next().unwrap(),
            Err(e) => {
                assert!(e.is_bad_input(), "{e}");
                assert!(r.as_ref().is_err_and(ProbeError::is_bad_input));
                continue;
            }
        };
        match (r, e) {
            (Ok(r), Ok(e)) => assert_eq!(r.eval(), e),
            (Err(ProbeError::NotInBook { .. }), _) => {}
            other => panic!("{other:?}"),
        }
    }
    let mut answered = 0;
    for ((p, line), r) in positions.iter().zip(&answers).zip(&probes) {
        // The JSON line is the same, byte for byte.
        assert_eq!(&tb.probe_json(p), line, "{p}");
        let q: serde_json::Value = serde_json::from_str(line).unwrap();
        match r {
            Ok(r) => {
                answered += 1;
                // The line written by hand is the line serde writes from
                // the answer's fields.
                let mut fields = Vec::new();
                json::write(&mut fields, &json::AnswerFields::new(p, r, None));
                assert_eq!(std::str::from_utf8(&fields).unwrap(), line, "{p}");
                assert_eq!(q["position"], r.position().board(), "{p}");
                assert_eq!(q["to_move"], r.position().to_move_name(), "{p}");
                assert_eq!(q["value"], r.value(), "{p}");
                assert_eq!(q["remoteness"], r.remoteness(), "{p}");
                let moves = q["moves"].as_array().unwrap();
                assert_eq!(moves.len(), r.moves().len(), "{p}");
                check_delta_remoteness(p, moves);
                for (qm, rm) in moves.iter().zip(r.moves()) {
                    assert_eq!(qm["move"], rm.mv.name(), "{p}");
                    assert_eq!(qm["value"], rm.value, "{p}");
                    assert_eq!(qm["remoteness"], rm.remoteness, "{p}");
                    assert_eq!(qm["deltaRemoteness"], rm.delta_remoteness, "{p}");
                    assert_eq!(qm["best"], rm.best, "{p}");
                }
            }
            Err(e) => {
                let message = q["error"].as_str().unwrap_or_else(|| panic!("{p}: {q}"));
                assert!(e.is_bad_input(), "{p}: {e}");
                assert_eq!(message, e.to_string());
            }
        }
    }
    assert!(answered + 1 >= positions.len(), "{answered} answered");
}

#[test]
fn probe_agrees_with_query_in_every_game() {
    let dir = tempfile::tempdir().unwrap();
    for (name, variant, n) in [
        ("british-square", "4x4", 600),
        ("british-square", "3x3,center-allowed", 200),
        ("dots-and-boxes", "2x2", 400),
        ("connect-four", "4x4", 400),
        ("dandelions", "3x3", 400),
    ] {
        let db = write(dir.path(), name, variant, None);
        agree(&db, &positions(name, variant, n, 7), false);
    }
}

#[test]
fn probe_searches_past_a_book_as_query_does() {
    let dir = tempfile::tempdir().unwrap();
    let db = write(dir.path(), "connect-four", "5x4", Some(3));
    let positions = positions("connect-four", "5x4", 150, 11);
    agree(&db, &positions, true);
    // Without search, the same positions past the book are typed errors.
    let tb = Tablebase::open(&db).unwrap();
    let past = tb
        .probe_many(&positions)
        .into_iter()
        .filter(|r| matches!(r, Err(ProbeError::NotInBook { .. })))
        .count();
    assert!(past > 50, "{past} positions past the book");
}
