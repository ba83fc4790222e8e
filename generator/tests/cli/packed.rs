//! `generator --layout packed`: for every game, the packed file of the
//! file `generator` writes plain (unpacking it gives that file back byte
//! for byte), written atomically, and the options that go with it.

use std::path::Path;

use assert_cmd::Command;
use boardsolve::registry::AnyGame;
use predicates::str::contains;

fn generator() -> Command {
    Command::new(env!("CARGO_BIN_EXE_generator"))
}

/// `generator ARGS -q --json -o OUT`: its summary.
fn run(args: &[&str], out: &Path) -> serde_json::Value {
    let o = generator()
        .args(args)
        .args(["-q", "--json", "-o"])
        .arg(out)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn every_game_is_written_packed() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["--game", "british-square", "--variant", "4x4"][..],
        &["--game", "dots-and-boxes", "--variant", "2x3"],
        &["--game", "connect-four", "--variant", "4x4"],
        &["--game", "dandelions", "--variant", "3x3"],
        &[
            "--game",
            "connect-four",
            "--variant",
            "5x4",
            "--depth",
            "5",
            "--table-bits",
            "20",
        ],
        &[
            "--game",
            "dots-and-boxes",
            "--variant",
            "1x11",
            "--depth",
            "1",
            // 2^22 entries: with 2^20 its searches take three times as long.
            "--table-bits",
            "22",
        ],
    ] {
        let plain = dir.path().join("plain.db");
        let packed = dir.path().join("packed.db");
        let a = run(args, &plain);
        let mut with = args.to_vec();
        with.extend(["--layout", "packed", "--block-entries", "256"]);
        let b = run(&with, &packed);
        assert_eq!(b["packed"], true, "{args:?}: {b}");
        assert!(a.get("packed").is_none());
        for field in [
            "states",
            "start_value",
            "start_remoteness",
            "complete",
            "layout",
        ] {
            assert_eq!(a[field], b[field], "{args:?}: {field}");
        }
        assert_eq!(
            b["bytes"].as_u64(),
            Some(std::fs::metadata(&packed).unwrap().len())
        );
        // The packed file holds the plain one, byte for byte.
        let (db, _) = AnyGame::open(&packed).unwrap();
        assert!(db.is_packed());
        assert_eq!(db.header().packed.unwrap().block_entries, 256);
        let back = db.unpack().unwrap();
        assert!(
            back.file_bytes() == std::fs::read(&plain).unwrap(),
            "{args:?}: the packed file does not hold the plain one"
        );
        // Nothing left beside it.
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            names.iter().all(|n| n == "plain.db" || n == "packed.db"),
            "{names:?}"
        );
    }
}

#[test]
fn the_text_summary_says_packed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bsq.db");
    generator()
        .args(["--variant", "4x4", "--layout", "packed", "-q", "-o"])
        .arg(&out)
        .assert()
        .success()
        .stdout(contains("bytes packed ("))
        .stdout(contains("bits a position)"));
}

#[test]
fn packing_options_that_do_not_apply_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.db");
    for (args, says) in [
        (&["--block-entries", "4096"][..], "--layout packed only"),
        (
            &["--layout", "packed", "--block-entries", "1000"],
            "power of two",
        ),
        (
            &["--layout", "packed", "--block-entries", "32"],
            "power of two",
        ),
        (&["--layout", "zipped"], "invalid value"),
    ] {
        generator()
            .args(["--variant", "3x3"])
            .args(args)
            .arg("-o")
            .arg(&out)
            .assert()
            .code(2)
            .stderr(contains(says));
        assert!(!out.exists());
    }
}
