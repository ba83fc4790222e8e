//! Each JSON shape is the same object whoever prints it: `query info
//! --json` and `query serve`'s `GET /api/info` agree on every field they
//! share, `query verify --json` reports what `info` describes, and a
//! position's answer and refusal are the same over HTTP as on the command
//! line. (`python/tests` holds the Python package's side: its `info()` and
//! `verify()` equal the objects `query` prints.)

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::serve::{enc, get, query_line, serve, write_db};

/// The one JSON object `query --db db ARGS` prints, with exit status 0.
fn object(db: &Path, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_query"))
        .arg("--db")
        .arg(db)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    serde_json::from_str(&text).unwrap()
}

/// The object's keys (sorted: the order the tools print them in is
/// `docs.rs`'s to check, from the documents' examples).
fn keys(v: &Value) -> Vec<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

#[test]
fn info_and_verify_agree_on_the_command_line_and_over_http() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        crate::common::bsq4_db().to_path_buf(),
        write_db(dir.path(), "dots-and-boxes", "2x2", None),
        write_db(dir.path(), "connect-four", "5x4", Some(2)),
        write_db(dir.path(), "dandelions", "3x3", None),
    ];
    let paths: Vec<&Path> = files.iter().map(|f| f.as_path()).collect();
    let server = serve(&paths, &[]);
    let (status, body) = get(&server.addr, "/api/info");
    assert_eq!(status, 200, "{body}");
    let served: Value = serde_json::from_str(&body).unwrap();
    let served = served["databases"].as_array().unwrap();
    assert_eq!(served.len(), files.len());

    for (db, entry) in files.iter().zip(served) {
        let info = object(db, &["info", "--json"]);
        let verify = object(db, &["verify", "-q", "--json"]);
        let path = db.display().to_string();

        // The file as given, in both of the command line's objects.
        assert_eq!(info["db"], path.as_str());
        assert_eq!(verify["db"], path.as_str());
        // Every field `/api/info` shares with `info` has its value.
        let shared: Vec<&str> = keys(entry)
            .into_iter()
            .filter(|k| info.get(k).is_some())
            .collect();
        assert_eq!(
            shared,
            ["complete", "game", "records", "variant"],
            "{entry}"
        );
        for k in shared {
            assert_eq!(entry[k], info[k], "{path}: {k}");
        }
        assert_eq!(entry["file"], true);
        // `verify` checks the file `info` describes, every field named.
        for k in ["game", "variant", "records"] {
            assert_eq!(verify[k], info[k], "{path}: {k}");
        }
        assert_eq!(
            keys(&verify),
            [
                "children_checked",
                "db",
                "derived",
                "game",
                "ok",
                "records",
                "variant"
            ]
        );
        assert_eq!(verify["ok"], true);
        let complete = info["complete"].as_bool().unwrap();
        assert_eq!(verify["children_checked"], complete, "{path}");
        let derived = verify["derived"].as_u64().unwrap();
        let records = verify["records"].as_u64().unwrap();
        assert!(derived > 0 && derived <= records, "{path}: {verify}");
        assert_eq!(derived == records, complete, "{path}: {verify}");

        // A position's answer and its refusal, byte for byte.
        let (game, variant) = (
            info["game"].as_str().unwrap(),
            info["variant"].as_str().unwrap(),
        );
        for p in ["start", "not a position"] {
            let target = format!("/api/position?game={game}&variant={variant}&p={}", enc(p));
            let (status, body) = get(&server.addr, &target);
            assert_eq!(status, if p == "start" { 200 } else { 400 }, "{body}");
            assert_eq!(body, query_line(db, p), "{path}: {p}");
        }
    }

    // A request refused before any position is read: the error alone.
    let (status, body) = get(&server.addr, "/api/position?p=start");
    assert_eq!(status, 400);
    let refused: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(keys(&refused), ["error"]);
}

#[test]
fn a_failed_verification_names_the_file_and_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = std::fs::read(crate::common::bsq4_db()).unwrap();
    let last = bytes.len() - 3;
    bytes[last] ^= 0x40;
    let bad = dir.path().join("bad.db");
    std::fs::write(&bad, &bytes).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_query"))
        .arg("--db")
        .arg(&bad)
        .args(["verify", "-q", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(keys(&report), ["db", "error", "ok"]);
    assert_eq!(report["db"], bad.display().to_string().as_str());
    assert_eq!(report["ok"], false);
    assert!(report["error"]
        .as_str()
        .unwrap()
        .contains("records checksum mismatch"));
}
